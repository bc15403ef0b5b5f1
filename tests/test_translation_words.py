"""The translation check's second part (verifier/quantifiers.py): a quote's quantified condition and
the counts it names, against the rule that cites it. Each case is tried both ways: the wording
that disagrees with its rule is a finding, the wording that agrees is none."""

from __future__ import annotations

import pytest

from rulecheck.dsl.loader import load_text
from rulecheck.reports import wording
from rulecheck.verifier.quantifiers import EVERY, NONE, SOME, SOME_NOT, check_conditions_and_counts, read_conditions, read_counts

GAME = """
game "Veto" {{ players 2..4 source "s" }}
var vetoed[player]: bool = false
card Card {{ n: 1..9 }}
table Card in deck {{
  given n source "nine cards"
  | n |
  | 1..9 |
}}
zone deck: Card hidden
zone hand[player]: Card owner
flow source "s" {{
  for each p in players {{
    choose v from {{true, false}} by p label "vetoes"
    set vetoed[p] = v
  }}
  draw {draw} from deck to hand[player(1)] source "{draw_quote}"
  let who = {{p for p in players if vetoed[p]}}
  if size(who) > 0 source "{then_quote}" {{
    end winners {{player(2)}}
  }} else source "{else_quote}" {{
    end winners {{player(1)}}
  }}
}}
"""


def findings(**quotes: object) -> list[str]:
    text = GAME.format(**{"draw": 2, "draw_quote": "Draw 2 cards.", "then_quote": "If anyone vetoes, the second player wins.",
                          "else_quote": "If nobody vetoes, the first player wins.", **quotes})
    loaded = load_text(text, "veto.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    found = check_conditions_and_counts(loaded.rules)
    wording.apply(found)
    return [f.title for f in found]


def test_wording_that_agrees_raises_nothing() -> None:
    assert findings() == []
    assert findings(then_quote="If at least one player vetoes, the second player wins.",
                    else_quote="If no one vetoes, the first player wins.") == []


@pytest.mark.parametrize(("field", "quote", "said"), [
    ("else_quote", "If anyone did not veto, the first player wins.", "some player does not"),
    ("else_quote", "If everyone vetoes, the first player wins.", "every player does"),
    ("then_quote", "If nobody vetoes, the second player wins.", "no player does"),
])
def test_a_moved_negation_or_quantifier_is_a_finding(field: str, quote: str, said: str) -> None:
    (title,) = findings(**{field: quote})
    assert f"says {said}" in title


def test_counts_both_ways() -> None:
    assert findings(draw=3, draw_quote="Draw 3 cards.") == []
    (title,) = findings(draw=3, draw_quote="Draw 2 cards.")
    assert "names 2 cards" in title and "draws 3" in title
    assert findings(draw=3, draw_quote="Each player draws cards for 2 turns.") == []  # a count of turns is not the draw's


@pytest.mark.parametrize(("text", "lang", "shapes"), [
    ("If anyone did not present a NO! Chip: the information is valid.", "en", [SOME_NOT]),
    ("If nobody passes, all players draw.", "en", [NONE]),  # "all players" is not in the condition
    ("When every player has passed, the round ends.", "en", [EVERY]),
    ("If someone has more than 5 points and everyone agrees, stop.", "en", []),  # two quantifiers: no reading
    ("誰も出さなかった場合、有効になる。", "ja", [NONE]),
    ("誰かが出したら無効になる。", "ja", [SOME]),
    ("All players collect each chip.", "en", []),  # no condition
])
def test_reading_conditions(text: str, lang: str, shapes: list[str]) -> None:
    assert [s.shape for s in read_conditions(text, lang)] == shapes


def test_reading_counts() -> None:
    assert [(n, noun) for n, noun, _ in read_counts("Deal 4 cards to each player for 2 rounds.", "en")] == [(4, "cards"), (2, "rounds")]
    assert [(n, noun) for n, noun, _ in read_counts("カードを２枚引く。", "ja")] == [(2, "枚")]
    assert read_counts("a 2-player game, 10.5 points", "en") == []
