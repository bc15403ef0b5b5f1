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

from rulecheck.codegen.playout import apply
from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TPlayer
from rulecheck.dsl.walk import walk_stmts
from rulecheck.interpreter.semantics import RuleError, resolve_params
from rulecheck.interpreter.state import Game, State
from rulecheck.reports import wording

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
from ..heads import Feature
from ..induction import ranking
from ..symvalues import Trace, statements
from ..witness import (
    actions_of,
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
        found: tuple[int, Trace, dict[str, bool | int]] | None = None
        proven: list[int] = []
        unknown: list[int] = []
        for n in self.players:
            if sound_lasso:
                found = self.solver_lasso(self.base_readings, loop, n, counting)
                if found:
                    break
            t = self.trace_bounded(n, self.o.loop_bound)
            r = self.session(t.constraints).check(t.truncated)
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
            # where those moves are no such game, a random game of that reading's own may repeat
            own = [x for label, readings, other in others
                   if label in open_ and other is not None and (x := self.own_lasso(readings, other, n)) is not None]
            open_ = [label for label in open_ if label not in {x["reading"] for x in own}]
            # and where none does, a measure may prove that the loop ends there
            ranked = [x for label, readings, other in others
                      if label in open_ and other is not None and (x := self.ranked_by_induction(readings, other)) is not None]
            open_ = [label for label in open_ if label not in {x["reading"] for x in ranked if not x["open"]}]
            self.found("non-termination", "lasso", "loop", loop.span, src, witness=self.witness([play], n, "the state repeats: the loop never ends"),
                       players=n, counters=sorted(counting), scope=self.readings_scope(), also_under=also, ends_under=ended,
                       open_under=open_, own_lassos=own, ranked_under=ranked)
        elif unknown and (measured := self.ranked_by_induction(self.base_readings, loop)) is not None and not measured["open"]:
            self.found("non-termination", "measured", "loop", loop.span, src, bound=self.bound(f"every game of {measured['players']}, any length"),
                       players=measured["players"], grows=measured["grows"], shrinks=measured["shrinks"], scope=self.readings_scope(),
                       **({"by_count": measured["by_count"]} if "by_count" in measured else {}),
                       ends_under=ended)
        elif unknown:
            self.found("non-termination", "timeout", "loop", loop.span, src, bound=f"{self.o.loop_bound} passes",
                       loop_bound=self.o.loop_bound, unknown=self.span_line(unknown), scope=self.readings_scope(), ends_under=ended)
        else:
            self.found("non-termination", "within-bound", "loop", loop.span, src,
                       bound=self.bound(f"every game of {self.span_line(proven)}"),
                       loop_bound=self.o.loop_bound, proven=self.span_line(proven), scope=self.readings_scope(), ends_under=ended)

    def solver_lasso(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While, n: int,
                     counting: dict[str, int | None]) -> tuple[int, Trace, dict[str, bool | int]] | None:
        """A game of n players under ``readings`` (whose program ``loop`` is in) that comes back
        to a state a pass of the loop began in, the loop going on, within the loop bound: the
        players, the trace and the solver's model; None where the solver shows none in time."""
        t = self.trace_bounded(n, self.o.loop_bound, readings=readings)
        session = self.session(t.constraints)
        # first the small problems: games of k passes whose last pass is played exactly as the one
        # before it and ends where it began (k = 2, 3, …); then any two passes of the full trace
        # with any play between them
        for k in range(2, self.o.loop_bound + 1):
            tk = self.trace_bounded(n, k, readings=readings)
            if loop.sid not in tk.loop_heads:
                break
            r = (session if tk is t else self.session(tk.constraints)).check(
                lasso_at(tk, loop.sid, k - 1, k, counting), *repeat_pass(tk, loop.sid, k - 1))
            if r.status == "sat":
                assert r.model is not None
                return n, tk, r.model
        r = session.check(lasso(t, loop.sid, counting))
        if r.status == "sat":
            assert r.model is not None
            return n, t, r.model
        return None

    def own_lasso(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While, n: int) -> dict[str, Any] | None:
        """A game of n players under other readings whose loop comes back to a state a pass
        began in, the loop going on: by random play, else by the solver, replayed in the
        reference interpreter (a game it does not confirm is none)."""
        if not _sound_lasso(loop):
            return None
        program = self.program(readings)
        mine = counters(program, resolve_params(self.rules, self.o.params)[0])
        actions = self.random_lasso(loop, n, mine, readings)
        if actions is None:
            found = self.solver_lasso(readings, loop, n, mine)
            if found is not None:
                _, t, model = found
                moves = actions_of(t, model, n, self.pass_action)
                cut = _first_repeat(program, n, self.o.params, moves, loop.sid, mine)
                actions = None if cut is None else moves[:cut]
        if actions is None:
            return None
        return {"reading": _changed(self.base_readings, readings), "players": n, "counters": sorted(mine), "actions": actions}

    def ranked_by_induction(self, readings: dict[str, str], loop: ir.RepeatUntil | ir.While) -> dict[str, Any] | None:
        """The loop proven to end under ``readings`` by a measure (induction.ranking), for the
        player counts from the smallest up to the first where no measure is found: the reading,
        those counts and the measure's words; None where it is proven for none."""
        found: list[tuple[Feature, int, int]] = []
        proven: list[int] = []
        # the counts whose measures are the same numbers, in words: (counts, grows, shrinks)
        groups: list[tuple[list[int], list[str], list[str]]] = []
        for n in self.players:
            h, samples = self.inducted(readings, n, loop.sid)
            measure = None if h is None else ranking(h, loop.sid, samples)
            if measure is None:
                break  # (each count costs more than the one before: the next would not be proven either)
            found += measure
            proven.append(n)
            words = (_numbers(self.rules, measure, -1), _numbers(self.rules, measure, 1))
            if groups and (groups[-1][1], groups[-1][2]) == words:
                groups[-1][0].append(n)
            else:
                groups.append(([n], *words))
        if not proven:
            return None
        out: dict[str, Any] = {
            "reading": _changed(self.base_readings, readings), "players": wording.players_text(proven),
            "open": wording.players_text([n for n in self.players if n not in proven]) if proven != self.players else None,
            "grows": _numbers(self.rules, found, -1), "shrinks": _numbers(self.rules, found, 1)}
        if len(groups) > 1:  # each count's own measure (the union above is no count's)
            out["by_count"] = [{"players": wording.players_text(ns), "grows": g, "shrinks": s} for ns, g, s in groups]
        return out

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

    def random_lasso(self, loop: ir.RepeatUntil | ir.While, n: int, counting: dict[str, int | None],
                     readings: dict[str, str] | None = None) -> list[Any] | None:
        """The moves of a random game under the default readings (or ``readings``, whose program
        ``loop`` is in) up to where a pass of the loop begins in a state an earlier pass began in
        (the counters aside), the loop going on; None when LASSO_GAMES games of LASSO_MOVES moves
        show none. Only for a loop the flow runs once: two passes of different runs of a loop may
        meet in one state with other things left to do around them (an outer loop's count, a
        procedure's arguments), which the state does not hold."""
        readings = self.base_readings if readings is None else readings
        program = self.program(readings)
        if self.o.random_games <= 0 or not any(s is loop for s in program.rules.flow):
            return None
        engine = self.engine(readings)
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


def _numbers(rules: ir.Ruleset, measure: list[tuple[Feature, int, int]], sign: int) -> list[str]:
    """The numbers of a measure that move one way (-1: grow), in words, each once whatever its
    index: "the size of 'pile'", "'points' (of each player)"."""
    out: list[str] = []
    for (kind, name, idx), s, _ in measure:
        if s != sign:
            continue
        indexed = "" if idx is None else (" (of each player)" if isinstance((rules.zones[name].index if kind == "zone" else rules.vars[name].index), TPlayer)
                                          else " (of each)")
        words = f"the size of '{name}'{indexed}" if kind == "zone" else f"'{name}'{indexed}"
        if words not in out:
            out.append(words)
    return out
