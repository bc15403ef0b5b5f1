"""The engine's views: incremental information states (shared by clones, never changed by them),
their keys, the views of other observers, tensors and the length bound."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
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
def test_an_information_state_rebuilds_every_observation(path: Path) -> None:
    """It records what an observation lost and gained, not the whole table: applied in order from
    the first observation, those lines give every observation the player had, line for line."""
    mod = engine_module(path)
    n = mod.MAX_PLAYERS
    g = mod.load_game({"players": n})
    rng = random.Random(path.stem)
    s = g.new_initial_state()
    p = rng.randrange(n)
    text = s.information_state_string(p)
    table = Counter(text.split("\n"))
    while not s.is_terminal() and len(s.history()) < 80:
        _step(s, rng, n)
        longer = s.information_state_string(p)
        assert longer.startswith(text + "\n")
        added = longer[len(text) + 1:].split("\n")
        table.subtract(line[2:] for line in added if line.startswith("- "))
        table.update(line[2:] for line in added if line.startswith("+ "))
        assert min(table.values()) >= 0 and +table == Counter(s.observation_string(p).split("\n"))
        assert not any(line.startswith(("- ", "+ ")) for line in added[:1])  # the step comes first
        text = longer


def _told_in(line: str, view: set[str]) -> bool:
    """An observation shown as made ("observation 1: Player 1 feels its own piece") that the other
    view shows with what it told."""
    return line.startswith("observation ") and any(y.startswith(line + ": ") for y in view)


def _hidden_in(line: str, view: set[str]) -> bool:
    """A line of hidden components ("hand[Player 2]: 2 hidden, seen Ace") whose remembered ones,
    if any, the other view shows where they lie."""
    label, _, rest = line.partition(": ")
    m = re.fullmatch(r"\d+ hidden(?:, seen (.*))?", rest)
    if m is None:
        return False
    if m.group(1) is None:
        return True
    shown = {c for x in view if x.startswith(label + ": ") for c in x[len(label) + 2:].split(", ")}
    return set(m.group(1).split(", ")) <= shown


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_views_and_tensors(path: Path) -> None:
    mod = engine_module(path)
    n = mod.MIN_PLAYERS
    g = mod.load_game({"players": n})
    rng = random.Random(path.stem)
    s = g.new_initial_state()
    # rules with no length bound may play for ever: 500 steps of such a game
    steps = 0
    while not s.is_terminal() and (mod.LENGTH_BOUND is not None or steps < 500):
        steps += 1
        for p in range(n):
            assert len(s.observation_tensor(p)) == g.observation_tensor_size()
            # everything a public view shows, the player's own view shows too, and all players' view
            public, own, everyone = (set(s.view_string(p, True, k).splitlines()) for k in (0, 1, 2))
            # (a zone's size where the player sees its cards, an observation made where the player
            # sees what it told)
            assert all(x.endswith(" hidden") or _told_in(x, own) for x in public - own), public - own
            assert all(_hidden_in(x, everyone) or _told_in(x, everyone) for x in own - everyone), own - everyone
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
    assert bound("tests/rulesets/goofspiel.rules") == (12, 12)  # num_cards up to 13: 12 rounds of a draw and the bids
    assert bound("tests/rulesets/liars_dice.rules") == (14, 2)  # 7 rounds of 2 turns: a safe bound of 13
    assert bound("tests/rulesets/leduc_poker.rules") == (8, 3)  # OpenSpiel's max_game_length is 8 too
    assert bound("rulesets/loving_penguin.rules") is None  # repeat until
