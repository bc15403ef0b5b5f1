"""Corners of the language found by writing a game from the docs alone, each a test that failed
before its fix: a set as a variable's initial value in an engine, a parameter read by an initial
value, negative bounds of ranges, parameter values outside their range, a rule only another value
of a number parameter reaches, and how a game ends (a draw, a shared win, returns)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.interpreter.state import Game


@cache
def rules_of(text: str) -> ir.Ruleset:
    loaded = load_text(text, "edge.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


def engine(text: str) -> Any:
    return load_module(generate(ir.bind(rules_of(text), {})), "edge_engine")


def codes(text: str) -> list[str]:
    return [d.code for d in load_text(text, "edge.rules").diagnostics.sorted()]


INITS = """
game "Inits" { players 2..2 source "s" }
var s: set of 1..4 = {1, 2}
var low: -3..3 = -1
param t: -1..13 = -1
define sign(x: int) -> int "the sign" = match x {
    -3..-1 => -1
    0 => 0
    else => 1
  }
  source "s"
flow source "s" {
  say "{s} {low} {t} {sign(low)}"
  if sign(t) == -1 and 2 in s {
    end winners {player(1)}
  }
  end winners {player(2)}
}
"""


def test_a_set_and_negative_numbers_as_initial_values_play_alike_everywhere() -> None:
    rules = rules_of(INITS)
    state = Game(ir.bind(rules, {}), 2).new_initial_state()
    assert state.is_terminal() and state.returns() == [1.0, 0.0]
    e = engine(INITS)  # imported at all: a set constant is defined before the initial values use it
    s = e.load_game({"players": 2}).new_initial_state()
    assert s.is_terminal() and s.returns() == [1.0, 0.0]
    s = e.load_game({"players": 2, "t": 5}).new_initial_state()
    assert s.returns() == [0.0, 1.0] == Game(ir.bind(rules, {}), 2, {"t": 5}).new_initial_state().returns()


def test_an_initial_value_cannot_read_a_parameter() -> None:
    # the engine and the interpreter agreed on the default's value whatever --param said
    assert "E0302" in codes('game "P" { players 2..2 }\nparam n: 1..9 = 9\nvar k: int = n\nflow { end winners {player(1)} }\n')


@pytest.mark.parametrize("value", [30, -2, "3", True, 2.0])
def test_parameter_values_outside_their_type_are_refused_alike(value: object) -> None:
    rules = rules_of(INITS)
    with pytest.raises(ValueError) as interp:
        Game(ir.bind(rules, {}), 2, {"t": value})
    with pytest.raises(ValueError) as eng:
        engine(INITS).load_game({"players": 2, "t": value})
    assert str(interp.value) == str(eng.value) == f"parameter 't' is a whole number from -1 to 13, not {value!r}"


DRAWS = """
game "Calls" {
  players 2..3
  returns win_loss
  source "Each calls; the highest call wins; in a tie, win together; if everyone calls the same, it is a draw."
}
var called[player]: 0..2 = 0 score
define best -> int "the highest call" = max(called[q] for q in players)
flow source "Each calls; the highest call wins; in a tie, win together; if everyone calls the same, it is a draw." {
  for each p in players {
    choose x from 0..2 by p label "calls"
    set called[p] = x
  }
  if all(called[p] == called[player(1)] for p in players) {
    end draw
  }
  end winners {p for p in players if called[p] == best}
}
"""


@pytest.mark.parametrize(("calls", "returns", "winners", "draw"), [
    ([1, 1, 1], [0.0, 0.0, 0.0], [], True),
    ([2, 2, 0], [1.0, 1.0, -1.0], [0, 1], False),  # a shared victory is no draw
    ([0, 2, 1], [-1.0, 1.0, -1.0], [1], False),
])
def test_a_draw_a_shared_win_and_win_loss_returns(calls: list[int], returns: list[float], winners: list[int], draw: bool) -> None:
    interp = Game(ir.bind(rules_of(DRAWS), {}), 3).new_initial_state()
    eng = engine(DRAWS).load_game({"players": 3}).new_initial_state()
    for c in calls:
        interp.apply_action(c)
        eng.apply_action(c)
    for s in (interp, eng):
        assert s.is_terminal() and s.returns() == returns and s.winners() == winners and s.is_draw() == draw


def test_returns_score_gives_each_player_their_score() -> None:
    text = DRAWS.replace("returns win_loss", "returns score")
    interp = Game(ir.bind(rules_of(text), {}), 2).new_initial_state()
    eng = engine(text).load_game({"players": 2}).new_initial_state()
    for s in (interp, eng):
        s.apply_action(2)
        s.apply_action(1)
        assert s.returns() == [2.0, 1.0] and s.winners() == [0]


@pytest.mark.parametrize("decl", ["returns points", "returns score"])
def test_returns_the_language_cannot_give_are_refused(decl: str) -> None:
    assert "E0405" in codes(f'game "R" {{\n  players 2..2\n  {decl}\n}}\nflow {{ end draw }}\n')


def test_a_rule_only_another_number_parameter_reaches_is_not_dead() -> None:
    from rulecheck.verifier.verify import Options, verify

    text = """
game "Bonus" { players 2..2 source "With a bonus of 3 or more, the first player wins." }
param bonus: 0..5 = 1
flow source "With a bonus of 3 or more, the first player wins." {
  if bonus >= 3 {
    end winners {player(1)}
  }
  end winners {player(2)}
}
"""
    o = verify(rules_of(text), Options(timeout=5.0, jobs=1, checks=frozenset({"dead-rule"})))
    assert [f for f in o.findings if f.kind == "dead-rule" and f.status == "proven"] == []
    fixed = verify(rules_of(text), Options(timeout=5.0, jobs=1, checks=frozenset({"dead-rule"}), params={"bonus": 1},
                                            param_labels={"bonus": "1"}))
    (dead,) = [f for f in fixed.findings if f.kind == "dead-rule"]
    # with --param the claim is about that value, and it says so
    assert dead.status == "proven" and "bonus=1" in dead.bound and "bonus=1" in dead.message
