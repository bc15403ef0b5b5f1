"""Static facts about IR expressions that let the compiler choose cheaper, equivalent code.

Expressions are pure: evaluating one changes nothing.  The only thing evaluation order can change
is *which* error is raised, and whether one is.  So two operands of ``and``/``or`` may trade places
when neither can raise a RuleError; ``can_raise`` answers that conservatively (True when unsure),
and ``cost`` estimates which operand is cheaper.  ``match_subject`` recognizes the chains the
checker builds for ``match`` so the subject is computed once.
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.checker import MAX_RANGE
from rulecheck.dsl.types import TInt, Type

from .intbounds import IntBounds


class Analysis:
    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.rules = program.rules
        self._def_raises: dict[str, bool] = {}
        self._def_cost: dict[str, int] = {}
        self._def_reads: dict[str, set[str]] = {}
        self._def_pure: dict[tuple[str, bool], bool] = {}
        self.bounds = IntBounds(program)

    # ---- can evaluation fail? ---------------------------------------------------------------

    def can_raise(self, e: ir.Expr) -> bool:
        if isinstance(e, (ir.Const, ir.Local, ir.ParamRef)):
            return False
        if isinstance(e, (ir.Fail, ir.MapGet)):
            return True
        if isinstance(e, (ir.VarRef, ir.ZoneRef)):
            t = self.rules.vars[e.name].index if isinstance(e, ir.VarRef) else self.rules.zones[e.zone].index
            if isinstance(t, TInt):
                return True  # an index outside the declared range
            return e.index is not None and self.can_raise(e.index)
        if isinstance(e, (ir.AttrRef, ir.SpaceAttr)):
            return self.can_raise(e.obj)
        if isinstance(e, ir.PlaceOf):
            if e.index is None:
                return False
            return isinstance(self.rules.zones[e.zone].index, TInt) or self.can_raise(e.index)
        if isinstance(e, ir.Unary):
            return self.can_raise(e.operand)
        if isinstance(e, ir.BinOp):
            if e.op in ("/", "%") and not (isinstance(e.right, ir.Const) and e.right.value != 0):
                return True
            if e.op in ("+", "-", "*") and self.bounds.needs_check(e):
                return True  # beyond the integer limit
            return self.can_raise(e.left) or self.can_raise(e.right)
        if isinstance(e, ir.Builtin):
            if e.op == "player" and not self.fixed_seat(e):
                return True
            if e.op in ("distance", "steps"):
                return True  # no path; a negative number of steps
            return any(self.can_raise(a) for a in e.args)
        if isinstance(e, ir.Cond):
            chain = match_chain(e)
            if chain is not None and isinstance(chain[2], ir.Fail) and self.covers(chain[0], chain[1]):
                subj, arms, _ = chain
                return self.can_raise(subj) or any(self.can_raise(v) for _, v in arms)
            return self.can_raise(e.cond) or self.can_raise(e.then) or self.can_raise(e.else_)
        if isinstance(e, (ir.SetOf,)):
            return any(self.can_raise(i) for i in e.items)
        if isinstance(e, ir.IntRange):
            if self.range_too_large(e):
                return True
            return self.can_raise(e.lo) or self.can_raise(e.hi)
        if isinstance(e, ir.Agg):
            if e.op in ("max", "min", "the") or (e.op == "sum" and self.bounds.needs_check(e)):
                return True
            return self.can_raise(e.coll) or self.can_raise(e.elem) or (e.filt is not None and self.can_raise(e.filt))
        if isinstance(e, ir.CallDef):
            return any(self.can_raise(a) for a in e.args) or self.def_raises(e.name)
        return True

    def range_too_large(self, e: ir.IntRange) -> bool:
        """Whether a range's bounds can be more than MAX_RANGE numbers apart (a range error)."""
        lo, hi = self.bounds.clamped(e.lo)[0], self.bounds.clamped(e.hi)[1]
        return hi - lo >= MAX_RANGE

    def def_raises(self, name: str) -> bool:
        got = self._def_raises.get(name)
        if got is None:
            self._def_raises[name] = True  # (no recursion: the checker forbids it)
            d = self.program.defs[name]
            got = True if d.body is None else self.can_raise(d.body)
            self._def_raises[name] = got
        return got

    def values(self, e: ir.Expr) -> set[object] | None:
        """Every value ``e`` can take, when the ruleset fixes them (an attribute the table gives)."""
        if isinstance(e, ir.AttrRef):
            prov = self.rules.kinds[e.kind].provenance.get(e.attr)
            if prov is None or prov.kind == "unspecified":
                return None  # a parameter: any value
            return {c.attrs[e.attr] for c in self.rules.components_of(e.kind)}
        return None

    def covers(self, subj: ir.Expr, arms: list[tuple[ir.Expr, ir.Expr]]) -> bool:
        """Does some arm match every value the subject can take?"""
        vals = self.values(subj)
        if vals is None:
            return False
        return all(any(test(cond, v) for cond, _ in arms) for v in vals)

    # ---- does it depend on the game? ----------------------------------------------------------

    def pure(self, e: ir.Expr | None, unindexed_vars: bool = False, pinned: frozenset[int] = frozenset()) -> bool:
        """Is the value a function of the expression's free locals alone?  True when it reads no
        zone, variable, parameter, unspecified column or player count, directly or through the
        definitions it calls; such a value can be computed once for every value of the locals.
        ``unindexed_vars``: reading variables that have no index is allowed too (the value is then
        a function of the locals and those variables); ``pinned``: the ids of parts whose values
        are given (it is then a function of the locals and those values)."""
        if e is None or isinstance(e, (ir.Const, ir.Local, ir.Fail)) or id(e) in pinned:
            return True
        if isinstance(e, ir.VarRef):
            return unindexed_vars and e.index is None
        if isinstance(e, (ir.ZoneRef, ir.ParamRef, ir.MapGet)):
            return False

        def sub(x: ir.Expr | None) -> bool:
            return self.pure(x, unindexed_vars, pinned)

        if isinstance(e, ir.AttrRef):
            prov = self.rules.kinds[e.kind].provenance.get(e.attr)
            return (prov is None or prov.kind != "unspecified") and sub(e.obj)
        if isinstance(e, ir.Builtin):
            if e.op == "player":
                return self.fixed_seat(e)
            return e.op in ("seat", "size", "abs", "min", "max", *ir.BOARD_BUILTINS) and all(sub(a) for a in e.args)
        if isinstance(e, ir.SpaceAttr):
            return sub(e.obj)  # a board is fixed data
        if isinstance(e, ir.CallDef):
            return all(sub(a) for a in e.args) and self.def_pure(e.name, unindexed_vars)
        if isinstance(e, ir.Unary):
            return sub(e.operand)
        if isinstance(e, ir.BinOp):
            return sub(e.left) and sub(e.right)
        if isinstance(e, ir.Cond):
            return sub(e.cond) and sub(e.then) and sub(e.else_)
        if isinstance(e, ir.SetOf):
            return all(sub(i) for i in e.items)
        if isinstance(e, ir.IntRange):
            return sub(e.lo) and sub(e.hi)
        if isinstance(e, ir.Agg):
            return sub(e.coll) and sub(e.elem) and sub(e.filt)
        return False

    def fixed_seat(self, e: ir.Builtin) -> bool:
        """``player(K)`` for a constant K that every player count allows: always seat K - 1."""
        k = e.args[0].value if e.args and isinstance(e.args[0], ir.Const) else None
        return isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= self.rules.game.min_players

    def def_pure(self, name: str, unindexed_vars: bool = False) -> bool:
        got = self._def_pure.get((name, unindexed_vars))
        if got is None:
            self._def_pure[(name, unindexed_vars)] = False  # (no recursion: the checker forbids it)
            d = self.program.defs[name]
            got = all(self.pure(x, unindexed_vars) for x in (d.body, d.otherwise, *(y for c in d.cases or [] for y in (c.guard, c.value))))
            self._def_pure[(name, unindexed_vars)] = got
        return got

    # ---- what does it read? -----------------------------------------------------------------

    def reads(self, e: ir.Expr | None) -> set[str]:
        """The zones ("zone:NAME") and variables ("var:NAME") an expression may read, through
        the definitions it calls."""
        from rulecheck.dsl.walk import walk_exprs

        out: set[str] = set()
        if e is None:
            return out
        for x in walk_exprs(e):
            if isinstance(x, ir.ZoneRef):
                out.add("zone:" + x.zone)
            elif isinstance(x, ir.VarRef):
                out.add("var:" + x.name)
            elif isinstance(x, ir.CallDef):
                out |= self.def_reads(x.name)
            elif isinstance(x, ir.Builtin) and x.op == "where":
                out |= self.moved_through(x.args[0].type)  # where a component is
        return out

    def def_reads(self, name: str) -> set[str]:
        got = self._def_reads.get(name)
        if got is None:
            self._def_reads[name] = set()
            d = self.program.defs[name]
            got = self.reads(d.body) | self.reads(d.otherwise)
            for c in d.cases or []:
                got |= self.reads(c.guard) | self.reads(c.value)
            self._def_reads[name] = got
        return got

    def moved_through(self, t: Type) -> set[str]:
        """Zones a move of a value of this type can take components out of or put them into."""
        from rulecheck.dsl.types import TComp, TSet

        elem = t.elem if isinstance(t, TSet) else t
        kind = elem.kind if isinstance(elem, TComp) else None
        return {"zone:" + z.name for z in self.rules.zones.values() if kind is None or kind in z.kinds}

    # ---- how expensive is it? ---------------------------------------------------------------

    def cost(self, e: ir.Expr | None) -> int:
        if e is None or isinstance(e, (ir.Const, ir.Local, ir.ParamRef, ir.Fail)):
            return 1
        if isinstance(e, (ir.VarRef, ir.ZoneRef)):
            return 2 + self.cost(e.index) if e.index is not None else 2
        if isinstance(e, ir.AttrRef):
            return 2 + self.cost(e.obj)
        if isinstance(e, ir.Unary):
            return 1 + self.cost(e.operand)
        if isinstance(e, ir.BinOp):
            return 1 + self.cost(e.left) + self.cost(e.right)
        if isinstance(e, ir.Builtin):
            return 2 + sum(self.cost(a) for a in e.args)
        if isinstance(e, ir.Cond):
            return self.cost(e.cond) + (self.cost(e.then) + self.cost(e.else_)) // 2
        if isinstance(e, ir.SetOf):
            return 1 + sum(self.cost(i) for i in e.items)
        if isinstance(e, ir.IntRange):
            return 4 + self.cost(e.lo) + self.cost(e.hi)
        if isinstance(e, ir.MapGet):
            return 3 + self.cost(e.map) + self.cost(e.index)
        if isinstance(e, ir.Agg):
            # a guess of four members per collection
            return self.cost(e.coll) + 4 * (2 + self.cost(e.filt) + self.cost(e.elem))
        if isinstance(e, ir.CallDef):
            return 5 + sum(self.cost(a) for a in e.args) + self.def_cost(e.name)
        return 10

    def def_cost(self, name: str) -> int:
        got = self._def_cost.get(name)
        if got is None:
            self._def_cost[name] = 10
            d = self.program.defs[name]
            if not d.formals:
                got = 3  # remembered until the state changes
            elif d.body is not None:
                got = self.cost(d.body)
            else:
                got = sum(self.cost(c.guard) + self.cost(c.value) for c in d.cases or []) + self.cost(d.otherwise)
            self._def_cost[name] = got
        return got


def match_chain(e: ir.Expr) -> tuple[ir.Expr, list[tuple[ir.Expr, ir.Expr]], ir.Expr] | None:
    """(subject, [(test, value)], last) when ``e`` is a chain of conditionals whose tests all
    compare one subject (the same IR node) with constants, as the checker lowers ``match``; the
    subject is the first thing every test evaluates."""
    arms: list[tuple[ir.Expr, ir.Expr]] = []
    node: ir.Expr = e
    while isinstance(node, ir.Cond):
        arms.append((node.cond, node.then))
        node = node.else_
    if len(arms) < 2:
        return None
    subj = leftmost(arms[0][0])
    if subj is None or not all(only_tests_of(cond, subj) for cond, _ in arms):
        return None
    return subj, arms, node


def leftmost(cond: ir.Expr) -> ir.Expr | None:
    if isinstance(cond, ir.BinOp) and cond.op == "or":
        return leftmost(cond.left)
    if isinstance(cond, ir.BinOp) and cond.op in ("==", "in"):
        return cond.left
    return None


def only_tests_of(cond: ir.Expr, subj: ir.Expr) -> bool:
    if isinstance(cond, ir.BinOp) and cond.op == "or":
        return only_tests_of(cond.left, subj) and only_tests_of(cond.right, subj)
    if isinstance(cond, ir.BinOp) and cond.left is subj:
        if cond.op == "==":
            return isinstance(cond.right, ir.Const)
        if cond.op == "in":
            r = cond.right
            return isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const)
    return False


def test(cond: ir.Expr, value: object) -> bool:
    """The value of a test built by ``match_chain`` for one subject value."""
    assert isinstance(cond, ir.BinOp)
    if cond.op == "or":
        return test(cond.left, value) or test(cond.right, value)
    if cond.op == "==":
        assert isinstance(cond.right, ir.Const)
        return bool(cond.right.value == value)
    r = cond.right
    assert isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const)
    return bool(r.lo.value <= value <= r.hi.value)  # type: ignore[operator]


def free_locals(e: ir.Expr) -> set[str]:
    """The locals an expression reads that it does not bind itself (aggregates bind theirs)."""
    if isinstance(e, ir.Local):
        return {e.name}
    if isinstance(e, ir.Agg):
        inner = free_locals(e.elem) | (free_locals(e.filt) if e.filt is not None else set())
        return free_locals(e.coll) | (inner - {e.var})
    out: set[str] = set()
    for f in vars(e).values():
        if isinstance(f, ir.Expr):
            out |= free_locals(f)
        elif isinstance(f, list):
            for x in f:
                if isinstance(x, ir.Expr):
                    out |= free_locals(x)
    return out
