"""The lark parse tree to the AST (Builder): one method per grammar rule, without recursion so that
deep input cannot overflow the stack; and the string literals' escapes and display templates."""

from __future__ import annotations

import bisect
from typing import Any

from lark import Token
from lark.visitors import Transformer_NonRecursive, v_args

from . import ast
from .diagnostics import Diagnostics
from .source import Span
from .types import MAX_INT

# ---- strings ----------------------------------------------------------------------------------

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "{": "{{", "}": "}}"}


def unquote(token: Token, diags: Diagnostics) -> str:
    """Decode a string literal.  Runs of white space (line breaks included) fold into one space so
    long quotes can be wrapped; ``\\n`` and ``\\t`` give explicit ones."""
    raw = str(token)[1:-1]
    out: list[str] = []
    breaks: list[int] | None = None  # where the string's lines start, found at its first error
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt] if nxt not in "{}" else nxt)
            else:
                if breaks is None:
                    breaks = [k for k, c in enumerate(raw) if c == "\n"]
                # (positions by bisection: a string of many bad escapes stays linear to check)
                k = bisect.bisect_left(breaks, i)
                line = (token.line or 1) + k
                col = (token.column or 1) + 1 + i if k == 0 else i - breaks[k - 1]
                diags.error(
                    "E0105",
                    f"unknown escape sequence '\\{nxt}' in a string",
                    Span(line, col, line, col + 2),
                    hint='the escapes are \\" \\\\ \\n \\t \\{ \\}; write \\\\ for a backslash',
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


def display_template(token: Token, diags: Diagnostics) -> list[str | tuple[str, Span]]:
    """The parts of a card or piece display text: literal text, and ``(attribute, span)`` for each
    ``{attribute}``.  As in say texts, ``\\{`` and ``\\}`` are literal braces and a lone ``{`` or
    ``}`` is an error; escapes decode and white space folds as in every string (``unquote``, which
    also reports bad escapes)."""
    raw = str(token)[1:-1]
    breaks = [k for k, c in enumerate(raw) if c == "\n"]

    def where(i: int) -> tuple[int, int]:
        k = bisect.bisect_left(breaks, i)
        return (token.line or 1) + k, (token.column or 1) + 1 + i if k == 0 else i - breaks[k - 1]

    parts: list[str | tuple[str, Span]] = []
    text: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            text.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        elif ch.isspace():
            while i < len(raw) and raw[i].isspace():
                i += 1
            text.append(" ")
        elif ch == "{":
            depth, j = 1, i + 1
            while j < len(raw) and depth:
                depth += {"{": 1, "}": -1}.get(raw[j], 0)
                j += 1
            if depth:
                diags.error("E0102", "this '{' in a display text is never closed", Span.point(*where(i)),
                            hint="write \\{ for a brace in the text, or close it: {attribute}")
                return parts
            if text:
                parts.append("".join(text))
                text = []
            line, col = where(i + 1)
            parts.append((raw[i + 1 : j - 1], Span(line, col, line, col + max(1, j - 2 - i))))
            i = j
        elif ch == "}":
            diags.error("E0102", "a '}' in a display text without its '{'", Span.point(*where(i)), hint="write \\} for a brace in the text")
            return parts
        else:
            text.append(ch)
            i += 1
    if text:
        parts.append("".join(text))
    return parts




# ---- AST builder ------------------------------------------------------------------------------


def meta_span(meta: Any) -> Span:
    if getattr(meta, "empty", False):
        return Span(1, 1, 1, 1)
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def token_span(tok: Token) -> Span:
    return Span(tok.line or 1, tok.column or 1, tok.end_line or tok.line or 1, tok.end_column or (tok.column or 1) + 1)


def source_of(children: list[Any]) -> ast.Source | None:
    for c in children:
        if isinstance(c, ast.Source):
            return c
    return None



class _Base(Transformer_NonRecursive):  # type: ignore[type-arg]
    """What every part of the builder shares: the diagnostics, and literals read with their limits."""

    def __init__(self, diags: Diagnostics) -> None:
        super().__init__()
        self.diags = diags

    def _str(self, tok: Token) -> str:
        return unquote(tok, self.diags)

    def _int(self, tok: Token) -> int:
        """A number literal within the integer limit; beyond it, E0106 (the text is not converted:
        a number of thousands of digits would take Python's int/str limit with it)."""
        digits = str(tok).lstrip("0") or "0"
        if len(digits) <= len(str(MAX_INT)) and int(digits) <= MAX_INT:
            return int(digits)
        shown = digits if len(digits) <= 24 else f"{digits[:10]}…{digits[-4:]} ({len(digits):,} digits)"
        self.diags.error("E0106", f"the number {shown} is beyond the integer limit {MAX_INT:,}", token_span(tok),
                         hint=f"numbers of a game lie within -{MAX_INT:,}..{MAX_INT:,}")
        return MAX_INT



@v_args(meta=True)
class _Declarations(_Base):
    """The declarations: the game, data, zones, variables, parameters, ambiguities, invariants, the
    glossary, boards, records, questions, targets and editions."""

    # -- top level --
    def start(self, meta: Any, ch: list[Any]) -> ast.Ruleset:
        return ast.Ruleset([c for c in ch if c is not None])

    def item_only(self, meta: Any, ch: list[Any]) -> Any:
        return ch[0]

    def game(self, meta: Any, ch: list[Any]) -> ast.Game:
        g = ast.Game(meta_span(meta), self._str(ch[0]))
        for field in ch[1:]:
            tag, value, span = field
            if tag == "edition":
                g.edition = value
            elif tag == "language":
                g.language = value
            elif tag == "original":
                g.original = value
            elif tag == "players":
                g.players = value[:2]
                g.players_assumed = value[2]
                g.players_span = span
            elif tag == "order":
                g.order = value
            elif tag == "returns":
                g.returns, g.returns_span = value, span
            elif tag == "turn":
                g.turn, g.turn_span = value, span
            elif tag == "source":
                g.sources.append(value)
        return g

    def g_edition(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("edition", self._str(ch[0]), meta_span(meta))

    def g_language(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("language", self._str(ch[0]), meta_span(meta))

    def g_original(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("original", self._str(ch[0]), meta_span(meta))

    def g_players(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("players", (self._int(ch[0]), self._int(ch[1]), self._str(ch[2]) if ch[2] is not None else None), meta_span(meta))

    def g_order(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("order", ch[0], meta_span(meta))

    def g_returns(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("returns", str(ch[0]), meta_span(meta))

    def g_turn(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("turn", str(ch[0]), meta_span(meta))

    def g_source(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("source", ch[0], meta_span(meta))

    def clockwise(self, meta: Any, ch: list[Any]) -> str:
        return "clockwise"

    def counterclockwise(self, meta: Any, ch: list[Any]) -> str:
        return "counterclockwise"

    # -- sources --
    def source(self, meta: Any, ch: list[Any]) -> ast.Source:
        quotes = [ast.Quote(token_span(ch[0]), None, self._str(ch[0]))]
        quotes += ch[1:]
        return ast.Source(meta_span(meta), quotes)

    def translation(self, meta: Any, ch: list[Any]) -> ast.Quote:
        return ast.Quote(meta_span(meta), str(ch[0])[1:], self._str(ch[1]))

    def name_list(self, meta: Any, ch: list[Any]) -> list[tuple[str, Span]]:
        return [(str(t), token_span(t)) for t in ch]

    # -- data --
    def enum_decl(self, meta: Any, ch: list[Any]) -> ast.EnumDecl:
        name, label = ch[0], ch[1]
        values = [c for c in ch[2:] if isinstance(c, ast.EnumValue)]
        return ast.EnumDecl(
            meta_span(meta), str(name), self._str(label) if label else None, values, source_of(ch[2:])
        )

    def enum_value(self, meta: Any, ch: list[Any]) -> ast.EnumValue:
        return ast.EnumValue(token_span(ch[0]), str(ch[0]), self._str(ch[1]) if ch[1] else None)

    def kind_decl(self, meta: Any, ch: list[Any]) -> ast.KindDecl:
        word, name, display = ch[0], ch[1], ch[2]
        attrs = [c for c in ch[3:] if isinstance(c, ast.AttrDecl)]
        return ast.KindDecl(
            meta_span(meta), str(word), str(name), self._str(display) if display else None, attrs, source_of(ch[3:]),
            display_template(display, self.diags) if display else [],
        )

    def word_card(self, meta: Any, ch: list[Any]) -> str:
        return "card"

    def word_piece(self, meta: Any, ch: list[Any]) -> str:
        return "piece"

    def attr_decl(self, meta: Any, ch: list[Any]) -> ast.AttrDecl:
        return ast.AttrDecl(token_span(ch[0]), str(ch[0]), ch[1], ch[2])

    def table_decl(self, meta: Any, ch: list[Any]) -> ast.TableDecl:
        kind, start = ch[0], ch[1]
        clauses = [c for c in ch[2:] if isinstance(c, ast.TableClause)]
        rows = [c for c in ch[2:] if isinstance(c, tuple) and c and c[0] == "row"]
        return ast.TableDecl(
            meta_span(meta),
            str(kind),
            token_span(kind),
            str(start) if start else None,
            token_span(start) if start else None,
            clauses,
            [r[1] for r in rows],
            [r[2] for r in rows],
            [r[3] for r in rows],
        )

    def table_row(self, meta: Any, ch: list[Any]) -> tuple[str, list[ast.Cell], Span, ast.Expr | None]:
        row, guard = ch
        return (*row, guard)

    def t_given(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(meta_span(meta), "given", ch[0], None, ch[1])

    def t_assumed(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(meta_span(meta), "assumed", ch[0], self._str(ch[1]), None)

    def t_unspecified(self, meta: Any, ch: list[Any]) -> ast.TableClause:
        return ast.TableClause(meta_span(meta), "unspecified", ch[0], self._str(ch[2]), None, default=ch[1])

    def row(self, meta: Any, ch: list[Any]) -> tuple[str, list[ast.Cell], Span]:
        return ("row", list(ch), meta_span(meta))

    def lit_int(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "int", self._int(ch[0]))

    def lit_neg(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "int", -self._int(ch[0]))

    def lit_str(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "str", self._str(ch[0]))

    def lit_name(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "name", str(ch[0]))

    def lit_true(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "bool", True)

    def lit_false(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "bool", False)

    def cell_set(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "set", items=[c for c in ch if c is not None])

    def cell_range(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "range", ch[0], hi=ch[1])  # numbers already (sint)

    def cell_range_param(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "range", ch[0], bound=str(ch[1]), bound_span=token_span(ch[1]))

    def cell_all(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "all")

    def cell_unknown(self, meta: Any, ch: list[Any]) -> ast.Cell:
        return ast.Cell(meta_span(meta), "unknown")

    def zone_decl(self, meta: Any, ch: list[Any]) -> ast.ZoneDecl:
        name, index, kinds, vis, desc, src = ch
        first, cond = vis if isinstance(vis, tuple) else (vis, None)
        return ast.ZoneDecl(meta_span(meta), str(name), index, kinds, first, self._str(desc) if desc else None, src, cond)

    def visibility(self, meta: Any, ch: list[Any]) -> str:
        return str(ch[0])

    def vis_cond(self, meta: Any, ch: list[Any]) -> tuple[str, ast.VisIf]:
        first, param, otherwise = ch
        return str(first), ast.VisIf(str(param), token_span(param), str(otherwise))

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
        flags = [c for c in rest if isinstance(c, str) and not isinstance(c, Token)]
        desc = next((c for c in rest if isinstance(c, Token) and c.type == "STRING"), None)
        vis = next((f for f in flags if f in ("public", "owner", "hidden")), "public")
        cond = next((c for c in rest if isinstance(c, tuple)), None)
        if cond is not None:
            vis = cond[0]
        return ast.VarDecl(
            meta_span(meta), str(name), index, typ, init, "score" in flags, vis,
            self._str(desc) if desc else None, source_of(rest), cond[1] if cond else None,
        )

    def param_decl(self, meta: Any, ch: list[Any]) -> ast.ParamDecl:
        name, typ, (prov, value, rationale), desc, src = ch
        return ast.ParamDecl(
            meta_span(meta), str(name), typ, prov, value, rationale, self._str(desc) if desc else None, src
        )

    def pv_given(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("given", ch[0], None)

    def pv_assumed(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("assumed", ch[0], self._str(ch[1]))

    def pv_unspecified(self, meta: Any, ch: list[Any]) -> tuple[str, Any, str | None]:
        return ("unspecified", ch[0], self._str(ch[1]))


    # -- ambiguities, invariants, glossary --
    def ambiguity_decl(self, meta: Any, ch: list[Any]) -> ast.AmbiguityDecl:
        name = ch[0]
        a = ast.AmbiguityDecl(meta_span(meta), str(name), token_span(name), None, None, [], None, [])
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
        return ("kind", str(ch[0]), token_span(ch[0]))

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
            token_span(name), str(name), default is not None, self._str(desc),
            self._str(clarify) if clarify else None, defs, procs,
        )

    def invariant_decl(self, meta: Any, ch: list[Any]) -> ast.InvariantDecl:
        name, desc, when, expr, src = ch
        return ast.InvariantDecl(
            meta_span(meta), str(name), self._str(desc) if desc else None, when == "at_end", expr, src
        )

    def always(self, meta: Any, ch: list[Any]) -> str:
        return "always"

    def at_end(self, meta: Any, ch: list[Any]) -> str:
        return "at_end"

    def term_decl(self, meta: Any, ch: list[Any]) -> ast.TermDecl:
        term, reading = ch[0], ch[1]
        translations = [c for c in ch[2:] if isinstance(c, ast.Quote)]
        rest = [c for c in ch[2:] if not isinstance(c, ast.Quote)]
        meaning, src = rest[0], rest[1]
        return ast.TermDecl(
            meta_span(meta), self._str(term), translations, self._str(meaning), src, self._str(reading) if reading else None
        )

    def outside_decl(self, meta: Any, ch: list[Any]) -> ast.OutsideDecl:
        name, what, reason, src = ch
        return ast.OutsideDecl(meta_span(meta), str(name), token_span(name), self._str(what), self._str(reason), src)

    # -- boards and records --
    def board_decl(self, meta: Any, ch: list[Any]) -> ast.BoardDecl:
        name, label = ch[0], ch[1]
        items = ch[2:-1]
        clauses = [c[1] for c in items if isinstance(c, tuple) and c[0] == "clause"]
        attrs = [c for c in items if isinstance(c, ast.AttrDecl)]
        rows = [c for c in items if isinstance(c, tuple) and c[0] == "row"]
        links = [c for c in items if isinstance(c, ast.LinkDecl)]
        return ast.BoardDecl(
            meta_span(meta), str(name), token_span(name), self._str(label) if label else None, clauses, attrs,
            [r[1] for r in rows], [r[2] for r in rows], links, ch[-1],
        )

    def b_given(self, meta: Any, ch: list[Any]) -> tuple[str, Any]:
        return ("clause", ("given", None, ch[0], meta_span(meta)))

    def b_assumed(self, meta: Any, ch: list[Any]) -> tuple[str, Any]:
        return ("clause", ("assumed", self._str(ch[0]), None, meta_span(meta)))

    def b_attr(self, meta: Any, ch: list[Any]) -> ast.AttrDecl:
        return ast.AttrDecl(token_span(ch[0]), str(ch[0]), ch[1], ch[2])

    def link_decl(self, meta: Any, ch: list[Any]) -> ast.LinkDecl:
        names = [(str(t), token_span(t)) for t in ch if isinstance(t, Token)]
        src = ch[-1] if isinstance(ch[-1], ast.Source) else None
        return ast.LinkDecl(meta_span(meta), names, src)

    def record_decl(self, meta: Any, ch: list[Any]) -> ast.RecordDecl:
        name, index = ch[0], ch[1]
        fields = [c for c in ch[2:] if isinstance(c, ast.RecordField)]
        rest = [c for c in ch[2:] if not isinstance(c, ast.RecordField)]
        vis = next((c for c in rest if isinstance(c, str) and c in ("public", "owner", "hidden")), None)
        if vis is None:  # 'public when P else hidden': zones and variables may, records may not
            vis = next(c[0] for c in rest if isinstance(c, tuple))
            self.diags.error("E0405", f"the visibility of record {name} cannot depend on a parameter", meta_span(meta),
                             hint="give the record one visibility: public, owner or hidden")
        desc = next((c for c in rest if isinstance(c, Token) and c.type == "STRING"), None)
        return ast.RecordDecl(meta_span(meta), str(name), index, fields, vis, self._str(desc) if desc else None, source_of(rest))

    def record_field(self, meta: Any, ch: list[Any]) -> ast.RecordField:
        return ast.RecordField(token_span(ch[0]), str(ch[0]), ch[1], ch[2])

    # -- questions, targets, editions --
    def question_decl(self, meta: Any, ch: list[Any]) -> ast.QuestionDecl:
        name, formals, desc, src = ch[0], ch[1], ch[2], ch[3]
        q = ast.QuestionDecl(meta_span(meta), str(name), token_span(name), formals, self._str(desc) if desc else None, src)
        for clause in ch[4:]:
            tag, span = clause[0], clause[-1]
            if getattr(q, tag) is not None:
                q.extra.append((tag, span))
            else:
                setattr(q, tag, clause[1:-1] if tag == "answer" else clause[1:])
        return q

    def q_answer(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("answer", str(ch[0]), token_span(ch[0]), ch[1], ch[2], ch[3], meta_span(meta))

    def q_true(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("truth", ch[0], ch[1], meta_span(meta))

    def q_lie(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("lie", ch[0], ch[1], meta_span(meta))

    def target_decl(self, meta: Any, ch: list[Any]) -> ast.TargetDecl:
        name, desc, label, expr, src = ch
        return ast.TargetDecl(meta_span(meta), str(name), token_span(name), self._str(desc) if desc else None, self._str(label),
                              token_span(label), expr, src)

    def edition_decl(self, meta: Any, ch: list[Any]) -> ast.EditionDecl:
        return ast.EditionDecl(meta_span(meta), self._str(ch[0]), ch[1], [c for c in ch[2:] if c is not None])

    def e_same(self, meta: Any, ch: list[Any]) -> tuple[ast.EditionName, ast.EditionName, ast.Source | None]:
        return (ch[0], ch[1], ch[2])

    def e_plain(self, meta: Any, ch: list[Any]) -> ast.EditionName:
        return ast.EditionName(meta_span(meta), "name", str(ch[0]))

    def e_value(self, meta: Any, ch: list[Any]) -> ast.EditionName:
        return ast.EditionName(meta_span(meta), "value", str(ch[0]), str(ch[1]))

    def e_text(self, meta: Any, ch: list[Any]) -> ast.EditionName:
        return ast.EditionName(meta_span(meta), "text", self._str(ch[0]))


@v_args(meta=True)
class _Flow(_Base):
    """Types, definitions, procedures and the flow's statements."""

    # -- types --
    def t_bool(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TBool(meta_span(meta))

    def t_int(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TInt(meta_span(meta))

    def sint_pos(self, meta: Any, ch: list[Any]) -> int:
        return self._int(ch[0])

    def sint_neg(self, meta: Any, ch: list[Any]) -> int:
        return -self._int(ch[0])

    def t_range(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TRange(meta_span(meta), ch[0], ch[1])  # numbers already (sint)

    def t_text(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TText(meta_span(meta))

    def t_player(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TPlayer(meta_span(meta))

    def t_place(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TPlace(meta_span(meta))

    def t_set(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TSet(meta_span(meta), ch[0])

    def t_named(self, meta: Any, ch: list[Any]) -> ast.TypeExpr:
        return ast.TNamed(meta_span(meta), str(ch[0]))

    # -- definitions --
    def define_decl(self, meta: Any, ch: list[Any]) -> ast.DefineDecl:
        name, formals, ret, desc, body = ch
        d = ast.DefineDecl(
            meta_span(meta), str(name), token_span(name), formals, ret, self._str(desc) if desc else None
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
        return ("varies", str(ch[0]), token_span(ch[0]))

    def formals(self, meta: Any, ch: list[Any]) -> list[ast.Formal]:
        return [c for c in ch if c is not None]

    def formal(self, meta: Any, ch: list[Any]) -> ast.Formal:
        return ast.Formal(token_span(ch[0]), str(ch[0]), ch[1])

    def case_clause(self, meta: Any, ch: list[Any]) -> ast.CaseClause:
        name, overrides, guard, value, src = ch
        return ast.CaseClause(token_span(name), str(name), overrides or [], guard, value, src)

    def otherwise(self, meta: Any, ch: list[Any]) -> ast.Otherwise:
        return ast.Otherwise(meta_span(meta), ch[0], ch[1])

    def proc_decl(self, meta: Any, ch: list[Any]) -> ast.ProcDecl:
        name, formals, desc, src, body = ch
        p = ast.ProcDecl(
            meta_span(meta), str(name), token_span(name), formals, self._str(desc) if desc else None, src, None
        )
        if isinstance(body, tuple):
            p.varies, p.varies_span = body[1], body[2]
        else:
            p.body = body
        return p

    def proc_varies(self, meta: Any, ch: list[Any]) -> tuple[Any, ...]:
        return ("varies", str(ch[0]), token_span(ch[0]))

    def flow_decl(self, meta: Any, ch: list[Any]) -> ast.FlowDecl:
        return ast.FlowDecl(meta_span(meta), ch[0], ch[1])

    def block(self, meta: Any, ch: list[Any]) -> list[ast.Stmt]:
        return list(ch)

    # -- statements --
    def s_let(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Let(meta_span(meta), ch[2], str(ch[0]), token_span(ch[0]), ch[1])

    def s_set(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.SetStmt(meta_span(meta), ch[3], str(ch[0]), token_span(ch[0]), ch[1], ch[2])

    def s_move(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Move(meta_span(meta), ch[2], ch[0], ch[1])

    def s_draw(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        count, src, dst, bind, source = ch
        return ast.Draw(
            meta_span(meta), source, count, src, dst, str(bind) if bind else None, token_span(bind) if bind else None
        )

    def _opts(self, opts: list[Any]) -> tuple[str | None, bool, ast.Source | None, tuple[str, Span] | None]:
        label = None
        secret = False
        secret_if = None
        src = None
        for o in opts:
            if isinstance(o, tuple) and o[0] == "label":
                label = o[1]
            elif isinstance(o, tuple) and o[0] == "secret_if":
                secret = True
                secret_if = (o[1], o[2])
            elif o == "secret":
                secret = True
            elif isinstance(o, ast.Source):
                src = o
        return label, secret, src, secret_if

    def opt_label(self, meta: Any, ch: list[Any]) -> tuple[str, str]:
        return ("label", self._str(ch[0]))

    def opt_secret(self, meta: Any, ch: list[Any]) -> str:
        return "secret"

    def opt_secret_if(self, meta: Any, ch: list[Any]) -> tuple[str, str, Span]:
        return ("secret_if", str(ch[0]), token_span(ch[0]))

    def s_choose(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        label, secret, src, secret_if = self._opts(ch[3:])
        return ast.Choose(meta_span(meta), src, str(ch[0]), token_span(ch[0]), ch[1], ch[2], label, secret, secret_if)

    def s_choose_each(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        label, secret, src, secret_if = self._opts(ch[4:])
        return ast.ChooseEach(
            meta_span(meta), src, str(ch[0]), token_span(ch[0]), ch[1], str(ch[2]), token_span(ch[2]), ch[3], label, secret, secret_if
        )

    def if_stmt(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        cond, src, then, else_ = ch
        body, else_src = else_ if else_ is not None else (None, None)
        return ast.If(meta_span(meta), src, cond, then, body, else_src)

    def else_if(self, meta: Any, ch: list[Any]) -> tuple[list[ast.Stmt], ast.Source | None]:
        return [ch[0]], None

    def else_block(self, meta: Any, ch: list[Any]) -> tuple[list[ast.Stmt], ast.Source | None]:
        return ch[1], ch[0]

    def s_for(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        var, coll, start, src, body = ch
        return ast.ForEach(meta_span(meta), src, str(var), token_span(var), coll, start, body)

    def s_repeat(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Repeat(meta_span(meta), ch[1], ch[0], ch[2])

    def s_repeat_until(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.RepeatUntil(meta_span(meta), ch[1], ch[0], ch[2])

    def s_while(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.While(meta_span(meta), ch[1], ch[0], ch[2])

    def s_end(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.End(meta_span(meta), ch[1], ch[0])

    def s_end_draw(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.End(meta_span(meta), ch[0], None, draw=True)

    def s_say(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Say(meta_span(meta), None, self._str(ch[0]), str(ch[0]), token_span(ch[0]))

    def s_shuffle(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Shuffle(meta_span(meta), ch[1], ch[0])

    def s_call(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        name = ch[0]
        args = [c for c in ch[1:] if isinstance(c, ast.Expr)]
        return ast.CallStmt(meta_span(meta), source_of(ch[1:]), str(name), token_span(name), args)

    def s_reveal(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        return ast.Reveal(meta_span(meta), ch[2], ch[0], ch[1])

    def s_ask(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        question = ch[0]
        bind_at = next(i for i, c in enumerate(ch) if i > 0 and isinstance(c, Token))
        exprs = [c for c in ch[1:bind_at] if isinstance(c, ast.Expr)]
        bind = ch[bind_at]
        truth = lie = None
        label, secret, src = None, False, None
        for o in ch[bind_at + 1:]:
            if isinstance(o, tuple) and o[0] == "truth":
                truth = o[1]
            elif isinstance(o, tuple) and o[0] == "lie":
                lie = o[1]
            elif isinstance(o, tuple) and o[0] == "label":
                label = o[1]
            elif o == "secret":
                secret = True
            elif isinstance(o, ast.Source):
                src = o
        return ast.Ask(meta_span(meta), src, str(question), token_span(question), exprs[:-1], exprs[-1], str(bind), token_span(bind),
                       truth, lie, label, secret)

    def ask_truth(self, meta: Any, ch: list[Any]) -> tuple[str, Any]:
        return ("truth", ch[0])

    def ask_lie(self, meta: Any, ch: list[Any]) -> tuple[str, Any]:
        return ("lie", ch[0])

    def s_observe(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        what, observer = ch[0], ch[1]
        bind: Token | None = None
        mode, amount, ref, label, src = "exact", None, None, None, None
        for o in ch[2:]:
            if isinstance(o, tuple) and o[0] == "as":
                bind = o[1]
            elif isinstance(o, tuple) and o[0] in ("within", "than"):
                if mode != "exact":
                    self.diags.error(
                        "E0407", "an observation has one precision: 'within' or 'than', not both", o[2],
                        hint="write 'within K' for a value perceived up to K off, or 'than R' for a comparison with R",
                    )
                mode = o[0]
                amount, ref = (o[1], ref) if o[0] == "within" else (amount, o[1])
            elif isinstance(o, tuple) and o[0] == "label":
                label = o[1]
            elif isinstance(o, ast.Source):
                src = o
        return ast.Observe(
            meta_span(meta), src, what, observer, str(bind) if bind else None, token_span(bind) if bind else None,
            mode, amount, ref, label,
        )

    def obs_as(self, meta: Any, ch: list[Any]) -> tuple[str, Any]:
        return ("as", ch[0])

    def obs_within(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("within", ch[0], meta_span(meta))

    def obs_than(self, meta: Any, ch: list[Any]) -> tuple[str, Any, Span]:
        return ("than", ch[0], meta_span(meta))

    def s_append(self, meta: Any, ch: list[Any]) -> ast.Stmt:
        fields = [c for c in ch if isinstance(c, tuple) and c and c[0] == "field"]
        target = next(c for c in ch if isinstance(c, ast.ZoneRef))
        src = ch[-1] if isinstance(ch[-1], ast.Source) else None
        return ast.Append(meta_span(meta), src, [(f[1], f[2], f[3]) for f in fields], target)

    def field_value(self, meta: Any, ch: list[Any]) -> tuple[str, str, Span, Any]:
        return ("field", str(ch[0]), token_span(ch[0]), ch[1])

    def zone_ref(self, meta: Any, ch: list[Any]) -> ast.ZoneRef:
        return ast.ZoneRef(meta_span(meta), str(ch[0]), token_span(ch[0]), ch[1])



@v_args(meta=True)
class _Expressions(_Base):
    """Expressions and match patterns."""


    # -- expressions --
    def if_expr(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.IfExpr(meta_span(meta), ch[0], ch[1], ch[2])

    def or_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "or", ch[0], ch[1])

    def and_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "and", ch[0], ch[1])

    def not_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(meta_span(meta), "not", ch[0])

    def compare(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), str(ch[1]), ch[0], ch[2])

    def in_(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "in", ch[0], ch[1])

    def not_in(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(meta_span(meta), "not", ast.Binary(meta_span(meta), "in", ch[0], ch[1]))

    def range(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.RangeExpr(meta_span(meta), ch[0], ch[1])

    def add(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "+", ch[0], ch[1])

    def sub(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "-", ch[0], ch[1])

    def mul(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "*", ch[0], ch[1])

    def div(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "/", ch[0], ch[1])

    def mod(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Binary(meta_span(meta), "%", ch[0], ch[1])

    def neg(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Unary(meta_span(meta), "neg", ch[0])

    def attr(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Attr(meta_span(meta), ch[0], str(ch[1]), token_span(ch[1]))

    def index(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Index(meta_span(meta), ch[0], ch[1])

    def int(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.IntLit(meta_span(meta), self._int(ch[0]))

    def string(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.StrLit(meta_span(meta), self._str(ch[0]))

    def true(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.BoolLit(meta_span(meta), True)

    def false(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.BoolLit(meta_span(meta), False)

    def name(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Name(meta_span(meta), str(ch[0]))

    def call(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Call(meta_span(meta), str(ch[0]), token_span(ch[0]), [c for c in ch[1:] if c is not None])

    def _gen(self, ch: list[Any], span: Span) -> ast.Generator:
        elem, var, coll, filt = ch
        return ast.Generator(span, elem, str(var), token_span(var), coll, filt)

    def call_gen(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.CallGen(meta_span(meta), str(ch[0]), token_span(ch[0]), self._gen(ch[1:], meta_span(meta)))

    def set_lit(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.SetLit(meta_span(meta), [c for c in ch if c is not None])

    def set_comp(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.SetComp(meta_span(meta), self._gen(ch, meta_span(meta)))

    def match(self, meta: Any, ch: list[Any]) -> ast.Expr:
        return ast.Match(meta_span(meta), ch[0], list(ch[1:]))

    def arm(self, meta: Any, ch: list[Any]) -> ast.Arm:
        return ast.Arm(meta_span(meta), list(ch[:-1]), ch[-1])

    def arm_else(self, meta: Any, ch: list[Any]) -> ast.Arm:
        return ast.Arm(meta_span(meta), [], ch[0])

    def pat_int(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(meta_span(meta), "int", ch[0])  # a number already (sint)

    def pat_range(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(meta_span(meta), "range", ch[0], ch[1])  # numbers already (sint)

    def pat_name(self, meta: Any, ch: list[Any]) -> ast.Pattern:
        return ast.Pattern(meta_span(meta), "name", str(ch[0]))


class Builder(_Declarations, _Flow, _Expressions):
    """lark tree to AST, without recursion so deep input cannot overflow the stack. (Each part is
    decorated on its own: lark's v_args wraps the methods a class defines, not those it inherits.)"""
