"""incompleteness, conflict and exhaustion: can play reach a point where no rule decides, where
two cases disagree, or where a supply or a range runs out?
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from rulecheck.codegen.playout import game_seed, play
from rulecheck.dsl.source import Span
from rulecheck.reports import wording

from .. import terms as tm
from ..conditions import (
    Condition,
    obligation_condition,
    obligation_groups,
)
from ..context import RANDOM_MAX_STEPS, Context, _enclosing
from ..findings import Finding
from ..symvalues import ObligationKey
from ..terms import Term

#: Obligation kinds of the symbolic executor and the finding kind they become.
OBLIGATION_KINDS = {"incomplete": "incompleteness", "conflict": "conflict", "exhaustion": "exhaustion", "range": "exhaustion"}

#: Subjects of obligations that name a construct of the language, not a rule of the game.
GENERIC_SUBJECTS = frozenset({"the", "choice", "match", "min", "max", "player"})


#: The resource limit of a question of the induction whether a failure can happen, in questions'
#: limits: it is about a whole pass from any state (a committed ruleset's choice at 5 players took
#: half the limit alone, and more than all of it in another worker's z3 context).
OBLIGATION_EFFORT = 3.0

#: Random games under each other reading, per player count, looking for a situation no rule
#: settles (or a conflict, or an exhaustion) that the default readings never reach.
OTHER_READING_GAMES = 50


class ObligationCheck(Context):
    """incompleteness, conflict and exhaustion: a situation no rule settles, two rules that
    disagree, a supply or range that runs out; under the default readings by the solver, under
    the other readings by random games."""

    def check_other_readings(self) -> None:
        """Random games (coupled, on the generated engines) under each reading one ambiguity away
        from the default: the first game in which the rules stop at each place, replayed and
        checked like every witness. A claim that something never happens is made for the default
        readings; this says where another reading makes it happen (see merge_other_readings)."""
        if self.o.random_games <= 0:
            return
        g = self.rules.game
        seen: set[tuple[str, int, int]] = set()
        for alt in self.other_readings():
            under = ", ".join(f"{a}={r}" for a, r in sorted(alt.items()) if r != self.base_readings[a])
            for n in range(g.min_players, g.max_players + 1):
                for err, actions in self.random_failures(alt, n):
                    key = (err.kind, err.line, err.column)
                    if key not in seen:
                        seen.add(key)
                        span = Span(err.line, err.column, err.line, err.column)
                        p, _ = self.play_actions(alt, actions, n, f"reading {under}")
                        what = _obligation_what(err.kind, _enclosing(self.rules, span) or err.kind, "", None)
                        self.found(OBLIGATION_KINDS[err.kind], "happens", _enclosing(self.rules, span) or err.kind, span,
                                   witness=self.witness([p], n, f"the rules stop: {err.message}"),
                                   what=what, situation=err.message, obligation=err.kind, players=n, under=under)

    def random_failures(self, readings: dict[str, str], n: int) -> Iterator[tuple[Any, list[Any]]]:
        """The random games of n players under these readings (OTHER_READING_GAMES of them, on the
        generated engine) that the rules stop at a failure: the engine's error and the moves."""
        module = self.engine(readings)
        if module is None:
            return
        game = module.load_game({"players": n, **self.o.params})
        for k in range(OTHER_READING_GAMES):
            actions: list[Any] = []
            try:
                play(game, _Never, game_seed(0, k), RANDOM_MAX_STEPS, actions)
            except module.RuleError as err:
                if err.kind in OBLIGATION_KINDS:
                    yield err, actions

    def beyond_the_bound(self, merged: dict[ObligationKey, dict[str, Any]]) -> None:
        """Random games under the default readings for the failures neither the induction nor the
        bounded trace settled for games of any length, where a game can outrun the loop bound: one
        that happens only after more passes than the trace unrolls is shown by the first such
        game (a witness like any other), not left as "never happens" within the bound."""
        open_keys = {key: e for key, e in merged.items() if e["witness"] is None and e["inductive"] != self.players}
        if not open_keys or self.o.random_games <= 0 or not any(self.cut_by_bound(n) for n in self.players):
            return
        for n in self.players:
            for err, actions in self.random_failures(self.base_readings, n):
                for key, e in open_keys.items():
                    if e["witness"] is None and key[:3] == (err.kind, err.line, err.column):
                        p, _ = self.play_actions(self.base_readings, actions, n, "a random game")
                        if p.outcome.startswith("the rules stop"):
                            e["witness"] = (n, p)

    def by_induction(self, n: int, keys: list[ObligationKey]) -> set[ObligationKey]:
        """The obligations that hold in every game of n players however long, proven by
        induction over the open loops (induction.py): no state at any point of the cut game,
        with the head facts proven of its loops, lets the rules fail there. (One the proof does
        not settle goes on to the bounded trace, which may show it happen.)"""
        h = self.induction(n)
        if h is None:
            return set()
        violations: dict[ObligationKey, list[Term]] = defaultdict(list)
        for o in h.ind.obligations:
            violations[o.key].append(o.cond)
        # one the cut game does not have at all cannot fail anywhere in it (the executor keeps no
        # failure whose condition is false: the flow's end, for one, is reached on every path
        # that leaves its loops). Each is asked of a solver of its own: asked of one solver in
        # turn (Houdini.holds_each), what it kept from the earlier questions left some unproven
        # that a question of their own proves in a second (docs/verify.md)
        return {k for k in keys if h.holds(tm.or_all(violations.get(k, [])), OBLIGATION_EFFORT)}

    def check_obligations(self) -> None:
        merged: dict[ObligationKey, dict[str, Any]] = {}
        for n in self.players:
            t = self.base(n)
            groups = obligation_groups(t)
            inductive = self.by_induction(n, [g.key for g in groups])
            asked: list[tuple[dict[str, Any], Condition]] = []
            for grp in groups:
                entry = merged.setdefault(grp.key, {"group": grp, "proven": [], "inductive": [], "unknown": [], "unconfirmed": [],
                                                "witness": None})
                if grp.key in inductive:
                    entry["inductive"].append(n)
                elif entry["witness"] is None:
                    asked.append((entry, obligation_condition(t, grp)))
            for (entry, _), r in zip(asked, self.solve_all([cond for _, cond in asked])):
                if r.status == "sat":
                    assert r.model is not None
                    play = self.play_of(t, r.model, n, "the game")
                    if play.outcome.startswith("the rules stop"):
                        entry["witness"] = (n, play)
                    else:
                        # the solver's game plays to the end in the interpreter and the engine:
                        # the symbolic model over-approximates here, which is rulecheck's limit
                        entry["unconfirmed"].append(n)
                elif r.status == "unsat":
                    entry["proven"].append(n)
                else:
                    entry["unknown"].append(n)
        self.beyond_the_bound(merged)
        for entry in merged.values():
            grp = entry["group"]
            kind = OBLIGATION_KINDS[grp.kind]
            what = _obligation_what(grp.kind, grp.subject, grp.part, _enclosing(self.rules, grp.span))
            proven = self.proven_line(entry["proven"], entry["inductive"])
            facts: dict[str, Any] = {"what": what, "situation": grp.message, "obligation": grp.kind}
            if entry["witness"] is not None:
                n, play = entry["witness"]
                self.found(kind, "happens", grp.subject, grp.span, witness=self.witness([play], n, f"the rules stop: {grp.message}"),
                           players=n, **facts)
            elif entry["unconfirmed"]:
                self.found(kind, "coarse", grp.subject, grp.span, bound=proven, unconfirmed=self.span_line(entry["unconfirmed"]),
                           proven=proven, **facts)
            elif entry["unknown"]:
                self.found(kind, "timeout", grp.subject, grp.span, bound=proven, unknown=self.span_line(entry["unknown"]),
                           proven=proven, **facts)
            elif entry["inductive"] == self.players:
                every = wording.players_text(self.players)
                self.found(kind, "never", grp.subject, grp.span, bound=self.bound(f"every game of {every}, any length"),
                           proven=every, scope=self.readings_scope(), how="induction", **facts)
            else:
                self.found(kind, "never", grp.subject, grp.span, bound=self.bound(f"every game of {proven}"),
                           proven=proven, scope=self.readings_scope(), **facts)


class _Never(Exception):
    """play() catches the rule errors of the engine it is given; here they are wanted."""


def merge_other_readings(findings: list[Finding], others: int, games: int) -> list[Finding]:
    """The findings of the default readings' obligations with what random games under the other
    readings showed: a "never happens" claim says so, or names the reading under which it happens;
    a failure another reading shows where the default's game shows one too is dropped."""
    under: dict[tuple[int, int], list[Finding]] = {}
    for f in findings:
        if f.verdict == "happens" and f.details.get("under"):
            under.setdefault((f.span.line, f.span.col), []).append(f)
    default_happens = {(f.span.line, f.span.col) for f in findings if f.verdict == "happens" and not f.details.get("under")}
    default_verdict = {(f.span.line, f.span.col): f.verdict for f in findings
                       if f.kind in ("incompleteness", "conflict", "exhaustion") and not f.details.get("under")}
    out = []
    for f in findings:
        key = (f.span.line, f.span.col)
        if f.details.get("under") and key in default_happens:
            continue
        if f.details.get("under"):
            f.details["default"] = default_verdict.get(key)
        if f.verdict == "never":
            shown = under.get(key, [])
            if shown:
                f.details["other_readings"] = "it happens under " + ", ".join(x.details["under"] for x in shown) + " (see that finding)"
                for x in shown:
                    x.details["default_bound"] = f.bound
            elif others:
                f.details["other_readings"] = (f"random games under each of the {others} other readings ({games} for each player count) "
                                               "never reach it")
        out.append(f)
    return out


def _obligation_what(kind: str, subject: str, part: str = "", where: str | None = None) -> str:
    if subject in GENERIC_SUBJECTS and where is not None:
        subject = f"{subject}' in '{where}"
    if kind == "conflict":
        # a definition can have several pairs of cases: the title names the pair
        return f"'{subject}': {part or 'two cases'} disagree"
    if kind in ("exhaustion", "range"):
        return f"'{subject}' runs out"
    return f"'{subject}': no rule decides"
