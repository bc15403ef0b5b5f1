"""AST to IR: names, types, arities, duplicates, provenance of data, ambiguities, recursion and
unused declarations.  Every problem becomes a diagnostic; checking goes on after an error so one run
reports as much as it can."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import product

from . import ast, ir
from .diagnostics import Diagnostics, did_you_mean
from .parser import parse_expr_text
from .source import NOWHERE, SourceFile, Span
from .types import (
    ANY,
    BOOL,
    ERROR,
    INT,
    PLAYER,
    TEXT,
    TAny,
    TBool,
    TComp,
    TEnum,
    TError,
    TInt,
    TMap,
    TPlayer,
    TSet,
    TText,
    Type,
    fits,
    is_choosable,
    join,
)
from .walk import callees, number_statements
from .walk import walk_exprs as walk_exprs  # (also importable from here)
from .walk import walk_stmts as walk_stmts

AMBIGUITY_KINDS = ("ambiguity", "gap", "contradiction", "translation")

#: How the one-argument builtins are called, for hints.
BUILTIN_USE = {
    "next": "next(p) is the player after p in turn order",
    "prev": "prev(p) is the player before p in turn order",
    "seat": "seat(p) is the seat number of p, from 1",
    "player": "player(n) is the player in seat n, from 1",
    "abs": "abs(x) is the absolute value of a number",
}
MAX_PLAYERS = 16
#: Limits that keep checking and playing a 1 MiB file from running for hours (docs/language.md).
MAX_COMPONENTS = 10_000  # components made by all tables together
MAX_RANGE = 10_000  # values in a range written in an expression, a match pattern or an index type
MAX_SUGGESTIONS = 200


@dataclass
class LocalInfo:
    type: Type
    mutable: bool
    span: Span


@dataclass
class Scope:
    parent: Scope | None = None
    names: dict[str, LocalInfo] = field(default_factory=dict)

    def lookup(self, name: str) -> LocalInfo | None:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self) -> Iterator[str]:
        s: Scope | None = self
        while s is not None:
            yield from s.names
            s = s.parent


def _src(s: ast.Source | None) -> ir.Source | None:
    if s is None:
        return None
    return ir.Source(tuple(ir.Quote(q.lang, q.text) for q in s.quotes), s.span)


class Checker:
    def __init__(self, src: SourceFile, diags: Diagnostics) -> None:
        self.src = src
        self.d = diags
        self.enums: dict[str, ir.EnumInfo] = {}
        self.enum_values: dict[str, list[tuple[str, int]]] = {}
        self.kinds: dict[str, ir.Kind] = {}
        self.zones: dict[str, ir.ZoneInfo] = {}
        self.vars: dict[str, ir.VarInfo] = {}
        self.params: dict[str, ir.ParamInfo] = {}
        self.def_decls: dict[str, ast.DefineDecl] = {}
        self.proc_decls: dict[str, ast.ProcDecl] = {}
        self.def_sigs: dict[str, tuple[list[tuple[str, Type]], Type]] = {}
        self.proc_sigs: dict[str, list[tuple[str, Type]]] = {}
        self.components: list[ir.Component] = []
        self.used: set[tuple[str, str]] = set()
        self.game: ir.GameInfo | None = None
        self.allow_winners = False
        self.in_init = False
        self.decl_spans: dict[str, Span] = {}
        self.suggestions = 0

    # ---- helpers ----------------------------------------------------------------------------

    def err(self, code: str, msg: str, span: Span, hint: str | None = None) -> ir.Const:
        self.d.error(code, msg, span, hint)
        return ir.Const(ERROR, span, 0)

    def global_names(self) -> list[str]:
        return (
            list(self.enums) + list(self.kinds) + list(self.zones) + list(self.vars) + list(self.params)
            + list(self.def_decls) + list(self.proc_decls) + list(self.enum_values)
            + list(ir.BUILTINS_0) + list(ir.BUILTINS_1) + list(ir.BUILTINS_2)
        )

    def suggest(self, name: str, candidates: Iterable[str]) -> str | None:
        """'did you mean', for the first MAX_SUGGESTIONS unknown names only: a file with thousands of
        misspellings among thousands of declarations would otherwise take minutes to check."""
        self.suggestions += 1
        return did_you_mean(name, candidates) if self.suggestions <= MAX_SUGGESTIONS else None

    def declare(self, name: str, span: Span, what: str) -> bool:
        if name in self.decl_spans:
            prev = self.decl_spans[name]
            d = self.d.error("E0202", f"'{name}' is declared twice", span, hint=f"the first declaration is at line {prev.line}")
            d.notes.append(f"names of {what}s share one namespace with every other declaration")
            return False
        self.decl_spans[name] = span
        return True

    def resolve_type(self, t: ast.TypeExpr) -> Type:
        if isinstance(t, ast.TBool):
            return BOOL
        if isinstance(t, ast.TInt):
            return INT
        if isinstance(t, ast.TRange):
            if t.lo > t.hi:
                self.d.error("E0405", f"the range {t.lo}..{t.hi} is empty", t.span, hint="write the smaller bound first")
                return ERROR  # no value fits; checking uses of it would only repeat the error
            return ir_range(t.lo, t.hi)
        if isinstance(t, ast.TText):
            return TEXT
        if isinstance(t, ast.TPlayer):
            return PLAYER
        if isinstance(t, ast.TSet):
            elem = self.resolve_type(t.elem)
            if isinstance(elem, (TSet, TText)):
                self.d.error("E0301", f"a set cannot hold {tshow(elem)} values", t.span, hint="sets hold players, components, enum values, numbers or booleans")
                return ERROR
            return TSet(elem)
        if isinstance(t, ast.TNamed):
            if t.name in self.enums:
                self.used.add(("enum", t.name))
                return TEnum(t.name)
            if t.name in self.kinds:
                return TComp(t.name)
            self.d.error(
                "E0201", f"unknown type '{t.name}'", t.span,
                hint=self.suggest(t.name, list(self.enums) + list(self.kinds) + ["bool", "int", "text", "player"])
                or "types: bool, int, text, player, a range such as 1..5, set of …, or a declared enum, card or piece",
            )
            return ERROR
        return ERROR  # pragma: no cover

    def resolve_index_type(self, t: ast.TypeExpr | None) -> Type | None:
        if t is None:
            return None
        typ = self.resolve_type(t)
        if isinstance(typ, TComp) or isinstance(typ, (TPlayer, TEnum, TError)):
            return typ
        if isinstance(typ, TInt) and typ.lo is not None and typ.hi is not None:
            if typ.hi - typ.lo >= MAX_RANGE:
                self.d.error("E0006", f"an index range of {typ.hi - typ.lo + 1:,} values; the limit is {MAX_RANGE:,}", t.span, hint="index by a smaller range, a player, an enum or a card type")
                return ERROR
            return typ
        self.d.error("E0303", f"cannot index by {tshow(typ)}", t.span, hint="index by player, a card or piece type, an enum or a range such as 1..5")
        return ERROR

    # ---- entry ------------------------------------------------------------------------------

    def check(self, tree: ast.Ruleset) -> ir.Ruleset | None:
        items = tree.items
        if not items:
            self.d.error(
                "E0005", "the file declares nothing", NOWHERE,
                hint='a ruleset starts with: game "Title" { players 2..4 }',
            )
            return None
        games = [i for i in items if isinstance(i, ast.Game)]
        flows = [i for i in items if isinstance(i, ast.FlowDecl)]
        if not games:
            self.d.error("E0401", "no game declaration", NOWHERE, hint='add: game "Title" { players 2..4 }')
        for g in games[1:]:
            self.d.error("E0401", "a second game declaration", g.span, hint=f"the first is at line {games[0].span.line}")
        if games:
            self.game = self.check_game(games[0])
        if not flows:
            self.d.error("E0403", "no flow: the game never starts", NOWHERE, hint="add: flow { … } with the steps of the game")
        for f in flows[1:]:
            self.d.error("E0403", "a second flow", f.span, hint=f"the first is at line {flows[0].span.line}")

        for i in items:
            if isinstance(i, ast.EnumDecl):
                self.collect_enum(i)
        for i in items:
            if isinstance(i, ast.KindDecl):
                self.collect_kind_name(i)
        for i in items:
            if isinstance(i, ast.KindDecl):
                self.collect_kind(i)
        for i in items:
            if isinstance(i, ast.ZoneDecl):
                self.collect_zone(i)
        for i in items:
            if isinstance(i, ast.ParamDecl):
                self.collect_param(i)
        for i in items:
            if isinstance(i, ast.VarDecl):
                self.collect_var(i)
        for i in items:
            if isinstance(i, ast.DefineDecl):
                if self.declare(i.name, i.name_span, "definition"):
                    self.def_decls[i.name] = i
                    self.def_sigs[i.name] = self.signature(i.formals or [], i.ret)
            elif isinstance(i, ast.ProcDecl):
                if self.declare(i.name, i.name_span, "procedure"):
                    self.proc_decls[i.name] = i
                    self.proc_sigs[i.name] = self.signature(i.formals, None)[0]
        amb_decls = [i for i in items if isinstance(i, ast.AmbiguityDecl)]
        amb_names: set[str] = set()
        for a in amb_decls:
            if self.declare(a.name, a.name_span, "ambiguity"):
                amb_names.add(a.name)
        self.check_enum_value_collisions()
        tables = [i for i in items if isinstance(i, ast.TableDecl)]
        seen_tables: dict[str, ast.TableDecl] = {}
        for t in tables:
            if t.kind in seen_tables:
                self.d.error("E0202", f"a second table for '{t.kind}'", t.kind_span, hint=f"the first is at line {seen_tables[t.kind].span.line}")
                continue
            seen_tables[t.kind] = t
            self.check_table(t)
        for k in self.kinds.values():
            if k.name not in seen_tables:
                self.d.warning("W0601", f"{k.word} type '{k.name}' has no table, so the game has no such components", k.span, hint=f"add: table {k.name} in <zone> {{ ... }}")
        for i in items:
            # a second declaration of the same name was refused; its value is not checked against the first
            if isinstance(i, ast.VarDecl) and i.name in self.vars and self.vars[i.name].span == i.span:
                self.check_var_init(i)

        defs: dict[str, ir.Definition] = {}
        for name, decl in self.def_decls.items():
            defs[name] = self.check_define(decl, None)
        procs: dict[str, ir.Procedure] = {}
        for name, pdecl in self.proc_decls.items():
            procs[name] = self.check_proc(pdecl, None)
        flow: list[ir.Stmt] = []
        flow_source = None
        if flows:
            flow = self.block(flows[0].body, Scope())
            flow_source = _src(flows[0].source)
        ambiguities: dict[str, ir.Ambiguity] = {}
        for a in amb_decls:
            if a.name in amb_names:
                amb = self.check_ambiguity(a, amb_names)
                if amb is not None:
                    ambiguities[a.name] = amb
        self.check_varies(defs, procs, ambiguities, amb_names)
        invariants: list[ir.Invariant] = []
        inv_names: dict[str, Span] = {}
        for i in items:
            if isinstance(i, ast.InvariantDecl):
                if i.name in inv_names:
                    self.d.error("E0202", f"invariant '{i.name}' is declared twice", i.span, hint=f"the first is at line {inv_names[i.name].line}")
                inv_names[i.name] = i.span
                self.allow_winners = i.at_end
                e = self.expect(i.expr, Scope(), BOOL, "an invariant")
                self.allow_winners = False
                invariants.append(ir.Invariant(i.name, i.desc, i.at_end, e, _src(i.source), i.span))
        terms = [
            ir.Term(t.term, [ir.Quote(q.lang, q.text) for q in t.translations], t.meaning, _src(t.source), t.span)
            for t in items if isinstance(t, ast.TermDecl)
        ]
        self.check_recursion(defs, procs, ambiguities)
        self.check_unused(defs, procs, ambiguities, invariants)
        self.check_sources(defs, procs)
        if self.d.has_errors or self.game is None:
            return None
        rules = ir.Ruleset(
            name=self.src.name,
            text_hash=hashlib.sha256(self.src.text.encode("utf-8")).hexdigest(),
            game=self.game,
            enums=self.enums,
            kinds=self.kinds,
            components=self.components,
            zones=self.zones,
            vars=self.vars,
            params=self.params,
            defs=defs,
            procs=procs,
            flow=flow,
            flow_source=flow_source,
            ambiguities=ambiguities,
            invariants=invariants,
            terms=terms,
        )
        number_statements(rules)
        return rules

    # ---- declarations -----------------------------------------------------------------------

    def check_game(self, g: ast.Game) -> ir.GameInfo:
        lo, hi = g.players if g.players else (0, 0)
        if g.players is None:
            self.d.error("E0401", "the game declaration does not say how many play", g.span, hint="add: players 2..4")
            lo, hi = 2, 2
        elif not (1 <= lo <= hi <= MAX_PLAYERS):
            self.d.error("E0405", f"players {lo}..{hi} is not a range of player counts from 1 to {MAX_PLAYERS}", g.players_span or g.span, hint="write the fewest and the most players, e.g. players 2..4 (at most 16)")
            lo, hi = max(1, min(lo, MAX_PLAYERS)), max(1, min(hi, MAX_PLAYERS))
            lo, hi = min(lo, hi), max(lo, hi)
        return ir.GameInfo(
            g.title, g.edition, g.language or "en", g.original, lo, hi, g.order, [s for s in (_src(s) for s in g.sources) if s]
        )

    def collect_enum(self, e: ast.EnumDecl) -> None:
        if not self.declare(e.name, e.span, "enum"):
            return
        names: list[str] = []
        labels: list[str] = []
        for v in e.values:
            if v.name in names:
                self.d.error("E0202", f"enum '{e.name}' lists '{v.name}' twice", v.span, hint=f"remove the second '{v.name}'")
                continue
            names.append(v.name)
            labels.append(v.label or v.name)
            self.enum_values.setdefault(v.name, []).append((e.name, len(names) - 1))
        self.enums[e.name] = ir.EnumInfo(e.name, e.label, names, labels, _src(e.source))

    def check_enum_value_collisions(self) -> None:
        for name, owners in self.enum_values.items():
            if name in self.decl_spans:
                self.d.error(
                    "E0202", f"'{name}' is both an enum value of {owners[0][0]} and another declaration",
                    self.decl_spans[name], hint="rename one of them",
                )

    def collect_kind_name(self, k: ast.KindDecl) -> None:
        if self.declare(k.name, k.span, "card type"):
            self.kinds[k.name] = ir.Kind(k.name, k.word, k.display, {}, {}, {}, "", k.span, _src(k.source))

    def collect_kind(self, k: ast.KindDecl) -> None:
        kind = self.kinds.get(k.name)
        if kind is None or kind.span is not k.span:
            return
        for a in k.attrs:
            if a.name in kind.attrs:
                self.d.error("E0202", f"attribute '{a.name}' is declared twice in '{k.name}'", a.span, hint="remove one of them, or rename it")
                continue
            t = self.resolve_type(a.type)
            if isinstance(t, TComp) or isinstance(t, TPlayer) or (isinstance(t, TSet) and isinstance(t.elem, (TComp, TPlayer))):
                self.d.error("E0301", f"attribute '{a.name}' cannot be of type {tshow(t)}", a.type.span, hint="attributes are numbers, booleans, texts, enum values or sets of enum values")
                t = ERROR
            kind.attrs[a.name] = t
            kind.attr_sources[a.name] = _src(a.source)
        if k.display:
            for m in re.finditer(r"\{([^{}]*)\}", k.display):
                if m.group(1) not in kind.attrs:
                    self.d.error(
                        "E0205", f"the display text of '{k.name}' names no attribute '{m.group(1)}'", k.span,
                        hint=self.suggest(m.group(1), kind.attrs) or "write attribute names in braces, e.g. \"Person {rank}\"",
                    )

    def collect_zone(self, z: ast.ZoneDecl) -> None:
        if not self.declare(z.name, z.span, "zone"):
            return
        index = self.resolve_index_type(z.index)
        kinds = []
        for name, span in z.kinds:
            if name not in self.kinds:
                self.d.error("E0201", f"unknown card or piece type '{name}'", span, hint=self.suggest(name, self.kinds) or _listing("card and piece types", self.kinds))
                continue
            kinds.append(name)
        if z.visibility == "owner" and not isinstance(index, TPlayer):
            self.d.error("E0405", f"zone '{z.name}' is visible to its owner, but it is not indexed by player", z.span, hint=f"declare it as zone {z.name}[player]: ...")
        self.zones[z.name] = ir.ZoneInfo(z.name, index, kinds, z.visibility, z.desc, _src(z.source), z.span)

    def collect_param(self, p: ast.ParamDecl) -> None:
        if not self.declare(p.name, p.span, "parameter"):
            return
        t = self.resolve_type(p.type)
        if not isinstance(t, (TBool, TInt, TEnum, TError)):
            self.d.error("E0301", f"parameter '{p.name}' must be a boolean, a number or an enum value, not {tshow(t)}", p.type.span, hint="declare it as bool, int, a range such as 1..5, or an enum")
            t = ERROR
        if isinstance(t, TInt) and t.lo is None and p.provenance == "unspecified":
            self.d.error("E0405", f"unspecified parameter '{p.name}' needs a domain", p.type.span, hint="give its type as a range, e.g. 0..30")
        value = self.const(p.value, t, f"the value of parameter '{p.name}'")
        prov = ir.Provenance(p.provenance, p.rationale, _src(p.source), p.span, value)
        self.params[p.name] = ir.ParamInfo(p.name, t, value, prov, p.desc, _src(p.source), p.span)

    def collect_var(self, v: ast.VarDecl) -> None:
        if not self.declare(v.name, v.span, "variable"):
            return
        index = self.resolve_index_type(v.index)
        t = self.resolve_type(v.type)
        if isinstance(t, TComp):
            self.d.error("E0301", f"variable '{v.name}' cannot hold a single {tshow(t)}", v.type.span, hint=f"use a zone, or a variable of type set of {tshow(t)}")
        if v.visibility == "owner" and not isinstance(index, TPlayer):
            self.d.error("E0405", f"variable '{v.name}' is visible to its owner, but it is not indexed by player", v.span, hint=f"declare it as var {v.name}[player]: … owner")
        if v.score and not (isinstance(index, TPlayer) and isinstance(t, TInt)):
            self.d.error("E0405", f"score variable '{v.name}' must be a number per player", v.span, hint=f"declare it as var {v.name}[player]: int = 0 score")
        self.vars[v.name] = ir.VarInfo(v.name, index, t, False, v.score, v.visibility, v.desc, _src(v.source), v.span)

    def check_var_init(self, v: ast.VarDecl) -> None:
        info = self.vars[v.name]
        self.in_init = True
        info.init = self.const(v.init, info.type, f"the initial value of '{v.name}'")
        self.in_init = False

    def const(self, e: ast.Expr, t: Type, what: str) -> ir.Value:
        """Check and evaluate a constant expression (literals, enum values, sets, ranges, params)."""
        x = self.expect(e, Scope(), t, what)
        value = const_value(x, self.params)
        if value is None:
            if not isinstance(x.type, TError):
                self.d.error("E0302", f"{what} must be a constant", e.span, hint="use literals, enum values, sets and ranges of them")
            return False
        if isinstance(t, TInt) and isinstance(value, int) and not isinstance(value, bool):
            if (t.lo is not None and value < t.lo) or (t.hi is not None and value > t.hi):
                self.d.error("E0304", f"{what} is {value}, outside {tshow(t)}", e.span, hint=f"use a value within {tshow(t)}, or widen the type")
        return value

    def signature(self, formals: list[ast.Formal], ret: ast.TypeExpr | None) -> tuple[list[tuple[str, Type]], Type]:
        out: list[tuple[str, Type]] = []
        seen: set[str] = set()
        for f in formals:
            if f.name in seen:
                self.d.error("E0202", f"parameter '{f.name}' is declared twice", f.span, hint="give each parameter its own name")
            seen.add(f.name)
            t = self.resolve_type(f.type)
            if isinstance(t, TMap):
                self.d.error("E0301", "a parameter cannot be a per-player choice", f.span, hint="pass one player's choice instead, e.g. f(choice[p])")
            out.append((f.name, t))
        return out, (self.resolve_type(ret) if ret is not None else BOOL)

    # ---- tables -----------------------------------------------------------------------------

    def check_table(self, t: ast.TableDecl) -> None:
        kind = self.kinds.get(t.kind)
        if kind is None:
            self.d.error(
                "E0201", f"unknown card or piece type '{t.kind}'", t.kind_span,
                hint=self.suggest(t.kind, self.kinds) or f"declare it first: card {t.kind} {{ … }}",
            )
            return
        if t.start is None:
            self.d.error("E0402", f"the table of '{t.kind}' does not say where its components start", t.kind_span, hint=f"write: table {t.kind} in <zone> {{ ... }}")
        else:
            z = self.zones.get(t.start)
            if z is None:
                assert t.start_span is not None
                self.d.error("E0201", f"unknown zone '{t.start}'", t.start_span, hint=self.suggest(t.start, self.zones) or _listing("zones", self.zones))
            else:
                self.used.add(("zone", z.name))
                if z.index is not None:
                    self.d.error("E0402", f"components cannot start in '{t.start}': it is one zone per {tshow(z.index)}", t.start_span or t.span, hint="start them in a single zone such as the deck or the box")
                if t.kind not in z.kinds:
                    self.d.error("E0402", f"zone '{t.start}' does not hold {t.kind}", t.start_span or t.span, hint=f"add {t.kind} to the zone's declaration")
            kind.start_zone = t.start
        if not t.rows:
            return
        header = t.rows[0]
        cols: list[str] = []
        for cell in header:
            if cell.kind != "name":
                self.d.error("E0402", "the first row of a table names its columns", cell.span, hint="write: | rank | age | ... |")
                return
            name = str(cell.value)
            if name not in kind.attrs:
                self.d.error("E0205", f"'{t.kind}' has no attribute '{name}'", cell.span, hint=self.suggest(name, kind.attrs) or _listing("attributes", kind.attrs))
            elif name in cols:
                self.d.error("E0202", f"column '{name}' appears twice", cell.span, hint="remove the second column")
            cols.append(name)
        for a in kind.attrs:
            if a not in cols:
                self.d.error("E0402", f"the table of '{t.kind}' has no column '{a}'", header[0].span.to(header[-1].span), hint=f"add a column '{a}' to the header and a value to every row")
        # provenance of every column
        for clause in t.clauses:
            for name, span in clause.columns:
                if name not in kind.attrs:
                    self.d.error("E0205", f"'{t.kind}' has no attribute '{name}'", span, hint=self.suggest(name, kind.attrs) or _listing("attributes", kind.attrs))
                    continue
                if name in kind.provenance:
                    self.d.error("E0202", f"column '{name}' is given a provenance twice", span, hint="name each column in exactly one of given, assumed and unspecified")
                    continue
                default = None
                if clause.provenance == "unspecified" and clause.default is not None:
                    default = self.cell_value(clause.default, kind.attrs[name], t.kind, name)
                kind.provenance[name] = ir.Provenance(clause.provenance, clause.rationale, _src(clause.source), clause.span, default)
        for a in kind.attrs:
            if a not in kind.provenance:
                self.d.error(
                    "E0404", f"column '{a}' of '{t.kind}' has no provenance", t.kind_span,
                    hint=f"say where it comes from: 'given {a} source \"…\"', 'assumed {a} because \"…\"' or 'unspecified {a} default … because \"…\"'",
                )
        if self.d.has_errors:
            # rows are still checked for their own errors
            pass
        for row, rspan in zip(t.rows[1:], t.row_spans[1:]):
            if len(row) != len(header):
                self.d.error(
                    "E0402", f"this row has {len(row)} cell{'s' if len(row) != 1 else ''}; the header has {len(header)}", rspan,
                    hint="give every column a value, or write '?' in unspecified columns",
                )
                continue
            choices: list[list[ir.Value]] = []
            for col, cell in zip(cols, row):
                at = kind.attrs.get(col)
                if at is None or isinstance(at, TError):  # the column or its type already has an error
                    choices.append([0])
                    continue
                prov = kind.provenance.get(col)
                if cell.kind == "unknown":
                    if prov is None or prov.kind != "unspecified":
                        self.d.error("E0402", f"'?' is only for unspecified columns; '{col}' is not", cell.span, hint=f"write the value, or declare: unspecified {col} default … because \"…\"")
                        choices.append([0])
                    else:
                        choices.append([prov.default if prov.default is not None else 0])
                    continue
                if prov is not None and prov.kind == "unspecified":
                    self.d.error("E0402", f"column '{col}' is unspecified: its cells are '?'", cell.span, hint="move the value to the clause's default, or make the column assumed")
                    choices.append([0])
                    continue
                if cell.kind == "range":
                    if not isinstance(at, TInt):
                        self.d.error("E0301", f"a range of rows needs a number column; '{col}' is {tshow(at)}", cell.span, hint="a..b makes one row per number; write one value in this column, or * for one row per enum value")
                        choices.append([0])
                    else:
                        assert isinstance(cell.value, int) and cell.hi is not None
                        if cell.value > cell.hi:
                            self.d.error("E0405", f"the range {cell.value}..{cell.hi} is empty: this row makes no components", cell.span, hint="write the smaller bound first")
                            choices.append([])
                        elif cell.hi - cell.value >= MAX_COMPONENTS:
                            self.d.error(
                                "E0006", f"the range {cell.value}..{cell.hi} makes {cell.hi - cell.value + 1:,} rows; a ruleset may have at most {MAX_COMPONENTS:,} components",
                                cell.span, hint="check the bounds; a game with that many pieces is better described by a number in a variable",
                            )
                            return
                        else:
                            choices.append(list(range(cell.value, cell.hi + 1)))
                            self.check_in_range(list(range(cell.value, cell.hi + 1)), at, cell.span, col)
                    continue
                if cell.kind == "all":
                    if not isinstance(at, TEnum):
                        self.d.error("E0301", f"'*' stands for every value of an enum; '{col}' is {tshow(at)}", cell.span, hint="'*' makes one row per value of an enum; write one value in this column")
                        choices.append([0])
                    else:
                        choices.append(list(range(len(self.enums[at.name].values))))
                    continue
                choices.append([self.cell_value(cell, at, t.kind, col)])
            made = 1
            for ch in choices:
                made *= len(ch)
            if len(self.components) + made > MAX_COMPONENTS:
                self.d.error(
                    "E0006", f"this row makes {made:,} components, more than the {MAX_COMPONENTS:,} a ruleset may have", rspan,
                    hint="every range a..b and every '*' multiplies the rows; check the bounds",
                )
                return
            for combo in product(*choices):
                attrs = dict(zip(cols, combo))
                cid = len(self.components)
                comp = ir.Component(cid, t.kind, attrs, "", rspan)
                comp.display = self.display_of(kind, comp)
                self.components.append(comp)

    def check_in_range(self, values: list[int], t: TInt, span: Span, col: str) -> None:
        for v in values:
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                self.d.error("E0304", f"{v} is outside {tshow(t)}, the type of '{col}'", span, hint=f"use a value within {tshow(t)}, or widen the type of '{col}'")
                return

    def cell_value(self, cell: ast.Cell, t: Type, kind: str, col: str) -> ir.Value:
        if isinstance(t, TError):
            return 0
        if isinstance(t, TInt):
            if cell.kind != "int":
                self.d.error("E0301", f"'{col}' is a number; this cell is not", cell.span, hint="write a whole number such as 3, or a range such as 1..5 for one row per number")
                return 0
            assert isinstance(cell.value, int)
            self.check_in_range([cell.value], t, cell.span, col)
            return cell.value
        if isinstance(t, TBool):
            if cell.kind != "bool":
                self.d.error("E0301", f"'{col}' is true or false; this cell is not", cell.span, hint="write true or false")
                return False
            return bool(cell.value)
        if isinstance(t, TText):
            if cell.kind != "str":
                self.d.error("E0301", f"'{col}' is a text in double quotes; this cell is not", cell.span, hint="write it in double quotes: \"…\"")
                return ""
            return str(cell.value)
        if isinstance(t, TEnum):
            if cell.kind != "name":
                self.d.error("E0301", f"'{col}' is a value of {t.name}; this cell is not", cell.span, hint="values: " + ", ".join(self.enums[t.name].values))
                return 0
            return self.enum_index(t.name, str(cell.value), cell.span)
        if isinstance(t, TSet):
            if cell.kind != "set":
                self.d.error("E0301", f"'{col}' is a set: write {{a, b}} or {{}}", cell.span, hint="write {a, b}, or {} for none")
                return frozenset()
            return frozenset(self.cell_value(c, t.elem, kind, col) for c in cell.items)  # type: ignore[misc]
        self.d.error("E0301", f"cells of type {tshow(t)} are not supported", cell.span, hint="attributes are numbers, booleans, texts, enum values or sets of enum values")
        return 0

    def enum_index(self, enum: str, name: str, span: Span) -> int:
        values = self.enums[enum].values
        if name not in values:
            self.d.error("E0201", f"'{name}' is not a value of {enum}", span, hint=self.suggest(name, values) or "values: " + ", ".join(values))
            return 0
        self.used.add(("enum", enum))
        return values.index(name)

    def display_of(self, kind: ir.Kind, comp: ir.Component) -> str:
        from .values import show

        if not kind.display:
            return f"{kind.name} {comp.cid + 1}"

        def sub(m: re.Match[str]) -> str:
            a = m.group(1)
            if a not in comp.attrs or a not in kind.attrs:  # an unknown column already has an error
                return m.group(0)
            t = kind.attrs[a]
            if isinstance(t, TEnum):
                return self.enums[t.name].labels[comp.attrs[a]]  # type: ignore[index]
            if isinstance(t, TSet) and isinstance(t.elem, TEnum):
                labels = self.enums[t.elem.name].labels
                return ", ".join(labels[i] for i in sorted(comp.attrs[a]))  # type: ignore[arg-type]
            if isinstance(t, TBool):
                return "yes" if comp.attrs[a] else "no"
            return str(comp.attrs[a])

        del show
        return re.sub(r"\{([^{}]*)\}", sub, kind.display)

    # ---- definitions, procedures, ambiguities -------------------------------------------------

    def check_define(self, d: ast.DefineDecl, reading: tuple[str, str] | None) -> ir.Definition:
        formals, ret = self.signature(d.formals or [], d.ret)
        scope = Scope()
        for (name, t), f in zip(formals, d.formals or []):
            scope.names[name] = LocalInfo(t, False, f.span)
        body = None
        cases = None
        otherwise = None
        if d.body is not None:
            body = self.expect(d.body, scope, ret, f"the value of '{d.name}'")
        elif d.cases is not None:
            cases = []
            names: dict[str, Span] = {}
            for c in d.cases:
                if c.name in names:
                    self.d.error("E0202", f"case '{c.name}' appears twice in '{d.name}'", c.span, hint="give each case its own name")
                names[c.name] = c.span
            for c in d.cases:
                for o, ospan in c.overrides:
                    if o not in names:
                        self.d.error(
                            "E0201", f"'{d.name}' has no case '{o}' to override", ospan,
                            hint=self.suggest(o, names) or _listing(f"cases of '{d.name}'", names),
                        )
                    elif o == c.name:
                        self.d.error("E0405", f"case '{c.name}' cannot override itself", ospan, hint="name the cases this one takes precedence over")
                guard = self.expect(c.guard, scope, BOOL, f"the condition of case '{c.name}'")
                value = self.expect(c.value, scope, ret, f"the value of case '{c.name}'")
                cases.append(ir.Case(c.name, guard, value, [o for o, _ in c.overrides], _src(c.source), c.span))
            if d.otherwise is not None:
                otherwise = self.expect(d.otherwise.value, scope, ret, f"the otherwise value of '{d.name}'")
        return ir.Definition(
            d.name, formals, ret, d.desc, body, cases, otherwise, _src(d.source), d.span,
            varies=d.varies, reading=reading,
        )

    def check_proc(self, p: ast.ProcDecl, reading: tuple[str, str] | None) -> ir.Procedure:
        formals = self.proc_sigs.get(p.name) if reading is None else self.signature(p.formals, None)[0]
        formals = formals or []
        scope = Scope()
        for (name, t), f in zip(formals, p.formals):
            scope.names[name] = LocalInfo(t, False, f.span)
        body = self.block(p.body, scope) if p.body is not None else None
        return ir.Procedure(p.name, formals, body, p.desc, _src(p.source), p.span, varies=p.varies, reading=reading)

    def check_ambiguity(self, a: ast.AmbiguityDecl, amb_names: set[str]) -> ir.Ambiguity | None:
        kind = a.kind or "ambiguity"
        if kind not in AMBIGUITY_KINDS:
            self.d.error(
                "E0405", f"'{kind}' is not a kind of ambiguity", a.kind_span or a.span,
                hint=self.suggest(kind, AMBIGUITY_KINDS) or "kinds: " + ", ".join(AMBIGUITY_KINDS),
            )
        if not a.sources:
            self.d.error("E0507", f"ambiguity '{a.name}' quotes nothing from the rulebook", a.name_span, hint='add: source "the sentence that can be read two ways"')
        if len(a.readings) < 2:
            self.d.error(
                "E0501", f"ambiguity '{a.name}' has {len(a.readings)} reading{'s' if len(a.readings) != 1 else ''}; it needs at least two",
                a.name_span, hint='add: reading name "what this reading says" { define … }',
            )
        defaults = [r for r in a.readings if r.is_default]
        if a.readings and len(defaults) != 1:
            self.d.error(
                "E0504", f"ambiguity '{a.name}' has {len(defaults)} default readings; it needs exactly one",
                (defaults[1].span if len(defaults) > 1 else a.name_span),
                hint="mark the reading engines use by default with 'default' after its name",
            )
        readings: list[ir.Reading] = []
        seen: set[str] = set()
        for r in a.readings:
            if r.name in seen:
                self.d.error("E0202", f"reading '{r.name}' appears twice in '{a.name}'", r.span, hint="give each reading its own name")
                continue
            seen.add(r.name)
            defs: dict[str, ir.Definition] = {}
            procs: dict[str, ir.Procedure] = {}
            for d in r.defines:
                base = self.def_decls.get(d.name)
                if base is None:
                    self.d.error(
                        "E0502", f"reading '{r.name}' overrides '{d.name}', which is not a definition", d.name_span,
                        hint=self.suggest(d.name, self.def_decls) or f"declare it at the top level first: define {d.name}(…) -> type varies by {a.name}",
                    )
                    continue
                if d.varies is not None:
                    self.d.error("E0405", "a reading gives a body, not 'varies by'", d.varies_span or d.span, hint="give the body this reading has, e.g. define name(…) -> type = …")
                    continue
                over = self.check_define(d, (a.name, r.name))
                bsig = self.def_sigs[d.name]
                if [t for _, t in over.formals] != [t for _, t in bsig[0]] or over.ret != bsig[1]:
                    self.d.error(
                        "E0505", f"this '{d.name}' does not match the definition it replaces", d.name_span,
                        hint=f"the definition at line {base.span.line} takes ({', '.join(tshow(t) for _, t in bsig[0])}) -> {tshow(bsig[1])}",
                    )
                if d.name in defs:
                    self.d.error("E0202", f"reading '{r.name}' defines '{d.name}' twice", d.name_span, hint="remove one of them")
                defs[d.name] = over
            for p in r.procs:
                pbase = self.proc_decls.get(p.name)
                if pbase is None:
                    self.d.error(
                        "E0502", f"reading '{r.name}' overrides '{p.name}', which is not a procedure", p.name_span,
                        hint=self.suggest(p.name, self.proc_decls) or f"declare it at the top level first: procedure {p.name}(…) varies by {a.name}",
                    )
                    continue
                if p.varies is not None:
                    self.d.error("E0405", "a reading gives a body, not 'varies by'", p.varies_span or p.span, hint="give the body this reading has: procedure name(…) { … }")
                    continue
                pover = self.check_proc(p, (a.name, r.name))
                if [t for _, t in pover.formals] != [t for _, t in self.proc_sigs[p.name]]:
                    self.d.error(
                        "E0505", f"this '{p.name}' does not match the procedure it replaces", p.name_span,
                        hint=f"the procedure at line {pbase.span.line} takes ({', '.join(tshow(t) for _, t in self.proc_sigs[p.name])})",
                    )
                procs[p.name] = pover
            readings.append(ir.Reading(r.name, r.is_default, r.desc, r.clarify, defs, procs, r.span))
        if len(readings) < 2 or len([r for r in readings if r.default]) != 1:
            return None
        return ir.Ambiguity(a.name, kind, [s for s in (_src(s) for s in a.sources) if s], a.question, readings, a.span)

    def check_varies(
        self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity], declared: set[str],
    ) -> None:
        overridden_by: dict[str, str] = {}
        for a in ambs.values():
            for name in a.varies:
                if name in overridden_by and overridden_by[name] != a.name:
                    span = (defs[name].span if name in defs else procs[name].span) if (name in defs or name in procs) else a.span
                    self.d.error(
                        "E0405", f"'{name}' is varied by two ambiguities, '{overridden_by[name]}' and '{a.name}'", span,
                        hint="split it into two definitions, one per question",
                    )
                overridden_by.setdefault(name, a.name)
        for decl_name, var_amb, span, where in [
            *((n, d.varies, d.span, "definition") for n, d in defs.items() if d.varies),
            *((n, p.varies, p.span, "procedure") for n, p in procs.items() if p.varies),
        ]:
            amb = ambs.get(var_amb or "")
            dd = self.def_decls.get(decl_name)
            pd = self.proc_decls.get(decl_name)
            vspan = (dd.varies_span if dd else pd.varies_span if pd else None) or span
            if amb is None:
                if var_amb not in declared:  # a declared but broken ambiguity has its own errors
                    self.d.error(
                        "E0201", f"unknown ambiguity '{var_amb}'", vspan,
                        hint=self.suggest(var_amb or "", declared) or f"declare it: ambiguity {var_amb} {{ source \"…\" reading … }}",
                    )
                continue
            for r in amb.readings:
                if decl_name not in r.defs and decl_name not in r.procs:
                    self.d.error(
                        "E0506", f"reading '{r.name}' of '{amb.name}' does not define '{decl_name}'", r.span,
                        hint=f"the {where} '{decl_name}' varies by '{amb.name}', so every reading must give it",
                    )
            if overridden_by.get(decl_name) not in (None, amb.name):
                self.d.error("E0405", f"'{decl_name}' varies by '{amb.name}' but is overridden by '{overridden_by[decl_name]}'", vspan, hint="only the ambiguity named after 'varies by' may give it readings")

    # ---- whole-ruleset checks ----------------------------------------------------------------

    def check_recursion(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity]) -> None:
        graph: dict[str, set[str]] = {}
        variants: list[ir.Definition | ir.Procedure] = [*defs.values(), *procs.values()]
        for a in ambs.values():
            for r in a.readings:
                variants.extend(r.defs.values())
                variants.extend(r.procs.values())
        for v in variants:
            graph.setdefault(v.name, set()).update(callees(v))
        state: dict[str, int] = {}
        reported: set[str] = set()

        def visit(n: str, path: list[str]) -> None:
            state[n] = 1
            for m in sorted(graph.get(n, ())):
                if state.get(m) == 1:
                    cycle = [*path[path.index(m):], m] if m in path else [n, m]
                    if m not in reported:
                        reported.add(m)
                        decl = self.def_decls.get(m) or self.proc_decls.get(m)
                        span = decl.name_span if decl is not None else Span.point(1, 1)
                        self.d.error("E0206", f"'{m}' calls itself: " + " -> ".join(cycle), span, hint="rules are evaluated without recursion; use a for each loop or an aggregate")
                elif state.get(m) is None:
                    visit(m, [*path, m])
            state[n] = 2

        for n in sorted(graph):
            if state.get(n) is None:
                visit(n, [n])

    def check_unused(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity], invs: list[ir.Invariant]) -> None:
        for name, dd in defs.items():
            if ("def", name) not in self.used:
                self.d.warning("W0601", f"definition '{name}' is never used", dd.span, hint="remove it, or use it in a rule")
        for name, pp in procs.items():
            if ("proc", name) not in self.used:
                self.d.warning("W0601", f"procedure '{name}' is never called", pp.span, hint="call it from the flow or from another procedure, or remove it")
        for name, v in self.vars.items():
            if ("var", name) not in self.used:
                self.d.warning("W0601", f"variable '{name}' is never read", v.span, hint="read it in a rule, or remove it")
        for name, p in self.params.items():
            if ("param", name) not in self.used:
                self.d.warning("W0601", f"parameter '{name}' is never read", p.span, hint="read it in a rule, or remove it")
        for name, z in self.zones.items():
            if ("zone", name) not in self.used:
                self.d.warning("W0601", f"zone '{name}' is never used", z.span, hint="use it in a rule, or remove it")
        del ambs, invs

    def check_sources(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure]) -> None:
        for d in defs.values():
            if d.varies:
                continue
            if d.source is None and not any(c.source for c in d.cases or []):
                self.d.warning("W0602", f"definition '{d.name}' cites no rulebook sentence", d.span, hint='add: source "the sentence it formalizes"')
        for p in procs.values():
            if p.varies:
                continue
            if p.source is None:
                self.d.warning("W0602", f"procedure '{p.name}' cites no rulebook sentence", p.span, hint='add: source "the sentence it formalizes"')

    # ---- statements -------------------------------------------------------------------------

    def block(self, stmts: list[ast.Stmt], parent: Scope) -> list[ir.Stmt]:
        scope = Scope(parent)
        out: list[ir.Stmt] = []
        for s in stmts:
            r = self.stmt(s, scope)
            if r is not None:
                out.append(r)
        return out

    def bind_local(self, scope: Scope, name: str, t: Type, span: Span, mutable: bool = False) -> None:
        if scope.lookup(name) is not None:
            self.d.error("E0202", f"'{name}' is already a local name here", span, hint="choose another name")
            return
        if name in self.decl_spans or name in self.enum_values:
            self.d.error("E0202", f"'{name}' would hide the declaration of the same name", span, hint="choose another name")
            return
        scope.names[name] = LocalInfo(t, mutable, span)

    def zone_ref(self, z: ast.ZoneRef, scope: Scope) -> tuple[str, ir.Expr | None, ir.ZoneInfo | None]:
        info = self.zones.get(z.name)
        if info is None:
            self.d.error("E0201", f"unknown zone '{z.name}'", z.name_span, hint=self.suggest(z.name, self.zones) or _listing("zones", self.zones))
            return z.name, None, None
        self.used.add(("zone", z.name))
        index = None
        if info.index is None and z.index is not None:
            self.d.error("E0303", f"zone '{z.name}' is a single zone; it takes no index", z.index.span, hint=f"write {z.name} without […]")
        elif info.index is not None and z.index is None:
            self.d.error("E0303", f"zone '{z.name}' is one zone per {tshow(info.index)}; say which", z.name_span, hint=f"write {z.name}[…]")
        elif info.index is not None and z.index is not None:
            index = self.expect(z.index, scope, info.index, f"the index of '{z.name}'")
        return z.name, index, info

    def stmt(self, s: ast.Stmt, scope: Scope) -> ir.Stmt | None:
        src = _src(s.source)
        if isinstance(s, ast.Let):
            value = self.expr(s.value, scope)
            if isinstance(value.type, TMap):
                self.d.error("E0301", "a per-player choice cannot be copied; read it as name[p]", s.value.span, hint="read one player's choice as name[p]")
            # a let name can be set again later, so a number keeps no range from its first value
            t = INT if isinstance(value.type, TInt) else value.type
            self.bind_local(scope, s.name, t, s.name_span, mutable=True)
            return ir.Let(s.span, src, s.name, value)
        if isinstance(s, ast.SetStmt):
            local = scope.lookup(s.name)
            if local is not None:
                if not local.mutable:
                    self.d.error(
                        "E0203", f"'{s.name}' cannot be changed: only names bound by let can", s.name_span,
                        hint=f"bind a new name instead, e.g. let {s.name}2 = …",
                    )
                if s.index is not None:
                    self.d.error("E0303", f"'{s.name}' is a local value; it takes no index", s.index.span, hint=f"write {s.name} without […]")
                value = self.expect(s.value, scope, local.type, f"the new value of '{s.name}'")
                return ir.Assign(s.span, src, s.name, True, None, value, local.type)
            var = self.vars.get(s.name)
            if var is None:
                self.d.error(
                    "E0201", f"unknown variable '{s.name}'", s.name_span,
                    hint=self.suggest(s.name, list(self.vars) + list(scope.all_names())) or f"declare it: var {s.name}: type = value, or bind it first with let",
                )
                return None
            index = None
            if var.index is None and s.index is not None:
                self.d.error("E0303", f"variable '{s.name}' takes no index", s.index.span, hint=f"write set {s.name} = … without […]")
            elif var.index is not None and s.index is None:
                self.d.error("E0303", f"variable '{s.name}' is one value per {tshow(var.index)}; say which", s.name_span, hint=f"write set {s.name}[…] = …")
            elif var.index is not None and s.index is not None:
                index = self.expect(s.index, scope, var.index, f"the index of '{s.name}'")
            value = self.expect(s.value, scope, var.type, f"the new value of '{s.name}'")
            self.check_const_range(value, var.type, s.value.span, s.name)
            return ir.Assign(s.span, src, s.name, False, index, value, var.type)
        if isinstance(s, ast.Move):
            what = self.expr(s.what, scope)
            zname, zindex, zinfo = self.zone_ref(s.zone, scope)
            kinds: set[str | None] = set()
            if isinstance(what.type, TComp):
                kinds = {what.type.kind}
            elif isinstance(what.type, TSet) and isinstance(what.type.elem, TComp):
                kinds = {what.type.elem.kind}
            elif isinstance(what.type, TSet) and isinstance(what.type.elem, TAny):
                kinds = set()
            elif not isinstance(what.type, TError):
                self.d.error("E0301", f"only cards and pieces can be moved, not {tshow(what.type)}", s.what.span, hint="move a card or piece, or a set of them, e.g. move c to pile")
            if zinfo is not None:
                for k in kinds:
                    if k is not None and k not in zinfo.kinds:
                        self.d.error("E0301", f"zone '{zname}' does not hold {k}", s.zone.span, hint=f"it holds: {', '.join(zinfo.kinds) or 'nothing'}")
            return ir.Move(s.span, src, what, zname, zindex)
        if isinstance(s, ast.Draw):
            count = self.expect(s.count, scope, INT, "the number of cards to draw") if s.count else ir.Const(INT, s.span, 1)
            sname, sidx, sinfo = self.zone_ref(s.src, scope)
            dname, didx, dinfo = self.zone_ref(s.dst, scope)
            if sinfo is not None and dinfo is not None:
                for k in sinfo.kinds:
                    if k not in dinfo.kinds:
                        self.d.error("E0301", f"zone '{dname}' does not hold {k}, which '{sname}' can hold", s.dst.span, hint=f"add {k} to the declaration of zone '{dname}'")
            if s.bind is not None:
                assert s.bind_span is not None
                if s.count is not None and const_value(count, self.params) != 1:
                    self.d.error("E0405", "'as' names one drawn card; draw one at a time to name each", s.bind_span, hint="write: draw from A to B as c, which draws one")
                kind = sinfo.kinds[0] if sinfo is not None and len(sinfo.kinds) == 1 else None
                self.bind_local(scope, s.bind, TComp(kind), s.bind_span)
            return ir.Draw(s.span, src, count, sname, sidx, dname, didx, s.bind)
        if isinstance(s, ast.Choose):
            options = self.expr(s.options, scope)
            elem = self.set_elem(options, s.options.span, "the options of a choice")
            if not is_choosable(elem):
                self.d.error("E0301", f"players cannot choose among {tshow(elem)} values", s.options.span, hint="choices are among cards, pieces, players, enum values, booleans or ranges of non-negative numbers")
            chooser = self.expect(s.chooser, scope, PLAYER, "who chooses")
            self.bind_local(scope, s.name, elem, s.name_span)
            return ir.Choose(s.span, src, s.name, options, chooser, s.label or s.name, s.secret, elem)
        if isinstance(s, ast.ChooseEach):
            players = self.expect(s.players, scope, TSet(PLAYER), "who chooses")
            inner = Scope(scope)
            self.bind_local(inner, s.pvar, PLAYER, s.pvar_span)
            options = self.expr(s.options, inner)
            elem = self.set_elem(options, s.options.span, "the options of a choice")
            if not is_choosable(elem):
                self.d.error("E0301", f"players cannot choose among {tshow(elem)} values", s.options.span, hint="choices are among cards, pieces, players, enum values, booleans or ranges of non-negative numbers")
            self.bind_local(scope, s.name, TMap(elem), s.name_span)
            return ir.ChooseEach(s.span, src, s.name, s.pvar, players, options, s.label or s.name, s.secret, elem)
        if isinstance(s, ast.If):
            cond = self.expect(s.cond, scope, BOOL, "the condition of an if")
            then = self.block(s.then, scope)
            else_ = self.block(s.else_, scope) if s.else_ is not None else []
            return ir.If(s.span, src, cond, then, else_, _src(s.else_source))
        if isinstance(s, ast.ForEach):
            coll = self.expr(s.coll, scope)
            elem = self.set_elem(coll, s.coll.span, "a for each loop")
            start = None
            if s.start is not None:
                if not isinstance(elem, (TPlayer, TError)):
                    self.d.error("E0301", "'from' gives the first player of a turn order; this loop is not over players", s.start.span, hint="remove 'from …', or loop over players")
                start = self.expect(s.start, scope, PLAYER, "the first player")
            inner = Scope(scope)
            self.bind_local(inner, s.var, elem, s.var_span)
            body = self.block(s.body, inner)
            return ir.ForEach(s.span, src, s.var, coll, start, body)
        if isinstance(s, ast.Repeat):
            count = self.expect(s.count, scope, INT, "the number of repetitions")
            return ir.Repeat(s.span, src, count, self.block(s.body, scope))
        if isinstance(s, ast.RepeatUntil):
            cond = self.expect(s.cond, scope, BOOL, "the condition of repeat until")
            return ir.RepeatUntil(s.span, src, cond, self.block(s.body, scope))
        if isinstance(s, ast.While):
            cond = self.expect(s.cond, scope, BOOL, "the condition of while")
            return ir.While(s.span, src, cond, self.block(s.body, scope))
        if isinstance(s, ast.End):
            winners = self.expect(s.winners, scope, TSet(PLAYER), "the winners")
            return ir.End(s.span, src, winners)
        if isinstance(s, ast.Say):
            return ir.Say(s.span, src, self.interpolate(s, scope))
        if isinstance(s, ast.Shuffle):
            zname, zidx, _ = self.zone_ref(s.zone, scope)
            return ir.Shuffle(s.span, src, zname, zidx)
        if isinstance(s, ast.CallStmt):
            if s.name not in self.proc_sigs:
                if s.name in self.def_decls:
                    self.d.error("E0203", f"'{s.name}' is a definition: it gives a value and cannot be a step", s.name_span, hint="use it inside an expression, e.g. let x = " + s.name + "(…)")
                else:
                    self.d.error(
                        "E0201", f"unknown procedure '{s.name}'", s.name_span,
                        hint=self.suggest(s.name, self.proc_sigs) or f"declare it: procedure {s.name}(…) {{ … }}",
                    )
                for a in s.args:
                    self.expr(a, scope)
                return None
            self.used.add(("proc", s.name))
            formals = self.proc_sigs[s.name]
            args = self.args(s.name, formals, s.args, scope, s.name_span, "procedure")
            return ir.CallProc(s.span, src, s.name, args)
        raise AssertionError(f"unknown statement {type(s).__name__}")  # pragma: no cover

    def check_const_range(self, value: ir.Expr, t: Type, span: Span, name: str) -> None:
        v = const_value(value, self.params)
        if isinstance(t, TInt) and isinstance(v, int) and not isinstance(v, bool):
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                self.d.error("E0304", f"{v} is outside {tshow(t)}, the type of '{name}'", span, hint=f"use a value within {tshow(t)}, or widen the type of '{name}'")

    def interpolate(self, s: ast.Say, scope: Scope) -> list[str | ir.Expr]:
        """Split a say text into literal parts and ``{expression}`` parts."""
        raw = s.raw[1:-1]
        parts: list[str | ir.Expr] = []
        text: list[str] = []
        line, col = s.raw_span.line, s.raw_span.col + 1

        def pos_of(offset: int) -> tuple[int, int]:
            before = raw[:offset]
            if "\n" in before:
                return line + before.count("\n"), offset - before.rfind("\n")
            return line, col + offset

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
                depth, j, in_str = 1, i + 1, False
                while j < len(raw) and depth:
                    c = raw[j]
                    if c == '"' and raw[j - 1] != "\\":
                        in_str = not in_str
                    elif not in_str and c == "{":
                        depth += 1
                    elif not in_str and c == "}":
                        depth -= 1
                    j += 1
                if depth:
                    l0, c0 = pos_of(i)
                    self.d.error("E0102", "this '{' in a say text is never closed", Span.point(l0, c0), hint="write \\{ for a brace in the text")
                    break
                if text:
                    parts.append("".join(text))
                    text = []
                l1, c1 = pos_of(i + 1)
                # inside the braces, \" is a quote mark of a string literal of the expression
                inner = raw[i + 1 : j - 1].replace('\\"', '"')
                e = parse_expr_text(inner, l1, c1, self.d, self.src)
                if e is not None:
                    parts.append(self.expr(e, scope))
                i = j
            elif ch == "}":
                l0, c0 = pos_of(i)
                self.d.error("E0102", "a '}' in a say text without its '{'", Span.point(l0, c0), hint="write \\} for a brace in the text")
                i += 1
            else:
                text.append(ch)
                i += 1
        if text:
            parts.append("".join(text))
        return parts

    def args(self, name: str, formals: list[tuple[str, Type]], args: list[ast.Expr], scope: Scope, span: Span, what: str) -> list[ir.Expr]:
        if len(args) != len(formals):
            self.d.error(
                "E0204", f"{what} '{name}' takes {len(formals)} argument{'s' if len(formals) != 1 else ''}, not {len(args)}", span,
                hint=f"{name}({', '.join(f'{n}: {tshow(t)}' for n, t in formals)})",
            )
            return [self.expr(a, scope) for a in args]
        return [self.expect(a, scope, t, f"argument '{n}' of '{name}'") for a, (n, t) in zip(args, formals)]

    # ---- expressions ------------------------------------------------------------------------

    def expect(self, e: ast.Expr, scope: Scope, t: Type, what: str) -> ir.Expr:
        x = self.expr(e, scope)
        if not fits(t, x.type):
            return self.err("E0301", f"{what} should be {tshow(t)}, but this is {tshow(x.type)}", e.span, hint=type_hint(t, x.type))
        if isinstance(x.type, TAny) or (isinstance(x.type, TSet) and isinstance(x.type.elem, TAny)):
            x.type = t
        return x

    def set_elem(self, x: ir.Expr, span: Span, what: str) -> Type:
        if isinstance(x.type, TError):
            return ERROR
        if not isinstance(x.type, TSet):
            self.d.error("E0301", f"{what} needs a set, but this is {tshow(x.type)}", span, hint="zones, players, ranges like 1..5 and {a, b} are sets")
            return ERROR
        return x.type.elem

    def expr(self, e: ast.Expr, scope: Scope) -> ir.Expr:
        sp = e.span
        if isinstance(e, ast.IntLit):
            return ir.Const(TInt(e.value, e.value), sp, e.value)
        if isinstance(e, ast.StrLit):
            return ir.Const(TEXT, sp, e.value)
        if isinstance(e, ast.BoolLit):
            return ir.Const(BOOL, sp, e.value)
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.Unary):
            if e.op == "not":
                return ir.Unary(BOOL, sp, "not", self.expect(e.operand, scope, BOOL, "the operand of 'not'"))
            x = self.expect(e.operand, scope, INT, "the operand of '-'")
            if isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool):
                return ir.Const(TInt(-x.value, -x.value), sp, -x.value)
            return ir.Unary(INT, sp, "neg", x)
        if isinstance(e, ast.Binary):
            return self.binary(e, scope)
        if isinstance(e, ast.IfExpr):
            c = self.expect(e.cond, scope, BOOL, "the condition")
            a = self.expr(e.then, scope)
            b = self.expr(e.else_, scope)
            joined = join(a.type, b.type)
            if joined is None:
                return self.err("E0301", f"the two branches differ: {tshow(a.type)} and {tshow(b.type)}", sp, hint="both branches must give the same type of value")
            return ir.Cond(joined, sp, c, a, b)
        if isinstance(e, ast.RangeExpr):
            lo = self.expect(e.lo, scope, INT, "the start of a range")
            hi = self.expect(e.hi, scope, INT, "the end of a range")
            lv, hv = const_value(lo, self.params), const_value(hi, self.params)
            if not isinstance(lv, int) or not isinstance(hv, int):
                return self.err(
                    "E0302", "the bounds of a range must be constants", sp,
                    hint="write numbers or parameters, e.g. 1..4; to go over the players, use players",
                )
            if hv - lv >= MAX_RANGE:
                return self.err("E0006", f"the range {lv}..{hv} has {hv - lv + 1:,} values; the limit is {MAX_RANGE:,}", sp, hint="use a comparison instead, e.g. lo <= x and x <= hi")
            return ir.IntRange(TSet(TInt(lv, hv)), sp, lo, hi)
        if isinstance(e, ast.SetLit):
            items = [self.expr(i, scope) for i in e.items]
            t: Type | None = ANY
            for it in items:
                t = join(t, it.type) if t is not None else None
            if t is None:
                return self.err("E0301", "the items of this set have different types", sp, hint="items: " + ", ".join(tshow(i.type) for i in items))
            if isinstance(t, (TSet, TMap, TText)):
                return self.err(
                    "E0301", f"a set cannot hold {tshow(t)} values", sp,
                    hint="to choose among words, declare an enum: enum Answer { yes, no }" if isinstance(t, TText) else None,
                )
            return ir.SetOf(TSet(t), sp, items)
        if isinstance(e, ast.SetComp):
            return self.aggregate("set", e.gen, scope, sp, e.gen.var_span)
        if isinstance(e, ast.CallGen):
            if e.name not in ("any", "all", "count", "sum", "max", "min", "the"):
                return self.err(
                    "E0201", f"'{e.name}' does not take 'for … in …'", e.name_span,
                    hint=self.suggest(e.name, ["any", "all", "count", "sum", "max", "min", "the"]) or "aggregates: any, all, count, sum, max, min, the",
                )
            return self.aggregate(e.name, e.gen, scope, sp, e.name_span)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Attr):
            return self.attr(e, scope)
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.Match):
            return self.match(e, scope)
        raise AssertionError(f"unknown expression {type(e).__name__}")  # pragma: no cover

    def name(self, e: ast.Name, scope: Scope) -> ir.Expr:
        n, sp = e.name, e.span
        local = scope.lookup(n)
        if local is not None:
            return ir.Local(local.type, sp, n)
        if n in self.vars:
            v = self.vars[n]
            if self.in_init:
                return self.err("E0302", "an initial value cannot read another variable", sp, hint="initial values are constants: literals, enum values, sets, ranges and parameters")
            self.used.add(("var", n))
            if v.index is not None:
                return self.err("E0303", f"variable '{n}' is one value per {tshow(v.index)}; say which", sp, hint=f"write {n}[…]")
            return ir.VarRef(v.type, sp, n, None)
        if n in self.params:
            self.used.add(("param", n))
            return ir.ParamRef(self.params[n].type, sp, n)
        if n in self.zones:
            z = self.zones[n]
            self.used.add(("zone", n))
            if z.index is not None:
                return self.err("E0303", f"zone '{n}' is one zone per {tshow(z.index)}; say which", sp, hint=f"write {n}[…]")
            return ir.ZoneRef(TSet(zone_elem(z)), sp, n, None)
        if n in self.def_sigs:
            formals, ret = self.def_sigs[n]
            self.used.add(("def", n))
            if formals:
                return self.err("E0204", f"'{n}' takes {len(formals)} argument{'s' if len(formals) != 1 else ''}", sp, hint=f"write {n}({', '.join(f for f, _ in formals)})")
            return ir.CallDef(ret, sp, n, [])
        if n == "players":
            return ir.Builtin(TSet(PLAYER), sp, "players", [])
        if n == "num_players":
            g = self.game
            return ir.Builtin(TInt(g.min_players, g.max_players) if g else INT, sp, "num_players", [])
        if n == "winners":
            if not self.allow_winners:
                return self.err("E0203", "'winners' is known only at the end of the game", sp, hint="use it in an 'invariant … at end'")
            return ir.Builtin(TSet(PLAYER), sp, "winners", [])
        if n in self.enum_values:
            owners = self.enum_values[n]
            if len(owners) > 1:
                return self.err(
                    "E0203", f"'{n}' is a value of several enums: {', '.join(o for o, _ in owners)}", sp,
                    hint=f"write {owners[0][0]}.{n}",
                )
            enum, idx = owners[0]
            self.used.add(("enum", enum))
            return ir.Const(TEnum(enum), sp, idx)
        if n in self.proc_sigs:
            return self.err("E0203", f"'{n}' is a procedure: it is a step of the game, not a value", sp, hint=f"run it as a step on its own line: {n}(…)")
        if n in self.kinds:
            # a card or piece type stands for the set of all its components
            ids = frozenset(c.cid for c in self.components if c.kind == n)
            return ir.Const(TSet(TComp(n)), sp, ids)
        if n in self.enums:
            self.used.add(("enum", n))
            return ir.Const(TSet(TEnum(n)), sp, frozenset(range(len(self.enums[n].values))))
        return self.err(
            "E0201", f"unknown name '{n}'", sp,
            hint=self.suggest(n, list(scope.all_names()) + self.global_names())
            or "declare it, or bind it with let, choose, for each or draw … as",
        )

    def binary(self, e: ast.Binary, scope: Scope) -> ir.Expr:
        op, sp = e.op, e.span
        if op in ("and", "or"):
            a = self.expect(e.left, scope, BOOL, f"the left side of '{op}'")
            b = self.expect(e.right, scope, BOOL, f"the right side of '{op}'")
            return ir.BinOp(BOOL, sp, op, a, b)
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        if op in ("==", "!="):
            if join(a.type, b.type) is None or isinstance(a.type, TMap):
                return self.err("E0301", f"cannot compare {tshow(a.type)} with {tshow(b.type)}", sp, hint=type_hint(a.type, b.type))
            return ir.BinOp(BOOL, sp, op, a, b)
        if op in ("<", "<=", ">", ">="):
            for x, side in ((a, e.left), (b, e.right)):
                if not fits(INT, x.type):
                    return self.err("E0301", f"'{op}' compares numbers; this is {tshow(x.type)}", side.span, hint="compare other values with == or !=")
            return ir.BinOp(BOOL, sp, op, a, b)
        if op == "in":
            if isinstance(b.type, TError):
                return ir.BinOp(BOOL, sp, op, a, b)
            if not isinstance(b.type, TSet):
                return self.err("E0301", f"'in' needs a set on its right, but this is {tshow(b.type)}", e.right.span, hint="write x in {a, b}, x in 1..5 or x in a zone; for one value, write x == y")
            if not fits(b.type.elem, a.type):
                return self.err("E0301", f"a {tshow(a.type)} is never in a set of {tshow(b.type.elem)}", sp, hint=type_hint(b.type.elem, a.type))
            return ir.BinOp(BOOL, sp, op, a, b)
        if (op in ("+", "-") and isinstance(a.type, TSet)) or isinstance(b.type, TSet):
            if op not in ("+", "-"):
                return self.err("E0301", f"'{op}' does not apply to sets", sp, hint="sets take + (union) and - (difference)")
            t = join(a.type, b.type)
            if t is None or not isinstance(t, TSet):
                return self.err("E0301", f"cannot combine {tshow(a.type)} and {tshow(b.type)}", sp, hint="+ and - combine two sets of the same kind of values")
            return ir.BinOp(t, sp, "union" if op == "+" else "diff", a, b)
        for x, side in ((a, e.left), (b, e.right)):
            if not fits(INT, x.type):
                return self.err("E0301", f"'{op}' works on numbers; this is {tshow(x.type)}", side.span, hint="arithmetic is on numbers; sets take + (union) and - (difference)")
        av, bv = const_value(a, {}), const_value(b, {})
        if isinstance(av, int) and isinstance(bv, int) and not isinstance(av, bool) and not isinstance(bv, bool):
            if op in ("/", "%") and bv == 0:
                return self.err("E0304", "division by zero", sp, hint="divide by a number other than 0")
            v = {"+": av + bv, "-": av - bv, "*": av * bv, "/": av // bv if bv else 0, "%": av % bv if bv else 0}[op]
            return ir.Const(TInt(v, v), sp, v)
        return ir.BinOp(INT, sp, op, a, b)

    def aggregate(self, op: str, g: ast.Generator, scope: Scope, sp: Span, name_span: Span) -> ir.Expr:
        coll = self.expr(g.coll, scope)
        elem_t = self.set_elem(coll, g.coll.span, f"'{op}'" if op != "set" else "a set comprehension")
        inner = Scope(scope)
        self.bind_local(inner, g.var, elem_t, g.var_span)
        elem = self.expr(g.elem, inner)
        filt = self.expect(g.filt, inner, BOOL, "the condition after 'if'") if g.filt is not None else None
        if op in ("any", "all") and not fits(BOOL, elem.type):
            return self.err("E0301", f"'{op}' needs a condition before 'for', but this is {tshow(elem.type)}", g.elem.span, hint=f"e.g. {op}(x.rank > 3 for x in S)")
        if op in ("sum", "max", "min") and not fits(INT, elem.type):
            return self.err("E0301", f"'{op}' needs a number before 'for', but this is {tshow(elem.type)}", g.elem.span, hint=f"e.g. {op}(x.rank for x in S)")
        if op == "set" and isinstance(elem.type, (TSet, TMap, TText)):
            return self.err("E0301", f"a set cannot hold {tshow(elem.type)} values", g.elem.span, hint="sets hold players, components, enum values, numbers or booleans")
        if op == "count" and not (isinstance(g.elem, ast.Name) and g.elem.name == g.var):
            # count(c.rank > 3 for c in S) counts all of S: a trap worth a warning
            self.d.warning(
                "W0604", f"count ignores '{self.src.snippet(g.elem.span)}': it counts the members of the set that pass 'if'", g.elem.span,
                hint=f"write count({g.var} for {g.var} in … if condition)",
            )
        t: Type = {"any": BOOL, "all": BOOL, "count": INT, "sum": INT, "max": INT, "min": INT}.get(op, ERROR)
        if op == "the":
            t = elem.type
        elif op == "set":
            t = TSet(elem.type)
        return ir.Agg(t, sp, op, g.var, coll, elem, filt)

    def call(self, e: ast.Call, scope: Scope) -> ir.Expr:
        n, sp = e.name, e.span
        if n in self.def_sigs and scope.lookup(n) is None:
            self.used.add(("def", n))
            formals, ret = self.def_sigs[n]
            return ir.CallDef(ret, sp, n, self.args(n, formals, e.args, scope, e.name_span, "definition"))
        if n in ("size", "count"):
            if len(e.args) != 1:
                for a in e.args:
                    self.expr(a, scope)
                return self.err("E0204", f"'{n}' takes one set, not {len(e.args)} arguments", e.name_span, hint=f"{n}(S), or {n}(A + B) for the size of a union")
            x = self.expr(e.args[0], scope)
            self.set_elem(x, e.args[0].span, f"'{n}'")
            return ir.Builtin(TInt(0, None), sp, "size", [x])
        if n in ("min", "max") and len(e.args) == 1:
            x = self.expr(e.args[0], scope)
            elem = self.set_elem(x, e.args[0].span, f"'{n}'")
            if not fits(INT, elem):
                return self.err("E0301", f"'{n}' of a set needs a set of numbers, not of {tshow(elem)}", e.args[0].span, hint="min and max of a set need numbers, e.g. max(x.rank for x in S)")
            return ir.Agg(INT, sp, n, "_", x, ir.Local(elem, sp, "_"), None)
        if n in ("min", "max"):
            if len(e.args) != 2:
                return self.err("E0204", f"'{n}' takes two numbers or one set", e.name_span, hint=f"{n}(a, b), {n}(S) or {n}(x.rank for x in S)")
            args = [self.expect(a, scope, INT, f"an argument of '{n}'") for a in e.args]
            return ir.Builtin(INT, sp, n, args)
        builtin_1 = {"next": (PLAYER, PLAYER), "prev": (PLAYER, PLAYER), "seat": (PLAYER, None), "player": (INT, PLAYER), "abs": (INT, INT)}
        if n in builtin_1:
            arg_t, ret_t = builtin_1[n]
            if n == "seat":
                g = self.game
                ret_t = TInt(1, g.max_players if g else MAX_PLAYERS)
            if len(e.args) != 1:
                for a in e.args:
                    self.expr(a, scope)
                return self.err("E0204", f"'{n}' takes one argument, not {len(e.args)}", e.name_span, hint=BUILTIN_USE[n])
            assert ret_t is not None
            return ir.Builtin(ret_t, sp, n, [self.expect(e.args[0], scope, arg_t, f"the argument of '{n}'")])
        if n in ir.BUILTINS_0:
            return self.err("E0204", f"'{n}' takes no arguments", e.name_span, hint=f"write {n} without parentheses")
        if n in ("any", "all", "sum", "the"):
            return self.err("E0405", f"'{n}' is written with 'for … in …'", sp, hint=f"e.g. {n}(x.rank > 3 for x in hand[p])" if n != "the" else "e.g. the(p for p in players if …)")
        for a in e.args:
            self.expr(a, scope)
        if n in self.proc_sigs:
            return self.err("E0203", f"'{n}' is a procedure: it is a step of the game, not a value", e.name_span, hint=f"run it as a step on its own line: {n}(…)")
        return self.err(
            "E0201", f"unknown definition '{n}'", e.name_span,
            hint=self.suggest(n, [*list(self.def_sigs), "size", "count", "min", "max", "next", "prev", "seat", "player", "abs"])
            or f"declare it: define {n}(…) -> type = …",
        )

    def attr(self, e: ast.Attr, scope: Scope) -> ir.Expr:
        if isinstance(e.obj, ast.Name) and e.obj.name in self.enums and scope.lookup(e.obj.name) is None:
            enum = self.enums[e.obj.name]
            self.used.add(("enum", enum.name))
            if e.name not in enum.values:
                return self.err("E0205", f"'{e.name}' is not a value of {enum.name}", e.name_span, hint=self.suggest(e.name, enum.values) or "values: " + ", ".join(enum.values))
            return ir.Const(TEnum(enum.name), e.span, enum.values.index(e.name))
        obj = self.expr(e.obj, scope)
        if isinstance(obj.type, TError):
            return obj
        if not isinstance(obj.type, TComp):
            return self.err("E0205", f"{tshow(obj.type)} has no attribute '{e.name}'", e.name_span, hint="attributes belong to cards and pieces")
        if obj.type.kind is None:
            return self.err("E0205", f"this could be any kind of component, so '{e.name}' is unknown", e.name_span, hint="read attributes from a zone that holds one card or piece type")
        kind = self.kinds[obj.type.kind]
        if e.name not in kind.attrs:
            return self.err("E0205", f"'{kind.name}' has no attribute '{e.name}'", e.name_span, hint=self.suggest(e.name, kind.attrs) or "attributes: " + ", ".join(kind.attrs))
        return ir.AttrRef(kind.attrs[e.name], e.span, obj, kind.name, e.name)

    def index(self, e: ast.Index, scope: Scope) -> ir.Expr:
        if isinstance(e.obj, ast.Name):
            n = e.obj.name
            local = scope.lookup(n)
            if local is not None:
                if isinstance(local.type, TMap):
                    idx = self.expect(e.index, scope, PLAYER, f"the index of '{n}'")
                    return ir.MapGet(local.type.elem, e.span, ir.Local(local.type, e.obj.span, n), idx)
                return self.err("E0303", f"'{n}' is a single value; it takes no index", e.index.span, hint=f"write {n} without […]")
            if n in self.vars:
                v = self.vars[n]
                if self.in_init:
                    return self.err("E0302", "an initial value cannot read another variable", e.span, hint="initial values are constants: literals, enum values, sets, ranges and parameters")
                self.used.add(("var", n))
                if v.index is None:
                    return self.err("E0303", f"variable '{n}' takes no index", e.index.span, hint=f"write {n} without […]")
                idx = self.expect(e.index, scope, v.index, f"the index of '{n}'")
                return ir.VarRef(v.type, e.span, n, idx)
            if n in self.zones:
                z = self.zones[n]
                self.used.add(("zone", n))
                if z.index is None:
                    return self.err("E0303", f"zone '{n}' is a single zone; it takes no index", e.index.span, hint=f"write {n} without […]")
                idx = self.expect(e.index, scope, z.index, f"the index of '{n}'")
                return ir.ZoneRef(TSet(zone_elem(z)), e.span, n, idx)
            if n in self.def_sigs:
                return self.err("E0303", f"'{n}' is a definition: call it as {n}(…)", e.span, hint=f"write {n}(…)")
            return self.err(
                "E0201", f"unknown name '{n}'", e.obj.span,
                hint=self.suggest(n, list(self.vars) + list(self.zones) + list(scope.all_names())) or "only variables, zones and choices take an index",
            )
        self.expr(e.obj, scope)
        return self.err("E0303", "only variables, zones and per-player choices take an index", e.span, hint="index a variable or zone declared with […], e.g. hand[p]")

    def match(self, e: ast.Match, scope: Scope) -> ir.Expr:
        subj = self.expr(e.subject, scope)
        st = subj.type
        if not isinstance(st, (TInt, TEnum, TError)):
            return self.err("E0301", f"match works on numbers and enum values, not {tshow(st)}", e.subject.span, hint="match on a number or an enum value")
        arms: list[tuple[ir.Expr | None, ir.Expr]] = []
        covered: set[int] = set()
        result_t: Type | None = None
        has_else = False
        for i, arm in enumerate(e.arms):
            conds: list[ir.Expr] = []
            for p in arm.patterns:
                if p.kind == "name":
                    if not isinstance(st, TEnum):
                        self.d.error("E0301", f"'{p.value}' is a name, but the value matched is {tshow(st)}", p.span, hint="match numbers with patterns such as 1, 2 | 3 or 4..6")
                        continue
                    idx = self.enum_index(st.name, str(p.value), p.span)
                    if idx in covered:
                        self.d.warning("W0601", f"'{p.value}' is already matched by an earlier arm", p.span, hint="remove it from this arm")
                    covered.add(idx)
                    conds.append(ir.BinOp(BOOL, p.span, "==", subj, ir.Const(st, p.span, idx)))
                elif p.kind == "int":
                    if not isinstance(st, TInt):
                        self.d.error("E0301", f"{p.value} is a number, but the value matched is {tshow(st)}", p.span, hint=f"match {tshow(st)} values by name")
                        continue
                    conds.append(ir.BinOp(BOOL, p.span, "==", subj, ir.Const(TInt(int(p.value), int(p.value)), p.span, p.value)))
                else:
                    if not isinstance(st, TInt):
                        self.d.error("E0301", "a range pattern needs a number", p.span, hint=f"match {tshow(st)} values by name")
                        continue
                    lo, hi = int(p.value), int(p.hi or 0)
                    if hi - lo >= MAX_RANGE or lo > hi:
                        what = "is empty" if lo > hi else f"has {hi - lo + 1:,} values; the limit is {MAX_RANGE:,}"
                        self.d.error("E0006" if lo <= hi else "E0405", f"the pattern {lo}..{hi} {what}", p.span, hint="write the smaller bound first, within the limit; or use an else arm")
                        continue
                    rng = ir.IntRange(TSet(TInt(lo, hi)), p.span, ir.Const(TInt(lo, lo), p.span, lo), ir.Const(TInt(hi, hi), p.span, hi))
                    conds.append(ir.BinOp(BOOL, p.span, "in", subj, rng))
            value = self.expr(arm.value, scope)
            result_t = value.type if result_t is None else join(result_t, value.type)
            if result_t is None:
                self.d.error("E0301", f"this arm gives {tshow(value.type)}, unlike the arms before it", arm.value.span, hint="every arm must give the same type of value")
                result_t = ERROR
            if not arm.patterns:
                has_else = True
                arms.append((None, value))
                if i + 1 < len(e.arms):
                    self.d.warning(
                        "W0601", "this arm comes after 'else' and is never used", e.arms[i + 1].span,
                        hint="move the 'else' arm to the end",
                    )
                break
            # every pattern of the arm may have had an error: then it matches nothing
            arm_cond: ir.Expr = conds[0] if conds else ir.Const(BOOL, arm.span, False)
            for c in conds[1:]:
                arm_cond = ir.BinOp(BOOL, c.span, "or", arm_cond, c)
            arms.append((arm_cond, value))
        t = result_t or ERROR
        exhaustive = isinstance(st, TEnum) and len(covered) == len(self.enums[st.name].values)
        if has_else:
            out: ir.Expr = arms[-1][1]
            rest = arms[:-1]
        elif exhaustive and arms:
            out = arms[-1][1]
            rest = arms[:-1]
        else:
            out = ir.Fail(t, e.span, "incomplete", "no arm of this match covers the value")
            rest = arms
        for cond, value in reversed(rest):
            assert cond is not None or isinstance(t, TError)
            out = ir.Cond(t, value.span, cond or ir.Const(BOOL, value.span, True), value, out)
        return out


# ---- helpers used by several passes -------------------------------------------------------------


def _listing(what: str, names: Iterable[str]) -> str:
    shown = sorted(names)
    if not shown:
        return f"no {what} are declared"
    return f"{what}: " + ", ".join(shown[:12]) + (", …" if len(shown) > 12 else "")


def tshow(t: Type) -> str:
    """A type as messages show it: the type of a number literal is a one-value range, but reads
    better as plain 'int'."""
    if isinstance(t, TInt) and t.lo is not None and t.lo == t.hi:
        return "int"
    if isinstance(t, TSet):
        return f"set of {tshow(t.elem)}"
    if isinstance(t, TMap):
        return f"{tshow(t.elem)} per player"
    return t.show()


def ir_range(lo: int, hi: int) -> TInt:
    return TInt(lo, hi)


def zone_elem(z: ir.ZoneInfo) -> Type:
    return TComp(z.kinds[0]) if len(z.kinds) == 1 else TComp(None)


def type_hint(expected: Type, actual: Type) -> str:
    """How to turn a value of type ``actual`` into the ``expected`` one, or what to write instead."""
    if isinstance(expected, TSet) and fits(expected.elem, actual):
        return "put it in braces to make a set: {…}"
    if isinstance(actual, TSet) and fits(expected, actual.elem):
        return "this is a set; pick one element, e.g. with the(x for x in … if …)"
    if isinstance(actual, TSet) and isinstance(expected, TInt):
        return "size(S) counts the members of a set"
    if isinstance(expected, TBool) and isinstance(actual, TInt):
        return "compare it, e.g. … > 0"
    if isinstance(expected, TPlayer) and isinstance(actual, TInt):
        return "player(n) is the player in seat n"
    if isinstance(expected, TInt) and isinstance(actual, TPlayer):
        return "seat(p) is the seat number of a player"
    if {type(expected), type(actual)} == {TEnum, TInt}:
        return "enum values are written by name, e.g. x == hearts, and are not numbers"
    if isinstance(expected, TText) or isinstance(actual, TText):
        return "texts only label things; compare enum values or numbers instead"
    return f"a value of type {tshow(expected)} is needed here (the types are listed in docs/language.md)"


def const_value(x: ir.Expr, params: dict[str, ir.ParamInfo]) -> ir.Value | None:
    """The value of a constant expression, or None if it depends on the state of a game."""
    if isinstance(x, ir.Const):
        return x.value
    if isinstance(x, ir.ParamRef) and x.name in params:
        return params[x.name].value
    if isinstance(x, ir.Unary) and x.op == "neg":
        v = const_value(x.operand, params)
        return -v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(x, ir.SetOf):
        vals = [const_value(i, params) for i in x.items]
        if any(v is None for v in vals):
            return None
        return frozenset(vals)  # type: ignore[arg-type]
    if isinstance(x, ir.IntRange):
        lo, hi = const_value(x.lo, params), const_value(x.hi, params)
        if isinstance(lo, int) and isinstance(hi, int):
            return frozenset(range(lo, hi + 1))
    return None


def check_ruleset(src: SourceFile, tree: ast.Ruleset, diags: Diagnostics) -> ir.Ruleset | None:
    return Checker(src, diags).check(tree)

