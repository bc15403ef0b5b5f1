"""Loving Penguin: the ruleset checks clean against its rulebook, the bids and request cards mean what
the rule says under each reading, random legal play keeps every declared invariant under random
readings, and `rulecheck play` logs are stable."""

from __future__ import annotations

import io
import random
from functools import cache
from typing import Any

import pytest
from conftest import ROOT, seed_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulecheck.cli import main
from rulecheck.dsl import ir
from rulecheck.dsl.coupling import Coupled
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.quotes import check_quotes, normalize
from rulecheck.interpreter.machine import Machine
from rulecheck.interpreter.play import play_random, random_step
from rulecheck.interpreter.state import Game

RULES = ROOT / "rulesets" / "loving_penguin.rules"
RULEBOOK = "002_1405677882e650ee.txt"
GOLDEN = ROOT / "tests" / "golden" / "penguin"
#: Normal and Long games may in principle never end (e.g. with per-round scores); reaching this many
#: decisions counts as "still playing", not as a failure.
MAX_DECISIONS = 1200


@cache
def rules() -> ir.Ruleset:
    loaded = load_path(RULES)
    assert loaded.rules is not None, loaded.diagnostics.items
    return loaded.rules


def length(name: str) -> int:
    return rules().enums["GameLength"].values.index(name)


# ---- the ruleset and its rulebook ---------------------------------------------------------------


def test_checks_without_errors_or_warnings() -> None:
    loaded = load_path(RULES)
    assert loaded.ok
    assert [d.message for d in loaded.diagnostics.items] == []


def test_every_quote_is_in_the_rulebook() -> None:
    book = seed_text(RULEBOOK)
    assert [d.message for d in check_quotes(rules(), book)] == []


def test_check_command_with_rulebook_is_clean() -> None:
    seed_text(RULEBOOK)
    code, _out, err = run_cli("check", str(RULES), "--rulebook", str(ROOT.parent / "shared" / "seeds" / RULEBOOK), "--strict")
    assert code == 0, err
    assert err == ""


def test_check_summary_golden(golden) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("check", "rulesets/loving_penguin.rules")
    assert code == 0
    golden(GOLDEN / "check.txt", out + err)


def test_components() -> None:
    r = rules()
    penguins = r.components_of("Penguin")
    assert len(penguins) == 60
    assert sorted((c.attrs["number"], c.attrs["colour"]) for c in penguins) == [(n, k) for n in range(1, 11) for k in range(1, 7)]
    assert sorted(c.attrs["points"] for c in r.components_of("Present")) == list(range(1, 11))
    assert len(r.components_of("Request")) == 12


def test_request_cards_are_the_rulebooks_list() -> None:
    """One request card per text the rulebook lists, each title printed as in the rulebook."""
    book = normalize(seed_text(RULEBOOK))
    titles = [c.attrs["title"] for c in rules().components_of("Request")]
    assert len(set(titles)) == 12
    for t in titles:
        assert normalize(str(t)) in book, t


def test_bonus_is_unspecified_not_invented() -> None:
    prov = rules().kinds["Request"].provenance
    assert prov["bonus"].kind == "unspecified"
    assert prov["bonus"].default == 10
    assert prov["bonus"].rationale
    assert {a: p.kind for a, p in prov.items()} == {"title": "given", "condition": "given", "n": "given", "bonus": "unspecified"}


def test_ambiguities() -> None:
    ambs = rules().ambiguities
    assert {name: (a.kind, [r.name for r in a.readings]) for name, a in ambs.items()} == {
        "cancel_depth": ("ambiguity", ["cascade", "one_step"]),
        "cancelled_tens": ("ambiguity", ["one_wins", "ten_still_trumps"]),
        "deal_style": ("ambiguity", ["mixed", "one_deck_each"]),
        "next_round": ("gap", ["full_setup", "keep_requests"]),
        "discarded_present": ("gap", ["back_next_round", "out_of_game"]),
        "points_carry": ("gap", ["cumulative", "per_round"]),
        "request_scope": ("ambiguity", ["this_round", "whole_game"]),
        "more_than_five": ("translation", ["or_more", "more_than"]),
        "end_threshold": ("translation", ["more_than", "or_more"]),
        "avoided": ("translation", ["set_aside", "face_up"]),
    }
    for a in ambs.values():
        assert a.sources and a.question
        assert all(r.clarify for r in a.readings), a.name


def test_declared_invariants() -> None:
    assert [i.name for i in rules().invariants] == [
        "penguins_placed", "presents_placed", "requests_placed", "decks_by_players", "requests_dealt", "one_request",
        "full_hands", "hands_shrink", "one_present_per_trick", "round_done", "ended_by_condition", "winners_lead",
    ]


def test_glossary_covers_the_japanese_card_words() -> None:
    terms = {t.term for t in rules().terms}
    assert {"ぴったり", "ちょうど", "以上", "プレゼント", "コ", "ゲット", "のみ"} <= terms


# ---- what the rules mean, situation by situation -------------------------------------------------


def machine(readings: dict[str, str] | None = None, players: int = 3, params: dict[str, Any] | None = None) -> Machine:
    return Machine(ir.bind(rules(), readings or {}), players, params)


def call(m: Machine, name: str, *args: Any) -> Any:
    return m.call(name, list(args), m.program.defs[name].span)


def bid(m: Machine, numbers: list[int]) -> list[int]:
    """Seat q plays a penguin card numbered numbers[q] (each player from a deck of their own colour)."""
    for q, x in enumerate(numbers):
        cid = next(c.cid for c in m.rules.components_of("Penguin") if c.attrs["number"] == x and c.attrs["colour"] == q + 1)
        m.move(cid, ("played", q))
    return numbers


BIDS = [
    # bids, {(cancel_depth, cancelled_tens): winning number, or None when the present card is discarded}
    ([3, 9], {"*": 9}),
    ([1, 9, 5], {"*": 1}),
    ([10, 1], {"*": 10}),
    ([7, 7], {"*": None}),
    ([8, 8, 5], {"*": 5}),
    ([1, 1, 2], {"*": 2}),
    ([8, 8, 5, 5, 3], {"cascade": 3, "one_step": None}),
    ([10, 10, 1], {"one_wins": 1, "ten_still_trumps": None}),
    ([10, 10, 1, 9], {"one_wins": 1, "ten_still_trumps": 9}),
    ([10, 10, 1, 1, 9], {"cascade": 9, "one_step,one_wins": None, "one_step,ten_still_trumps": 9}),
    ([6, 6, 4, 4, 2, 2], {"*": None}),
]


def expected(table: dict[str, int | None], depth: str, tens: str) -> int | None:
    for key in (f"{depth},{tens}", depth, tens, "*"):
        if key in table:
            return table[key]
    raise KeyError((depth, tens))


@pytest.mark.parametrize("depth", ["cascade", "one_step"])
@pytest.mark.parametrize("tens", ["one_wins", "ten_still_trumps"])
@pytest.mark.parametrize(("bids", "table"), BIDS, ids=["-".join(map(str, b)) for b, _ in BIDS])
def test_who_wins_the_present(bids: list[int], table: dict[str, int | None], depth: str, tens: str) -> None:
    m = machine({"cancel_depth": depth, "cancelled_tens": tens}, players=len(bids))
    bid(m, bids)
    want = expected(table, depth, tens)
    assert call(m, "winning_number") == (frozenset() if want is None else frozenset({want}))


def test_card_order() -> None:
    """10 beats the 1, the 1 beats 2 to 9, and otherwise the higher number wins."""
    m = machine()
    order = [10, 1, 9, 8, 7, 6, 5, 4, 3, 2]
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            assert call(m, "beats", a, b) and not call(m, "beats", b, a), (a, b)


def request(m: Machine, title: str) -> int:
    return next(c.cid for c in m.rules.components_of("Request") if c.attrs["title"] == title)


def give_presents(m: Machine, p: int, points: list[int]) -> None:
    for c in m.rules.components_of("Present"):
        if c.attrs["points"] in points:
            m.move(c.cid, ("won", p))


@pytest.mark.parametrize(("title", "points", "readings", "achieved"), [
    ("ぴったり25Point", [10, 9, 6], {}, True),
    ("ぴったり25Point", [10, 9, 5], {}, False),
    ("ぴったり 5Point", [5], {}, True),
    ("プレゼント5コ以上", [1, 2, 3, 4, 5], {"more_than_five": "or_more"}, True),
    ("プレゼント5コ以上", [1, 2, 3, 4, 5], {"more_than_five": "more_than"}, False),
    ("プレゼント5コ以上", [1, 2, 3, 4, 5, 6], {"more_than_five": "more_than"}, True),
    ("プレゼント4コちょうど", [1, 2, 3, 4], {}, True),
    ("プレゼント4コちょうど", [1, 2, 3], {}, False),
    ("プレゼント0コちょうど", [], {}, True),
    ("プレゼント10Pointゲット", [10, 3], {}, True),
    ("プレゼント 1Pointゲット", [10, 3], {}, False),
    ("2,4,6,8,10プレゼントのみ", [2, 8], {}, True),
    ("2,4,6,8,10プレゼントのみ", [2, 3], {}, False),
    ("2,4,6,8,10プレゼントのみ", [], {}, True),
])
def test_request_cards(title: str, points: list[int], readings: dict[str, str], achieved: bool) -> None:
    m = machine(readings)
    give_presents(m, 1, points)
    assert call(m, "achieved", request(m, title), 1) is achieved


def test_request_scope_whole_game_counts_earlier_rounds() -> None:
    m = machine({"request_scope": "whole_game"})
    m.vars["game_points"][0] = 25
    m.vars["game_count"][0] = 3
    assert call(m, "achieved", request(m, "ぴったり25Point"), 0)
    assert not call(machine(), "achieved", request(m, "ぴったり25Point"), 0)


@pytest.mark.parametrize(("game_length", "points", "reading", "ends"), [
    ("normal", 50, "more_than", False),
    ("normal", 51, "more_than", True),
    ("normal", 50, "or_more", True),
    ("long", 100, "more_than", False),
    ("long", 100, "or_more", True),
    ("long", 99, "or_more", False),
    ("short", 0, "more_than", True),
])
def test_end_condition(game_length: str, points: int, reading: str, ends: bool) -> None:
    m = machine({"end_threshold": reading}, params={"length": length(game_length)})
    m.vars["round_no"] = 1
    m.vars["score"][2] = points
    assert call(m, "end_condition") is ends


def test_a_tie_is_a_shared_victory() -> None:
    """'In case of a tie, win together': the rulebook says it, so it is no question (the language
    tells a shared victory from a draw: `end draw`)."""
    m = machine({})
    m.vars["score"].update({0: 60, 1: 20, 2: 60})
    assert call(m, "game_winners") == frozenset({0, 2})
    assert "tie" not in rules().ambiguities


@pytest.mark.parametrize(("players", "each"), [(2, 4), (3, 4), (4, 3), (5, 2), (6, 2)])
def test_request_deal_by_player_count(players: int, each: int) -> None:
    assert call(machine(players=players), "requests_each") == each


# ---- random play ---------------------------------------------------------------------------------


def play_checked(readings: dict[str, str], players: int, game_length: int, seed: int, bonus: int | None = None) -> list[str]:
    """Play one random game up to MAX_DECISIONS; return every invariant broken along the way. A rule
    error (incomplete, conflict, exhaustion, range, non-termination) is raised and fails the test."""
    params: dict[str, Any] = {"length": game_length}
    if bonus is not None:
        params["Request.bonus"] = bonus
    game = Game(ir.bind(rules(), readings), players, params)
    state = game.new_initial_state()
    pick = Coupled(seed)
    broken: list[str] = []
    decisions = 0
    while not state.is_terminal() and decisions < MAX_DECISIONS:
        random_step(state, pick)
        decisions += 1
        broken += state.machine.broken_invariants(at_end=False)
    if state.is_terminal():
        broken += state.machine.broken_invariants(at_end=True)
        assert set(state.returns()) <= {0.0, 1.0}
    elif game_length == length("short"):
        broken.append("a short game did not end")
    return broken


def reading_choices() -> st.SearchStrategy[dict[str, str]]:
    ambs = rules().ambiguities
    return st.fixed_dictionaries({name: st.sampled_from([r.name for r in a.readings]) for name, a in ambs.items()})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    readings=reading_choices(),
    players=st.integers(2, 6),
    game_length=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
    bonus=st.one_of(st.none(), st.integers(1, 55)),
)
def test_random_play_keeps_invariants(readings: dict[str, str], players: int, game_length: int, seed: int, bonus: int | None) -> None:
    assert play_checked(readings, players, game_length, seed, bonus) == []


def every_reading() -> list[tuple[str, str]]:
    return [(a.name, r.name) for a in rules().ambiguities.values() for r in a.readings]


@pytest.mark.parametrize(("ambiguity", "reading"), every_reading())
def test_every_reading_keeps_invariants(ambiguity: str, reading: str) -> None:
    """Each reading of each ambiguity, with the others drawn at random, at every player count."""
    rng = random.Random(f"{ambiguity}={reading}")
    ambs = rules().ambiguities
    for players in range(2, 7):
        readings = {name: rng.choice(a.readings).name for name, a in ambs.items()}
        readings[ambiguity] = reading
        assert play_checked(readings, players, rng.randrange(3), rng.randrange(2**32)) == []


def test_no_present_left_ends_the_game() -> None:
    """Under out_of_game, the readings that leave a round with nothing to decide (one deck each, kept
    request cards) still end once every present card is gone, instead of looping without a decision."""
    readings = {"discarded_present": "out_of_game", "next_round": "keep_requests", "deal_style": "one_deck_each",
                "points_carry": "per_round"}
    ended = 0
    for seed in range(6):
        game = Game(ir.bind(rules(), readings), 2, {"length": length("long")})
        state = game.new_initial_state()
        pick = Coupled(seed)
        for _ in range(4000):
            if state.is_terminal():
                break
            random_step(state, pick)
        if state.is_terminal():
            ended += 1
            assert state.machine.broken_invariants(at_end=True) == []
    assert ended > 0


def test_an_invariant_can_fail() -> None:
    """The invariant check is live: a game stopped half-way breaks the at-end invariants."""
    game = Game(ir.bind(rules(), {}), 4, {"length": length("short")})
    state = game.new_initial_state()
    pick = Coupled(0)
    for _ in range(60):
        random_step(state, pick)
    assert state.machine.broken_invariants(at_end=False) == []
    assert set(state.machine.broken_invariants(at_end=True)) >= {"ended_by_condition"}


# ---- play logs -----------------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


PLAY_CASES = [
    ("2p-seed1-short", ["--players", "2", "--seed", "1", "--param", "length=short"]),
    ("4p-seed2", ["--players", "4", "--seed", "2"]),
    ("6p-seed3-short-readings", ["--players", "6", "--seed", "3", "--param", "length=short",
                                 "--reading", "cancel_depth=one_step", "--reading", "cancelled_tens=ten_still_trumps",
                                 "--reading", "deal_style=one_deck_each", "--reading", "request_scope=whole_game"]),
    ("5p-seed4-readings", ["--players", "5", "--seed", "4",
                           "--reading", "next_round=keep_requests", "--reading", "request_scope=whole_game",
                           "--reading", "more_than_five=more_than", "--reading", "end_threshold=or_more",
                           "--reading", "discarded_present=out_of_game", "--reading", "avoided=face_up"]),
]


@pytest.mark.parametrize(("name", "args"), PLAY_CASES, ids=[c[0] for c in PLAY_CASES])
def test_play_log_golden(name: str, args: list[str], golden) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("play", "rulesets/loving_penguin.rules", *args)
    assert code == 0, err
    assert err == ""
    golden(GOLDEN / f"play-{name}.txt", out)


def test_same_seed_same_log() -> None:
    first = run_cli("play", "rulesets/loving_penguin.rules", "--players", "3", "--seed", "11")
    second = run_cli("play", "rulesets/loving_penguin.rules", "--players", "3", "--seed", "11")
    other = run_cli("play", "rulesets/loving_penguin.rules", "--players", "3", "--seed", "12")
    assert first == second
    assert first[1] != other[1]


def test_bonus_parameter_changes_the_scores() -> None:
    """The unspecified bonus is a parameter (Request.bonus): other values give other totals in the same game."""
    program = ir.bind(rules(), {})
    logs = [play_random(program, 4, 2, {"length": length("short"), **({"Request.bonus": b} if b is not None else {})}).text
            for b in (None, 10, 1)]
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]
    one_card = {c.cid: 30 for c in rules().components_of("Request") if c.attrs["title"] == "プレゼント4コちょうど"}
    # one card's value counts only in the games where someone achieves that card: some of a few do
    assert any(play_random(program, 4, seed, {"length": length("short"), "Request.bonus": one_card}).text
               != play_random(program, 4, seed, {"length": length("short")}).text for seed in range(20))
