"""The benchmark compares like with like: the hand-written engine in benchmarks/ plays exactly the
game the generated engine plays (same current players, legal actions, chance outcomes and
returns along the same random games), so its speed is a fair yardstick.  Nothing here is timed."""

from __future__ import annotations

import importlib.util
import random
from types import ModuleType

import pytest
from conftest import ROOT
from test_codegen_differential import engine


def handwritten() -> ModuleType:
    path = ROOT / "benchmarks" / "cinderella_handwritten.py"
    spec = importlib.util.spec_from_file_location("cinderella_handwritten", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n", [2, 3, 4])
def test_handwritten_engine_plays_the_generated_game(n: int) -> None:
    hw = handwritten()
    _, gen = engine("cinderella.rules", {})
    for seed in range(150):
        a = hw.load_game({"players": n}).new_initial_state()
        b = gen.load_game({"players": n}).new_initial_state()
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
