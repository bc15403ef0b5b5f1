"""Where a generated engine must check the integer limit, and where it need not.

Every integer of a game lies within ±MAX_INT (dsl/types.py): the interpreter checks the value of
every ``+``, ``-``, ``*`` and ``sum`` and stops play with a *range* error beyond it.  An engine
gives the same errors, but checks only where the value can leave the limit: ``IntBounds.of``
computes bounds every value of an expression lies within, from what is known when the engine is
generated (constants, the values a table gives, declared ranges of variables, the sizes of zones
and of the player count), with every other integer anywhere in ±MAX_INT, since every value made
in play was checked when it was made.
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.checker import MAX_PLAYERS
from rulecheck.dsl.types import MAX_INT, TComp, TEnum, TInt, TPlayer, TSet, Type

Bounds = tuple[int, int]
ANY_INT: Bounds = (-MAX_INT, MAX_INT)


def within(b: Bounds) -> bool:
    """Whether every value in the bounds is within the integer limit."""
    return -MAX_INT <= b[0] and b[1] <= MAX_INT


class IntBounds:
    """Bounds of the integer expressions of one program (memoized by expression)."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.rules = program.rules
        self._memo: dict[int, Bounds] = {}

    def needs_check(self, e: ir.Expr) -> bool:
        """Whether the value of this operator or sum may leave the integer limit."""
        return not within(self.of(e))

    def of(self, e: ir.Expr) -> Bounds:
        got = self._memo.get(id(e))
        if got is None:
            got = self._memo[id(e)] = self._of(e)
        return got

    def _of(self, e: ir.Expr) -> Bounds:
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return e.value, e.value
        if isinstance(e, ir.VarRef):
            v = self.rules.vars[e.name]
            return _declared(v.type)
        if isinstance(e, ir.ParamRef):
            return _declared(e.type)  # a game's value is checked against it when the game is set up
        if isinstance(e, ir.AttrRef):
            prov = self.rules.kinds[e.kind].provenance.get(e.attr)
            values = [c.attrs[e.attr] for c in self.rules.components_of(e.kind)]
            if prov is None or prov.kind == "unspecified" or not values or not all(isinstance(v, int) for v in values):
                return ANY_INT  # a parameter: any value a game is given
            return min(values), max(values)  # type: ignore[type-var, return-value]
        if isinstance(e, ir.Builtin):
            return self._builtin(e)
        if isinstance(e, ir.Unary) and e.op == "neg":
            lo, hi = self.clamped(e.operand)
            return -hi, -lo
        if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
            (a, b), (c, d) = self.clamped(e.left), self.clamped(e.right)
            if e.op == "+":
                return a + c, b + d
            if e.op == "-":
                return a - d, b - c
            ends = (a * c, a * d, b * c, b * d)
            return min(ends), max(ends)
        if isinstance(e, ir.BinOp) and e.op in ("/", "%"):
            return ANY_INT  # |x // y| <= |x| and |x % y| < |y|: within the limit when x and y are
        if isinstance(e, ir.Cond):
            (a, b), (c, d) = self.clamped(e.then), self.clamped(e.else_)
            return min(a, c), max(b, d)
        if isinstance(e, ir.Agg):
            return self._agg(e)
        return ANY_INT

    def clamped(self, e: ir.Expr) -> Bounds:
        """The bounds of an operand: a value that exists lies within the limit, whatever its parts'
        bounds (an operator beyond it has stopped play)."""
        lo, hi = self.of(e)
        return max(lo, -MAX_INT), min(hi, MAX_INT)

    def _builtin(self, e: ir.Builtin) -> Bounds:
        g = self.rules.game
        if e.op == "num_players":
            return g.min_players, g.max_players
        if e.op == "seat":
            return 1, min(g.max_players, MAX_PLAYERS)
        if e.op == "size":
            n = self.members_at_most(e.args[0])
            return 0, MAX_INT if n is None else n
        if e.op == "abs":
            lo, hi = self.clamped(e.args[0])
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
        if e.op in ("min", "max"):
            (a, b), (c, d) = self.clamped(e.args[0]), self.clamped(e.args[1])
            return (min(a, c), min(b, d)) if e.op == "min" else (max(a, c), max(b, d))
        return ANY_INT

    def _agg(self, e: ir.Agg) -> Bounds:
        if e.op == "count":
            return 0, MAX_INT
        if e.op in ("max", "min", "the"):
            return self.clamped(e.elem)
        if e.op == "sum":
            lo, hi = self.clamped(e.elem)
            n = self.members_at_most(e.coll)
            if n is None:
                return -2 * MAX_INT, 2 * MAX_INT  # (unknown: the sum is checked)
            return min(0, n * lo), max(0, n * hi)
        return ANY_INT

    def members_at_most(self, coll: ir.Expr) -> int | None:
        """The most members a set can have, when its type or form says."""
        t = coll.type.elem if isinstance(coll.type, TSet) else None
        if isinstance(t, TPlayer):
            return self.rules.game.max_players
        if isinstance(t, TComp):
            return len(self.rules.components_of(t.kind))
        if isinstance(t, TEnum):
            return len(self.rules.enums[t.name].values)
        if isinstance(coll, ir.IntRange) and isinstance(coll.lo, ir.Const) and isinstance(coll.hi, ir.Const):
            return max(0, int(coll.hi.value) - int(coll.lo.value) + 1)  # type: ignore[arg-type]
        return None  # a set of numbers can hold any of them, whatever its declared type


def _declared(t: Type) -> Bounds:
    """The values a variable can hold: its declared range (a set checks it), or any integer."""
    if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
        return max(t.lo, -MAX_INT), min(t.hi, MAX_INT)
    return ANY_INT
