"""The benchmarks compare like with like: the hand-written engines in benchmarks/ play exactly the
game the generated engine plays (same current players, legal actions, chance outcomes and
returns along the same random games), so their speed is a fair yardstick.  Nothing here is timed."""

from __future__ import annotations

import importlib.util
import random
from types import ModuleType

import pytest
from conftest import ROOT
from test_codegen_differential import engine


def handwritten(name: str = "cinderella_handwritten") -> ModuleType:
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n", [2, 3, 4])
def test_handwritten_engine_plays_the_generated_game(n: int) -> None:
    same_games(handwritten(), engine("cinderella.rules", {})[1], n, {}, 150)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_handwritten_penguin_round_plays_the_generated_short_game(n: int) -> None:
    """One round by hand is the generated engine's Short Game (length = short, its position 0)."""
    same_games(handwritten("penguin_handwritten"), engine("loving_penguin.rules", {})[1], n, {"length": 0}, 60)


def same_games(hw: ModuleType, gen: ModuleType, n: int, params: dict[str, int], games: int) -> None:
    for seed in range(games):
        a = hw.load_game({"players": n}).new_initial_state()
        b = gen.load_game({"players": n, **params}).new_initial_state()
        rng = random.Random(seed)
        while True:
            assert a.current_player() == b.current_player()
            if b.is_terminal():
                assert a.is_terminal() and a.returns() == b.returns()
                break
            if b.is_simultaneous_node():
                joint = []
                for q in range(n):
                    assert a.legal_actions(q) == b.legal_actions(q)
                    joint.append(rng.choice(b.legal_actions(q)))
                a.apply_actions(joint)
                b.apply_actions(joint)
            else:
                assert a.legal_actions() == b.legal_actions()
                assert a.chance_outcomes() == b.chance_outcomes()
                action = rng.choice(b.legal_actions())
                a.apply_action(action)
                b.apply_action(action)
