"""The formal rules in plain English: every IR construct has a sentence form.

Golden files hold the whole rendering of Too Many Cinderellas and of a small ruleset written to use
every kind of expression and statement once; a test checks that the small ruleset really does, so
a new IR construct cannot go unrendered.
"""

from __future__ import annotations

import pytest
from conftest import ROOT

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path, load_text
from rulecheck.dsl.types import PLAYER
from rulecheck.dsl.walk import walk_exprs, walk_stmts
from rulecheck.reports import english

GOLDEN = ROOT / "tests" / "golden" / "reports"

# Every expression and statement kind of the IR, in a game that means nothing.
CONSTRUCTS = """game "Constructs" {
  edition "test edition"
  language "en"
  original "ja"
  players 2..3
  order counterclockwise
  source "Play to the right." @ja "右回りに遊ぶ。"
}

enum Suit "suit" { sun "Sun", moon "Moon" }
  source "There are two suits."

card Tile "Tile {n}" {
  n: 1..4 source "Tiles are numbered."
  suit: Suit
  weight: 0..9
}

table Tile in pile {
  given n source "Four tiles."
  assumed suit because "The suits are not printed in the rulebook."
  unspecified weight default 1 because "The weight is never given."
  | n | suit | weight |
  | 1 | sun  | ?      |
  | 2 | moon | ?      |
  | 3 | sun  | ?      |
  | 4 | moon | ?      |
}

zone pile: Tile hidden "the pile"
zone hand[player]: Tile owner "the tiles a player holds"
zone middle: Tile public

var points[player]: int = 0 score "the points of a player"
var rounds: 0..10 = 0 hidden "the number of rounds played"
var flag: bool = false

param target: 1..20 assumed 5 because "The rulebook does not say how many points win." "the points needed to win"
param bonus: 0..30 unspecified default 2 because "The bonus is never given."

define big(t: Tile) -> bool "tile t is big" = t.n >= 3 and not (t.n == 4) or t.n != 2 and t.n <= 1
define worth(t: Tile) -> int "the worth of t" {
  case base: t.n < 4 => t.n * 2 + bonus - t.n / 2 % 3
  case heavy overrides base: t.weight > 5 => -t.n
  otherwise => 0
}
define suit_word(s: Suit) -> int = match s { sun => 1 }
define kind_of(n: int) -> int "the kind of number n" = match n {
    1 | 2 => 10
    3..4 => 20
  }
define leader -> player "the leader" = the(p for p in players if all(points[q] <= points[p] for q in players if q != p))
define spread -> int "the spread" = max(points[p] for p in players) - min(points[p] for p in players) + abs(-3) + max(1, 2) + min(3, 4)
define tally -> int = sum(t.n for t in middle) + count(t for t in pile if big(t)) + size({1, 2} + {3} - {2}) + max({4, 5})
define beside(p: player) -> set of player "the players beside p" = {next(p), prev(p)}
define neighbours_of(p: player) -> set of Spot "the spots beside p" = neighbours(at[p])
define seat_one -> player = player(seat(player(1)))
define open_tiles -> set of Tile = if num_players > 2 then {t for t in Tile if t.n in 1..3} else {}
define any_big -> bool "some tile in the middle is big" = any(big(t) for t in middle)
define rule_x -> bool "the rule that varies" varies by amb_x
define in_middle(t: Tile) -> bool "tile t lies in the middle" = where(t) == place(middle) or where(t) == place(hand[player(1)])

question holds(q: player) "What do you hold?" source "Ask what a player holds." {
  answer a: Tile from Tile
  true when a in hand[q]
}

enum Ground { road, gate }

board Spot "spot of the track" {
  assumed because "The track is only pictured."
  ground: Ground
  | space | label      | ground |
  | here  | "the start" | road  |
  | door  | "the door"  | gate  |
  | there | "the end"   | road  |
  link here - door - there
}

var at[player]: Spot = here "where a player stands"

record notes[player] { spot: Spot, felt: int = 0 } owner "what a player notes down"

procedure deal(p: player) "deal to p" source "Deal one tile each."
{
  draw 1 from pile to hand[p] as got
  say "{p} gets {got}"
  observe sum(t.n for t in hand[p]) by p as rough within 1 label "feels the tiles"
  observe points[p] by p than 3 label "compares the points"
  observe at[p] by next(p) label "looks at the spot"
  if adjacent(at[p], door) and door in neighbours_of(p) and distance(at[p], there, Spot) > 0 and size(steps(at[p], 1, {here, there}, {door})) > 0 and at[p].ground == road {
    append {spot: at[p], felt: rough} to notes[p]
  }
  if size(notes[p]) > 0 and all(notes[p][i].felt >= -1 for i in entries(notes[p])) {
    say "noted"
  }
}

procedure round() "one round"
{
  shuffle pile source "Shuffle the pile."
  for each p in players from player(1) {
    deal(p)
  }
  reveal {t for t in hand[player(1)]} to {player(2)} source "Player 2 looks."
  ask holds(player(1)) by player(1) as said truth when flag lie when not flag label "answers"
  choose each q in players: pick from hand[q] label "plays" secret
  for each q in players {
    move pick[q] to middle
  }
  choose t from middle by leader label "takes" secret
  let n = worth(t)
  set n = n + 1
  set points[leader] = points[leader] + n
  set flag = true
  if rule_x {
    say "x"
  } else if any_big {
    say "big"
  } else source "Otherwise nothing."
  {
    say "nothing"
  }
  set rounds = rounds + 1
}

flow source "The game." {
  repeat 2 times {
    round()
  }
  repeat until rounds >= 3 {
    round()
  }
  while size(pile) > 0 and rounds < 10 {
    round()
  }
  end winners {leader}
}

ambiguity amb_x {
  kind ambiguity
  source "The rule may apply." @ja "規則が適用されるかもしれない。"
  question "Does the rule apply?"
  reading yes default "It applies." clarify "The rule always applies."
  {
    define rule_x -> bool = true
  }
  reading no "It does not." clarify "The rule never applies."
  {
    define rule_x -> bool = false
  }
}

invariant bounded "rounds stay small" always: rounds <= 10
invariant someone "somebody wins" at end: size(winners) >= 1 source "Someone wins."

term "tile" @ja "タイル" means "a numbered piece" source "Tiles are numbered."
term "扉" reading "tobira" @en "door" means "the gate of the track"

outside knack "the knack of feeling tiles" because "a matter of the fingers"
"""


def constructs() -> ir.Ruleset:
    loaded = load_text(CONSTRUCTS, "constructs.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


def cinderella() -> ir.Ruleset:
    loaded = load_path(ROOT / "rulesets" / "cinderella.rules")
    assert loaded.ok and loaded.rules is not None
    return loaded.rules


def _bodies(rules: ir.Ruleset) -> list[list[ir.Stmt]]:
    procs = list(rules.procs.values()) + [p for a in rules.ambiguities.values() for r in a.readings for p in r.procs.values()]
    return [rules.flow] + [p.body for p in procs if p.body]


def _exprs(rules: ir.Ruleset) -> list[ir.Expr]:
    defs = list(rules.defs.values()) + [d for a in rules.ambiguities.values() for r in a.readings for d in r.defs.values()]
    roots: list[object] = [*_bodies(rules), *(i.expr for i in rules.invariants)]
    for d in defs:
        roots += [d.body, d.otherwise, *(c.guard for c in d.cases or []), *(c.value for c in d.cases or [])]
    return [e for r in roots if r is not None for e in walk_exprs(r)]


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        out.add(sub)
        out |= _subclasses(sub)
    return out


def test_the_constructs_ruleset_uses_every_ir_construct() -> None:
    rules = constructs()
    stmts = {type(s) for body in _bodies(rules) for s in walk_stmts(body)}
    exprs = _exprs(rules)
    assert stmts == _subclasses(ir.Stmt)
    assert {type(e) for e in exprs} == _subclasses(ir.Expr)
    ops = {e.op for e in exprs if isinstance(e, (ir.BinOp, ir.Unary, ir.Builtin, ir.Agg))}
    assert set(ir.AGGREGATES) | set(ir.BUILTINS_0) | set(ir.BUILTINS_1) | set(ir.BUILTINS_2) <= ops
    binops = {"and", "or", "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "union", "diff", "not", "neg"}
    assert binops <= ops


def test_english_rendering_of_every_construct(golden) -> None:  # type: ignore[no-untyped-def]
    golden(GOLDEN / "constructs.english.txt", english.to_text(english.sections(constructs())))


def test_english_rendering_of_cinderella(golden) -> None:  # type: ignore[no-untyped-def]
    golden(GOLDEN / "cinderella.english.txt", english.to_text(english.sections(cinderella())))


def _block(rules: ir.Ruleset, anchor: str) -> english.Block:
    for sec in english.sections(rules):
        for b in sec.blocks:
            if b.anchor == anchor:
                return b
    raise AssertionError(anchor)


def test_an_override_reads_as_except_when_and_cites_its_own_sentence() -> None:
    b = _block(cinderella(), "def-higher")
    assert b.heading == "Card a is higher-ranked than card b"
    assert b.lines[0].text.startswith("Normally (case “printed”): yes exactly when a's rank is less than b's rank")
    assert b.lines[1].text.startswith("Except when information 18 is valid")
    assert "which overrides “printed”" in b.lines[1].text
    assert b.lines[1].source is not None and b.lines[1].source.text.startswith("Card rank becomes upside down.")
    assert b.lines[-1].text == "When no case applies, no rule decides."


def test_a_varying_definition_gives_every_reading_with_its_variant() -> None:
    b = _block(cinderella(), "def-valid")
    texts = [(line.depth, line.text) for line in b.lines]
    assert texts[0] == (0, "The rulebook can be read in 2 ways here (open question “status_after_determination”):")
    assert texts[1][1].startswith("Reading “chips_decide”, the default:")
    assert texts[2] == (2, "Yes exactly when the number of Chips in the NO! chips lying on an informant (for i) is 0.")
    assert texts[3][1].startswith("Reading “fixed”:")
    assert texts[4] == (2, "Yes exactly when the determination found the information valid (for i).")


def test_descriptions_take_their_arguments() -> None:
    rules = cinderella()
    b = _block(rules, "def-best_card")
    # higher(c, d): "card a is higher-ranked than card b" names both formals once
    assert "card c is higher-ranked than card d" in b.lines[0].text
    # hand[q]: "the cards a player holds" has the phrase for a player
    assert english.English(rules).zone_phrase("hand", ir.Local(PLAYER, b.span, "q")) == "the cards q holds"
    # presents_before(c, d): its description names "a" twice, so the arguments are listed instead
    best_of = _block(rules, "def-best_of")
    assert "“a player whose two cards both meet presents a rather than b” holds for a = c and b = d" in best_of.lines[0].text


@pytest.mark.parametrize("visibility, words", [
    ("public", "Everyone can see"), ("owner", "Only its owner can see"), ("hidden", "Nobody can see"),
])
def test_zone_visibility_is_said(visibility: str, words: str) -> None:
    rules = cinderella()
    zone = next(z for z in rules.zones.values() if z.visibility == visibility)
    b = _block(rules, f"zone-{zone.name}")
    assert any(words in line.text for line in b.lines)
