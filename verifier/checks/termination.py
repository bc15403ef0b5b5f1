"""non-termination: can an open loop come back to the state it started a pass in?
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.walk import walk_stmts
from rulecheck.interpreter.semantics import resolve_params

from ..conditions import (
    counters,
    lasso,
    lasso_at,
    repeat_pass,
    shrinking_zone,
)
from ..context import Context, _quotes
from ..findings import Play
from ..symbolic import Trace, statements
from ..witness import (
    actions_of,
    replay_interpreter,
)


class TerminationCheck(Context):
    """non-termination: can an open loop come back to the state it started a pass in?"""

    def check_termination(self) -> None:
        loops = [s for s in statements(self.program(self.base_readings)) if isinstance(s, (ir.RepeatUntil, ir.While))]
        if not loops:
            longest = max(sum(1 for d in self.base(n).decisions) for n in self.players)
            self.found("non-termination", "no-open-loop", "flow", self.rules.flow[0].span if self.rules.flow else Span(1, 1, 1, 1),
                       bound=self.bound(f"every game of {self.span_line(self.players)}"),
                       players=self.span_line(self.players), longest=longest, scope=self.readings_scope())
            return
        for loop in loops:
            self.check_loop(loop)

    def check_loop(self, loop: ir.RepeatUntil | ir.While) -> None:
        zone = shrinking_zone(loop, self.program(self.base_readings).procs)
        if zone is not None:
            self.found("non-termination", "drains", "loop", loop.span, _quotes(loop.source),
                       bound=self.bound("every game (any number of passes)"), zone=zone, scope=self.readings_scope())
            return
        sound_lasso = not any(isinstance(s, ir.Assign) and s.local for s in walk_stmts(loop.body))
        counting = counters(self.program(self.base_readings), resolve_params(self.rules, self.o.params)[0])
        found = None
        proven: list[int] = []
        unknown: list[int] = []
        for n in self.players:
            t = self.trace_bounded(n, self.o.loop_bound)
            session = self.session(t.constraints)
            if sound_lasso:
                # first the small problems: games of k passes whose last pass is played exactly as
                # the one before it and ends where it began (k = 2, 3, …); then any two passes of
                # the full trace with any play between them
                for k in range(2, self.o.loop_bound + 1):
                    tk = self.trace_bounded(n, k)
                    if loop.sid not in tk.loop_heads:
                        break
                    r = (session if tk is t else self.session(tk.constraints)).check(
                        lasso_at(tk, loop.sid, k - 1, k, counting), *repeat_pass(tk, loop.sid, k - 1))
                    if r.status == "sat":
                        assert r.model is not None
                        found = (n, tk, r.model)
                        break
                if found is None:
                    r = session.check(lasso(t, loop.sid, counting))
                    if r.status == "sat":
                        assert r.model is not None
                        found = (n, t, r.model)
                if found:
                    break
            r = session.check(t.truncated)
            (proven if r.status == "unsat" else unknown).append(n)
        src = _quotes(loop.source)
        if found is not None:
            n, t, model = found
            play = self._cycle_play(t, model, n)
            self.found("non-termination", "lasso", "loop", loop.span, src, witness=self.witness([play], n, "the state repeats: the loop never ends"),
                       players=n, counters=sorted(counting))
        elif unknown:
            self.found("non-termination", "timeout", "loop", loop.span, src, bound=f"{self.o.loop_bound} passes",
                       loop_bound=self.o.loop_bound, unknown=self.span_line(unknown))
        else:
            self.found("non-termination", "within-bound", "loop", loop.span, src,
                       bound=self.bound(f"every game of {self.span_line(proven)}"),
                       loop_bound=self.o.loop_bound, proven=self.span_line(proven), scope=self.readings_scope())

    def _cycle_play(self, t: Trace, model: dict[str, bool | int], n: int) -> Play:
        actions = actions_of(t, model, n, self.pass_action)
        r = replay_interpreter(self.program(t.readings), n, actions, self.o.params)
        return Play("the game", dict(sorted(t.readings.items())), actions, r.log, "the state repeats", None, False)


