"""No leaks, systematically, in every view and through each adapter: states that differ only in what
a player may not see give that player the same observation and information state, as strings,
keys and tensors, in the engine and through OpenSpiel and PettingZoo.

What a view may show is computed here from the rules' declarations over the engine's
full-information state (as tests/test_codegen_hidden.py does for the default view): the public
view (OpenSpiel's public-only observer) shows public zones and variables, every zone's size and
decisions that are not secret; the player's view adds the player's own zones, variables and secret
decisions.  Games are perturbed where the player cannot see (another card dealt, two cards swapped,
another secret choice); while the projections of two games agree, everything the adapters show
that player must agree, and they are replayed step by step.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel
import pytest
from test_codegen_hidden import legal, perturbations, play, random_history

from rulecheck.adapters import engine_module, openspiel, pettingzoo
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.walk import walk_stmts

ROOT = Path(__file__).parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules")) + sorted((ROOT / "tests" / "rulesets").glob("*.rules"))
IDS = [p.stem for p in RULESETS]


def param_values(rules: ir.Ruleset, given: dict[str, Any]) -> dict[str, Any]:
    return {**{n: p.value for n, p in rules.params.items()}, **given}


def projection(rules: ir.Ruleset, s: Any, player: int, private: bool, params: dict[str, Any]) -> tuple[Any, ...]:
    """What the view may show of the table: ``private`` False is the public view.  The player's
    view also shows the components the player remembers having been revealed where they lie
    (the engine's memory, s.m: a reveal is the rules' declaration that the player saw them)."""
    zones = []
    remembered = s.m[player] if private else 0
    for (zone, index), cids in sorted(s.zone_contents().items(), key=str):
        vis = ir.visibility_in(rules.zones[zone], params)
        seen = vis == "public" or (private and vis == "owner" and index == player)
        known = tuple(c for c in cids if remembered >> c & 1)
        zones.append((zone, index, tuple(cids) if seen else (len(cids), known)))
    variables = []
    for (name, index), value in sorted(s.variable_values().items(), key=str):
        vis = ir.visibility_in(rules.vars[name], params)
        if vis == "hidden" or (vis == "owner" and not (private and index == player)):
            continue
        variables.append((name, index, value))
    # observations since the last decision (engines of rules that observe): what was learnt is the
    # observer's private part; that the observation happened is public
    percepts = tuple((k, who, what, text if private and who == player else None) for k, who, what, text in getattr(s, "ob", ()))
    return tuple(zones), tuple(variables), percepts


def decision(mod: ModuleType, s: Any, action: Any, player: int, private: bool, secrets: dict[int, bool]) -> tuple[Any, ...]:
    """A decision as the view sees it when it is made in state ``s`` (``secrets``: which decision
    points are secret, from the rules)."""
    cp, pc = s.current_player(), s.pc
    secret = secrets[pc]
    if cp == mod.CHANCE:
        return ("chance",)
    if cp >= 0:
        return ("player", pc, cp, action if not secret or (private and cp == player) else None)
    choosers = [q for q in range(len(action)) if s.o[q] is not None]
    return ("simultaneous", pc, tuple((q, action[q] if not secret or (private and q == player) else None) for q in choosers))


def seen_by_adapters(mod: ModuleType, os_state: pyspiel.State, pz: pettingzoo.RulecheckAECEnv, s: Any, player: int,
                     observers: dict[bool, Any]) -> dict[bool, tuple[Any, ...]]:
    """Everything the engine and the adapters show the player of the game ``s``, per view
    (True: the player's own, the default; False: the public view)."""
    views: dict[bool, list[Any]] = {}
    for private in (False, True):
        level = 1 if private else 0
        out = [s.view_string(player, True, level), s.view_string(player, True, level, True), s.view_key(player, True, level),
               tuple(s.observation_tensor(player, True, level))]
        if mod.LENGTH_BOUND is not None:
            out.append(tuple(s.information_state_tensor(player, True, level)))
        obs = observers[private]
        out.append(obs.string_from(os_state, player))
        obs.set_from(os_state, player)
        out.append(tuple(obs.tensor))
        views[private] = out
    views[True] += [s.observation_string(player), s.information_state_string(player), s.information_state_key(player),
                    os_state.observation_string(player), os_state.information_state_string(player),
                    tuple(os_state.observation_tensor(player))]
    pz.t.state = s
    seen = pz.t.observe(player, player in pz.t.deciders())
    views[True] += [tuple(seen["observation"]), tuple(np.flatnonzero(seen["action_mask"]))]
    return {k: tuple(v) for k, v in views.items()}


def replay_pair(mod: ModuleType, rules: ir.Ruleset, n: int, history: list[Any], other: list[Any], player: int,
                private: bool, game: pyspiel.Game, observers: dict[bool, Any], pz: pettingzoo.RulecheckAECEnv,
                params: dict[str, Any], secrets: dict[int, bool]) -> int:
    """Replay both games; while the view's projections agree, what it shows must agree.  Returns
    how many steps compared two games that really differ."""
    g = mod.load_game({"players": n, **params})
    a, b = g.new_initial_state(), g.new_initial_state()
    values = param_values(rules, params)
    oa, ob = game.new_initial_state(), game.new_initial_state()
    seen_a: list[Any] = []
    seen_b: list[Any] = []
    differ = False
    compared = 0
    for step_a, step_b in zip(history, other):
        if projection(rules, a, player, private, values) != projection(rules, b, player, private, values) or seen_a != seen_b:
            return compared
        if differ:
            compared += 1
            if compared % 3 == 1:
                va = seen_by_adapters(mod, oa, pz, a, player, observers)[private]
                vb = seen_by_adapters(mod, ob, pz, b, player, observers)[private]
                assert va == vb
        if not legal(b, step_b, n):
            return compared
        seen_a.append(decision(mod, a, step_a, player, private, secrets))
        seen_b.append(decision(mod, b, step_b, player, private, secrets))
        differ = differ or step_a != step_b
        try:
            play(a, step_a)
            play(b, step_b)
        except mod.RuleError:
            return compared
        for s, step in ((oa, step_a), (ob, step_b)):
            if isinstance(step, list):
                s.apply_actions(step)
            else:
                s.apply_action(step)
    return compared


def secret_points(rules: ir.Ruleset, mod: ModuleType, params: dict[str, Any]) -> dict[int, bool]:
    """Decision point -> secret, from the rules: the engine numbers its points in flow order with
    their lines, so a point is matched to its statement by kind, label and line."""
    values = param_values(rules, params)
    program = ir.bind(rules, dict(mod.READINGS))
    stmts = [s for body in [rules.flow] + [p.body or [] for p in program.procs.values()] for s in walk_stmts(body)
             if isinstance(s, (ir.Choose, ir.ChooseEach))]
    out = {0: False}
    for pc in range(1, len(mod._PKIND)):
        if mod._PKIND[pc] == mod.CHANCE:
            out[pc] = False
            continue
        match = [s for s in stmts if s.label == mod._PLABEL[pc] and s.span.line == mod._PLINE[pc]]
        assert len(match) == 1, (pc, mod._PLABEL[pc])
        out[pc] = ir.secret_in(match[0], values)
    return out


CASES = [(p, {}) for p in RULESETS] + [(ROOT / "tests" / "rulesets" / "goofspiel.rules", {"imp_info": True})]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "params"), CASES, ids=[*IDS, "goofspiel_imp_info"])
def test_views_and_adapters_reveal_nothing_hidden(path: Path, params: dict[str, Any]) -> None:
    mod = engine_module(path)
    loaded = load_path(path)
    assert loaded.rules is not None
    rules = loaded.rules
    secrets = secret_points(rules, mod, params)
    rng = random.Random(path.stem)
    compared = {False: 0, True: 0}
    for k in range(6):
        n = mod.MIN_PLAYERS + k % (mod.MAX_PLAYERS - mod.MIN_PLAYERS + 1)
        game = openspiel.load(mod, players=n, **params)
        observers = {private: game.make_py_observer(pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER if private else pyspiel.PrivateInfoType.NONE))
            for private in (False, True)}
        pz = pettingzoo.env(mod, players=n, params=params)
        history = random_history(mod, n, params, rng, limit=80)
        for player in range(n):
            for other in perturbations(mod, n, params, history, player, rng):
                for private in (False, True):
                    compared[private] += replay_pair(mod, rules, n, history, other, player, private, game, observers, pz, params, secrets)
    # many steps of games that differ where the player cannot see were compared, in both views
    # (where some player sees what another does not: in Goofspiel, nobody sees more than others)
    if any(ir.visibility_in(z, param_values(rules, params)) == "owner" for z in rules.zones.values()) or any(secrets.values()):
        assert compared[True] >= 10 and compared[False] >= 10, compared


def test_the_public_view_notices_the_players_own_card() -> None:
    """Not vacuous: the player's view shows her own card, the public view does not."""
    path = ROOT / "tests" / "rulesets" / "kuhn_poker.rules"
    mod = engine_module(path)
    loaded = load_path(path)
    assert loaded.rules is not None
    g = mod.load_game({"players": 2})
    a, b = g.new_initial_state(), g.new_initial_state()
    a.apply_action(0)
    b.apply_action(1)
    assert projection(loaded.rules, a, 0, True, {}) != projection(loaded.rules, b, 0, True, {})
    assert a.observation_tensor(0) != b.observation_tensor(0)
    assert a.information_state_key(0) != b.information_state_key(0)
    assert projection(loaded.rules, a, 0, False, {}) == projection(loaded.rules, b, 0, False, {})
    assert a.observation_tensor(0, True, 0) == b.observation_tensor(0, True, 0)
    assert a.view_key(0, True, 0) == b.view_key(0, True, 0)
