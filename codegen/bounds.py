"""A static bound on the length of a game: how many decisions and chance nodes play can reach.

OpenSpiel asks every game for ``max_game_length`` (decisions; a simultaneous node counts once) and
sizes information-state tensors by it.  The flow gives a bound when every loop has a count known
before play (``repeat N times`` with a constant or parameter, or an operator over them, ``for each`` over a finite type) and
every ``draw`` a count of that kind; a ``while`` or ``repeat until`` has none, and neither does a
game whose length depends on what happens in play.  ``None`` says so: the adapters then truncate
at a length the user gives (docs/engine.md).
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlayer, TSet, Type

from .intbounds import IntBounds

Bound = tuple[int, int]  # (decisions, chance nodes)


class _Unbounded(Exception):
    pass


def length_bound(program: ir.Program) -> Bound | None:
    """(decisions, chance nodes) no game of ``program`` exceeds, or None if the flow has none."""
    try:
        return _Walker(program).block(program.rules.flow)
    except _Unbounded:
        return None


def _before_play(e: ir.Expr) -> bool:
    """Is ``e`` +, - and * over constants and parameters with a declared range (its bounds known)?"""
    if isinstance(e, ir.Const):
        return isinstance(e.value, int)
    if isinstance(e, ir.ParamRef):
        return isinstance(e.type, TInt) and e.type.lo is not None and e.type.hi is not None
    if isinstance(e, ir.Unary):
        return e.op == "neg" and _before_play(e.operand)
    return isinstance(e, ir.BinOp) and e.op in ("+", "-", "*") and _before_play(e.left) and _before_play(e.right)


class _Walker:
    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.rules = program.rules
        self.procs: dict[str, Bound] = {}
        self.ints = IntBounds(program)

    def block(self, body: list[ir.Stmt]) -> Bound:
        d = c = 0
        for s in body:
            sd, sc = self.stmt(s)
            d += sd
            c += sc
        return d, c

    def stmt(self, s: ir.Stmt) -> Bound:
        if isinstance(s, (ir.Choose, ir.ChooseEach)):
            return 1, 0
        if isinstance(s, ir.Draw):
            return 0, self.count(s.count)
        if isinstance(s, ir.If):
            a, b = self.block(s.then), self.block(s.else_)
            return max(a[0], b[0]), max(a[1], b[1])
        if isinstance(s, ir.Repeat):
            k = self.count(s.count)
            d, c = self.block(s.body)
            return k * d, k * c
        if isinstance(s, ir.ForEach):
            k = self.members(s.coll.type)
            d, c = self.block(s.body)
            return k * d, k * c
        if isinstance(s, (ir.While, ir.RepeatUntil)):
            d, c = self.block(s.body)
            if d or c:
                raise _Unbounded
            return 0, 0
        if isinstance(s, ir.CallProc):
            if s.name not in self.procs:
                body = self.program.procs[s.name].body or []
                self.procs[s.name] = self.block(body)
            return self.procs[s.name]
        return 0, 0

    def count(self, e: ir.Expr) -> int:
        """The largest value a count can take before play."""
        if isinstance(e, ir.Const) and isinstance(e.value, int):
            return max(0, e.value)
        if isinstance(e, ir.ParamRef):
            t = self.rules.params[e.name].type
            if isinstance(t, TInt) and t.hi is not None:
                return max(0, t.hi)
        if isinstance(e.type, TInt) and e.type.hi is not None:
            return max(0, e.type.hi)
        # an operator over such counts (``repeat num_cards - 1 times``): the bounds of its value
        if _before_play(e):
            return max(0, self.ints.clamped(e)[1])
        raise _Unbounded

    def members(self, t: Type) -> int:
        """How many members a set of type ``t`` can have."""
        if not isinstance(t, TSet):
            raise _Unbounded
        elem = t.elem
        if isinstance(elem, TPlayer):
            return self.rules.game.max_players
        if isinstance(elem, TComp):
            return sum(1 for c in self.rules.components if elem.kind is None or c.kind == elem.kind)
        if isinstance(elem, TEnum):
            return len(self.rules.enums[elem.name].values)
        if isinstance(elem, TBool):
            return 2
        if isinstance(elem, TInt) and elem.lo is not None and elem.hi is not None:
            return elem.hi - elem.lo + 1
        raise _Unbounded
