"""The engine's views: incremental information states (shared by clones, never changed by them),
their keys, the views of other observers, tensors and the length bound."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest

from rulecheck.adapters import engine_module
from rulecheck.codegen.bounds import length_bound
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path

ROOT = Path(__file__).parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules")) + sorted((ROOT / "tests" / "rulesets").glob("*.rules"))


def _step(s: Any, rng: random.Random, n: int) -> None:
    if s.is_simultaneous_node():
        s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(n)])
    else:
        s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_incremental_information_states_equal_a_replay(path: Path) -> None:
    mod = engine_module(path)
    n = mod.MAX_PLAYERS
    g = mod.load_game({"players": n})
    rng = random.Random(path.stem)
    for _ in range(3):
        s = g.new_initial_state()
        forks: list[Any] = []
        while not s.is_terminal() and len(s.history()) < 120:
            if rng.random() < 0.3:
                p = rng.randrange(n)
                s.information_state_string(p)  # leave a trail for the clones
                forks.append((s.clone(), p))
            _step(s, rng, n)
        for fork, p in forks[-4:]:
            # the clone goes its own way; neither it nor the original sees the other's steps
            for _ in range(rng.randrange(1, 6)):
                if fork.is_terminal():
                    break
                _step(fork, rng, n)
            for state in (fork, s):
                fresh = g.deserialize_state(state.serialize())  # keeps no trail: a whole replay
                text = state.information_state_string(p)
                assert text == fresh.information_state_string(p)
                assert state.information_state_key(p) == hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
                assert state.view_string(p) == state.observation_string(p)
                assert state.view_string(p, True, 1, True) == text


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_views_and_tensors(path: Path) -> None:
    mod = engine_module(path)
    n = mod.MIN_PLAYERS
    g = mod.load_game({"players": n})
    rng = random.Random(path.stem)
    s = g.new_initial_state()
    while not s.is_terminal():
        for p in range(n):
            assert len(s.observation_tensor(p)) == g.observation_tensor_size()
            # everything a public view shows, the player's own view shows too, and all players' view
            public, own, everyone = (set(s.view_string(p, True, k).splitlines()) for k in (0, 1, 2))
            assert all(x.endswith(" hidden") for x in public - own), public - own
            assert all(x.endswith(" hidden") for x in own - everyone), own - everyone
            assert sum(s.observation_tensor(p, True, 0)) <= sum(s.observation_tensor(p, True, 1)) <= sum(s.observation_tensor(p, True, 2))
        _step(s, rng, n)
    if mod.LENGTH_BOUND is not None:
        assert len(s.history()) <= sum(mod.LENGTH_BOUND)
        t = s.information_state_tensor(0)
        assert len(t) == g.information_state_tensor_size() > 0
    else:
        assert g.information_state_tensor_size() == 0
        with pytest.raises(ValueError, match="no bound"):
            s.information_state_tensor(0)


def test_length_bounds() -> None:
    def bound(name: str) -> tuple[int, int] | None:
        rules = load_path(ROOT / name).rules
        assert rules is not None
        return length_bound(ir.bind(rules, {}))

    assert bound("tests/rulesets/kuhn_poker.rules") == (3, 2)
    assert bound("tests/rulesets/goofspiel.rules") == (3, 3)
    assert bound("tests/rulesets/liars_dice.rules") == (14, 2)  # 7 rounds of 2 turns: a safe bound of 13
    assert bound("tests/rulesets/leduc_poker.rules") == (8, 3)  # OpenSpiel's max_game_length is 8 too
    assert bound("rulesets/loving_penguin.rules") is None  # repeat until
