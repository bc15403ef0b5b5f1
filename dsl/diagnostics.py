"""Compiler-style diagnostics: a code, a position, the source line with a caret, a hint.

Every problem the toolkit finds in a rules file becomes a :class:`Diagnostic`; nothing reaches the
user as a Python traceback.  The codes are listed in docs/diagnostics.md.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from .safetext import inert, is_inert
from .source import NOWHERE, SourceFile, Span


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


#: Every diagnostic code with a one-line title.  docs/diagnostics.md explains each one; a test
#: (tests/test_docs_examples.py) fails when the two disagree.
CODES: dict[str, str] = {
    "E0001": "the file cannot be read",
    "E0002": "the file is not UTF-8 text",
    "E0003": "the file is larger than the size limit",
    "E0004": "brackets or expressions nested too deeply",
    "E0005": "the file declares nothing",
    "E0006": "a table or a range larger than the limit",
    "E0101": "unexpected character",
    "E0102": "unexpected token",
    "E0103": "unexpected end of file",
    "E0104": "unterminated string",
    "E0105": "invalid escape sequence in a string",
    "E0106": "a number beyond the integer limit",
    "E0201": "unknown name",
    "E0202": "duplicate declaration",
    "E0203": "a name used as something it is not",
    "E0204": "wrong number of arguments",
    "E0205": "unknown attribute",
    "E0206": "recursion: a definition or procedure that calls itself",
    "E0301": "type mismatch",
    "E0302": "a constant was required",
    "E0303": "wrong or missing index",
    "E0304": "a value outside its declared range",
    "E0305": "a constant computed beyond the integer limit",
    "E0401": "the game declaration is missing or repeated",
    "E0402": "a table does not fit its card type",
    "E0403": "a flow is missing or repeated",
    "E0404": "data without provenance: say given, assumed or unspecified",
    "E0405": "invalid declaration",
    "E0406": "a board whose layout is not well formed",
    "E0407": "an observation that cannot be made",
    "E0408": "a record used other than through its entries",
    "E0409": "a table row that depends on what a game does not fix",
    "E0501": "an ambiguity needs at least two readings",
    "E0502": "a reading overrides a name that does not exist",
    "E0503": "a reading that names no ambiguity",
    "E0504": "an ambiguity needs exactly one default reading",
    "E0505": "an override does not match the signature it replaces",
    "E0506": "a varying definition is missing from a reading",
    "E0507": "an ambiguity needs a quote of the rulebook",
    "E0701": "a construct verify cannot reason about",
    "W0601": "declared but never used",
    "W0602": "a rule without a rulebook source",
    "W0603": "a quote that is not in the rulebook",
    "W0604": "count with an expression that it does not use",
}


@dataclass
class Diagnostic:
    severity: Severity
    code: str
    message: str
    span: Span = NOWHERE
    hint: str | None = None
    notes: list[str] = field(default_factory=list)
    #: The file a diagnostic is about when there is no source text to show (it cannot be read).
    file: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.span.line, self.span.col, self.code, self.message)


#: A file's diagnostics are kept up to this many errors and as many warnings; the rest are
#: counted, and a note on the last one shown says how many (as compilers do: a file of thousands
#: of broken strings would otherwise take minutes and print hundreds of megabytes).
MAX_DIAGNOSTICS = 200


class Diagnostics:
    """A collector that passes append to; errors never stop collection (beyond MAX_DIAGNOSTICS of
    a severity they are only counted)."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.kept = {Severity.ERROR: 0, Severity.WARNING: 0, Severity.NOTE: 0}
        self.dropped = dict.fromkeys(self.kept, 0)

    def add(self, d: Diagnostic) -> Diagnostic:
        """Keep a diagnostic, or count it beyond the limit (it is returned either way)."""
        if self.kept[d.severity] >= MAX_DIAGNOSTICS:
            self.dropped[d.severity] += 1
        else:
            self.kept[d.severity] += 1
            self.items.append(d)
        return d

    def error(self, code: str, message: str, span: Span = NOWHERE, hint: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(Severity.ERROR, code, message, span, hint))

    def warning(self, code: str, message: str, span: Span = NOWHERE, hint: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(Severity.WARNING, code, message, span, hint))

    def extend(self, other: Iterable[Diagnostic]) -> None:
        for d in other:
            self.add(d)

    def count(self) -> int:
        """How many diagnostics were found, counted ones beyond the limit included."""
        return len(self.items) + sum(self.dropped.values())

    @property
    def has_errors(self) -> bool:
        return self.dropped[Severity.ERROR] > 0 or any(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        seen: set[tuple[object, ...]] = set()
        out = []
        for d in sorted(self.items, key=Diagnostic.sort_key):
            key = (d.span, d.code, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
        for severity, n in self.dropped.items():
            shown = [d for d in out if d.severity is severity]
            if n and shown:
                note = (f"rulecheck shows the first {MAX_DIAGNOSTICS} {severity.value}s of a file; it found {n:,} more: "
                        "fix these and check again")
                # (a copy: sorting twice must not add the note twice)
                last = shown[-1]
                out[out.index(last)] = Diagnostic(last.severity, last.code, last.message, last.span, last.hint, [*last.notes, note], last.file)
        return out


def _common(a: str, b: str) -> int:
    """The length of the start two texts share."""
    return sum(1 for _ in itertools.takewhile(lambda p: p[0] == p[1], zip(a, b)))


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    pool = sorted(set(candidates))
    if len(pool) > 300:
        # difflib compares with every candidate; in a huge pool, look only at the likeliest ones:
        # of a similar length, sharing the most of their start and end
        def shared(c: str) -> int:
            return _common(c, name) + _common(c[::-1], name[::-1])

        pool = sorted((c for c in pool if abs(len(c) - len(name)) <= 2), key=lambda c: (-shared(c), c))[:300]
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f"did you mean '{close[0]}'?" if close else None


#: Source lines longer than this are shown as a window around the column of the diagnostic.
SHOWN_WIDTH = 100


def _window(text: str, col: int, width: int) -> tuple[str, int, int]:
    """The part of a long line to show, the column of ``col`` in it, and the widest caret that fits."""
    if len(text) <= SHOWN_WIDTH:
        return text, col, max(1, len(text) - col + 1)
    start = max(0, min(col - 1 - SHOWN_WIDTH // 3, len(text) - SHOWN_WIDTH))
    end = start + SHOWN_WIDTH
    shown = ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
    new_col = col - start + (1 if start else 0)
    return shown, new_col, max(1, end - col + 1)


def render(diag: Diagnostic, source: SourceFile | None) -> str:
    """Plain-text rendering, stable for golden files:

    file:line:col: error[E0201]: unknown name 'hnad'
       |
    12 |     move c to hnad[p]
       |               ^^^^
       = help: did you mean 'hand'?

    A diagnostic about a file that could not be read has no position: ``file: error[E0001]: …``.
    """
    # text of the ruleset (names of files, quotes, source lines) is shown inert (dsl/safetext.py)
    if source is None or diag.span is NOWHERE:
        # about the whole file: no position to give
        head = f"{source.name if source else diag.file or '<input>'}: {diag.severity.value}[{diag.code}]: {diag.message}"
    else:
        head = f"{source.name}:{diag.span.line}:{diag.span.col}: {diag.severity.value}[{diag.code}]: {diag.message}"
    lines = [inert(head)]
    text = source.line_text(diag.span.line).replace("\t", " ") if source is not None else ""
    if source is not None and text.strip() and diag.span is not NOWHERE:
        gutter = str(diag.span.line)
        pad = " " * len(gutter)
        col = max(1, min(diag.span.col, len(text) + 1))
        width = diag.span.end_col - diag.span.col if diag.span.end_line == diag.span.line else len(text) - col + 1
        text, col, width = _inert_line(text, col, width)
        shown, shown_col, room = _window(text, col, width)
        width = max(1, min(width, room))
        lines.append(f"{pad} |")
        lines.append(f"{gutter} | {shown}".rstrip())
        lines.append(f"{pad} | {' ' * (shown_col - 1)}{'^' * width}")
    else:
        pad = " "
    for note in diag.notes:
        lines.append(inert(f"{pad} = note: {note}"))
    if diag.hint:
        lines.append(inert(f"{pad} = help: {diag.hint}"))
    return "\n".join(lines)


def _inert_line(text: str, col: int, width: int) -> tuple[str, int, int]:
    """A source line made inert, with the column and the width of the carets moved to match."""
    if is_inert(text):
        return text, col, width
    before, marked, after = text[: col - 1], text[col - 1 : col - 1 + max(width, 0)], text[col - 1 + max(width, 0) :]
    before, marked = inert(before), inert(marked)
    return before + marked + inert(after), len(before) + 1, len(marked) if width > 0 else width


def render_all(diags: Iterable[Diagnostic], source: SourceFile | None) -> str:
    items = list(diags)
    body = "\n\n".join(render(d, source) for d in items)
    errors = sum(1 for d in items if d.is_error)
    warnings = sum(1 for d in items if d.severity is Severity.WARNING)
    summary = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    return f"{body}\n\n{summary}\n" if items else f"{summary}\n"
