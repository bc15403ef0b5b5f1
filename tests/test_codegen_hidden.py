"""Hidden information: a player's observation and information state reveal nothing she could not
know at the table.

For a player P, ``projection`` says what P may know, computed here from the declarations of the
rules (zone and variable visibility, secret decisions) over the engine's full-information view:
the contents of public zones and of P's own zones, the sizes of the others, the variables P may
see, and every decision so far as P saw it (chance outcomes and other players' secret choices
masked).  Two games are then made to differ where P cannot see: a different card dealt, two cards
swapped in every deal, another secret choice by an opponent.  Both are replayed with the same
actions (as long as they stay legal); at every step where P's projections of the two games agree,
P's observation and information-state strings must be identical.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest
from test_codegen_differential import engine, ruleset

from rulecheck.dsl import ir


def visible_decision(mod: ModuleType, s: Any, action: Any, player: int) -> tuple[Any, ...]:
    """A decision as ``player`` sees it when it is made in state ``s``."""
    cp, pc = s.current_player(), s.pc
    secret = mod._PSECRET[pc]
    if cp == mod.CHANCE:
        return ("chance",)
    if cp >= 0:
        return ("player", pc, cp, action if cp == player or not secret else None)
    choosers = [q for q in range(len(action)) if s.legal_actions(q) != [mod.PASS]]
    return ("simultaneous", pc, tuple((q, action[q] if q == player or not secret else None) for q in choosers))


def projection(rules: ir.Ruleset, s: Any, player: int) -> tuple[Any, ...]:
    """What ``player`` may know of the table now, by the visibility the rules declare."""
    zones = []
    for (zone, index), cids in sorted(s.zone_contents().items(), key=str):
        z = rules.zones[zone]
        seen = z.visibility == "public" or (z.visibility == "owner" and index == player)
        zones.append((zone, index, tuple(cids) if seen else len(cids)))
    variables = []
    for (name, index), value in sorted(s.variable_values().items(), key=str):
        v = rules.vars[name]
        if v.visibility == "hidden" or (v.visibility == "owner" and index != player):
            continue
        variables.append((name, index, value))
    return tuple(zones), tuple(variables)


def legal(s: Any, action: Any, n: int) -> bool:
    if s.is_simultaneous_node():
        return isinstance(action, list) and all(action[q] in s.legal_actions(q) for q in range(n))
    return not isinstance(action, list) and action in s.legal_actions()


def play(s: Any, action: Any) -> None:
    if isinstance(action, list):
        s.apply_actions(action)
    else:
        s.apply_action(action)


def random_history(mod: ModuleType, n: int, params: dict[str, Any], rng: random.Random, limit: int = 150) -> list[Any]:
    s = mod.load_game({"players": n, **params}).new_initial_state()
    history: list[Any] = []
    try:
        while not s.is_terminal() and len(history) < limit:
            if s.is_simultaneous_node():
                action: Any = [rng.choice(s.legal_actions(q)) for q in range(n)]
            else:
                action = rng.choice(s.legal_actions())
            play(s, action)
            history.append(action)
    except mod.RuleError:
        pass
    return history


def perturbations(mod: ModuleType, n: int, params: dict[str, Any], history: list[Any], player: int, rng: random.Random) -> list[list[Any]]:
    """Histories that differ from ``history`` at places ``player`` cannot see."""
    out: list[list[Any]] = []
    s = mod.load_game({"players": n, **params}).new_initial_state()
    chance_steps, secret_steps = [], []
    for k, action in enumerate(history):
        if s.is_chance_node():
            chance_steps.append((k, s.legal_actions()))
        elif mod._PSECRET[s.pc]:
            others = [q for q in range(n) if q != player and len(s.legal_actions(q)) > 1]
            if others:
                secret_steps.append((k, s.current_player(), [s.legal_actions(q) for q in range(n)]))
        try:
            play(s, action)
        except mod.RuleError:
            break
    # a different card drawn at one chance node
    for k, options in rng.sample(chance_steps, min(3, len(chance_steps))):
        other = [a for a in options if a != history[k]]
        if other:
            out.append([*history[:k], rng.choice(other), *history[k + 1:]])
    # two cards swapped in every draw
    drawn = sorted({history[k] for k, _ in chance_steps})
    if len(drawn) >= 2:
        x, y = rng.sample(drawn, 2)
        swap = {x: y, y: x}
        chance = {k for k, _ in chance_steps}
        out.append([swap.get(a, a) if k in chance else a for k, a in enumerate(history)])
    # another secret choice by an opponent
    for k, cp, options in secret_steps[:3]:
        changed = list(history[k]) if isinstance(history[k], list) else history[k]
        if cp >= 0 and cp != player:
            alt = [a for a in options[cp] if a != changed]
            if alt:
                out.append([*history[:k], rng.choice(alt), *history[k + 1:]])
        elif cp < 0:
            q = next(q for q in range(n) if q != player and len(options[q]) > 1)
            changed[q] = rng.choice([a for a in options[q] if a != changed[q]])
            out.append([*history[:k], changed, *history[k + 1:]])
    return out


def compare_for(mod: ModuleType, rules: ir.Ruleset, n: int, params: dict[str, Any], history: list[Any], other: list[Any], player: int) -> int:
    """Replay both histories; while ``player``'s projections agree, her strings must agree.
    Returns how many steps compared two games that really differ."""
    g = mod.load_game({"players": n, **params})
    a, b = g.new_initial_state(), g.new_initial_state()
    seen_a: list[Any] = []
    seen_b: list[Any] = []
    differ = False
    compared = 0
    for step_a, step_b in zip(history, other):
        if projection(rules, a, player) != projection(rules, b, player) or seen_a != seen_b:
            return compared
        assert a.observation_string(player) == b.observation_string(player)
        if differ:
            compared += 1
            if compared % 4 == 1:
                assert a.information_state_string(player) == b.information_state_string(player)
        if not legal(b, step_b, n):
            return compared
        seen_a.append(visible_decision(mod, a, step_a, player))
        seen_b.append(visible_decision(mod, b, step_b, player))
        differ = differ or step_a != step_b
        try:
            play(a, step_a)
            play(b, step_b)
        except mod.RuleError:
            return compared
    return compared


@pytest.mark.parametrize(("name", "readings", "params"), [
    ("cinderella.rules", {}, {}),
    ("cinderella.rules", {"passed_chip": "shows_ok", "effect_optional": "optional"}, {}),
    ("kitchen_sink", {"giving": "anyone"}, {}),
    ("kitchen_sink", {"giving": "left"}, {"rounds": 3}),
    ("loving_penguin.rules", {}, {}),
])
def test_strings_reveal_nothing_hidden(name: str, readings: dict[str, str], params: dict[str, Any]) -> None:
    _, mod = engine(name, readings)
    rules = ruleset(name)
    rng = random.Random(name + str(sorted(readings.items())))
    compared = 0
    for game in range(12):
        n = 2 + game % 3
        history = random_history(mod, n, params, rng)
        for player in range(n):
            for other in perturbations(mod, n, params, history, player, rng):
                compared += compare_for(mod, rules, n, params, history, other, player)
    # the test compared many steps of games that differ in what the player cannot see
    assert compared >= 100, compared


def test_the_projection_notices_what_a_player_sees() -> None:
    """The check is not vacuous: a card dealt into a player's own hand changes her projection
    and her observation."""
    _, mod = engine("cinderella.rules", {})
    rules = ruleset("cinderella.rules")
    g = mod.load_game({"players": 2})
    a, b = g.new_initial_state(), g.new_initial_state()
    a.apply_action(0)  # the first card goes to Player 1's hand
    b.apply_action(1)
    assert projection(rules, a, 0) != projection(rules, b, 0)
    assert a.observation_string(0) != b.observation_string(0)
    assert projection(rules, a, 1) == projection(rules, b, 1)
    assert a.observation_string(1) == b.observation_string(1)
    assert a.information_state_string(1) == b.information_state_string(1)
