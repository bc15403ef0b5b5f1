"""non-termination: can an open loop come back to the state it started a pass in?

A loop is proven to end, whatever the number of passes, by a measure: a zone it empties that
nothing refills (conditions.shrinking_zone), or a counter every pass adds to that stops it at a
limit (conditions.ranked_counter). Otherwise the solver looks for a lasso (a pass that ends where
it began, with the loop going on) in the default readings' games; where it leaves that open, random
games may show one (a pass that begins where an earlier one began). The game found is played
again under every other reading to tell whether those repeat too.
"""

from __future__ import annotations

from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.walk import walk_stmts
from rulecheck.interpreter.semantics import RuleError, resolve_params
from rulecheck.interpreter.state import Game, State

from ..conditions import (
    counters,
    lasso,
    lasso_at,
    ranked_counter,
    repeat_pass,
    shrinking_zone,
)
from ..context import Context, _quotes
from ..findings import Play
from ..symbolic import statements
from ..witness import (
    actions_of,
    apply,
    random_game,
    replay_interpreter,
)

#: Random games tried for a lasso at each player count the solver leaves open, and their length
#: in moves: a loop whose passes are long (a race of many turns) is out of the solver's reach
#: beyond a pass or two, and random play often comes back to a state it was in.
LASSO_GAMES = 16
LASSO_MOVES = 2_000

#: The measure of a loop proven to end: ("drains", zone) or ("ranked", (name, step, limit, passes)).
Measure = tuple[str, Any]


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

    def loop_under(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While) -> ir.RepeatUntil | ir.While | None:
        """The same loop (the same place in the rules file) in the program of other readings."""
        for s in statements(self.program(readings)):
            if type(s) is type(loop) and s.span == loop.span:
                assert isinstance(s, (ir.RepeatUntil, ir.While))
                return s
        return None

    def measure(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While) -> Measure | None:
        program = self.program(readings)
        zone = shrinking_zone(loop, program.procs)
        if zone is not None:
            return ("drains", zone)
        ranked = ranked_counter(loop, program, resolve_params(self.rules, self.o.params)[0])
        return ("ranked", ranked) if ranked is not None else None

    def check_loop(self, loop: ir.RepeatUntil | ir.While) -> None:
        others: list[tuple[str, dict[str, str], ir.RepeatUntil | ir.While | None]] = [
            (_changed(self.base_readings, r), r, self.loop_under(r, loop)) for r in self.other_readings()]
        ends = {label: m for label, r, other in others if other is not None and (m := self.measure(r, other)) is not None}
        # readings where the loop is not in the program at all: it cannot run for ever there
        absent = [label for label, _, other in others if other is None]
        measure = self.measure(self.base_readings, loop)
        if measure is not None:
            kind, what = measure
            unproven = [label for label, _, other in others if other is not None and label not in ends]
            covered = 0 if unproven else len(others)
            facts: dict[str, Any] = {"scope": self.readings_scope(covered), "not_proven_under": unproven}
            if kind == "drains":
                self.found("non-termination", "drains", "loop", loop.span, _quotes(loop.source),
                           bound=self.bound("every game (any number of passes)", covered),
                           zone=what, **facts)
            else:
                name, step, limit, passes = what
                self.found("non-termination", "ranked", "loop", loop.span, _quotes(loop.source),
                           bound=self.bound(f"every game at any player count (at most {passes} passes)", covered),
                           progress=f"adds {step} to '{name}', which nothing in the rules lowers",
                           condition=f"'{name}' is below {limit}", passes=passes,
                           **facts)
            return
        self.search_lasso(loop, others, ends, absent)

    def search_lasso(self, loop: ir.RepeatUntil | ir.While, others: list[tuple[str, dict[str, str], ir.RepeatUntil | ir.While | None]],
                     ends: dict[str, Measure], absent: list[str]) -> None:
        sound_lasso = _sound_lasso(loop)
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
        ended = sorted(ends) + absent
        cycle: tuple[int, Play] | None = None  # the players and the game of a lasso
        if found is not None:
            n, t, model = found
            cycle = n, self._lasso_play(t.readings, n, actions_of(t, model, n, self.pass_action))
        elif unknown and sound_lasso:
            # what the solver left open, random games may still show (only where it ran out of
            # passes or time: a proof within the bound stands)
            for k in unknown:
                actions = self.random_lasso(loop, k, counting)
                if actions is not None:
                    cycle = k, self._lasso_play(self.base_readings, k, actions)
                    break
        if cycle is not None:
            n, play = cycle
            also: list[str] = []
            open_: list[str] = []
            for label, readings, other in others:
                if label in ended:
                    continue
                assert other is not None
                (also if self.repeats_under(readings, other, n, play.actions) else open_).append(label)
            self.found("non-termination", "lasso", "loop", loop.span, src, witness=self.witness([play], n, "the state repeats: the loop never ends"),
                       players=n, counters=sorted(counting), scope=self.readings_scope(), also_under=also, ends_under=ended,
                       open_under=open_)
        elif unknown:
            self.found("non-termination", "timeout", "loop", loop.span, src, bound=f"{self.o.loop_bound} passes",
                       loop_bound=self.o.loop_bound, unknown=self.span_line(unknown), scope=self.readings_scope(), ends_under=ended)
        else:
            self.found("non-termination", "within-bound", "loop", loop.span, src,
                       bound=self.bound(f"every game of {self.span_line(proven)}"),
                       loop_bound=self.o.loop_bound, proven=self.span_line(proven), scope=self.readings_scope(), ends_under=ended)

    def repeats_under(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While, n: int, actions: list[Any]) -> bool:
        """Whether the moves of a lasso found under the default readings are a game under these
        readings too, one in which this loop comes back to a state it began a pass in (its
        counters past every number they are compared with) while going on: then it repeats for
        ever there as well. Played in the reference interpreter."""
        if not _sound_lasso(loop):
            return False
        program = self.program(readings)
        heads: dict[int, list[Any]] = {}
        try:
            state = State(Game(program, n, self.o.params), heads=heads)
            for a in actions:
                if state.is_terminal():
                    return False
                apply(state, a)
        except (RuleError, ValueError):
            return False
        if state.is_terminal() or state.machine.error is not None:
            return False
        counting = counters(program, resolve_params(self.rules, self.o.params)[0])
        seen = heads.get(loop.sid, [])
        return any(_same_but_counters(seen[i], seen[j], counting) for j in range(1, len(seen)) for i in range(j))

    def random_lasso(self, loop: ir.RepeatUntil | ir.While, n: int, counting: dict[str, int | None]) -> list[Any] | None:
        """The moves of a random game under the default readings up to where a pass of the loop
        begins in a state an earlier pass began in (the counters aside), the loop going on; None
        when LASSO_GAMES games of LASSO_MOVES moves show none. Only for a loop the flow runs once:
        two passes of different runs of a loop may meet in one state with other things left to do
        around them (an outer loop's count, a procedure's arguments), which the state does not hold."""
        program = self.program(self.base_readings)
        if self.o.random_games <= 0 or not any(s is loop for s in program.rules.flow):
            return None
        engine = self.engine(self.base_readings)
        for seed in range(min(LASSO_GAMES, self.o.random_games)):
            actions = random_game(program, n, seed, self.o.params, LASSO_MOVES, engine=engine)
            cut = _first_repeat(program, n, self.o.params, actions, loop.sid, counting)
            if cut is not None:
                return actions[:cut]
        return None

    def _lasso_play(self, readings: dict[str, str], n: int, actions: list[Any]) -> Play:
        r = replay_interpreter(self.program(readings), n, actions, self.o.params)
        return Play("the game", dict(sorted(readings.items())), actions, r.log, "the state repeats", None, False)


def _first_repeat(program: ir.Program, n: int, params: dict[str, Any], actions: list[Any], sid: int,
                  counting: dict[str, int | None]) -> int | None:
    """How many of the actions it takes for a pass of loop ``sid`` to begin in the state an earlier
    pass began in (see _same_but_counters), played in the reference interpreter; None if none does."""
    heads: dict[int, list[Any]] = {}
    try:
        state = State(Game(program, n, params), heads=heads)
        for m, a in enumerate(actions):
            if state.is_terminal():
                return None
            before = len(heads.get(sid, []))
            apply(state, a)
            seen = heads.get(sid, [])
            if len(seen) > before and any(_same_but_counters(seen[i], seen[-1], counting) for i in range(len(seen) - 1)):
                return m + 1
    except (RuleError, ValueError):
        return None
    return None


def _changed(base: dict[str, str], readings: dict[str, str]) -> str:
    """An other reading's name: the ambiguity it changes and the reading taken."""
    return ", ".join(f"{a}={r}" for a, r in sorted(readings.items()) if base.get(a) != r)


def _sound_lasso(loop: ir.RepeatUntil | ir.While) -> bool:
    """A state at the loop's head says everything about the passes to come unless a pass sets a
    local name (one bound outside the state the lasso compares)."""
    return not any(isinstance(s, ir.Assign) and s.local for s in walk_stmts(loop.body))


def _same_but_counters(a: Any, b: Any, counting: dict[str, int | None]) -> bool:
    (va, la, ka), (vb, lb, kb) = a, b
    if la != lb or ka != kb:
        return False
    for name, x in va.items():
        if name in counting:
            limit = counting[name]
            if limit is not None and not x > limit:
                return False
        elif x != vb[name]:
            return False
    return True

