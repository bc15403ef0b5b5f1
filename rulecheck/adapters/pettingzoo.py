"""A generated engine as PettingZoo environments (``pip install 'rulecheck[pettingzoo]'``).

    from rulecheck.adapters import pettingzoo
    env = pettingzoo.env("rulesets/GAME.rules", players=3)         # an AECEnv
    par = pettingzoo.parallel_env("rulesets/GAME.rules", players=4)  # a ParallelEnv

Agents are ``player_0`` … ``player_{n-1}`` (seats).  Chance nodes are played by the environment
with the random stream of ``reset(seed=…)``.  An observation is a dict: ``observation``, the
engine's observation tensor of the agent (docs/engine.md), and ``action_mask``, the agent's legal
actions among the game's ``num_distinct_actions()`` (all zero when the agent does not decide now).  Rewards
come at the end: the engine's returns (1 to each winner).  Rules without a static length bound are
truncated after ``max_game_length`` decisions.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ._engine import EngineSource, engine_module, short_name

__all__ = ["DEFAULT_MAX_GAME_LENGTH", "RulecheckAECEnv", "RulecheckParallelEnv", "env", "parallel_env"]

#: decisions after which a game of rules with no static length bound is truncated
DEFAULT_MAX_GAME_LENGTH = 10_000

Obs = dict[str, np.ndarray[Any, Any]]


def env(source: EngineSource, players: int | None = None, readings: dict[str, str] | None = None,
        params: dict[str, Any] | None = None, render_mode: str | None = None, max_game_length: int = DEFAULT_MAX_GAME_LENGTH) -> RulecheckAECEnv:
    """An AEC environment of a ruleset path or engine module."""
    return RulecheckAECEnv(engine_module(source, readings), players, params, render_mode, max_game_length)


def parallel_env(source: EngineSource, players: int | None = None, readings: dict[str, str] | None = None,
                 params: dict[str, Any] | None = None, render_mode: str | None = None, max_game_length: int = DEFAULT_MAX_GAME_LENGTH) -> RulecheckParallelEnv:
    """A parallel environment of a ruleset path or engine module: one step per decision node."""
    return RulecheckParallelEnv(engine_module(source, readings), players, params, render_mode, max_game_length)


class _Table:
    """What both environments share: the engine game, spaces, chance, masks and observations."""

    def __init__(self, engine: ModuleType, players: int | None, params: dict[str, Any] | None, max_game_length: int) -> None:
        self.engine = engine
        self.game = engine.load_game({**(params or {}), "players": players or engine.DEFAULT_PLAYERS})
        self.n: int = self.game.num_players()
        self.cut = 0 if engine.LENGTH_BOUND is not None else max_game_length
        self.names = [f"player_{q}" for q in range(self.n)]
        size = self.game.observation_tensor_size()
        self.size: int = size
        self.actions: int = self.game.num_distinct_actions()
        self.pass_action: int = self.game.pass_action
        self.obs_space = spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.actions,), dtype=np.int8),
        })
        self.obs_spaces = {a: self.obs_space for a in self.names}
        self.act_spaces = {a: spaces.Discrete(self.actions) for a in self.names}
        self.rng = random.Random()
        self.state: Any = None
        self.decisions = 0

    def new_game(self, seed: int | None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        self.state = self.game.new_initial_state()
        self.decisions = 0
        self.play_chance()

    def play_chance(self) -> None:
        """Chance nodes, from the environment's stream, up to the next decision or the end."""
        s = self.state
        try:
            while s.is_chance_node():
                u = self.rng.random()
                acc = 0.0
                outcomes = s.chance_outcomes()
                chosen = outcomes[-1][0]
                for a, p in outcomes:
                    acc += p
                    if u < acc:
                        chosen = a
                        break
                s.apply_action(chosen)
        except self.engine.RuleError:
            pass  # a gap in the rules: the engine state is terminal with no winners

    def apply(self, action: Any) -> None:
        self.decisions += 1
        try:
            if isinstance(action, list):
                self.state.apply_actions(action)
            else:
                self.state.apply_action(action)
        except self.engine.RuleError:
            pass
        self.play_chance()

    def deciders(self) -> list[int]:
        s = self.state
        if s.is_terminal() or self.truncated():
            return []
        if s.is_simultaneous_node():
            return [q for q in range(self.n) if self._takes_part(q)]
        return [s.current_player()]

    def _takes_part(self, q: int) -> bool:
        options = self.state.o
        return 0 <= q < len(options) and options[q] is not None

    def truncated(self) -> bool:
        return self.cut > 0 and self.decisions >= self.cut and not self.state.is_terminal()

    def mask(self, seat: int, deciding: bool) -> np.ndarray[Any, Any]:
        m = np.zeros(self.actions, np.int8)
        if deciding:
            m[self.state.legal_actions(seat)] = 1
        return m

    def observe(self, seat: int, deciding: bool) -> Obs:
        t = np.zeros(self.size, np.float32)
        self.state.write_tensor(seat, t)
        return {"observation": t, "action_mask": self.mask(seat, deciding)}

    def legal(self, seat: int, action: Any) -> bool:
        return action is not None and int(action) in self.state.legal_actions(seat)


class RulecheckAECEnv(AECEnv):  # type: ignore[misc]
    """Turns one after another: at a simultaneous node every agent who takes part acts in seat
    order and the joint action is applied after the last (the others see nothing of it before).
    An illegal action is a ValueError."""

    def __init__(self, engine: ModuleType, players: int | None = None, params: dict[str, Any] | None = None,
                 render_mode: str | None = None, max_game_length: int = DEFAULT_MAX_GAME_LENGTH) -> None:
        super().__init__()
        self.t = _Table(engine, players, params, max_game_length)
        self.metadata = {"render_modes": ["ansi"], "name": short_name(engine), "is_parallelizable": False}
        self.render_mode = render_mode
        self.possible_agents = list(self.t.names)
        self.agents = list(self.possible_agents)
        self._waiting: list[int] = []
        self._joint: dict[int, int] = {}
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.t.obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.t.act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.t.new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._next()

    def _next(self) -> None:
        """The agent to act next, or the end of the game."""
        deciders = self.t.deciders()
        if not deciders:
            returns = self.t.state.returns()
            truncated = self.t.truncated()
            for q, a in enumerate(self.agents):
                self.rewards[a] = float(returns[q])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
            self._waiting = []
            return
        self._waiting = deciders
        self._joint = {}
        self.agent_selection = self.agents[deciders[0]]

    def observe(self, agent: str) -> Obs:
        seat = self.t.names.index(agent)
        deciding = bool(self._waiting) and agent == self.agent_selection
        return self.t.observe(seat, deciding)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.t.names.index(agent)
        if not self.t.legal(seat, action):
            raise ValueError(f"illegal action {action} for {agent}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.t.state.is_simultaneous_node():
            self._joint[seat] = int(action)
            rest = [q for q in self._waiting if q not in self._joint]
            if rest:
                self.agent_selection = self.agents[rest[0]]
                return
            joint = [self._joint.get(q, self.t.pass_action) for q in range(self.t.n)]
            self.t.apply(joint)
        else:
            self.t.apply(int(action))
        self._next()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return str(self.t.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass


class RulecheckParallelEnv(ParallelEnv):  # type: ignore[misc]
    """One step per decision node: every live agent gives an action; those of agents who do not
    decide now are ignored.  An illegal action of an agent who decides leaves the game as it was
    and sets ``infos[agent]["illegal_action"]``."""

    def __init__(self, engine: ModuleType, players: int | None = None, params: dict[str, Any] | None = None,
                 render_mode: str | None = None, max_game_length: int = DEFAULT_MAX_GAME_LENGTH) -> None:
        self.t = _Table(engine, players, params, max_game_length)
        self.metadata = {"render_modes": ["ansi"], "name": short_name(engine)}
        self.render_mode = render_mode
        self.possible_agents = list(self.t.names)
        self.agents = list(self.possible_agents)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.t.obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.t.act_spaces[agent]

    def _observations(self) -> dict[str, Obs]:
        deciders = set(self.t.deciders())
        return {a: self.t.observe(q, q in deciders) for q, a in enumerate(self.t.names) if a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        self.t.new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        deciders = self.t.deciders()
        bad = [q for q in deciders if not self.t.legal(q, actions.get(self.t.names[q]))]
        for q in bad:
            infos[self.t.names[q]]["illegal_action"] = True
        if deciders and not bad:
            s = self.t.state
            if s.is_simultaneous_node():
                self.t.apply([int(actions[self.t.names[q]]) if q in deciders else self.t.pass_action for q in range(self.t.n)])
            else:
                self.t.apply(int(actions[self.t.names[deciders[0]]]))
        obs = self._observations()
        done = not self.t.deciders()
        truncated = done and self.t.truncated()
        returns = self.t.state.returns() if done else [0.0] * self.t.n
        rewards = {a: float(returns[q]) for q, a in enumerate(self.t.names) if a in self.agents}
        terminations = {a: done and not truncated for a in self.agents}
        truncations = {a: truncated for a in self.agents}
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return str(self.t.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray[Any, Any]:
        """The whole table (hidden things included) as the tensor of a view that sees everything."""
        t = np.zeros(self.t.size, np.float32)
        self.t.state.write_tensor(None, t)
        return t
