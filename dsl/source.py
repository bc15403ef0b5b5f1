"""Source files and spans: every AST and IR node points back to the text it came from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Rules files larger than this are refused before parsing (documented in docs/language.md).
MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file; lines and columns are 1-based, the end column is exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"

    @staticmethod
    def point(line: int, col: int) -> Span:
        return Span(line, col, line, col + 1)

    def to(self, other: Span) -> Span:
        return Span(self.line, self.col, other.end_line, other.end_col)


NOWHERE = Span(1, 1, 1, 1)


@dataclass
class SourceFile:
    """The decoded text of one rules file, with the name used in diagnostics."""

    name: str
    text: str

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")

    def line_text(self, line: int) -> str:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1].rstrip("\r")
        return ""

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        before = self.text[:offset]
        line = before.count("\n") + 1
        col = offset - (before.rfind("\n") + 1) + 1
        return line, col

    def snippet(self, span: Span) -> str:
        """The source text a span covers (used by reports to quote the .rules file)."""
        if span.line == span.end_line:
            return self.line_text(span.line)[span.col - 1 : span.end_col - 1]
        parts = [self.line_text(span.line)[span.col - 1 :]]
        parts += [self.line_text(n) for n in range(span.line + 1, span.end_line)]
        parts.append(self.line_text(span.end_line)[: span.end_col - 1])
        return "\n".join(parts)


def display_name(path: Path) -> str:
    """Paths are shown relative to the working directory when possible, so output is stable."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):  # elsewhere, or a link loop (reading it says so)
        return str(path)
