"""Pieces of the verifier's proofs that the golden rulesets do not single out:

* which variables only count (``conditions.counters``): the lasso lets them differ, so a wrong
  answer would turn a game that ends into a false non-termination witness;
* proofs local to the rule an ambiguity changes (``Verifier.agree_where_used``): two versions of a
  definition that disagree where they are used must never be called harmless, and versions that
  disagree only inside a caller that hides it (a tie-break picking different cards, but the same
  player) must be;
* the speed-ups that must not change a term: the definitions' cache keyed by what each reads, and
  the and/or of two terms built without the general junction.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.interpreter.semantics import resolve_params
from rulecheck.verifier.checks.ambiguity import APART_GAMES
from rulecheck.verifier.conditions import counters
from rulecheck.verifier.verify import Options, Verifier

ROOT = Path(__file__).resolve().parent.parent


def rules_of(text: str) -> ir.Ruleset:
    loaded = load_text(text)
    assert loaded.ok and loaded.rules is not None, [d.message for d in loaded.diagnostics.sorted()]
    return loaded.rules


COUNTING = """
game "Counting" {
  players 2..2
}

enum Length { short, long }
param length: Length = long "how long the game is"

var round_no: int = 0 "a round counter"
var shown: int = 0 "only shown"
var reset: int = 0 "counts up, but is set back"
var doubled: int = 1 "grows, but not by adding a constant"
var read: int = 0 "counts up, but is used in a sum"
var score[player]: 0..9 = 0 score

define done -> bool "the end" {
  case short_game: length == short => round_no >= 5
  case long_game: length == long => any(score[p] >= 9 for p in players)
}

flow {
  repeat until round_no > 0 and done {
    set round_no = round_no + 1
    set shown = shown + 2
    set reset = reset + 1
    set doubled = doubled * 2
    set read = read + 1
    say "round {round_no}, {shown} shown"
    if reset > 3 {
      set reset = 0
    }
    for each p in players {
      choose n from {0, 1} by p label "scores"
      if score[p] + n + read - read <= 9 {
        set score[p] = score[p] + n
      }
    }
  }
  end winners {p for p in players if score[p] >= 9}
}
"""


def test_counters_are_the_variables_that_only_count() -> None:
    rules = rules_of(COUNTING)
    program = ir.bind(rules, {})
    values, _ = resolve_params(rules, None)
    # round_no: compared with 0 (the loop) and, in the short game only, with 5
    assert counters(program, values) == {"round_no": 0, "shown": None}
    short, _ = resolve_params(rules, {"length": 0})
    assert counters(program, short) == {"round_no": 5, "shown": None}
    # without parameters every case counts
    assert counters(program) == {"round_no": 5, "shown": None}


# the pieces of the tie-break rulesets below: six cards ranked 1 to 6 dealt to hands, and an
# ambiguity over which of a player's cards is the highest single card
SIX_CARDS = """card Card "{rank}" {
  rank: 1..6
}

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank
  | rank |
  | 1..6 |
}
"""

TOP_CARD = """define tie_higher(a: Card, b: Card) -> bool "card a beats card b in the tie-break" varies by tiebreak

define top_card(p: player) -> Card "a player's best single card"
  = the(c for c in hand[p] if all(d == c or tie_higher(c, d) for d in hand[p]))
"""

TIEBREAK_READINGS = """ambiguity tiebreak {
  kind ambiguity
  source "On equal sums, the highest single card wins."
  question "Is the highest single card the largest number or the smallest?"
  reading largest default "The largest number." {
    define tie_higher(a: Card, b: Card) -> bool = a.rank > b.rank
  }
  reading smallest "The smallest number." {
    define tie_higher(a: Card, b: Card) -> bool = a.rank < b.rank
  }
}
"""

TIEBREAK = """
game "Tie-break" {
  players 2..3
  source "Each player draws two cards; the highest sum wins. On equal sums, the highest single card wins."
}

""" + SIX_CARDS + """
define total(p: player) -> int "a player's sum" = sum(c.rank for c in hand[p])

define best -> set of player "the players with the highest sum"
  = {p for p in players if all(total(p) >= total(q) for q in players)}

""" + TOP_CARD + """
define winners_of -> set of player "who wins"
  = {p for p in best if all(q == p or tie_higher(top_card(p), top_card(q)) for q in best)}

""" + TIEBREAK_READINGS + """
ambiguity scope {
  kind ambiguity
  source "On equal sums, the highest single card wins."
  question "Does the tie-break look at the tied players only?"
  reading tied default "Only the tied players." {
    define winners_of -> set of player = {p for p in best if all(q == p or tie_higher(top_card(p), top_card(q)) for q in best)}
  }
  reading everyone "Every player's best card." {
    define winners_of -> set of player = {p for p in players if all(q == p or tie_higher(top_card(p), top_card(q)) for q in players)}
  }
}

flow {
  for each p in players {
    draw 2 from deck to hand[p]
  }
  end winners winners_of
}
"""


def agree(ambiguity: str, reading: str, n: int) -> bool:
    rules = rules_of(TIEBREAK)
    v = Verifier(rules, Options(players=[n], timeout=10.0, jobs=1))
    alt = dict(v.base_readings)
    alt[ambiguity] = reading
    return v.agree_where_used(rules.ambiguities[ambiguity], alt, n)


def test_a_tiebreak_that_picks_other_cards_but_the_same_player_is_proven_harmless() -> None:
    # equal sums of two different cards: the pair with the larger card has the smaller one too
    assert agree("tiebreak", "smallest", 2)
    assert agree("tiebreak", "smallest", 3)


def test_versions_that_disagree_where_the_game_uses_them_are_not_proven() -> None:
    # everyone's best card decides: a player with a lower sum can win
    assert not agree("scope", "everyone", 2)


def test_loving_penguin_normal_and_long_games_can_go_on_for_ever() -> None:
    """The issue's question: do the normal and long games always end? Two players who play the
    same numbers cancel every trick, nobody scores, and the next round starts where the last one
    did: a witness, although the round number grows. For the normal game, under every reading one
    ambiguity away too: the same moves repeat under most; two repeat a game of their own; where
    discarded presents leave the game, the rounds are proven to end. The long game differs only
    in the score to reach: asked under the default readings alone (each reading's search is the
    normal game's again, two minutes of a test)."""
    from conftest import ROOT

    from rulecheck.cli import parse_params
    from rulecheck.dsl.loader import load_path
    from rulecheck.verifier.verify import verify

    rules = load_path(str(ROOT / "rulesets" / "loving_penguin.rules")).rules
    assert rules is not None
    defaults = {a.name: a.default.name for a in rules.ambiguities.values()}
    for length, readings in (("normal", {}), ("long", defaults)):
        params = parse_params([f"length={length}"], rules)
        o = verify(rules, Options(players=[2], timeout=10.0, jobs=1, params=params, readings=readings,
                                  checks=frozenset({"non-termination"})))
        rounds = [f for f in o.findings if f.kind == "non-termination" and "round_no" in f.message]
        assert [f.status for f in rounds] == ["witness"], (length, [(f.title, f.status) for f in o.findings])
        assert rounds[0].witness is not None and rounds[0].witness.plays[0].actions
        d = rounds[0].details
        if length == "normal":
            assert {x["reading"] for x in d["own_lassos"]} == {"deal_style=one_deck_each", "next_round=keep_requests"}, d
            assert [(x["reading"], x["open"]) for x in d["ranked_under"]] == [("discarded_present=out_of_game", None)], d
            assert len(d["also_under"]) == 7 and not d["open_under"], d
        else:
            assert not (d["also_under"] or d["own_lassos"] or d["ranked_under"] or d["open_under"]), d
    params = parse_params(["length=short"], rules)
    o = verify(rules, Options(players=[2], timeout=10.0, jobs=1, params=params, checks=frozenset({"non-termination"})))
    assert all(f.status == "proven" for f in o.findings if f.kind == "non-termination"), [(f.title, f.status) for f in o.findings]


#: The tie rule of the small rulesets below: nobody wins a tie, or the tied players share the win.
TIE = """
define winners_of -> set of player "who wins" varies by tie

ambiguity tie {
  kind gap
  source "on a tie, nobody wins"
  question "Does a tie give no winner, or do the tied players share the win?"
  reading nobody default "Nobody wins." {
    define winners_of -> set of player = {p for p in leaders if size(leaders) == 1}
  }
  reading shared "The tied players share the win." {
    define winners_of -> set of player = leaders
  }
}
"""


LONG = """
game "Long" {
  players 2..2
  source "Five rounds; each round every player may take a token. Most tokens wins; on a tie, nobody wins."
}

var round_no: 0..5 = 0 "the round"
var tokens[player]: 0..5 = 0 score

define leaders -> set of player "the players with the most tokens"
  = {p for p in players if all(tokens[p] >= tokens[q] for q in players)}

""" + TIE + """
flow {
  repeat until round_no >= 5 {
    set round_no = round_no + 1
    for each p in players {
      choose take from {true, false} by p label "takes a token"
      if take {
        set tokens[p] = tokens[p] + 1
      }
    }
  }
  if size(leaders) > 1 {
    say "a tie"
  }
  end winners winners_of
}
"""


def test_no_proof_from_a_bound_within_which_no_game_ends() -> None:
    """Five rounds, a loop bound of 3: no game ends within the bound, so neither 'the readings
    give the same results' nor 'the end of the game is never reached' may be called proven (the
    tie rule does matter: both players taking every token tie). Before, the first was reported
    proven harmless."""
    from rulecheck.verifier.verify import verify

    o = verify(rules_of(LONG), Options(timeout=10.0, jobs=1, loop_bound=3, random_games=0))
    tie = [f for f in o.findings if f.kind == "ambiguity"]
    assert [f.status for f in tie] == ["unknown"] and "no game ends within the bound" in tie[0].title
    assert not [f for f in o.findings if f.kind == "dead-rule" and f.status == "proven"]
    # with room for the whole game, the solver finds the difference
    o = verify(rules_of(LONG), Options(timeout=10.0, jobs=1, loop_bound=6, random_games=0))
    tie = [f for f in o.findings if f.kind == "ambiguity"]
    assert [f.status for f in tie] == ["witness"] and "found_by" not in tie[0].details
    # beyond the solver's bound, random games find it, replayed like any witness
    o = verify(rules_of(LONG), Options(timeout=10.0, jobs=1, loop_bound=3))
    tie = [f for f in o.findings if f.kind == "ambiguity"]
    assert [f.status for f in tie] == ["witness"] and tie[0].details["found_by"] == "random play"
    assert tie[0].witness is not None
    a, b = tie[0].witness.plays
    assert a.replayed and b.replayed and a.outcome != b.outcome


STUCK = """
game "Stuck" {
  players 2..2
  source "Five rounds; each round every player takes one or two tokens from the pile. Most tokens wins; on a tie, nobody wins."
}

var round_no: 0..5 = 0 "the round"
var left: 0..12 = 12 "the tokens left in the pile"
var tokens[player]: 0..10 = 0 score

define leaders -> set of player "the players with the most tokens"
  = {p for p in players if all(tokens[p] >= tokens[q] for q in players)}
define winners_of -> set of player "who wins" = {p for p in leaders if size(leaders) == 1}

procedure take(p: player) "a player takes tokens" varies by empty_pile

ambiguity empty_pile {
  kind gap
  source "each round every player takes one or two tokens from the pile"
  question "What does a player do when the pile is empty?"
  reading skip default "The player takes nothing." {
    procedure take(p: player) {
      if left > 0 {
        choose k from {x for x in 1..2 if x <= left} by p label "takes"
        set left = left - k
        set tokens[p] = tokens[p] + k
      }
    }
  }
  reading as_written "The player must take a token, and no rule says how: play cannot go on." {
    procedure take(p: player) {
      choose k from {x for x in 1..2 if x <= left} by p label "takes"
      set left = left - k
      set tokens[p] = tokens[p] + k
    }
  }
}

flow {
  repeat until round_no >= 5 {
    set round_no = round_no + 1
    for each p in players {
      take(p)
    }
  }
  end winners winners_of
}
"""


def test_a_random_game_that_the_rules_stop_under_one_reading_only_is_a_witness() -> None:
    """Under one reading the rules stop play (a player must choose from nothing) where the other
    plays on to a result: the readings' results differ, as the solver's comparison says of such
    games ("one stops where the other does not") and as simulate counts them. The pile can run
    out only late in the game, past the solver's bound; random games found it, and a game the
    rules stop was skipped there, so the finding was "not decided" while simulate showed the
    results differ in most games."""
    from rulecheck.verifier.verify import verify

    o = verify(rules_of(STUCK), Options(timeout=10.0, jobs=1, loop_bound=2, checks=frozenset({"ambiguity"})))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "witness" and amb.details["found_by"] == "random play", amb.title
    assert amb.witness is not None
    a, b = amb.witness.plays
    assert a.replayed and b.replayed
    assert "wins" in a.outcome or a.outcome == "nobody wins"
    assert b.outcome.startswith("the rules stop:") and "has no option" in b.outcome
    assert a.actions == b.actions and f"up to decision {len(b.actions)}, where the rules stop the one under 'as_written'" in amb.message
    # a stop at a number's declared range is no result of the rules (it may be the model's own
    # bound): the reading that lets the pile go below nothing is no witness
    past_range = STUCK.replace("""      choose k from {x for x in 1..2 if x <= left} by p label "takes"
      set left = left - k
      set tokens[p] = tokens[p] + k
    }
  }
}""", """      choose k from {x for x in 1..2} by p label "takes"
      set left = left - k
      set tokens[p] = tokens[p] + k
    }
  }
}""")
    assert past_range != STUCK
    o = verify(rules_of(past_range), Options(timeout=10.0, jobs=1, loop_bound=2, checks=frozenset({"ambiguity"})))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "unknown", amb.message
    # without random games the solver, within its bound, decides nothing: no game ends there
    o = verify(rules_of(STUCK), Options(timeout=10.0, jobs=1, loop_bound=2, random_games=0, checks=frozenset({"ambiguity"})))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "unknown"


TEN = """
game "Ace of Ten" {
  players 2..2
  source "Each player draws a card of ten. The highest card wins."
}

card Card "{rank}" {
  rank: 1..10
}

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank source "Ten cards, an ace (1) to a 10."
  | rank  |
  | 1..10 |
}

define value(p: player) -> int "how high a player's card counts" varies by ace

ambiguity ace {
  kind ambiguity
  source "The highest card wins."
  question "Is the ace (1) the highest card or the lowest?"
  reading low default "The ace counts 1, the lowest." {
    define value(p: player) -> int = sum(c.rank for c in hand[p])
  }
  reading high "The ace counts 11, above the 10." {
    define value(p: player) -> int = sum((if c.rank == 1 then 11 else c.rank) for c in hand[p])
  }
}

flow {
  for each p in players {
    draw from deck to hand[p]
  }
  end winners {p for p in players if value(p) == max(value(q) for q in players)}
}
"""


def test_the_deal_of_a_random_game_where_the_readings_part_is_the_first_the_solver_gets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The readings part only in the deals with the ace (one in five). The random games played
    before the search (Verifier.parting_game) found one: its deal is the first the solver's
    search fixes, and the witness comes from it at the first question, where before the deals
    of random games 0, 1, ... were fixed in turn until one held the ace."""
    import rulecheck.verifier.context as context
    from rulecheck.verifier.verify import _task_from_source

    deals: list[Any] = []
    real = context.deal_constraints

    def counted(trace: Any, model: Any) -> Any:
        deals.append(real(trace, model))
        return deals[-1]

    monkeypatch.setattr(context, "deal_constraints", counted)
    # the task in this process (verify forks a worker for it, whose list this one would not see)
    _, found, _, _ = _task_from_source("ten.rules", TEN, Options(timeout=10.0, jobs=1, checks=frozenset({"ambiguity"})),
                                       ("reading", "ace", "high"), {}, False)
    [amb] = [f for f in found if f.kind == "ambiguity"]
    assert amb.status == "witness" and amb.details["differs_in"] == "outcome" and "found_by" not in amb.details
    assert len(deals) == 1, f"{len(deals)} deals fixed"
    assert amb.witness is not None
    a, b = amb.witness.plays
    assert a.winners != b.winners


WORTH = """
game "Worth" {
  players 2..2
  source "Five rounds; each round every player may draw a token. The most worth wins; on a tie, nobody wins."
}

piece Token "token {k}" {
  k: 1..10
  worth: 1..3 source "each token is worth some points"
}

table Token in pile {
  given k
  unspecified worth default 1 because "The rule does not print the tokens' worth."
  | k     | worth |
  | 1..10 | ?     |
}

zone pile: Token public "the tokens not drawn"
zone taken[player]: Token public "the tokens a player drew"

var round_no: 0..5 = 0 "the round"

define total(p: player) -> int "a player's points" = sum(t.worth for t in taken[p])

define leaders -> set of player "the players with the most points"
  = {p for p in players if all(total(p) >= total(q) for q in players)}

""" + TIE + """
flow {
  repeat until round_no >= 5 {
    set round_no = round_no + 1
    for each p in players {
      choose take from {true, false} by p label "draws a token"
      if take {
        draw 1 from pile to taken[p]
      }
    }
  }
  end winners winners_of
}
"""


def test_random_play_witness_replayed_with_other_tables_of_the_unspecified_data() -> None:
    """A witness found by random play lies beyond the solver's traces, so its sensitivity is
    checked by replaying the same game with other tables of the unspecified column: a tie under
    the default worths is no tie with some other table, and the finding says which."""
    from rulecheck.verifier.verify import verify

    o = verify(rules_of(WORTH), Options(timeout=10.0, jobs=1, loop_bound=3))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "witness" and amb.details["found_by"] == "random play"
    [sens] = [f for f in o.findings if f.kind == "sensitivity"]
    assert sens.status == "witness" and "depends on" in sens.title
    assert "the same winners under both readings" in sens.message
    # the table it names does remove the difference: both readings give the same winners; it
    # names only the values that differ from the assumed ones, each of which matters (put back,
    # the readings differ again)
    assert amb.witness is not None
    rules = rules_of(WORTH)
    cid = {c.display: c.cid for c in rules.components_of("Token")}
    named = re.findall(r"(token \d+): worth (\d+) \(assumed 1\)", sens.message.split(" the same game")[0])
    table = {cid[name]: int(value) for name, value in named}
    assert 1 <= len(table) < 10 and all(v != 1 for v in table.values()), sens.message
    from rulecheck.verifier.witness import replay_interpreter

    a, b = amb.witness.plays

    def winners(worth: dict[int, int]) -> tuple[Any, Any]:
        ra = replay_interpreter(ir.bind(rules, a.readings), 2, a.actions, {"Token.worth": worth})
        rb = replay_interpreter(ir.bind(rules, b.readings), 2, b.actions, {"Token.worth": worth})
        assert ra.legal and rb.legal
        return ra.winners, rb.winners

    ra, rb = winners(table)
    assert ra is not None and ra == rb
    for k in table:
        ra, rb = winners({c: v for c, v in table.items() if c != k})
        assert ra != rb, k
    assert a.winners != b.winners  # with the default worths they differ
    # with the worth fixed by a parameter, there is no unspecified column left to vary
    o = verify(rules_of(WORTH), Options(timeout=10.0, jobs=1, loop_bound=3, params={"Token.worth": 1}))
    assert not [f for f in o.findings if f.kind == "sensitivity"]


CONSERVED = """
game "Pass It On" {
  players 2..2
  source "Draw two cards each; then discard one."
}

card Card "{rank}" {
  rank: 1..6
}

zone deck: Card hidden
zone hand[player]: Card owner
zone discard: Card public

table Card in deck {
  given rank source "Six cards."
  | rank |
  | 1..6 |
}

invariant everywhere "every card is somewhere" always:
  all(c in deck or c in discard or any(c in hand[p] for p in players) for c in Card)
  and size(deck) + size(discard) + sum(size(hand[p]) for p in players) == 6

invariant weighted "twice the cards, counted twice" always:
  size(deck) + size(deck) + 2 * size(discard) + sum(size(hand[p]) + size(hand[p]) for p in players) == 12

invariant no_discard "the deck and the hands hold every card" always:
  size(deck) + sum(size(hand[p]) for p in players) == 6

invariant in_hand_or_deck "every card is in the deck or a hand" always:
  all(c in deck or any(c in hand[p] for p in players) for c in Card)

flow {
  for each p in players {
    draw 2 from deck to hand[p]
  }
  for each p in players {
    choose c from hand[p] by p label "discards"
    move c to discard
  }
  end winners players
}
"""


def test_counts_of_a_partition_need_no_solver() -> None:
    """A sum of zone sizes over every zone a component can be in is a number, and "in one of
    these zones" over all of them is true: each component is in exactly one zone. The trace says
    so directly (no solver question at all); leave a zone out and the invariant is broken, with a
    witness, as before."""
    from rulecheck.verifier.symbolic import SymExec
    from rulecheck.verifier.verify import verify

    rules = rules_of(CONSERVED)
    t = SymExec(ir.bind(rules, {}), 2).run()
    conds: dict[str, list[object]] = {}
    for inv, cond in t.invariant_violations:
        conds.setdefault(inv.name, []).append(cond)
    assert set(conds["everywhere"]) == {False}
    # 2 * size(...) is not a plain sum of sizes: evaluated the ordinary way, and still proven
    assert any(c is not False for c in conds["weighted"])
    assert any(c is not False for c in conds["no_discard"]) and any(c is not False for c in conds["in_hand_or_deck"])
    o = verify(rules, Options(timeout=10.0, jobs=1))
    status = {f.subject: f.status for f in o.findings if f.kind == "invariant"}
    assert status == {"everywhere": "proven", "weighted": "proven", "no_discard": "witness", "in_hand_or_deck": "witness"}


def test_nothing_after_a_loop_cut_at_the_bound_is_live() -> None:
    """A game cut at the loop bound has left the model: the decisions after the cut loop would be
    made from a state the game does not reach there, so none of them is active in a cut game (a
    moves witness built on them did not replay: Loving Penguin's discarded_present)."""
    from rulecheck.verifier import terms as tm
    from rulecheck.verifier.symbolic import SymExec
    from rulecheck.verifier.z3backend import Session

    rules = rules_of(LONG.replace("  if size(leaders) > 1 {", '  choose last from {true, false} by player(1) label "a last word"\n  if size(leaders) > 1 {'))
    t = SymExec(ir.bind(rules, {}), 2, loop_bound=3).run()
    after = [d for d in t.decisions if d.key == "choose:a last word#1"]
    assert len(after) == 1
    assert t.truncated is not False
    for d in after:
        assert Session(t.constraints, 10.0).check(tm.and_(d.active, t.truncated)).status == "unsat"
    # with room for the whole loop, the last decision is reached
    t = SymExec(ir.bind(rules, {}), 2, loop_bound=6).run()
    last = [d for d in t.decisions if d.key == "choose:a last word#1"]
    assert last and Session(t.constraints, 10.0).check(last[0].active).status == "sat"


#: Six tokens numbered 1 to 6, starting in the zone 'pile' (the small rulesets below declare it).
SIX_TOKENS = """
piece Token "token {k}" {
  k: 1..6
}

table Token in pile {
  given k
  | k    |
  | 1..6 |
}
"""


SEEN = """
game "Seen" {
  players 2..2
  source "Each player draws two tokens and keeps one; the other is discarded. The highest token kept wins."
}

""" + SIX_TOKENS + """
zone pile: Token hidden "the tokens not drawn"
zone offered[player]: Token owner "the tokens a player drew"
zone kept[player]: Token owner "the token a player keeps"
zone face_down: Token hidden "discarded tokens, face down"
zone face_up: Token public "discarded tokens, face up"

procedure put_away(p: player) "a player's other token is discarded" varies by discarded

ambiguity discarded {
  kind translation
  source "the other is discarded"
  question "Is the other token discarded face down or face up?"
  reading down default "Face down." {
    procedure put_away(p: player) {
      move offered[p] to face_down
    }
  }
  reading up "Face up, for all to see." {
    procedure put_away(p: player) {
      move offered[p] to face_up
    }
  }
}

define best(p: player) -> int "a player's kept token" = sum(t.k for t in kept[p])

define leaders -> set of player "the players with the highest kept token"
  = {p for p in players if all(best(p) >= best(q) for q in players)}

flow {
  shuffle pile
  for each p in players {
    draw 2 from pile to offered[p]
    choose t from offered[p] by p label "keeps"
    move t to kept[p]
    put_away(p)
  }
  end winners leaders
}
"""


def test_readings_that_differ_only_in_what_players_see_are_not_harmless() -> None:
    """Readings that put a card face up or face down give the same winners and moves in every
    game, and that is proven; but a player sees the other's discarded token under one and not
    under the other, which a game shows, checked in both engines. With random play turned off
    only the proof is left, titled harmless as before."""
    from rulecheck.verifier.verify import verify
    from rulecheck.verifier.witness import first_seen_difference

    rules = rules_of(SEEN)
    o = verify(rules, Options(timeout=10.0, jobs=1))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "witness" and amb.details["differs_in"] == "information"
    assert "show players different things" in amb.title
    assert "Player 2 sees token" in amb.message and "(in 'face_up') under 'up', never under 'down'" in amb.message
    assert "In every game of 2 players they give the same winners and scores and offer the same choices." in amb.message
    assert amb.witness is not None and all(p.replayed for p in amb.witness.plays)
    assert not [f for f in o.findings if f.kind == "sensitivity"]
    o = verify(rules, Options(timeout=10.0, jobs=1, random_games=0))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "proven" and "harmless" in amb.title
    # one reading against itself: nothing differs
    program = ir.bind(rules, {})
    from rulecheck.verifier.witness import random_game

    actions = random_game(program, 2, seed=1)
    assert first_seen_difference(program, program, 2, actions, ("down", "down")) is None
    diff = first_seen_difference(program, ir.bind(rules, {"discarded": "up"}), 2, actions, ("down", "up"))
    assert diff is not None and diff.observations[0] != diff.observations[1]


VOID_RULES = """
var bid[player]: bool = false "the player bid"

define bidders -> set of player "the players who bid" = {p for p in players if bid[p]}

define winners_of -> set of player "who wins" varies by void

ambiguity void {
  kind ambiguity
  source "If more than two players pass, the round is void."
  question "Does a void round leave nobody a winner?"
  reading nobody default "A void round has no winner." {
    define winners_of -> set of player
      = if size(players) - size(bidders) > 2 then {} else (if size(bidders) > 0 then bidders else players)
  }
  reading replay "'Void' changes nothing for the result." {
    define winners_of -> set of player = if size(bidders) > 0 then bidders else players
  }
}

"""

VOID = """
game "Void" {
  players 2..3
  source "Each player bids or passes; the bidders win, and if nobody bids everybody wins. If more than two players pass, the round is void."
}

""" + VOID_RULES + """flow {
  for each p in players {
    choose b from {true, false} by p label "bids"
    set bid[p] = b
  }
  end winners winners_of
}
"""


def test_random_play_tries_the_player_counts_the_solver_did_not() -> None:
    """The readings agree in every game of 2 players (proven), and differ only when three pass:
    asked for 2 players, verify still shows the 3-player game that tells them apart, found by
    random play and saying what the solver proved."""
    from rulecheck.verifier.verify import verify

    rules = rules_of(VOID)
    o = verify(rules, Options(timeout=10.0, jobs=1, players=[2]))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "witness" and amb.details["players"] == 3 and amb.details["found_by"] == "random play"
    assert "The solver checked 2 players: no game of 2 players shows a difference." in amb.message
    assert amb.witness is not None and amb.witness.players == 3
    a, b = amb.witness.plays
    assert a.replayed and b.replayed and a.winners == [] and b.winners == [0, 1, 2]
    o = verify(rules, Options(timeout=10.0, jobs=1, players=[2], random_games=0))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    assert amb.status == "proven" and amb.bound == "every game of 2 players"


def test_a_rule_of_another_player_count_or_parameter_value_is_not_dead() -> None:
    """Checked for 2 players with the default length, the third seat's bonus and the short
    game's end never apply; random games with 3 players and with the other length reach them, so
    neither is reported dead. The rule no configuration reaches still is. With random play
    turned off, the two are proven dead for what was checked, as the bound says."""
    from rulecheck.verifier.verify import verify

    text = (ROOT / "tests" / "verify" / "bad" / "dead_rule.rules").read_text(encoding="utf-8")
    text = text.replace("var score[player]: int = 0 score", """var score[player]: int = 0 score

enum Length { short, long }
param length: Length = long "how long the game is"
""").replace("  end winners", """  if length == short source "A short game ends here." {
    say "short"
  }
  end winners""")
    rules = rules_of(text)
    dead = {f.title: f.status for f in verify(rules, Options(timeout=10.0, jobs=1, players=[2])).findings if f.kind == "dead-rule"}
    assert sorted(dead) == ["case 'bonus' of 'points' never applies", "the 'then' branch of this if never applies"]
    off = verify(rules, Options(timeout=10.0, jobs=1, players=[2], random_games=0)).findings
    assert sum(1 for f in off if f.kind == "dead-rule" and f.status == "proven" and "'then' branch" in f.title) == 3
    # with --param length=short the short game's end is taken as given: the third seat is still reached elsewhere
    fixed = verify(rules, Options(timeout=10.0, jobs=1, players=[2], params={"length": 0})).findings
    assert sum(1 for f in fixed if f.kind == "dead-rule" and "'then' branch" in f.title) == 1


def test_invariants_that_no_state_breaks_hold_however_long_the_game() -> None:
    """No game of five rounds ends within a loop bound of 3, so final states are not in the
    trace; but 'the winners lead' follows from the end's winners whatever the table looks like,
    and is proven for games of any length. 'Five rounds were played' follows from the loop's
    condition where it stops: proven by induction over the rounds, for games of any length. 'No
    player has more tokens than rounds played' (where a player could hold up to 9) needs a
    relation the induction does not look for (an inequality of two numbers): not decided, as
    before."""
    from rulecheck.verifier.verify import verify

    text = LONG.replace("var tokens[player]: 0..5", "var tokens[player]: 0..9") + """
invariant winners_lead "the winners have the most tokens" at end:
  all(p in leaders for p in winners)

invariant five_rounds "five rounds were played" at end:
  round_no == 5

invariant a_token_a_round "nobody took more tokens than there were rounds" at end:
  all(tokens[p] <= round_no for p in players)
"""
    o = verify(rules_of(text), Options(timeout=10.0, jobs=1, loop_bound=3, random_games=0, checks=frozenset({"invariant"})))
    got = {f.subject: f for f in o.findings if f.kind == "invariant"}
    assert got["winners_lead"].status == "proven" and got["winners_lead"].bound == "every game of 2 players, any length, under the default readings"
    assert (got["five_rounds"].verdict, got["five_rounds"].details["how"]) == ("holds-any-length", "induction")
    assert got["a_token_a_round"].status == "unknown" and "no game ends within the bound" in got["a_token_a_round"].title
    # a final-state invariant the winners break is not proven by it
    broken = text.replace("all(p in leaders for p in winners)", "all(p in winners for p in players)")
    o = verify(rules_of(broken), Options(timeout=10.0, jobs=1, loop_bound=6, random_games=0, checks=frozenset({"invariant"})))
    got = {f.subject: f for f in o.findings if f.kind == "invariant"}
    assert got["winners_lead"].status == "witness"
    # an invariant of every state: a count of every place a token can be holds in any state at
    # all; one that needs the rules (at most two tokens face up) is proven the ordinary way
    text = SEEN + """
invariant tokens_placed "every token is somewhere" always:
  size(pile) + size(face_down) + size(face_up) + sum(size(offered[p]) + size(kept[p]) for p in players) == 6

invariant few_up "at most two tokens face up" always:
  size(face_up) <= 2
"""
    o = verify(rules_of(text), Options(timeout=10.0, jobs=1, random_games=0, checks=frozenset({"invariant"})))
    got = {f.subject: f for f in o.findings if f.kind == "invariant"}
    assert got["tokens_placed"].status == "proven" and got["tokens_placed"].bound == "every game of 2 players, any length, under the default readings"
    assert got["few_up"].status == "proven" and got["few_up"].bound == "every game of 2 players, under the default readings"


DRAIN = """
game "Drain" {
  players 2..2
  source "Tokens are drawn one a round until the pile is empty."
}

""" + SIX_TOKENS + """
zone pile: Token hidden "the tokens not drawn"
zone drawn: Token public "the tokens drawn"

var turn_no: 0..10 = 0 "the round"

flow {
  while size(pile) > 0 {
    set turn_no = turn_no + 1
    draw 1 from pile to drawn
  }
  end winners {p for p in players if size(drawn) == 6}
}

invariant six_rounds "the game ends after six rounds" at end:
  turn_no == 6
"""


def test_an_invariant_of_the_final_state_is_checked_where_whole_passes_let_games_end() -> None:
    """Two passes of the loop draw two of six tokens: no game ends within a loop bound of 2, so
    the cut trace says nothing about final states. The loop drains the pile, so the trace with
    its passes whole reaches the end, and 'six rounds' is proven there; before, it was left
    'no game ends within the bound'."""
    from rulecheck.verifier.verify import verify

    o = verify(rules_of(DRAIN), Options(timeout=10.0, jobs=1, loop_bound=2, checks=frozenset({"invariant"})))
    [inv] = [f for f in o.findings if f.kind == "invariant"]
    assert inv.status == "proven", inv.title
    broken = DRAIN.replace("turn_no == 6", "turn_no == 5")
    o = verify(rules_of(broken), Options(timeout=10.0, jobs=1, loop_bound=2, checks=frozenset({"invariant"})))
    [inv] = [f for f in o.findings if f.kind == "invariant"]
    assert inv.status == "witness" and inv.witness is not None


#: A played token given back to its player (who has used it) or put in the box: the readings
#: leave it in different places, where no rule looks (the verifier's golden pair given_back).
RETURNED = (ROOT / "tests" / "verify" / "good" / "given_back.rules").read_text(encoding="utf-8")

#: The same game where a given-back token may be played again: the readings differ.
LEAKY = (ROOT / "tests" / "verify" / "bad" / "given_back.rules").read_text(encoding="utf-8")


def moves_alike(text: str) -> bool:
    rules = rules_of(text)
    v = Verifier(rules, Options(players=[2], timeout=10.0, jobs=1))
    alt = dict(v.base_readings)
    alt["returned"] = "box"
    return v.same_after_moves(["give_back"], alt, 2)


def test_readings_that_leave_a_component_where_no_rule_looks_are_proven_harmless() -> None:
    """A used token given back to its player or put in the box: no rule lets it be played again,
    so every game goes alike. The proof follows one game with both tables side by side, and it
    says so; where a given-back token may be played again, it is not proven, and a game shows
    the difference."""
    from rulecheck.verifier.verify import verify

    assert moves_alike(RETURNED)
    [f] = [f for f in verify(rules_of(RETURNED), Options(timeout=10.0, jobs=1)).findings if f.kind == "ambiguity"]
    assert f.status == "proven" and "Where the game calls 'give_back'" in f.message, (f.title, f.message)
    assert not moves_alike(LEAKY)
    [f] = [f for f in verify(rules_of(LEAKY), Options(timeout=10.0, jobs=1)).findings if f.kind == "ambiguity"]
    assert f.status == "witness", (f.title, f.message)


def test_procedures_that_do_more_than_move_are_left_to_the_whole_game_search() -> None:
    setting = RETURNED.replace("      move x to box\n", "      move x to box\n      set used[p] = true\n")
    assert not moves_alike(setting)


def test_an_undecided_ambiguity_says_what_random_play_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """A harmless ambiguity the solver does not settle stays unknown, never proven; its message
    says how many random games showed no difference, for which player counts. (The solver is
    made to run out of time: a real time limit would make the test depend on the machine.)"""
    from rulecheck.verifier.verify import verify
    from rulecheck.verifier.z3backend import Result

    monkeypatch.setattr(Verifier, "search", lambda self, traces, goals, n, prove=None, parting=None: ("", Result("unknown")))
    monkeypatch.setattr(Verifier, "agree_where_used", lambda self, amb, alt, n: False)
    monkeypatch.setattr(Verifier, "agree_at_end", lambda self, amb, alt, n: False)
    rules = rules_of((ROOT / "tests" / "verify" / "good" / "ambiguity_agrees.rules").read_text(encoding="utf-8"))
    o = verify(rules, Options(timeout=10.0, jobs=1, checks=frozenset({"ambiguity"}), random_games=7))
    [f] = o.findings
    assert f.status == "unknown" and "not decided in time" in f.title
    assert "Random play showed none either: 7 games for each player count (2 to 3 players)" in f.message, f.message


def test_shortcuts_sharing_a_background_are_asked_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Verifier.solve_all``: conditions whose shortcuts share a background are asked of one
    batch over it, each goal its own question; a goal the batch proves is settled there, one it
    does not goes on to the whole game (its shortcut not asked again) and gets its own answer."""
    from rulecheck.verifier import terms as tm
    from rulecheck.verifier import z3backend
    from rulecheck.verifier.conditions import Condition

    checked: list[object] = []
    batched: list[int] = []
    real_check, real_ask = z3backend.Session.check, z3backend.Batch.ask

    def counting(self: z3backend.Session, *goals: tm.Term, timeout_s: float | None = None) -> z3backend.Result:
        checked.append(goals)
        return real_check(self, *goals, timeout_s=timeout_s)

    def asking(self: z3backend.Batch, i: int) -> z3backend.Result:
        batched.append(i)
        return real_ask(self, i)

    monkeypatch.setattr(z3backend.Session, "check", counting)
    monkeypatch.setattr(z3backend.Batch, "ask", asking)
    v = Verifier(rules_of(COUNTING), Options(timeout=5))
    x, y = tm.bool_var("batch|x"), tm.bool_var("batch|y")
    lemmas = [tm.or_(x, y)]

    def cond(goal: tm.Term) -> Condition:
        return Condition(goal, [*lemmas, tm.not_(tm.and_(x, y))], [(lemmas, goal)])

    never = [cond(tm.and_(tm.not_(x), tm.not_(y))), cond(tm.and_(tm.not_(x), tm.not_(y), tm.bool_var("batch|z")))]
    assert [r.status for r in v.solve_all(never)] == ["unsat", "unsat"]
    assert batched == [0, 1] and checked == []  # proven by the batch: no whole game asked

    batched.clear()
    results = v.solve_all([never[0], cond(x)])
    assert [r.status for r in results] == ["unsat", "sat"]
    assert results[1].model is not None and results[1].model["batch|x"] is True
    assert batched == [0, 1] and len(checked) == 1  # the whole game, for the possible one only


POINTS = """
game "Points" {
  players 2..3
  source "Each player draws two cards and scores their sum; the most points win. On equal points, the highest single card wins."
}

""" + SIX_CARDS + """
var points[player]: 0..20 = 0 "points scored"

define total(p: player) -> int "a player's sum" = sum(c.rank for c in hand[p])

define best -> set of player "the players with the most points"
  = {p for p in players if all(points[p] >= points[q] for q in players)}

""" + TOP_CARD + """
""" + TIEBREAK_READINGS + """
INVARIANT

flow {
  for each p in players {
    draw 2 from deck to hand[p]
    set points[p] = total(p)
  }
  end winners {p for p in best if all(q == p or tie_higher(top_card(p), top_card(q)) for q in best)}
}
"""

SCORED = 'invariant scored "points are the sum of the cards held" at end:\n  all(points[p] == total(p) for p in players)'


def end_verdict(text: str, ambiguity: str, reading: str, n: int) -> tuple[bool, Verifier]:
    rules = rules_of(text)
    v = Verifier(rules, Options(players=[n], timeout=10.0, jobs=1))
    alt = dict(v.base_readings)
    alt[ambiguity] = reading
    return v.agree_at_end(rules.ambiguities[ambiguity], alt, n), v


def test_a_tiebreak_harmless_given_a_proven_invariant_is_proven_at_the_end_of_the_game() -> None:
    """Points are the sum of two different cards, so on equal points the player with the larger
    card has the smaller one too, and either reading of the tie-break names the same winner. The
    end of the game alone does not show it (there the points could be anything); with the proven
    invariant that they are the sums, it does, and the finding names the invariant. Without the
    invariant, no proof at the end is claimed."""
    from rulecheck.verifier.verify import verify

    for n in (2, 3):
        ok, v = end_verdict(POINTS.replace("INVARIANT", SCORED), "tiebreak", "smallest", n)
        assert ok and v.end_proofs[n] == ["scored"]
    assert not end_verdict(POINTS.replace("INVARIANT", ""), "tiebreak", "smallest", 2)[0]
    o = verify(rules_of(POINTS.replace("INVARIANT", SCORED)), Options(timeout=10.0, jobs=1, checks=frozenset({"ambiguity"})))
    [f] = o.findings
    assert f.status == "proven", (f.title, f.message)
    assert "only to name its winners" in f.message and "'scored'" in f.message, f.message


def test_an_invariant_the_end_proof_needs_but_no_game_keeps_proves_nothing() -> None:
    """The same end proof, given an invariant that would make the readings agree (no two players
    ever have equal points) but that games break: it is not proven, so the proof is not claimed,
    and a game where the readings part is found."""
    from rulecheck.verifier.verify import verify

    untied = 'invariant untied "no two players have equal points" at end:\n  all(all(p == q or points[p] != points[q] for q in players) for p in players)'
    text = POINTS.replace("INVARIANT", untied).replace("points[p] = total(p)", "points[p] = size(hand[p])")
    ok, v = end_verdict(text, "tiebreak", "smallest", 2)
    assert not ok and v.proven_invariants == {("untied", 2, False): False}
    o = verify(rules_of(text), Options(timeout=10.0, jobs=1, checks=frozenset({"ambiguity", "invariant"})))
    by_kind = {f.kind: f for f in o.findings}
    assert by_kind["ambiguity"].status == "witness" and by_kind["invariant"].status == "witness"


def test_the_invariants_an_end_proof_uses_are_proven_once_in_tasks_of_their_own() -> None:
    """The readings an end-of-game proof may settle wait for the invariants' proofs, made once per
    player count in tasks of their own; with assumed data, those are made with the data free and
    the invariant check waits for them too (a proof for every table settles the assumed one).
    The findings are the same with one worker or two, and the same as without assumed data."""
    from rulecheck.verifier.verify import verify

    given = rules_of(POINTS.replace("INVARIANT", SCORED))
    assumed = rules_of(POINTS.replace("INVARIANT", SCORED).replace(
        "  given rank\n", '  assumed rank because "The cards\' ranks are not printed; 1 to 6 is assumed."\n'))
    reading, check = ("reading", "tiebreak", "smallest"), ("invariants",)
    lemmas = [("lemmas", "2"), ("lemmas", "3")]
    assert Verifier(given, Options(timeout=10.0)).lemma_needs([reading, check]) == {reading: lemmas}
    assert Verifier(assumed, Options(timeout=10.0)).lemma_needs([reading, check]) == {reading: lemmas, check: lemmas}
    # without invariants there is nothing to wait for
    assert Verifier(rules_of(TIEBREAK), Options(timeout=10.0)).lemma_needs([reading, check]) == {}
    kinds = frozenset({"ambiguity", "invariant"})
    # with the data free, the end proof for 3 players is a hard question of sums (about 30 s): the
    # runs with assumed data are made for 2 players, beside the given data's for 2 players
    runs = [(given, None, 1), (given, None, 2), (given, [2], 1), (assumed, [2], 1), (assumed, [2], 2)]
    outcomes = [verify(rules, Options(players=players, timeout=10.0, jobs=jobs, checks=kinds, sensitivity=False))
                for rules, players, jobs in runs]
    seen = [[(f.kind, f.subject, f.status, f.message) for f in o.findings] for o in outcomes]
    assert seen[0] == seen[1], seen
    assert seen[2] == seen[3] == seen[4], seen
    for s in (seen[0], seen[2]):
        assert [x[:3] for x in s] == [("ambiguity", "tiebreak", "proven"), ("invariant", "scored", "proven")]
        assert "'scored'" in s[0][3]
    assert {"invariants for 2 players", "invariants for 3 players"} <= set(outcomes[0].checks)
    assert "invariants for 2 players, any table" in outcomes[3].checks


def test_readings_that_random_games_show_playing_alike_are_started_first_and_the_order_changes_no_output() -> None:
    """Their proofs at every player count are the longest reading tasks: started last, one of them
    would keep a core busy alone at the end. Here the tie-break (harmless) is declared after the
    scope (which random games show), and starts before it; the findings are the same with one
    worker or two, whatever the order."""
    from rulecheck.verifier.verify import verify

    tiebreak_first = rules_of(TIEBREAK)
    start, end = TIEBREAK.index("ambiguity tiebreak {"), TIEBREAK.index("ambiguity scope {")
    scope_first = rules_of(TIEBREAK[:start] + TIEBREAK[end:TIEBREAK.index("flow {")] + TIEBREAK[start:end] + TIEBREAK[TIEBREAK.index("flow {"):])
    assert list(scope_first.ambiguities) == ["scope", "tiebreak"]
    for rules in (tiebreak_first, scope_first):
        _, _, started, _ = Verifier(rules, Options(timeout=10.0)).plan(frozenset({"ambiguity"}))
        readings = [t for t in started if t[0] == "reading"]
        assert readings == [("reading", "tiebreak", "smallest"), ("reading", "scope", "everyone")], readings
    seen = [[(f.kind, f.subject, f.status, f.message) for f in verify(scope_first, Options(timeout=10.0, jobs=jobs, checks=frozenset({"ambiguity"}))).findings]
            for jobs in (1, 2)]
    assert seen[0] == seen[1]
    assert [s[:3] for s in seen[0]] == [("ambiguity", "scope", "witness"), ("ambiguity", "tiebreak", "proven")]


def test_a_solver_model_that_names_no_other_table_shows_no_dependence_on_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sensitivity claim "with these values, the same game does not differ" needs values other
    than the assumed ones: where the solver's model names none (its game is not pinned down to the
    witness), nothing is claimed, never "with the assumed values, the same game does not"."""
    from rulecheck.verifier.z3backend import Result, Session

    assumed = rules_of(TIEBREAK.replace("  given rank\n", '  assumed rank because "The ranks are not printed."\n'))
    v = Verifier(assumed, Options(players=[2], timeout=10.0, jobs=1))
    alt = {**v.base_readings, "scope": "everyone"}
    monkeypatch.setattr(Session, "check", lambda self, *goals, **kw: Result("sat", {}))
    assert v.sensitivity_of_proof(assumed.ambiguities["scope"], alt) == ("undecided", {"how": "proof", "unnamed": True})
    assert v.data_values({}, set()) == []


def test_a_batch_answers_each_goal_as_a_fresh_solver_would_and_names_the_facts_a_proof_used() -> None:
    """Session.batch: every goal is there when the background is simplified, each is asked on its
    own; the answers are those of one fresh solver per goal, and an unsat core names the facts."""
    from rulecheck.verifier import terms as tm
    from rulecheck.verifier.z3backend import Session

    x, y, z = (tm.bool_var(f"batch|{c}") for c in "xyz")
    n = tm.int_var("batch|n")
    background = [tm.or_(x, y), tm.le(0, n), tm.le(n, 3)]
    goals: list[tm.Term] = [tm.and_(tm.not_(x), tm.not_(y)), tm.eq(n, 2), False, tm.and_(x, tm.lt(3, n)), z]
    facts: dict[str, tm.Term] = {"no_z": tm.not_(z), "x_small": tm.implies(x, tm.lt(n, 1)), "unused": tm.or_(y, tm.not_(y))}
    batch = Session(background, 10.0).batch(goals, facts)
    answers = [batch.ask_using(i) for i in range(len(goals))]
    fresh = [Session(background + list(facts.values()), 10.0).check(g).status for g in goals]
    assert [r.status for r, _ in answers] == fresh == ["unsat", "sat", "unsat", "unsat", "unsat"]
    assert answers[4][1] == ["no_z"]  # z is possible but for the fact that rules it out
    assert "unused" not in answers[3][1]
    model = answers[1][0].model
    assert model is not None and model["batch|n"] == 2 and tm.evaluate(tm.and_all(background), model) is True
    # a background nothing satisfies settles every goal of the batch
    assert [Session([x, tm.not_(x)], 10.0).batch([y, z]).ask(i).status for i in range(2)] == ["unsat", "unsat"]
    # any of several goals at once: possible when one is (a False goal never counts), its model
    # showing one; the questions after it are as before
    assert [batch.ask_any(ids, assume).status for ids, assume in (
        ([0, 2, 3], None), ([0, 1], None), ([2], None), ([4], ["unused"]), ([4], None), ([], None))] == [
        "unsat", "sat", "unsat", "sat", "unsat", "unsat"]
    shown = batch.ask_any([0, 1, 3])
    assert shown.model is not None and tm.evaluate(goals[1], shown.model) is True
    assert [batch.ask_using(i)[0].status for i in range(len(goals))] == fresh


CACHED = """
game "Cached" {
  players 2..2
}

piece Token "token {k}" {
  k: 1..3
}

table Token in pile {
  assumed k because "A test's tokens."
  | k    |
  | 1..3 |
}

zone pile: Token hidden "the tokens nobody has"
zone box: Token hidden "tokens out of the game"

var a: 0..9 = 0 "a number"
var before: 0..9 = 0 "a plus one, first"
var after: 0..9 = 0 "a plus one, after a changed"
var empty: 0..9 = 0 "the box, before the move"
var full: 0..9 = 0 "the box, after the move"
var again: 0..9 = 0 "the box, after a changed"

define plus_one -> int "a plus one" = a + 1
define in_box -> int "how many tokens are in the box" = size(box)

flow {
  set before = plus_one
  set a = 4
  set after = plus_one
  set empty = in_box
  move pile to box
  set full = in_box
  set a = 2
  set again = in_box
  end winners {p for p in players if before + after + empty + full + again == 12}
}
"""


def test_definitions_are_evaluated_again_only_when_what_they_read_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """SymExec caches a definition's value by the versions of what it reads: a variable's
    definition is evaluated again after that variable is set, a zone's after a move, and not
    after an assignment to a variable it does not read."""
    from rulecheck.verifier.symbolic import SymExec

    evaluated: list[str] = []
    real = SymExec.def_body

    def counting(self: SymExec, d: ir.Definition, args: list[object]) -> object:
        evaluated.append(d.name)
        return real(self, d, args)  # type: ignore[arg-type]

    monkeypatch.setattr(SymExec, "def_body", counting)
    ex = SymExec(ir.bind(rules_of(CACHED)), 2)
    ex.run()
    assert {name: ex.vars[name] for name in ("before", "after", "empty", "full", "again")} == {
        "before": 1, "after": 5, "empty": 0, "full": 3, "again": 3}
    assert evaluated.count("plus_one") == 2  # before and after `a` changed
    assert evaluated.count("in_box") == 2  # before and after the move; not again after `a` changed


def test_and_or_of_two_terms_are_the_general_junction() -> None:
    """``terms._pair`` (the and/or of two terms, most calls) builds the very term the general
    junction builds: over random and/or/not terms of a few atoms, the same interned term, with
    its parts' negations and repeats found, and the constants absorbed."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rulecheck.verifier import terms as tm

    atoms = st.sampled_from([tm.bool_var(f"pair|{k}") for k in range(4)])
    leaf = st.one_of(atoms, atoms.map(tm.not_), st.booleans())
    build = st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda ab: tm.and_all(list(ab))),  # a list: the general path
        st.tuples(inner, inner).map(lambda ab: tm.or_all(list(ab))),
        inner.map(tm.not_),
    ), max_leaves=8)

    @settings(max_examples=300, deadline=None)
    @given(build, build)
    def same(a: tm.Term, b: tm.Term) -> None:
        for op, unit in (("and", True), ("or", False)):
            assert tm._junction((a, b), op, unit) is tm._junction([a, b], op, unit)
            assert tm._junction((b, a), op, unit) is tm._junction([a, b], op, unit)

    same()


@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_failing_or_dying_worker_stops_verify_with_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Each check runs in a worker forked for it: an error it raises is raised again in the
    parent, and a worker that dies without a result (killed, a crash in the solver) is an error
    naming the check, never a wait without end."""
    import os

    from rulecheck.verifier.verify import verify

    real = Verifier.run_task

    def failing(self: Verifier, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool] | None = None) -> Any:
        if task == ("termination",):
            if how == "dies":
                os._exit(3)
            raise ValueError("broken on purpose")
        return real(self, task, lemmas)

    monkeypatch.setattr(Verifier, "run_task", failing)
    expected = (RuntimeError, "the worker of the check termination ended without a result") if how == "dies" else (ValueError, "broken on purpose")
    with pytest.raises(expected[0], match=expected[1]):
        verify(rules_of(COUNTING), Options(timeout=5.0, jobs=2))


def random_terms() -> tuple[Any, Any, list[Any]]:
    """Hypothesis strategies for random terms (integers, and booleans over them) and values of
    their variables (integer variables with and without a declared range, and flags); also the
    ranged variables."""
    from hypothesis import strategies as st

    from rulecheck.verifier import terms as tm

    ranged = [tm.int_var("bits|a", 0, 3), tm.int_var("bits|b", -5, 9), tm.int_var("bits|c", 0, 171), tm.int_var("bits|d", 1, 4)]
    free = [tm.int_var("bits|e"), tm.int_var("bits|f")]
    flags = [tm.bool_var(f"bits|p{k}") for k in range(3)]
    factors: list[tm.Term] = [-3, 2, ranged[1]]
    divisors: list[tm.Term] = [2, -3, 5, ranged[3]]  # never 0: a division's divisor is an obligation
    ints = st.recursive(
        st.one_of(st.sampled_from(ranged), st.sampled_from(ranged + free), st.integers(-40, 40)),
        lambda inner: st.one_of(
            st.tuples(inner, inner).map(lambda ab: tm.add(*ab)),
            st.tuples(inner, inner).map(lambda ab: tm.sub(*ab)),
            st.tuples(inner, st.sampled_from(factors)).map(lambda ab: tm.mul(*ab)),
            st.tuples(inner, st.sampled_from(divisors)).map(lambda ab: tm.div(*ab)),
            st.tuples(inner, st.sampled_from(divisors)).map(lambda ab: tm.mod(*ab)),
            st.lists(st.sampled_from(flags), min_size=1, max_size=3).map(tm.count_true),
            st.tuples(st.sampled_from(flags), inner, inner).map(lambda cab: tm.ite(*cab)),
        ), max_leaves=6)
    compare = st.tuples(st.sampled_from([tm.eq, tm.lt, tm.le]), ints, ints).map(lambda fab: fab[0](fab[1], fab[2]))
    cardinality = st.tuples(st.lists(st.sampled_from(flags), min_size=2, max_size=3, unique=True), st.integers(1, 2),
                            st.sampled_from([tm.eq, tm.le, tm.ge])).map(lambda bkf: bkf[2](tm.count_true(bkf[0]), bkf[1]))
    bools = st.recursive(
        st.one_of(st.sampled_from(flags), compare, cardinality),
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=3).map(tm.and_all),
            st.lists(inner, min_size=1, max_size=3).map(tm.or_all),
            inner.map(tm.not_),
            st.tuples(inner, inner, inner).map(lambda cab: tm.ite(*cab)),
            st.tuples(inner, inner).map(lambda ab: tm.eq(*ab)),
        ), max_leaves=6)
    values = st.fixed_dictionaries({
        "bits|a": st.integers(0, 3), "bits|b": st.integers(-5, 9), "bits|c": st.integers(0, 171), "bits|d": st.integers(1, 4),
        "bits|e": st.integers(-60, 60), "bits|f": st.integers(-60, 60),
        **{f"bits|p{k}": st.booleans() for k in range(3)}})

    return st.one_of(ints, bools), values, ranged


def test_integers_in_the_fewest_bits_keep_their_values() -> None:
    """The z3 back end gives each integer term the fewest bits its range needs (from its parts'
    ranges; WIDTH bits where a part's is unknown): over random sums, products, floor divisions,
    remainders, counts, if-then-elses and comparisons of variables with declared ranges, variables
    without one, and constants, with the variables fixed to random values of their ranges, z3
    reads every term as terms.evaluate does. A declared range also bounds what the solver may pick."""
    import z3
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rulecheck.verifier import terms as tm
    from rulecheck.verifier.z3backend import Session, Translator

    terms, values, ranged = random_terms()
    free = [tm.int_var("bits|e")]

    @settings(max_examples=300, deadline=None)
    @given(st.lists(terms, min_size=1, max_size=4), values)
    def same(checked: list[tm.Term], model: dict[str, bool | int]) -> None:
        tr = Translator()
        solver = z3.Solver(ctx=tr.ctx)
        wrong = z3.Or([z3.Not(tr.value_is(t, tm.evaluate(t, model))) for t in checked])
        for name, v in tr.vars.items():
            solver.add(v == (z3.BoolVal(bool(model[name]), tr.ctx) if z3.is_bool(v) else model[name]))
        solver.add(wrong, *tr.definitions(checked, set()))
        assert solver.check() == z3.unsat
        assert max(tr.widths.values(), default=0) <= 16

    same()
    # narrower than 16 bits where the ranges allow, and a declared range is a constraint
    tr = Translator()
    total = tm.add(ranged[0], ranged[2])
    assert isinstance(total, tm.T)
    tr(total)
    assert tr.widths[total.id] == 9  # 0..174, signed
    assert Session([], 10.0).check(tm.lt(171, ranged[2])).status == "unsat"
    assert Session([], 10.0).check(tm.lt(171, free[0])).status == "sat"


def test_evaluating_under_several_assignments_at_once_is_evaluating_each() -> None:
    """terms.Evaluators (random games checked against a trace in one pass) gives every term,
    under each assignment, the value terms.evaluate gives: a boolean's bit g, an integer's
    element g."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rulecheck.verifier import terms as tm

    terms, values, _ = random_terms()

    @settings(max_examples=300, deadline=None)
    @given(st.lists(terms, min_size=1, max_size=4), st.lists(values, min_size=1, max_size=5))
    def same(checked: list[tm.Term], models: list[dict[str, bool | int]]) -> None:
        value = tm.Evaluators(models)
        for t in checked:
            got = value(t)
            for g, model in enumerate(models):
                want = tm.evaluate(t, model)
                assert (bool(got >> g & 1) if tm.sort_of(t) == tm.BOOL else got[g]) == want

    same()



VOTE = """
game "Vote" {
  players 2..3
  source "Three proposals are put to the vote. A player may veto once per game; a player whose veto is used need not vote."
}

var vetoes_left[player]: 0..1 = 1 "a player's veto, until used"
var passed: 0..3 = 0 "the proposals passed"
var counted: 0..3 = 0 "the ballots of one kind in the last vote"

define voters -> set of player "who votes" varies by who_votes

define ballots(q: player) -> set of bool "true backs, false vetoes"
  = {b for b in {true, false} if b or vetoes_left[q] > 0}
  source "A player may veto once per game."

procedure vote() "every voter shows a ballot at once" source "Three proposals are put to the vote." {
  let who = voters
  choose each q in who: ballot from ballots(q) label "votes"
  let vetoed = {q for q in who if not ballot[q]}
  for each q in vetoed {
    set vetoes_left[q] = 0
  }
  set counted = size(COUNTED)
  if size(vetoed) == 0 {
    set passed = passed + 1
  }
}

ambiguity who_votes {
  kind gap
  source "A player whose veto is used need not vote."
  question "Does a player with no veto left vote?"
  reading abstains default "They do not vote." {
    define voters -> set of player = {q for q in players if vetoes_left[q] > 0}
  }
  reading backs "They vote, and can only back the proposal." {
    define voters -> set of player = players
  }
}

flow {
  repeat 3 times {
    vote()
  }
  end winners {p for p in players if vetoes_left[p] > 0 and (counted >= 2 or passed == 3)}
}
"""


def agree_vote(counted: str, n: int) -> bool:
    """Is the vote's ambiguity proven harmless where the game uses it, with the last vote's
    ``counted`` ballots deciding who wins?"""
    rules = rules_of(VOTE.replace("COUNTED", counted))
    v = Verifier(rules, Options(players=[n], timeout=10.0, jobs=1))
    alt = dict(v.base_readings)
    alt["who_votes"] = "backs"
    proven = v.agree_where_used(rules.ambiguities["who_votes"], alt, n)
    assert not proven or v.where_used[n] == ["vote"]
    return proven


@pytest.mark.parametrize("n", [2, 3])
def test_an_extra_chooser_with_one_option_who_changes_nothing_is_proven_harmless(n: int) -> None:
    # who votes differs, so the definition alone proves nothing; but a voter with no veto left
    # can only back the proposal, which passes or not as it would without them
    assert agree_vote("vetoed", n)


@pytest.mark.parametrize("n", [2, 3])
def test_an_extra_chooser_whose_forced_choice_is_counted_is_not_proven(n: int) -> None:
    # the same forced vote, but the game counts the ballots that back: the state after differs
    assert not agree_vote("{q for q in who if ballot[q]}", n)


def test_verify_says_the_procedure_leaves_the_same_table_or_shows_the_game_where_it_does_not() -> None:
    from rulecheck.verifier.verify import verify

    [f] = [f for f in verify(rules_of(VOTE.replace("COUNTED", "vetoed")), Options(timeout=10.0, jobs=1)).findings
           if f.kind == "ambiguity"]
    assert f.status == "proven" and "every call of 'vote' leaves the table in the same state" in f.message, (f.title, f.message)
    [f] = [f for f in verify(rules_of(VOTE.replace("COUNTED", "{q for q in who if ballot[q]}")), Options(timeout=10.0, jobs=1)).findings
           if f.kind == "ambiguity"]
    assert f.status == "witness" and f.verdict == "outcome", (f.title, f.message)


@pytest.mark.parametrize("text, n", [(VOTE.replace("COUNTED", "vetoed"), 3), (TIEBREAK, 3)])
def test_the_models_of_several_random_games_at_once_are_those_of_each_alone(text: str, n: int) -> None:
    """witness.models_of_actions evaluates each decision's condition once for every game (a bit a
    game); each game's model is the one it has alone (simultaneous votes, a deal)."""
    from rulecheck.verifier.witness import models_of_actions, random_game

    v = Verifier(rules_of(text), Options(players=[n], timeout=10.0, jobs=1))
    t = v.base(n)
    program = v.program(v.base_readings)
    games = [random_game(program, n, seed=seed, engine=v.engine(v.base_readings)) for seed in range(12)]
    together = models_of_actions(t, games)
    assert together == [models_of_actions(t, [g])[0] for g in games]
    assert len({tuple(sorted(m.items())) for m in together}) > 1  # the games differ


def vote_apart(counted: str, n: int) -> bool:
    rules = rules_of(VOTE.replace("COUNTED", counted))
    v = Verifier(rules, Options(players=[n], timeout=10.0, jobs=1))
    alt = dict(v.base_readings)
    alt["who_votes"] = "backs"
    return v.random_apart(alt, n, APART_GAMES)


@pytest.mark.parametrize("n", [2, 3])
def test_random_games_replayed_under_the_other_reading_show_which_readings_play_apart(n: int) -> None:
    # an extra voter whose only ballot backs: no choice, whichever option it is (the engine of
    # the reading where they abstain offers them the pass), so the games play alike
    assert not vote_apart("vetoed", n)
    # counted, that forced ballot changes who wins in some of the random games
    assert vote_apart("{q for q in who if ballot[q]}", n)


def test_no_proof_that_the_readings_play_alike_is_tried_where_random_games_show_they_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local proofs can only fail where a random game plays otherwise under the other reading
    (in a game without open loops: every game fits the loop bound):
    they are not tried there (a proof tried fails the test), and the witness is the same kind."""
    from rulecheck.verifier.verify import verify

    def no_proof(*args: Any) -> bool:
        raise AssertionError("a proof that the readings play alike was tried")

    monkeypatch.setattr(Verifier, "agree_where_used", no_proof)
    monkeypatch.setattr(Verifier, "agree_at_end", no_proof)
    monkeypatch.setattr(Verifier, "end_any_table", no_proof)
    [f] = [f for f in verify(rules_of(VOTE.replace("COUNTED", "{q for q in who if ballot[q]}")), Options(timeout=10.0, jobs=1)).findings
           if f.kind == "ambiguity"]
    assert f.status == "witness" and f.verdict == "outcome", (f.title, f.message)
    with pytest.raises(AssertionError, match="a proof that the readings play alike was tried"):
        verify(rules_of(VOTE.replace("COUNTED", "vetoed")), Options(timeout=10.0, jobs=1))


VOID_ROUNDS = """
game "Void rounds" {
  players 2..3
  source "Six rounds: each round every player bids or passes. The bidders of the last round win, and if nobody bids everybody wins. If more than two players pass, the round is void."
}

var round_no: 0..6 = 0 "the round"
""" + VOID_RULES + """flow {
  repeat until round_no >= 6 {
    set round_no = round_no + 1
    for each p in players {
      choose b from {true, false} by p label "bids"
      set bid[p] = b
    }
  }
  end winners winners_of
}
"""


def test_past_the_smallest_count_random_games_come_before_the_solver_where_games_outrun_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six rounds, a loop bound of 2: every game runs past the solver's bound. The readings part
    only when three players pass in the last round. The solver is asked for 2 players (its
    questions are smallest there) and proves nothing beyond its bound; for 3 players random games
    come first and show the difference, so the solver is never asked there (a search for 3
    players fails the test). The witness says that the games are the same move for move and
    only the result differs."""
    from rulecheck.verifier.verify import verify

    real = Verifier.search

    def only_the_smallest(self: Verifier, traces: Any, goals: Any, n: int, prove: Any = None, parting: Any = None) -> Any:
        assert n == 2, f"the solver was asked for {n} players"
        return real(self, traces, goals, n, prove=prove, parting=parting)

    monkeypatch.setattr(Verifier, "search", only_the_smallest)
    o = verify(rules_of(VOID_ROUNDS), Options(timeout=10.0, jobs=1, loop_bound=2, checks=frozenset({"ambiguity"})))
    [amb] = o.findings
    assert amb.status == "witness" and amb.details["found_by"] == "random play" and amb.details["players"] == 3
    assert amb.witness is not None
    a, b = amb.witness.plays
    assert a.actions == b.actions and a.winners == [] and b.winners
    assert "the two games are the same move for move, on the same table: only the result the rules give at the end differs" in amb.message


STARS = """
game "Stars" {
  players 2..2
  source "Each player draws a card; the highest rank wins. A star card wins outright."
}

enum Mark { plain, star, moon }

card Card "{rank}" {
  rank: 1..5
  mark: Mark
}

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank
  assumed mark because "The rulebook does not say which cards show a star."
  | rank | mark |
  | 1    | star |
  | 2    | moon |
  | 3    | moon |
  | 4    | moon |
  | 5    | moon |
}

define total(p: player) -> int "a player's rank" = sum(c.rank for c in hand[p])
define best -> set of player "the highest rank" = {p for p in players if all(total(p) >= total(q) for q in players)}
define starred -> set of player "who holds a star" = {p for p in players if any(c.mark == star for c in hand[p])}
define winners_of -> set of player "who wins" varies by star_effect

ambiguity star_effect {
  kind ambiguity
  source "A star card wins outright."
  question "Does a star win against a higher rank?"
  reading outright default "A star wins whatever the ranks." {
    define winners_of -> set of player = if size(starred) == 1 then starred else best
  }
  reading ranks "The ranks decide." {
    define winners_of -> set of player = best
  }
}

flow {
  for each p in players {
    draw 1 from deck to hand[p]
  }
  end winners winners_of
}
"""


def test_a_free_tables_values_are_one_each_and_a_dependence_names_only_the_values_that_matter() -> None:
    """With the assumed data free, each attribute takes exactly one value of its domain (no
    model may give a card two marks, or none, and call it a table); and a witness that depends on
    the data names the values that matter and nothing beside: one card's mark (the star that won
    outright gone, or a second star), not the marks of the other cards, which the solver's first
    model changes too."""
    from rulecheck.verifier import terms as tm
    from rulecheck.verifier.verify import verify
    from rulecheck.verifier.z3backend import Session

    rules = rules_of(STARS)
    v = Verifier(rules, Options(players=[2], timeout=10.0, jobs=1))
    t = v.free_base(2)
    read = {x.args[0] for x in t.attr_vars}
    assert {f"attr|Card|{c}|mark|{k}" for c in range(5) for k in range(3)} <= read
    session = Session(t.constraints, 10.0)
    for c in range(5):
        two = tm.and_(tm.bool_var(f"attr|Card|{c}|mark|0"), tm.bool_var(f"attr|Card|{c}|mark|2"))
        none = tm.and_all(tm.not_(tm.bool_var(f"attr|Card|{c}|mark|{k}")) for k in range(3))
        assert session.check(two).status == "unsat" and session.check(none).status == "unsat"
    o = verify(rules, Options(players=[2], timeout=10.0, jobs=1, checks=frozenset({"ambiguity", "sensitivity"})))
    [amb] = [f for f in o.findings if f.kind == "ambiguity"]
    [sens] = [f for f in o.findings if f.kind == "sensitivity"]
    assert amb.status == "witness" and sens.details.get("table"), sens.details
    # one value: the star card's star gone, or the other card's star come
    table = sens.details["table"]
    assert "; " not in table and (table.endswith("(assumed star)") or table.endswith(": mark star (assumed moon)")), table
