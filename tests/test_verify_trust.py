"""Findings a translator can trust: each test is a defect of an earlier verifier, made on a tiny
ruleset so that it runs in seconds. Readings that formalize one rule are a modelling defect,
never "harmless"; a rule only another reading reaches is not dead; a situation no rule settles
under another reading is shown under it; a declared question keeps its kind; every witness has
the table where its readings part."""

from __future__ import annotations

from functools import cache

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.reports.model import build_report
from rulecheck.verifier.findings import Finding
from rulecheck.verifier.verify import Options, verify


@cache
def rules_of(text: str) -> ir.Ruleset:
    loaded = load_text(text, "trust.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


def run(text: str, *kinds: str) -> list[Finding]:
    return verify(rules_of(text), Options(timeout=5.0, jobs=1, checks=frozenset(kinds) if kinds else None)).findings


SAME = """
game "Same" { players 2..3 source "The player with the highest token wins." }
card Tok "t{n}" { n: 1..6 }
table Tok in bag {
  given n source "six tokens"
  | n |
  | 1..6 |
}
zone bag: Tok hidden "the bag"
zone hand[player]: Tok public "a hand"
define worth(p: player) -> int "what a hand is worth" varies by spelling
define top -> int "the best hand" = max(worth(q) for q in players) source "The player with the highest token wins."
ambiguity spelling {
  kind translation
  source "The player with the highest token wins."
  reading plain default "The token's number." { define worth(p: player) -> int = sum(t.n for t in hand[p]) }
  reading doubled "The same, written twice as large and halved." { define worth(p: player) -> int = sum(2 * t.n for t in hand[p]) / 2 }
}
flow source "The player with the highest token wins." {
  for each p in players {
    draw from bag to hand[p]
  }
  end winners {p for p in players if worth(p) == top}
}
"""


def test_readings_that_formalize_one_rule_are_a_modelling_defect_not_harmless() -> None:
    (f,) = [f for f in run(SAME, "ambiguity") if f.kind == "ambiguity"]
    assert (f.verdict, f.status, f.severity) == ("same-rule", "static", "error")
    assert "not modelled" in f.message and "harmless" not in f.title
    assert f.declared == "translation"  # the kind the ruleset declares is kept
    report = build_report(rules_of(SAME), [f])
    (q,) = report.questions
    assert q.kind_label.startswith("Translation") and "Not modelled" in q.impact
    assert report.findings[0].kind_label.startswith("Translation")


OTHER = """
game "Other" { players 2..2 source "Draw a token; a 1 ends the game at once." }
card Tok "t{n}" { n: 1..4 }
table Tok in bag {
  given n source "four tokens"
  | n |
  | 1..4 |
}
zone bag: Tok hidden "the bag"
zone hand[player]: Tok public "a hand"
define lowest -> int "the lowest token drawn" varies by what_counts
ambiguity what_counts {
  kind gap
  source "Draw a token; a 1 ends the game at once."
  reading any default "Any token." { define lowest -> int = min(t.n for t in Tok if any(t in hand[p] for p in players)) }
  reading ones "Only ones count." { define lowest -> int = the(t.n for t in Tok if t.n == 1 and any(t in hand[p] for p in players)) }
}
flow source "Draw a token; a 1 ends the game at once." {
  for each p in players {
    draw from bag to hand[p]
  }
  if lowest > 4 source "Draw a token; a 1 ends the game at once." {
    end winners {player(2)}
  }
  end winners {player(1)}
}
"""


def test_a_rule_only_another_reading_reaches_is_said_so_not_dead() -> None:
    found = run(OTHER, "dead-rule", "incompleteness")
    dead = [f for f in found if f.kind == "dead-rule"]
    # lowest > 4 never holds under 'any' (tokens are 1..4), nor under 'ones': the then branch is dead,
    # and the claim says under which readings it was proven and what the other readings' games showed
    (then,) = [f for f in dead if "'then'" in f.title]
    assert then.verdict == "dead" and "under the default readings" in then.message and "other readings" in then.message
    # under 'ones', 'the' finds no 1 in most games: a situation no rule settles, shown under that reading
    under = [f for f in found if f.kind == "incompleteness" and f.details.get("under")]
    assert under and under[0].verdict == "happens" and under[0].details["under"] == "what_counts=ones"
    assert under[0].witness is not None and under[0].witness.plays[0].replayed


def test_readings_whose_values_differ_but_never_the_winners_are_harmless_not_the_same_rule() -> None:
    # doubling every hand's worth changes every value, never who has the most: proven harmless at
    # the end of the game (the values differ, so the rules are not one rule)
    (f,) = [f for f in run(SAME.replace("/ 2 }", "}"), "ambiguity") if f.kind == "ambiguity"]
    assert f.verdict == "harmless"


def test_every_witness_has_the_table_where_its_readings_part() -> None:
    text = SAME.replace("sum(2 * t.n for t in hand[p]) / 2 }", "0 - sum(t.n for t in hand[p]) }")  # the lowest wins
    (f,) = [f for f in run(text, "ambiguity") if f.kind == "ambiguity"]
    assert f.verdict in ("outcome", "moves") and f.witness is not None
    pos = f.witness.position
    assert pos is not None and pos.table and pos.longest <= 10 and len(pos.marks) == 2
    assert any(place.startswith("hand[") for place, _ in pos.table)


TALLY = """
game "Tally" { players 2..2 source "Player 1 may count up each round; at five the game ends. The tally stays below two." }
var tally: 0..5 = 0 "the tally"
invariant low "the tally stays below two" always: tally < 2 source "The tally stays below two."
flow source "Player 1 may count up each round; at five the game ends." {
  repeat until tally >= 5 {
    choose up from {true, false} by player(1) label "counts up"
    if up {
      set tally = tally + 1
    }
  }
  end winners {player(1)}
}
"""


def test_a_broken_invariant_is_shown_as_far_as_it_breaks_not_played_on() -> None:
    """The solver's game stops at the loop bound (3 passes) and breaks the invariant within it:
    the witness is that game, not one continued with random moves (before: played on to an end,
    thousands of moves in a game that may go on for ever)."""
    (f,) = [f for f in run(TALLY, "invariant") if f.kind == "invariant"]
    assert (f.verdict, f.status) == ("broken", "witness")
    assert f.witness is not None
    (play,) = f.witness.plays
    assert len(play.actions) <= 3
    assert play.outcome == "the game goes on; the witness stops here"
