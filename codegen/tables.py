"""Definitions and tables: which definitions the flow calls and how each is spelled (a table of
values computed when the engine is generated, a remembered value, inlined, or a call), the
module-level constants, tables of values of pure tests, bounds of numbers known from the IR, and
the groups of remembered values with the code that forgets them (``Tables``).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlayer, TSet, Type
from rulecheck.dsl.walk import walk_exprs, walk_stmts
from rulecheck.interpreter.machine import Machine

from .analysis import free_locals
from .base import CompilerBase
from .layout import GenerationError, Loc, rep_of
from .literals import pyrepr
from .patterns import const_numbers

#: Definitions with arguments and a body this small (IR nodes) are inlined.
INLINE_NODES = 24
#: Values of pure definitions and tests are tabulated when there are at most this many to compute.
TABLE_CELLS = 4096
#: the most members a set may have to index a table (its masks are the table's positions)
SET_AXIS_BITS = 11


class Tables(CompilerBase):
    """Which definitions are tables, remembered, inlined or called; constants of the module; values
    computed when the engine is generated; bounds of numbers; forgetting remembered values."""

    def __init__(self, program: ir.Program) -> None:
        super().__init__(program)
        self.consts: dict[str, str] = {}
        self.attr_tables: dict[tuple[str, str], str] = {}
        self.unspecified: list[tuple[str, str]] = []
        for k in self.rules.kinds.values():
            for a in k.attrs:
                prov = k.provenance.get(a)
                if prov is not None and prov.kind == "unspecified":
                    self.unspecified.append((k.name, a))
        self._bounding: set[int] = set()
        self.used_defs = self.reachable_defs()
        self._machine: _Pinned | None = None
        self.tables: dict[object, str | None] = {}
        self.bodies: dict[str, ir.Expr | None] = {n: self.lowered(self.program.defs[n]) for n in self.used_defs}
        # definitions whose value depends on their arguments only: a constant, or a table
        self.def_tables: dict[str, str] = {}
        for name in self.used_defs:
            table = self.def_table(name)
            if table is not None:
                self.def_tables[name] = table
        # definitions whose value depends on their arguments and variables of few values only:
        # a table indexed by those variables too
        self.var_tables: dict[str, tuple[str, list[str]]] = {}
        for name in self.used_defs:
            if name not in self.def_tables and (got := self.def_var_table(name)) is not None:
                self.var_tables[name] = got
        self.used_defs = [n for n in self.used_defs if n not in self.def_tables and n not in self.var_tables]
        self.cached = {n for n in self.used_defs if not self.program.defs[n].formals}
        # remembered values live in one dict per set of zones and variables read, so a change
        # forgets only the values that read what changed
        self.groups: list[frozenset[str]] = []
        self.cache_slot: dict[str, tuple[int, int]] = {}
        for name in self.used_defs:
            if name in self.cached:
                sig = frozenset(self.analysis.def_reads(name))
                if sig not in self.groups:
                    self.groups.append(sig)
                self.cache_slot[name] = (self.groups.index(sig), self.used_defs.index(name))
        self.inlined = {n for n in self.used_defs if self.inlinable(self.program.defs[n])}
        self.called = [n for n in self.used_defs if n not in self.inlined]
        # definitions whose value depends on their arguments only, which have no finite domain
        # to tabulate: values are remembered for the arguments they are asked for, in a dict
        self.memos: dict[str, str] = {}
        for name in self.called:
            if self.program.defs[name].formals and self.analysis.def_pure(name):
                self.memos[name] = f"_M{len(self.memos)}"

    # ---- definitions: their bodies, and which are spelled how --------------------------------------

    def reachable_defs(self) -> list[str]:
        """Definitions the flow can call, in declaration order (invariants are not compiled)."""
        seen: set[str] = set()
        todo: list[object] = [self.rules.flow]
        for t in self.rules.targets:  # what a player wants to know: the engine can say it (target_value)
            seen.add(t.part(t.name))
            todo.append(t.expr)
        procs_seen: set[str] = set()
        while todo:
            node = todo.pop()
            if isinstance(node, list) and all(isinstance(s, ir.Stmt) for s in node):
                for s in walk_stmts(node):
                    if isinstance(s, ir.CallProc) and s.name not in procs_seen:
                        procs_seen.add(s.name)
                        todo.append(self.proc(s.name).body)
            for e in walk_exprs(node):
                if isinstance(e, ir.CallDef) and e.name not in seen:
                    seen.add(e.name)
                    d = self.program.defs[e.name]
                    todo.extend(x for x in (d.body, d.otherwise) if x is not None)
                    for c in d.cases or []:
                        todo.extend([c.guard, c.value])
        return [n for n in self.program.defs if n in seen]

    def lowered(self, d: ir.Definition) -> ir.Expr | None:
        """The body of a definition; for one of cases, an equivalent conditional when at most one
        case can apply (of every two cases, one overrides the other), no guard can fail (so not
        every guard need be evaluated) and a case that always applies or ``otherwise`` ends it."""
        if d.body is not None or not d.cases:
            return d.body
        cases = d.cases
        for i, a in enumerate(cases):
            for b in cases[i + 1:]:
                if (b.name in a.overrides) == (a.name in b.overrides):
                    return None
        if any(self.analysis.can_raise(c.guard) for c in cases):
            return None
        # a case comes before every case it overrides
        order = sorted(cases, key=lambda c: -sum(o.name in c.overrides for o in cases))
        if any(b.name not in a.overrides for i, a in enumerate(order) for b in order[i + 1:]):
            return None
        last = order[-1]
        if isinstance(last.guard, ir.Const) and last.guard.value is True:
            out, order = last.value, order[:-1]
        elif d.otherwise is not None:
            out = d.otherwise
        else:
            return None
        for c in reversed(order):
            out = ir.Cond(d.ret, c.span, c.guard, c.value, out)
        return out

    def inlinable(self, d: ir.Definition) -> bool:
        """Small definitions with arguments are spelled in place instead of called."""
        body = self.bodies[d.name]
        if body is None or not d.formals:
            return False
        return len(list(walk_exprs(body))) <= INLINE_NODES

    def needs_call_site(self, d: ir.Definition) -> bool:
        """Definitions that can fail with 'no case applies' report the position of the call."""
        return self.bodies[d.name] is None and d.cases is not None and d.otherwise is None

    # ---- remembered values: forgetting them when what they read changes ----------------------------

    @property
    def remembers(self) -> bool:
        """Does some statement reveal components? Then states keep what each player remembers
        (S.m, a mask per seat) and every move forgets the components it moves."""
        got = getattr(self, "_remembers", None)
        if got is None:
            bodies = [self.program.rules.flow, *(p.body for p in self.program.procs.values() if p.body)]
            got = any(isinstance(x, ir.Reveal) for b in bodies for x in walk_stmts(b))
            self._remembers = got
        return got

    def forget(self, moved: str) -> None:
        """The components of mask ``moved`` have moved: nobody remembers where they are."""
        if self.remembers:
            self.emit(f"_forget(S.m, {moved})")

    def changed(self, touched: set[str]) -> None:
        """Zones or variables changed: forget the remembered values that read them."""
        for g, sig in enumerate(self.groups):
            if sig & touched:
                self.emit(f"if C[{g}]:")
                self.emit(f"    C[{g}].clear()")

    def source_changed(self, old: str, moved: Type) -> None:
        """A component left zone instance ``old`` (known only at run time)."""
        if any(sig & self.analysis.moved_through(moved) for sig in self.groups):
            g = self.fn.fresh("g")
            self.emit(f"for {g} in _STALE[{old}]:")
            self.emit(f"    if C[{g}]:")
            self.emit(f"        C[{g}].clear()")

    def stale_table(self) -> list[tuple[int, ...]]:
        """For every zone instance, the cache groups that read its zone."""
        out: list[tuple[int, ...]] = [()] * self.layout.nzones
        for z in self.rules.zones.values():
            groups = tuple(g for g, sig in enumerate(self.groups) if "zone:" + z.name in sig)
            base = self.layout.zone_base[z.name]
            for k in range(self.layout.size(z.index)):
                out[base + k] = groups
        return out

    # ---- module-level constants --------------------------------------------------------------------

    def const(self, literal: str) -> str:
        name = self.consts.get(literal)
        if name is None:
            name = f"_K{len(self.consts)}"
            self.consts[literal] = name
        return name

    def set_literal(self, values: frozenset[object], rep: str) -> str:
        if rep == "mask":
            return str(sum(1 << int(v) for v in values))  # type: ignore[call-overload]
        if not values:
            return "_EMPTY"
        return self.const(pyrepr(values))

    def value_literal(self, value: ir.Value, t: Type) -> str:
        """A constant of type ``t`` in its representation."""
        rep = rep_of(t)
        if isinstance(value, frozenset):
            return self.set_literal(value, rep or "mask")
        return pyrepr(value)

    def attr_table(self, kind: str, attr: str) -> str:
        """The expression of the table of one attribute, indexed by component id."""
        if (kind, attr) in self.unspecified:
            return f"S.g.U[{self.unspecified.index((kind, attr))}]"
        name = self.attr_tables.get((kind, attr))
        if name is None:
            t = self.rules.kinds[kind].attrs[attr]
            cells = [self.value_literal(c.attrs[attr], t) if c.kind == kind else "None" for c in self.rules.components]
            name = self.const("(" + ", ".join(cells) + ("," if len(cells) == 1 else "") + ")")
            self.attr_tables[(kind, attr)] = name
        return name

    # ---- values computed now: tables indexed by finite values --------------------------------------

    def machine(self) -> _Pinned:
        """The interpreter, to compute values that depend on no state."""
        if self._machine is None:
            self._machine = _Pinned(self.program, self.rules.game.max_players)
        return self._machine

    def domain(self, t: Type) -> tuple[int, list[object]] | None:
        """For a type whose values index a table: the table's size and the values."""
        if isinstance(t, TComp):
            ids = self.layout.kind_ids.get(t.kind or "", list(range(self.layout.ncomp)))
            return self.layout.ncomp, list(ids)
        if isinstance(t, TEnum):
            k = len(self.rules.enums[t.name].values)
            return k, list(range(k))
        if isinstance(t, TBool):
            return 2, [False, True]
        if isinstance(t, TPlayer):
            return self.layout.maxp, list(range(self.layout.maxp))
        if isinstance(t, TSet) and rep_of(t) == "mask":
            # a set held as a mask of few bits: indexed by the mask (``best(s: set of 1..10)``)
            elems = self.domain(t.elem) if not isinstance(t.elem, TInt) else (
                (t.elem.hi + 1, list(range(t.elem.lo, t.elem.hi + 1))) if t.elem.lo is not None and t.elem.hi is not None
                and 0 <= t.elem.lo <= t.elem.hi < SET_AXIS_BITS else None)
            if elems is None or elems[0] > SET_AXIS_BITS:
                return None
            members = [int(v) for v in elems[1]]  # type: ignore[call-overload]
            return 1 << elems[0], [frozenset(m for k, m in enumerate(members) if i >> k & 1) for i in range(1 << len(members))]
        return None

    def table(self, key: object, axes: list[Type | tuple[int, list[object]] | None], cell: Callable[[list[object]], str], work: int = 1) -> str | None:
        """A constant: nested tuples indexed by values of the axes (types, or a table size and
        the values), ``cell`` giving the literal for each combination (None when a cell fails
        or there are too many)."""
        if key in self.tables:
            return self.tables[key]
        doms = [self.domain(t) if isinstance(t, Type) else t for t in axes]
        total = work
        for dom in doms:
            total *= dom[1].__len__() if dom is not None else TABLE_CELLS + 1
        name = None
        if total <= TABLE_CELLS and all(dom is not None for dom in doms):

            def build(k: int, prefix: list[object]) -> str:
                if k == len(doms):
                    return cell(prefix)
                size, values = doms[k]  # type: ignore[misc]
                at_index = {index_of(v): v for v in values}
                parts = [build(k + 1, [*prefix, at_index[i]]) if i in at_index else "None" for i in range(size)]
                return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

            try:
                literal = build(0, [])
            except Exception:  # a value fails (or the interpreter cannot say): no table
                literal = None
            if literal is not None:
                name = literal if not axes else self.const(literal)
        self.tables[key] = name
        return name

    def loc_domain(self, loc: Loc) -> tuple[int, list[object]] | None:
        """The values a local can take, as a table axis (None: too many, or not known)."""
        if loc.bounds is not None:
            lo, hi = loc.bounds
            return (hi + 1, list(range(lo, hi + 1))) if 0 <= lo <= hi < 1024 else None
        return self.domain(loc.type)

    def def_table(self, name: str) -> str | None:
        """A definition whose value depends on its arguments only: its values, computed now."""
        d = self.program.defs[name]
        if not self.analysis.def_pure(name) or (d.formals and self.analysis.def_cost(name) <= 3):
            return None  # (a single attribute is already a table)
        m = self.machine()
        return self.table(("def", name), [t for _, t in d.formals], lambda args: self.value_literal(m.call(name, list(args), d.span), d.ret))

    def def_var_table(self, name: str) -> tuple[str, list[str]] | None:
        """A definition whose value depends on its arguments and on variables without an index
        whose values are few (booleans, enum values, small numbers): its values for every value
        of those variables and arguments, computed now, and the variables (the table's first
        axes, in this order)."""
        d = self.program.defs[name]
        if self.analysis.def_pure(name) or not self.analysis.def_pure(name, unindexed_vars=True):
            return None
        if d.formals and self.analysis.def_cost(name) <= 3:
            return None  # (as cheap as a table)
        read = sorted(r.removeprefix("var:") for r in self.analysis.def_reads(name))
        axes: list[Type | tuple[int, list[object]] | None] = [self.var_domain(self.rules.vars[v].type) for v in read]
        if not read or any(a is None for a in axes):
            return None
        m = self.machine()

        def cell(values: list[object]) -> str:
            saved = {v: m.vars[v] for v in read}
            try:
                m.vars.update(zip(read, values))
                return self.value_literal(m.call(name, values[len(read):], d.span), d.ret)
            finally:
                m.vars.update(saved)

        table = self.table(("vars", name), [*axes, *(t for _, t in d.formals)], cell)
        return None if table is None else (table, read)

    def var_domain(self, t: Type) -> tuple[int, list[object]] | None:
        """The values a variable of this type can hold, as a table axis (None: too many)."""
        if isinstance(t, (TBool, TEnum)):
            return self.domain(t)
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None and 0 <= t.lo <= t.hi < 1024:
            return t.hi + 1, list(range(t.lo, t.hi + 1))
        return None

    def var_table_code(self, name: str, values: str = "V") -> str:
        """The table of a definition of ``var_tables`` indexed by its variables' values now
        (``values``: the state's list of variables, spelled in the flow's functions or not)."""
        table, read = self.var_tables[name]
        if values == "V":
            self.uses("V")
        return table + "".join(f"[{values}[{self.layout.var_base[v]}]]" for v in read)

    def pure_mask(self, var: str, var_t: Type, tests: list[tuple[ir.Expr, bool]], atoms: tuple[ir.Expr, ...] = ()) -> str | None:
        """The mask of the values of ``var`` for which the tests come out as flagged (evaluated
        in order, stopping at the first that does not), when that depends on no state but the
        values of ``atoms`` (parts of the tests that take few values: atom_domain): a constant,
        or a table indexed by the other locals the tests read and by the atoms' values."""
        pins = frozenset(id(a) for a in atoms)
        if not all(self.analysis.pure(e, pinned=pins) for e, _ in tests):
            return None
        dom = self.domain(var_t)
        if dom is None:
            return None
        # (the locals the atoms read are spelled in the atoms' code: no axes of their own; one
        # the tests also read outside an atom is then missing where a cell is computed, so the
        # cell fails and there is no table: sound, and rare)
        free = sorted(set().union(*(free_locals(e) for e, _ in tests)) - {var} - set().union(*(free_locals(a) for a in atoms)))
        locs = [self.scope.get(f) for f in free]
        m = self.machine()

        def cell(values: list[object]) -> str:
            env: ChainMap[str, object] = ChainMap(dict(zip(free, values)))
            m.pins = {id(a): v for a, v in zip(atoms, values[len(free):])}
            bits = 0
            try:
                for x in dom[1]:
                    env[var] = x
                    if all(bool(m.ev(e, env)) == flag for e, flag in tests):
                        bits |= 1 << index_of(x)
            finally:
                m.pins = {}
            return str(bits)

        key = ("mask", var, tuple((id(e), flag) for e, flag in tests), tuple((loc.type.show(), loc.bounds) for loc in locs),
               tuple(id(a) for a in atoms))
        table = self.table(key, [*(self.loc_domain(loc) for loc in locs), *(self.atom_domain(a) for a in atoms)], cell, work=len(dom[1]))
        if table is None:
            return None
        return table + "".join(f"[{loc.code}]" for loc in locs) + "".join(f"[{self.ex(a)}]" for a in atoms)

    def atom_domain(self, e: ir.Expr) -> tuple[int, list[object]] | None:
        """The values a part of a test that reads the state can take, when they are few: a yes or
        no, an enum value, a variable of few values (var_domain)."""
        if isinstance(e.type, (TBool, TEnum)):
            return self.domain(e.type)
        if isinstance(e, ir.VarRef):
            return self.var_domain(self.rules.vars[e.name].type)
        return None

    def tester(self, test: ir.Expr, name: str) -> Callable[[list[object]], str]:
        """A table cell: the truth of ``test`` when the local ``name`` has the value given."""
        m = self.machine()

        def cell(values: list[object]) -> str:
            return pyrepr(bool(m.ev(test, ChainMap({name: values[0]}))))

        return cell

    # ---- bounds of numbers -------------------------------------------------------------------------

    def elem_bounds(self, e: ir.Expr, env: dict[str, ir.Expr] | None = None) -> tuple[int, int] | None:
        """(lo, hi) when every member of the set of numbers ``e`` lies in lo..hi: a constant set
        or range, a part of one, a local known to be one, or a definition whose value is one.
        ``env`` maps the formals of the definition being looked into to its arguments."""
        fixed = const_numbers(e)
        if fixed is not None:
            return (min(fixed), max(fixed)) if fixed else None
        if isinstance(e, ir.Local):
            if env is not None:
                arg = env.get(e.name)
                return self.elem_bounds(arg) if arg is not None else None
            try:
                return self.scope.get(e.name).bounds if isinstance(e.type, TSet) else None
            except GenerationError:
                return None
        if isinstance(e, ir.VarRef):
            # a variable's declared range: every assignment keeps to it (statements.check_members)
            t = self.rules.vars[e.name].type
            if isinstance(t, TSet) and isinstance(t.elem, TInt) and t.elem.lo is not None and t.elem.hi is not None:
                return t.elem.lo, t.elem.hi
            return None
        if isinstance(e, ir.Agg) and e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
            return self.elem_bounds(e.coll, env)
        if isinstance(e, ir.BinOp) and e.op == "diff":
            return self.elem_bounds(e.left, env)
        if isinstance(e, (ir.BinOp, ir.Cond)) and (e.op == "union" if isinstance(e, ir.BinOp) else True):
            a = self.elem_bounds(e.left if isinstance(e, ir.BinOp) else e.then, env)
            b = self.elem_bounds(e.right if isinstance(e, ir.BinOp) else e.else_, env)
            return (min(a[0], b[0]), max(a[1], b[1])) if a is not None and b is not None else None
        if isinstance(e, ir.CallDef) and e.name in self.bodies:
            body = self.bodies[e.name]
            if body is not None and id(body) not in self._bounding:
                d = self.program.defs[e.name]
                self._bounding.add(id(body))
                try:
                    # (arguments are looked at in the caller's own terms)
                    inner = {name: (arg if env is None or not isinstance(arg, ir.Local) or arg.name not in env else env[arg.name])
                             for (name, _), arg in zip(d.formals, e.args)}
                    return self.elem_bounds(body, inner if d.formals else {})
                finally:
                    self._bounding.discard(id(body))
        return None

    def value_bounds(self, e: ir.Expr) -> tuple[int, int] | None:
        """(lo, hi) when the number ``e`` lies in lo..hi for certain."""
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return e.value, e.value
        if isinstance(e, ir.Local) and isinstance(e.type, TInt):
            return self.scope.get(e.name).bounds
        if isinstance(e, ir.Agg) and e.op in ("the", "max", "min") and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
            return self.elem_bounds(e.coll)
        return None


def index_of(value: object) -> int:
    """The position of a value of a finite type in a table (a component id, a seat, an enum
    value's position, a boolean as 0 or 1, a set held as a mask its mask)."""
    if isinstance(value, frozenset):
        return sum(1 << int(v) for v in value)
    assert isinstance(value, int)
    return int(value)


class _Pinned(Machine):
    """The interpreter with the values of some expressions given (``pins``, by the expression's
    id): a test computed for every value of the parts of it that read the state."""

    def __init__(self, program: ir.Program, num_players: int) -> None:
        super().__init__(program, num_players)
        self.pins: dict[int, object] = {}

    def ev(self, e: ir.Expr, env: Any) -> Any:
        if self.pins and id(e) in self.pins:
            return self.pins[id(e)]
        return super().ev(e, env)
