"""Component tables that depend on a parameter (`| 1..num_cards |`, `| … | when P`): the
components out of play in a game are in no zone, and no rule, view, chance node or check reaches
them — in the interpreter, the generated engine and the verifier alike."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_codegen_differential import TEXTS, engine, play_both, ruleset

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.editor.format import format_text
from rulecheck.interpreter.state import Game
from rulecheck.reports.english import sections
from rulecheck.verifier.verify import Options, verify

#: a deck of cards 1 to num_cards, two bonus cards in a game of two with the bonus, a card per
#: card (a zone and a variable indexed by the cards), and a choice among all the cards
SHORT_DECK = """
game "Short deck" {
  players 2..3
  source "Each player draws a card; the highest wins."
}

card Card "card {rank}" { rank: 1..9 }
piece Chip "chip {n}" { n: 1..2 }

param num_cards: 2..6 = 4 "how many cards the deck holds"
  source "Use the cards 1 to num_cards."
param bonus: bool = false "add the two bonus cards"
  source "Use the cards 1 to num_cards."

zone deck: Card hidden "the deck"
zone hand[player]: Card owner "a player's card"
zone shown: Card public "the cards turned up"
zone under[Card]: Chip public "chips on a card"
zone pool: Chip public "the chips"

var marked[Card]: 0..1 = 0 "cards named"

table Card in deck {
  given rank source "Use the cards 1 to num_cards."
  | rank         |
  | 1..num_cards |
  | 8..9         | when bonus and num_players < 3
}

table Chip in pool {
  given n source "two chips"
  | n    |
  | 1..2 |
}

define best(p: player) -> int "a player's rank" = max(c.rank for c in hand[p])
  source "the highest wins"

invariant four_cards always: size(Card) <= 4

flow {
  for each p in players {
    draw from deck to hand[p]
  }
  choose c from Card by player(1) label "names"
  set marked[c] = 1
  draw from pool to under[c]
  move deck to shown
  end winners {p for p in players if best(p) == max(best(q) for q in players)}
}
"""

TEXTS["short_deck"] = (SHORT_DECK, "short_deck.rules")

#: (parameters, player count, the ranks in play)
GAMES: list[tuple[dict[str, Any], int, set[int]]] = [
    ({}, 2, {1, 2, 3, 4}),
    ({"num_cards": 3}, 3, {1, 2, 3}),
    ({"num_cards": 6, "bonus": True}, 2, {1, 2, 3, 4, 5, 6, 8, 9}),
    ({"num_cards": 6, "bonus": True}, 3, {1, 2, 3, 4, 5, 6}),  # the bonus is for two players
    ({"num_cards": 2}, 3, {1, 2}),  # too few cards: the third draw finds the deck empty
]


def rules() -> ir.Ruleset:
    return ruleset("short_deck")


def test_the_table_makes_every_card_the_parameter_allows() -> None:
    r = rules()
    assert [c.attrs["rank"] for c in r.components_of("Card")] == [1, 2, 3, 4, 5, 6, 8, 9]
    # cards 1 and 2 are in every game (num_cards is at least 2); the others depend on it
    assert [c.when is None for c in r.components_of("Card")] == [True, True, False, False, False, False, False, False]
    assert all(c.when is None for c in r.components_of("Chip"))


@pytest.mark.parametrize(("params", "n", "ranks"), GAMES)
def test_interpreter_and_engine_agree(params: dict[str, Any], n: int, ranks: set[int]) -> None:
    ends = {play_both("short_deck", {}, n, seed=100 * n + g, params=params, info_states=True) for g in range(12)}
    assert ends == ({"exhaustion"} if len(ranks) < n else {"end"})


def _strings(state: Any, n: int) -> list[str]:
    out = [str(state)]
    for p in range(n):
        out += [state.observation_string(p), state.information_state_string(p)]
    return out


@pytest.mark.parametrize(("params", "n", "ranks"), GAMES[:4])
@pytest.mark.parametrize("backend", ["interpreter", "engine"])
def test_out_of_play_cards_are_in_no_view_and_no_chance_node(params: dict[str, Any], n: int, ranks: set[int], backend: str) -> None:
    program, mod = engine("short_deck", {})
    game: Any = Game(program, n, params) if backend == "interpreter" else mod.load_game({"players": n, **params})
    r = rules()
    in_play = {c.cid for c in r.components_of("Card") if c.attrs["rank"] in ranks}
    names = {c.display for c in r.components_of("Card")}
    rng = random.Random(n)
    seen: set[str] = set()
    for _ in range(10):
        s = game.new_initial_state()
        first = True
        while not s.is_terminal():
            text = "\n".join(_strings(s, n))
            seen |= {name for name in names if f"{name}," in text or f"{name}\n" in text or f"{name}]" in text or text.endswith(name)}
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                if first:  # the first draw: every card in play, equally likely
                    assert {a for a, _ in outcomes} == in_play
                    assert all(abs(p - 1 / len(in_play)) < 1e-12 for _, p in outcomes)
                    first = False
                cards = {c.cid for c in r.components_of("Card")}
                assert {a for a, _ in outcomes} & cards <= in_play  # (a chip's draw gives chips)
                s.apply_action(rng.choice([a for a, _ in outcomes]))
            else:
                legal = s.legal_actions()
                if s.current_player() == 0 and not any(s.action_to_string(0, a).startswith("draw") for a in legal):
                    assert set(legal) == in_play  # "choose c from Card": the cards in play
                s.apply_action(rng.choice(legal))
        text = "\n".join(_strings(s, n))
        seen |= {name for name in names if name in text}
    shown = {r.components[c].display for c in in_play}
    # the cards in play are named (so the check below can fail), and no other is
    assert seen and seen <= shown, seen - shown
    assert f"card {max(ranks)}" in seen or len(ranks) > 6


def test_tensors_keep_their_size_and_out_of_play_cards_stay_zero() -> None:
    _, mod = engine("short_deck", {})
    small, large = mod.load_game({"players": 2, "num_cards": 2}), mod.load_game({"players": 2, "num_cards": 6, "bonus": True})
    assert small.observation_tensor_size() == large.observation_tensor_size()
    t_small, t_large = (g.new_initial_state().observation_tensor(0) for g in (small, large))
    # the public view of the deck: its count, then a position per card (hidden: all zero)
    assert t_small != t_large


def test_a_zone_and_a_variable_indexed_by_cards_have_no_entry_for_one_out_of_play() -> None:
    _, mod = engine("short_deck", {})
    r = rules()
    for backend in ("interpreter", "engine"):
        program, _ = engine("short_deck", {})
        g: Any = Game(program, 2, {"num_cards": 2}) if backend == "interpreter" else mod.load_game({"players": 2, "num_cards": 2})
        obs = g.new_initial_state().observation_string(0)
        assert "under[card 1]" in obs and "under[card 3]" not in obs and "under[card 9]" not in obs
    e = mod.load_game({"players": 2, "num_cards": 2}).new_initial_state()
    assert ("under", r.components_of("Card")[2].cid) not in e.zone_contents()
    assert ("marked", r.components_of("Card")[2].cid) not in e.variable_values()


def test_verify_finds_what_the_parameter_makes_happen() -> None:
    def findings(num_cards: int) -> dict[str, str]:
        o = Options(timeout=5.0, jobs=1, players=[3], params={"num_cards": num_cards}, random_games=20,
                    checks=frozenset({"exhaustion", "invariant"}))
        return {f"{f.kind}:{f.subject}": f.verdict for f in verify(rules(), o).findings}

    # two cards for three players: the third draw finds the deck empty (before the out-of-play
    # cards were kept out of the solver's one-place facts, this was "never happens")
    two, four, six = findings(2), findings(4), findings(6)
    assert two["exhaustion:deck"] == "happens" and two["invariant:four_cards"].startswith("holds")
    assert four.get("exhaustion:deck") != "happens" and four["invariant:four_cards"].startswith("holds")
    assert six.get("exhaustion:deck") != "happens" and six["invariant:four_cards"] == "broken"


def test_a_constant_cannot_name_cards_that_may_be_out_of_play() -> None:
    text = SHORT_DECK.replace('var marked[Card]: 0..1 = 0 "cards named"', 'var marked[Card]: 0..1 = 0 "cards named"\nvar named: set of Card = Card')
    loaded = load_text(text, "short_deck.rules")
    assert not loaded.ok
    assert [d.code for d in loaded.diagnostics.sorted() if d.is_error] == ["E0302"]


def test_the_player_count_in_a_guard_is_the_game_s() -> None:
    r = rules()
    bonus = [c.cid for c in r.components_of("Card") if c.attrs["rank"] >= 8]
    program = ir.bind(r, {})
    for n, out in ((2, False), (3, True)):
        m = Game(program, n, {"bonus": True}).new_initial_state()
        assert (set(bonus) <= m.machine.out) == out


def test_english_says_which_cards_are_in_play() -> None:
    lines = [line.text for sec in sections(rules()) for b in sec.blocks if b.formal == "Card" for line in b.lines]
    text = "\n".join(lines)
    assert "at most 8 Card cards" in text
    assert "those whose rank is 1 to “num cards” (how many cards the deck holds) are in play" in text
    assert "“card 8” to “card 9” are in play only when" in text and "out of the game" in text


def test_fmt_aligns_guarded_rows() -> None:
    text = SHORT_DECK.replace("  | 8..9         | when bonus and num_players < 3", "  | 8..9 |   when   bonus and num_players<3")
    assert format_text(text) == format_text(SHORT_DECK)
    assert "  | 8..9         | when bonus and num_players < 3\n" in format_text(text)


def test_deduce_refuses_a_card_seen_that_is_out_of_play() -> None:
    from rulecheck.verifier.deduction import Deducer, LogError, Seen

    _, mod = engine("short_deck", {})
    d = Deducer(mod, rules(), 2, {"num_cards": 3})
    assert d.deals == 3 * 2  # the two draws from the three cards in play
    d.see(Seen(1, "hand[Player 1]", ["card 3"]))
    assert len(d.worlds) == 2
    with pytest.raises(LogError, match="'card 4' is out of play"):
        Deducer(mod, rules(), 2, {"num_cards": 3}).see(Seen(1, "hand[Player 1]", ["card 4"]))
