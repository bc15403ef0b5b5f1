"""ambiguity: do the readings of a declared ambiguity ever give other results, moves or views?
"""

from __future__ import annotations

import functools
from typing import Any

from rulecheck.codegen.playout import ERROR, Outcome, game_seed, play, plays_alike
from rulecheck.dsl import ir
from rulecheck.dsl.values import player_name
from rulecheck.reports import wording

from .. import terms as tm
from ..conditions import (
    moves_condition,
    outcome_differs,
)
from ..context import RANDOM_MAX_STEPS, ReplayMismatch, _quotes
from ..findings import Finding, Play, Quote
from ..witness import (
    FEW_MOVES,
    RULE_STOPS,
    STOPPED,
    first_difference,
    first_seen_difference,
    first_state_difference,
    follow,
    observe_engine,
    random_game,
    replay_result,
)
from ..z3backend import Result
from .local_proofs import _moved_only
from .same_rule import SameRuleCheck

SEEN_GAMES = 3  # random games watched for a difference in what players see: it shows in most games or none
#: random games replayed under the other reading before any proof that the two play alike: one
#: that plays otherwise there shows that no such proof can hold (a few milliseconds on an engine)
APART_GAMES = 512


class AmbiguityCheck(SameRuleCheck):
    """ambiguity: do the readings of a declared ambiguity ever give other results, moves or views?"""

    def random_witness(self, alt: dict[str, str], n: int, labels: tuple[str, str], names: tuple[str, str]) -> tuple[Play, Play, str] | None:
        """Games played at random on the two readings' engines, their choices coupled (the same
        seed, so the same choices wherever the readings offer the same ones): of those whose
        results differ (the winners, or the rules stop one game and not the other: _result), the
        one with the fewest moves after the readings part (a few are kept looking for; the
        first short enough is taken), replayed and checked like any witness,
        with the results and where the two games first part. For differences the solver cannot
        reach: games longer than its loop bound, or problems it does not settle in time.
        Deterministic: fixed seeds."""
        ma, mb = self.engine(self.base_readings), self.engine(alt)
        if ma is None or mb is None or self.o.random_games <= 0:
            return None
        ga = ma.load_game({"players": n, **self.o.params})
        gb = mb.load_game({"players": n, **self.o.params})
        best: tuple[int, list[Any], list[Any]] | None = None
        for g in range(self.o.random_games):
            seed = game_seed(0, g)
            acts_a: list[Any] = []
            acts_b: list[Any] = []
            stop_a: list[str] = []
            stop_b: list[str] = []
            oa, _, _ = play(ga, ma.RuleError, seed, RANDOM_MAX_STEPS, acts_a, stop_a)
            ob, _, _ = play(gb, mb.RuleError, seed, RANDOM_MAX_STEPS, acts_b, stop_b)
            ka, kb = _result(oa, stop_a), _result(ob, stop_b)
            if ka is None or kb is None or ka == kb:
                continue
            shared = 0
            while shared < min(len(acts_a), len(acts_b)) and acts_a[shared] == acts_b[shared]:
                shared += 1
            after = max(len(acts_a), len(acts_b)) - shared
            if best is None or after < best[0]:
                best = (after, acts_a, acts_b)
            if after <= FEW_MOVES:
                break
        if best is None:
            self.random_tried.append(n)
            return None
        _, acts_a, acts_b = best
        pa, ra = self.play_actions(self.base_readings, acts_a, n, labels[0])
        pb, rb = self.play_actions(alt, acts_b, n, labels[1])
        if None in (replay_result(ra), replay_result(rb)) or replay_result(ra) == replay_result(rb):
            raise ReplayMismatch(f"a random game the engines end with other results replays otherwise in the interpreter ({names[1]})")
        div = f"{pa.outcome} under '{names[0]}'; {pb.outcome} under '{names[1]}'"
        program_a, program_b = self.program(self.base_readings), self.program(alt)
        # where the tables first differ; or, where the games part before that, the decision at
        # which the readings offer other moves
        where = (first_state_difference(program_a, program_b, n, (acts_a, acts_b), names, self.o.params)
                 or first_difference(program_a, program_b, n, acts_a, names, self.o.params))
        if where:
            return pa, pb, f"{div}; the games first part {where}"
        # (one game at most is stopped: the results differ) its moves, the one the rules stop at
        # last, made in the other game too
        for name, r, acts, other in ((names[0], ra, acts_a, acts_b), (names[1], rb, acts_b, acts_a)):
            if replay_result(r) == STOPPED and other[:len(acts)] == acts:
                return pa, pb, f"{div}; the two games make the same moves on the same table up to decision {len(acts)}, where the rules stop the one under '{name}'"
        if acts_a == acts_b:
            return pa, pb, f"{div}; the two games are the same move for move, on the same table: only the result the rules give at the end differs"
        return pa, pb, div

    def where_used_proof(self, amb: ir.Ambiguity, alt: dict[str, str], n: int) -> bool:
        """agree_where_used, with the assumed and unspecified data free first where the
        sensitivity check will ask that too: a proof for every table proves the assumed one."""
        return (self.o.sensitivity and self.where_used_any_table(amb, alt, n)) or self.agree_where_used(amb, alt, n)

    def random_apart(self, alt: dict[str, str], n: int, games: int) -> bool:
        """Whether one of ``games`` random games of n players, its moves replayed under the other
        reading, meets a node that offers other options there or ends with other winners (on
        the engines; False without them)."""
        return self.parting_game(alt, n, games) is not None

    def parting_game(self, alt: dict[str, str], n: int, games: int) -> list[Any] | None:
        """The moves of the first of ``games`` random games that random_apart looks for, under
        the default readings (None: none of them)."""
        ma, mb = self.engine(self.base_readings), self.engine(alt)
        if ma is None or mb is None:
            return None
        ga = ma.load_game({"players": n, **self.o.params})
        gb = mb.load_game({"players": n, **self.o.params})
        for g in range(games):
            actions: list[Any] = []
            outcome, _, _ = play(ga, ma.RuleError, game_seed(1, g), RANDOM_MAX_STEPS, actions)
            if not isinstance(outcome, str) and not plays_alike(ga, gb, (ma.RuleError, mb.RuleError), actions):
                return actions
        return None

    def check_ambiguities(self) -> None:
        for amb in self.rules.ambiguities.values():
            if amb.name in self.o.readings:
                continue
            base_reading = self.base_readings[amb.name]
            for reading in amb.readings:
                if reading.name == base_reading:
                    continue
                self.check_reading(amb, base_reading, reading.name)

    def check_reading(self, amb: ir.Ambiguity, base: str, other: str) -> None:
        alt = dict(self.base_readings)
        alt[amb.name] = other
        proven: list[int] = []
        unknown: list[int] = []
        quotes = _ambiguity_quotes(amb)
        label_a = f"reading {base} (default)" if base == amb.default.name else f"reading {base}"
        label_b = f"reading {other}"
        locally: list[int] = []
        at_end: list[int] = []
        self.random_tried = []
        # two readings that are one rule: comparing them would prove nothing about the rulebook
        same = self.same_rule(amb, alt)
        if same is not None:
            self.found("ambiguity", "same-rule", amb.name, amb.span, quotes, declared=amb.kind, why=same,
                       ambiguity=amb.name, readings=[base, other])
            return
        moved = _moved_only(amb, base, other)
        for i, n in enumerate(self.players):
            if i == 1:
                # past the smallest count (whose questions are the smallest, and the solver's
                # witness there the shortest, one the sensitivity check can ask the solver about),
                # random games first at every larger count where games can outrun the solver's
                # loop bound: a difference in results that they show settles the question, at a
                # cost next to nothing beside one solver question there, whose answer covers only
                # the games within the bound
                for k in [k for k in self.players[1:] if self.cut_by_bound(k)]:
                    got = self.random_witness(alt, k, (label_a, label_b), (base, other))
                    if got is not None:
                        pa, pb, div = got
                        self.ambiguity_witness(amb, (base, other), k, "outcome", div, (pa, pb), "random play")
                        return
            # a random game that plays otherwise under the other reading (another option at some
            # node, other winners) shows that every proof that the two play alike can only fail,
            # in games that all fit the loop bound (a proof within it covers only those): such
            # proofs are not tried then, and where no random game shows it, the proof most often
            # holds and comes before the fixed deals' search. The answers are the same either
            # way (a witness game may differ: the solver's context then holds other terms)
            parting = self.parting_game(alt, n, APART_GAMES)
            shown = parting is not None
            apart = shown and not self.cut_by_bound(n)
            # readings that change only where procedures leave components: a local proof first,
            # which costs little next to comparing two whole games; with the assumed data free
            # first, which proves the sensitivity finding too
            if moved and not apart and (self.alike_any_table(moved, alt, amb.name, n) or self.same_after_moves(moved, alt, n)):
                locally.append(n)
                proven.append(n)
                continue
            # readings that change only the winners: a proof over the end of the game alone
            if not moved and not apart and (self.end_any_table(amb, alt, n) or self.agree_at_end(amb, alt, n)):
                at_end.append(n)
                proven.append(n)
                continue
            # a proof local to the changed definitions costs less than the open deals' search;
            # where no random game shows the readings apart it most often holds, and is asked
            # before either reading's whole game is built
            prove = None if apart else functools.partial(self.where_used_proof, amb, alt, n)
            if prove is not None and not shown and prove():
                kind_of, r = "local", Result("unsat")
            else:
                ta = self.trace(n, self.base_readings)
                tb = self.trace(n, alt)
                both = ta.constraints + tb.constraints
                background, moves = moves_condition(ta, tb)
                kind_of, r = self.search([ta, tb], [("outcome", both, outcome_differs(ta, tb)), ("moves", background, moves)], n,
                                         prove=prove if shown else None, parting=parting)
            if kind_of == "local":
                locally.append(n)
            found_by, where = "", None
            if r.status == "sat":
                assert r.model is not None
                pa = self.play_of(ta, r.model, n, label_a)
                if kind_of == "outcome":
                    pb = self.play_of(tb, r.model, n, label_b)
                else:
                    pb = self.play_of(tb, r.model, n, label_b, after=pa.actions)
                    where = first_difference(self.program(ta.readings), self.program(tb.readings), n, pa.actions, (base, other), self.o.params)
                    if where is None:
                        # the solver's claim does not replay: the symbolic model over-approximates
                        # here. Said loudly, as rulecheck's own limit, never as a finding.
                        self.found("ambiguity", "coarse", amb.name, amb.span, quotes, declared=amb.kind,
                                   ambiguity=amb.name, readings=[base, other], players=n)
                        return
            elif r.status == "unknown" or self.cut_by_bound(n):
                # beyond the solver's reach (time, or games longer than its bound): random games
                # (played above, unless random play is off)
                got = None if n in self.random_tried else self.random_witness(alt, n, (label_a, label_b), (base, other))
                if got is not None:
                    (pa, pb, div), kind_of, found_by = got, "outcome", "random play"
            if r.status == "sat" or found_by:
                if kind_of == "outcome":
                    if not found_by:
                        div = f"{pa.outcome} under '{base}'; {pb.outcome} under '{other}'"
                        if pa.outcome == pb.outcome:  # the same winners: the scores differ
                            div = f"{pa.outcome} under both, but " + "; ".join(
                                f"'{name}' is {_by_seat(got)} under '{base}', {_by_seat(self.scores[id(pb)][name])} under '{other}'"
                                for name, got in self.scores[id(pa)].items() if got != self.scores[id(pb)].get(name))
                else:
                    assert where is not None
                    div = where
                finding = self.ambiguity_witness(amb, (base, other), n, kind_of, div, (pa, pb), found_by)
                if r.model is not None and not found_by:
                    value = tm.Evaluator(r.model)
                    active = {d.key for t in (ta, tb) for d in t.decisions if value(d.active)}
                    self.models[id(finding)] = (r.model, active)
                return
            (proven if r.status == "unsat" else unknown).append(n)
        # results are compared only in games that end: where none ends within the bound, "the
        # same in every game" covers the opening of the game alone, and is not a proof
        endless = [n for n in proven if not self.ends_within(n)]
        settled = [n for n in proven if n not in endless]
        checked = (f" The solver checked {self.span_line(self.players)}"
                   + (f": no game of {self.span_line(settled)} shows a difference." if settled else ", without an answer."))
        # the question is whether the readings ever differ: random games of the player counts
        # the solver did not take show it too, and cost little next to a solver question
        g = self.rules.game
        for n in [k for k in range(g.min_players, g.max_players + 1) if k not in self.players]:
            got = self.random_witness(alt, n, (label_a, label_b), (base, other))
            if got is not None:
                pa, pb, div = got
                self.ambiguity_witness(amb, (base, other), n, "outcome", div, (pa, pb), "random play", checked)
                return
        seen = self.seen_witness(alt, self.players[0], (label_a, label_b), (base, other))
        if seen is not None:
            pa, pb, div = seen
            if unknown or endless:
                same = " Whether they also change results or moves was not decided."
            else:
                same = f" In every game of {self.span_line(proven)} they give the same winners and scores and offer the same choices."
            self.ambiguity_witness(amb, (base, other), self.players[0], "information", div, (pa, pb), "random play", same)
            return
        facts: dict[str, Any] = {"ambiguity": amb.name, "readings": [base, other]}
        if endless:
            self.found("ambiguity", "endless", amb.name, amb.span, quotes, declared=amb.kind, endless=self.span_line(endless),
                       unknown=self.span_line(unknown) if unknown else None, **facts)
            return
        if unknown:
            random_note = (f" Random play showed none either: {self.o.random_games} games for each player count "
                           f"({wording.players_text(sorted(set(self.random_tried)))}), the same seeds under both readings."
                           if self.random_tried else "")
            self.found("ambiguity", "timeout", amb.name, amb.span, quotes, bound=self.span_line(proven) if proven else None,
                       declared=amb.kind, unknown=self.span_line(unknown), proven=self.span_line(proven) if proven else None,
                       random_note=random_note, **facts)
            return
        names = sorted({*(amb.reading(base) or amb.default).defs, *(amb.reading(other) or amb.default).defs})
        self.found("ambiguity", "harmless", amb.name, amb.span, quotes, bound=f"every game of {self.span_line(proven)}", declared=amb.kind,
                   proven=self.span_line(proven), how=wording.harmless_how(
                       names=names, moved=moved, locally=self.span_line(locally) if locally else None, local_all=locally == proven,
                       through=sorted({p for k in locally for p in self.where_used.get(k, [])}),
                       at_end=self.span_line(at_end) if at_end else None, end_all=at_end == proven,
                       invariants=sorted({name for k in at_end for name in self.end_proofs[k]}),
                       within=f"its first {self.o.loop_bound} passes of each open loop" if any(self.cut_by_bound(k) for k in locally) else None), **facts)

    def ambiguity_witness(self, amb: ir.Ambiguity, readings: tuple[str, str], n: int, kind_of: str, div: str,
                          plays: tuple[Play, Play], found_by: str, more: str = "") -> Finding:
        facts: dict[str, Any] = {"ambiguity": amb.name, "readings": list(readings), "differs_in": kind_of, "players": n}
        if found_by:
            facts["found_by"] = found_by
        return self.found("ambiguity", kind_of, amb.name, amb.span, _ambiguity_quotes(amb),
                          witness=self.witness(list(plays), n, div, at_parting=kind_of != "outcome"),
                          declared=amb.kind, question=amb.question, divergence=div, more=more, **facts)

    def seen_witness(self, alt: dict[str, str], n: int, labels: tuple[str, str], names: tuple[str, str]) -> tuple[Play, Play, str] | None:
        """A few random games played alike under both readings, watched for a point where a
        player sees other components' faces under one reading than under the other (what goes
        face up, and when). Replayed in both engines, whose view of the table must match the
        interpreter's there."""
        if self.o.random_games <= 0:
            return None
        program_a, program_b = self.program(self.base_readings), self.program(alt)
        for g in range(SEEN_GAMES):
            actions = random_game(program_a, n, seed=game_seed(0, g), params=self.o.params, engine=self.engine(self.base_readings))
            diff = first_seen_difference(program_a, program_b, n, actions, names, self.o.params)
            if diff is None:
                continue
            for readings, view in ((self.base_readings, diff.observations[0]), (alt, diff.observations[1])):
                module = self.engine(readings)
                if module is not None and observe_engine(module, n, actions[:diff.step], diff.player, self.o.params) != view:
                    raise ReplayMismatch(f"the generated engine shows {player_name(diff.player)} another table than the interpreter "
                                         f"after decision {diff.step}")
            pa, _ = self.play_actions(self.base_readings, actions, n, labels[0])
            pb, _ = self.play_actions(alt, follow(program_b, program_a, n, actions, self.o.params), n, labels[1])
            return pa, pb, diff.text
        return None


def _result(outcome: Outcome, stop: list[str]) -> tuple[Any, ...] | None:
    """A random game's result on an engine, as replay_result gives the interpreter's: who won and
    whether it was a draw, or STOPPED where the rules stopped it (``stop``: the kind of their
    error, RULE_STOPS); None where it has none (cut at the move limit, or a number past its
    declared range, which may be the model's own bound)."""
    if isinstance(outcome, tuple):
        return outcome[1], outcome[2]
    if outcome == ERROR and set(stop) <= RULE_STOPS:
        return STOPPED
    return None


def _by_seat(values: list[int]) -> str:
    return ", ".join(f"{player_name(q)} {v}" for q, v in enumerate(values))


def _ambiguity_quotes(amb: ir.Ambiguity) -> list[Quote]:
    return [q for src in amb.sources for q in _quotes(src)]
