"""Invariants proven for games of any length by induction over the open loops (verifier/induction.py):
a game whose invariant needs the induction, one whose invariant holds for three passes and fails in
the fourth (never shown as proven beyond the passes explored), and Loving Penguin's invariants, each
of which needs facts of both of its nested loops. The rules' failures proven the same way, a game
without open loops cut at its computed rounds, and none of it hiding a failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.verifier import heads, induction
from rulecheck.verifier.verify import Options, Verifier, verify

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "verify" / "induction"


def rules_of(path: Path) -> ir.Ruleset:
    loaded = load_path(path)
    assert loaded.ok and loaded.rules is not None
    return loaded.rules


def invariants(path: Path, **options: Any) -> dict[str, Any]:
    o = verify(rules_of(path), Options(timeout=10.0, jobs=1, checks=frozenset({"invariant"}), **options))
    return {f.subject: f for f in o.findings if f.kind == "invariant"}


def test_an_invariant_that_needs_the_induction_holds_any_length() -> None:
    found = invariants(HERE / "tally.rules")
    for name in ("level", "level_at_end"):
        f = found[name]
        assert (f.verdict, f.details["how"]) == ("holds-any-length", "induction"), name
        assert f.bound == "every game of 2 players, any length"


def test_without_the_sampled_facts_the_induction_proves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # the invariant alone is not inductive (from a state one ahead, a round leaves it two ahead):
    # it needs "the tallies are equal" at the start of each round, which the random games give
    monkeypatch.setattr(heads, "sampled_equations", lambda states, counts: [])
    found = invariants(HERE / "tally.rules")
    assert found["level"].verdict == "holds"
    assert "up to 3 passes" in found["level"].bound


def test_a_bound_that_holds_for_three_passes_is_not_proven_beyond_them() -> None:
    found = invariants(HERE / "creep.rules")
    for name in ("small", "small_at_end"):
        f = found[name]
        assert f.verdict == "holds", name
        assert f.bound == "every game of 2 players (up to 3 passes of each open loop)"
    found = invariants(HERE / "creep.rules", loop_bound=5)
    assert {found[name].verdict for name in ("small", "small_at_end")} == {"broken"}


def test_the_induction_keeps_no_fact_a_random_game_breaks() -> None:
    # every fact kept holds at every loop head of other random games than those sampled
    from rulecheck.verifier.witness import random_game

    rules = rules_of(HERE / "tally.rules")
    v = Verifier(rules, Options(timeout=10.0, jobs=1))
    h = v.induction(2)
    assert h is not None and h.kept
    program = v.program(v.base_readings)
    sampled = heads.sample(program, 2, {}, [random_game(program, 2, seed) for seed in range(induction.SAMPLE_GAMES)]).equations()
    other = heads.sample(program, 2, {}, [random_game(program, 2, seed) for seed in range(100, 140)])
    checked = 0
    for sid, facts in sampled.items():
        for k, fact in enumerate(facts):
            if f"{sid}|~{k}" not in h.kept:
                continue
            for passes, stop in other.runs.get(sid, []):
                for state in [*passes, stop]:
                    assert holds(fact, state, passes[0] if passes else stop), (fact, state)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", ["creep", "tally", "short_deck"])
def test_the_fixpoint_asked_of_all_facts_at_once_keeps_what_one_at_a_time_keeps(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Houdini.fixpoint asks whether any fact kept can break (one question while none does); where
    # that is undecided it asks fact by fact: both find the same largest set, and drop some
    from rulecheck.verifier.z3backend import Batch, Result

    def kept() -> tuple[int, set[str]]:
        h = Verifier(rules_of(HERE / f"{name}.rules"), Options(timeout=10.0, jobs=1)).induction(2)
        assert h is not None
        return len(h.ind.facts), h.kept

    facts, at_once = kept()
    monkeypatch.setattr(Batch, "ask_any", lambda self, indices, assume=None: Result("unknown", reason="test"))
    assert kept() == (facts, at_once)
    assert 0 < len(at_once) < facts


def holds(fact: tuple[Any, ...], numbers: dict[Any, int], entry: dict[Any, int]) -> bool:
    if fact[0] == "const":
        return numbers[fact[1]] == fact[2]
    if fact[0] == "sum":
        _, x, y, b, c = fact
        return numbers[x] + b * numbers[y] == c
    if fact[0] == "since":
        _, x, sign = fact
        return sign * numbers[x] >= sign * entry[x]
    kind, x, a, y, c = fact
    return (numbers[x] != a if kind == "unless" else numbers[x] == a) or numbers[y] == c


def test_loving_penguin_invariants_hold_any_length_at_two_players() -> None:
    path = ROOT / "rulesets" / "loving_penguin.rules"
    v = Verifier(rules_of(path), Options(timeout=10.0, jobs=1))
    h = v.induction(2)
    assert h is not None
    assert [inv.name for inv in v.rules.invariants if not h.proves(inv.name)] == []


def test_a_loop_that_ends_by_a_sum_of_counts_is_proven_to_end() -> None:
    # no one number grows in every pass, and the loop runs more passes than the trace unrolls
    o = verify(rules_of(HERE / "two_piles.rules"), Options(timeout=10.0, jobs=1, checks=frozenset({"non-termination"})))
    (f,) = [f for f in o.findings if f.kind == "non-termination"]
    assert (f.verdict, f.bound) == ("measured", "every game of 2 players, any length")
    assert f.details["grows"] == ["'left'", "'right'"] and f.details["shrinks"] == []


def test_no_measure_where_a_pass_may_change_nothing() -> None:
    # with a pass that puts no coin, the piles need not grow: no measure, however the games went
    from rulecheck.verifier.witness import random_game

    text = (HERE / "two_piles.rules").read_text(encoding="utf-8").replace("{1, 2}", "{0, 1, 2}").replace(
        "} else {\n      set right", "} else if pile == 2 {\n      set right")
    from rulecheck.dsl.loader import load_text

    loaded = load_text(text, "two_piles_idle.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics
    v = Verifier(loaded.rules, Options(timeout=10.0, jobs=1))
    program = v.program(v.base_readings)
    (loop,) = [s for s in program.rules.flow if isinstance(s, ir.While)]
    games = [random_game(program, 2, seed) for seed in range(induction.SAMPLE_GAMES)]
    h, samples = induction.induct(program, 2, {}, games, v.induction_session, loop.sid)
    assert h is not None and h.ind.passes.get(loop.sid)
    assert induction.ranking(h, loop.sid, samples) is None


def test_a_last_pass_that_moves_nothing_ends_the_loop_all_the_same() -> None:
    # the pass that finds the pot full moves no token, and the round counter has no bound: the
    # measure need fall only in the passes after which the loop goes on
    o = verify(rules_of(HERE / "last_call.rules"), Options(timeout=10.0, jobs=1, checks=frozenset({"non-termination"})))
    (f,) = [f for f in o.findings if f.kind == "non-termination"]
    assert (f.verdict, f.bound) == ("measured", "every game of 2 players, any length")
    assert f.details["grows"] == ["the size of 'pot'"] and f.details["shrinks"] == ["the size of 'pile'"]
    # and the words claim no more: the last pass need not move it
    assert "together by at least one in every pass after which the loop goes on" in f.message


def obligations(path: Path, **options: Any) -> dict[str, Any]:
    o = verify(rules_of(path), Options(timeout=10.0, jobs=1, checks=frozenset({"exhaustion", "incompleteness"}), **options))
    return {f.subject: f for f in o.findings if f.kind in ("exhaustion", "incompleteness")}


def test_a_supply_that_lasts_every_round_is_proven_any_length() -> None:
    found = obligations(HERE / "short_deck.rules")
    for name in ("deck", "round_no", "flow"):
        f = found[name]
        assert (f.verdict, f.details.get("how")) == ("never", "induction"), name
        assert f.bound.startswith("every game of 2 players, any length"), name
        assert "however long" in f.message


def test_a_supply_that_runs_out_after_the_bound_is_not_proven_beyond_it() -> None:
    # four cards for up to six rounds: the fifth round finds the deck empty, which the three
    # rounds of the bounded trace never reach; the proof over every pass must fail
    found = obligations(HERE / "short_deck.rules", params={"cards": 4}, random_games=0)
    deck = found["deck"]
    assert deck.verdict == "never" and "how" not in deck.details
    assert "up to 3 passes" in deck.bound and "any length" not in deck.bound
    assert found["round_no"].details.get("how") == "induction"  # the round counter is bounded either way
    found = obligations(HERE / "short_deck.rules", params={"cards": 4}, loop_bound=5, random_games=0)
    assert found["deck"].verdict == "happens"


def test_random_games_show_a_failure_beyond_the_bound() -> None:
    # where neither proof covers every game and a game can outrun the bound, random games under
    # the default readings look further: one of five rounds shows the empty deck
    deck = obligations(HERE / "short_deck.rules", params={"cards": 4})["deck"]
    assert deck.verdict == "happens" and deck.witness is not None
    moves = deck.witness.plays[0].actions
    assert len(moves) >= 8  # four rounds of a draw and a choice at least before the fifth draw


def test_a_game_without_open_loops_is_cut_at_its_computed_rounds() -> None:
    # the rounds' number is computed (twice the players): the induction cuts them, and a choice
    # that always has a card to give back, and an invariant every round keeps, hold for any number
    # of rounds; the round counter needs the count, which the cut does not follow, and keeps the
    # bounded trace's proof (the whole game here: no passes left out)
    path = HERE / "dealt_rounds.rules"
    found = obligations(path)
    assert (found["gives back"].verdict, found["gives back"].details.get("how")) == ("never", "induction")
    assert found["gives back"].bound.startswith("every game of 2 to 4 players, any length")
    assert "how" not in found["round_no"].details and found["round_no"].bound.startswith("every game of 2 to 4 players,")
    assert "passes" not in found["round_no"].bound
    inv = invariants(path)["small_hands"]
    assert (inv.verdict, inv.details["how"]) == ("holds-any-length", "induction")


def test_cutting_the_rounds_hides_no_failure() -> None:
    # kept cards: three players empty the deck of 12 in their fifth round, four in their fourth,
    # and hands grow
    path = HERE / "dealt_rounds.rules"
    found = obligations(path, params={"keep": True}, random_games=0)
    assert found["deck"].verdict == "happens" and found["deck"].details["players"] in (3, 4)
    assert invariants(path, params={"keep": True})["small_hands"].verdict == "broken"


def test_a_counted_loop_of_a_written_number_is_not_cut() -> None:
    # a loop the rules give a number of passes (Too Many Cinderellas' "repeat 2 times") is
    # unrolled as before: the induction has nothing to cut
    program = ir.bind(rules_of(ROOT / "rulesets" / "cinderella.rules"), {})
    assert not induction.has_open_loop(program) and not induction.has_loop_to_cut(program)
    assert induction.has_loop_to_cut(ir.bind(rules_of(HERE / "dealt_rounds.rules"), {}))


def test_counts_proven_both_ways_read_as_one_list_where_no_game_outruns_the_bound() -> None:
    v = Verifier(rules_of(HERE / "dealt_rounds.rules"), Options(timeout=10.0, jobs=1))
    v.cut = {2: False, 3: False, 4: False}  # (the bounded trace holds every game of each count)
    assert v.proven_line([3], [2, 4]) == "2 to 4 players, any length"
    v.cut[3] = True  # a game of 3 players can outrun the bound: its proof covers the passes explored
    assert v.proven_line([3], [2, 4]) == "2, 4 players, any length; 3 players (up to 3 passes of each open loop)"
    assert v.proven_line([3], []) == "3 players (up to 3 passes of each open loop)"


def test_loving_penguin_rounds_end_at_three_players_when_discarded_presents_leave() -> None:
    """Under ``discarded_present=out_of_game`` no lasso repeats; the rounds end by a measure (the
    scores, the presents discarded, the decks dealt …). Asked as a sum over the whole round, the
    question was left open at 3 players; asked whether every number can stay as it was, it is
    proven."""
    from rulecheck.verifier.symvalues import statements

    v = Verifier(rules_of(ROOT / "rulesets" / "loving_penguin.rules"), Options(timeout=10.0, jobs=1))
    readings = {**v.base_readings, "discarded_present": "out_of_game"}
    (loop,) = [s for s in statements(v.program(readings)) if isinstance(s, ir.RepeatUntil)]
    h, samples = v.inducted(readings, 3, loop.sid)
    assert h is not None
    measure = induction.ranking(h, loop.sid, samples)
    assert measure is not None
    assert {(f[1], f[2]) for f, sign, _ in measure if sign == -1} >= {("score", 0), ("score", 1), ("score", 2), ("present_discards", None)}
