"""Names and declarations (``Names``): the game declaration, enums, card and piece types, zones,
parameters and variables, the one namespace they share, local names, enum values by name, and
the warnings for declarations never used.
"""

from __future__ import annotations

from .. import ast, ir
from ..source import Span
from ..types import ERROR, TBool, TComp, TEnum, TError, TInt, TPlace, TPlayer, TSet, Type
from .base import MAX_PLAYERS, LocalInfo, Scope, _listing, _src
from .types import Types, tshow


class Names(Types):
    """Declarations and the names they bring: the game, enums, card and piece types, zones,
    parameters and variables; one namespace for all of them and local names that may not hide
    them; enum values; and the declarations never used."""

    # ---- names -------------------------------------------------------------------------------------

    def global_names(self) -> list[str]:
        return (
            list(self.enums) + list(self.kinds) + list(self.zones) + list(self.vars) + list(self.params)
            + list(self.def_decls) + list(self.proc_decls) + list(self.enum_values)
            + list(ir.BUILTINS_0) + list(ir.BUILTINS_1) + list(ir.BUILTINS_2)
        )

    def declare(self, name: str, span: Span, what: str) -> bool:
        if name in self.decl_spans:
            prev = self.decl_spans[name]
            d = self.d.error("E0202", f"'{name}' is declared twice", span, hint=f"the first declaration is at line {prev.line}")
            d.notes.append(f"names of {what}s share one namespace with every other declaration")
            return False
        self.decl_spans[name] = span
        return True

    def bind_local(self, scope: Scope, name: str, t: Type, span: Span, mutable: bool = False) -> None:
        if scope.lookup(name) is not None:
            self.d.error("E0202", f"'{name}' is already a local name here", span, hint="choose another name")
            return
        if name in self.decl_spans or name in self.enum_values:
            self.d.error("E0202", f"'{name}' would hide the declaration of the same name", span, hint="choose another name")
            return
        scope.names[name] = LocalInfo(t, mutable, span)

    def enum_index(self, enum: str, name: str, span: Span) -> int:
        values = self.enums[enum].values
        if name not in values:
            self.d.error("E0201", f"'{name}' is not a value of {enum}", span, hint=self.suggest(name, values) or "values: " + ", ".join(values))
            return 0
        self.used.add(("enum", enum))
        return values.index(name)

    # ---- declarations ------------------------------------------------------------------------------

    def check_game(self, g: ast.Game) -> ir.GameInfo:
        lo, hi = g.players if g.players else (0, 0)
        if g.players is None:
            self.d.error("E0401", "the game declaration does not say how many play", g.span, hint="add: players 2..4")
            lo, hi = 2, 2
        elif not (1 <= lo <= hi <= MAX_PLAYERS):
            self.d.error("E0405", f"players {lo}..{hi} is not a range of player counts from 1 to {MAX_PLAYERS}", g.players_span or g.span, hint="write the fewest and the most players, e.g. players 2..4 (at most 16)")
            lo, hi = max(1, min(lo, MAX_PLAYERS)), max(1, min(hi, MAX_PLAYERS))
            lo, hi = min(lo, hi), max(lo, hi)
        returns = g.returns
        if returns not in ir.RETURNS:
            self.d.error("E0405", f"'returns {returns}' is not a way to end a game", g.returns_span or g.span,
                         hint="write returns winners (1 for a winner, 0 otherwise), returns win_loss (1, -1, 0 in a draw) or returns score")
            returns = "winners"
        return ir.GameInfo(
            g.title, g.edition, g.language or "en", g.original, lo, hi, g.order, [s for s in (_src(s) for s in g.sources) if s], returns,
            g.players_assumed, g.turn,
        )

    def collect_enum(self, e: ast.EnumDecl) -> None:
        if not self.declare(e.name, e.span, "enum"):
            return
        names: list[str] = []
        labels: list[str] = []
        seen: set[str] = set()  # (a list lookup per value made a large enum quadratic)
        for v in e.values:
            if v.name in seen:
                self.d.error("E0202", f"enum '{e.name}' lists '{v.name}' twice", v.span, hint=f"remove the second '{v.name}'")
                continue
            seen.add(v.name)
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
            if isinstance(t, (TComp, TPlayer, TPlace)) or (isinstance(t, TSet) and isinstance(t.elem, (TComp, TPlayer, TPlace))):
                self.d.error("E0301", f"attribute '{a.name}' cannot be of type {tshow(t)}", a.type.span, hint="attributes are numbers, booleans, texts, enum values or sets of enum values")
                t = ERROR
            kind.attrs[a.name] = t
            kind.attr_sources[a.name] = _src(a.source)
        self.displays[k.name] = k.display_parts
        for part in k.display_parts:
            if isinstance(part, tuple) and part[0] not in kind.attrs:
                self.d.error(
                    "E0205", f"the display text of '{k.name}' names no attribute '{part[0]}'", part[1],
                    hint=self.suggest(part[0], kind.attrs) or "write attribute names in braces, e.g. \"Person {rank}\", and \\{ \\} for braces",
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
        if "owner" in (z.visibility, z.vis_if and z.vis_if.otherwise) and not isinstance(index, TPlayer):
            self.d.error("E0405", f"zone '{z.name}' is visible to its owner, but it is not indexed by player", z.span, hint=f"declare it as zone {z.name}[player]: ...")
        self.zones[z.name] = ir.ZoneInfo(z.name, index, kinds, z.visibility, z.desc, _src(z.source), z.span)

    def bool_param(self, name: str, span: Span, what: str) -> str | None:
        """The bool parameter a visibility or a secret decision depends on (None: a diagnostic)."""
        p = self.params.get(name)
        if p is None:
            self.d.error("E0201", f"unknown parameter '{name}' in {what}", span, hint=self.suggest(name, self.params) or f"declare it: param {name}: bool = false")
            return None
        self.used.add(("param", name))
        if not isinstance(p.type, (TBool, TError)):
            self.d.error("E0301", f"{what} depends on '{name}', a parameter of type {tshow(p.type)}, not bool", span, hint="visibility and secrecy can depend on a bool parameter only")
            return None
        return name

    def check_visibility_params(self, items: list[ast.Decl]) -> None:
        """`V when P else W` of zones and variables, once the parameters are known."""
        for i in items:
            if isinstance(i, (ast.ZoneDecl, ast.VarDecl)) and i.vis_if is not None:
                info = self.zones.get(i.name) if isinstance(i, ast.ZoneDecl) else self.vars.get(i.name)
                if info is None or info.span != i.span:
                    continue
                if i.visibility == i.vis_if.otherwise:
                    self.d.warning("W0601", f"'{i.name}' is {i.visibility} whatever '{i.vis_if.param}' is", i.vis_if.param_span, hint=f"write just {i.visibility}")
                what = f"the visibility of '{i.name}'"
                if self.bool_param(i.vis_if.param, i.vis_if.param_span, what) is not None:
                    info.vis_if = (i.vis_if.param, i.vis_if.otherwise)

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
        if "owner" in (v.visibility, v.vis_if and v.vis_if.otherwise) and not isinstance(index, TPlayer):
            self.d.error("E0405", f"variable '{v.name}' is visible to its owner, but it is not indexed by player", v.span, hint=f"declare it as var {v.name}[player]: … owner")
        if v.score and not (isinstance(index, TPlayer) and isinstance(t, TInt)):
            self.d.error("E0405", f"score variable '{v.name}' must be a number per player", v.span, hint=f"declare it as var {v.name}[player]: int = 0 score")
        self.vars[v.name] = ir.VarInfo(v.name, index, t, False, v.score, v.visibility, v.desc, _src(v.source), v.span)

    def check_var_init(self, v: ast.VarDecl) -> None:
        info = self.vars[v.name]
        self.in_init = True
        info.init = self.const(v.init, info.type, f"the initial value of '{v.name}'")
        self.in_init = False

    # ---- unused declarations -----------------------------------------------------------------------

    def check_unused(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity], invs: list[ir.Invariant]) -> None:
        for name, dd in defs.items():
            if ("def", name) not in self.used:
                self.d.warning("W0601", f"definition '{name}' is never used", dd.span, hint="remove it, or use it in a rule")
        for name, pp in procs.items():
            if ("proc", name) not in self.used:
                self.d.warning("W0601", f"procedure '{name}' is never called", pp.span, hint="call it from the flow or from another procedure, or remove it")
        for name, v in self.vars.items():
            if ("var", name) not in self.used:
                what = "record" if name in self.record_decls else "variable"
                self.d.warning("W0601", f"{what} '{name}' is never read", v.span, hint="read it in a rule, or remove it")
        for name, p in self.params.items():
            if ("param", name) not in self.used:
                self.d.warning("W0601", f"parameter '{name}' is never read", p.span, hint="read it in a rule, or remove it")
        for name, z in self.zones.items():
            if ("zone", name) not in self.used:
                self.d.warning("W0601", f"zone '{name}' is never used", z.span, hint="use it in a rule, or remove it")
        del ambs, invs
