"""Hidden roles stay hidden in the generated engines: every deal of the roles, enumerated, gives
the player who decides first (who saw none of them) one and the same information state, as a
string, a key and a tensor, while a player who holds a role tells deals apart (so the comparison
is not vacuous). The systematic leak test (tests/test_adapters_leaks.py) perturbs random games of
every ruleset; this one takes every deal of the games whose roles are dealt face down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from rulecheck.adapters import engine_module

GAMES = [ROOT / "rulesets" / "prince_mochi.rules", ROOT / "rulesets" / "tofu_kingdom.rules", ROOT / "tests" / "rulesets" / "spy_court.rules"]


def deals(mod: Any, n: int) -> list[Any]:
    """The states at the first player's decision, one per way the chance nodes before it can go."""
    todo = [mod.load_game({"players": n}).new_initial_state()]
    out = []
    while todo:
        s = todo.pop()
        if not s.is_chance_node():
            out.append(s)
            continue
        for a, _ in s.chance_outcomes():
            t = s.clone()
            t.apply_action(a)
            todo.append(t)
    return out


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_the_deal_is_hidden_from_who_saw_none_of_it(path: Path) -> None:
    mod = engine_module(path)
    for n in (mod.MIN_PLAYERS, mod.MAX_PLAYERS):
        states = deals(mod, n)
        tables = {tuple(sorted(s.zone_contents().items(), key=str)) for s in states}
        assert len(tables) > 1, "the roles are dealt in more than one way"
        decider = {s.current_player() for s in states}
        assert len(decider) == 1, decider
        p = decider.pop()
        assert len({s.information_state_string(p) for s in states}) == 1
        assert len({s.information_state_key(p) for s in states}) == 1
        assert len({tuple(s.observation_tensor(p)) for s in states}) == 1
        if mod.LENGTH_BOUND is not None:
            assert len({tuple(s.information_state_tensor(p)) for s in states}) == 1
        # the same holds a question later: the decider's own choices reveal nothing either
        later = []
        for s in states:
            t = s.clone()
            t.apply_action(t.legal_actions()[0])
            later.append(t)
        assert len({t.information_state_string(p) for t in later if t.current_player() == p}) == 1
        # a player dealt a role sees it: the deals are told apart by someone
        holders = [q for q in range(n) if q != p]
        assert any(len({s.information_state_string(q) for s in states}) > 1 for q in holders)
