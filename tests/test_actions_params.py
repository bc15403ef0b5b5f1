"""The action space follows the parameters: a number choice written with a parameter (`0..limit`)
gets actions up to the parameter's value in the game, and PASS stays above every option, in the
interpreter and the engine alike (and through the adapters)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rulecheck.adapters import openspiel, pettingzoo
from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.dsl.values import num_distinct_actions
from rulecheck.interpreter.semantics import resolve_params
from rulecheck.interpreter.state import Game as InterpreterGame

TEXT = """
game "Limits" { players 2..3 }
param limit: int = 20 "the highest number the first player may name"
param top: 1..9 = 3 "the highest bid"
flow {
  choose x from 0..limit by player(1) label "names"
  choose each q in players: y from {v for v in 1..top if v != 2} label "bids"
  if x > y[player(2)] { end winners {player(1)} }
  end winners {player(2)}
}
"""


def _program() -> ir.Program:
    loaded = load_text(TEXT, "limits.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.items
    return ir.bind(loaded.rules, {})


@pytest.mark.parametrize("params", [{}, {"limit": 5}, {"limit": 40, "top": 9}, {"limit": 0, "top": 1}])
def test_action_space_follows_the_parameters(params: dict[str, Any]) -> None:
    program = _program()
    mod = load_module(generate(program), "limits_engine")
    values = resolve_params(program.rules, params)[0]
    expected = max(2, 3, values["limit"] + 1, values["top"] + 1) + 1
    assert num_distinct_actions(program.rules, values) == expected
    rng = random.Random(str(params))
    for n in (2, 3):
        e = mod.load_game({"players": n, **params})
        i = InterpreterGame(program, n, params)
        assert e.num_distinct_actions() == i.num_distinct_actions() == expected
        assert e.pass_action == i.pass_action == expected - 1
        for _ in range(20):
            a, b = e.new_initial_state(), i.new_initial_state()
            assert a.legal_actions() == b.legal_actions() == list(range(values["limit"] + 1))
            x = rng.choice(a.legal_actions())
            a.apply_action(x)
            b.apply_action(x)
            joint = []
            for q in range(n):
                assert a.legal_actions(q) == b.legal_actions(q)
                assert max(a.legal_actions(q)) < e.pass_action
                joint.append(rng.choice(a.legal_actions(q)))
            a.apply_actions(joint)
            b.apply_actions(joint)
            assert a.returns() == b.returns()
    # the module's constants are the defaults' values
    assert mod.NUM_DISTINCT_ACTIONS == num_distinct_actions(program.rules) == 22


def test_adapters_use_the_games_action_space() -> None:
    mod = load_module(generate(_program()), "limits_engine")
    game = openspiel.load(mod, limit=40)
    assert game.num_distinct_actions() == 42
    env = pettingzoo.env(mod, params={"limit": 40})
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["action_mask"].shape == (42,) and obs["action_mask"][40] == 1
