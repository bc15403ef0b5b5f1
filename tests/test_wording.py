"""Every verdict a check can reach has words that say it, and only it (reports/wording.py).

For each (kind, verdict) of findings.VERDICTS a finding is made with the facts its check records;
its title, message and the report's verdict sentence must say what the verdict means and never
the opposite (a proven invariant titled "does not hold", a sensitivity proof read as "Proven not
to happen", "the game above" with no game above it)."""

from __future__ import annotations

from typing import Any

import pytest

from rulecheck.dsl.source import Span
from rulecheck.reports import wording
from rulecheck.verifier.findings import VERDICTS, Finding, Play, Witness

SPAN = Span(3, 1, 3, 10)
BOTH = ["a", "b"]

#: the facts each check records for a verdict (see verifier/checks/), as few as the words need
FACTS: dict[tuple[str, str], dict[str, Any]] = {
    **{(k, "happens"): {"what": "'x': no rule decides", "situation": "no case of 'x' applies", "players": 2, "under": "a=b", "default": "never", "default_bound": "every game of 2 players"}
       for k in ("incompleteness", "conflict", "exhaustion")},
    **{(k, "coarse"): {"what": "'x': no rule decides", "situation": "s", "unconfirmed": "2 players", "proven": "3 players"}
       for k in ("incompleteness", "conflict", "exhaustion")},
    **{(k, "timeout"): {"what": "'x': no rule decides", "situation": "s", "unknown": "2 players", "proven": None}
       for k in ("incompleteness", "conflict", "exhaustion")},
    **{(k, "never"): {"what": "'x': no rule decides", "situation": "no case of 'x' applies", "proven": "2 to 4 players",
                      "scope": "under the default readings"} for k in ("incompleteness", "conflict", "exhaustion")},
    ("invariant", "holds-any-length"): {"desc": "d", "at_end": False, "players": "2 to 4 players", "scope": "under the default readings"},
    ("invariant", "holds"): {"desc": "d", "at_end": True, "proven": "2 to 4 players", "scope": "under the default readings"},
    ("invariant", "broken"): {"desc": "d", "at_end": False, "players": 2},
    ("invariant", "timeout"): {"desc": "d", "unknown": "4 players", "proven": "2 to 3 players", "scope": "under the default readings"},
    ("invariant", "endless"): {"desc": "d", "at_end": True, "endless": "6 players", "unknown": None, "proven": "2 to 5 players",
                               "scope": "under the default readings"},
    ("non-termination", "no-open-loop"): {"players": "2 to 4 players", "longest": 12, "scope": "under the default readings"},
    ("non-termination", "drains"): {"zone": "deck", "scope": "under the default readings"},
    ("non-termination", "ranked"): {"progress": "adds a point", "condition": "no one has 50", "passes": 50, "players": "2 players",
                                    "scope": "under the default readings"},
    ("non-termination", "measured"): {"players": "2 players", "grows": ["'left'", "'right'"], "shrinks": [],
                                      "scope": "under the default readings"},
    ("non-termination", "within-bound"): {"proven": "2 players", "loop_bound": 3, "scope": "under the default readings"},
    ("non-termination", "lasso"): {"players": 2, "counters": ["round"]},
    ("non-termination", "timeout"): {"loop_bound": 3, "unknown": "2 players"},
    ("dead-rule", "dead"): {"what": "the 'else' branch", "players": "2 to 4 players", "scope": "under the default readings",
                            "other_readings": "random games under each of the 3 other readings never reach it"},
    ("dead-rule", "other-reading"): {"what": "the 'else' branch", "players": "2 to 4 players", "under": "x=y", "witness_players": 2},
    ("dead-rule", "not-reached"): {"what": "the 'else' branch", "players": "2 players", "why": "the solver ran out of time"},
    **{("ambiguity", v): {"readings": BOTH, "players": 2, "question": "Q?", "divergence": "Player 1 wins under 'a'"}
       for v in ("outcome", "moves", "information")},
    ("ambiguity", "harmless"): {"readings": BOTH, "proven": "2 players", "how": ""},
    ("ambiguity", "same-rule"): {"readings": BOTH, "why": "give 'x' the same body"},
    ("ambiguity", "coarse"): {"readings": BOTH, "players": 2},
    ("ambiguity", "timeout"): {"readings": BOTH, "unknown": "4 players", "proven": "2 players"},
    ("ambiguity", "endless"): {"readings": BOTH, "endless": "2 players"},
    ("translation", "threshold"): {"phrases": [
        {"lang": "en", "text": "more than 5", "op": ">", "number": 5, "means": "6 or more (> 5)", "agrees_with_rule": False,
         "excerpt": "more than 5 cards", "flagged": True, "side": 1}],
        "formal": [{"op": ">=", "number": 5, "shown": ">= 5", "means": "5 or more (>= 5)"}]},
    ("translation", "quantifier"): {"said": "some-not", "formal": "none", "clause": "anyone did not pass", "lang": "en"},
    ("translation", "count"): {"said": 2, "formal": 3, "phrase": "2 cards", "what": "draws"},
    ("sensitivity", "any-table"): {"how": "proof", "data": ["Card.rank"]},
    ("sensitivity", "depends"): {"how": "witness", "table": "Card 1: rank 2 (assumed 1)", "data": ["Card.rank"]},
    ("sensitivity", "undecided"): {"how": "witness", "data": ["Card.rank"]},
    **{("edition-difference", v): {"editions": ["First", "Second"], "what": "the procedure score", "in": [True, True],
                                   "values": ["2 tokens", "1 token"], "area": "scoring", "event": "Player 1 wins in First only",
                                   "games": 40, "players": [3]}
       for v in ("changes-result", "changes-moves", "information-only", "cosmetic", "data", "counts", "masked")},
    ("deduction", "always"): {"who": "Player 1", "label": "guesses", "desc": "where the Spy is", "proven": "3 players"},
    ("deduction", "not-always"): {"who": "Player 1", "label": "guesses", "desc": "where the Spy is", "pair": "two deals",
                                  "share": "9 of 40", "games": 40, "players_text": "3 players", "wins": "30 of 40", "baseline": "33%"},
    ("deduction", "undecided"): {"who": "Player 1", "label": "guesses", "desc": "where the Spy is", "why": "too many positions"},
}

#: words the title must carry (what the verdict is), and words it must not (the opposite)
SAYS: dict[str, tuple[str, ...]] = {
    "happens": ("it happens",), "never": ("never happens",), "coarse": ("not decided",), "timeout": ("not decided", "no end proven"),
    "holds-any-length": ("holds",), "holds": ("holds",), "broken": ("can be broken",), "endless": ("not decided",),
    "no-open-loop": ("every game ends",), "drains": ("always ends",), "ranked": ("always ends",), "measured": ("always ends",), "within-bound": ("always ends",),
    "lasso": ("for ever",), "dead": ("never applies",), "other-reading": ("applies only under",), "not-reached": ("not reached",),
    "outcome": ("different results",), "moves": ("different moves",), "information": ("different things",),
    "harmless": ("harmless",), "same-rule": ("the same rule",), "any-table": ("holds whatever",), "depends": ("depends on",),
    "undecided": ("not decided",), "threshold": ("disagree",), "quantifier": ("the formal rule says",), "count": ("the rule draws",),
    "changes-result": ("games end differently",), "changes-moves": ("allow different moves",),
    "information-only": ("never in a move or a result",), "cosmetic": ("only a name",), "data": ("other components",),
    "counts": ("other player counts",), "masked": ("no game of the search parted",),
    "always": ("can always know",), "not-always": ("cannot always know",),
}
NEVER_WHEN_PROVEN = ("does not hold", "can be broken", "it happens", "depends on", "different results", "for ever")


def finding(kind: str, verdict: str, witness: bool) -> Finding:
    status, severity = VERDICTS[(kind, verdict)]
    w = None
    if witness:
        w = Witness(2, [], [Play("the game", {}, [0], ["Player 1 wins"], "Player 1 wins", [0], True)], "it shows")
    return Finding(kind, severity, status, "x", "", "", SPAN, witness=w, details=dict(FACTS[(kind, verdict)]), verdict=verdict)


def test_every_verdict_has_facts_here() -> None:
    assert set(FACTS) == set(VERDICTS)


@pytest.mark.parametrize(("kind", "verdict"), sorted(VERDICTS))
def test_words_say_the_verdict(kind: str, verdict: str) -> None:
    status, _ = VERDICTS[(kind, verdict)]
    has_game = status == "witness" and kind != "sensitivity"
    f = finding(kind, verdict, witness=has_game)
    title, message = wording.word(f)
    assert title and message and "{" not in title + message and "None" not in title + message, (title, message)
    assert any(w in title for w in SAYS[verdict]), title
    sentence = wording.verdict_sentence(f)
    if status == "proven":
        assert not any(w in title.lower() for w in NEVER_WHEN_PROVEN), title
        assert sentence.startswith("Proven"), sentence
        assert "not to happen" not in sentence or kind in ("incompleteness", "conflict", "exhaustion"), sentence
    if status == "unknown":
        assert "not a proof" in sentence, sentence
    if status == "witness":
        assert ("the game above" in sentence or "the games above" in sentence) == (f.witness is not None), sentence
    if f.details.get("scope"):
        assert f.details["scope"] in message, message  # a claim about the model says its readings


def test_a_game_is_never_promised_where_there_is_none() -> None:
    for (kind, verdict), (status, _) in VERDICTS.items():
        if status == "witness":
            sentence = wording.verdict_sentence(finding(kind, verdict, witness=False))
            assert "game above" not in sentence and "games above" not in sentence, (kind, verdict)


def test_harmless_how() -> None:
    how = wording.harmless_how(names=["tie"], moved=[], locally=None, local_all=False, at_end="2 to 4 players", end_all=True,
                               invariants=["one_winner"])
    assert "uses 'tie' only to name its winners" in how and "the invariant 'one_winner' holds" in how
    assert wording.players_span([2, 3, 4], 3) == "2 to 4 players (up to 3 passes of each open loop)"


def test_a_local_proof_within_the_loop_bound_says_so() -> None:
    # a local proof follows the game up to the loop bound: where games run past it, "every game
    # goes exactly the same way" would claim more than was proven
    kw: dict[str, Any] = {"names": ["give_back"], "moved": ["give_back"], "locally": "2 players", "local_all": True,
                          "at_end": None, "end_all": False, "invariants": []}
    assert wording.harmless_how(**kw).endswith("so every game goes exactly the same way.")
    bounded = wording.harmless_how(**kw, within="its first 3 passes of each open loop")
    assert bounded.endswith("so every game goes exactly the same way within its first 3 passes of each open loop.")


def test_a_sensitivity_left_open_because_the_solver_named_no_other_table_says_so() -> None:
    for how in ("witness", "proof"):
        f = finding("sensitivity", "undecided", witness=False)
        f.details.update(how=how, unnamed=True)
        _, message = wording.word(f)
        assert "was not decided (the solver's answer named no table other than the assumed one)" in message, message
        assert "in time" not in message and "with the assumed values" not in message


def test_a_random_play_witness_no_other_table_replays_claims_nothing_of_every_table() -> None:
    # "the difference with every table with which it can be replayed" is true of no table at all
    f = finding("sensitivity", "undecided", witness=False)
    f.details.update(how="replay", columns="Token.worth", tried=0, tables=22)
    _, message = wording.word(f)
    assert message.startswith("The witness game could not be replayed with any of the 22 tables of Token.worth tried"), message
    assert "every table" not in message and "is not known" in message
    f.details.update(tried=3)
    _, message = wording.word(f)
    assert "with every table of Token.worth with which it can be replayed (3 of the 22 tried" in message, message


def test_a_measure_made_of_other_numbers_at_another_count_says_which_at_which() -> None:
    # the numbers of every count's measure together are no count's measure: "every pass adds to"
    # all of them would claim of each count what was proven of another
    by_count = [{"players": "2 players", "grows": ["'a'", "'b'"], "shrinks": []},
                {"players": "3 to 4 players", "grows": ["'a'"], "shrinks": ["the size of 'deck'"]}]
    f = finding("non-termination", "measured", witness=False)
    f.details.update(players="2 to 4 players", grows=["'a'", "'b'"], shrinks=["the size of 'deck'"], by_count=by_count)
    _, message = wording.word(f)
    assert message.startswith("In games of 2 players every pass through this loop adds to 'a' and 'b'; in games of 3 to 4 "
                              "players every pass through this loop adds to 'a' and takes from the size of 'deck', never"), message
    f = finding("non-termination", "lasso", witness=True)
    f.details.update(ranked_under=[{"reading": "x=y", "players": "2 to 4 players", "open": "5 to 6 players",
                                    "grows": ["'a'", "'b'"], "shrinks": ["the size of 'deck'"], "by_count": by_count}])
    _, message = wording.word(f)
    assert ("proven to end in every game of 2 to 4 players: in games of 2 players every pass adds to 'a' and 'b'; in games "
            "of 3 to 4 players every pass adds to 'a' and takes from the size of 'deck', never the other way") in message, message


@pytest.mark.parametrize(("kind", "verdict"), [("exhaustion", "never"), ("invariant", "holds")])
def test_a_proof_for_games_of_any_length_says_however_long(kind: str, verdict: str) -> None:
    # the verifier's line names every count proven for any length last ("2 to 4 players, any
    # length"): the sentence says so, not "any length under the default readings"
    f = finding(kind, verdict, witness=False)
    f.details["proven"] = "2 to 4 players, any length"
    _, message = wording.word(f)
    assert "2 to 4 players under the default readings, however long" in message, message
    assert "any length" not in message
