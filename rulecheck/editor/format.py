"""`rulecheck fmt`: the one canonical layout of a ruleset.

The formatter keeps the author's line structure (every line break where it was, at most one blank
line in a row, none at the ends of the file) and the comments, and decides everything else:

- indentation, two spaces a level: the declarations, statements, fields, clauses and table rows
  inside braces one level in from the line that owns the braces; a line that goes on with the
  construct of the line before (a `source`, a `= …` on its own line) one level in from it; inside
  brackets that belong to an expression (a `match`, a set, parentheses), two levels in from the
  line the bracket opens on, and the closing bracket one level in;
- the spaces between tokens: one, except none inside parentheses and square brackets, before a
  comma or a colon, around `.` and `..`, after a unary minus, before the parenthesis of a call or
  the bracket of an index, and inside the braces of a set (`{16, 17, 18}`, `{}`); braces of a
  block written on one line are spaced (`{ senior "Senior", adult "Adult" }`);
- table rows aligned: every cell padded to its column's widest (by display width: a CJK character
  counts two columns), but a last column that holds strings, which stays free text; a row's guard
  (`when …`) follows its last bar after one space;
- a comment after code two spaces after it; a comment line at the level of the code around it.

Keeping the lines keeps every line number a finding, a report or a golden file cites; the shipped
rulesets are in this layout already (tests/test_editor_format.py). The result is checked to hold
exactly the tokens of the input before it is returned, so the formatter cannot change a ruleset's
meaning.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import LarkError

from rulecheck.dsl.diagnostics import Diagnostic, Diagnostics
from rulecheck.dsl.parser import parse_source
from rulecheck.dsl.source import SourceFile

INDENT = 2
OPEN = {"LBRACE": "RBRACE", "LPAR": "RPAR", "LSQB": "RSQB"}
CLOSE = frozenset(OPEN.values())
#: Nodes whose braces hold a list of declarations, statements, fields, clauses or rows.
BLOCKS = frozenset({"block", "game", "enum_decl", "kind_decl", "table_decl", "body_cases", "ambiguity_decl", "reading",
                    "question_decl", "edition_decl", "board_decl"})
#: An expression's braces that hold a list (of arms): indented as an expression's brackets.
EXPRESSION_LISTS = frozenset({"match"})
#: Braces of a set: no space inside.
SETS = frozenset({"set_lit", "set_comp", "cell_set"})
TIGHT_AFTER = frozenset({"LPAR", "LSQB", "DOT"})  # and ".." (an anonymous token: by what it spells)
#: Tokens an operand can end with: a minus after one of them subtracts.
OPERAND_ENDS = frozenset({"NAME", "INT", "STRING", "RPAR", "RSQB", "RBRACE", "TRUE", "FALSE"})


class FormatError(ValueError):
    """The text does not parse: the parser's diagnostics say why, as `rulecheck check` would."""

    def __init__(self, diagnostics: list[Diagnostic], source: SourceFile) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "the ruleset does not parse")
        self.diagnostics = diagnostics
        self.source = source


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = resources.files("rulecheck.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    # all tokens kept, so that each keyword and bracket knows the construct it belongs to
    return Lark(grammar, parser="lalr", start="start", propagate_positions=True, maybe_placeholders=False, keep_all_tokens=True)


@dataclass
class _Tok:
    tok: Token
    parent: str  # the construct the token belongs to (its node in the tree)
    chain: tuple[tuple[str, int], ...] = ()  # the nodes it is in, innermost first: (name, first line)
    starts: bool = False  # the first token of a declaration, statement, field, clause, row or arm
    block: bool = False  # a brace of a block (see BLOCKS)
    tight_braces: bool = False  # a brace of a set
    row: int | None = None  # the table row it belongs to, by number
    guard: int | None = None  # the table row whose guard (`when …` after it) it belongs to
    cell: int | None = None  # and the cell
    unary: bool = False  # a minus sign that has no left operand

    @property
    def type(self) -> str:
        return self.tok.type

    @property
    def line(self) -> int:
        return self.tok.line or 1


@dataclass
class _Frame:
    content: int  # indent of the lines inside
    close: int  # indent of the line of the closing bracket
    elements: bool  # it holds a list (continuation lines go one level further in)


@dataclass
class _Rows:
    """The cells of one table's rows, to align them."""

    cells: dict[int, list[str]] = field(default_factory=dict)  # row -> cell texts
    string_columns: set[int] = field(default_factory=set)


def _terminals() -> dict[str, str]:
    # lark names anonymous tokens by pattern ("__ANON_0" for ".."): map them to what they spell
    return {t.name: t.pattern.value for t in _parser().terminals}


def _collect(tree: Tree[Token]) -> tuple[list[_Tok], dict[int, _Rows]]:
    toks: list[_Tok] = []
    tables: dict[int, _Rows] = {}
    rows = [0]

    def walk(node: Tree[Token], element: bool, chain: tuple[tuple[str, int], ...], table: int | None,
             row: int | None, cell: list[int]) -> None:
        first = len(toks)
        data = str(node.data)
        chain = ((data, node.meta.line if not node.meta.empty else 0), *chain)
        if data in ("table_decl", "board_decl"):  # both hold rows of cells, aligned in columns
            table = id(node)
            tables[table] = _Rows()
        if data == "row" and table is not None:
            rows[0] += 1
            row, cell = rows[0], [-1]
            tables[table].cells[row] = []
        inside = False  # between this node's braces (when it is a container)
        for child in node.children:
            if isinstance(child, Token):
                t = _Tok(child, data, chain, row=row)
                if child.type in ("LBRACE", "RBRACE") and (data in BLOCKS or data in EXPRESSION_LISTS):
                    t.block = data in BLOCKS
                    inside = child.type == "LBRACE"
                if child.type in ("LBRACE", "RBRACE") and data in SETS:
                    t.tight_braces = True
                if row is not None:
                    if child.type == "VBAR" and data == "row":
                        cell[0] += 1
                    else:
                        t.cell = cell[0]
                        if child.type == "STRING" and table is not None:
                            tables[table].string_columns.add(cell[0])
                toks.append(t)
            else:
                is_element = data == "start" or ((data in BLOCKS or data in EXPRESSION_LISTS) and inside)
                walk(child, is_element, chain, table, row, cell)
        if data == "table_row":  # a row's guard: the tokens after its cells
            number = next((t.row for t in toks[first:] if t.row is not None), None)
            for t in toks[first:]:
                if t.row is None:
                    t.guard = number
        if element and len(toks) > first:
            toks[first].starts = True

    walk(tree, False, (), None, None, [-1])
    return toks, tables


def _spaced(a: _Tok, b: _Tok, words: dict[str, str]) -> bool:
    """Whether one space separates two tokens on a line."""
    if a.type in TIGHT_AFTER or words.get(a.type) == "..":
        return False
    if words.get(b.type) == ".." or b.type in ("DOT", "COMMA", "COLON", "RPAR", "RSQB"):
        return False
    if a.type == "MINUS" and a.unary:
        return False
    if b.type == "LPAR" and a.type == "NAME":
        return False  # a call, a procedure's formals
    if b.type == "LSQB" and a.type in ("NAME", "RSQB", "RPAR"):
        return False  # an index, a zone of a player, a declared array
    if a.type == "LBRACE" and a.tight_braces:
        return False
    if b.type == "RBRACE" and b.tight_braces:
        return False
    return True


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def format_text(text: str, name: str = "<text>") -> str:
    """The canonical layout of a ruleset's text. Raises FormatError when it does not parse."""
    # the parser of the language first: its diagnostics for what does not parse, and its limits
    # (nesting depth) before anything here walks the tree
    source, diags = SourceFile(name, text), Diagnostics()
    if parse_source(source, diags) is None:
        raise FormatError([d for d in diags.sorted() if d.is_error], source)
    try:
        tree = _parser().parse(text)
        lexed = list(_lexer().lex(text))
    except LarkError as exc:  # the language's parser took it: this one must too
        raise AssertionError(f"the formatter cannot parse what the language's parser did: {exc}") from None
    toks, tables = _collect(tree)
    toks.sort(key=lambda t: (t.line, t.tok.column or 0))
    for before, t in zip([None, *toks], toks):
        # a minus is a sign unless an operand ends just before it (whatever construct holds it:
        # an expression, a range type, a table cell, a pattern)
        t.unary = t.type == "MINUS" and (before is None or before.type not in OPERAND_ENDS)
    words = _terminals()
    lines = text.split("\n")
    by_line: dict[int, list[_Tok]] = {}
    covered: set[int] = set()  # lines a string that spans lines goes on over: part of the string
    for t in toks:
        by_line.setdefault(t.line, []).append(t)
        if "\n" in t.tok.value:
            covered.update(range(t.line + 1, (t.tok.end_line or t.line) + 1))
    comment_at = dict(_comments(text, lexed))

    # each table's cells as text, for the widths of its columns
    row_table: dict[int, _Rows] = {}
    for rows in tables.values():
        for n in rows.cells:
            row_table[n] = rows
    # a row is aligned only where one line holds the whole of it (not one that spans lines, nor
    # the closing bar of one that began on the line before)
    row_size = Counter(t.row if t.row is not None else t.guard for t in toks if t.row is not None or t.guard is not None)
    for line_toks in by_line.values():
        first = line_toks[0]
        if first.row is not None and _whole_row(first.row, line_toks, row_size):
            cells: dict[int, list[_Tok]] = {}
            for t in line_toks:
                if t.cell is not None:
                    cells.setdefault(t.cell, []).append(t)
            row_table[first.row].cells[first.row] = [_join(cells.get(i, []), words) for i in range(max(cells, default=-1) + 1)]

    out: list[str] = []
    done: dict[int, int] = {}  # line -> its indent, once laid out
    stack = [_Frame(0, 0, True)]
    blank = False
    indent = 0
    last: _Tok | None = None
    for number, _raw in enumerate(lines, start=1):
        line_toks = by_line.get(number, [])
        comment = comment_at.get(number)
        frame = stack[-1]
        if number in covered:
            # the rest of a string that began on an earlier line (its text is in that line's
            # token), and what follows the string on its last line
            if line_toks:
                assert last is not None, "a covered line follows the line where its string starts"
                out[-1] += (" " if _spaced(last, line_toks[0], words) else "") + _join(line_toks, words)
            if comment is not None:
                out[-1] += "  " + comment
        elif not line_toks and comment is None:
            blank = bool(out)
            continue
        else:
            if blank:
                out.append("")
                blank = False
            if not line_toks:
                assert comment is not None
                out.append(" " * frame.content + comment)
                continue
            first = line_toks[0]
            if first.type in CLOSE:
                indent = frame.close
            elif first.type == "LBRACE" and first.block:
                indent = frame.content  # a block's brace on a line of its own: at the level of its owner
            elif first.starts or not frame.elements:
                indent = frame.content
            else:
                indent = _continued(first, number, frame, done)
            done[number] = indent
            whole_row = first.row is not None and _whole_row(first.row, line_toks, row_size)
            if whole_row:
                cells_toks = [t for t in line_toks if t.guard is None]
                guard_toks = [t for t in line_toks if t.guard is not None]
                body = _row(first, cells_toks, row_table, words) + (" " + _join(guard_toks, words) if guard_toks else "")
            else:
                body = _join(line_toks, words)
            if comment is not None:
                body += "  " + comment
            out.append(" " * indent + body)
        if line_toks:
            last = line_toks[-1]
        # the brackets this line leaves open
        owner = frame.content
        for t in line_toks:
            if t.type in OPEN:
                if t.block:
                    stack.append(_Frame(owner + INDENT, owner, True))
                else:
                    stack.append(_Frame(indent + 2 * INDENT, indent + INDENT, t.parent in EXPRESSION_LISTS))
                owner = stack[-1].content
            elif t.type in CLOSE and len(stack) > 1:
                stack.pop()
                owner = stack[-1].content
    result = "\n".join(out).rstrip("\n") + "\n" if out else ""
    _same_tokens(text, result)
    return result


@lru_cache(maxsize=1)
def _lexer() -> Lark:
    grammar = resources.files("rulecheck.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", start="start", lexer="basic")


def _comments(text: str, lexed: list[Token]) -> list[tuple[int, str]]:
    """(line, comment) of every comment: the grammar ignores them, so they are found in the gaps
    between the tokens, where nothing but white space and comments can be."""
    found: list[tuple[int, str]] = []
    pos = 0
    for tok in [*lexed, None]:
        end: int = len(text) if tok is None or tok.start_pos is None else tok.start_pos
        gap = text[pos:end]
        offset = 0
        while (i := gap.find("#", offset)) >= 0:
            j = gap.find("\n", i)
            j = len(gap) if j < 0 else j
            found.append((text.count("\n", 0, pos + i) + 1, gap[i:j].rstrip()))
            offset = j
        if tok is not None:
            pos = end if tok.end_pos is None else tok.end_pos
    return found


def _join(toks: list[_Tok], words: dict[str, str]) -> str:
    parts: list[str] = []
    for i, t in enumerate(toks):
        if i and _spaced(toks[i - 1], t, words):
            parts.append(" ")
        parts.append(t.tok.value)
    return "".join(parts)


def _whole_row(row: int, line_toks: list[_Tok], row_size: Counter[int | None]) -> bool:
    """Does the line hold the whole of a table row (its cells, and its guard if it has one) and
    nothing else?"""
    return len(line_toks) == row_size[row] and all(t.row == row or t.guard == row for t in line_toks)


def _row(first: _Tok, toks: list[_Tok], tables: dict[int, _Rows], words: dict[str, str]) -> str:
    assert first.row is not None
    rows = tables[first.row]
    cells = rows.cells[first.row]
    whole = toks[0].type == "VBAR" and toks[-1].type == "VBAR" and sum(t.type == "VBAR" for t in toks) == len(cells) + 1
    if not whole or not all(t.row == first.row for t in toks):
        return _join(toks, words)  # a row that shares its line, or spans lines: not aligned
    columns = max(len(c) for c in rows.cells.values())
    widths = [max((_width(c[i]) for c in rows.cells.values() if i < len(c)), default=0) for i in range(columns)]
    shown = []
    for i, text in enumerate(cells):
        last_free = i == len(cells) - 1 and i in rows.string_columns
        shown.append(text if last_free else text + " " * (widths[i] - _width(text)))
    return "| " + " | ".join(shown) + " |"


#: Chains of binary operators: a line that starts with the operator lines up with the first operand.
OPERATORS = frozenset({"or_", "and_", "add", "sub", "mul", "div", "mod", "compare", "in_", "not_in"})


def _continued(first: _Tok, number: int, frame: _Frame, done: dict[int, int]) -> int:
    """The indent of a line that goes on with the construct of an earlier line: one level in
    from the line where the innermost construct holding its first token starts (a `source` and an
    operator go on with their declaration's or operand's line instead)."""
    if first.type == "SOURCE":
        return frame.content + INDENT  # the rulebook text of the declaration or statement
    for name, line in first.chain:
        if 0 < line < number and line in done:
            if name in OPERATORS and first.parent == name:
                return done[line]
            return done[line] + INDENT
    return frame.content + INDENT


def _same_tokens(before: str, after: str) -> None:
    """The formatted text must hold the same tokens and comments: anything else is a bug here."""
    def stream(text: str) -> tuple[list[tuple[str, str]], list[str]]:
        lexed = list(_lexer().lex(text))
        return [(t.type, t.value) for t in lexed], [c for _, c in _comments(text, lexed)]

    if stream(before) != stream(after):
        raise AssertionError("the formatter changed the tokens of the ruleset (a bug in rulecheck fmt)")
