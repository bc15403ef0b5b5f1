"""Text to AST: decoding, limits, the lark LALR parser, friendly syntax errors and error recovery."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.visitors import Transformer_NonRecursive, v_args

from . import ast
from .diagnostics import Diagnostics
from .source import MAX_FILE_BYTES, SourceFile, Span, display_name

#: Brackets and expressions may nest this deep; deeper input is refused with E0004 instead of
#: exhausting the Python stack in later passes.
MAX_NESTING = 64

TOP_KEYWORDS = (
    "game", "enum", "card", "piece", "table", "zone", "var", "param", "define", "procedure", "flow",
    "ambiguity", "invariant", "term",
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
        data = path.read_bytes()
    except FileNotFoundError:
        diags.error("E0001", f"no such file: {name}", hint="check the path; rulesets live in rulesets/")
        return None
    except IsADirectoryError:
        diags.error("E0001", f"{name} is a directory, not a rules file")
        return None
    except OSError as exc:
        diags.error("E0001", f"cannot read {name}: {exc.strerror or exc}")
        return None
    return decode_source(name, data, diags)


def decode_source(name: str, data: bytes, diags: Diagnostics) -> SourceFile | None:
    """Decode the bytes of a rules file.  On invalid UTF-8 the returned text has replacement
    characters (so the diagnostic can show the line) and an E0002 error is recorded."""
    if len(data) > MAX_FILE_BYTES:
        diags.error(
            "E0003",
            f"{name} is {len(data):,} bytes; rules files are limited to {MAX_FILE_BYTES:,} bytes",
            hint="split the data into a smaller file, or check that this is the file you meant",
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line = prefix.count("\n") + 1
        col = len(prefix) - (prefix.rfind("\n") + 1) + 1
        src = SourceFile(name, data.decode("utf-8", errors="replace"))
        diags.error(
            "E0002",
            f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8",
            Span.point(line, col),
            hint="save the file as UTF-8 (rulebook quotes in Japanese and other languages are welcome)",
        )
        return src
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(name, text)


# ---- strings ----------------------------------------------------------------------------------

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "{": "{{", "}": "}}"}


def unquote(token: Token, diags: Diagnostics) -> str:
    """Decode a string literal.  Runs of white space (line breaks included) fold into one space so
    long quotes can be wrapped; ``\\n`` and ``\\t`` give explicit ones."""
    raw = str(token)[1:-1]
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt] if nxt not in "{}" else nxt)
            else:
                line = token.line or 1
                col = (token.column or 1) + 1 + i
                before = raw[:i]
                if "\n" in before:
                    line += before.count("\n")
                    col = i - before.rfind("\n")
                diags.error(
                    "E0105",
                    f"unknown escape sequence '\\{nxt}' in a string",
                    Span(line, col, line, col + 2),
                    hint='the escapes are \\" \\\\ \\n \\t; write \\\\ for a backslash',
                )
                out.append(nxt)
            i += 2
            continue
        if ch.isspace():
            j = i
            while j < len(raw) and raw[j].isspace():
                j += 1
            out.append(" ")
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---- AST builder ------------------------------------------------------------------------------


def _span(meta: Any) -> Span:
    if getattr(meta, "empty", False):
        return Span(1, 1, 1, 1)
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(tok: Token) -> Span:
    return Span(tok.line or 1, tok.column or 1, tok.end_line or tok.line or 1, tok.end_column or (tok.column or 1) + 1)


def _sources(children: list[Any]) -> ast.Source | None:
    for c in children:
        if isinstance(c, ast.Source):
            return c
    return None


@v_args(meta=True)
class _Builder(Transformer_NonRecursive):  # type: ignore[type-arg]
    """lark tree to AST, without recursion so deep input cannot overflow the stack."""

    def __init__(self, diags: Diagnostics) -> None:
        super().__init__()
        self.diags = diags

    def _str(self, tok: Token) -> str:
        return unquote(tok, self.diags)

    # -- top level --
    def start(self, meta: Any, ch: list[Any]) -> ast.Ruleset:
        return ast.Ruleset([c for c in ch if c is not None])

    def item_only(self, meta: Any, ch: list[Any]) -> Any:
        return ch[0]

    def game(self, meta: Any, ch: list[Any]) -> ast.Game:
        g = ast.Game(_span(meta), self._str(ch[0]))
        for field in ch[1:]:
            tag, value, span = field
            if tag == "edition":
                g.edition = value
            elif tag == "language":
                g.language = value
            elif tag == "original":
                g.original = value
            elif tag == "players":
                g.players = value
                g.players_span = span
            elif tag == "order":
                g.order = value
            elif tag == "source":
                g.sources.append(value)
        return g

    def g_edition(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("edition", self._str(ch[0]), _span(meta))

    def g_language(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("language", self._str(ch[0]), _span(meta))

    def g_original(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("original", self._str(ch[0]), _span(meta))

    def g_players(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("players", (int(ch[0]), int(ch[1])), _span(meta))

    def g_order(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("order", ch[0], _span(meta))

    def g_source(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("source", ch[0], _span(meta))

    def clockwise(self, meta: Any, ch: list[Any]) -> str:
        return "clockwise"

    def counterclockwise(self, meta: Any, ch: list[Any]) -> str:
        return "counterclockwise"

    # -- sources --
    def source(self, meta: Any, ch: list[Any]) -> ast.Source:
        quotes = [ast.Quote(_tok_span(ch[0]), None, self._str(ch[0]))]
        quotes += ch[1:]
        return ast.Source(_span(meta), quotes)

    def translation(self, meta: Any, ch: list[Any]) -> ast.Quote:
        return ast.Quote(_span(meta), str(ch[0])[1:], self._str(ch[1]))

    def name_list(self, meta: Any, ch: list[Any]) -> list[tuple[str, Span]]:
        return [(str(t), _tok_span(t)) for t in ch]

    # -- data --
    def enum_decl(self, meta: Any, ch: list[Any]) -> ast.EnumDecl:
        name, label = ch[0], ch[1]
        values = [c for c in ch[2:] if isinstance(c, ast.EnumValue)]
        return ast.EnumDecl(
            _span(meta), str(name), self._str(label) if label else None, values, _sources(ch[2:])
        )

    def enum_value(self, meta: Any, ch: list[Any]) -> ast.EnumValue:
        return ast.EnumValue(_tok_span(ch[0]), str(ch[0]), self._str(ch[1]) if ch[1] else None)

    def kind_decl(self, meta: Any, ch: list[Any]) -> ast.KindDecl:
        word, name, display = ch[0], ch[1], ch[2]
        attrs = [c for c in ch[3:] if isinstance(c, ast.AttrDecl)]
        return ast.KindDecl(
            _span(meta), str(word), str(name), self._str(display) if display else None, attrs, _sources(ch[3:])
        )

    def word_card(self, meta: Any, ch: list[Any]) -> str:
        return "card"

    def word_piece(self, meta: Any, ch: list[Any]) -> str:
        return "piece"

    def attr_decl(self, meta: Any, ch: list[Any]) -> ast.AttrDecl:
        return ast.AttrDecl(_tok_span(ch[0]), str(ch[0]), ch[1], ch[2])

    def table_decl(self, meta: Any, ch: list[Any]) -> ast.TableDecl:
        kind, start = ch[0], ch[1]
        clauses = [c for c in ch[2:] if isinstance(c, ast.TableClause)]
        rows = [c for c in ch[2:] if isinstance(c, tuple) and c and c[0] == "row"]
        return ast.TableDecl(
            _span(meta),
            str(kind),
            _tok_span(kind),
            str(start) if start else None,
            _tok_span(start) if start else None,
            clauses,
            [r[1] for r in rows],
            [r[2] for r in rows],
        )

    def t_given(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(_span(meta), "given", ch[0], None, ch[1])

    def t_assumed(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(_span(meta), "assumed", ch[0], self._str(ch[1]), None)

    def t_unspecified(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(_span(meta), "unspecified", ch[0], self._str(ch[2]), None, default=ch[1])

    def row(self, meta: Any, ch: list[Any]) -> tuple[str, list[ast.Cell], Span]:
        return ("row", list(ch), _span(meta))

    def lit_int(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "int", int(ch[0]))

    def lit_neg(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "int", -int(ch[0]))

    def lit_str(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "str", self._str(ch[0]))

    def lit_name(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "name", str(ch[0]))

    def lit_true(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "bool", True)

    def lit_false(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "bool", False)

    def cell_set(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "set", items=[c for c in ch if c is not None])

    def cell_range(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "range", int(ch[0]), hi=int(ch[1]))

    def cell_all(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "all")

    def cell_unknown(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(_span(meta), "unknown")

    def zone_decl(self, meta: Any, ch: list[Any]) -> ast.ZoneDecl:
        name, index, kinds, vis, desc, src = ch
        return ast.ZoneDecl(_span(meta), str(name), index, kinds, vis, self._str(desc) if desc else None, src)

    def public(self, meta: Any, ch: list[Any]) -> str:
        return "public"

    def owner(self, meta: Any, ch: list[Any]) -> str:
        return "owner"

    def hidden(self, meta: Any, ch: list[Any]) -> str:
        return "hidden"

    def flag_score(self, meta: Any, ch: list[Any]) -> str:
        return "score"

    def var_decl(self, meta: Any, ch: list[Any]) -> ast.VarDecl:
        name, index, typ, init = ch[0], ch[1], ch[2], ch[3]
        rest = ch[4:]
        flags = [c for c in rest if isinstance(c, str)]
        desc = next((c for c in rest if isinstance(c, Token) and c.type == "STRING"), None)
        vis = next((f for f in flags if f in ("public", "owner", "hidden")), "public")
        return ast.VarDecl(
            _span(meta), str(name), index, typ, init, "score" in flags, vis,
            self._str(desc) if desc else None, _sources(rest),
        )

    def param_decl(self, meta: Any, ch: list[Any]) -> ast.ParamDecl:
        name, typ, (prov, value, rationale), desc, src = ch
        return ast.ParamDecl(
            _span(meta), str(name), typ, prov, value, rationale, self._str(desc) if desc else None, src
        )

    def pv_given(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("given", ch[0], None)

    def pv_assumed(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("assumed", ch[0], self._str(ch[1]))

    def pv_unspecified(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("unspecified", ch[0], self._str(ch[1]))

    # -- types --
    def t_bool(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TBool(_span(meta))

    def t_int(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TInt(_span(meta))

    def t_range(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TRange(_span(meta), int(ch[0]), int(ch[1]))

    def t_text(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TText(_span(meta))

    def t_player(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TPlayer(_span(meta))

    def t_set(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TSet(_span(meta), ch[0])

    def t_named(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TNamed(_span(meta), str(ch[0]))

    # -- definitions --
    def define_decl(self, meta: Any, ch: list[Any]) -> ast.DefineDecl:
        name, formals, ret, desc, body = ch
        d = ast.DefineDecl(
            _span(meta), str(name), _tok_span(name), formals, ret, self._str(desc) if desc else None
        )
        kind = body[0]
        if kind == "expr":
            d.body, d.source = body[1], body[2]
        elif kind == "cases":
            d.source, d.cases, d.otherwise = body[1], body[2], body[3]
        else:
            d.varies, d.varies_span = body[1], body[2]
        return d

    def body_expr(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("expr", ch[0], ch[1])

    def body_cases(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        src = ch[0]
        cases = [c for c in ch[1:] if isinstance(c, ast.CaseClause)]
        other = next((c for c in ch[1:] if isinstance(c, ast.Otherwise)), None)
        return ("cases", src, cases, other)

    def body_varies(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("varies", str(ch[0]), _tok_span(ch[0]))

    def formals(self, meta: Any, ch: list[Any]) -> list[ast.Formal]:
        return [c for c in ch if c is not None]

    def formal(self, meta: Any, ch: list[Any]) -> ast.Formal:
        return ast.Formal(_tok_span(ch[0]), str(ch[0]), ch[1])

    def case_clause(self, meta: Any, ch: list[Any]) -> ast.CaseClause:
        name, overrides, guard, value, src = ch
        return ast.CaseClause(_tok_span(name), str(name), overrides or [], guard, value, src)

    def otherwise(self, meta: Any, ch: list[Any]) -> ast.Otherwise:
        return ast.Otherwise(_span(meta), ch[0], ch[1])

    def proc_decl(self, meta: Any, ch: list[Any]) -> ast.ProcDecl:
        name, formals, desc, src, body = ch
        p = ast.ProcDecl(
            _span(meta), str(name), _tok_span(name), formals, self._str(desc) if desc else None, src, None
        )
        if isinstance(body, tuple):
            p.varies, p.varies_span = body[1], body[2]
        else:
            p.body = body
        return p

    def proc_varies(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("varies", str(ch[0]), _tok_span(ch[0]))

    def flow_decl(self, meta: Any, ch: list[Any]) -> ast.FlowDecl:
        return ast.FlowDecl(_span(meta), ch[0], ch[1])

    def block(self, meta: Any, ch: list[Any]) -> list[ast.Stmt]:
        return list(ch)

    # -- statements --
    def s_let(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Let(_span(meta), ch[2], str(ch[0]), _tok_span(ch[0]), ch[1])

    def s_set(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.SetStmt(_span(meta), ch[3], str(ch[0]), _tok_span(ch[0]), ch[1], ch[2])

    def s_move(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Move(_span(meta), ch[2], ch[0], ch[1])

    def s_draw(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        count, src, dst, bind, source = ch
        return ast.Draw(
            _span(meta), source, count, src, dst, str(bind) if bind else None, _tok_span(bind) if bind else None
        )

    def _opts(self, opts: list[Any]) -> tuple[str | None, bool, ast.Source | None]:
        label = None
        secret = False
        src = None
        for o in opts:
            if isinstance(o, tuple) and o[0] == "label":
                label = o[1]
            elif o == "secret":
                secret = True
            elif isinstance(o, ast.Source):
                src = o
        return label, secret, src

    def opt_label(self, meta: Any, ch: list[Any]) -> tuple[str, str]:
        return ("label", self._str(ch[0]))

    def opt_secret(self, meta: Any, ch: list[Any]) -> str:
        return "secret"

    def s_choose(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        label, secret, src = self._opts(ch[3:])
        return ast.Choose(_span(meta), src, str(ch[0]), _tok_span(ch[0]), ch[1], ch[2], label, secret)

    def s_choose_each(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        label, secret, src = self._opts(ch[4:])
        return ast.ChooseEach(
            _span(meta), src, str(ch[0]), _tok_span(ch[0]), ch[1], str(ch[2]), _tok_span(ch[2]), ch[3], label, secret
        )

    def if_stmt(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        cond, src, then, else_ = ch
        body, else_src = else_ if else_ is not None else (None, None)
        return ast.If(_span(meta), src, cond, then, body, else_src)

    def else_if(self, meta: Any, ch: list[Any]) -> tuple[list[ast.Stmt], ast.Source | None]:
        return [ch[0]], None

    def else_block(self, meta: Any, ch: list[Any]) -> tuple[list[ast.Stmt], ast.Source | None]:
        return ch[1], ch[0]

    def s_for(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        var, coll, start, src, body = ch
        return ast.ForEach(_span(meta), src, str(var), _tok_span(var), coll, start, body)

    def s_repeat(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Repeat(_span(meta), ch[1], ch[0], ch[2])

    def s_repeat_until(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.RepeatUntil(_span(meta), ch[1], ch[0], ch[2])

    def s_while(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.While(_span(meta), ch[1], ch[0], ch[2])

    def s_end(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.End(_span(meta), ch[1], ch[0])

    def s_say(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Say(_span(meta), None, self._str(ch[0]), str(ch[0]), _tok_span(ch[0]))

    def s_shuffle(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Shuffle(_span(meta), ch[1], ch[0])

    def s_call(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        name = ch[0]
        args = [c for c in ch[1:] if isinstance(c, ast.Expr)]
        return ast.CallStmt(_span(meta), _sources(ch[1:]), str(name), _tok_span(name), args)

    def zone_ref(self, meta: Any, ch: list[Any]) -> ast.ZoneRef:
        return ast.ZoneRef(_span(meta), str(ch[0]), _tok_span(ch[0]), ch[1])

    # -- ambiguities, invariants, glossary --
    def ambiguity_decl(self, meta: Any, ch: list[Any]) -> ast.AmbiguityDecl:
        name = ch[0]
        a = ast.AmbiguityDecl(_span(meta), str(name), _tok_span(name), None, None, [], None, [])
        for item in ch[1:]:
            if isinstance(item, ast.Reading):
                a.readings.append(item)
            elif isinstance(item, tuple) and item[0] == "kind":
                a.kind, a.kind_span = item[1], item[2]
            elif isinstance(item, tuple) and item[0] == "question":
                a.question = item[1]
            elif isinstance(item, ast.Source):
                a.sources.append(item)
        return a

    def amb_kind(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("kind", str(ch[0]), _tok_span(ch[0]))

    def amb_source(self, meta: Any, ch: list[Any]) -> ast.Source:
        src: ast.Source = ch[0]
        return src

    def amb_question(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("question", self._str(ch[0]))

    def reading(self, meta: Any, ch: list[Any]) -> ast.Reading:
        name, default, desc, clarify = ch[0], ch[1], ch[2], ch[3]
        defs = [c for c in ch[4:] if isinstance(c, ast.DefineDecl)]
        procs = [c for c in ch[4:] if isinstance(c, ast.ProcDecl)]
        return ast.Reading(
            _tok_span(name), str(name), default is not None, self._str(desc),
            self._str(clarify) if clarify else None, defs, procs,
        )

    def invariant_decl(self, meta: Any, ch: list[Any]) -> ast.InvariantDecl:
        name, desc, when, expr, src = ch
        return ast.InvariantDecl(
            _span(meta), str(name), self._str(desc) if desc else None, when == "at_end", expr, src
        )

    def always(self, meta: Any, ch: list[Any]) -> str:
        return "always"

    def at_end(self, meta: Any, ch: list[Any]) -> str:
        return "at_end"

    def term_decl(self, meta: Any, ch: list[Any]) -> ast.TermDecl:
        term = ch[0]
        translations = [c for c in ch[1:] if isinstance(c, ast.Quote)]
        rest = [c for c in ch[1:] if not isinstance(c, ast.Quote)]
        meaning, src = rest[0], rest[1]
        return ast.TermDecl(_span(meta), self._str(term), translations, self._str(meaning), src)

    # -- expressions --
    def if_expr(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.IfExpr(_span(meta), ch[0], ch[1], ch[2])

    def or_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "or", ch[0], ch[1])

    def and_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "and", ch[0], ch[1])

    def not_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(_span(meta), "not", ch[0])

    def compare(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), str(ch[1]), ch[0], ch[2])

    def in_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "in", ch[0], ch[1])

    def not_in(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(_span(meta), "not", ast.Binary(_span(meta), "in", ch[0], ch[1]))

    def range(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.RangeExpr(_span(meta), ch[0], ch[1])

    def add(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "+", ch[0], ch[1])

    def sub(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "-", ch[0], ch[1])

    def mul(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "*", ch[0], ch[1])

    def div(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "/", ch[0], ch[1])

    def mod(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(_span(meta), "%", ch[0], ch[1])

    def neg(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(_span(meta), "neg", ch[0])

    def attr(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Attr(_span(meta), ch[0], str(ch[1]), _tok_span(ch[1]))

    def index(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Index(_span(meta), ch[0], ch[1])

    def int(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.IntLit(_span(meta), int(ch[0]))

    def string(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.StrLit(_span(meta), self._str(ch[0]))

    def true(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.BoolLit(_span(meta), True)

    def false(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.BoolLit(_span(meta), False)

    def name(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Name(_span(meta), str(ch[0]))

    def call(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Call(_span(meta), str(ch[0]), _tok_span(ch[0]), [c for c in ch[1:] if c is not None])

    def _gen(self, ch: list[Any], span: Span) -> ast.Generator:
        elem, var, coll, filt = ch
        return ast.Generator(span, elem, str(var), _tok_span(var), coll, filt)

    def call_gen(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.CallGen(_span(meta), str(ch[0]), _tok_span(ch[0]), self._gen(ch[1:], _span(meta)))

    def set_lit(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.SetLit(_span(meta), [c for c in ch if c is not None])

    def set_comp(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.SetComp(_span(meta), self._gen(ch, _span(meta)))

    def match(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Match(_span(meta), ch[0], list(ch[1:]))

    def arm(self, meta: Any, ch: list[Any]) -> ast.Arm:
        return ast.Arm(_span(meta), list(ch[:-1]), ch[-1])

    def arm_else(self, meta: Any, ch: list[Any]) -> ast.Arm:
        return ast.Arm(_span(meta), [], ch[0])

    def pat_int(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(_span(meta), "int", int(ch[0]))

    def pat_range(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(_span(meta), "range", int(ch[0]), int(ch[1]))

    def pat_name(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(_span(meta), "name", str(ch[0]))


# ---- limits -----------------------------------------------------------------------------------

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
                    hint="split the expression with 'let' or a 'define'",
                )
                return False
        elif tok in ")]}":
            depth = max(0, depth - 1)
    return True


def _tree_too_deep(tree: Tree[Token]) -> Span | None:
    """The span of a node nested deeper than the limit, found without recursion."""
    stack: list[tuple[Any, int]] = [(tree, 0)]
    limit = MAX_NESTING * 4  # grammar levels per written level: generous for ordinary nesting
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if depth > limit:
            meta = node.meta
            return _span(meta)
        for child in node.children:
            stack.append((child, depth + 1))
    return None


# ---- syntax errors ----------------------------------------------------------------------------


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    text = str(tok)
    if tok.type == "STRING":
        return "string"
    if tok.type == "NAME":
        return f"name '{text}'"
    if tok.type == "INT":
        return f"number {text}"
    return f"'{text}'"


def _expected_words(expected: set[str]) -> list[str]:
    words = _literal_words()
    out = sorted({words.get(e, e) for e in expected if not e.startswith("__")})
    return out


def _hint_for(tok: Token, expected: set[str], src: SourceFile) -> str | None:
    text = str(tok)
    if tok.type == "$END" and "RBRACE" in expected:
        return "a '}' is missing: every '{' needs its closing '}'"
    if text == "=" and "CMP" in expected:
        return "compare with '==' ('=' gives a value in let, set and define)"
    if text in TOP_KEYWORDS and "RBRACE" in expected:
        return f"a '}}' is probably missing before this '{text}'"
    if "RBRACE" in expected and tok.type == "STRING" and "COMMA" in expected:
        return "separate the items with ','"
    if tok.type == "NAME" and "EQUAL" in expected and len(expected) <= 3:
        return "a '=' is missing"
    if tok.type == "NAME" and text in {"elif", "elsif"}:
        return "write 'else if'"
    if tok.type == "NAME" and text in {"function", "def", "fn"}:
        return "definitions start with 'define'"
    if "COLON" in expected and text == "=":
        return "write ':' here"
    return None


def syntax_diagnostic(err: UnexpectedInput, src: SourceFile, diags: Diagnostics) -> None:
    if isinstance(err, UnexpectedCharacters):
        line, col = err.line, err.column
        pos = err.pos_in_stream or 0
        ch = src.text[pos] if pos < len(src.text) else ""
        if ch == '"':
            diags.error(
                "E0104", "this string is never closed", Span.point(line, col),
                hint='close it with a " (write \\" for a quote mark inside a string)',
            )
            return
        shown = repr(ch)[1:-1] if ch.isprintable() else f"U+{ord(ch):04X}" if ch else "?"
        hint = None
        if ch in "'`":
            hint = 'strings are written in double quotes: "…"'
        elif ch == ";":
            hint = "statements need no ';' — put each on its own line"
        elif ch and not ch.isascii():
            hint = "names are ASCII; put text in other scripts inside a string"
        diags.error("E0101", f"unexpected character '{shown}'", Span.point(line, col), hint=hint)
        return
    if isinstance(err, UnexpectedToken):
        tok = err.token
        expected = set(err.expected) if err.expected else set()
        exp = _expected_words(expected)
        if tok.type == "$END":
            line = len(src.lines)
            col = len(src.line_text(line)) + 1
            msg = "the file ends in the middle of a declaration"
            diags.error("E0103", msg, Span.point(line, col), hint=_hint_for(tok, expected, src) or _exp_hint(exp))
            return
        span = _tok_span(tok)
        msg = f"unexpected {_describe_token(tok)}"
        hint = _hint_for(tok, expected, src) or _exp_hint(exp)
        diags.error("E0102", msg, span, hint=hint)
        return
    if isinstance(err, UnexpectedEOF):
        line = len(src.lines)
        diags.error("E0103", "the file ends in the middle of a declaration", Span.point(line, 1))
        return
    diags.error("E0102", str(err).splitlines()[0], Span.point(getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1))


def _exp_hint(exp: list[str]) -> str | None:
    if not exp:
        return None
    if len(exp) > 8:
        return "expected one of: " + ", ".join(exp[:8]) + ", …"
    return "expected " + (exp[0] if len(exp) == 1 else "one of: " + ", ".join(exp))


# ---- entry points -----------------------------------------------------------------------------


def _chunks(text: str) -> list[tuple[int, int]]:
    """Top-level declarations, found lexically, so that one broken declaration does not hide the
    errors in the others: a new chunk starts at a top-level keyword at brace depth 0 or at the
    start of a line."""
    starts: list[int] = []
    depth = 0
    pos = 0
    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    at_line_start = True
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == '"':
            m = re.compile(r'"(?:[^"\\]|\\.)*"', re.S).match(text, pos)
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
            if w in TOP_KEYWORDS and (depth == 0 or (at_line_start and pos == text.rfind("\n", 0, pos) + 1)):
                starts.append(pos)
                depth = 0
            pos = m.end()
            at_line_start = False
            continue
        if not ch.isspace():
            at_line_start = False
        pos += 1
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [(s, starts[i + 1] if i + 1 < len(starts) else n) for i, s in enumerate(starts)]
    return [(a, b) for a, b in bounds if re.sub(r"#[^\n]*", "", text[a:b]).strip()]


def _parse_text(text: str, start: str) -> Tree[Token]:
    return _lark().parse(text, start=start)


def parse_source(src: SourceFile, diags: Diagnostics) -> ast.Ruleset | None:
    """Parse a whole file.  On a syntax error, parse declaration by declaration to report every
    broken one; returns None when any syntax error was found."""
    if not check_nesting(src, diags):
        return None
    try:
        tree = _parse_text(src.text, "start")
    except UnexpectedInput as first:
        before = len(diags.items)
        for a, b in _chunks(src.text):
            line, col = src.position(a)
            padded = "\n" * (line - 1) + " " * (col - 1) + src.text[a:b]
            try:
                _parse_text(padded, "item_only")
            except UnexpectedInput as err:
                if isinstance(err, UnexpectedToken) and err.token.type == "$END":
                    # the chunk ends early: report the end of the chunk, not of the file
                    end_line, end_col = src.position(len(src.text[:b].rstrip()))
                    diags.error(
                        "E0103" if b >= len(src.text.rstrip()) else "E0102",
                        "this declaration is not finished" if b < len(src.text.rstrip())
                        else "the file ends in the middle of a declaration",
                        Span.point(end_line, max(1, end_col - 1)),
                        hint=_hint_for(err.token, set(err.expected or ()), src)
                        or _exp_hint(_expected_words(set(err.expected or ()))),
                    )
                else:
                    syntax_diagnostic(err, src, diags)
        if len(diags.items) == before:
            syntax_diagnostic(first, src, diags)
        return None
    deep = _tree_too_deep(tree)
    if deep is not None:
        diags.error(
            "E0004", f"an expression nested more than {MAX_NESTING} levels deep", deep,
            hint="split the expression with 'let' or a 'define'",
        )
        return None
    before = len(diags.items)
    ruleset: ast.Ruleset = _Builder(diags).transform(tree)
    if any(d.is_error for d in diags.items[before:]):
        return None
    return ruleset


def parse_expr_text(text: str, line: int, col: int, diags: Diagnostics, src: SourceFile) -> ast.Expr | None:
    """Parse an expression that sits at (line, col) of the file (used for say interpolations)."""
    padded = "\n" * (line - 1) + " " * (col - 1) + text
    try:
        tree = _parse_text(padded, "expr")
    except UnexpectedInput as err:
        syntax_diagnostic(err, src, diags)
        return None
    if _tree_too_deep(tree) is not None:
        diags.error("E0004", "an interpolated expression nested too deeply", Span.point(line, col))
        return None
    expr: ast.Expr = _Builder(diags).transform(tree)
    return expr
