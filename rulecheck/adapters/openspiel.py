"""A generated engine as an OpenSpiel game (``pip install 'rulecheck[openspiel]'``).

    from rulecheck.adapters import openspiel
    game = openspiel.load("rulesets/GAME.rules", players=3)   # a pyspiel.Game

``register(engine)`` registers the engine's game with pyspiel under ``short_name(engine)`` (its
parameters: ``players``, the ruleset's own parameters, ``max_game_length`` for rules without a
bound, and ``infostate_key``: information states as compact keys instead of readable text), so ``pyspiel.load_game(name)`` and every OpenSpiel algorithm, test and transform work on it.
The game type comes from the rules (docs/engine.md, "OpenSpiel"); observers give exactly the views
of the engine, for each IIGObservationType; states clone with the engine's clone(), pickle and
serialize as the engine's serialize(), and ``resample_from_infostate`` draws a state with the same
information state.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel

from ._engine import EngineSource, engine_module, kinds, perfect_information, short_name

__all__ = ["DEFAULT_MAX_GAME_LENGTH", "game_type", "load", "register"]

#: decisions after which a game of rules with no static bound is cut (terminal, every return 0),
#: as `rulecheck play --max-steps`; the game parameter ``max_game_length`` changes it
DEFAULT_MAX_GAME_LENGTH = 10_000

_PRIVATE = {pyspiel.PrivateInfoType.NONE: 0, pyspiel.PrivateInfoType.SINGLE_PLAYER: 1, pyspiel.PrivateInfoType.ALL_PLAYERS: 2}
_REGISTERED: dict[str, ModuleType] = {}


def game_type(engine: ModuleType) -> pyspiel.GameType:
    """The pyspiel GameType the rules give: chance (any draw), simultaneous (any `choose each`),
    imperfect information (a simultaneous or secret decision, or a zone or variable that is not
    public), general-sum terminal utilities (1 to each winner, 0 to the others)."""
    k = kinds(engine)
    spec: dict[str, Any] = {"players": engine.DEFAULT_PLAYERS}
    for name, value in zip(engine._PARAM_NAMES, engine._PARAM_DEFAULTS):
        spec[name] = value
    if engine.LENGTH_BOUND is None:
        spec["max_game_length"] = DEFAULT_MAX_GAME_LENGTH
    spec["infostate_key"] = False
    return pyspiel.GameType(
        short_name=short_name(engine),
        long_name=engine.TITLE,
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if engine.SIMULTANEOUS in k else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if engine.CHANCE in k else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if perfect_information(engine)
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=engine.MAX_PLAYERS,
        min_num_players=engine.MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=engine.LENGTH_BOUND is not None,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


def register(source: EngineSource, readings: dict[str, str] | None = None) -> str:
    """Register the engine's game with pyspiel (once per rules and readings); its short name."""
    engine = engine_module(source, readings)
    name = short_name(engine)
    if name not in _REGISTERED:
        gtype = game_type(engine)
        pyspiel.register_game(gtype, _game_class(engine, gtype))
        _REGISTERED[name] = engine
    return name


def load(source: EngineSource, players: int | None = None, readings: dict[str, str] | None = None, **params: Any) -> pyspiel.Game:
    """The pyspiel game of a ruleset path or engine module, for ``players`` and parameters."""
    name = register(source, readings)
    given = dict(params)
    if players is not None:
        given["players"] = players
    return pyspiel.load_game(name, given)


def _unpickle_state(text: str) -> pyspiel.State:
    # the game must be registered in this process (import the module `rulecheck gen --adapter` wrote)
    return pyspiel.deserialize_game_and_state(text)[1]


def _game_class(engine: ModuleType, gtype: pyspiel.GameType) -> type[pyspiel.Game]:
    """The Game, State and Observer classes of one engine."""
    bounded = engine.LENGTH_BOUND is not None

    class Game(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            given = {**gtype.parameter_specification, **(params or {})}
            players = int(given.pop("players"))
            limit = int(given.pop("max_game_length", 0))
            self.infostate_key = bool(given.pop("infostate_key"))
            inner = engine.load_game({"players": players, **given})
            self.engine_game = inner
            self.cut = 0 if bounded else limit  # decisions after which a game is cut
            info = pyspiel.GameInfo(
                num_distinct_actions=inner.num_distinct_actions(),
                max_chance_outcomes=len(engine._DISP) if engine.CHANCE in kinds(engine) else 0,
                num_players=players,
                min_utility=0.0,
                max_utility=1.0,
                utility_sum=None,
                max_game_length=engine.LENGTH_BOUND[0] if bounded else limit,
            )
            super().__init__(gtype, info, params or {})

        def new_initial_state(self) -> State:
            return State(self)

        def __reduce__(self) -> tuple[Any, ...]:
            return (pyspiel.load_game, (str(self),))

        def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None) -> Observer:
            if params:
                raise ValueError(f"observation parameters are not supported: {params}")
            return Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))

        def max_chance_nodes_in_history(self) -> int:
            return int(engine.LENGTH_BOUND[1]) if bounded else self.cut * len(engine._DISP)

    class State(pyspiel.State):  # type: ignore[misc]
        # Only `_s` (the engine state) and `_d` (decisions taken) live in __dict__: OpenSpiel
        # clones a Python state by deep-copying its __dict__ into a new state, and the engine
        # state deep-copies as clone().  A new state gets its engine state on first use, so a
        # clone does not make one only to replace it.
        def __init__(self, game: Game) -> None:
            super().__init__(game)

        def __getattr__(self, name: str) -> Any:
            if name == "_s":
                s = self.get_game().engine_game.new_initial_state()
                self.__dict__["_s"] = s
                self.__dict__.setdefault("_d", 0)
                return s
            if name == "_d":
                return 0
            raise AttributeError(name)

        def _cut(self) -> bool:
            if bounded:
                return False
            cut: int = self.get_game().cut
            return cut > 0 and self._d >= cut

        def current_player(self) -> int:
            if self._cut():
                return int(pyspiel.PlayerId.TERMINAL)
            cp: int = self._s.cp
            return cp

        def _legal_actions(self, player: int) -> list[int]:
            actions: list[int] = self._s.legal_actions(player)
            return actions

        def chance_outcomes(self) -> list[tuple[int, float]]:
            outcomes: list[tuple[int, float]] = self._s.chance_outcomes()
            return outcomes

        def _apply_action(self, action: int) -> None:
            s = self._s
            if s.cp >= 0:
                self._d += 1
            try:
                s.apply_action(action)
            except engine.RuleError:
                pass  # a gap in the rules: the engine state is terminal with no winners

        def _apply_actions(self, actions: list[int]) -> None:
            self._d += 1
            try:
                self._s.apply_actions(list(actions))
            except engine.RuleError:
                pass

        def _action_to_string(self, player: int, action: int) -> str:
            text: str = self._s.action_to_string(player, action)
            return text

        def is_terminal(self) -> bool:
            return bool(self._s.cp == engine.TERMINAL or self._cut())

        def returns(self) -> list[float]:
            if self._cut() and self._s.cp != engine.TERMINAL:
                return [0.0] * self._s.n
            values: list[float] = self._s.returns()
            return values

        def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> State:
            """A state with this state's information state for ``player_id``; hidden cards and
            unseen choices drawn with a random stream seeded by ``probability_sampler()``."""
            rng = random.Random(int(float(probability_sampler()) * 2**53))
            found = self._s.resample_from_infostate(player_id, rng)
            out = self.get_game().new_initial_state()
            for step in found.history():  # through pyspiel, so its history is the state's
                if isinstance(step, tuple):
                    out.apply_actions(list(step))
                else:
                    out.apply_action(step)
            return out  # type: ignore[no-any-return]

        def __reduce__(self) -> tuple[Any, ...]:
            return (_unpickle_state, (pyspiel.serialize_game_and_state(self.get_game(), self),))

        def __str__(self) -> str:
            return str(self._s)

    class Observer:
        """The engine's view for an IIGObservationType: public information or not, the private
        information of nobody, of the player or of all, with perfect recall or not."""

        def __init__(self, game: Game, iig: pyspiel.IIGObservationType) -> None:
            self.public = bool(iig.public_info)
            self.private = _PRIVATE[iig.private_info]
            self.recall = bool(iig.perfect_recall)
            self.key = self.recall and game.infostate_key
            g = game.engine_game
            size = (g.information_state_tensor_size() if bounded else 0) if self.recall else g.observation_tensor_size()
            self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = np.zeros(size, np.float32) if self.recall is False or bounded else None
            self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {} if self.tensor is None else {"observation": self.tensor}

        def set_from(self, state: State, player: int) -> None:
            if self.tensor is None:
                return
            self.tensor.fill(0.0)
            state._s.write_tensor(player, self.tensor, self.public, self.private, self.recall)

        def string_from(self, state: State, player: int) -> str:
            if self.key:
                key: str = state._s.view_key(player, self.public, self.private)
                return key
            text: str = state._s.view_string(player, self.public, self.private, self.recall)
            return text

    return Game
