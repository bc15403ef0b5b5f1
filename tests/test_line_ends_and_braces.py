"""Line ends and braces, as docs/language.md says, the same in every back end.

- A lone carriage return ends a line, as a line feed and CR LF do: a file with CR-only line ends
  reads like the same file with LF line ends (the comments end at the line end, the positions are
  the same), where before the whole file was one line and its first comment swallowed the rest.
- In every string ``\\{`` and ``\\}`` are braces. The texts that interpolate (say texts and the
  display texts of card and piece types) take ``{…}``; a lone brace there is an error; ``{{`` is
  no escape. Before, ``\\{rank\\}`` in a display text was interpolated.
"""

from __future__ import annotations

import random

import pytest

from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_bytes, load_text
from rulecheck.interpreter.play import play_random
from rulecheck.interpreter.state import Game

LF = """# a card game
game "Lines" {   # the title
  players 2..3
}

card Card "{rank}: \\{rank\\} {{x}}" { rank: 1..3 }

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank source "Three
    cards."
  | rank |
  | 1..3 |
}

flow {
  # each player draws
  for each p in players {
    draw 1 from deck to hand[p]
    say "\\{{seat(p)}\\} drew {{1, 2}} {size(hand[p])}"
  }
  end winners players
}
"""


def test_the_display_text_example() -> None:
    """The LF file above is valid, with its escapes as documented (the display's {{x}} aside)."""
    loaded = load_text(LF.replace(" {{x}}", ""), "lines.rules")
    assert loaded.ok, [d.message for d in loaded.diagnostics.items]
    assert loaded.rules is not None
    assert [c.display for c in loaded.rules.components] == ["1: {rank}", "2: {rank}", "3: {rank}"]


def test_a_double_brace_in_a_display_text_names_no_attribute() -> None:
    loaded = load_text(LF, "lines.rules")
    errors = [d for d in loaded.diagnostics.sorted() if d.is_error]
    assert [d.code for d in errors] == ["E0205"] and "'{x}'" in errors[0].message
    assert (errors[0].span.line, errors[0].span.col) == (6, 30)  # at the braces' text, inside the string


@pytest.mark.parametrize("text, message", [
    ('"rank {rank"', "never closed"),
    ('"rank } {rank}"', "without its '{'"),
])
def test_a_lone_brace_in_a_display_text(text: str, message: str) -> None:
    loaded = load_text(LF.replace(' {{x}}', "").replace('"{rank}: \\{rank\\}"', text), "lines.rules")
    errors = [d for d in loaded.diagnostics.sorted() if d.is_error]
    assert [d.code for d in errors] == ["E0102"] and message in errors[0].message


def program(text: str) -> ir.Program:
    loaded = load_text(text, "lines.rules")
    assert loaded.rules is not None and loaded.ok, [d.message for d in loaded.diagnostics.items]
    return ir.bind(loaded.rules, {})


def test_every_back_end_shows_the_same_texts() -> None:
    """The play log of the interpreter, the engine's action strings and observations, and the
    report show the braces as written."""
    p = program(LF.replace(" {{x}}", ""))
    log = play_random(p, 2, seed=1).text
    assert "{1} drew 1, 2 1" in log and "{2} drew 1, 2 1" in log  # {{1, 2}}: the set {1, 2}, shown
    mod = load_module(generate(p), "engine_braces")
    rng = random.Random(1)
    s, i = mod.load_game({"players": 2}).new_initial_state(), Game(p, 2).new_initial_state()
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        assert s.action_to_string(s.current_player(), a) == i.action_to_string(i.current_player(), a)
        assert "{rank}" in s.action_to_string(s.current_player(), a)
        s.apply_action(a)
        i.apply_action(a)
        assert s.observation_string(0) == i.observation_string(0)
    from rulecheck.reports.make import report_text

    assert "1: {rank}" in report_text(p.rules, [], "md")


@pytest.mark.parametrize("ends", ["\r", "\r\n"])
def test_every_line_end_reads_alike(ends: str) -> None:
    """CR alone and CR LF read as LF does: the same diagnostics at the same positions, the same
    rules, the same play."""
    broken = LF.replace(" {{x}}", "").replace("end winners players", "end winners playerz")
    other = broken.replace("\n", ends)
    a, b = load_text(broken, "lines.rules"), load_bytes(other.encode("utf-8"), "lines.rules")
    assert [(d.code, d.span, d.message) for d in a.diagnostics.sorted()] == [(d.code, d.span, d.message) for d in b.diagnostics.sorted()]
    assert [d.code for d in a.diagnostics.sorted()] == ["E0201"]
    good = LF.replace(" {{x}}", "")
    pa, pb = program(good), ir.bind(load_bytes(good.replace("\n", ends).encode("utf-8"), "lines.rules").rules, {})  # type: ignore[arg-type]
    assert play_random(pa, 3, seed=2).text == play_random(pb, 3, seed=2).text
    assert [q.text for q in pa.rules.kinds["Card"].provenance["rank"].source.quotes] == \
        [q.text for q in pb.rules.kinds["Card"].provenance["rank"].source.quotes] == ["Three cards."]  # type: ignore[union-attr]
