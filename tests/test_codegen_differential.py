"""Differential tests: the generated engine against the reference interpreter, move by move.

Both back ends play the same random games; after every step they must agree on the current
player, the legal actions of every player, chance outcomes, action strings, observations of every
player and of the table, returns and history, and on every rule error (kind, message, position).
Information states are compared at a sample of steps (they replay the game, so they are costly).

KITCHEN_SINK is a ruleset that uses every construct of the language Cinderella does not (params,
unspecified columns, counterclockwise order, while / repeat until, int sets, enum-, component- and
range-indexed zones and variables, owner and hidden variables, secret choices, empty simultaneous
decisions, cases with overrides, conflicts and gaps, match failures, division, exhaustion...).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT

from rulecheck.codegen.compiler import Compiler
from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path, load_text
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game
from rulecheck.verifier.verify import Options, verify

KITCHEN_SINK = r'''# A test game that uses every construct of the rules language (for the code generator's tests).

game "Kitchen Sink" {
  edition "test"
  players 2..4
  order counterclockwise
  source "Play goes to the right."
}

enum Suit "suit" { red "Red", blue "Blue", green "Green" }
enum Mode "mode" { quick "Quick", slow "Slow" }

card Tile "{suit} {value}" {
  value: 0..4
  suit: Suit
  marks: set of Suit
  lucky: bool
  bonus: int
  note: text
}

piece Token "token {id}" {
  id: 1..6
}

table Tile in bag {
  given value, suit, marks, lucky, note source "The tiles."
  unspecified bonus default 1 because "The rulebook does not say what a lucky tile is worth."
  | value | suit  | marks       | lucky | bonus | note             |
  | 0..4  | red   | {red}       | false | ?     | "red tile"       |
  | 0..4  | blue  | {blue, red} | false | ?     | "a \"blue\" one" |
  | 1..3  | green | {}          | true  | ?     | "green\\lucky"   |
  | 2     | *     | {green}     | false | ?     | "two"            |
}

table Token in supply {
  given id source "Six tokens."
  | id   |
  | 1..6 |
}

zone bag: Tile hidden "the bag" source "Tiles are drawn from the bag."
zone hand[player]: Tile owner "a hand"
zone pile: Tile public "the pile"
zone vault[Suit]: Tile public "one vault per suit"
zone under[Tile]: Token public "tokens under a tile"
zone supply: Token public "the token supply"
zone stash[player]: Token hidden "a face-down stash"
zone slot[1..3]: Token public "three slots"
zone box: Tile, Token hidden "the box"

var score[player]: int = 0 score "points"
var bid[player]: 0..9 = 0 owner "a player's last bid"
var secret_total: int = 0 hidden "the sum of all bids"
var round: 0..20 = 0 "the round"
var seen: set of Suit = {} "suits played"
var per_suit[Suit]: int = 0 "tiles played per suit"
var flag[1..3]: bool = false "flags by round"
var motto: text = "go" "a text"
var picked: set of 0..9 = {} "bids made"
var holders[Tile]: set of player = {} "who played a tile"
var last_call: Suit = red "the last suit called"

param rounds: 1..4 = 2 "rounds to play"
param mode: Mode assumed quick because "The rulebook suggests the quick game first."
param generous: bool unspecified default true because "The rulebook does not say."

define first -> player = player(1) source "Player 1 starts."
define points(t: Tile) -> int = t.value * 2 + (if t.lucky then t.bonus else 0) - (if blue in t.marks then 1 else 0)
define hand_value(p: player) -> int = sum(points(t) for t in hand[p])
define top -> int = max(score[p] for p in players)
define bottom -> int = min(score[p] for p in players)
define leaders -> set of player = {p for p in players if score[p] == top}
define anyone_lucky -> bool = any(t.lucky for t in pile)
define all_red -> bool = all(red in t.marks for t in pile)
define big_count -> int = count(t for t in pile if t.value >= 3)
define values_seen -> set of 0..9 = {t.value for t in pile}
define parity(p: player) -> int = seat(p) % 2
define spread -> int = abs(top - bottom) / max(1, num_players - 1)
define best_tile(s: set of Tile) -> Tile = the(t for t in s if all(u == t or points(u) < points(t) for u in s))
define suit_rank(s: Suit) -> int = match s { red => 1  blue => 2 }
define band(x: int) -> int = match x { 0 => 10  1 | 2 => 20  3..5 => 30  else => 40 }
define gappy(x: int) -> int = match x { 0 => 1  2 | 7 => 2  3..5 => 3  9 => 4  6 => 5  12 => 6 }
define shade(s: Suit) -> int = match s { green => 3  red => 1  blue => 2 }

define word(x: int) -> text "a word for a number" {
  case low: x >= 0 and x < 3 => "low"
  case mid: x >= 3 and x < 6 => "mid"
  case high overrides mid: x >= 5 => "high"
  case huge overrides high: x >= 8 => "huge"
  otherwise => "negative"
}

define tile_bonus(t: Tile) -> int "a bonus whose cases can conflict or miss" {
  case red_mark: red in t.marks => 1
  case blue_mark: blue in t.marks => 2
  case lucky: t.lucky => 1
}

define giver_target(p: player) -> set of player varies by giving

procedure give(p: player) varies by giving

procedure setup() source "Deal two tiles to everyone." {
  shuffle bag
  for each p in players from first {
    draw 2 from bag to hand[p]
  }
  draw from bag to pile as opener
  draw num_players - 1 from bag to pile
  say "the opener is {opener}"
  move {x for x in Token if x.id <= 3} to slot[1]
  move the(x for x in supply if x.id == 4) to slot[3]
  let k = size(pile)
  set k = k + 1
  if k >= 0 {
    set k = k + 10
  }
  set motto = if k >= 10 then "leaked" else "kept"
}

procedure turn(p: player) source "A turn." {
  if size(hand[p]) == 0 {
    say "{p} has nothing"
  } else {
    choose t from hand[p] by p label "plays"
    move t to pile
    set per_suit[t.suit] = per_suit[t.suit] + 1
    set seen = seen + {t.suit}
    set holders[t] = holders[t] + {p}
    set motto = t.note
    if t.value >= 3 {
      choose s from Suit by p label "calls"
      set last_call = s
      move t to vault[s]
    } else if t.lucky {
      choose keep from {true, false} by p label "keeps luck"
      if keep {
        set score[p] = score[p] + 2
      }
    } else {
      give(p)
    }
    set score[p] = score[p] + points(t)
    if size(bag) > 0 {
      draw from bag to hand[p]
    }
  }
}

procedure bids() source "Everyone with tiles bids in secret." {
  let bidders = {q for q in players if size(hand[q]) > 0}
  choose each q in bidders: b from 0..3 label "bids" secret
  let nums = {}
  let acc = {}
  for each q in bidders from first {
    set bid[q] = b[q]
    set secret_total = secret_total + b[q]
    set picked = picked + {b[q]}
    set nums = nums + {b[q] + 10}
    set acc = acc + {q}
  }
  if size(bidders) > 0 {
    let high = max(b[q] for q in bidders)
    let tops = {q for q in bidders if b[q] == high}
    if size(tops) == 1 and size(supply) > 0 {
      move the(x for x in supply if x.id == min(y.id for y in supply)) to stash[the(q for q in tops)]
    }
  }
  choose each q in {q for q in players if score[q] > 1000}: none from {true} label "never"
  if mode == slow and generous {
    set secret_total = secret_total + b[first]
  }
}

procedure tokens() source "Tokens move along." {
  while size(slot[1]) > 0 and size(slot[2]) < 2 {
    choose x from slot[1] by first label "slides"
    move x to slot[2]
  }
  repeat until size(slot[2]) == 0 or size(pile) == 0 {
    choose tile from pile by prev(first) label "covers"
    move slot[2] to under[tile]
  }
  repeat 2 times {
    if size(supply) > 0 {
      draw from supply to slot[2]
    }
  }
  if round <= 3 {
    set flag[round] = not flag[round]
  }
}

procedure scoring() source "Scores at the end of a round." {
  for each p in players {
    set score[p] = score[p] + parity(p) + band(hand_value(p)) / 10 + gappy(round + 2) + shade(last_call)
    if mode == slow {
      set score[p] = score[p] + gappy(hand_value(p) % 11 - 3) + suit_rank(last_call) + tile_bonus(best_tile(hand[p] + pile))
    }
  }
  if anyone_lucky and not all_red and big_count > 0 and size(values_seen) > 1 {
    set secret_total = secret_total - spread
  }
  say "scores {word(top)} {word(bottom - 100)} {top} {leaders}"
}

flow source "Play the rounds." {
  setup()
  repeat until round >= rounds {
    set round = round + 1
    for each p in players from first {
      turn(p)
      if score[p] >= 40 {
        end winners {p}
      }
    }
    bids()
    tokens()
    scoring()
  }
  if word(top) == "huge" {
    end winners leaders
  }
  end winners {p for p in players if score[p] == top or next(p) == first and prev(p) != first}
}

ambiguity giving {
  kind gap
  source "Give a tile to another player."
  question "To whom?"
  reading left default "The player to the left."
  {
    define giver_target(p: player) -> set of player = {next(p)}
    procedure give(p: player) {
      choose target from giver_target(p) by p label "gives to"
      if size(bag) > 0 {
        draw from bag to hand[target]
      }
    }
  }
  reading anyone "Anyone else."
  {
    define giver_target(p: player) -> set of player = players - {p}
    procedure give(p: player) {
      choose target from giver_target(p) by p label "gives to" secret
      draw 1 from bag to hand[target]
    }
  }
}
'''


# ---- building engines -----------------------------------------------------------------------------


#: rulesets written in tests, by name (other test modules add theirs)
TEXTS: dict[str, tuple[str, str]] = {"kitchen_sink": (KITCHEN_SINK, "kitchen_sink.rules")}


@cache
def ruleset(name: str) -> ir.Ruleset:
    """A shipped ruleset by file name, or one written in the tests."""
    loaded = load_text(*TEXTS[name]) if name in TEXTS else load_path(ROOT / "rulesets" / name)
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


@cache
def _engine(name: str, readings: tuple[tuple[str, str], ...]) -> tuple[ir.Program, ModuleType]:
    program = ir.bind(ruleset(name), dict(readings))
    return program, load_module(generate(program), f"engine_{name.split('.')[0]}")


def engine(name: str, readings: dict[str, str]) -> tuple[ir.Program, ModuleType]:
    return _engine(name, tuple(sorted(readings.items())))


def reading_combinations(rules: ir.Ruleset, k: int, seed: int) -> list[dict[str, str]]:
    """k combinations: the defaults, then random ones in which every reading of every ambiguity
    appears at least once (each ambiguity cycles through its readings from a random start)."""
    rng = random.Random(seed)
    combos: list[dict[str, str]] = [rules.default_readings()]
    starts = {a.name: rng.randrange(len(a.readings)) for a in rules.ambiguities.values()}
    for i in range(k - 1):
        combo = {}
        for a in rules.ambiguities.values():
            order = list(a.readings)
            random.Random(f"{seed}/{a.name}").shuffle(order)
            combo[a.name] = order[(starts[a.name] + i) % len(order)].name
        combos.append(combo)
    return combos


# ---- one game on both back ends ---------------------------------------------------------------


def same_error(a: RuleError, b: Any) -> None:
    assert (b.kind, b.message, b.line, b.column) == (a.kind, a.message, a.span.line, a.span.col)


def compare_info_states(i: Any, e: Any, n: int, mod: ModuleType) -> None:
    for p in range(n):
        try:
            expected = i.information_state_string(p)
        except RuleError as err:
            with pytest.raises(mod.RuleError) as got:
                e.information_state_string(p)
            same_error(err, got.value)
            continue
        assert e.information_state_string(p) == expected


def compare_state(i: Any, e: Any, n: int, strings: bool = True) -> None:
    assert e.current_player() == i.current_player()
    assert e.is_terminal() == i.is_terminal()
    assert e.is_chance_node() == i.is_chance_node()
    assert e.is_simultaneous_node() == i.is_simultaneous_node()
    assert e.returns() == i.returns()
    assert e.pending_question() == i.pending_question()
    assert e.answers() == i.answers()
    assert e.turns() == i.turns()
    if strings or i.is_terminal():
        assert e.history() == i.history()
        assert str(e) == str(i)
        for p in range(n):
            assert e.observation_string(p) == i.observation_string(p)
    if i.is_terminal():
        return
    assert e.chance_outcomes() == i.chance_outcomes()
    if i.is_simultaneous_node():
        for q in range(n):
            legal = i.legal_actions(q)
            assert e.legal_actions(q) == legal
            for a in legal:
                assert e.action_to_string(q, a) == i.action_to_string(q, a)
        return
    legal = i.legal_actions()
    assert e.legal_actions() == legal
    for q in range(n):
        assert e.legal_actions(q) == i.legal_actions(q)
    who = max(i.current_player(), 0)
    for a in legal:
        assert e.action_to_string(who, a) == i.action_to_string(who, a)


def play_both(
    name: str, readings: dict[str, str], n: int, seed: int, params: dict[str, Any] | None = None, info_states: bool = False, strings_every: int = 1,
    max_steps: int = 5000, module: ModuleType | None = None,
) -> str:
    """A random game on the interpreter and the engine (or ``module``, an engine of the same
    program), compared after every step (observation strings every ``strings_every`` steps and at
    the end); returns how it ended ("end", the kind of the rule error, or "long" after
    ``max_steps``)."""
    program, mod = engine(name, readings)
    mod = module or mod
    rng = random.Random(seed)
    game = Game(program, n, params)
    eng = mod.load_game({"players": n, **(params or {})})
    try:
        i = game.new_initial_state()
    except RuleError as err:
        with pytest.raises(mod.RuleError) as got:
            eng.new_initial_state()
        same_error(err, got.value)
        return err.kind
    e = eng.new_initial_state()
    info_step = rng.randrange(40) if info_states else -1
    step = 0
    while True:
        compare_state(i, e, n, step % strings_every == 0)
        if step == info_step or (info_states and i.is_terminal()):
            compare_info_states(i, e, n, mod)
        if i.is_terminal():
            return "end"
        if step == max_steps:
            return "long"
        joint: list[int] | None = None
        action = 0
        if i.is_simultaneous_node():
            joint = [rng.choice(i.legal_actions(q)) for q in range(n)]
        else:
            action = rng.choice(i.legal_actions())
        try:
            apply(i, action, joint)
        except RuleError as err:
            with pytest.raises(mod.RuleError) as got:
                apply(e, action, joint)
            same_error(err, got.value)
            compare_state(i, e, n)
            if info_states:
                compare_info_states(i, e, n, mod)
            return err.kind
        apply(e, action, joint)
        step += 1


def apply(state: Any, action: int, joint: list[int] | None) -> None:
    if joint is not None:
        state.apply_actions(list(joint))
    else:
        state.apply_action(action)


# ---- Too Many Cinderellas: 576 games over 8 combinations of readings and 2, 3, 4 players -------

CINDERELLA_COMBOS = 8
GAMES_PER_COMBO_AND_COUNT = 24


def test_reading_combinations_use_every_reading() -> None:
    for name in ("cinderella.rules", "loving_penguin.rules"):
        rules = ruleset(name)
        combos = reading_combinations(rules, CINDERELLA_COMBOS, seed=7)
        for a in rules.ambiguities.values():
            assert {c[a.name] for c in combos} == {r.name for r in a.readings}, a.name


@pytest.mark.parametrize("combo", range(CINDERELLA_COMBOS))
def test_cinderella_engine_matches_interpreter(combo: int) -> None:
    readings = reading_combinations(ruleset("cinderella.rules"), CINDERELLA_COMBOS, seed=7)[combo]
    ends = set()
    for n in (2, 3, 4):
        for g in range(GAMES_PER_COMBO_AND_COUNT):
            ends.add(play_both("cinderella.rules", readings, n, seed=10_000 * combo + 100 * n + g, info_states=g % 7 == 0))
    assert "end" in ends


# ---- the kitchen sink: every other construct, game options, rule errors -----------------------

KITCHEN_PARAMS: list[dict[str, Any]] = [
    {},
    {"mode": 1, "rounds": 3, "Tile.bonus": 3},
    {"rounds": 4, "generous": False, "Tile.bonus": {14: 5, 15: 0}},
    {"mode": 1, "rounds": 1},
]


@pytest.mark.parametrize("reading", ["left", "anyone"])
def test_kitchen_sink_engine_matches_interpreter(reading: str) -> None:
    ends: dict[str, int] = {}
    for k, params in enumerate(KITCHEN_PARAMS):
        for n in (2, 3, 4):
            for g in range(10):
                end = play_both("kitchen_sink", {"giving": reading}, n, seed=1000 * k + 10 * n + g, params=params, info_states=g % 3 == 0)
                ends[end] = ends.get(end, 0) + 1
    # the games reach the end and run into rule gaps of several kinds, all compared
    assert ends.get("end", 0) > 10
    assert len(ends) >= 3, ends


# ---- Loving Penguin ---------------------------------------------------------------------------


@pytest.mark.parametrize("combo", range(4))
def test_loving_penguin_engine_matches_interpreter(combo: int) -> None:
    # long games with long observations: the strings are compared at every fifth step
    rules = ruleset("loving_penguin.rules")
    readings = reading_combinations(rules, 8, seed=7)[combo * 2: combo * 2 + 2]
    for j, chosen in enumerate(readings):
        for n in range(rules.game.min_players, rules.game.max_players + 1):
            play_both("loving_penguin.rules", chosen, n, seed=100 * combo + 10 * j + n, info_states=n == 2 and j == 0, strings_every=5, max_steps=1500)


# ---- the two editions of a game of statements: questions, answers, reveals, targets -------------


@pytest.mark.parametrize("name", ["prince_mochi.rules", "tofu_kingdom.rules"])
@pytest.mark.parametrize("combo", range(3))
def test_editions_engines_match_interpreter(name: str, combo: int) -> None:
    rules = ruleset(name)
    readings = reading_combinations(rules, 3, seed=11)[combo]
    program, mod = engine(name, readings)
    ends = set()
    for n in range(rules.game.min_players, rules.game.max_players + 1):
        ends.add(play_both(name, readings, n, seed=100 * combo + n, info_states=n % 2 == 0, strings_every=4))
        # the targets' values agree too, at the start of a game's first decision
        game = Game(program, n)
        i, e = game.new_initial_state(), mod.load_game({"players": n}).new_initial_state()
        while i.is_chance_node():
            a = i.legal_actions()[0]
            i.apply_action(a)
            e.apply_action(a)
        for t in rules.targets:
            assert e.target_value(t.name) == i.target_value(t.name)
    assert "end" in ends


# ---- two behaviours of the interpreter the engine mirrors, which look like bugs ------------------

LOCALS = """
game "Locals" { players 2..2 source "x" }
var out: int = 0 "x" source "x"
flow source "x" {
  %s
  set out = k
  end winners {p for p in players if out == 3}
}
"""


def _final_out(body: str) -> tuple[Any, Any]:
    loaded = load_text(LOCALS % body, "locals.rules")
    assert loaded.ok and loaded.rules is not None
    program = ir.bind(loaded.rules, {})
    mod = load_module(generate(program), "engine_locals")
    try:
        interp = Game(program, 2).new_initial_state().machine.vars["out"]
    except RuleError as err:
        interp = err.kind
    try:
        eng = mod.load_game({"players": 2}).new_initial_state().variable_values()[("out", None)]
    except mod.RuleError as err:
        eng = err.kind
    assert eng == interp  # whatever the interpreter does, the engine does the same
    return interp, eng


def test_set_of_a_local_inside_a_loop_is_kept() -> None:
    interp, _ = _final_out("let k = size(players)\n  repeat 3 times source \"x\" { set k = k + 1 }\n  set k = k - 2")
    assert interp == 3


def test_a_local_bound_to_a_number_can_change() -> None:
    interp, _ = _final_out("let k = 0\n  set k = 3")
    assert interp == 3


# ---- the step budget --------------------------------------------------------------------------

ENDLESS = """
game "Endless" { players 2..2 source "x" }
enum Side { heads "heads", tails "tails" }
var flips: int = 0 "x" source "x"
flow source "x" {
  choose side from Side by player(1) label "calls"
  if side == heads {
    while true {
      set flips = flips + 1
    }
  }
  end winners players
}
"""


def test_step_budget_stops_an_endless_loop_at_the_same_statement() -> None:
    """2,000,000 statements without a decision: both back ends stop at the same statement with
    the same state (the interpreter takes a few seconds to get there)."""
    TEXTS["endless"] = (ENDLESS, "endless.rules")
    program, mod = engine("endless", {})
    i = Game(program, 2).new_initial_state()
    e = mod.load_game({"players": 2}).new_initial_state()
    with pytest.raises(RuleError) as expected:
        i.apply_action(0)
    with pytest.raises(mod.RuleError) as got:
        e.apply_action(0)
    same_error(expected.value, got.value)
    assert expected.value.kind == "nontermination"
    assert str(e) == str(i)  # the same number of flips when it stopped
    # the other branch ends normally
    i, e = Game(program, 2).new_initial_state(), mod.load_game({"players": 2}).new_initial_state()
    i.apply_action(1)
    e.apply_action(1)
    compare_state(i, e, 2)
    assert e.is_terminal()


# ---- definitions of variables of few values: tables computed when the engine is generated ------

SMALL_VALUES = r'''
game "Small Values" { players 2..3 source "x" }
enum Mood "mood" { calm "Calm", bold "Bold", wild "Wild" }
var level: 0..9 = 0 "the lowest bid allowed" source "x"
var mood: Mood = calm "the table's mood" source "x"
var open: bool = true "whether odd bids are allowed" source "x"
var total[player]: int = 0 score "points" source "x"
define bids -> set of 0..9 "what a player may bid" = {b for b in 0..9 if b >= level and (open or b % 2 == 0)}
  source "x"
define gain(high: bool) -> int "points for a bid" = if mood == wild then 5 else (if high then level + 2 else 1)
  source "x"
define top_bid -> int "the highest bid allowed (none where no bid is)" = max(bids)
  source "x"
define fraction -> int "fails at level 0" = 10 / level
  source "x"
target next_bids "what the next player may bid" at "bids": bids
flow source "x" {
  repeat 6 times {
    for each p in players {
      choose b from bids by p label "bids"
      set total[p] = total[p] + gain(b > 4)
      set level = if b == top_bid and mood == calm then 0 else b
      choose m from {x for x in Mood if (x != wild or open) and (x != bold or total[p] > 3)} by p label "moods"
      set mood = m
      choose o from {true, false} by p label "opens"
      set open = o
      if level > 0 {
        set total[p] = total[p] + fraction
      }
    }
  }
  end winners {p for p in players if total[p] == max(total[q] for q in players)}
}
'''


def test_definitions_of_few_valued_variables_are_tables_and_play_alike() -> None:
    """A definition that reads only variables of few values (a small number, an enum, a boolean)
    and its arguments is a table indexed by them; one whose value fails for some of them (a
    division by zero, the largest of no bids) is computed as before.  So are the members of a
    set that pass a test which reads the state only through parts of few values.  Random games, the targets'
    values and the errors (no bid left) agree with the interpreter."""
    TEXTS["small_values"] = (SMALL_VALUES, "small_values.rules")
    program, mod = engine("small_values", {})
    tables = Compiler(program).var_tables
    assert {name: read for name, (_, read) in tables.items()} == {
        "bids": ["level", "open"], "gain": ["level", "mood"], "target.next_bids": ["level", "open"]}
    source = generate(program)
    # a set of small numbers is a mask: the options are its bits, its largest the highest bit
    assert "_SORTED[" not in source and ".bit_length() - 1)" in source
    # the moods allowed: a table indexed by the truth of the two tests of the state
    assert re.search(r"= \(7 & _K\d+\[V\[\d+\]\]\[\(V\[\d+ \+ \w+\] > 3\)\]\)", source), source
    ends = {play_both("small_values", {}, n, seed=seed, info_states=seed % 2 == 0) for n in (2, 3) for seed in range(40)}
    assert ends == {"end", "incomplete"}  # some games end, some run out of bids (level 9, even bids only)
    rules = ruleset("small_values")
    for seed in range(20):
        rng = random.Random(seed)
        i, e = Game(program, 2).new_initial_state(), mod.load_game({"players": 2}).new_initial_state()
        for _ in range(12):
            for t in rules.targets:
                assert e.target_value(t.name) == i.target_value(t.name)
            a = rng.choice(i.legal_actions())
            try:
                i.apply_action(a)
            except RuleError:
                break  # (no bid left: compared by play_both)
            e.apply_action(a)



BEST_OF = r'''
game "Best Of" { players 2..4 source "x" }
var total[player]: int = 0 score "points" source "x"
define beats(a: int, b: int) -> bool "a beats b: a 1 beats 2 to 5, a 6 beats the 1"
  = if a == 1 then b in 2..5 else (if b == 1 then a == 6 else a > b)
  source "x"
define best(s: set of 1..6) -> set of 1..6 "the highest numbers of a set (none where several beat each other)"
  = {x for x in s if all(y == x or beats(x, y) for y in s)}
  source "x"
flow source "x" {
  repeat 5 times {
    choose each q in players: bid from 1..6 label "bids"
    let w = best({bid[q] for q in players})
    for each p in players {
      if bid[p] in w {
        set total[p] = total[p] + 1
      }
    }
  }
  end winners {p for p in players if total[p] == max(total[q] for q in players)}
}
'''


def test_a_definition_of_a_set_of_few_members_is_a_table_indexed_by_its_mask() -> None:
    """A definition whose value depends only on its argument, a set held as a mask of at most
    SET_AXIS_BITS members (a set of 1..6: masks up to 127), is computed for every such set when
    the engine is generated: a call is a lookup, not the quadratic comprehension. Random games
    agree with the interpreter."""
    TEXTS["best_of"] = (BEST_OF, "best_of.rules")
    program, _ = engine("best_of", {})
    assert "best" in Compiler(program).def_tables
    source = generate(program)
    # the winning numbers: one lookup in a table of 128 sets (bit 0, never a member, is None)
    table = re.search(r"x_w_\d+ = (_K\d+)\[t\d+\]", source)
    assert table is not None, source
    literal = re.search(rf"^{table.group(1)}: Final\[.*\] = \((.*)\)$", source, re.M)
    assert literal is not None and literal.group(1).count(",") == 127
    ends = {play_both("best_of", {}, n, seed=seed) for n in (2, 3, 4) for seed in range(30)}
    assert ends == {"end"}

SMALL_SETS = r'''
game "Small Sets" { players 2..2 source "x" }
var held: set of 0..5 = {} "the numbers held" source "x"
var total[player]: int = 0 score "points" source "x"
flow source "x" {
  repeat 5 times {
    for each p in players {
      choose k from 0..8 by p label "picks"
      if k - 2 in held {
        set total[p] = total[p] + 1
      }
      set held = held - {k - 2}
      if k != 8 {
        set held = held + {k}
      }
    }
  }
  end winners {p for p in players if total[p] == max(total[q] for q in players)}
}
'''


def test_a_set_of_small_numbers_is_a_mask_that_keeps_to_its_range() -> None:
    """A set of numbers whose type keeps them within 0..63 is held as a mask: a number that may be
    negative is in none and taking it away changes nothing; a number outside the variable's
    declared range is a range error, in the interpreter and the engine alike (the same message
    and place), and the verifier finds the game that reaches it."""
    TEXTS["small_sets"] = (SMALL_SETS, "small_sets.rules")
    program, _ = engine("small_sets", {})
    source = generate(program)
    assert "frozenset" not in source.split("# ---- the flow")[1].split("# ----")[0]
    assert re.search(r"\((t\d+) >= 0 and V\[0\] >> \1 & 1 == 1\)", source), source
    ends = Counter(play_both("small_sets", {}, 2, seed=seed) for seed in range(60))
    assert set(ends) == {"end", "range"} and ends["end"] >= 3, ends
    # a range up to a parameter without a declared range could hold any number with another value
    # of it (its type is its default's): the sets of numbers stay frozensets, and play alike
    TEXTS["small_sets_any"] = (SMALL_SETS.replace("var held", 'param top: int = 8 "the largest pick"\nvar held')
                               .replace("0..8 by p", "0..top by p"), "small_sets_any.rules")
    program, _ = engine("small_sets_any", {})
    assert " >> " not in generate(program).split("# ---- the flow")[1].split("# ----")[0]
    assert {play_both("small_sets_any", {}, 2, seed=seed) for seed in range(30)} == {"end", "range"}
    # a formal's declared range is checked nowhere: where a set of numbers that may be negative is
    # given to one declared a set of small numbers, the sets stay frozensets, and play alike
    TEXTS["small_sets_formal"] = (SMALL_SETS.replace('var total', 'define count(s: set of 0..5) -> int "how many" = size(s)\n'
                                                     '  source "x"\nvar total').replace("total[p] + 1", "total[p] + count({k - 2})"),
                                  "small_sets_formal.rules")
    program, _ = engine("small_sets_formal", {})
    assert " >> " not in generate(program).split("# ---- the flow")[1].split("# ----")[0]
    assert {play_both("small_sets_formal", {}, 2, seed=seed) for seed in range(30)} == {"end", "range"}
    o = verify(ruleset("small_sets"), Options(timeout=10.0, jobs=1, checks=frozenset({"exhaustion"})))
    (f,) = [f for f in o.findings if f.status == "witness"]
    assert "'held' would hold a number outside 0..5" in f.message and f.span.line == 14


def test_the_choices_of_every_player_need_no_check_and_a_set_display_taken_away_no_tuple() -> None:
    """Where every player chose at once, each player's choice is there: reading one needs no test
    for a missing choice (a choice among some players keeps it). A set display of computed numbers
    on the right of - or | is a Python set display, which a frozenset's operators take (no tuple
    built into a frozenset first); the games play as OpenSpiel's (tests/test_oracle_openspiel.py)."""
    goofspiel = load_path(ROOT / "tests" / "rulesets" / "goofspiel.rules").rules
    assert goofspiel is not None
    code = generate(ir.bind(goofspiel, {}))
    assert "_raise('incomplete', 'this player made no choice here'" not in code
    # its bid cards are a set of small numbers, a mask: a bid that may be negative (by its type)
    # is in none
    assert re.search(r"\(V\[0\] & ~\(\(1 << (x_b1_\d+) if \1 >= 0 else 0\)\)\)", code), code
    # as a set of numbers up to 100, a frozenset
    text = (ROOT / "tests" / "rulesets" / "goofspiel.rules").read_text(encoding="utf-8").replace("set of 1..13", "set of 0..100")
    loaded = load_text(text, "goofspiel_any.rules")
    assert loaded.ok and loaded.rules is not None
    code = generate(ir.bind(loaded.rules, {}))
    assert re.search(r"\(V\[0\] - \{x_b1_\d+\}\)", code), code
    assert "frozenset((x_" not in code
    # Too Many Cinderellas' simultaneous choices are among some players: the test stays
    assert "_raise('incomplete', 'this player made no choice here'" in generate(ir.bind(load_path(ROOT / "rulesets" / "cinderella.rules").rules, {}))
