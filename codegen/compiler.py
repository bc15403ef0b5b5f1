"""IR to Python: the expressions, the definitions and the flow of a generated engine.

The compiler reads only the IR (``rulecheck.dsl.ir.Program``) and writes fragments of Python that
the templates put together.  Its choices, all of them about speed, none about any one game:

* **Values.** Sets of players, components, enum values and booleans are int bitmasks (bit ``v`` set
  when ``v`` is a member); sets of numbers are frozensets, since numbers can be negative or large.
  Zones are one bitmask per zone instance plus a location per component.
* **Definitions** become plain functions, small ones are spelled in place, and a definition of
  cases that overrides order completely is a plain conditional.  A definition without arguments is
  remembered until something it reads changes, since expressions cannot change the state.  A
  definition or a test that depends on no state (only on its arguments, of finite types or of
  known ranges) is computed when the engine is generated: a table, or a bitmask per value of the
  other locals; one on other numbers is remembered per arguments in a dict.
* **Procedures** are inlined at every call (the checker forbids recursion).
* **The flow** is a set of functions, each running until the next decision or the end: ``_r0``
  from the start, ``_rK`` from decision point K, resuming just after it.  The state keeps the
  point it waits at, and locals that must survive a decision live in a slot list ``L``, so clone
  and serialize copy a few flat lists.  A resume function holds the rest of its block and then
  what follows (the next round of a loop, the statements after a procedure call or an ``if``);
  continuations that are long are shared functions ``_kN``.  A draw of several components is
  made by ``apply_action`` itself until the last one.
* **Evaluation order and errors** follow ``interpreter/semantics.py`` exactly: operands left to
  right, short-circuit ``and``/``or``/``if``/``any``/``all``, the same ``RuleError`` kinds, messages
  and statement positions, and the same step budget.  An expression is rearranged (a test moved
  before a loop, members skipped, an operand evaluated early) only where analysis shows that no
  part of it can fail, so the same errors happen at the same place.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import (
    TAny,
    TBool,
    TComp,
    TEnum,
    TInt,
    TMap,
    TPlayer,
    TSet,
    TText,
    Type,
)
from rulecheck.interpreter.semantics import STEP_BUDGET, Machine

from .analysis import Analysis, free_locals, match_chain
from .literals import comment_text, ident, pyrepr

#: CPython refuses more than 20 statically nested loops in one function; keep a margin.
MAX_LOOP_DEPTH = 18
#: Definitions with arguments and a body this small (IR nodes) are inlined.
INLINE_NODES = 24
#: A continuation of the flow this short (lines of code) is spelled in place, not called.
INLINE_CONT = 40
#: Values of pure definitions and tests are tabulated when there are at most this many to compute.
TABLE_CELLS = 4096


class GenerationError(Exception):
    """The ruleset is valid but cannot be spelled as an engine (a limit of the generator)."""


def rep_of(t: Type) -> str | None:
    """How a value of this type is held: 'mask' (int bitmask), 'fs' (frozenset) or None (not a set)."""
    if isinstance(t, TSet):
        return "fs" if isinstance(t.elem, TInt) else "mask"
    return None


def py_type(t: Type) -> str:
    """The Python annotation of a value of this type."""
    if isinstance(t, TBool):
        return "bool"
    if isinstance(t, TText):
        return "str"
    if isinstance(t, (TInt, TPlayer, TComp, TEnum)):
        return "int"
    if isinstance(t, TSet):
        return "int" if rep_of(t) == "mask" else "frozenset[int]"
    if isinstance(t, TMap):
        return "tuple[Any, ...]"
    return "Any"


def zero_of(t: Type) -> str:
    """A placeholder value of the type (never observable: used only to give a variable a type)."""
    if isinstance(t, TBool):
        return "False"
    if isinstance(t, TText):
        return "''"
    if rep_of(t) == "fs":
        return "_EMPTY"
    if isinstance(t, TMap):
        return "()"
    return "0"


def bare(code: str) -> str:
    """Drop one pair of parentheses around a whole expression (used where they are redundant)."""
    if code.startswith("(") and code.endswith(")") and "'" not in code and '"' not in code:
        depth = 0
        for i, ch in enumerate(code):
            depth += ch in "(["
            depth -= ch in ")]"
            if (depth == 0 and i < len(code) - 1) or (depth == 1 and ch == ","):
                return code  # not one parenthesized expression, or a tuple
        return code[1:-1]
    return code


def at(span: Span) -> str:
    return f"{span.line}, {span.col}"


#: code that reads a name, a constant or one subscript/attribute of a name: cheap and cannot fail
_SIMPLE = re.compile(r"^(?:-?\d+|[A-Za-z_]\w*|[A-Za-z_]\w*\[(?:-?\d+|[A-Za-z_]\w*)\]|[A-Za-z_]\w*\.[A-Za-z_]\w*|True|False)$")


@dataclass
class Loc:
    """Where a local lives: a Python name or a slot ``L[k]``."""

    code: str
    type: Type
    rep: str | None
    #: (zone, instance, epoch) for a component known to be in that zone instance while no
    #: statement that can move components has been compiled since (Compiler.epoch)
    where: tuple[str, str, int] | None = None
    #: (lo, hi) for a number known to lie in lo..hi (a member of a constant range)
    bounds: tuple[int, int] | None = None
    #: for the choices of a simultaneous decision, the local holding the set of players who chose
    #: (and how many local assignments had been compiled then); for a member of a set held in a
    #: local, the same for that local
    among: tuple[int, int] | None = None


@dataclass
class Scope:
    parent: Scope | None = None
    names: dict[str, Loc] = field(default_factory=dict)

    def get(self, name: str) -> Loc:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        raise GenerationError(f"unknown local '{name}'")  # the checker resolves every name


@dataclass
class Point:
    """A decision of the flow: the state waits here for an action."""

    kind: str  # "chance", "player", "simultaneous"
    label: str
    secret: bool
    type: Type | None
    span: Span


@dataclass
class Piece:
    """The code of one statement of the flow, from its start."""

    lines: list[str]
    falls: bool  # can control pass its end? (not after 'end' or a decision)


@dataclass(eq=False)
class BlockRec:
    """The statements of a block of the flow, as code, and what runs when the block is done."""

    tail: Cont | None  # None: the flow is over
    pieces: list[Piece] = field(default_factory=list)
    falls: bool = True  # can the code that runs the block from its start pass its end?


@dataclass(eq=False)
class Cont:
    """What runs once a construct holding decisions is done: its loop's next rounds (``advance``
    then ``loop``; empty for a procedure call or an if), then the statements after it."""

    rec: BlockRec  # the block the construct is in
    index: int  # its position there
    advance: list[str] = field(default_factory=list)
    loop: list[str] = field(default_factory=list)


@dataclass
class Hoist:
    """Where values looked up inside the loops of an expression go: before its outermost loop."""

    lines: list[str]
    at: int
    ind: int
    scope: Scope  # the locals there
    names: dict[str, str] = field(default_factory=dict)

    def scope_get(self, name: str) -> Loc | None:
        try:
            return self.scope.get(name)
        except GenerationError:
            return None


class Fn:
    """One Python function being written: its lines, indentation and fresh names."""

    def __init__(self, indent: int) -> None:
        self.lines: list[str] = []
        self.ind = indent
        self.counter = 0
        self.loops = 0
        self.uses: set[str] = set()

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    def fresh(self, base: str = "t") -> str:
        self.counter += 1
        return f"{base}{self.counter}"


class Layout:
    """Where zone instances, variables and attribute tables live in a state, independent of the
    player count (player-indexed zones and variables get a place for every possible seat)."""

    def __init__(self, program: ir.Program) -> None:
        rules = program.rules
        self.rules = rules
        self.maxp = rules.game.max_players
        self.ncomp = len(rules.components)
        self.kind_ids = {k: [c.cid for c in rules.components if c.kind == k] for k in rules.kinds}
        self.zone_base: dict[str, int] = {}
        pos = 0
        for z in rules.zones.values():
            self.zone_base[z.name] = pos
            pos += self.size(z.index)
        self.nzones = pos
        self.var_base: dict[str, int] = {}
        pos = 0
        for v in rules.vars.values():
            self.var_base[v.name] = pos
            pos += self.size(v.index)
        self.nvars = pos
        self.params = list(rules.params)

    def size(self, t: Type | None) -> int:
        if t is None:
            return 1
        if isinstance(t, TPlayer):
            return self.maxp
        if isinstance(t, TComp):
            return self.ncomp  # indexed by component id, so any id is in bounds
        if isinstance(t, TEnum):
            return len(self.rules.enums[t.name].values)
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return t.hi - t.lo + 1
        raise GenerationError(f"cannot index by {t.show()}")

    def offset(self, t: Type, value: int) -> int:
        """The position of index ``value`` within an indexed zone or variable."""
        if isinstance(t, TInt):
            assert t.lo is not None
            return value - t.lo
        return value

    def domain(self, t: Type) -> list[int] | None:
        """The index values, or None for players (they depend on the player count)."""
        if isinstance(t, TPlayer):
            return None
        if isinstance(t, TComp):
            return list(self.kind_ids.get(t.kind or "", range(self.ncomp)))
        if isinstance(t, TEnum):
            return list(range(len(self.rules.enums[t.name].values)))
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return list(range(t.lo, t.hi + 1))
        raise GenerationError(f"no finite domain for {t.show()}")


class Compiler:
    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.rules = program.rules
        self.layout = Layout(program)
        self.order = 1 if self.rules.game.order == "clockwise" else -1
        self.consts: dict[str, str] = {}
        self.points: list[Point] = []
        self.shows: dict[str, str] = {}  # show expression template -> function name
        self.fn = Fn(1)
        self.scope = Scope()
        self.slot_top = 0
        self.slot_max = 0
        self.point_counts: dict[int, int] = {}
        self.resumes: dict[int, tuple[list[str], BlockRec, int]] = {}  # point -> code after it, where
        self.loop_draws: set[int] = set()  # points of draws of more than one component
        self.chance_zones: dict[int, str] = {}  # the zone each chance point draws from
        self.fast: list[str] = []  # apply_action's own code for those draws
        self.cont_names: dict[Cont, str] = {}  # continuations written as functions
        self.cont_memo: dict[Cont, list[str]] = {}
        self.end_line = ""
        self.rest: list[ir.Stmt] = []
        self.bounded = False
        self.attr_tables: dict[tuple[str, str], str] = {}
        self.unspecified: list[tuple[str, str]] = []
        for k in self.rules.kinds.values():
            for a in k.attrs:
                prov = k.provenance.get(a)
                if prov is not None and prov.kind == "unspecified":
                    self.unspecified.append((k.name, a))
        self.analysis = Analysis(program)
        self.subst: dict[int, tuple[str, str | None]] = {}  # IR nodes already computed, by id
        self.hoist: Hoist | None = None
        self._bounding: set[int] = set()
        self.epoch = 0  # counts the statements compiled that may move components (see Loc.where)
        self.local_epoch = 0  # counts the assignments of locals compiled (see Loc.among)
        self.used_defs = self.reachable_defs()
        self._machine: Machine | None = None
        self.tables: dict[object, str | None] = {}
        self.bodies: dict[str, ir.Expr | None] = {n: self.lowered(self.program.defs[n]) for n in self.used_defs}
        # definitions whose value depends on their arguments only: a constant, or a table
        self.def_tables: dict[str, str] = {}
        for name in self.used_defs:
            table = self.def_table(name)
            if table is not None:
                self.def_tables[name] = table
        self.used_defs = [n for n in self.used_defs if n not in self.def_tables]
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

    # ---- module-level constants ---------------------------------------------------------------

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

    # ---- definitions: their bodies, and tables of their values ---------------------------------

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
        from rulecheck.dsl.walk import walk_exprs

        body = self.bodies[d.name]
        if body is None or not d.formals:
            return False
        return len(list(walk_exprs(body))) <= INLINE_NODES

    def needs_call_site(self, d: ir.Definition) -> bool:
        """Definitions that can fail with 'no case applies' report the position of the call."""
        return self.bodies[d.name] is None and d.cases is not None and d.otherwise is None

    def machine(self) -> Machine:
        """The interpreter, to compute values that depend on no state."""
        if self._machine is None:
            self._machine = Machine(self.program, self.rules.game.max_players)
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

    def def_table(self, name: str) -> str | None:
        """A definition whose value depends on its arguments only: its values, computed now."""
        d = self.program.defs[name]
        if not self.analysis.def_pure(name) or (d.formals and self.analysis.def_cost(name) <= 3):
            return None  # (a single attribute is already a table)
        m = self.machine()
        return self.table(("def", name), [t for _, t in d.formals], lambda args: self.value_literal(m.call(name, list(args), d.span), d.ret))

    def pure_mask(self, var: str, var_t: Type, tests: list[tuple[ir.Expr, bool]]) -> str | None:
        """The mask of the values of ``var`` for which the tests come out as flagged (evaluated
        in order, stopping at the first that does not), when that depends on no state: a
        constant, or a table indexed by the other locals the tests read."""
        if not all(self.analysis.pure(e) for e, _ in tests):
            return None
        dom = self.domain(var_t)
        if dom is None:
            return None
        free = sorted(set().union(*(free_locals(e) for e, _ in tests)) - {var})
        locs = [self.scope.get(f) for f in free]
        m = self.machine()

        def cell(values: list[object]) -> str:
            env: ChainMap[str, object] = ChainMap(dict(zip(free, values)))
            bits = 0
            for x in dom[1]:
                env[var] = x
                if all(bool(m.ev(e, env)) == flag for e, flag in tests):
                    bits |= 1 << index_of(x)
            return str(bits)

        key = ("mask", var, tuple((id(e), flag) for e, flag in tests), tuple((loc.type.show(), loc.bounds) for loc in locs))
        table = self.table(key, [self.loc_domain(loc) for loc in locs], cell, work=len(dom[1]))
        if table is None:
            return None
        return table + "".join(f"[{loc.code}]" for loc in locs)

    # ---- what the flow uses -------------------------------------------------------------------

    def proc(self, name: str) -> ir.Procedure:
        p = self.program.procs[name]
        if p.body is None:
            raise GenerationError(f"procedure '{name}' has no body under the chosen readings")
        return p

    def reachable_defs(self) -> list[str]:
        """Definitions the flow can call, in declaration order (invariants are not compiled)."""
        from rulecheck.dsl.walk import walk_exprs, walk_stmts

        seen: set[str] = set()
        todo: list[object] = [self.rules.flow]
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

    def count_points(self, s: ir.Stmt) -> int:
        """How many decision points a statement holds (procedures included, as inlined)."""
        got = self.point_counts.get(id(s))
        if got is not None:
            return got
        n = 0
        if isinstance(s, (ir.Draw, ir.Choose, ir.ChooseEach)):
            n = 1
        elif isinstance(s, ir.If):
            n = self.block_points(s.then) + self.block_points(s.else_)
        elif isinstance(s, (ir.ForEach, ir.Repeat, ir.RepeatUntil, ir.While)):
            n = self.block_points(s.body)
        elif isinstance(s, ir.CallProc):
            body = self.proc(s.name).body
            assert body is not None
            n = self.block_points(body)
        self.point_counts[id(s)] = n
        return n

    def block_points(self, stmts: list[ir.Stmt]) -> int:
        return sum(self.count_points(s) for s in stmts)

    # ---- writing code -------------------------------------------------------------------------

    @contextmanager
    def capture(self, extra: int = 0) -> Iterator[list[str]]:
        """Compile into a separate list of lines (a preamble that may have to move)."""
        fn = self.fn
        saved = fn.lines
        fn.lines = []
        fn.ind += extra
        buf = fn.lines
        try:
            yield buf
        finally:
            fn.lines = saved
            fn.ind -= extra

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.fn.ind += 1
        try:
            yield
        finally:
            self.fn.ind -= 1

    @contextmanager
    def loop(self) -> Iterator[None]:
        self.fn.loops += 1
        if self.fn.loops > MAX_LOOP_DEPTH:
            raise GenerationError(f"loops and aggregates nest more than {MAX_LOOP_DEPTH} deep, more than Python allows in one function")
        try:
            with self.indented():
                yield
        finally:
            self.fn.loops -= 1

    def emit(self, text: str) -> None:
        self.fn.emit(text)

    def materialize(self, code: str) -> str:
        if _SIMPLE.match(code):
            return code
        t = self.fn.fresh()
        self.emit(f"{t} = {code}")
        return t

    def uses(self, what: str) -> None:
        self.fn.uses.add(what)

    # ---- expressions --------------------------------------------------------------------------

    def ex(self, e: ir.Expr, rep: str | None = None) -> str:
        """A Python expression for ``e`` (in representation ``rep`` for a set); preamble
        statements it needs are emitted first."""
        want = rep if rep is not None else rep_of(e.type)
        done = self.subst.get(id(e))
        if done is not None:
            return self.convert(done[0], done[1], want)
        method = getattr(self, "x_" + type(e).__name__)
        code, got = method(e, want)
        return self.convert(code, got, want)

    def convert(self, code: str, got: str | None, want: str | None) -> str:
        if got is None or want is None or got == want:
            return code
        if got == "mask":
            return f"frozenset(_BITS[{code}])"
        return f"_mask({code})"

    def ex_seq(self, items: list[tuple[ir.Expr, str | None]]) -> list[str]:
        """Operands left to right: when a later one needs a preamble, the earlier ones are
        computed before it, so errors happen in the interpreter's order."""
        out: list[str] = []
        for e, rep in items:
            with self.capture() as buf:
                code = self.ex(e, rep)
            if buf:
                out = [self.materialize(c) for c in out]
                self.fn.lines.extend(buf)
            out.append(code)
        return out

    def x_Const(self, e: ir.Const, want: str | None) -> tuple[str, str | None]:
        v = e.value
        if isinstance(v, frozenset):
            rep = want or rep_of(e.type) or "mask"
            return self.set_literal(v, rep), rep
        if isinstance(v, int) and not isinstance(v, bool) and v < 0:
            return f"({v})", None
        return pyrepr(v), None

    def x_Local(self, e: ir.Local, want: str | None) -> tuple[str, str | None]:
        loc = self.scope.get(e.name)
        return loc.code, loc.rep

    def index_code(self, t: Type | None, index: ir.Expr | None, base: int, what: str) -> str:
        if t is None or index is None:
            return str(base)
        idx = self.ex(index)
        if isinstance(t, TInt):
            assert t.lo is not None and t.hi is not None
            return f"{base} + _ix({idx}, {t.lo}, {t.hi}, {pyrepr(what)}, {at(index.span)})"
        if re.fullmatch(r"\d+", idx):
            return str(base + int(idx))
        return idx if base == 0 else f"{base} + {idx}"

    def x_VarRef(self, e: ir.VarRef, want: str | None) -> tuple[str, str | None]:
        v = self.rules.vars[e.name]
        self.uses("V")
        return f"V[{self.index_code(v.index, e.index, self.layout.var_base[v.name], v.name)}]", rep_of(v.type)

    def x_ParamRef(self, e: ir.ParamRef, want: str | None) -> tuple[str, str | None]:
        return f"S.g.P[{self.layout.params.index(e.name)}]", rep_of(e.type)

    def zone_instance(self, zone: str, index: ir.Expr | None) -> str:
        z = self.rules.zones[zone]
        return self.index_code(z.index, index, self.layout.zone_base[zone], zone)

    def x_ZoneRef(self, e: ir.ZoneRef, want: str | None) -> tuple[str, str | None]:
        self.uses("Z")
        return f"Z[{self.zone_instance(e.zone, e.index)}]", "mask"

    def x_AttrRef(self, e: ir.AttrRef, want: str | None) -> tuple[str, str | None]:
        obj = self.ex(e.obj)
        t = self.rules.kinds[e.kind].attrs[e.attr]
        return f"{self.attr_table(e.kind, e.attr)}[{obj}]", rep_of(t)

    def x_CallDef(self, e: ir.CallDef, want: str | None) -> tuple[str, str | None]:
        d = self.program.defs[e.name]
        args = [bare(a) for a in self.ex_seq([(a, rep_of(t)) for a, (_, t) in zip(e.args, d.formals)])]
        table = self.def_tables.get(d.name)
        if table is not None:
            # a value of the arguments alone, computed when the engine was generated
            return table + "".join(f"[{a}]" for a in args), rep_of(d.ret)
        if d.name in self.inlined:
            body = self.bodies[d.name]
            assert body is not None
            with self.inline_scope(e, args):
                return self.ex(body, rep_of(d.ret)), rep_of(d.ret)
        memo = self.memos.get(d.name)
        if memo is not None and all(isinstance(t, TInt) for _, t in d.formals):
            # numbers known to lie in small ranges: the values for those ranges, computed now
            ranges = [self.value_bounds(a) for a in e.args]
            if all(r is not None for r in ranges):
                m = self.machine()
                axes: list[Type | tuple[int, list[object]] | None] = [
                    (r[1] + 1, list(range(r[0], r[1] + 1))) if r is not None and 0 <= r[0] <= r[1] < 1024 else None for r in ranges]
                table = self.table(("call", d.name, tuple(ranges)), axes,
                                   lambda vals: self.value_literal(m.call(d.name, list(vals), e.span), d.ret))
                if table is not None:
                    return table + "".join(f"[{a}]" for a in args), rep_of(d.ret)
        if memo is not None:
            args = [self.materialize(a) for a in args]
            key = args[0] if len(args) == 1 else f"({', '.join(args)},)"
            if self.needs_call_site(d):
                args.append(f"({at(e.span)})")
            got = self.fn.fresh()
            self.emit(f"{got} = {memo}.get({key})")
            self.emit(f"if {got} is None:")
            self.emit(f"    {got} = D_{ident(d.name)}({', '.join(['S', *args])})")
            self.emit(f"    if len({memo}) < 65536:")
            self.emit(f"        {memo}[{key}] = {got}")
            return got, rep_of(d.ret)
        if self.needs_call_site(d):
            args.append(f"({at(e.span)})")
        call = f"D_{ident(d.name)}({', '.join(['S', *args])})"
        if d.name in self.cached and self.hoist is not None and not self.analysis.def_raises(d.name):
            # inside the loops of an expression nothing changes: a value that cannot fail is
            # looked up once, before the outermost loop
            self.uses("C")
            hoisted = self.hoist.names.get(d.name)
            if hoisted is None:
                got = self.hoist.names[d.name] = self.fn.fresh()
                g, k = self.cache_slot[d.name]
                pad = "    " * self.hoist.ind
                self.hoist.lines[self.hoist.at:self.hoist.at] = [f"{pad}{got} = C[{g}].get({k})", f"{pad}if {got} is None:", f"{pad}    {got} = {call}"]
                self.hoist.at += 3
            else:
                got = hoisted
            return got, rep_of(d.ret)
        if d.name in self.cached:
            # the remembered value, without a call when there is one
            self.uses("C")
            got = self.fn.fresh()
            g, k = self.cache_slot[d.name]
            self.emit(f"{got} = C[{g}].get({k})")
            self.emit(f"if {got} is None:")
            self.emit(f"    {got} = {call}")
            return got, rep_of(d.ret)
        return call, rep_of(d.ret)

    @contextmanager
    def inline_scope(self, e: ir.CallDef, args: list[str]) -> Iterator[None]:
        """The scope of an inlined definition: the arguments are computed first, as for a call;
        then the body sees only them."""
        d = self.program.defs[e.name]
        scope = Scope()
        for (name, t), code, arg in zip(d.formals, args, e.args):
            bounds = self.elem_bounds(arg) if isinstance(t, TSet) else self.value_bounds(arg)
            scope.names[name] = Loc(self.materialize(code), t, rep_of(t), bounds=bounds)
        saved_scope, saved_subst = self.scope, self.subst
        self.scope, self.subst = scope, {}
        try:
            yield
        finally:
            self.scope, self.subst = saved_scope, saved_subst

    def nonempty(self, e: ir.Expr) -> str | None:
        """Whether the set ``{x for x in S if F}`` has a member, as ``any``: the tests stop at the
        first member that passes (when no test can fail, skipping the others changes nothing)."""
        if isinstance(e, ir.CallDef) and e.name in self.inlined:
            body = self.bodies[e.name]
            if not (isinstance(body, ir.Agg) and self.nonempty_form(body)):
                return None
            d = self.program.defs[e.name]
            args = [bare(a) for a in self.ex_seq([(a, rep_of(t)) for a, (_, t) in zip(e.args, d.formals)])]
            with self.inline_scope(e, args):
                return self.nonempty(body)
        if isinstance(e, ir.Agg) and self.nonempty_form(e):
            assert e.filt is not None
            return self.ex(ir.Agg(e.filt.type, e.span, "any", e.var, e.coll, ir.Const(e.filt.type, e.span, True), e.filt))
        return None

    def nonempty_form(self, e: ir.Agg) -> bool:
        return (e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var and e.filt is not None
                and not self.analysis.can_raise(e.filt))

    def union_any(self, e: ir.Agg) -> str | None:
        """``any(P(c) for c in E(q))`` for some q in Q (an any of anys): ``any(P(c) for c in U)``
        with U the union of the E(q), when nothing in it can fail; U is computed before the loops
        of the expression when it depends on none of their variables."""
        inner = e.filt if isinstance(e.elem, ir.Const) and e.elem.value is True else (e.elem if e.filt is None else None)
        if not isinstance(inner, ir.Agg) or inner.op != "any" or inner.filt is not None or not isinstance(inner.coll.type, TSet):
            return None
        if rep_of(e.coll.type) != "mask" or rep_of(inner.coll.type) != "mask" or not mentions(inner.coll, e.var):
            return None
        if mentions(inner.elem, e.var) or self.analysis.can_raise(inner.coll) or self.analysis.can_raise(inner.elem):
            return None
        elem_t = e.coll.type.elem if isinstance(e.coll.type, TSet) else TAny()
        outer = self.hoist is not None and all(self.hoist.scope_get(x) is self.scope.get(x)
                                                 for x in (free_locals(e.coll) | free_locals(inner.coll)) - {e.var})
        coll = self.ex(e.coll)  # (computed where it was)
        u, q = self.fn.fresh("u"), self.fn.fresh(f"x_{ident(e.var)}_")
        with self.capture_rel() as lines:
            self.emit(f"{u} = 0")
            self.emit(f"for {q} in _BITS[{coll}]:")
            saved = self.scope
            self.scope = Scope(saved, {e.var: Loc(q, elem_t, rep_of(elem_t))})
            with self.loop():
                self.emit(f"{u} |= {self.ex(inner.coll, 'mask')}")
            self.scope = saved
        if outer and self.hoist is not None and re.fullmatch(r"[\d()<> n-]*", coll):  # (players, or a constant)
            pad = "    " * self.hoist.ind
            self.hoist.lines[self.hoist.at:self.hoist.at] = [pad + x for x in lines]
            self.hoist.at += len(lines)
        else:
            self.splice(lines)
        name = f" {u}"
        saved = self.scope
        self.scope = Scope(saved, {name: Loc(u, inner.coll.type, "mask")})
        try:
            return self.ex(ir.Agg(e.type, e.span, "any", inner.var, ir.Local(inner.coll.type, inner.coll.span, name), inner.elem, None))
        finally:
            self.scope = saved

    def x_Builtin(self, e: ir.Builtin, want: str | None) -> tuple[str, str | None]:
        op = e.op
        if op == "players":
            self.uses("n")
            return "((1 << n) - 1)", "mask"
        if op == "num_players":
            self.uses("n")
            return "n", None
        if op == "winners":
            return "(S.w or 0)", "mask"
        args = self.ex_seq([(a, None) for a in e.args])
        if op in ("next", "prev"):
            self.uses("n")
            step = self.order if op == "next" else -self.order
            return f"(({args[0]} {'+' if step > 0 else '-'} 1) % n)", None
        if op == "seat":
            return f"({args[0]} + 1)", None
        if op == "player":
            if self.analysis.fixed_seat(e):
                k = e.args[0].value if isinstance(e.args[0], ir.Const) else None
                assert isinstance(k, int)
                return str(k - 1), None  # (the game always has that player)
            self.uses("n")
            return f"_player({bare(args[0])}, n, {at(e.span)})", None
        if op == "size":
            if rep_of(e.args[0].type) == "fs":
                return f"len({bare(args[0])})", None
            return f"{args[0]}.bit_count()", None
        if op == "abs":
            return f"abs({bare(args[0])})", None
        if op in ("min", "max"):
            return f"{op}({bare(args[0])}, {bare(args[1])})", None
        raise GenerationError(f"unknown builtin {op}")

    def x_Unary(self, e: ir.Unary, want: str | None) -> tuple[str, str | None]:
        v = self.ex(e.operand)
        if e.op == "not":
            m = _NONZERO.fullmatch(v)
            if m and not _STRING.search(v) and not re.search(r"\b(?:if|and|or|not|lambda)\b", m.group(1)):
                return f"({m.group(1)} {'==' if m.group(2) == '!=' else '!='} {m.group(3)})", None
            return f"(not {v})", None
        return f"(-{v})", None

    def short_circuit(self, op: str, left: ir.Expr, right: ir.Expr) -> str:
        an = self.analysis
        if an.cost(right) * 2 < an.cost(left) and not an.can_raise(left) and not an.can_raise(right):
            # neither side can fail, so the cheaper one may decide first: same value, less work
            left, right = right, left
        a = self.ex(left)
        with self.capture(1) as buf:
            b = self.ex(right)
        if not buf:
            return f"({a} {op} {b})"
        t = self.fn.fresh()
        self.emit(f"{t} = {a}")
        self.emit(f"if {'' if op == 'and' else 'not '}{t}:")
        self.fn.lines.extend(buf)
        self.emit(f"    {t} = {b}")
        return t

    def x_BinOp(self, e: ir.BinOp, want: str | None) -> tuple[str, str | None]:
        op = e.op
        if op in ("and", "or"):
            return self.short_circuit(op, e.left, e.right), None
        tested = self.attr_test(e)
        if tested is not None:
            return tested, None
        empty = emptiness(e)
        if empty is not None:
            test = self.nonempty(empty[0])
            if test is not None:
                return (f"(not {test})" if empty[1] else test), None
            # size(S) == 0, size(S) > 0 ...: whether the set is empty, without counting
            s_code = self.ex(empty[0])
            return f"({s_code} {'==' if empty[1] else '!='} {'0' if rep_of(empty[0].type) == 'mask' else '_EMPTY'})", None
        lt, rt = e.left.type, e.right.type
        if op in ("==", "!="):
            rep = None
            if isinstance(lt, TSet) or isinstance(rt, TSet):
                rep = "fs" if "fs" in (rep_of(lt), rep_of(rt)) else "mask"
            a, b = self.ex_seq([(e.left, rep), (e.right, rep)])
            return f"({a} {op} {b})", None
        if op in ("<", "<=", ">", ">="):
            a, b = self.ex_seq([(e.left, None), (e.right, None)])
            return f"({a} {op} {b})", None
        if op == "in":
            r = e.right
            if isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const):
                a = self.ex(e.left)
                return f"({r.lo.value} <= {a} <= {r.hi.value})", None
            rep = rep_of(rt) or "mask"
            if isinstance(rt, TSet) and isinstance(rt.elem, TAny) and isinstance(lt, TInt):
                rep = "fs"  # an int is never in a mask
            a, b = self.ex_seq([(e.left, None), (e.right, rep)])
            if rep == "mask":
                return f"({b} >> {a} & 1 == 1)", None
            return f"({a} in {b})", None
        if op in ("union", "diff"):
            rep = want or rep_of(e.type) or "mask"
            a, b = self.ex_seq([(e.left, rep), (e.right, rep)])
            if op == "union":
                return f"({a} | {b})", rep
            return (f"({a} & ~{b})" if rep == "mask" else f"({a} - {b})"), rep
        a, b = self.ex_seq([(e.left, None), (e.right, None)])
        if op in ("+", "-", "*"):
            return f"({a} {op} {b})", None
        if op == "/":
            return f"_div({bare(a)}, {bare(b)}, {at(e.span)})", None
        if op == "%":
            return f"_mod({bare(a)}, {bare(b)}, {at(e.span)})", None
        raise GenerationError(f"unknown operator {op}")

    def x_Cond(self, e: ir.Cond, want: str | None) -> tuple[str, str | None]:
        rep = want or rep_of(e.type)
        chain = match_chain(e)
        if chain is not None and id(chain[0]) not in self.subst:
            # a match: its subject is the first thing evaluated, and evaluated in every test
            subj = chain[0]
            code = self.ex(subj)
            if not re.fullmatch(r"[A-Za-z_]\w*", code):
                t = self.fn.fresh()
                self.emit(f"{t} = {code}")
                code = t
            self.subst[id(subj)] = (code, rep_of(subj.type))
            try:
                tree = match_tree(chain) if isinstance(subj.type, (TInt, TEnum)) and len(chain[1]) >= 4 else None
                if isinstance(tree, ir.Cond):
                    return self.x_Cond(tree, want)
                return self.x_Cond(e, want)
            finally:
                del self.subst[id(subj)]
        c = self.ex(e.cond)
        with self.capture(1) as tbuf:
            a = self.ex(e.then, rep)
        with self.capture(1) as ebuf:
            b = self.ex(e.else_, rep)
        if not tbuf and not ebuf:
            return f"({a} if {c} else {b})", rep
        t = self.fn.fresh()
        self.emit(f"if {c}:")
        self.fn.lines.extend(tbuf)
        self.emit(f"    {t} = {a}")
        self.emit("else:")
        self.fn.lines.extend(ebuf)
        self.emit(f"    {t} = {b}")
        return t, rep

    def x_SetOf(self, e: ir.SetOf, want: str | None) -> tuple[str, str | None]:
        rep = want or rep_of(e.type) or "mask"
        elem = e.type.elem if isinstance(e.type, TSet) else TAny()
        if not e.items:
            return ("0" if rep == "mask" else "_EMPTY"), rep
        if all(isinstance(i, ir.Const) for i in e.items):
            return self.set_literal(frozenset(i.value for i in e.items if isinstance(i, ir.Const)), rep), rep
        items = self.ex_seq([(i, rep_of(elem)) for i in e.items])
        if rep == "mask":
            if len(items) == 1:
                return f"(1 << {items[0]})", rep
            return "(" + " | ".join(f"(1 << {i})" for i in items) + ")", rep
        return "frozenset((" + ", ".join(items) + ",))", rep

    def x_IntRange(self, e: ir.IntRange, want: str | None) -> tuple[str, str | None]:
        if isinstance(e.lo, ir.Const) and isinstance(e.hi, ir.Const):
            lo, hi = e.lo.value, e.hi.value
            assert isinstance(lo, int) and isinstance(hi, int)
            return self.set_literal(frozenset(range(lo, hi + 1)), "fs"), "fs"
        lo_c, hi_c = self.ex_seq([(e.lo, None), (e.hi, None)])
        return f"frozenset(range({lo_c}, {hi_c} + 1))", "fs"

    def x_MapGet(self, e: ir.MapGet, want: str | None) -> tuple[str, str | None]:
        m, i = self.ex_seq([(e.map, None), (e.index, None)])
        if isinstance(e.map, ir.Local) and isinstance(e.index, ir.Local):
            chose, member = self.scope.get(e.map.name).among, self.scope.get(e.index.name).among
            if chose is not None and member == chose:
                # a member of the very set of players who chose: every one of them made a choice
                return f"{m}[{i}]", rep_of(e.type)
        t = self.fn.fresh()
        self.emit(f"{t} = {m}[{i}]")
        self.emit(f"if {t} is None:")
        self.emit(f"    _raise('incomplete', 'this player made no choice here', {at(e.span)})")
        return t, rep_of(e.type)

    def x_Fail(self, e: ir.Fail, want: str | None) -> tuple[str, str | None]:
        return f"_raise({pyrepr(e.kind)}, {pyrepr(e.message)}, {at(e.span)})", want

    def iterate(self, coll: ir.Expr) -> str:
        """A Python iterable over the members of a set, in ascending order."""
        fixed = const_numbers(coll)
        if fixed is not None and rep_of(coll.type) == "fs":
            return self.const(pyrepr(tuple(sorted(fixed))))  # a constant set of numbers, in order once
        c = self.ex(coll)
        if rep_of(coll.type) == "fs":
            return f"sorted({c})"
        return f"_BITS[{c}]"

    def x_Agg(self, e: ir.Agg, want: str | None) -> tuple[str, str | None]:
        op = e.op
        elem_t = e.coll.type.elem if isinstance(e.coll.type, TSet) else TAny()
        if op == "count" and e.filt is None:
            c = self.ex(e.coll)
            return (f"len({c})" if rep_of(e.coll.type) == "fs" else f"{c}.bit_count()"), None
        rep = want or rep_of(e.type)
        is_var = isinstance(e.elem, ir.Local) and e.elem.name == e.var
        if op == "set" and e.filt is None and is_var:
            return self.ex(e.coll, rep), rep
        tabled = self.tabled_agg(e)
        if tabled is not None:
            return tabled
        if op == "set" and is_var and e.filt is not None:
            hoisted = self.invariant_filter(e, rep)
            if hoisted is not None:
                return hoisted, rep
        if op == "any":
            flat = self.union_any(e)
            if flat is not None:
                return flat, None
        if op == "any" and not (isinstance(e.elem, ir.Const) and e.elem.value is True):
            # any(E for x in S if F) is any(true for x in S if F and E): E's tests can then
            # narrow the members visited, as F's can
            both: ir.Expr = e.elem if e.filt is None else ir.BinOp(e.elem.type, e.elem.span, "and", e.filt, e.elem)
            narrowed = ir.Agg(e.type, e.span, "any", e.var, e.coll, ir.Const(e.elem.type, e.elem.span, True), both)
            if self.pushdown(narrowed, probe=True) is not None:
                e = narrowed
        filt = e.filt
        pushed = self.pushdown(e)
        if pushed is not None:
            members, filt = pushed
            if op == "any" and filt is None and isinstance(e.elem, ir.Const) and e.elem.value is True:
                return f"({members} != 0)", None
            it = f"_BITS[{members}]"
        elif self.hoist is not None and rep_of(e.coll.type) == "fs" and const_numbers(e.coll) is None \
                and not self.analysis.can_raise(e.coll) and all(self.hoist.scope_get(v) is self.scope.get(v) for v in free_locals(e.coll)):
            # a set of numbers the loops around do not change: put in order once, before them
            with self.capture_rel() as lines:
                it = self.iterate(e.coll)
            h = self.fn.fresh("h")
            pad = "    " * self.hoist.ind
            self.hoist.lines[self.hoist.at:self.hoist.at] = [pad + x for x in [*lines, f"{h} = {it}"]]
            self.hoist.at += len(lines) + 1
            it = h
        else:
            it = self.iterate(e.coll)
        fn = self.fn
        x = fn.fresh(f"x_{ident(e.var)}_")
        acc = fn.fresh()
        k = fn.fresh("k")
        if op == "set":
            self.emit(f"{acc}{': set[int]' if rep == 'fs' else ''} = {'set()' if rep == 'fs' else '0'}")
        elif op == "any":
            self.emit(f"{acc} = False")
        elif op == "all":
            self.emit(f"{acc} = True")
        elif op in ("count", "sum"):
            self.emit(f"{acc} = 0")
        elif op in ("max", "min", "the"):
            self.emit(f"{acc}: {py_type(e.type)} = {zero_of(e.type)}")
            self.emit(f"{k} = 0")
        else:
            raise GenerationError(f"unknown aggregate {op}")
        # parts of the tests that do not depend on the member and cannot fail: computed once,
        # before the loop (the loop changes nothing)
        invariant = [part for x_ in (filt, e.elem) if x_ is not None for part in self.invariant_parts(x_, {e.var})]
        for part in invariant:
            self.subst[id(part)] = (self.materialize(self.ex(part)), rep_of(part.type))
        saved = self.scope
        member = Loc(x, elem_t, rep_of(elem_t), bounds=self.elem_bounds(e.coll))
        if isinstance(e.coll, ir.Local):
            member.among = (id(self.scope.get(e.coll.name)), self.local_epoch)
        self.scope = Scope(saved, {e.var: member})
        outermost = self.hoist is None
        if outermost:
            self.hoist = Hoist(self.fn.lines, len(self.fn.lines), self.fn.ind, saved)
        self.emit(f"for {x} in {it}:")
        with self.loop():
            if filt is not None:
                f = self.ex(filt)
                self.emit(f"if {f}:")
                self.fn.ind += 1
            if op == "set":
                v = self.ex(e.elem, rep_of(e.type.elem) if isinstance(e.type, TSet) else None)
                self.emit(f"{acc} |= 1 << {v}" if rep == "mask" else f"{acc}.add({v})")
            elif op == "any":
                v = self.ex(e.elem)
                self.emit(f"if {v}:")
                self.emit(f"    {acc} = True")
                self.emit("    break")
            elif op == "all":
                v = self.ex(e.elem)
                self.emit(f"if not {v}:")
                self.emit(f"    {acc} = False")
                self.emit("    break")
            elif op == "count":
                self.emit(f"{acc} += 1")
            elif op == "sum":
                v = self.ex(e.elem)
                self.emit(f"{acc} += {v}")
            elif op in ("max", "min"):
                v = self.materialize(self.ex(e.elem))
                cmp = ">" if op == "max" else "<"
                self.emit(f"if not {k} or {v} {cmp} {acc}:")
                self.emit(f"    {acc} = {v}")
                self.emit(f"    {k} = 1")
            else:  # the: every candidate's value is computed before the count is judged
                v = self.ex(e.elem, rep)
                self.emit(f"{acc} = {v}")
                self.emit(f"{k} += 1")
            if filt is not None:
                self.fn.ind -= 1
        if outermost:
            self.hoist = None
        for part in invariant:
            del self.subst[id(part)]
        self.scope = saved
        if op in ("max", "min"):
            msg = f"{op} of nothing: the collection is empty"
            self.emit(f"if not {k}:")
            self.emit(f"    _raise('incomplete', {pyrepr(msg)}, {at(e.span)})")
        elif op == "the":
            self.emit(f"if {k} != 1:")
            self.emit(f"    _the_fail({k}, {at(e.span)})")
        if op == "set" and rep == "fs":
            return f"frozenset({acc})", rep
        return acc, rep

    def invariant_filter(self, e: ir.Agg, rep: str | None) -> str | None:
        """``{x for x in S if A(x) or B}`` with B not depending on x: when B holds every member
        passes, so the set is S itself and the loop is needed only when B fails (the tests before
        B must not be able to fail, since they are then not evaluated)."""
        assert e.filt is not None
        disjuncts = or_chain(e.filt)
        for i, d in enumerate(disjuncts):
            if mentions(d, e.var) or any(self.analysis.can_raise(x) for x in disjuncts[: i + 1]):
                continue
            cond = self.ex(d)
            rest = disjuncts[:i] + disjuncts[i + 1:]
            t = self.fn.fresh()
            self.emit(f"if {cond}:")
            with self.indented():
                self.emit(f"{t} = {self.ex(e.coll, rep)}")
            self.emit("else:")
            with self.indented():
                if not rest:
                    self.emit(f"{t} = {'0' if rep == 'mask' else '_EMPTY'}")
                else:
                    filt = rest[0]
                    for x in rest[1:]:
                        filt = ir.BinOp(x.type, x.span, "or", filt, x)
                    self.emit(f"{t} = {self.ex(ir.Agg(e.type, e.span, e.op, e.var, e.coll, e.elem, filt), rep)}")
            return t
        return None

    def attr_test(self, e: ir.BinOp) -> str | None:
        """``X.attr == constant`` (or another comparison) for a component X: a table by
        component id, as the attribute's column is (X is computed as it would be)."""
        if e.op not in ("==", "!=", "<", "<=", ">", ">="):
            return None
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if not (isinstance(side, ir.AttrRef) and isinstance(other, ir.Const) and isinstance(side.obj.type, TComp)):
                continue
            prov = self.rules.kinds[side.kind].provenance.get(side.attr)
            if prov is not None and prov.kind == "unspecified":
                continue
            hole = ir.Local(side.obj.type, side.obj.span, " x")
            probe = ir.AttrRef(side.type, side.span, hole, side.kind, side.attr)
            test = ir.BinOp(e.type, e.span, e.op, probe, other) if side is e.left else ir.BinOp(e.type, e.span, e.op, other, probe)
            table = self.table(("attr", side.kind, side.attr, e.op, repr(other.value), side is e.left), [side.obj.type], self.tester(test, " x"))
            if table is None:
                return None
            return f"{table}[{self.ex(side.obj)}]"
        return None

    def tester(self, test: ir.Expr, name: str) -> Callable[[list[object]], str]:
        """A table cell: the truth of ``test`` when the local ``name`` has the value given."""
        m = self.machine()

        def cell(values: list[object]) -> str:
            return pyrepr(bool(m.ev(test, ChainMap({name: values[0]}))))

        return cell

    def invariant_parts(self, e: ir.Expr, bound: set[str]) -> list[ir.Expr]:
        """The largest parts of ``e`` that read none of the locals ``bound`` (the loop's member and
        the members of the loops inside it), cannot fail and are worth computing once: an
        aggregate, or a definition that is neither remembered nor a table."""
        if isinstance(e, (ir.Const, ir.Local, ir.Fail)) or id(e) in self.subst:
            return []
        if not (free_locals(e) & bound) and self.costly(e) and not self.analysis.can_raise(e):
            return [e]
        if isinstance(e, ir.Agg):
            inner = bound | {e.var}
            return [*self.invariant_parts(e.coll, bound), *(p for x in (e.filt, e.elem) if x is not None for p in self.invariant_parts(x, inner))]
        if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            return self.invariant_parts(e.left, bound)  # (the right side may not be evaluated)
        if isinstance(e, ir.Cond):
            return self.invariant_parts(e.cond, bound)
        out: list[ir.Expr] = []
        for f in vars(e).values():
            if isinstance(f, ir.Expr):
                out.extend(self.invariant_parts(f, bound))
            elif isinstance(f, list):
                for x in f:
                    if isinstance(x, ir.Expr):
                        out.extend(self.invariant_parts(x, bound))
        return out

    def costly(self, e: ir.Expr) -> bool:
        if isinstance(e, ir.Agg):
            return True
        if isinstance(e, ir.CallDef):
            return e.name not in self.cached and e.name not in self.def_tables
        return False

    def tabled_agg(self, e: ir.Agg) -> tuple[str, str | None] | None:
        """An aggregate over a set whose test depends on no state (only on the member and other
        locals of finite types): the members that pass are a mask computed when the engine is
        generated, and the aggregate is a few operations on masks."""
        op = e.op
        if op not in ("set", "count", "the", "any", "all") or rep_of(e.coll.type) != "mask" or not isinstance(e.coll.type, TSet):
            return None
        is_var = isinstance(e.elem, ir.Local) and e.elem.name == e.var
        tests: list[tuple[ir.Expr, bool]] = [] if e.filt is None else [(e.filt, True)]
        if op in ("set", "the") and not is_var:
            return None
        if op == "any":
            tests.append((e.elem, True))
        elif op == "all":
            tests.append((e.elem, False))
        if not tests and op != "the":
            return None
        passing = self.pure_mask(e.var, e.coll.type.elem, tests) if tests else None
        if passing is None and tests:
            return None
        coll = self.ex(e.coll, "mask")
        if op == "set":
            return f"({coll} & {passing})", "mask"
        if op == "count":
            return f"({coll} & {passing}).bit_count()", None
        if op == "any":
            return f"({coll} & {passing} != 0)", None
        if op == "all":
            return f"({coll} & {passing} == 0)", None
        t, k = self.fn.fresh(), self.fn.fresh("k")
        self.emit(f"{t} = {coll}" + (f" & {passing}" if passing is not None else ""))  # one member, or fail
        self.emit(f"{k} = {t}.bit_count()")
        self.emit(f"if {k} != 1:")
        self.emit(f"    _the_fail({k}, {at(e.span)})")
        return f"({t}.bit_length() - 1)", None

    def pushdown(self, e: ir.Agg, probe: bool = False) -> tuple[str, ir.Expr | None] | None:
        """``x for x in S if … and T(x) and …``: visit only the members of S that pass T, when the
        tests skipped for the others cannot fail (so skipping them changes nothing).  T is
        ``x in E`` (E may be a union, written ``any(x in E(p) for p in P)``) or a test that
        depends on no state (a mask computed when the engine is generated).  Returns (the mask
        of the members to visit, the remaining filter); with ``probe``, emits nothing."""
        if e.filt is None or rep_of(e.coll.type) != "mask" or not isinstance(e.coll.type, TSet):
            return None
        conjuncts = and_chain(e.filt)
        taken: list[tuple[int, ir.Expr | None, str | None]] = []  # (position, E, mask of a pure test)
        for i, c in enumerate(conjuncts):
            member = membership(c, e.var)
            mask = self.pure_mask(e.var, e.coll.type.elem, [(c, True)]) if member is None else None
            if mask is None and self.analysis.can_raise(c):
                break  # the tests after this one must still be made for every member
            if member is not None or mask is not None:
                taken.append((i, member, mask))
        if not taken:
            return None
        if probe:
            return "", None
        restrict = [self.materialize(self.ex(e.coll))]
        for _, member, mask in taken:
            if mask is not None:
                restrict.append(mask)
            elif isinstance(member, ir.Agg):  # any(x in E(p) for p in P): the union of the E(p)
                assert isinstance(member.elem, ir.BinOp)
                u = self.fn.fresh("u")
                pv = self.fn.fresh(f"x_{ident(member.var)}_")
                p_elem = member.coll.type.elem if isinstance(member.coll.type, TSet) else TAny()
                self.emit(f"{u} = 0")
                self.emit(f"for {pv} in {self.iterate(member.coll)}:")
                saved = self.scope
                self.scope = Scope(saved, {member.var: Loc(pv, p_elem, rep_of(p_elem))})
                with self.loop():
                    self.emit(f"{u} |= {self.ex(member.elem.right, 'mask')}")
                self.scope = saved
                restrict.append(u)
            else:
                assert member is not None
                restrict.append(self.ex(member, "mask"))
        positions = {i for i, _, _ in taken}
        filt: ir.Expr | None = None
        for i, x in enumerate(conjuncts):
            if i not in positions:
                filt = x if filt is None else ir.BinOp(x.type, x.span, "and", filt, x)
        return " & ".join(restrict), filt

    # ---- showing values (observations, action strings, messages) ----------------------------

    def show(self, t: Type | None, x: str) -> str:
        """An expression giving the text ``dsl/values.show`` gives for value ``x`` of type ``t``."""
        if isinstance(t, TBool):
            return f"('yes' if {x} else 'no')"
        if isinstance(t, TPlayer):
            return f"_pname({x})"
        if isinstance(t, TComp):
            return f"_DISP[{x}]"
        if isinstance(t, TEnum):
            labels = self.const(pyrepr(tuple(self.rules.enums[t.name].labels)))
            return f"{labels}[{x}]"
        if isinstance(t, TSet):
            if rep_of(t) == "fs":
                return f"(', '.join([{self.show(t.elem, 'e')} for e in sorted({x})]) if {x} else 'none')"
            return f"(', '.join([{self.show(t.elem, 'e')} for e in _BITS[{x}]]) if {x} else 'none')"
        if isinstance(t, TMap):
            return f"'; '.join([_pname(i) + ': ' + {self.show(t.elem, 'e')} for i, e in enumerate({x}) if e is not None])"
        return f"str({x})"

    def show_fn(self, t: Type | None) -> str:
        """A named function showing values of type ``t`` (one per distinct type)."""
        body = self.show(t, "x")
        name = self.shows.get(body)
        if name is None:
            name = f"_show{len(self.shows)}"
            self.shows[body] = name
        return name

    # ---- definitions --------------------------------------------------------------------------

    def compile_def(self, d: ir.Definition) -> list[str]:
        self.fn = Fn(1)
        self.scope = Scope()
        params = ["S: State"]
        for name, t in d.formals:
            py = self.fn.fresh(f"a_{ident(name)}_")
            self.scope.names[name] = Loc(py, t, rep_of(t))
            params.append(f"{py}: {py_type(t)}")
        if self.needs_call_site(d):
            params.append("_at: tuple[int, int]")
        rt = py_type(d.ret)
        rep = rep_of(d.ret)
        expr = self.bodies[d.name]
        if expr is not None:
            res = self.ex(expr, rep)
            self.emit(f"_r: {rt} = {res}")
        else:
            self.compile_cases(d, rt, rep)
        body = self.fn.lines
        head = [f"def D_{ident(d.name)}({', '.join(params)}) -> {rt}:"]
        tail = []
        if d.name in self.cached:
            # no arguments: the value changes only when what it reads does (see changed()); it is
            # remembered here, and every call site looks for it before calling
            g, key = self.cache_slot[d.name]
            tail = [f"    S.C[{g}][{key}] = _r"]
        head += self.prologue()
        return mark_unread(head + reuse_lookups(body) + tail + ["    return _r"])

    def compile_cases(self, d: ir.Definition, rt: str, rep: str | None) -> None:
        cases = d.cases or []
        # all guards first, in order, as the interpreter does
        guards = [self.materialize(self.ex(c.guard)) for c in cases]
        guard_var = []
        for g in guards:
            if _SIMPLE.match(g) and g not in ("True", "False"):
                guard_var.append(g)
            else:
                t = self.fn.fresh("g")
                self.emit(f"{t} = {g}")
                guard_var.append(t)
        wins = []
        for i, c in enumerate(cases):
            over = [guard_var[j] for j, o in enumerate(cases) if c.name in o.overrides]
            if over:
                w = self.fn.fresh("w")
                self.emit(f"{w} = {guard_var[i]} and not ({' or '.join(over)})")
                wins.append(w)
            else:
                wins.append(guard_var[i])
        k = self.fn.fresh("k")
        self.emit(f"{k} = 0")
        self.emit(f"_r: {rt} = {zero_of(d.ret)}")
        vals = []
        for i, c in enumerate(cases):
            v = self.fn.fresh("v")
            vals.append(v)
            self.emit(f"if {wins[i]}:")
            with self.indented():
                code = self.ex(c.value, rep)
                self.emit(f"{v}: {rt} = {code}")
                self.emit(f"if not {k}:")
                self.emit(f"    _r = {v}")
                self.emit(f"{k} += 1")
        self.emit(f"if not {k}:")
        with self.indented():
            if d.otherwise is not None:
                code = self.ex(d.otherwise, rep)
                self.emit(f"_r = {code}")
            else:
                msg = f"no case of '{d.name}' applies"
                self.emit(f"_raise('incomplete', {pyrepr(msg)}, *_at)")
        if len(cases) > 1:
            # several cases apply: they must agree (the first one's value is _r)
            differ = " or ".join(f"({wins[i]} and {vals[i]} != _r)" for i in range(1, len(cases)))
            self.emit(f"elif {k} > 1 and ({differ}):")
            items = ", ".join(f"({wins[i]}, {pyrepr(c.name)}, {vals[i]} if {wins[i]} else None, ({at(c.span)}))" for i, c in enumerate(cases))
            self.emit(f"    _agree({pyrepr(d.name)}, [{items}])")

    def prologue(self) -> list[str]:
        out = []
        if "C" in self.fn.uses:
            out.append("    C = S.C")
        if "Z" in self.fn.uses:
            out.append("    Z = S.z")
        if "V" in self.fn.uses:
            out.append("    V = S.v")
        if "n" in self.fn.uses:
            out.append("    n = S.n")
        return out

    # ---- the flow -----------------------------------------------------------------------------

    def compile_flow(self) -> list[list[str]]:
        """The flow as Python functions, each running until the next decision or the end.

        ``_r0`` runs the flow from its start and ``_rK`` resumes it at decision point K, so a state
        needs only the number of the point it waits at: nothing is re-entered or skipped.  A
        resume function holds the rest of the decision's block and then what follows the block: the
        next round of the enclosing loop, or the statements after the enclosing construct.  Those
        continuations are spelled in place when they are short and are shared functions ``_kN``
        otherwise.  Locals that live across a decision are in the slot list ``L``; anything else a
        continuation needs is computed inside it."""
        # every statement counts toward the step budget, but when even the whole flow cannot
        # execute that many statements the count can never exceed it
        self.bounded = self.statement_bound(self.rules.flow) <= STEP_BUDGET
        self.fn = Fn(0)
        self.scope = Scope()
        flow = self.rules.flow
        span = flow[-1].span if flow else Span(1, 1, 1, 1)
        self.end_line = f"_raise('incomplete', \"the flow ended without a result: no 'end winners' was reached\", {at(span)})"
        with self.capture_rel():
            top = self.block(flow, tail=None)
        params = "S: State, a: Any"
        fns = [self.function("_r0", params, self.after(top, -1), resume=True)]
        fast: list[str] = []
        for p in range(1, len(self.points) + 1):
            lines, rec, i = self.resumes[p]
            if p not in self.loop_draws:
                fns.append(self.function(f"_r{p}", params, lines + self.after(rec, i), resume=True))
                continue
            # a draw repeated at the same point: apply_action makes it itself, and calls _aK for
            # what follows the last one
            fns.append(self.function(f"_a{p}", "S: State", self.after(rec, i), resume=True))
            fns.append(self.function(f"_r{p}", params, [*lines, f"_a{p}(S)"], resume=True))
            fast.append(f"{'if' if not fast else 'elif'} pc == {p}:")
            fast.extend("    " + x for x in self.inline_body([*lines, f"_a{p}(S)"]))
        self.fast = hoist_annotations(fast)
        done: set[int] = set()
        while len(done) < len(self.cont_names):
            for cont, name in list(self.cont_names.items()):
                if id(cont) not in done:
                    done.add(id(cont))
                    fns.append(self.function(name, "S: State" + ("" if self.bounded else ", st: int"), self.cont_body(cont), resume=False))
        return fns

    def function(self, name: str, params: str, body: list[str], resume: bool) -> list[str]:
        """One function of the flow: the state's lists it uses are loaded first."""
        lines = mirror_slots(reuse_lookups(hoist_annotations(fill_empty_blocks(["    " + x for x in body]))))
        text = code_only(lines)
        used = [v for v in ("Z", "V", "L", "loc", "C") if re.search(rf"\b{v}\[", text)]
        head = [f"def {name}({params}) -> None:"]
        if len(used) >= 3:
            # S.k holds the state's lists (zones, variables, slots, locations, caches) in one tuple
            head.append("    " + ", ".join(v if v in used else "_" for v in ("Z", "V", "L", "loc", "C")) + " = S.k")
        else:
            head += [f"    {v} = S.{_STATE_LIST[v]}" for v in used]
        if re.search(r"\bn\b", text):
            head.append("    n = S.n")
        if resume and not self.bounded and re.search(r"\bst\b", text):
            # the step budget counts statements between two decisions, so it starts afresh here
            head.append("    st = _STEP_BUDGET + 1")
        return mark_unread(head + lines)

    def inline_body(self, body: list[str]) -> list[str]:
        """Code of the flow spelled inside State.apply_action (``self`` and ``action``)."""
        lines = mirror_slots(reuse_lookups(fill_empty_blocks(["    " + x for x in body])))
        text = code_only(lines)
        head = [f"{v} = self.{_STATE_LIST[v]}" for v in ("Z", "V", "L", "loc", "C") if re.search(rf"\b{v}\[", text)]
        if re.search(r"\bn\b", text):
            head.append("n = self.n")
        names = {"S": "self", "a": "action"}
        # (apply_action has the options in o already)
        return head + [map_code(x[4:], lambda c: re.sub(r"\b[Sa]\b", lambda m: names[m.group(0)], re.sub(r"\bS\.o \^", "o ^", c))) for x in lines]

    def after(self, rec: BlockRec, i: int) -> list[str]:
        """Code for the statements after the i-th of a block, then for what follows the block."""
        out: list[str] = []
        for piece in rec.pieces[i + 1:]:
            out.extend(piece.lines)
            if not piece.falls:
                return out
        if rec.tail is None:
            return [*out, self.end_line]
        body = self.cont_body(rec.tail)
        if code_size(body) <= INLINE_CONT:
            return out + body
        name = self.cont_names.get(rec.tail)
        if name is None:
            name = self.cont_names[rec.tail] = f"_k{len(self.cont_names) + 1}"
        return [*out, f"{name}(S{'' if self.bounded else ', st'})"]

    def cont_body(self, cont: Cont) -> list[str]:
        got = self.cont_memo.get(cont)
        if got is None:
            got = cont.advance + cont.loop + self.after(cont.rec, cont.index)
            self.cont_memo[cont] = got
        return got

    @contextmanager
    def capture_rel(self) -> Iterator[list[str]]:
        """Compile into a separate list of lines indented from zero (code that is also used
        elsewhere, at another depth)."""
        fn = self.fn
        saved, saved_ind = fn.lines, fn.ind
        fn.lines, fn.ind = [], 0
        buf = fn.lines
        try:
            yield buf
        finally:
            fn.lines, fn.ind = saved, saved_ind

    def splice(self, lines: list[str]) -> None:
        pad = "    " * self.fn.ind
        self.fn.lines.extend(pad + x for x in lines)

    def alloc(self) -> str:
        k = self.slot_top
        self.slot_top += 1
        self.slot_max = max(self.slot_max, self.slot_top)
        return f"L[{k}]"

    def bind(self, scope: Scope, name: str, t: Type, slot: bool, rep: str | None = None) -> Loc:
        code = self.alloc() if slot else self.fn.fresh(f"x_{ident(name)}_")
        loc = Loc(code, t, rep if rep is not None else rep_of(t))
        scope.names[name] = loc
        return loc

    def statement_bound(self, stmts: list[ir.Stmt]) -> float:
        """At most how many statements the block can execute in one run between two decisions
        (inf when a loop can go round without end).  A loop whose every round waits for a decision
        runs at most the end of one round and the start of the next between two decisions."""
        total = 0.0
        for s in stmts:
            total += 1
            if isinstance(s, ir.If):
                total += max(self.statement_bound(s.then), self.statement_bound(s.else_))
            elif isinstance(s, ir.ForEach):
                total += self.members_bound(s.coll) * self.statement_bound(s.body)
            elif isinstance(s, (ir.Repeat, ir.While, ir.RepeatUntil)):
                count = s.count.value if isinstance(s, ir.Repeat) and isinstance(s.count, ir.Const) else None
                if self.waits(s.body):
                    total += 2 * (1 + self.statement_bound(s.body))
                elif isinstance(count, int):
                    total += max(0, count) * self.statement_bound(s.body)
                else:
                    total = float("inf")
            elif isinstance(s, ir.CallProc):
                body = self.proc(s.name).body
                assert body is not None
                total += self.statement_bound(body)
        return total

    def waits(self, stmts: list[ir.Stmt]) -> bool:
        """Does running the block always reach a decision (or the end) before it finishes?"""
        for s in stmts:
            if isinstance(s, (ir.Choose, ir.End)):
                return True
            if isinstance(s, ir.Draw) and isinstance(s.count, ir.Const) and not isinstance(s.count.value, bool) \
                    and isinstance(s.count.value, int) and s.count.value >= 1:
                return True
            if isinstance(s, ir.ChooseEach) and isinstance(s.players, ir.Builtin) and s.players.op == "players":
                return True  # there is always a player
            if isinstance(s, ir.If) and self.waits(s.then) and self.waits(s.else_):
                return True
            if isinstance(s, ir.ForEach) and isinstance(s.coll, ir.Builtin) and s.coll.op == "players" and self.waits(s.body):
                return True
            if isinstance(s, ir.Repeat) and isinstance(s.count, ir.Const) and not isinstance(s.count.value, bool) \
                    and isinstance(s.count.value, int) and s.count.value >= 1 and self.waits(s.body):
                return True
            if isinstance(s, ir.CallProc):
                body = self.proc(s.name).body
                if body is not None and self.waits(body):
                    return True
        return False

    def members_bound(self, coll: ir.Expr) -> float:
        """At most how many members a set can have."""
        t = coll.type
        if isinstance(coll, ir.IntRange) and isinstance(coll.lo, ir.Const) and isinstance(coll.hi, ir.Const):
            return max(0, int(coll.hi.value) - int(coll.lo.value) + 1)  # type: ignore[arg-type]
        if rep_of(t) == "mask":
            return 8 * ((max(len(self.rules.components), self.layout.maxp, 2, *(len(e.values) for e in self.rules.enums.values())) + 7) // 8)
        return float("inf")

    def tick(self, span: Span) -> None:
        if self.bounded:
            return  # the budget cannot run out: no run between two decisions is that long
        # st counts down the statements left in the budget (the interpreter's tick)
        self.emit("st -= 1")
        self.emit("if not st:")
        self.emit(f"    _over({at(span)})")

    def suspend(self, point: int, cp: str, options: str) -> None:
        self.emit(f"S.pc = {point}")
        self.emit(f"S.cp = {cp}")
        self.emit(f"S.o = {options}")
        self.emit("return")

    def point(self, kind: str, s: ir.Stmt, label: str = "", secret: bool = False, t: Type | None = None) -> int:
        self.points.append(Point(kind, label, secret, t, s.span))
        return len(self.points)

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

    def block(self, stmts: list[ir.Stmt], scope: Scope | None = None, tail: Cont | None = None) -> BlockRec:
        """A block: its own scope (the interpreter copies the environment on entry).  Emits the code
        that runs the block from its start; the code of every statement is also kept in the
        returned record, for the functions that resume after a decision inside the block.
        ``tail`` is what runs when the block is done (None: the flow is over)."""
        saved_scope, saved_top = self.scope, self.slot_top
        self.scope = scope if scope is not None else Scope(saved_scope)
        rec = BlockRec(tail)
        for i, s in enumerate(stmts):
            with self.capture_rel() as buf:
                falls = self.stmt(s, stmts[i + 1:], rec, i)
            rec.pieces.append(Piece(buf, falls))
            if rec.falls:
                # what follows a statement that never finishes (end, or a decision) is reached
                # only by resuming
                self.splice(buf)
                rec.falls = falls
        if not stmts:
            self.emit("pass")
        self.scope, self.slot_top = saved_scope, saved_top
        return rec

    def comment(self, s: ir.Stmt, what: str) -> None:
        self.emit(f"# {s.span.line}:{s.span.col} {comment_text(what)}")

    def stmt(self, s: ir.Stmt, rest: list[ir.Stmt], rec: BlockRec, i: int) -> bool:
        """Emit a statement's code; False when control never passes its end (it ends the game or
        waits for a decision)."""
        self.rest = rest
        after = self.block_points(rest) > 0  # does a decision follow in this block?
        name = type(s).__name__
        if isinstance(s, (ir.Draw, ir.Choose, ir.ChooseEach, ir.If, ir.ForEach, ir.Repeat, ir.RepeatUntil, ir.While, ir.CallProc)):
            return bool(getattr(self, "s_" + name)(s, after, rec, i))
        getattr(self, "s_" + name)(s, after)
        return not isinstance(s, ir.End)

    def s_Let(self, s: ir.Let, after: bool) -> None:
        self.comment(s, f"let {s.name}")
        self.tick(s.span)
        rep = rep_of(s.value.type)
        if isinstance(s.value.type, TSet) and isinstance(s.value.type.elem, TAny):
            # an empty set whose element type only later assignments tell
            from rulecheck.dsl.walk import walk_stmts

            later = [x for x in walk_stmts(self.rest) if isinstance(x, ir.Assign) and x.local and x.name == s.name]
            rep = "fs" if any(rep_of(x.value.type) == "fs" for x in later) else "mask"
        v = self.ex(s.value, rep)
        loc = self.bind(self.scope, s.name, s.value.type, after, rep)
        self.emit(f"{loc.code} = {v}")
        from rulecheck.dsl.walk import walk_stmts

        if not any(isinstance(x, ir.Assign) and x.local and x.name == s.name for x in walk_stmts(self.rest)):
            # (a local that is never set again keeps the range of its value)
            loc.bounds = self.elem_bounds(s.value) if isinstance(s.value.type, TSet) else self.value_bounds(s.value)

    def s_Assign(self, s: ir.Assign, after: bool) -> None:
        self.comment(s, f"set {s.name}")
        self.tick(s.span)
        target_rep = self.scope.get(s.name).rep if s.local else rep_of(s.type)
        v = self.materialize(self.ex(s.value, target_rep))
        t = s.type
        if isinstance(t, TInt) and (t.lo is not None or t.hi is not None):
            conds = []
            if t.lo is not None:
                conds.append(f"{v} < {t.lo}")
            if t.hi is not None:
                conds.append(f"{v} > {t.hi}")
            self.emit(f"if {' or '.join(conds)}:")
            msg1, msg2 = f"'{s.name}' would become ", f", outside {t.show()}"
            self.emit(f"    _raise('range', {pyrepr(msg1)} + str({v}) + {pyrepr(msg2)}, {at(s.span)})")
        if s.local:
            # a name bound by let in an enclosing block keeps its new value after this block
            loc = self.scope.get(s.name)
            self.emit(f"{loc.code} = {v}")
            self.epoch += 1  # (a zone instance may be numbered by it)
            self.local_epoch += 1  # (and a set of players who chose may be it)
            return
        var = self.rules.vars[s.name]
        idx = self.index_code(var.index, s.index, self.layout.var_base[var.name], var.name)
        self.emit(f"V[{idx}] = {v}")
        self.changed({"var:" + s.name})

    def move_one(self, comp: str, dest: str) -> str:
        if not re.fullmatch(r"[A-Za-z_]\w*", comp):
            t = self.fn.fresh("c")
            self.emit(f"{t} = {comp}")
            comp = t
        if not re.fullmatch(r"\w+", dest):
            t = self.fn.fresh("d")
            self.emit(f"{t} = {dest}")
            dest = t
        b, old = self.fn.fresh("b"), self.fn.fresh("o")
        self.emit(f"{b} = 1 << {comp}")
        self.emit(f"{old} = loc[{comp}]")
        self.emit(f"Z[{old}] ^= {b}")
        self.emit(f"Z[{dest}] |= {b}")
        self.emit(f"loc[{comp}] = {dest}")
        return old

    def s_Move(self, s: ir.Move, after: bool) -> None:
        self.comment(s, f"move to {s.zone}")
        self.tick(s.span)
        single = not isinstance(s.what.type, TSet)
        what = self.ex(s.what, None if single else "mask")
        if not single and not re.fullmatch(r"[A-Za-z_]\w*", what):
            # a snapshot: the moves below change the zone the set may be read from
            t = self.fn.fresh()
            self.emit(f"{t} = {what}")
            what = t
        dest = self.materialize(self.zone_instance(s.zone, s.index))
        known = self.known_zone(s.what) if single else None
        if known is not None:
            # the component is where it was chosen from or drawn to
            b = self.fn.fresh("b")
            self.emit(f"{b} = 1 << {what}")
            self.emit(f"Z[{known[1]}] ^= {b}")
            self.emit(f"Z[{dest}] |= {b}")
            self.emit(f"loc[{what}] = {dest}")
            self.changed({"zone:" + known[0]})
        elif single:
            old = self.move_one(what, dest)
            self.source_changed(old, s.what.type)
        else:
            src = self.source_of(s.what)
            c = self.fn.fresh("c")
            if src is not None:
                # every component moved comes from one zone instance
                self.emit(f"Z[{src[1]}] ^= {what}")
                self.emit(f"for {c} in _BITS[{what}]:")
                self.emit(f"    loc[{c}] = {dest}")
                self.changed({"zone:" + src[0]})
            else:
                old = self.fn.fresh("o")
                self.emit(f"for {c} in _BITS[{what}]:")
                with self.loop():
                    self.emit(f"{old} = loc[{c}]")
                    self.emit(f"Z[{old}] ^= 1 << {c}")
                    self.emit(f"loc[{c}] = {dest}")
                    self.source_changed(old, s.what.type)
            self.emit(f"Z[{dest}] |= {what}")
        self.changed({"zone:" + s.zone})
        self.epoch += 1

    def known_zone(self, e: ir.Expr) -> tuple[str, str] | None:
        """(zone, instance) when ``e`` is a local known to be a component in that instance."""
        if isinstance(e, ir.Local):
            where = self.scope.get(e.name).where
            if where is not None and where[2] == self.epoch:
                return where[0], where[1]
        return None

    def zone_of_options(self, e: ir.Expr) -> tuple[str, str] | None:
        """(zone, instance) when the options of a decision are a zone instance whose number
        stays right after the decision (fixed, or indexed by a local that lives in a slot)."""
        if not isinstance(e, ir.ZoneRef):
            return None
        z = self.rules.zones[e.zone]
        if isinstance(z.index, TInt):
            return None
        if e.index is None or isinstance(e.index, ir.Const):
            return e.zone, self.zone_instance(e.zone, e.index)
        if isinstance(e.index, ir.Local) and self.scope.get(e.index.name).code.startswith("L["):
            return e.zone, self.zone_instance(e.zone, e.index)
        return None

    def source_of(self, e: ir.Expr) -> tuple[str, str] | None:
        """(zone, instance) when every member of the set ``e`` is in that zone instance: a zone,
        or a part of one (a filter over it, or a difference); the instance code is cheap and
        cannot fail, as it was just computed."""
        if isinstance(e, ir.Agg) and e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
            return self.source_of(e.coll)
        if isinstance(e, ir.BinOp) and e.op == "diff":
            return self.source_of(e.left)
        if isinstance(e, ir.ZoneRef):
            z = self.rules.zones[e.zone]
            if e.index is None or (isinstance(e.index, (ir.Local, ir.Const)) and not isinstance(z.index, TInt)):
                return e.zone, self.materialize(self.zone_instance(e.zone, e.index))
        return None

    def s_Draw(self, s: ir.Draw, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"draw from {s.src} to {s.dst}")
        p = self.point("chance", s)
        self.chance_zones[p] = s.src
        count_value = s.count.value if isinstance(s.count, ir.Const) else None
        once = count_value == 1
        self.tick(s.span)
        count = None if once else self.materialize(self.ex(s.count))
        src = self.materialize(self.zone_instance(s.src, s.src_index))
        dst = self.materialize(self.zone_instance(s.dst, s.dst_index))
        slots: dict[str, str] = {}
        for key, code in (("src", src), ("dst", dst)):
            if re.fullmatch(r"\d+", code):
                slots[key] = code  # a fixed zone instance needs no slot
            else:
                slots[key] = self.alloc()
                self.emit(f"{slots[key]} = {code}")
        if count is not None:
            # the draws still to make, this one included
            slots["count"] = self.alloc()
            self.emit(f"{slots['count']} = {count}")
        bind = None
        if s.bind is not None:
            kinds = self.rules.zones[s.src].kinds
            bind = self.bind(self.scope, s.bind, TComp(kinds[0] if len(kinds) == 1 else None), after)
        exhausted = f"_raise('exhaustion', 'cannot draw from ' + _ZLABEL[{slots['src']}] + ': it is empty', {at(s.span)})"
        # at least one draw when the count is a positive constant; otherwise the count decides
        certain = isinstance(count_value, int) and not isinstance(count_value, bool) and count_value >= 1
        if not certain:
            self.emit(f"if {slots['count']} > 0:")
            self.fn.ind += 1
        self.emit(f"o = Z[{slots['src']}]")
        self.emit("if not o:")
        self.emit(f"    {exhausted}")
        self.suspend(p, "-1", "o")
        if not certain:
            self.fn.ind -= 1
        self.epoch += 1
        if bind is not None and re.fullmatch(r"\d+|L\[\d+\]", slots["dst"]):
            bind.where = (s.dst, slots["dst"], self.epoch)
        with self.capture_rel() as resume:
            # the drawn component was in the source: no need to look up where it is
            b = self.fn.fresh("b")
            self.emit(f"{b} = 1 << a")
            # (the source is left as o, unless the destination may be the same zone)
            apart = s.src != s.dst
            if apart:
                self.emit(f"o = S.o ^ {b}")  # (the options are the source)
                self.emit(f"Z[{slots['src']}] = o")
            else:
                self.emit(f"Z[{slots['src']}] ^= {b}")
            self.emit(f"Z[{slots['dst']}] |= {b}")
            self.emit(f"loc[a] = {slots['dst']}")
            self.changed({"zone:" + s.src, "zone:" + s.dst})
            if bind is not None:
                self.emit(f"{bind.code} = a")
            if not once:
                k = self.fn.fresh("k")
                self.emit(f"{k} = {slots['count']} - 1")
                self.emit(f"{slots['count']} = {k}")
                self.emit(f"if {k}:")
                with self.indented():
                    if not apart:
                        self.emit(f"o = Z[{slots['src']}]")
                    self.emit("if not o:")
                    self.emit(f"    {exhausted}")
                    self.emit("S.o = o  # the same point and chance again")
                    self.emit("return")
        self.resumes[p] = (resume, rec, i)
        if not once:
            self.loop_draws.add(p)
        return not certain

    def pending_options(self, code: str, t: Type) -> str:
        """Options as the state keeps them: a mask, or a sorted tuple of numbers."""
        if rep_of(TSet(t)) == "fs":
            return f"tuple(sorted({code}))"
        return code

    def member_tuple(self, code: str, t: Type) -> str:
        """A player's options at a simultaneous decision: the members in ascending order, ready
        for legal_actions and for checking the action."""
        if rep_of(TSet(t)) == "fs":
            return f"tuple(sorted({code}))"
        widest = max([len(self.rules.components), self.layout.maxp, 2, *(len(e.values) for e in self.rules.enums.values())])
        # (small sets recur and are remembered; large ones rarely do: they stay masks, and their
        # members are read when asked for)
        return f"_BITS[{code}]" if widest <= 32 else code

    def decode(self, code: str, t: Type) -> str:
        return f"bool({code})" if isinstance(t, TBool) else code

    def s_Choose(self, s: ir.Choose, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"choose {s.bind}")
        p = self.point("player", s, s.label, s.secret, s.type)
        loc = self.bind(Scope(), s.bind, s.type, after)  # bound after the decision, below
        self.tick(s.span)
        opts = self.materialize(self.ex(s.options))
        who = self.materialize(self.ex(s.chooser))
        msg = f" must choose ({s.label}) but has no option"
        self.emit(f"if not {opts}:")
        self.emit(f"    _raise('incomplete', _pname({who}) + {pyrepr(msg)}, {at(s.span)})")
        self.suspend(p, who, self.pending_options(opts, s.type))
        self.resumes[p] = ([f"{loc.code} = {self.decode('a', s.type)}"], rec, i)
        zone = self.zone_of_options(s.options) if isinstance(s.type, TComp) else None
        if zone is not None:
            loc.where = (zone[0], zone[1], self.epoch)
        self.scope.names[s.bind] = loc
        return False

    def s_ChooseEach(self, s: ir.ChooseEach, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"choose each {s.pvar}: {s.bind}")
        p = self.point("simultaneous", s, s.label, s.secret, s.type)
        loc = self.bind(Scope(), s.bind, TMap(s.type), after)
        self.tick(s.span)
        who = self.materialize(self.ex(s.players))
        per = self.fn.fresh("per")
        self.emit(f"{per}: list[Any] = [None] * n")
        q = self.fn.fresh(f"x_{ident(s.pvar)}_")
        self.emit(f"for {q} in _BITS[{who}]:")
        saved = self.scope
        self.scope = Scope(saved, {s.pvar: Loc(q, TPlayer(), None)})
        with self.loop():
            opts = self.materialize(self.ex(s.options))
            msg = f" must choose ({s.label}) but has no option"
            self.emit(f"if not {opts}:")
            self.emit(f"    _raise('incomplete', _pname({q}) + {pyrepr(msg)}, {at(s.span)})")
            self.emit(f"{per}[{q}] = {self.member_tuple(opts, s.type)}")
        self.scope = saved
        self.emit(f"if {who}:")
        with self.indented():
            self.suspend(p, "-2", per)
        typed = "" if loc.code.startswith("L[") else ": tuple[Any, ...]"
        self.emit(f"{loc.code}{typed} = (None,) * n")
        # apply_actions passes the choices, None for the players outside the decision
        value = "tuple([None if v is None else bool(v) for v in a])" if isinstance(s.type, TBool) else "a"
        self.resumes[p] = ([f"{loc.code}{typed} = {value}"], rec, i)
        if isinstance(s.players, ir.Local):
            loc.among = (id(self.scope.get(s.players.name)), self.local_epoch)
        self.scope.names[s.bind] = loc
        return True

    def s_If(self, s: ir.If, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "if")
        self.tick(s.span)
        cond = self.ex(s.cond)
        done = Cont(rec, i)
        self.emit(f"if {cond}:")
        with self.indented():
            falls = self.block(s.then, tail=done).falls
        if s.else_:
            self.emit("else:")
            with self.indented():
                falls = self.block(s.else_, tail=done).falls or falls
        else:
            falls = True
        return falls

    def loop_order(self, s: ir.ForEach) -> str:
        coll = self.materialize(self.ex(s.coll))
        if s.start is not None:
            start = self.ex(s.start)
            return f"_TURNS[{bare(start)}, {coll}, n, {self.order}]"
        if rep_of(s.coll.type) == "fs":
            return f"tuple(sorted({coll}))"
        return f"_BITS[{coll}]"

    def rounds(self, cont: Cont, head: str, first: list[str], body: ir.Stmt, scope: Scope | None, step: list[str]) -> None:
        """The rounds of a loop that holds decisions: ``head`` tests for another round, ``first``
        starts it, ``step`` ends it.  Also kept in ``cont`` as the continuation 'the next round'."""
        assert isinstance(body, (ir.ForEach, ir.Repeat, ir.While, ir.RepeatUntil))
        self.epoch += 1  # (a later round runs after the moves of this one)
        with self.capture_rel() as loop:
            self.emit(head)
            with self.loop():
                for line in first:
                    self.emit(line)
                falls = self.block(body.body, scope, tail=cont).falls
                if falls:
                    for line in step:
                        self.emit(line)
        if not falls and head.startswith("while ") and not head.startswith("while True"):
            loop[0] = "if " + head[len("while "):]  # the round never ends: it is not a loop
        cont.loop = loop
        cont.advance = list(step)
        self.splice(loop)

    def s_ForEach(self, s: ir.ForEach, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"for each {s.var}")
        elem = s.coll.type.elem if isinstance(s.coll.type, TSet) else TAny()
        saved_top = self.slot_top
        if not self.block_points(s.body):
            self.tick(s.span)
            order = self.loop_order(s)
            x = self.fn.fresh(f"x_{ident(s.var)}_")
            self.emit(f"for {x} in {order}:")
            self.epoch += 1
            member = Loc(x, elem, rep_of(elem))
            if isinstance(s.coll, ir.Local):
                member.among = (id(self.scope.get(s.coll.name)), self.local_epoch)
            with self.loop():
                self.block(s.body, Scope(self.scope, {s.var: member}))
            return True
        order_slot, i_slot = self.alloc(), self.alloc()
        var = Loc(self.alloc(), elem, rep_of(elem))
        self.tick(s.span)
        self.emit(f"{order_slot} = {self.loop_order(s)}")
        self.emit(f"{i_slot} = 0")
        self.rounds(Cont(rec, i), f"while {i_slot} < len({order_slot}):", [f"{var.code} = {order_slot}[{i_slot}]"], s,
                    Scope(self.scope, {s.var: var}), [f"{i_slot} += 1"])
        self.slot_top = saved_top
        return True

    def s_Repeat(self, s: ir.Repeat, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "repeat")
        if not self.block_points(s.body):
            self.tick(s.span)
            count = self.ex(s.count)
            self.emit(f"for _ in range({count}):")
            self.epoch += 1
            with self.loop():
                self.block(s.body)
            return True
        saved_top = self.slot_top
        self.tick(s.span)
        count = self.materialize(self.ex(s.count))
        if not re.fullmatch(r"\d+", count):
            n_slot = self.alloc()
            self.emit(f"{n_slot} = {count}")
            count = n_slot
        i_slot = self.alloc()
        self.emit(f"{i_slot} = 0")
        self.rounds(Cont(rec, i), f"while {i_slot} < {count}:", [], s, None, [f"{i_slot} += 1"])
        self.slot_top = saved_top
        return True

    def conditional_loop(self, s: ir.While | ir.RepeatUntil, stop_when: bool, rec: BlockRec, i: int) -> bool:
        """``while c`` stops when c is false; ``repeat until c`` stops when c is true (and, like
        the interpreter, tests c before the first round)."""
        self.tick(s.span)
        if not self.block_points(s.body):
            self.emit("while True:")
            self.epoch += 1
            with self.loop():
                cond = self.ex(s.cond)
                self.emit(f"if {'' if stop_when else 'not '}{cond}:")
                self.emit("    break")
                self.tick(s.span)
                self.block(s.body)
            return True
        # the test is compiled once, inside the loop, and copied in front of every round
        with self.capture_rel() as test:
            self.fn.loops += 1
            try:
                cond = self.ex(s.cond)
                self.emit(f"if {'' if stop_when else 'not '}{cond}:")
                self.emit("    break")
                self.tick(s.span)
            finally:
                self.fn.loops -= 1
        self.rounds(Cont(rec, i), "while True:", test, s, None, [])
        return True

    def s_While(self, s: ir.While, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "while")
        return self.conditional_loop(s, False, rec, i)

    def s_RepeatUntil(self, s: ir.RepeatUntil, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "repeat until")
        return self.conditional_loop(s, True, rec, i)

    def s_CallProc(self, s: ir.CallProc, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"{s.name}(...)")
        proc = self.proc(s.name)
        assert proc.body is not None
        resumable = self.block_points(proc.body) > 0
        callee = Scope()
        self.tick(s.span)
        saved_top = self.slot_top
        computed = []
        for (name, t), arg in zip(proc.formals, s.args):
            # a local or a constant argument is used where it is: formals cannot be changed, and
            # the caller's locals do not change during the call (a Python local cannot outlive
            # a decision, a slot can)
            if isinstance(arg, ir.Const):
                callee.names[name] = Loc(self.ex(arg, rep_of(t)), t, rep_of(t))
                continue
            if isinstance(arg, ir.Local):
                loc = self.scope.get(arg.name)
                if not resumable or loc.code.startswith("L["):
                    callee.names[name] = Loc(loc.code, t, loc.rep, loc.where)
                    continue
            computed.append((name, t, arg))
        args = self.ex_seq([(a, rep_of(t)) for _, t, a in computed])
        for (name, t, _), code in zip(computed, args):
            loc = self.bind(callee, name, t, resumable)
            self.emit(f"{loc.code} = {code}")
        saved = self.scope
        self.scope = callee
        falls = self.block(proc.body, Scope(callee), tail=Cont(rec, i)).falls
        self.scope = saved
        self.slot_top = saved_top
        return falls

    def s_End(self, s: ir.End, after: bool) -> None:
        self.comment(s, "end")
        self.tick(s.span)
        w = self.materialize(self.ex(s.winners, "mask"))
        self.emit(f"S.w = {w}")
        self.emit("S.pc = -1")
        self.emit("S.cp = -4")
        self.emit("S.o = None")
        self.emit("return")

    def s_Say(self, s: ir.Say, after: bool) -> None:
        # the engine keeps no log: like the interpreter without logging, it evaluates nothing
        self.comment(s, "say")
        self.tick(s.span)

    def s_Shuffle(self, s: ir.Shuffle, after: bool) -> None:
        # draws are uniform over the zone, so a shuffle changes nothing observable
        self.comment(s, f"shuffle {s.zone}")
        self.tick(s.span)


#: (X != 0), (X == 0) with X free of comparisons: a negation flips the comparison
_NONZERO = re.compile(r"\(([^()<>=!]*(?:\([^()<>=!]*\)[^()<>=!]*)*) (==|!=) (0|_EMPTY)\)")
_STATE_LIST = {"Z": "z", "V": "v", "L": "L", "loc": "loc", "C": "C"}
_ASSIGN = re.compile(r"^(\s*)(x_\w+_\d+)(?::[^=]+)? = ")
_DECLARE = re.compile(r"^(\s*)([A-Za-z_]\w*)(: [^=]+?)? = ")
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def index_of(value: object) -> int:
    """The position of a value of a finite type in a table (a component id, a seat, an enum
    value's position, a boolean as 0 or 1)."""
    assert isinstance(value, int)
    return int(value)


def code_only(lines: list[str]) -> str:
    """The code of some lines without string literals and comments (to see which names it uses)."""
    return "\n".join(_STRING.sub("''", line).split("#", 1)[0] for line in lines)


def code_size(lines: list[str]) -> int:
    return sum(1 for line in lines if not line.lstrip().startswith("#"))


def hoist_annotations(lines: list[str]) -> list[str]:
    """A continuation can hold the same code twice (the rest of a loop's round, then the loop):
    a name keeps one annotation, at its first assignment."""
    annotation: dict[str, str] = {}
    first: dict[str, int] = {}
    for k, line in enumerate(lines):
        m = _DECLARE.match(line)
        if m:
            first.setdefault(m.group(2), k)
            if m.group(3):
                annotation.setdefault(m.group(2), m.group(3))
    out = []
    for k, line in enumerate(lines):
        m = _DECLARE.match(line)
        if m and m.group(2) in annotation:
            keep = annotation[m.group(2)] if first[m.group(2)] == k else ""
            line = f"{m.group(1)}{m.group(2)}{keep} = {line[m.end():]}"
        out.append(line)
    return out


_SLOT = re.compile(r"\bL\[(\d+)\]")
_SLOT_SET = re.compile(r"^(\s*)L\[(\d+)\] ([-+]?=) (.*)$")
_GROUP_CONTINUES = re.compile(r"^    (?:else|elif\b|except\b|finally)")


_LOOKUP = re.compile(r"^(\s*)(t\d+) = C\[(\d+)\]\.get\((\d+)\)$")
_CLEAR = re.compile(r"^\s*C\[(\w+)\]\.clear\(\)$")
_LOOP = re.compile(r"^(\s*)(?:for|while) .*:$")


def reuse_lookups(lines: list[str]) -> list[str]:
    """A remembered value looked up again where an earlier lookup of it is sure to have run (the
    earlier one is at this or an enclosing level of the same block) and nothing since can have
    forgotten it: the earlier result is used."""
    active: dict[tuple[str, str], tuple[str, int]] = {}  # (group, key) -> (name, indent)

    def forget(group: str) -> None:
        for key in [k for k in active if group == "*" or k[0] == group]:
            del active[key]

    def cleared(start: int, indent: int) -> set[str]:
        """The groups a loop body starting after line ``start`` clears ("*": any)."""
        out: set[str] = set()
        for line in lines[start + 1:]:
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            m = _CLEAR.match(line)
            if m:
                out.add(m.group(1) if m.group(1).isdigit() else "*")
        return out

    out: list[str] = []
    renamed: dict[str, str] = {}
    k = 0
    while k < len(lines):
        line = lines[k]
        if renamed:
            line = re.sub(r"\bt\d+\b", lambda m: renamed.get(m.group(0), m.group(0)), line)
        if line.strip() and not line.lstrip().startswith("#"):
            indent = len(line) - len(line.lstrip())
            for key in [key for key, (_, level) in active.items() if level > indent]:
                del active[key]
            m = _CLEAR.match(line)
            if m:
                forget(m.group(1) if m.group(1).isdigit() else "*")
            loop = _LOOP.match(line)
            if loop:
                # a later round runs after what this round clears
                for group in cleared(k, indent):
                    forget(group)
            m = _LOOKUP.match(line)
            name = m.group(2) if m else ""
            if m and k + 2 < len(lines) and re.sub(r"\bt\d+\b", lambda x: renamed.get(x.group(0), x.group(0)), lines[k + 1]).strip() == f"if {name} is None:":
                key = (m.group(3), m.group(4))
                if key in active:
                    if active[key][0] != name:
                        renamed[name] = active[key][0]  # the earlier result, under its name
                    k += 3
                    continue
                active[key] = (name, len(m.group(1)))
                out.append(line)
                out.extend(re.sub(r"\bt\d+\b", lambda x: renamed.get(x.group(0), x.group(0)), x) for x in lines[k + 1:k + 3])
                k += 3
                continue
        out.append(line)
        k += 1
    return out


def map_code(line: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the code of a line, leaving its string literals and comment alone."""
    out, pos = [], 0
    for m in _STRING.finditer(line):
        out.append(fn(line[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    rest = line[pos:]
    code, hash_, comment = rest.partition("#")
    out.append(fn(code) + hash_ + comment)
    return "".join(out)


def mirror_slots(lines: list[str]) -> list[str]:
    """Within one function, a slot read more often than written is mirrored in a Python local
    ``Lk`` (a local is cheaper to read than a list item): the local is loaded before the first
    top-level statement that uses the slot (unless that statement sets it), and every write to
    the slot sets both."""
    reads: dict[int, int] = {}
    writes: dict[int, int] = {}
    first: dict[int, int] = {}  # slot -> line where the first top-level statement using it starts
    group = 0
    for k, line in enumerate(lines):
        if line.startswith("    ") and not line.startswith("     ") and not _GROUP_CONTINUES.match(line):
            group = k
        code = map_code(line, lambda c: c)
        code = _STRING.sub("''", code).split("#", 1)[0]
        m = _SLOT_SET.match(code)
        for slot in (int(x) for x in _SLOT.findall(code)):
            first.setdefault(slot, group)
            if m and int(m.group(2)) == slot and code.count(f"L[{slot}]") == 1:
                writes[slot] = writes.get(slot, 0) + (m.group(3) == "=")
                reads[slot] = reads.get(slot, 0) + (m.group(3) != "=")
            else:
                reads[slot] = reads.get(slot, 0) + 1
    mirrored: dict[int, bool] = {}  # slot -> needs loading
    for slot, start in first.items():
        m = _SLOT_SET.match(lines[start])
        sets_first = bool(m and int(m.group(2)) == slot and m.group(3) == "=" and f"L[{slot}]" not in m.group(4))
        if 2 * reads.get(slot, 0) - 2 * writes.get(slot, 0) - (0 if sets_first else 4) > 0:
            mirrored[slot] = not sets_first

    def swap(code: str) -> str:
        return _SLOT.sub(lambda m: f"L{m.group(1)}" if int(m.group(1)) in mirrored else m.group(0), code)

    loads: dict[int, list[int]] = {}
    for slot, load in mirrored.items():
        if load:
            loads.setdefault(first[slot], []).append(slot)
    out: list[str] = []
    typed: set[int] = set()  # a slot holds values of several types in turn: the local is Any

    def declare(slot: int) -> str:
        if slot in typed:
            return ""
        typed.add(slot)
        return ": Any"

    for k, line in enumerate(lines):
        for slot in sorted(loads.get(k, [])):
            out.append(f"    L{slot}{declare(slot)} = L[{slot}]")
        m = _SLOT_SET.match(line)
        if m and int(m.group(2)) in mirrored:
            ind, slot = m.group(1), int(m.group(2))
            op = m.group(3)
            out.append(map_code(f"{ind}L{slot}{declare(slot) if op == '=' else ''} {op} {m.group(4)}", swap))
            out.append(f"{ind}L[{slot}] = L{slot}")
        else:
            out.append(map_code(line, swap))
    return out


def fill_empty_blocks(lines: list[str]) -> list[str]:
    """Statements that do nothing in an engine (say, shuffle) leave only their comment: an empty
    block gets ``pass``."""
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        stripped = line.strip()
        if stripped.endswith(":") and not stripped.startswith("#"):
            indent = len(line) - len(line.lstrip())
            following = next((x for x in lines[i + 1:] if x.strip() and not x.strip().startswith("#")), "")
            if len(following) - len(following.lstrip()) <= indent:
                out.append(" " * (indent + 4) + "pass")
    return out


def mark_unread(lines: list[str]) -> list[str]:
    """Locals the rules bind but never read are still computed (the value may fail to evaluate,
    and that error must happen) but assigned to ``_``."""
    assigned: dict[str, int] = {}
    for line in lines:
        m = _ASSIGN.match(line)
        if m:
            assigned[m.group(2)] = assigned.get(m.group(2), 0) + 1
    if not assigned:
        return lines
    text = "\n".join(lines)
    unread = {name for name, k in assigned.items() if len(re.findall(rf"\b{name}\b", text)) == k}
    out = []
    for line in lines:
        m = _ASSIGN.match(line)
        out.append(f"{m.group(1)}_ = {line[m.end():]}" if m and m.group(2) in unread else line)
    return out


def match_tree(chain: tuple[ir.Expr, list[tuple[ir.Expr, ir.Expr]], ir.Expr]) -> ir.Expr | None:
    """A long match on a number as a balanced tree of comparisons: the arms' constant tests
    become disjoint intervals (the first arm that matches a value keeps it, as in the chain), and
    the values between them go to what the chain ends with (else, the last arm, or a failure)."""
    from rulecheck.dsl.types import BOOL

    from .analysis import test

    subj, arms, last = chain
    points: set[int] = set()
    for cond, _ in arms:
        for lo, hi in intervals(cond):
            points.update((lo, hi + 1))
    cuts = sorted(points)
    if len(cuts) > 64:
        return None
    # between two cuts every value goes to the same arm: ask a representative
    segments: list[tuple[int, ir.Expr]] = []  # (first value, what it gives); the first from -inf
    for k, start in enumerate([cuts[0] - 1, *cuts]):
        target = next((v for cond, v in arms if test(cond, start)), last)
        if segments and segments[-1][1] is target:
            continue
        segments.append((start if k else -(10**18), target))

    def build(segs: list[tuple[int, ir.Expr]]) -> ir.Expr:
        if len(segs) == 1:
            return segs[0][1]
        mid = len(segs) // 2
        bound = segs[mid][0]
        below = ir.BinOp(BOOL, subj.span, "<", subj, ir.Const(TInt(bound, bound), subj.span, bound))
        left, right = build(segs[:mid]), build(segs[mid:])
        return ir.Cond(join_type(left.type, right.type), left.span, below, left, right)

    return build(segments)


def join_type(a: Type, b: Type) -> Type:
    from rulecheck.dsl.types import join

    return join(a, b) or a


def intervals(cond: ir.Expr) -> list[tuple[int, int]]:
    """The values a constant test of a match accepts, as closed intervals."""
    assert isinstance(cond, ir.BinOp)
    if cond.op == "or":
        return intervals(cond.left) + intervals(cond.right)
    if cond.op == "==":
        assert isinstance(cond.right, ir.Const)
        v = int(cond.right.value)  # type: ignore[arg-type]
        return [(v, v)]
    r = cond.right
    assert isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const)
    return [(int(r.lo.value), int(r.hi.value))]  # type: ignore[arg-type]


def const_numbers(e: ir.Expr) -> frozenset[int] | None:
    """The members of a constant set of numbers (a literal, or a range with literal bounds)."""
    if isinstance(e, ir.Const) and isinstance(e.value, frozenset) and all(isinstance(v, int) and not isinstance(v, bool) for v in e.value):
        return frozenset(int(v) for v in e.value)  # type: ignore[call-overload]
    if isinstance(e, ir.IntRange) and isinstance(e.lo, ir.Const) and isinstance(e.hi, ir.Const):
        lo, hi = e.lo.value, e.hi.value
        if isinstance(lo, int) and isinstance(hi, int) and hi - lo < 4096:
            return frozenset(range(lo, hi + 1))
    return None


def emptiness(e: ir.BinOp) -> tuple[ir.Expr, bool] | None:
    """(S, True) when ``e`` says that the set S is empty (``size(S) == 0``, ``size(S) < 1``,
    ``size(S) <= 0``), (S, False) when it says S is not (``!= 0``, ``> 0``, ``>= 1``)."""
    left, right, op = e.left, e.right, e.op
    if isinstance(left, ir.Const) and not isinstance(right, ir.Const):
        left, right = right, left
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    if not (isinstance(left, ir.Builtin) and left.op == "size" and isinstance(right, ir.Const)):
        return None
    k = right.value
    if isinstance(k, bool) or not isinstance(k, int):
        return None
    says = {("==", 0): True, ("<", 1): True, ("<=", 0): True, ("!=", 0): False, (">", 0): False, (">=", 1): False}.get((op, k))
    return None if says is None else (left.args[0], says)


def or_chain(e: ir.Expr) -> list[ir.Expr]:
    """The operands of ``a or b or …`` from left to right."""
    if isinstance(e, ir.BinOp) and e.op == "or":
        return or_chain(e.left) + or_chain(e.right)
    return [e]


def and_chain(e: ir.Expr) -> list[ir.Expr]:
    """The operands of ``a and b and …`` from left to right."""
    if isinstance(e, ir.BinOp) and e.op == "and":
        return and_chain(e.left) + and_chain(e.right)
    return [e]


def mentions(e: ir.Expr, name: str) -> bool:
    from rulecheck.dsl.walk import walk_exprs

    return any(isinstance(x, ir.Local) and x.name == name for x in walk_exprs(e))


def membership(c: ir.Expr, var: str) -> ir.Expr | None:
    """E when the test ``c`` on ``var`` is ``var in E`` (or ``any(var in E(p) for p in P)``, then
    that aggregate), with E not depending on ``var``."""
    if isinstance(c, ir.BinOp) and c.op == "in" and isinstance(c.left, ir.Local) and c.left.name == var:
        if rep_of(c.right.type) == "mask" and not mentions(c.right, var):
            return c.right
    if isinstance(c, ir.Agg) and c.op == "any" and c.filt is None and not mentions(c.coll, var):
        inner = c.elem
        if isinstance(inner, ir.BinOp) and inner.op == "in" and isinstance(inner.left, ir.Local) and inner.left.name == var:
            if rep_of(inner.right.type) == "mask" and not mentions(inner.right, var) and rep_of(c.coll.type) == "mask":
                return c
    return None
