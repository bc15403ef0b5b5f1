"""Too Many Cinderellas under the reference interpreter: random legal play keeps every declared
invariant under every reading, and `rulecheck play` logs are stable."""

from __future__ import annotations

import io
import random
from functools import cache

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulecheck.cli import main
from rulecheck.dsl import ir
from rulecheck.dsl.coupling import Coupled
from rulecheck.dsl.loader import load_path
from rulecheck.interpreter.play import random_step
from rulecheck.interpreter.state import Game

RULES = ROOT / "rulesets" / "cinderella.rules"


@cache
def rules() -> ir.Ruleset:
    loaded = load_path(RULES)
    assert loaded.rules is not None, loaded.diagnostics.items
    return loaded.rules


def play_checked(readings: dict[str, str], players: int, seed: int) -> list[str]:
    """Play one random game; return every invariant broken along the way (empty when all hold)."""
    game = Game(ir.bind(rules(), readings), players)
    state = game.new_initial_state()
    pick = Coupled(seed)
    broken: list[str] = []
    while not state.is_terminal():
        random_step(state, pick)
        broken += state.machine.broken_invariants(at_end=False)
    broken += state.machine.broken_invariants(at_end=True)
    assert sum(state.returns()) == 1.0
    return broken


def reading_choices() -> st.SearchStrategy[dict[str, str]]:
    ambs = rules().ambiguities
    return st.fixed_dictionaries({name: st.sampled_from([r.name for r in a.readings]) for name, a in ambs.items()})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(readings=reading_choices(), players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_invariants(readings: dict[str, str], players: int, seed: int) -> None:
    assert play_checked(readings, players, seed) == []


def every_reading() -> list[tuple[str, str]]:
    return [(a.name, r.name) for a in rules().ambiguities.values() for r in a.readings]


@pytest.mark.parametrize(("ambiguity", "reading"), every_reading())
def test_every_reading_keeps_invariants(ambiguity: str, reading: str) -> None:
    """Each reading of each ambiguity, with the others drawn at random, at every player count."""
    rng = random.Random(f"{ambiguity}={reading}")
    ambs = rules().ambiguities
    for players in (2, 3, 4):
        for _ in range(4):
            readings = {name: rng.choice(a.readings).name for name, a in ambs.items()}
            readings[ambiguity] = reading
            assert play_checked(readings, players, rng.randrange(2**32)) == []


def test_declared_invariants_are_the_ones_asked_for() -> None:
    assert [i.name for i in rules().invariants] == [
        "cards_placed", "chips_placed", "no_once", "informants", "one_winner", "two_left", "kept_meets",
    ]


def test_an_invariant_can_fail() -> None:
    """The invariant check is live: a game stopped half-way breaks the at-end invariants."""
    game = Game(ir.bind(rules(), {}), 4)
    state = game.new_initial_state()
    pick = Coupled(0)
    for _ in range(20):
        random_step(state, pick)
    assert state.machine.broken_invariants(at_end=False) == []
    assert set(state.machine.broken_invariants(at_end=True)) >= {"informants", "one_winner"}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


PLAY_CASES = [
    ("4p-seed7", ["--players", "4", "--seed", "7"]),
    ("3p-seed1", ["--players", "3", "--seed", "1"]),
    ("2p-seed3", ["--players", "2", "--seed", "3"]),
    ("4p-seed7-printed", ["--players", "4", "--seed", "7", "--reading", "inversion_presentation=printed", "--reading", "vetoed_effect=cancelled"]),
]


@pytest.mark.parametrize(("name", "args"), PLAY_CASES, ids=[c[0] for c in PLAY_CASES])
def test_play_log_golden(name: str, args: list[str], golden) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("play", "rulesets/cinderella.rules", *args)
    assert code == 0, err
    assert err == ""
    golden(ROOT / "tests" / "golden" / "play" / f"cinderella-{name}.txt", out)


def test_same_seed_same_log() -> None:
    first = run_cli("play", "rulesets/cinderella.rules", "--players", "3", "--seed", "11")
    second = run_cli("play", "rulesets/cinderella.rules", "--players", "3", "--seed", "11")
    other = run_cli("play", "rulesets/cinderella.rules", "--players", "3", "--seed", "12")
    assert first == second
    assert first[1] != other[1]


def test_play_log_tells_the_story() -> None:
    code, out, _ = run_cli("play", "rulesets/cinderella.rules", "--players", "4", "--seed", "7")
    assert code == 0
    for needle in ("puts as informant", "information of", "shows:", "is invalid", "is valid",
                   "targets:", "Requirement of Cinderella:", "presents", "Winner:", "by winner, case"):
        assert needle in out, needle


def test_check_summary_golden(golden) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("check", "rulesets/cinderella.rules")
    assert code == 0
    golden(ROOT / "tests" / "golden" / "check" / "cinderella.txt", out + err)


def test_reading_changes_the_game() -> None:
    """--reading is honoured: the non-default reading is announced in the log."""
    code, out, _ = run_cli("play", "rulesets/cinderella.rules", "--players", "2", "--seed", "3",
                           "--reading", "sum_meaning=largest")
    assert code == 0
    assert "sum_meaning=largest" in out.splitlines()[1]
