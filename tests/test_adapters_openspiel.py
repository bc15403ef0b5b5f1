"""OpenSpiel's own checks and algorithms on every committed ruleset, through rulecheck.adapters.openspiel:
random_sim_test with serialization, the turn-based conversion of simultaneous games, outcome-sampling
MCCFR (information-state strings), an MCTS bot and an information-set MCTS bot (which resamples
states from information states) against random bots; and the observers' views."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms import outcome_sampling_mccfr as os_mccfr

from rulecheck.adapters import engine_module, openspiel

ROOT = Path(__file__).parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules")) + sorted((ROOT / "tests" / "rulesets").glob("*.rules"))
IDS = [p.stem for p in RULESETS]


def engine(path: Path) -> ModuleType:
    return engine_module(path)


def cut(mod: ModuleType, length: int = 200) -> dict[str, int]:
    """Game parameters that cut a game of rules with no length bound at ``length`` decisions (not
    the default 10,000): OpenSpiel's Python MCCFR recurses once a move (Python stops at about
    1,000), random_sim_test keeps every state's information-state string, which carries every
    observation so far, and an information-set MCTS bot resamples a state a simulation."""
    return {} if mod.LENGTH_BOUND is not None else {"max_game_length": length}


def sequential(game: pyspiel.Game) -> pyspiel.Game:
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        return pyspiel.convert_to_turn_based(game)
    return game


@pytest.mark.slow
@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_random_sim_test_with_serialization(path: Path) -> None:
    mod = engine(path)
    for players in sorted({mod.MIN_PLAYERS, mod.MAX_PLAYERS}):
        game = openspiel.load(mod, players=players, **cut(mod))
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_game_type_follows_the_rules(path: Path) -> None:
    mod = engine(path)
    game = openspiel.load(mod)
    t = game.get_type()
    simultaneous = mod.SIMULTANEOUS in mod._PKIND
    assert (t.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS) == simultaneous
    assert (t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) == (mod.CHANCE in mod._PKIND)
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION  # every game here hides something
    assert game.num_distinct_actions() == mod.NUM_DISTINCT_ACTIONS
    assert game.observation_tensor_size() == mod.load_game({"players": game.num_players()}).observation_tensor_size()
    if mod.LENGTH_BOUND is not None:
        assert game.max_game_length() == mod.LENGTH_BOUND[0]
        assert t.provides_information_state_tensor
    else:
        assert game.max_game_length() == openspiel.DEFAULT_MAX_GAME_LENGTH
        assert not t.provides_information_state_tensor


@pytest.mark.slow
@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_outcome_sampling_mccfr(path: Path) -> None:
    mod = engine(path)
    game = sequential(openspiel.load(mod, infostate_key=True, **cut(mod, 60)))
    solver = os_mccfr.OutcomeSamplingSolver(game)
    for _ in range(200):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert abs(sum(probs.values()) - 1.0) < 1e-9


def _play(game: pyspiel.Game, bots: list[Any], rng: random.Random) -> list[float]:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(bots[state.current_player()](state))
    returns: list[float] = state.returns()
    return returns


@pytest.mark.slow
@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_mcts_and_ismcts_bots_against_random(path: Path) -> None:
    mod = engine(path)
    # the engine's resampling searches the history for other hidden values; where the percepts
    # of a long game leave few, it takes up to 10,000 steps to settle for the state itself
    native = openspiel.load(mod, **cut(mod, 12))
    game = sequential(native)
    rng = random.Random(path.stem)
    nrng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(1, nrng)
    bots = [mcts.MCTSBot(game, 2.0, 12, evaluator, random_state=nrng)]
    # information-set MCTS resamples states; OpenSpiel's turn-based transform of a simultaneous
    # game cannot (its states do not implement resample_from_infostate), so sequential games only
    if game is native:
        bots.append(ismcts.ISMCTSBot(game, evaluator, 2.0, 12, random_state=nrng))
    n = game.num_players()

    def rand(state: pyspiel.State) -> int:
        return int(rng.choice(state.legal_actions()))

    for bot in bots:
        returns = _play(game, [bot.step, *([rand] * (n - 1))], rng)
        assert len(returns) == n and all(r in (0.0, 1.0) for r in returns)


@pytest.mark.slow
@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_resample_keeps_the_information_state(path: Path) -> None:
    mod = engine(path)
    game = openspiel.load(mod)
    rng = random.Random(path.stem)
    changed = 0
    for _ in range(3):
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal() and steps < 40:
            if not state.is_chance_node():
                deciders = [state.current_player()] if state.current_player() >= 0 else [
                    q for q in range(game.num_players()) if state._s.o[q] is not None]
                p = rng.choice(deciders)
                other = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.observation_string(p) == state.observation_string(p)
                assert other.current_player() == state.current_player() and other.legal_actions(p) == state.legal_actions(p)
                changed += str(other) != str(state)
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
            elif state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(q)) for q in range(game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    if any(row[3] == 2 for row in mod._ZONE_VIEW):
        assert changed > 0  # a player's own cards hide the others': resampling found other states


@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_resampling_finds_a_state_at_every_decision(path: Path) -> None:
    """Within its budget the search finds a state with the same information state, rather than
    falling back on a copy: at each of a game's first 60 decisions, for the player who decides."""
    mod = engine(path)
    n = mod.MIN_PLAYERS
    g = mod.load_game({"players": n})
    rng = random.Random(path.stem)
    s = g.new_initial_state()
    tried = 0
    while not s.is_terminal() and tried < 60:
        if not s.is_chance_node():
            p = s.current_player() if s.current_player() >= 0 else rng.choice([q for q in range(n) if s.o[q] is not None])
            found = mod._resample(s, p, True, 1, random.Random(tried), 10_000)
            assert found is not None, f"no state found at decision {tried} ({len(s.history())} steps)"
            assert found.information_state_string(p) == s.information_state_string(p)
            tried += 1
        if s.is_simultaneous_node():
            s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(n)])
        else:
            s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("path", RULESETS, ids=IDS)
def test_observers_show_the_engines_views(path: Path) -> None:
    mod = engine(path)
    game = openspiel.load(mod)
    rng = random.Random(path.stem)
    kinds = [(public, private, recall) for public in (True, False) for private in (0, 1, 2) for recall in (False, True)]
    observers = {
        k: game.make_py_observer(pyspiel.IIGObservationType(public_info=k[0], perfect_recall=k[2], private_info=(
            pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.SINGLE_PLAYER, pyspiel.PrivateInfoType.ALL_PLAYERS)[k[1]]))
        for k in kinds
    }
    state = game.new_initial_state()
    for _ in range(30):
        if state.is_terminal():
            break
        inner = state._s
        for q in range(game.num_players()):
            assert state.observation_string(q) == inner.observation_string(q)
            assert state.information_state_string(q) == inner.information_state_string(q)
            assert list(state.observation_tensor(q)) == inner.observation_tensor(q)
            for (public, private, recall), obs in observers.items():
                assert obs.string_from(state, q) == inner.view_string(q, public, private, recall)
                if obs.tensor is not None:
                    obs.set_from(state, q)
                    expected = inner.information_state_tensor(q, public, private) if recall else inner.observation_tensor(q, public, private)
                    assert list(obs.tensor) == expected
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(q)) for q in range(game.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_public_observer_hides_the_players_own_hand() -> None:
    """A public-only observer of Kuhn poker does not show a player's card; the default one does."""
    game = openspiel.load(ROOT / "tests" / "rulesets" / "kuhn_poker.rules")
    public = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    a, b = game.new_initial_state(), game.new_initial_state()
    a.apply_action(0)  # Player 1 holds the jack
    b.apply_action(2)  # or the king
    assert a.observation_string(0) != b.observation_string(0)
    assert public.string_from(a, 0) == public.string_from(b, 0)
    assert "0" not in public.string_from(a, 0).split("hand[Player 1]: ")[1].split("\n")[0].replace("1 hidden", "")


def test_states_and_games_pickle_and_clone_independently() -> None:
    game = openspiel.load(ROOT / "rulesets" / "cinderella.rules", players=3)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(20):
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(q)) for q in range(3)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state) and copy.history() == state.history()
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    clone = state.clone()
    before = str(state)
    while not clone.is_terminal():
        if clone.is_simultaneous_node():
            clone.apply_actions([rng.choice(clone.legal_actions(q)) for q in range(3)])
        else:
            clone.apply_action(rng.choice(clone.legal_actions()))
    assert str(state) == before


def test_unbounded_rules_are_cut_at_max_game_length() -> None:
    mod = engine(ROOT / "rulesets" / "loving_penguin.rules")
    assert mod.LENGTH_BOUND is None
    game = openspiel.load(mod, max_game_length=5)
    assert game.max_game_length() == 5
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        else:
            decisions += 1
            state.apply_actions([state.legal_actions(q)[0] for q in range(game.num_players())])
    assert decisions == 5 and state.returns() == [0.0] * game.num_players()


def test_a_ruleset_that_does_not_check_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"visibility_when.rules:9:26: error\[E0201\]: unknown parameter 'opne_hands'"):
        openspiel.load(ROOT / "tests" / "bad" / "visibility_when.rules")
