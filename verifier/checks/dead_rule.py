"""dead rule: is there a branch, case or end that no game reaches?
"""

from __future__ import annotations

from typing import Any

from rulecheck.codegen.playout import game_seed
from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TEnum, TInt

from .. import terms as tm
from ..context import Context, _enclosing, _quotes, drained_loops
from ..findings import Play, Quote
from ..symvalues import Trace, statements
from ..witness import (
    random_game,
)

ELSEWHERE_GAMES = 8  # random games per player count and parameter value for a rule no checked game reaches


class DeadRuleCheck(Context):
    """dead rule: is there a branch, case or end that no game reaches?"""

    def check_dead_rules(self) -> None:
        labels: dict[str, Any] = {}
        covered: set[str] = set()
        undecided: set[str] = set()  # the solver ran out of time for some player count
        drained = drained_loops(self.program(self.base_readings))
        last: dict[int, Trace] = {}  # the last trace explored of each player count
        for n in self.players:
            # the base trace, then (for what it does not reach) the trace with the loops that
            # drain a zone unrolled whole: what follows such a loop is cut off in the first
            traces = [self.base(n)] + ([self.trace_bounded(n, self.o.loop_bound)] if drained else [])
            open_here: set[str] = set()  # out of time in the last trace that asked
            for t in traces:
                pending = [lab for lab, rch in sorted(t.reach.items()) if lab not in covered]
                for lab in pending:
                    labels.setdefault(lab, t.reach[lab])
                open_here -= set(pending)
                self.cover(t, pending, covered, open_here)
            undecided |= open_here
            last[n] = traces[-1]
        # a rule no game checked reaches may apply with another player count or parameter value:
        # then it is not dead
        candidates = {lab for lab in labels if lab not in covered and not lab.startswith("loop")}
        covered |= self.reached_elsewhere(candidates)
        # nor is one that applies under another reading: then whether it applies at all is the
        # question that reading asks (a claim that something never happens must say under which
        # readings it holds)
        elsewhere = self.reached_under_other_readings({lab for lab in candidates if lab not in covered})
        # the player counts whose games can outrun every trace explored: asked only where a rule
        # is left that no game reached (a question of the whole trace, the costliest here)
        left = any(lab not in covered and lab not in elsewhere for lab in candidates)
        cut = [n for n in self.players if left and (self.can_be_cut(last[n]) if drained else self.cut_by_bound(n))]
        quotes = _rule_quotes(self.program(self.base_readings))
        scope = self.readings_scope()
        others = self.other_readings()
        explored = (f"random games under each of the {len(others)} other readings ({ELSEWHERE_GAMES} for each player count) "
                    "never reach it") if others and self.o.random_games > 0 else None
        for lab, rch in sorted(labels.items(), key=lambda kv: (kv[1].span.line, kv[1].span.col, kv[0])):
            if lab in covered or lab.startswith("loop"):
                continue
            where = _enclosing(self.rules, rch.span) if rch.subject in ("if", "end") else None
            what = f"{rch.what} in '{where}'" if where else rch.what
            if lab in elsewhere:
                alt, n, play = elsewhere[lab]
                under = ", ".join(f"{a}={r}" for a, r in sorted(alt.items()) if r != self.base_readings[a])
                self.found("dead-rule", "other-reading", rch.subject, rch.span, quotes.get(lab, []),
                           witness=self.witness([play], n, f"{what} applies under {under}"),
                           what=what, players=self.span_line(self.players), under=under, witness_players=n)
                continue
            if lab in undecided or cut:
                # not reached in the games explored, but those are not all the games
                why = "the solver ran out of time" if lab in undecided else f"games of {self.span_line(cut)} run past the loop bound"
                self.found("dead-rule", "not-reached", rch.subject, rch.span, quotes.get(lab, []),
                           what=what, players=self.span_line(self.players), why=why)
                continue
            self.found("dead-rule", "dead", rch.subject, rch.span, quotes.get(lab, []),
                       bound=self.bound(f"every game of {self.span_line(self.players)}"),
                       what=what, players=self.span_line(self.players), scope=scope, other_readings=explored)

    def reached_under_other_readings(self, labels: set[str]) -> dict[str, tuple[dict[str, str], int, Play]]:
        """For each of the rules, a game under another reading (one ambiguity switched) that
        reaches it: a few random games of each player count the game allows, replayed and checked
        like every witness."""
        if not labels or self.o.random_games <= 0:
            return {}
        g = self.rules.game
        found: dict[str, tuple[dict[str, str], int, list[Any]]] = {}
        others = [(alt, self.program(alt)) for alt in self.other_readings()]
        # game k of every reading and player count before game k + 1 of any: a rule another
        # reading reaches usually shows in its first games, whichever reading it is
        for k in range(ELSEWHERE_GAMES):
            for alt, program in others:
                for n in range(g.min_players, g.max_players + 1):
                    covered: set[str] = set()
                    actions = random_game(program, n, seed=game_seed(0, k), params=self.o.params, covered=covered)
                    for lab in sorted((covered & labels) - set(found)):
                        found[lab] = (alt, n, actions)
                    if len(found) == len(labels):
                        break
                if len(found) == len(labels):
                    break
            if len(found) == len(labels):
                break
        out: dict[str, tuple[dict[str, str], int, Play]] = {}
        for lab, (alt, n, actions) in found.items():
            under = ", ".join(f"reading {r}" for a, r in sorted(alt.items()) if r != self.base_readings[a])
            play, _ = self.play_actions(alt, actions, n, under)
            out[lab] = (alt, n, play)
        return out

    def reached_elsewhere(self, labels: set[str]) -> set[str]:
        """Which of the rules a few random games reach (in the interpreter, which records every
        rule that applies) with each player count the game allows, and with each other value of
        the parameters not set with --param (one at a time)."""
        if not labels or self.o.random_games <= 0:
            return set()
        g = self.rules.game
        counts = range(g.min_players, g.max_players + 1)
        configs: list[dict[str, Any]] = [{}]
        for name, p in sorted(self.rules.params.items()):
            if name in self.o.params:
                continue
            if isinstance(p.type, TBool):
                configs.append({name: not p.value})
            elif isinstance(p.type, TEnum):
                configs += [{name: i} for i in range(len(self.rules.enums[p.type.name].values)) if i != p.value]
            elif isinstance(p.type, TInt) and p.type.lo is not None and p.type.hi is not None:
                # a number: its ends and a few values between (a rule may need one of them)
                lo, hi = p.type.lo, p.type.hi
                values = sorted({lo, hi, *(lo + (hi - lo) * i // 4 for i in range(1, 4))} - {p.value})
                configs += [{name: v} for v in values]
        program = self.program(self.base_readings)
        found: set[str] = set()
        for extra in configs:
            for n in counts:
                for k in range(ELSEWHERE_GAMES):
                    covered: set[str] = set()
                    random_game(program, n, seed=game_seed(0, k), params={**self.o.params, **extra}, covered=covered)
                    found |= covered & labels
                    if found == labels:
                        return found
        return found

    def cover(self, t: Trace, pending: list[str], covered: set[str], undecided: set[str]) -> None:
        """Which of the pending rules some game of the trace reaches; one game that reaches a rule
        usually reaches many, so each model is evaluated on all of them: first those of a few
        random games (the rules every game goes through, without the solver), then the solver's."""
        games, valid = self.random_models(t, games=16)
        covered.update(lab for lab in pending if valid & games.mask(t.reach[lab].cond))
        pending[:] = [p for p in pending if p not in covered]
        # one solver for the trace, each rule's reach asked of it in turn
        batch = self.session(t.constraints).batch([t.reach[lab].cond for lab in pending])
        index = {lab: i for i, lab in enumerate(pending)}
        while pending:
            lab = pending.pop(0)
            if lab in covered:
                continue
            r = batch.ask(index[lab])
            if r.status == "unknown":
                undecided.add(lab)
            if r.status != "sat":
                continue
            assert r.model is not None
            value = tm.Evaluator(r.model)
            for other in [*pending, lab]:
                if value(t.reach[other].cond):
                    covered.add(other)
            pending[:] = [p for p in pending if p not in covered]


def _rule_quotes(program: ir.Program) -> dict[str, list[Quote]]:
    """The rulebook quotes of each rule a dead-rule finding can name, by its reach label."""
    out: dict[str, list[Quote]] = {}
    for s in statements(program):
        if isinstance(s, ir.If):
            out[ir.label_if(s.sid, True)] = _quotes(s.source)
            out[ir.label_if(s.sid, False)] = _quotes(s.else_source or s.source)
        elif isinstance(s, ir.End):
            out[ir.label_end(s.sid)] = _quotes(s.source)
    for proc in program.procs.values():
        out[ir.label_proc(proc.name, proc.reading)] = _quotes(proc.source)
    for d in program.defs.values():
        for c in d.cases or []:
            out[ir.label_case(d.name, c.name, d.reading)] = _quotes(c.source or d.source)
    return out
