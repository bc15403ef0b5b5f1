"""non-termination: can an open loop come back to the state it started a pass in?
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.checker import walk_stmts
from rulecheck.dsl.source import Span
from rulecheck.interpreter.semantics import resolve_params

from ..conditions import (
    counters,
    lasso,
    lasso_at,
    repeat_pass,
    shrinking_zone,
)
from ..context import Context, _quotes
from ..findings import Finding, Play
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
            self.findings.append(Finding(
                "non-termination", "note", "proven", "flow", "every game ends",
                f"The flow has no open-ended loop: every repetition is counted, so every game of "
                f"{self.span_line(self.players)} ends, after at most {longest} decisions (chance draws and choices).",
                self.rules.flow[0].span if self.rules.flow else Span(1, 1, 1, 1),
                bound=f"every game of {self.span_line(self.players)}",
            ))
            return
        for loop in loops:
            self.check_loop(loop)

    def check_loop(self, loop: ir.RepeatUntil | ir.While) -> None:
        zone = shrinking_zone(loop, self.program(self.base_readings).procs)
        if zone is not None:
            self.findings.append(Finding(
                "non-termination", "note", "proven", "loop", "this loop always ends",
                f"Every pass through this loop draws from '{zone}', nothing in it puts anything back into "
                f"'{zone}', and the loop goes on only while '{zone}' holds something: it ends after at most "
                f"as many passes as '{zone}' has components, in every game, however long.",
                loop.span, _quotes(loop.source), bound="every game (any number of passes)",
            ))
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
            counted = [f"'{v}'" for v in sorted(counting)]
            apart = (f" (apart from {', '.join(counted)}, which only {'counts' if len(counted) == 1 else 'count'} "
                     "up and is already past every number the rules compare it with)") if counted else ""
            self.findings.append(Finding(
                "non-termination", "error", "witness", "loop", "play can go on for ever",
                f"In a game of {n} players, a pass through this loop can end in exactly the state it began "
                f"in{apart}, with the loop going on; repeating the same moves, the game never ends.",
                loop.span, src, witness=self.witness([play], n, "the state repeats: the loop never ends"),
            ))
        elif unknown:
            self.findings.append(Finding(
                "non-termination", "warning", "unknown", "loop", "no end proven for this loop",
                f"No repeating state was found within {self.o.loop_bound} passes, and the loop can run longer "
                f"than that for {self.span_line(unknown)}: whether every game ends is not decided.",
                loop.span, src, bound=f"{self.o.loop_bound} passes",
            ))
        else:
            self.findings.append(Finding(
                "non-termination", "note", "proven", "loop", "this loop always ends",
                f"Within {self.o.loop_bound} passes the loop always ends, for every game of {self.span_line(proven)}.",
                loop.span, src, bound=f"{self.o.loop_bound} passes of the loop",
            ))

    def _cycle_play(self, t: Trace, model: dict[str, bool | int], n: int) -> Play:
        actions = actions_of(t, model, n, self.pass_action)
        r = replay_interpreter(self.program(t.readings), n, actions, self.o.params)
        return Play("the game", dict(sorted(t.readings.items())), actions, r.log, "the state repeats", None, False)


