"""PettingZoo's own checks on every committed ruleset, through rulecheck.adapters.pettingzoo: api_test
and seed_test on the AEC environment, parallel_api_test and parallel_seed_test on the parallel one;
and what the environments show and reward."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from rulecheck.adapters import engine_module, pettingzoo

ROOT = Path(__file__).parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules")) + sorted((ROOT / "tests" / "rulesets").glob("*.rules"))
IDS = [p.stem for p in RULESETS]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's advice on dict observations


@pytest.mark.slow
@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(path: Path) -> None:
    mod = engine_module(path)
    players = mod.MAX_PLAYERS
    api_test(pettingzoo.env(mod, players=players), num_cycles=300)
    seed_test(lambda: pettingzoo.env(mod, players=players), num_cycles=100)
    parallel_api_test(pettingzoo.parallel_env(mod, players=players), num_cycles=300)
    parallel_seed_test(lambda: pettingzoo.parallel_env(mod, players=players), num_cycles=100)


@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_aec_game_matches_the_engine(path: Path) -> None:
    """A whole game through the AEC environment: the observations are the engine's tensors, the
    masks its legal actions, the rewards its returns (0 in a truncated game); the same seed plays
    the same game."""
    mod = engine_module(path)
    env = pettingzoo.env(mod)
    results = []
    for _ in range(2):
        env.reset(seed=7)
        rng = random.Random(1)
        seen = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seat = env.possible_agents.index(agent)
            if term or trunc:
                env.step(None)
                seen.append((agent, reward))
                continue
            state = env.t.state
            assert list(obs["observation"]) == state.observation_tensor(seat)
            legal = state.legal_actions(seat)
            assert list(np.flatnonzero(obs["action_mask"])) == legal
            env.step(rng.choice(legal))
            seen.append((agent, tuple(legal)))
        # a game of rules with no length bound may be truncated (every reward 0) instead of ending
        assert env.t.state.is_terminal() or env.t.truncated()
        returns = env.t.state.returns() if env.t.state.is_terminal() else [0.0] * len(env.possible_agents)
        assert sorted(r for a, r in seen if isinstance(r, float)) == sorted(returns)
        results.append(seen)
    assert results[0] == results[1]


def test_illegal_actions() -> None:
    mod = engine_module(ROOT / "tests" / "rulesets" / "kuhn_poker.rules")
    env = pettingzoo.env(mod)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(5)
    par = pettingzoo.parallel_env(mod)
    par.reset(seed=0)
    before = str(par.t.state)
    _, _, _, _, infos = par.step({"player_0": 5, "player_1": 0})
    assert infos["player_0"] == {"illegal_action": True} and str(par.t.state) == before
    # an agent who does not decide now: its action is ignored
    _, _, _, _, infos = par.step({"player_0": 1, "player_1": 5})
    assert infos == {"player_0": {}, "player_1": {}} and str(par.t.state) != before


def test_parallel_env_plays_simultaneous_nodes_at_once() -> None:
    mod = engine_module(ROOT / "tests" / "rulesets" / "goofspiel.rules")
    par = pettingzoo.parallel_env(mod)
    obs, _ = par.reset(seed=3)
    steps = 0
    while par.agents:
        actions = {a: int(np.flatnonzero(o["action_mask"])[-1]) for a, o in obs.items()}
        assert all(o["action_mask"].any() for o in obs.values())  # both bid at every step
        obs, rewards, terms, truncs, _ = par.step(actions)
        steps += 1
    assert steps == 3 and all(terms.values()) and not any(truncs.values())
    assert sum(rewards.values()) >= 1.0
