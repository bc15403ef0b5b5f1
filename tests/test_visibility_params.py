"""Visibility and secrecy that depend on a parameter (`V when P else W`, `secret when P`): the
interpreter and the engine agree on every string for both values of the parameter, each value
shows what it says, and the English rendering names both."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.interpreter.state import Game as InterpreterGame
from rulecheck.reports.english import sections

TEXT = """
game "Sealed or open" { players 2..3 }
param sealed: bool = true "hands and bids are hidden"
card C "card {n}" { n: 1..6 }
zone deck: C hidden
zone hand[player]: C owner when sealed else public
zone pile: C public
table C in deck { given n source "six cards" | n | | 1..6 | }
var last[player]: 0..6 = 0 owner when sealed else public
flow {
  for each p in players { draw 2 from deck to hand[p] }
  repeat 2 times {
    choose each q in players: bid from hand[q] label "bids" secret when sealed
    for each q in players {
      move bid[q] to pile
      set last[q] = bid[q].n
    }
    choose c from 1..2 by player(1) label "calls" secret when sealed
  }
  end winners {p for p in players if last[p] == max(last[q] for q in players)}
}
"""


def _rules() -> ir.Ruleset:
    loaded = load_text(TEXT, "sealed.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.items
    return loaded.rules


@pytest.mark.parametrize("sealed", [True, False])
def test_interpreter_and_engine_agree(sealed: bool) -> None:
    rules = _rules()
    program = ir.bind(rules, {})
    mod = load_module(generate(program), "sealed_engine")
    rng = random.Random(int(sealed))
    for n in (2, 3):
        for _ in range(10):
            i = InterpreterGame(program, n, {"sealed": sealed}).new_initial_state()
            e = mod.load_game({"players": n, "sealed": sealed}).new_initial_state()
            while not e.is_terminal():
                for p in range(n):
                    assert e.observation_string(p) == i.observation_string(p)
                    assert e.information_state_string(p) == i.information_state_string(p)
                action: Any
                if e.is_simultaneous_node():
                    action = [rng.choice(e.legal_actions(q)) for q in range(n)]
                    e.apply_actions(action)
                    i.apply_actions(action)
                else:
                    action = rng.choice(e.legal_actions())
                    e.apply_action(action)
                    i.apply_action(action)
            assert e.returns() == i.returns()
            for p in range(n):
                assert e.information_state_string(p) == i.information_state_string(p)


def test_each_value_shows_what_it_says() -> None:
    mod = load_module(generate(ir.bind(_rules(), {})), "sealed_engine")
    for sealed in (True, False):
        s = mod.load_game({"players": 2, "sealed": sealed}).new_initial_state()
        for card in (0, 1, 2, 3):
            s.apply_action(card)
        s.apply_actions([0, 2])
        s.apply_action(1)
        obs = s.observation_string(0)
        info = s.information_state_string(0)
        assert ("hand[Player 2]: 1 hidden" in obs) == sealed
        assert ("hand[Player 2]: card 4" in obs) == (not sealed)
        assert ("last[Player 2]" in obs) == (not sealed)
        assert ("Player 2 bids: ?" in info) == sealed
        assert ("Player 2 bids: card 3" in info) == (not sealed)
        assert ("Player 1 calls: ?" in s.information_state_string(1)) == sealed


def _lines(block: Any) -> list[Any]:
    return list(block.lines) + [line for sub in getattr(block, "children", []) for line in _lines(sub)]


def test_english_names_both_values() -> None:
    rules = _rules()
    text = "\n".join(line.text for section in sections(rules) for block in section.blocks for line in _lines(block))
    assert "When sealed is on: Only its owner can see what is in it" in text
    assert "Otherwise: Everyone can see what is in it." in text
    assert "secret when sealed is on" in text
