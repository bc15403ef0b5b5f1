"""Text to AST: decoding, limits, the lark LALR parser, friendly syntax errors and error recovery."""

from __future__ import annotations

import bisect
import itertools
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from . import ast
from .builder import Builder, meta_span, token_span
from .diagnostics import Diagnostics
from .source import MAX_FILE_BYTES, SourceFile, Span, display_name

#: Brackets and expressions may nest this deep; deeper input is refused with E0004 instead of
#: exhausting the Python stack in later passes.
MAX_NESTING = 64

TOP_KEYWORDS = (
    "game", "enum", "card", "piece", "table", "zone", "var", "param", "define", "procedure", "flow",
    "ambiguity", "invariant", "term", "question", "target", "edition", "board", "record", "outside",
)

#: How lark's terminal names read in an error message.
TOKEN_WORDS = {
    "NAME": "a name",
    "INT": "a whole number",
    "STRING": 'a string in double quotes ("…")',
    "LANGTAG": "a language tag such as @ja",
    "CMP": "a comparison (==, !=, <, <=, >, >=)",
    "DEFAULT": "'default'",
    "$END": "the end of the file",
}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = resources.files("rulecheck.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        start=["start", "item_only", "expr"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


def _literal_words() -> dict[str, str]:
    words = dict(TOKEN_WORDS)
    for term in _lark().terminals:
        pattern = term.pattern
        if pattern.type == "str" and term.name not in words:
            words[term.name] = f"'{pattern.value}'"
    return words


# ---- reading files ----------------------------------------------------------------------------


def read_source(path: Path, diags: Diagnostics) -> SourceFile | None:
    """Read a rules file, refusing unreadable, oversized and non-UTF-8 input with a diagnostic."""
    name = display_name(path)
    try:
        with path.open("rb") as f:
            # one byte more than the limit is enough to refuse it, even from a device that never ends
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        diags.error("E0001", "no such file", hint="check the path; the shipped rulesets are in rulesets/").file = name
        return None
    except IsADirectoryError:
        diags.error("E0001", "this is a directory, not a rules file", hint="name a .rules file inside it").file = name
        return None
    except OSError as exc:
        diags.error("E0001", f"cannot read the file: {exc.strerror or exc}", hint="check that the file exists and that you may read it").file = name
        return None
    return decode_source(name, data, diags)


def decode_source(name: str, data: bytes, diags: Diagnostics) -> SourceFile | None:
    """Decode the bytes of a rules file.  On invalid UTF-8 the returned text has replacement
    characters (so the diagnostic can show the line) and an E0002 error is recorded."""
    if len(data) > MAX_FILE_BYTES:
        size = f"{len(data):,} bytes" if len(data) > MAX_FILE_BYTES + 1 else f"more than {MAX_FILE_BYTES:,} bytes"
        diags.error(
            "E0003",
            f"the file is {size}; rules files are limited to {MAX_FILE_BYTES:,} bytes (1 MiB)",
            hint="check that this is the rules file you meant; a ruleset is text written by hand and is far smaller",
        ).file = name
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = _line_ends(data[: exc.start].decode("utf-8", errors="replace"))
        line = prefix.count("\n") + 1
        col = len(prefix) - (prefix.rfind("\n") + 1) + 1
        src = SourceFile(name, _line_ends(data.decode("utf-8", errors="replace")))
        diags.error(
            "E0002",
            f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8",
            Span.point(line, col),
            hint="save the file as UTF-8 (rulebook quotes in Japanese and other languages are welcome)",
        )
        return src
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(name, _line_ends(text))


def _line_ends(text: str) -> str:
    """A carriage return alone ends a line, as a line feed and CR LF do (docs/language.md): it
    becomes a line feed, so that lines, comments and positions are the same in every back end
    (one character for another: every offset stays where it was)."""
    return re.sub("\r(?!\n)", "\n", text) if "\r" in text else text




# ---- limits -----------------------------------------------------------------------------------

#: The syntax tree of one declaration may be this many levels deep.  Each operator, call, attribute,
#: index, ``else if`` and block adds a level, so a flat chain ``a + b + …`` of about 250 terms is the
#: longest accepted; the limit keeps the checker and the back ends, which recurse, far from
#: Python's stack limit.
MAX_TREE_DEPTH = MAX_NESTING * 4

_LEXICAL = re.compile(r'"(?:[^"\\]|\\.)*"|#[^\n]*|[()\[\]{}]|\n', re.S)


def check_nesting(src: SourceFile, diags: Diagnostics) -> bool:
    """Refuse brackets nested deeper than MAX_NESTING before the parser sees them."""
    depth = 0
    line, line_start = 1, 0
    for m in _LEXICAL.finditer(src.text):
        tok = m.group()
        if tok == "\n":
            line += 1
            line_start = m.end()
        elif tok[0] == '"':
            nl = tok.count("\n")
            if nl:
                line += nl
                line_start = m.start() + tok.rfind("\n") + 1
        elif tok in "([{":
            depth += 1
            if depth > MAX_NESTING:
                col = m.start() - line_start + 1
                diags.error(
                    "E0004",
                    f"brackets nested more than {MAX_NESTING} deep",
                    Span.point(line, col),
                    hint="give the inner part a name with 'let' or 'define', or call a procedure for the inner steps",
                )
                return False
        elif tok in ")]}":
            depth = max(0, depth - 1)
    return True


def _tree_too_deep(tree: Tree[Token]) -> Span | None:
    """Where a declaration's syntax tree is deeper than MAX_TREE_DEPTH (the start of the part of the
    declaration that holds the deep node), found without recursion."""
    stack: list[tuple[Any, int, Any]] = [(tree, 0, None)]
    while stack:
        node, depth, anchor = stack.pop()
        if not isinstance(node, Tree):
            continue
        if depth > MAX_TREE_DEPTH:
            where = anchor if anchor is not None else node
            return meta_span(where.meta)
        # depth 0 is the file, 1 a declaration, 2 its parts (a body, a block, a case)
        for child in node.children:
            stack.append((child, depth + 1, child if depth + 1 == 2 else anchor))
    return None


# ---- syntax errors ----------------------------------------------------------------------------

#: How each top-level keyword's declaration is called in messages.
_DECL_WORDS = {
    "game": "game declaration", "enum": "enum", "card": "card type", "piece": "piece type", "table": "table",
    "zone": "zone", "var": "variable", "param": "parameter", "define": "definition", "procedure": "procedure",
    "flow": "flow", "ambiguity": "ambiguity", "invariant": "invariant", "term": "term",
    "question": "question", "target": "target", "edition": "edition mapping",
    "board": "board", "record": "record", "outside": "out-of-scope declaration",
}

#: Operators that may follow a complete expression; summarized as "an operator" in messages.
_OPERATORS = frozenset({"+", "-", "*", "/", "%", "and", "or", "in", "not", ".", "[", "..", "CMP"})

_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"?|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|->|=>|[=!<>]=|\S', re.S)


@lru_cache(maxsize=1)
def _first_sets() -> dict[str, frozenset[str]]:
    """The terminals that can start an expression, a statement and a declaration, read from the
    parse table so that they follow the grammar."""
    lark = _lark()
    block = lark.parse_interactive("flow {", start="item_only")
    block.exhaust_lexer()
    expr = lark.parse_interactive("", start="expr")
    item = lark.parse_interactive("", start="item_only")
    return {
        "an expression": frozenset(expr.accepts()),  # type: ignore[no-untyped-call]
        "a statement": frozenset(block.accepts()) - {"RBRACE"},  # type: ignore[no-untyped-call]
        "a declaration": frozenset(item.accepts()),  # type: ignore[no-untyped-call]
    }


def _accepts(err: UnexpectedToken) -> set[str]:
    """The terminals that would really let the parser go on: LALR's own expected sets merge
    contexts and list tokens that would fail a step later."""
    ip = getattr(err, "interactive_parser", None)
    if ip is not None:
        try:
            return set(ip.accepts())
        except Exception:  # the precise set is a nicety; lark's own one will do
            pass
    return set(err.expected or ())


@lru_cache(maxsize=1)
def _keywords() -> frozenset[str]:
    return frozenset(str(t.pattern.value) for t in _lark().terminals if t.pattern.type == "str" and str(t.pattern.value).isalpha())


def _word(terminal: str) -> str:
    return _literal_words().get(terminal, terminal)


def _summarize(expected: set[str]) -> list[str]:
    """What the parser expected, in words; whole classes of tokens become "an expression" etc."""
    rest = {e for e in expected if not e.startswith("__") or e in _literal_words()}
    groups: list[str] = []
    core = {"an expression": {"INT", "NAME", "LPAR", "STRING"}}
    for label, first in _first_sets().items():
        if core.get(label, first) <= expected:
            groups.append(label)
            rest -= first
    ops = {e for e in rest if _literal_words().get(e, "").strip("'") in _OPERATORS or e == "CMP"}
    if len(ops) >= 3:
        groups.append("an operator")
        rest -= ops
    return groups + sorted(_word(e) for e in rest)


def _or_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _expected_hint(expected: set[str]) -> str | None:
    items = _summarize(expected)
    if not items:
        return None
    if len(items) > 6:
        return "expected " + ", ".join(items[:6]) + ", …"
    return "expected " + _or_list(items)


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    text = str(tok)
    if tok.type == "STRING":
        return f"string {text if len(text) <= 30 else text[:28] + '…' + text[-1]}"
    if tok.type == "NAME":
        return f"name '{text}'"
    if tok.type == "INT":
        return f"number {text}"
    return f"'{text}'"


@lru_cache(maxsize=4)
def _line_starts(text: str) -> list[int]:
    """The offset where each line starts; cached, since a file with many errors asks often."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _offset(src: SourceFile, line: int, col: int) -> int:
    """The character offset of a 1-based (line, column) in the file."""
    starts = _line_starts(src.text)
    return starts[max(1, min(line, len(starts))) - 1] + col - 1


def _position(src: SourceFile, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of a character offset, in logarithmic time."""
    starts = _line_starts(src.text)
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _tokens_before(src: SourceFile, offset: int, floor: int, n: int = 6) -> list[str]:
    """The last few tokens between ``floor`` and an offset (comments skipped): context for hints.
    ``floor`` is where the declaration or the interpolation starts, so that the scan neither starts
    inside a string nor reads the whole file for every error."""
    toks = [m.group() for m in _TOKEN_RE.finditer(src.text, floor, offset) if not m.group().startswith("#")]
    return toks[-n:]


def _special_hint(tok: Token, expected: set[str], before: list[str]) -> str | None:
    """Advice for the mistakes people make most, beyond what the parser expected."""
    text = str(tok)
    prev = before[-1] if before else ""
    for kw, brace in itertools.pairwise(before):
        if kw in {"if", "while", "until"} and brace == "{" and "RBRACE" in expected:
            return f"the condition is missing: write {kw} CONDITION {{ … }}"
    if prev in {"elif", "elsif", "elseif"} or text in {"elif", "elsif", "elseif"}:
        return "write 'else if'"
    if text in {"function", "def", "fn", "func", "fun"}:
        return "a rule that gives a value starts with 'define'; a sequence of steps with 'procedure'"
    if text == "=" and "CMP" in expected:
        return "compare with '==' ('=' gives a value in let, set and define)"
    if text == "=" and "COLON" in expected:
        return "write ':' here"
    if tok.type == "CMP" and "CMP" not in expected and any(t in {"==", "!=", "<", "<=", ">", ">="} for t in before):
        return "comparisons do not chain: write a < b and b < c"
    if text == "then" and "LBRACE" in expected:
        return "an if statement takes a block: if cond { … } else { … } ('then' belongs to the expression if c then a else b)"
    if text in _DECL_WORDS and "RBRACE" in expected:
        return f"a '}}' is probably missing before this '{text}'"
    if tok.type == "STRING" and "RBRACE" in expected and "COMMA" in expected:
        return "separate the items with ','"
    if text == "," and prev and "RBRACE" in expected and "COMMA" not in expected:
        return "write each statement on its own; ',' separates only arguments and set items"
    if prev == "for" and "EACH" in expected:
        return "loops are written: for each x in S { … }"
    if "TIMES" in expected and "repeat" in before:
        return "write: repeat N times { … }"
    if text == "(" and prev in _keywords():
        return f"'{prev}' is read as a keyword here; give the procedure or definition another name"
    # a word the grammar reserves elsewhere (`turn` in a game declaration) is a name here
    if (tok.type == "NAME" or text in _keywords()) and expected == {"LPAR"}:
        return f"'{prev}' is not a statement; statements start with let, set, move, draw, choose, if, for, repeat, while, end, say, shuffle or a procedure call"
    return None


_CODE_LINE = re.compile(r"\n[ \t]*(?:}|(?:" + "|".join(
    ["let", "set", "move", "draw", "choose", "if", "for", "repeat", "while", "end", "say", "shuffle", "source", *_DECL_WORDS]
) + r")\b)")


@lru_cache(maxsize=4)
def _runaway_strings(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the strings that run over lines that look like rules."""
    out = []
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|#[^\n]*', text):
        if m.group().startswith('"') and _CODE_LINE.search(m.group()):
            out.append((m.start(), m.end()))
    return out


def _runaway_string(src: SourceFile, offset: int) -> tuple[int, int] | None:
    """The last string that ends before ``offset`` and runs over lines that look like rules, or
    None.  Such a string has probably lost its closing quote."""
    found = [r for r in _runaway_strings(src.text) if r[1] <= offset]
    return found[-1] if found else None


def _runaway_note(src: SourceFile, start: int) -> str:
    line, col = _position(src, start)
    return f"the string that starts at line {line}, column {col} runs over several lines of rules: is its closing '\"' missing?"


def _unclosed(text: str, base: int) -> tuple[str, int] | None:
    """The innermost bracket left open at the end of a piece of text, and its offset in the file."""
    stack: list[tuple[str, int]] = []
    for m in _LEXICAL.finditer(text):
        tok = m.group()
        if tok in "([{" and tok != "\n":
            stack.append((tok, base + m.start()))
        elif tok in ")]}" and tok != "\n" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _misindented(src: SourceFile, text: str, base: int) -> tuple[int, int] | None:
    """A '{' whose matching '}' starts a line less indented than the line of the '{': by the
    indentation, that '}' closes an outer block, so this '{' is probably the one left open.
    Returns (line of the '{', line of the '}') for the last such pair."""
    stack: list[int] = []
    found = None
    for m in _LEXICAL.finditer(text):
        if m.group() == "{":
            stack.append(base + m.start())
        elif m.group() == "}" and stack:
            opened = stack.pop()
            oline, _ = _position(src, opened)
            cline, ccol = _position(src, base + m.start())
            before_close = src.line_text(cline)[: ccol - 1]
            open_text = src.line_text(oline)
            if not before_close.strip() and len(before_close) < len(open_text) - len(open_text.lstrip()):
                found = (oline, cline)
    return found


def _char_error(err: UnexpectedCharacters, src: SourceFile, diags: Diagnostics) -> None:
    line, col = err.line, err.column
    text = src.line_text(line)
    ch = text[col - 1] if 0 < col <= len(text) else ""
    if ch == '"':
        d = diags.error(
            "E0104", "this string is never closed", Span.point(line, col),
            hint='close it with a " (write \\" for a quote mark inside a string)',
        )
        runaway = _runaway_string(src, _offset(src, line, col))
        if runaway is not None:
            d.notes.append(_runaway_note(src, runaway[0]))
        return
    shown = (f"'{ch}'" if ch != "'" else '"\'"') if ch.isprintable() and ch else f"U+{ord(ch):04X}" if ch else "?"
    nxt = text[col : col + 1]
    if ch in "'`‘’“”":
        hint = 'strings are written in straight double quotes: "…"'
    elif ch == ";":
        hint = "no ';' is needed: end the statement with a line break (or just go on)"
    elif ch == "!" and nxt != "=":
        hint = "write 'not x' for a negation ('!=' means 'is not equal to')"
    elif ch == "&":
        hint = "write 'and'"
    elif ch == "@":
        hint = "a language tag is written @ and lower-case letters, e.g. @ja, before a translation string"
    elif ch and not ch.isascii():
        hint = "names are ASCII letters, digits and '_'; put text in other scripts inside a string"
    else:
        hint = "this character has no meaning in the rules language outside strings and comments (# …)"
    diags.error("E0101", f"unexpected character {shown}", Span.point(line, col), hint=hint)


def _token_error(err: UnexpectedToken, src: SourceFile, diags: Diagnostics, floor: int) -> None:
    tok = err.token
    expected = _accepts(err)
    span = token_span(tok)
    before = _tokens_before(src, _offset(src, span.line, span.col), floor)
    runaway = _runaway_string(src, _offset(src, span.line, span.col))
    if runaway is not None and _position(src, runaway[1])[0] == span.line:
        # the error follows a quote that closed a string opened lines before: that is the mistake
        line, col = _position(src, runaway[0])
        d = diags.error("E0104", "this string is never closed", Span.point(line, col), hint='close it with a " at the end of its text')
        d.notes.append(f"without its closing quote it runs on to line {span.line}, where {_describe_token(tok)} cannot be read as rules")
        return
    special = _special_hint(tok, expected, before)
    d = diags.error("E0102", f"unexpected {_describe_token(tok)}", span, hint=special or _expected_hint(expected))


def _end_error(err: UnexpectedToken, src: SourceFile, diags: Diagnostics, start: int, end: int, at_eof: bool) -> None:
    """The declaration in text[start:end] stops before it is complete."""
    chunk = src.text[start:end]
    word = re.match(r"[A-Za-z_]+", chunk)
    what = _DECL_WORDS.get(word.group(), "declaration") if word else "declaration"
    expected = _accepts(err)
    code = "E0103" if at_eof else "E0102"
    unclosed = _unclosed(chunk, start)
    nxt = None if at_eof else _position(src, end)[0]
    if unclosed is not None:
        bracket, pos = unclosed
        line, col = _position(src, pos)
        closer = {"{": "}", "(": ")", "[": "]"}[bracket]
        where = "at the end of the file" if at_eof else f"before line {nxt}"
        d = diags.error(code, f"this '{bracket}' is never closed", Span.point(line, col), hint=f"add the '{closer}' that closes it {where}")
        d.notes.append(f"the {what} ends {'with the file' if at_eof else f'where the next declaration starts, on line {nxt}'}")
        guess = _misindented(src, chunk, start)
        if bracket == "{" and guess is not None:
            d.notes.append(
                f"judging by the indentation, the '{{' on line {guess[0]} is the one left open: "
                f"the '}}' on line {guess[1]} is indented like an outer block"
            )
        return
    toks = [m for m in _TOKEN_RE.finditer(chunk) if not m.group().startswith("#")]
    line, col = _position(src, start + (toks[-1].start() if toks else 0))
    msg = f"the file ends before the {what} is finished" if at_eof else f"the {what} is not finished"
    hint = _expected_hint(expected)
    d = diags.error(code, msg, Span.point(line, col), hint=hint)
    if not at_eof:
        d.notes.append(f"the next declaration starts on line {nxt}")


def syntax_diagnostic(err: UnexpectedInput, src: SourceFile, diags: Diagnostics, floor: int = 0) -> None:
    """One syntax error as a diagnostic; positions are those of ``src``, and the text in question
    starts at offset ``floor`` (a declaration, an interpolation)."""
    if isinstance(err, UnexpectedCharacters):
        _char_error(err, src, diags)
    elif isinstance(err, UnexpectedToken) and err.token.type == "$END":
        _end_error(err, src, diags, 0, len(src.text), at_eof=True)
    elif isinstance(err, UnexpectedToken):
        _token_error(err, src, diags, floor)
    else:
        line = getattr(err, "line", 1) or 1
        col = getattr(err, "column", 1) or 1
        diags.error("E0102", "the text cannot be read as rules here", Span.point(line, col), hint="see docs/language.md for the syntax")


# ---- entry points -----------------------------------------------------------------------------


def _chunks(text: str) -> list[tuple[int, int, bool]]:
    """Top-level declarations, found lexically, so that one broken declaration does not hide the
    errors in the others: a new chunk starts at a top-level keyword at brace depth 0 or at the
    start of a line.  Each chunk is (start, end, inside): ``inside`` when it starts inside brackets
    left open by the chunk before."""
    starts: list[int] = []
    inside: set[int] = set()
    depth = 0
    pos = 0
    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    string = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
    at_line_start = True
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == '"':
            m = string.match(text, pos)
            pos = m.end() if m else n
            at_line_start = False
            continue
        if ch == "#":
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl
            continue
        if ch == "\n":
            at_line_start = True
            pos += 1
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth = max(0, depth - 1)
        m = word.match(text, pos)
        if m:
            w = m.group()
            # (an ambiguity's question "…" is no declaration: a question declaration names itself)
            named = w != "question" or re.match(r"\s+[A-Za-z_]", text[m.end():m.end() + 2]) is not None
            if w in TOP_KEYWORDS and named and (depth == 0 or at_line_start):
                starts.append(pos)
                if depth:
                    inside.add(pos)
                depth = 0
            pos = m.end()
            at_line_start = False
            continue
        if not ch.isspace():
            at_line_start = False
        pos += 1
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [(s, starts[i + 1] if i + 1 < len(starts) else n, s in inside) for i, s in enumerate(starts)]
    return [(a, b, ins) for a, b, ins in bounds if re.sub(r"#[^\n]*", "", text[a:b]).strip()]


def _parse_text(text: str, start: str) -> Tree[Token]:
    return _lark().parse(text, start=start)


#: After this many syntax errors the parser stops looking for more: they are usually consequences
#: of the first ones, and a file of thousands of broken lines would take minutes.
MAX_SYNTAX_ERRORS = 50


def _shift(err: UnexpectedInput, line0: int, col0: int) -> None:
    """Move the position of an error found in a piece of the file that starts at (line0, col0) to
    the file's own lines and columns."""

    def moved(line: int | None, col: int | None) -> tuple[int | None, int | None]:
        if line is None or col is None:
            return line, col
        return line + line0 - 1, col + col0 - 1 if line == 1 else col

    if isinstance(err, UnexpectedToken):
        tok = err.token
        tok.line, tok.column = moved(tok.line, tok.column)
        tok.end_line, tok.end_column = moved(tok.end_line, tok.end_column)
    if isinstance(err, (UnexpectedCharacters, UnexpectedToken)):
        err.line, err.column = moved(err.line, err.column)  # type: ignore[assignment]


def _report_chunks(src: SourceFile, diags: Diagnostics) -> None:
    """The first syntax error of every top-level declaration (up to MAX_SYNTAX_ERRORS)."""
    chunks = _chunks(src.text)
    parsed: dict[int, UnexpectedInput | None] = {}

    def error_of(i: int) -> UnexpectedInput | None:
        if i not in parsed:
            a, b, _ = chunks[i]
            try:
                _parse_text(src.text[a:b], "item_only")
                parsed[i] = None
            except UnexpectedInput as exc:
                _shift(exc, *_position(src, a))
                parsed[i] = exc
        return parsed[i]

    end_of_text = len(src.text.rstrip())
    skip: set[int] = set()
    reported = 0
    for i, (a, b, _) in enumerate(chunks):
        err = error_of(i)
        if err is None or i in skip:
            continue
        if reported == MAX_SYNTAX_ERRORS:
            diags.items[-1].notes.append(f"rulecheck stops after {MAX_SYNTAX_ERRORS} syntax errors; fix these and check again")
            return
        ends_early = isinstance(err, UnexpectedToken) and err.token.type == "$END"
        merged = _merge_inner(src.text, chunks, i) if ends_early else None
        if merged is not None:
            # declarations inside this one's braces that belong there (a reading's procedure)
            skip.update(range(i + 1, merged + 1))
            continue
        reported += 1
        if ends_early and i + 1 < len(chunks) and chunks[i + 1][2] and _complete_then_more(error_of(i + 1)):
            # a declaration written inside this one's braces: one error, not a missing '}' and a stray rest
            _nested_declaration(src, diags, chunks[i], chunks[i + 1])
            skip.add(i + 1)
        elif ends_early:
            assert isinstance(err, UnexpectedToken)
            _end_error(err, src, diags, a, b, at_eof=b >= end_of_text)
        else:
            syntax_diagnostic(err, src, diags, floor=a)


def _complete_then_more(err: UnexpectedInput | None) -> bool:
    """A declaration that parsed completely and is followed by more text."""
    return isinstance(err, UnexpectedToken) and err.token.type != "$END" and "$END" in _accepts(err)


def _merge_inner(text: str, chunks: list[tuple[int, int, bool]], i: int) -> int | None:
    """The last of the chunks that start inside chunk i's braces with which it parses whole, if
    any: a keyword at the start of a line splits a chunk even inside braces, to recover from a
    missing '}', so a reading's procedure was cut off its ambiguity."""
    k = i + 1
    while k < len(chunks) and chunks[k][2]:
        try:
            _parse_text(text[chunks[i][0]:chunks[k][1]], "item_only")
            return k
        except UnexpectedInput:
            k += 1
    return None


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _nested_declaration(src: SourceFile, diags: Diagnostics, outer: tuple[int, int, bool], inner: tuple[int, int, bool]) -> None:
    word = re.match(r"[A-Za-z_]+", src.text[inner[0] :])
    keyword = word.group() if word else "declaration"
    outer_word = re.match(r"[A-Za-z_]+", src.text[outer[0] :])
    outer_what = _DECL_WORDS.get(outer_word.group(), "declaration") if outer_word else "declaration"
    line, col = _position(src, inner[0])
    d = diags.error(
        "E0102", f"a {_DECL_WORDS.get(keyword, 'declaration')} cannot be declared inside {_a(outer_what)}",
        Span(line, col, line, col + len(keyword)),
        hint=f"move it out: '{keyword}' and the other declarations go at the top level, outside every '{{ … }}'",
    )
    oline, _ = _position(src, outer[0])
    d.notes.append(f"the {outer_what} starts on line {oline}; if it was meant to end before this line, its '}}' is missing")


def parse_source(src: SourceFile, diags: Diagnostics) -> ast.Ruleset | None:
    """Parse a whole file.  On a syntax error, parse declaration by declaration to report the first
    error of every broken one; returns None when any syntax error was found."""
    if not check_nesting(src, diags):
        return None
    try:
        tree = _parse_text(src.text, "start")
    except UnexpectedInput as first:
        before = diags.count()
        _report_chunks(src, diags)
        if diags.count() == before:
            syntax_diagnostic(first, src, diags)
        return None
    deep = _tree_too_deep(tree)
    if deep is not None:
        diags.error(
            "E0004", f"nested too deeply: more than {MAX_TREE_DEPTH} levels of syntax inside one another", deep,
            hint="each operator, call, 'else if' and block is a level, so a chain like a + b + … or if … else if … counts "
            "one per link; give parts a name with 'let' or 'define'",
        )
        return None
    before = diags.count()
    ruleset: ast.Ruleset = Builder(diags).transform(tree)
    if diags.count() > before:  # the builder finds only errors (escapes, numbers)
        return None
    return ruleset


def parse_expr_text(text: str, line: int, col: int, diags: Diagnostics, src: SourceFile) -> ast.Expr | None:
    """Parse an expression that sits at (line, col) of the file (used for say interpolations)."""
    try:
        tree = _parse_text(text, "expr")
    except UnexpectedInput as err:
        _shift(err, line, col)
        if isinstance(err, UnexpectedToken) and err.token.type == "$END":
            rows = text.split("\n")
            end = (line, col + len(text)) if len(rows) == 1 else (line + len(rows) - 1, len(rows[-1]) + 1)
            hint: str | None
            if not text.strip():
                msg, hint = "empty braces in a say text", "write an expression between the braces, or \\{ and \\} for braces in the text"
            else:
                msg, hint = "the expression in braces is not finished", _expected_hint(_accepts(err))
            diags.error("E0102", msg, Span.point(*end), hint=hint)
        else:
            syntax_diagnostic(err, src, diags, floor=_offset(src, line, col))
        return None
    if _tree_too_deep(tree) is not None:
        diags.error("E0004", "an interpolated expression nested too deeply", Span.point(line, col), hint="compute it with 'let' first")
        return None
    _shift_tree(tree, line, col)
    expr: ast.Expr = Builder(diags).transform(tree)
    return expr


def _shift_tree(tree: Tree[Token], line0: int, col0: int) -> None:
    """Move the positions of a tree parsed from a piece of the file that starts at (line0, col0)
    to the file's own lines and columns (cheaper than padding the piece with line breaks)."""

    def moved(line: int, col: int) -> tuple[int, int]:
        return line + line0 - 1, col + col0 - 1 if line == 1 else col

    seen: set[int] = set()
    for node in tree.iter_subtrees():
        meta = node.meta
        if id(meta) not in seen and not getattr(meta, "empty", True):
            seen.add(id(meta))
            meta.line, meta.column = moved(meta.line, meta.column)
            meta.end_line, meta.end_column = moved(meta.end_line, meta.end_column)
        for tok in node.children:
            if isinstance(tok, Token) and id(tok) not in seen and tok.line is not None and tok.column is not None:
                seen.add(id(tok))
                tok.line, tok.column = moved(tok.line, tok.column)
                if tok.end_line is not None and tok.end_column is not None:
                    tok.end_line, tok.end_column = moved(tok.end_line, tok.end_column)
