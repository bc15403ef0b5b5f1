"""An independent oracle: games OpenSpiel implements itself, written in the rules language from
OpenSpiel's definitions (tests/rulesets/), replayed action by action against pyspiel's C++ games.

At every node of thousands of random games the two must agree on the node's kind, the legal
actions of every player, the chance outcomes and their probabilities, terminality and the result;
and over all the games, two states lie in one information set of a player in OpenSpiel exactly
when they do in the engine (the partition of decision nodes into information sets is the same).
Where the encodings differ, the map is written here and in docs/engine.md ("The oracle").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pyspiel
import pytest

from rulecheck.adapters import engine_module

RULESETS = Path(__file__).parent / "rulesets"


@dataclass(frozen=True)
class Oracle:
    ruleset: str
    game: str  # pyspiel.load_game string
    games: int
    #: OpenSpiel's action -> the engine's, for (chance or seat, action)
    action: Callable[[int, int], int]
    #: the engine's final state -> OpenSpiel's returns
    returns: Callable[[Any], list[float]]
    #: OpenSpiel's information states forget something the engine's remember (so each of
    #: OpenSpiel's sets is a union of the engine's: the engine's must never merge two of them)
    coarser: bool = False
    #: the ruleset's parameters for this variant of the game
    params: tuple[tuple[str, Any], ...] = ()


def _payoff(s: Any) -> list[float]:
    values = s.variable_values()
    return [float(values[("payoff", q)]) for q in range(2)]


def _win_loss(s: Any) -> list[float]:
    # 1 to each winner and 0 to the others; OpenSpiel: the difference to the other player
    r = s.returns()
    return [r[0] - r[1], r[1] - r[0]]


ORACLES = {
    "kuhn_poker": Oracle("kuhn_poker.rules", "kuhn_poker", 3000, lambda _, a: a, _payoff),
    # goofspiel: bids are the numbers 1..num_cards, OpenSpiel's actions 0..num_cards-1; the prizes
    # are components 0..12, of which those above num_cards are out of play.  OpenSpiel's
    # information state shows both hands, who won each prize and the points, not which card met
    # which: the engine's remembers every bid
    "goofspiel": Oracle("goofspiel.rules", "goofspiel(num_cards=4,players=2,points_order=random,returns_type=win_loss)", 3000,
                        lambda p, a: a if p == pyspiel.PlayerId.CHANCE else a + 1, _win_loss, coarser=True),
    # the same at three and five cards (num_cards a parameter of the ruleset); with three, the
    # hands at the one decision after the first tell both bids, so the partitions are equal
    **{f"goofspiel_{k}": Oracle("goofspiel.rules", f"goofspiel(num_cards={k},players=2,points_order=random,returns_type=win_loss)", 1000,
                                lambda p, a: a if p == pyspiel.PlayerId.CHANCE else a + 1, _win_loss, coarser=k > 3,
                                params=(("num_cards", k),))
       for k in (3, 5)},
    # sealed bids (imp_info=true): a player sees her own bids and the points, never the other's bids
    "goofspiel_sealed": Oracle("goofspiel.rules", "goofspiel(num_cards=4,players=2,points_order=random,returns_type=win_loss,imp_info=true)",
                               2000, lambda p, a: a if p == pyspiel.PlayerId.CHANCE else a + 1, _win_loss, params=(("imp_info", True),)),
    "leduc_poker": Oracle("leduc_poker.rules", "leduc_poker", 3000, lambda _, a: a, _payoff),
    "liars_dice": Oracle("liars_dice.rules", "liars_dice(numdice=1,dice_sides=6,players=2)", 2000, lambda _, a: a, _win_loss),
}


def chance_map(name: str, os_state: Any, action: int) -> int:
    if name == "liars_dice":
        # the k-th chance node rolls the die of seat k; seat 2's faces are components 6..11
        return action + 6 * len(os_state.history())
    return ORACLES[name].action(pyspiel.PlayerId.CHANCE, action)


def replay(name: str, mod: ModuleType, rng: random.Random, infosets: dict[tuple[int, str], set[str]],
           ours: dict[tuple[int, str], set[str]]) -> int:
    """One random game on both; returns its number of steps."""
    oracle = ORACLES[name]
    os_game = pyspiel.load_game(oracle.game)
    g = mod.load_game({"players": 2, **dict(oracle.params)})
    a, b = os_game.new_initial_state(), g.new_initial_state()
    steps = 0
    while True:
        assert a.is_terminal() == b.is_terminal()
        if a.is_terminal():
            break
        assert a.current_player() == b.current_player(), (a.history(), b.history())
        if a.is_chance_node():
            expected = sorted((chance_map(name, a, x), p) for x, p in a.chance_outcomes())
            got = sorted(b.chance_outcomes())
            assert [x for x, _ in got] == [x for x, _ in expected]
            assert all(abs(p - q) < 1e-12 for (_, p), (_, q) in zip(got, expected))
            x = rng.choice([x for x, _ in a.chance_outcomes()])
            mapped = chance_map(name, a, x)
            a.apply_action(x)
            b.apply_action(mapped)
        else:
            for q in range(2):
                infosets.setdefault((q, a.information_state_string(q)), set()).add(b.information_state_key(q))
                ours.setdefault((q, b.information_state_key(q)), set()).add(a.information_state_string(q))
            if a.is_simultaneous_node():
                joint = []
                for q in range(2):
                    assert [oracle.action(q, x) for x in a.legal_actions(q)] == b.legal_actions(q)
                    joint.append(rng.choice(a.legal_actions(q)))
                a.apply_actions(joint)
                b.apply_actions([oracle.action(q, x) for q, x in enumerate(joint)])
            else:
                q = a.current_player()
                assert [oracle.action(q, x) for x in a.legal_actions()] == b.legal_actions()
                x = rng.choice(a.legal_actions())
                a.apply_action(x)
                b.apply_action(oracle.action(q, x))
        steps += 1
    assert oracle.returns(b) == list(a.returns()), (a.history(), b.history())
    return steps


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ORACLES))
def test_engine_plays_openspiels_game(name: str) -> None:
    mod = engine_module(RULESETS / ORACLES[name].ruleset)
    rng = random.Random(name)
    infosets: dict[tuple[int, str], set[str]] = {}
    ours: dict[tuple[int, str], set[str]] = {}
    steps = sum(replay(name, mod, rng, infosets, ours) for _ in range(ORACLES[name].games))
    assert steps > 3 * ORACLES[name].games
    # one OpenSpiel information set is one of the engine's, and the other way round
    split = {k: v for k, v in infosets.items() if len(v) > 1}
    merged = {k: v for k, v in ours.items() if len(v) > 1}
    assert not merged, list(merged.items())[:3]
    if ORACLES[name].coarser:
        assert split  # the difference is real (docs/engine.md)
    else:
        assert not split, list(split.items())[:3]
    # the games reached many information sets (Kuhn poker has 12 at decision nodes)
    assert len(infosets) >= 12


def test_the_oracle_notices_a_different_game() -> None:
    """Not vacuous: Kuhn poker replayed with pass and bet swapped fails."""
    mod = engine_module(RULESETS / "kuhn_poker.rules")
    bad = Oracle("kuhn_poker.rules", "kuhn_poker", 50, lambda p, a: 1 - a if p >= 0 else a, _payoff)
    ORACLES["kuhn_swapped"] = bad
    try:
        with pytest.raises(AssertionError):
            rng = random.Random(0)
            for _ in range(50):
                replay("kuhn_swapped", mod, rng, {}, {})
    finally:
        del ORACLES["kuhn_swapped"]
