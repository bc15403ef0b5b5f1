"""Decisions: where the flow waits for a chance outcome or a player's action (``Decisions``):
the state's point, player and options, the code that resumes after the decision, and how many
statements can run between two decisions (when few enough, the step budget is not counted).
"""

from __future__ import annotations

import re

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TComp, TInt, TMap, TPlayer, TSet, Type

from .layout import BlockRec, Loc, Point, Scope, at, members, rep_of, zone_update
from .literals import ident, pyrepr
from .tables import Tables


class Decisions(Tables):
    """``s_Draw``, ``s_Choose`` and ``s_ChooseEach``: the flow stops at a decision point and a resume
function takes over; and the bound on the statements run between two decisions."""

    # ---- decision points ---------------------------------------------------------------------------

    def point(self, kind: str, s: ir.Stmt, label: str = "", secret: bool = False, t: Type | None = None) -> int:
        self.points.append(Point(kind, label, secret, t, s.span, getattr(s, "secret_if", None)))
        return len(self.points)

    def suspend(self, point: int, cp: str, options: str) -> None:
        self.emit(f"S.pc = {point}")
        self.emit(f"S.cp = {cp}")
        self.emit(f"S.o = {options}")
        self.emit("return")

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

    # ---- chance ------------------------------------------------------------------------------------

    def s_Draw(self, s: ir.Draw, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"draw from {s.src} to {s.dst}")
        p = self.point("chance", s, ir.decision_label(s))
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
            # (the source is left as rest, unless the destination may be the same zone)
            apart = s.src != s.dst
            if apart:
                self.emit(f"rest = Z[{slots['src']}] ^ {b}")
                self.emit(f"Z[{slots['src']}] = rest")
            else:
                self.emit(zone_update(slots["src"], "^", b))
            self.emit(zone_update(slots["dst"], "|", b))
            self.emit(f"loc[a] = {slots['dst']}")
            self.forget(b)
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
                        self.emit(f"rest = Z[{slots['src']}]")
                    self.emit("if not rest:")
                    self.emit(f"    {exhausted}")
                    if apart:
                        # the options listed were the source before the draw: the drawn one's
                        # place in that list is the number of members below it
                        self.emit(f"if S.co == rest | {b}:")
                        self.emit(f"    del S.cl[(rest & ({b} - 1)).bit_count()]")
                        self.emit("    S.co = rest")
                    self.emit("S.o = rest  # the same point and chance again")
                    self.emit("return")
        self.resumes[p] = (resume, rec, i)
        if not once:
            self.loop_draws.add(p)
        return not certain

    # ---- players' decisions ------------------------------------------------------------------------

    def pending_options(self, code: str, t: Type) -> str:
        """Options as the state keeps them: a mask, or a sorted tuple of numbers."""
        if rep_of(TSet(t)) == "fs":
            return f"_SORTED[{code}]"
        return code

    def member_tuple(self, code: str, t: Type) -> str:
        """A player's options at a simultaneous decision: the members in ascending order, ready
        for legal_actions and for checking the action."""
        if rep_of(TSet(t)) == "fs":
            return f"_SORTED[{code}]"
        widest = self.widest_set()
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

    def s_Ask(self, s: ir.Ask, after: bool, rec: BlockRec, i: int) -> bool:
        """An answer is a choice among the answers the speaker's obligation allows (s.options). The
        state keeps the question, its arguments and the true answers while it waits (S.q), and
        every answer given with whether it was true (S.a): hidden information, in no view."""
        self.comment(s, f"ask {s.question}: {s.bind}")
        p = self.point("player", s, s.label, s.secret, s.type)
        loc = self.bind(Scope(), s.bind, s.type, after)
        self.tick(s.span)
        assert s.truths is not None
        args = [self.materialize(self.ex(a)) for a in s.args]
        shown = [f"frozenset(_BITS[{a}])" if rep_of(x.type) == "mask" else a for a, x in zip(args, s.args)]
        truths = self.materialize(self.ex(s.truths, "mask"))
        opts = self.materialize(self.ex(s.options))
        who = self.materialize(self.ex(s.chooser))
        msg = f" must choose ({s.label}) but has no option"
        self.emit(f"if not {opts}:")
        self.emit(f"    _raise('incomplete', _pname({who}) + {pyrepr(msg)}, {at(s.span)})")
        self.emit(f"S.q = ({pyrepr(s.question)}, ({''.join(x + ', ' for x in shown)}), {truths})")
        self.suspend(p, who, self.pending_options(opts, s.type))
        record = "S.a = (*S.a, (S.q[0], S.cp, S.q[1], a, S.q[2] >> a & 1 == 1))"
        self.resumes[p] = ([record, "S.q = None", f"{loc.code} = {self.decode('a', s.type)}"], rec, i)
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
        self.emit(f"for {q} in {members(who)}:")
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
        elif isinstance(s.players, ir.Builtin) and s.players.op == "players":
            loc.everyone = self.local_epoch
        self.scope.names[s.bind] = loc
        return True

    def widest_set(self) -> int:
        """How many members the widest set of the rules can have (components, players, enum
        values, places when a set of places is used)."""
        from rulecheck.dsl.values import mask_width

        return mask_width(self.rules)

    # ---- the step budget between two decisions -----------------------------------------------------

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
            if isinstance(s, ir.Observe) and s.mode == "within" and s.amount > 0:
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
            return 8 * ((self.widest_set() + 7) // 8)
        return float("inf")
