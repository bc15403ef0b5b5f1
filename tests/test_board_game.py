"""A second board game, tests/boards/stepping_stones.rules, made up for the tests: the board, the
observation and the record constructs work in a game of their own, in every back end.

* ``check`` with its test rule text (``--rulebook … --strict``);
* ``play``: a log held as a golden file;
* the generated engine against the interpreter, move by move, for every precision of touch (the
  unspecified parameter) and both readings, information states included;
* what a player learns: the observer's strings show the perceived weight, the others' only that
  a weighing happened; a perception ``within 1`` is off by the chance outcome;
* the symbolic executor against the interpreter on random games (hypothesis);
* ``verify``: the findings for 2 and 3 players held as golden files, and the ones the game was
  written to show.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
import test_codegen_differential as differential
import test_verify_symbolic as symbolic
from conftest import ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.interpreter.state import Game, State
from rulecheck.verifier.output import render_text
from rulecheck.verifier.verify import Options, verify

GAME = ROOT / "tests" / "boards" / "stepping_stones.rules"
TEXT = ROOT / "tests" / "boards" / "stepping_stones.txt"
GOLDEN = ROOT / "tests" / "golden" / "boards"
NAME = "stepping_stones"
differential.TEXTS[NAME] = (GAME.read_text(encoding="utf-8"), "stepping_stones.rules")
TOUCH = {"exact": 0, "rough": 1, "compared": 2}


def rules() -> ir.Ruleset:
    return differential.ruleset(NAME)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ---- the ruleset --------------------------------------------------------------------------------


def test_the_game_checks_against_its_rule_text() -> None:
    code, out, err = run_cli("check", rel(GAME), "--rulebook", rel(TEXT), "--strict")
    assert code == 0, err
    assert "boards       Spot (8 spaces, 8 links)" in out
    assert "records      notebook" in out
    assert "board Spot: the layout (assumed)" in out and "parameter touch (unspecified)" in out
    assert "left out     hands" in out


def test_the_board_is_what_the_table_and_links_say() -> None:
    board = rules().boards["Spot"]
    names = board.spaces
    assert [names[k] for k in board.neighbours(names.index("near"))] == ["s1", "s2", "s3", "ford", "reeds"]
    assert board.provenance.kind == "assumed"
    assert board.values[names.index("reeds")]["ground"] == rules().enums["Ground"].values.index("marsh")


@pytest.mark.parametrize("players, seed", [(2, 3), (3, 4)])
def test_play_log_golden(players: int, seed: int, golden: Any) -> None:
    code, out, err = run_cli("play", rel(GAME), "--players", str(players), "--seed", str(seed), "--param", "touch=rough")
    assert code == 0, err
    golden(GOLDEN / f"stepping_stones-{players}p-seed{seed}.txt", out)


# ---- the engine against the interpreter -----------------------------------------------------------


@pytest.mark.parametrize("touch", sorted(TOUCH))
@pytest.mark.parametrize("reading", ["links", "steps"])
def test_engine_matches_interpreter(touch: str, reading: str) -> None:
    ends: dict[str, int] = {}
    for n in (2, 3):
        for g in range(12):
            end = differential.play_both(NAME, {"nearness": reading}, n, seed=1000 * TOUCH[touch] + 10 * n + g,
                                         params={"touch": TOUCH[touch]}, info_states=g % 3 == 0)
            ends[end] = ends.get(end, 0) + 1
    assert ends.get("end", 0) > 0, ends


def test_a_turn_is_a_call_of_the_turn_procedure() -> None:
    """`turn turn`: each call begins one, counted before its first decision, in both back ends
    (the differential test compares them at every step); here against the decisions that open a
    turn ('does', or 'climbs out to' for a stuck player), at most four rounds of them."""
    mod = differential.engine(NAME, {})[1]
    for n in (2, 3):
        for seed in range(8):
            rng = random.Random(seed)
            s = mod.load_game({"players": n, "touch": 0}).new_initial_state()
            opened = 0
            while not s.is_terminal():
                if not s.is_chance_node() and s.decision_label() in ("does", "climbs out to"):
                    opened += 1
                    assert s.turns() == opened
                s.apply_action(rng.choice(s.legal_actions()))
            assert s.turns() == opened <= 4 * n


def test_simulate_gives_the_length_in_turns() -> None:
    code, out, err = run_cli("simulate", rel(GAME), "--games", "40", "--seed", "1", "--jobs", "1", "--format", "json")
    assert code == 0, err
    for count in json.loads(out)["by_players"]:
        turns, length = count["turns"], count["length"]
        assert turns["procedure"] == "turn"
        assert 1 <= turns["min"] <= turns["mean"] <= turns["max"] <= 4 * count["players"]
        assert turns["max"] <= length["max"]  # a turn takes a decision at least
    code, out, err = run_cli("simulate", rel(GAME), "--games", "10", "--seed", "1", "--jobs", "1")
    assert code == 0, err
    assert "and in turns (calls of procedure turn): mean" in out


# ---- what a player learns -------------------------------------------------------------------------


def weighing_game(touch: str, seed: int) -> State:
    """A 2-player game of random moves, played until Player 1 has weighed their stone."""
    game = Game(ir.bind(rules()), 2, {"touch": TOUCH[touch]})
    s = game.new_initial_state()
    rng = random.Random(seed)
    while not s.is_terminal():
        weighed = any(line.startswith("observation") and "Player 1 weighs" in line for line in s.observation_string(0).splitlines())
        if weighed:
            return s
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
        else:
            legal = s.legal_actions()
            weigh = [a for a in legal if s.action_to_string(s.current_player(), a).endswith("weigh the stone")]
            s.apply_action(weigh[0] if weigh and s.current_player() == 0 else rng.choice(legal))
    raise AssertionError("Player 1 never weighed")


@pytest.mark.parametrize("touch", sorted(TOUCH))
def test_only_the_observer_learns_the_weight(touch: str) -> None:
    for seed in range(6):
        s = weighing_game(touch, seed)
        mine = [line for line in s.observation_string(0).splitlines() if line.startswith("observation")]
        theirs = [line for line in s.observation_string(1).splitlines() if line.startswith("observation")]
        assert len(mine) == 1 and len(theirs) == 1
        assert theirs[0].endswith(("Player 1 weighs the stone", "Player 1 weighs the stone against a middle one"))
        weight = sum(s.game.rules.components[c].attrs["weight"] for c in s.machine.contents[("carried", 0)])
        learnt = mine[0].split(": ")[-1]
        if touch == "exact":
            assert learnt == str(weight)
        elif touch == "compared":
            assert learnt == ("lower" if weight < 3 else "the same")
        else:
            felt = int(learnt.split(" ")[0])
            assert abs(felt - weight) <= 1 and learnt.endswith("(within 1)")
        # the information state keeps it; the other player's has no number for it
        assert mine[0] in s.information_state_string(0)
        assert mine[0] not in s.information_state_string(1)


def test_a_rough_touch_is_off_by_the_chance_outcome() -> None:
    seen: set[int] = set()
    for seed in range(40):
        s = weighing_game("rough", seed)
        weight = sum(s.game.rules.components[c].attrs["weight"] for c in s.machine.contents[("carried", 0)])
        line = next(x for x in s.observation_string(0).splitlines() if x.startswith("observation"))
        seen.add(int(line.split(": ")[-1].split(" ")[0]) - weight)
    assert seen == {-1, 0, 1}


# ---- the verifier ---------------------------------------------------------------------------------


GAMES = [(GAME, 2), (GAME, 3)]


@settings(symbolic.QUICK, max_examples=40)
@given(data=st.data(), which=st.sampled_from(GAMES))
def test_symbolic_games_agree_with_the_interpreter(data: st.DataObject, which: tuple[Path, int]) -> None:
    symbolic.check_game(data, *which, z3=False)


@pytest.mark.parametrize("players", [2, 3])
def test_verify_findings(players: int, golden: Any) -> None:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        loaded = load_path(rel(GAME))
    finally:
        os.chdir(cwd)
    assert loaded.rules is not None
    outcome = verify(loaded.rules, Options(players=[players], timeout=10.0, jobs=2))
    by = {(f.kind, f.subject): f for f in outcome.findings}
    # the question the game leaves open changes who wins, in a game replayed in the engine
    amb = by[("ambiguity", "nearness")]
    assert amb.status == "witness" and amb.witness is not None and all(p.replayed for p in amb.witness.plays)
    # no loop is open-ended: every game ends; nobody is ever without a move within the four rounds
    assert any(f.kind == "non-termination" and f.status == "proven" for f in outcome.findings)
    assert all(f.status == "proven" for f in outcome.findings if f.kind in ("incompleteness", "exhaustion", "invariant"))
    golden(GOLDEN / f"stepping_stones-verify-{players}p.txt", render_text(outcome, loaded.source, verbose=True))
