"""Every witness of the committed verification of each shipped ruleset replays in a freshly
generated engine: each reading's game is legal there and ends as the finding says, and the readings
of an ambiguity witness really part (other results, or other moves at some step).

The verification itself takes minutes, so it is not re-run here: docs/reports/NAME.verify.json is
the output of `rulecheck verify --format json` (regenerated with the reports; the test of the
committed reports fails when it is stale)."""

from __future__ import annotations

import json
import types
from functools import cache
from typing import Any

import pytest
from conftest import ROOT

from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.verifier.witness import first_difference, first_seen_difference, replay_engine

REPORTS = ROOT / "docs" / "reports"
SHIPPED = sorted(p.name.removesuffix(".verify.json") for p in REPORTS.glob("*.verify.json"))

#: The families the Cinderella issue names: the rank-18 inversion and the NO!-chip interactions.
CINDERELLA_MUST_WITNESS = {
    "inversion_presentation", "inversion_numbers",
    "vetoed_effect", "gray_two_player", "rank2_self_target", "rank3_targets", "rank3_gray",
}


@cache
def _rules(name: str) -> ir.Ruleset:
    loaded = load_path(str(ROOT / "rulesets" / f"{name}.rules"))
    assert loaded.rules is not None
    return loaded.rules


@cache
def _engine(name: str, readings: tuple[tuple[str, str], ...]) -> types.ModuleType:
    program = ir.bind(_rules(name), dict(readings))
    return load_module(generate(program), f"witness_{name}_{abs(hash(readings))}")


def _doc(name: str) -> dict[str, Any]:
    return json.loads((REPORTS / f"{name}.verify.json").read_text(encoding="utf-8"))


def _witnesses(name: str) -> list[dict[str, Any]]:
    return [f for f in _doc(name)["findings"] if f["witness"] is not None]


def test_there_are_committed_verifications() -> None:
    assert "cinderella" in SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_every_witness_replays_in_the_generated_engine(name: str) -> None:
    doc = _doc(name)
    params = ir_params(name, doc.get("params") or {})
    found = _witnesses(name)
    assert found, f"{name}: no witness to replay"
    for f in found:
        w = f["witness"]
        for play in w["plays"]:
            engine = _engine(name, tuple(sorted(play["readings"].items())))
            winners, error = replay_engine(engine, w["players"], play["actions"], params)
            if f["kind"] in ("non-termination", "deduction") or play["outcome"].startswith("the game goes on"):
                # a game that never ends, one that stops at the decision a target is about, or one
                # that stops where an invariant breaks: its moves are legal and leave it going on
                assert error == "the witness stops before the game ends", (f["subject"], error)
                continue
            assert (error is None) == (play["winners"] is not None), (f["subject"], play["label"], error)
            if error is None:
                assert winners == play["winners"], (f["subject"], play["label"])
            else:
                assert play["outcome"].startswith("the rules stop"), (f["subject"], play["label"], error)


@pytest.mark.parametrize("name", SHIPPED)
def test_ambiguity_witnesses_show_the_readings_part(name: str) -> None:
    doc = _doc(name)
    params = ir_params(name, doc.get("params") or {})
    for f in _witnesses(name):
        if f["kind"] != "ambiguity":
            continue
        a, b = f["witness"]["plays"]
        rules = _rules(name)
        pa, pb = ir.bind(rules, a["readings"]), ir.bind(rules, b["readings"])
        names = tuple(f["details"]["readings"])
        if f["details"]["differs_in"] == "information":
            # what a player sees: the replay must find the same point and the same components
            seen = first_seen_difference(pa, pb, f["witness"]["players"], a["actions"], (names[0], names[1]), params)
            assert seen is not None and seen.text == f["witness"]["divergence"], f["subject"]
            continue
        if f["details"]["differs_in"] == "outcome":
            # other results: other winners, or the same winners with other scores, said so
            assert a["outcome"] != b["outcome"] or "under both, but" in f["witness"]["divergence"], f["subject"]
            continue
        # the same results: the witness is about moves, and the replay must find the step
        where = first_difference(pa, pb, f["witness"]["players"], a["actions"], (names[0], names[1]), params)
        assert where is not None, f["subject"]
        assert where == f["witness"]["divergence"], f["subject"]


def test_cinderella_families_have_witnesses() -> None:
    status = {f["subject"]: f["status"] for f in _doc("cinderella")["findings"] if f["kind"] == "ambiguity"}
    missing = {a for a in CINDERELLA_MUST_WITNESS if status.get(a) != "witness"}
    assert not missing, f"no witness for {sorted(missing)}"
    # every declared ambiguity is answered: witness, proof, or an honest unknown
    assert set(status) == set(_rules("cinderella").ambiguities)


def ir_params(name: str, labels: dict[str, str]) -> dict[str, ir.Value]:
    """The parameters of the verification, as the command line parsed them."""
    if not labels:
        return {}
    from rulecheck.cli import parse_params

    return parse_params([f"{k}={v}" for k, v in labels.items()], _rules(name))


@pytest.mark.parametrize("length", [20, 400])
def test_a_long_game_of_one_reading_is_shown_from_late_in_it(length: int) -> None:
    """A one-play witness found by random play can run for hundreds of moves: past
    LONG_AFTER_DEAL moves after its deal it is shown from its last decision with FEW_MOVES moves
    to go, a table the rules reach (replayed here), instead of as the whole game."""
    import random

    from rulecheck.codegen.playout import apply
    from rulecheck.interpreter.state import Game
    from rulecheck.verifier.witness import FEW_MOVES, LONG_AFTER_DEAL, _table, one_play_position

    program = ir.bind(_rules("kimi_no_katasa"))
    rng = random.Random(length)
    s = Game(program, 2).new_initial_state()
    actions: list[Any] = []
    while not s.is_terminal() and len(actions) < length:
        a = rng.choice(s.legal_actions())
        actions.append(a)
        apply(s, a)
    pos = one_play_position(program, 2, actions)
    assert pos is not None
    if length - pos.step <= LONG_AFTER_DEAL or pos.where == "deal":
        assert pos.where == "deal" and length < LONG_AFTER_DEAL + 40
        return
    assert pos.where == "late" and FEW_MOVES <= pos.longest == len(actions) - pos.step < FEW_MOVES + 20
    at = Game(program, 2).new_initial_state(log=True)
    for a in actions[:pos.step]:
        apply(at, a)
    assert not at.is_chance_node() and pos.marks == [len(at.machine.log)]
    assert pos.table == _table(at)  # the table of the state the rules reach there


def test_a_position_lists_the_draws_of_the_moves_it_shows_and_counts_the_rest() -> None:
    """The draws beside a position are those of the moves the witness shows (up to the parting
    when it ends there, not the rest of a game of thousands of moves), at most DRAWS_LISTED a
    zone, the others counted."""
    from rulecheck.verifier.witness import DRAWS_LISTED, _draws, random_game

    program = ir.bind(_rules("loving_penguin"), {})  # 60 penguin cards dealt, and more rounds after
    actions = random_game(program, 4, seed=3)
    every = dict((z, w) for z, w in _draws(program, 4, actions, 0, None))
    assert any(w.endswith(" more)") and w.count(", ") == DRAWS_LISTED for w in every.values()), every
    few = dict((z, w) for z, w in _draws(program, 4, actions, 0, None, upto=5))
    assert sum(w.count(", ") + 1 for w in few.values()) <= 5
    assert all(every[z].startswith(w) for z, w in few.items())


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "rulesets").glob("*.rules")))
def test_a_random_game_is_the_same_in_the_engine_and_in_the_interpreter(name: str) -> None:
    """verify plays its random games (the deals it fixes for the solver, the games that show an
    end within the bound) in the generated engine: they must be the interpreter's, move for move,
    at every player count, the rules' stops and the move cap included."""
    from rulecheck.verifier.witness import engine_random_game, random_game

    rules = _rules(name)
    program = ir.bind(rules, {})
    module = load_module(generate(program), f"random_game_{name}")
    long = name == "kimi_no_katasa"  # a race of thousands of moves: 1.6 s a game in the interpreter
    for n in range(rules.game.min_players, rules.game.max_players + 1):
        for seed in range(1 if long else 3):
            cap = 400 if long else 10_000
            assert engine_random_game(module, n, seed, None, cap) == random_game(program, n, seed, max_moves=cap), (n, seed)


STOPS = """
game "Stops" { players 2..2 }
card Tok "t{n}" { n: 1..4 }
table Tok in bag {
  given n
  | n |
  | 1..4 |
}
zone bag: Tok hidden "the bag"
zone hand[player]: Tok public "a hand"
flow {
  draw from bag to hand[player(2)]
  choose k from 1..4 by player(1) label "asks for"
  choose c from {t for t in hand[player(2)] if t.n >= k} by player(2) label "shows"
  end winners {player(2)}
}
"""


def test_a_random_game_keeps_the_move_the_rules_stop_at() -> None:
    """A random game that reaches a choice with no option keeps the move after which the rules
    stop, in the interpreter and the engine alike, so its replay stops there with the same rule
    error; dropped, the replay ended a move early, not terminal, and verify refused the witness as
    unfinished (exit 3)."""
    from rulecheck.dsl.loader import load_text
    from rulecheck.verifier.witness import engine_random_game, random_game, replay_interpreter

    loaded = load_text(STOPS, "stops.rules")
    assert loaded.rules is not None, loaded.diagnostics.sorted()
    program = ir.bind(loaded.rules, {})
    module = load_module(generate(program), "random_game_stops")
    stopped = 0
    for seed in range(40):
        actions = random_game(program, 2, seed)
        assert engine_random_game(module, 2, seed) == actions, seed
        for error in (replay_engine(module, 2, actions)[1], replay_interpreter(program, 2, actions).error):
            assert error is None or error.startswith("incomplete:"), (seed, actions, error)
        stopped += replay_engine(module, 2, actions)[1] is not None
    assert 0 < stopped < 40  # both kinds of game were played
