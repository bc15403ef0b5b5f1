"""What the zones and the boards give an expression (SymZones): sums of zone sizes and "somewhere
in these zones" known without the solver, and the moves and distances over a board's links."""

from __future__ import annotations

from abc import abstractmethod

from rulecheck.dsl import ir
from rulecheck.dsl.types import TEnum

from . import terms as tm
from .symstate import SymState
from .symvalues import FD, Env, SymSet, Unsupported, Value, as_fd, cover_shape, sum_shape
from .terms import Term


class SymZones(SymState):
    """Zone sums and zone covers read off the locations, and the boards' builtins (the layer under
    SymExpressions, whose ``ev`` they use for their parts)."""

    @abstractmethod
    def ev(self, e: ir.Expr, env: Env, g: Term) -> Value:
        """An expression's value in the current state (SymExpressions)."""

    # ---- zones ------------------------------------------------------------------------------

    def zone_total(self, e: ir.Expr, env: Env, g: Term) -> int | None:
        """A sum of the sizes of several zones (``size(deck) + sum(size(hand[p]) for p in
        players)``) is a number whenever every component that can be in one of them counts the
        same wherever it is: each component is in exactly one zone. Counted per zone, the solver
        would have to rediscover that through every move of the game; None when the sum is not
        of that form, or some component's weight depends on where it is."""
        if not sum_shape(e):
            return None
        form = self.zone_form(e, env, g)
        if form is None or len(form[0]) < 2:
            return None
        weights, total = form
        for c, loc in enumerate(self.loc):
            if c in self.out:
                continue  # in no zone: it weighs nothing
            ws = {weights.get(z, 0) for z in loc}
            if len(ws) != 1:
                return None
            total += ws.pop()
        return total

    def known_zone(self, z: ir.ZoneRef, env: Env, g: Term) -> int | None:
        """The zone instance a reference names, when the game does not choose it."""
        zid = self.zone_id(z.zone, self.ev(z.index, env, g) if z.index is not None else None)
        return zid if isinstance(zid, int) else None

    def in_some_zone(self, e: ir.Expr, env: Env, g: Term) -> bool:
        """``c in deck or c in field or any(c in hand[p] for p in players)`` holds whenever those
        zones include every zone the component ``c`` can be in (it is always somewhere)."""
        cover = self.zone_cover(e, env, g) if cover_shape(e) else None
        if cover is None:
            return False
        x, zones = cover
        return isinstance(x, int) and not isinstance(x, bool) and set(self.loc[x]) <= zones

    def zone_cover(self, e: ir.Expr, env: Env, g: Term) -> tuple[Value, set[int]] | None:
        """``e`` as "x is in one of these zones" (the zones known), or None."""
        if isinstance(e, ir.BinOp) and e.op == "in" and isinstance(e.right, ir.ZoneRef):
            zid = self.known_zone(e.right, env, g)
            return None if zid is None else (self.ev(e.left, env, g), {zid})
        parts: list[tuple[Value, set[int]] | None] = []
        if isinstance(e, ir.BinOp) and e.op == "or":
            parts = [self.zone_cover(e.left, env, g), self.zone_cover(e.right, env, g)]
        elif isinstance(e, ir.Agg) and e.op == "any" and e.filt is None:
            envs = self.each_known(e, env, g)
            if envs is None:
                return None
            parts = [self.zone_cover(e.elem, inner, g) for inner in envs]
        if not parts or any(p is None for p in parts):
            return None
        xs = [p[0] for p in parts if p is not None]
        if any(not isinstance(x, int) or x != xs[0] for x in xs):
            return None
        return xs[0], set().union(*(p[1] for p in parts if p is not None))

    def each_known(self, e: ir.Agg, env: Env, g: Term) -> list[Env] | None:
        """The environments of an aggregate's elements, one per element, when its collection is
        known in full (every element surely in it); None otherwise."""
        coll = self.ev(e.coll, env, g)
        if not isinstance(coll, SymSet) or any(m is not True for m in coll.mem.values()):
            return None
        return [env.new_child({e.var: k}) for k in sorted(coll.mem)]

    def zone_form(self, e: ir.Expr, env: Env, g: Term) -> tuple[dict[int, int], int] | None:
        """``e`` as a weighted sum of zone sizes plus a constant, the zones known (not chosen in
        the game), or None."""
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return {}, e.value
        if isinstance(e, ir.Builtin) and e.op == "size" and isinstance(e.args[0], ir.ZoneRef):
            zid = self.known_zone(e.args[0], env, g)
            return None if zid is None else ({zid: 1}, 0)
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            a, b = self.zone_form(e.left, env, g), self.zone_form(e.right, env, g)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "+" else -1
            both = dict(a[0])
            for zid, w in b[0].items():
                both[zid] = both.get(zid, 0) + sign * w
            return both, a[1] + sign * b[1]
        if isinstance(e, ir.Agg) and e.op == "sum" and e.filt is None:
            envs = self.each_known(e, env, g)
            if envs is None:
                return None
            weights: dict[int, int] = {}
            total = 0
            for inner in envs:
                part = self.zone_form(e.elem, inner, g)
                if part is None:
                    return None
                for zid, w in part[0].items():
                    weights[zid] = weights.get(zid, 0) + w
                total += part[1]
            return weights, total
        return None

    # ---- boards -----------------------------------------------------------------------------

    def board_builtin(self, e: ir.Builtin, args: list[Value], g: Term) -> Value:
        """adjacent, neighbours, distance and steps over the board's fixed links."""
        t = e.args[0].type
        assert isinstance(t, TEnum)
        adj = self.adjacency[t.name]
        spaces = list(range(len(adj)))
        a = as_fd(args[0], spaces)
        if e.op == "adjacent":
            b = as_fd(args[1], spaces)
            return tm.or_all(tm.and_(ca, b.mem.get(y, False)) for x, ca in sorted(a.mem.items()) for y in sorted(adj[x]))
        if e.op == "neighbours":
            return SymSet({y: tm.or_all(ca for x, ca in sorted(a.mem.items()) if y in adj[x]) for y in spaces})
        if e.op == "distance":
            return self.board_distance(e, adj, a, as_fd(args[1], spaces), args[2], g)
        n = args[1]
        if not isinstance(n, (bool, int)):
            raise Unsupported("a number of steps on a board that depends on the game")
        if int(n) < 0:
            self.fail("range", e.span, "steps", "a number of steps is at least 0", g)
            return SymSet({})
        stop, via = args[2], args[3]
        assert isinstance(stop, SymSet) and isinstance(via, SymSet)
        here: dict[int, Term] = {x: c for x, c in a.mem.items() if c is not False}
        for _ in range(int(n)):
            nxt: dict[int, list[Term]] = {}
            for x, cx in sorted(here.items()):
                for y in sorted(adj[x]):
                    nxt.setdefault(y, []).append(tm.and_(cx, stop.member(y)))
                    for z in sorted(adj[y] - {x}):
                        nxt.setdefault(z, []).append(tm.and_(cx, via.member(y), stop.member(z)))
            here = {y: tm.or_all(cs) for y, cs in sorted(nxt.items())}
        return SymSet({y: c for y, c in sorted(here.items()) if c is not False})

    def board_distance(self, e: ir.Builtin, adj: list[set[int]], a: FD, b: FD, via: SymSet, g: Term) -> Value:
        """The fewest links from a to b through spaces of ``via``: a table when ``via`` is known,
        otherwise the rounds of a breadth-first search as terms."""
        from rulecheck.interpreter.semantics import RuleError, board_distance

        n = len(adj)
        if all(not isinstance(m, tm.T) for m in via.mem.values()):
            known = frozenset(k for k, m in via.mem.items() if m is True)
            frozen = [frozenset(x) for x in adj]
            out: Term = 0
            none: list[Term] = []
            for x, cx in sorted(a.mem.items()):
                for y, cy in sorted(b.mem.items()):
                    both = tm.and_(cx, cy)
                    if both is False:
                        continue
                    try:
                        d = board_distance(frozen, x, y, known, [str(k) for k in range(n)], e.span)
                    except RuleError:
                        none.append(both)
                        continue
                    out = tm.ite(both, d, out)
            self.fail("incomplete", e.span, "distance", "no path leads between the spaces through the spaces allowed", tm.and_(g, tm.or_all(none)))
            return out
        result: Term = 0
        found: Term = False
        for x, cx in sorted(a.mem.items()):
            reach: dict[int, Term] = {x: True}  # reached within k links, every space between in via
            dist: Term = 0
            got: Term = b.mem.get(x, False)  # a == b: distance 0
            for k in range(1, n):
                nxt = dict(reach)
                for w, cw in sorted(reach.items()):
                    through = cw if w == x else tm.and_(cw, via.member(w))
                    for z in sorted(adj[w]):
                        nxt[z] = tm.or_(nxt.get(z, False), through)
                now = tm.or_all(tm.and_(cy, nxt.get(y, False)) for y, cy in sorted(b.mem.items()))
                dist = tm.ite(tm.and_(tm.not_(got), now), k, dist)
                got = tm.or_(got, now)
                reach = nxt
            result = tm.ite(cx, dist, result)
            found = tm.or_(found, tm.and_(cx, got))
        self.fail("incomplete", e.span, "distance", "no path leads between the spaces through the spaces allowed", tm.and_(g, tm.not_(found)))
        return result
