"""The translation check: the phrase readers, the comparison with the formal rule, and end-to-end
runs on the small rulesets in tests/verify/translation/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, seed_text

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path, load_text
from rulecheck.dsl.quotes import all_sources
from rulecheck.verifier.translation import (
    check_translations,
    formal_claims,
    kanji_number,
    meaning,
    near_miss,
    read_english,
    read_japanese,
    read_phrases,
    same_line,
    sites,
)

HERE = ROOT / "tests" / "verify" / "translation"


def _read(text: str, lang: str) -> list[tuple[str, int, str]]:
    phrases = read_phrases(text, lang)
    for p in phrases:
        assert text[p.start : p.end] == p.text  # the span is exact
        assert p.lang == lang
    return [(p.op, p.number, p.text) for p in phrases]


# ---- the English reader -------------------------------------------------------------------------

ENGLISH = [
    ("more than 5 present cards you got", [(">", 5, "more than 5")]),
    ("Normal Game: when round is over, any player has more than 50 points.", [(">", 50, "more than 50")]),
    ("Long Game: when round is over, any player has more than 100 points.", [(">", 100, "more than 100")]),
    ("collects more than 7 bean tokens after the round", [(">", 7, "more than 7")]),
    ("a player with over 50 points", [(">", 50, "over 50")]),
    ("if the total exceeds 21", [(">", 21, "exceeds 21")]),
    ("a sum greater than 10", [(">", 10, "greater than 10")]),
    ("at least 2 cards", [(">=", 2, "at least 2")]),
    ("If 2 or more players have the highest penguin cards", [(">=", 2, "2 or more")]),
    ("with 3 players or more", [(">=", 3, "3 players or more")]),
    ("ages 8 and over", [(">=", 8, "8 and over")]),
    ("less than 3 tokens", [("<", 3, "less than 3")]),
    ("fewer than 3 tokens", [("<", 3, "fewer than 3")]),
    ("a hand of under 10 points", [("<", 10, "under 10")]),
    ("at most 4 cards", [("<=", 4, "at most 4")]),
    ("4 cards or fewer", [("<=", 4, "4 cards or fewer")]),
    ("5 or less", [("<=", 5, "5 or less")]),
    ("draw up to 3 cards", [("<=", 3, "up to 3")]),
    ("move within 2 spaces", [("<=", 2, "within 2")]),
    ("exactly 0 present cards", [("==", 0, "exactly 0")]),
    ("just 4 present cards you got", [("==", 4, "just 4")]),
    ("the total points is just 25 you got", [("==", 25, "just 25")]),
    ("the total points is just  5 you got", [("==", 5, "just  5")]),
    ("no more than 5 cards", [("<=", 5, "no more than 5")]),
    ("not less than 2 chips", [(">=", 2, "not less than 2")]),
    ("not exactly 3", [("!=", 3, "not exactly 3")]),
    ("more than 1,000 points", [(">", 1000, "more than 1,000")]),
    ("more than ５ cards", [(">", 5, "more than ５")]),
    ("at least 2 and at most 3 present cards", [(">=", 2, "at least 2"), ("<=", 3, "at most 3")]),
    ("MORE THAN 5", [(">", 5, "MORE THAN 5")]),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english_reads(text: str, expected: list[tuple[str, int, str]]) -> None:
    assert _read(text, "en") == expected


# Wording that is not a comparison of a quantity with a number: none of it may be flagged.
ENGLISH_NOT = [
    "there is more than one way to read it",  # number words are not read
    "more than one way",
    "I just now played my card",
    "just as before",
    "game over",
    "the round is over",
    "When the round is over, the next round is started.",
    "turn over 2 cards",  # a phrasal verb
    "Turn over 3 coasters",
    "hand over 2 chips",
    "put it under 2 cards",  # a place
    "place the token under 3 cards",
    "over 3 rounds",  # a duration
    "spread over 2 turns",
    "just 2 more cards",  # "only 2 more", not "exactly 2"
    "5 more or less",  # "about 5"
    "more than 2.5",  # not an integer
    "2,4,6,8,10 or less",  # a list
    "2-3 players or more",  # a range
    "50% or more",
    "the 5th or more",
    "more than half",
    "more than others",
    "at least once",
    "the highest card wins",
    "The number of \"1\" penguin card is higher than all cards",
    "2-3 players:each player gets 4 request cards.",
    "10 present cards(1～10points)",
    "If no one fulfills the end condition, then next round is started.",
    "exactly as printed",
    "within reach",
    "up to you",
]


@pytest.mark.parametrize("text", ENGLISH_NOT)
def test_english_ignores(text: str) -> None:
    assert read_english(text) == []


# ---- the Japanese reader ------------------------------------------------------------------------

JAPANESE = [
    ("プレゼント5コ以上", [(">=", 5, "5コ以上")]),
    ("プレゼント4コちょうど", [("==", 4, "4コちょうど")]),
    ("プレゼント0コちょうど", [("==", 0, "0コちょうど")]),
    ("ぴったり25Point", [("==", 25, "ぴったり25Point")]),
    ("ぴったり 5Point", [("==", 5, "ぴったり 5Point")]),
    ("年齢 :10 歳以上", [(">=", 10, "10 歳以上")]),
    ("３枚以下", [("<=", 3, "３枚以下")]),
    ("3枚未満", [("<", 3, "3枚未満")]),
    ("5点超", [(">", 5, "5点超")]),
    ("50点を超えたら", [(">", 50, "50点を超えたら")]),
    ("5点を超えない", [("<=", 5, "5点を超えない")]),
    ("合計15点を上回らない", [("<=", 15, "15点を上回らない")]),
    ("10点より多い", [(">", 10, "10点より多い")]),
    ("3マス以内", [("<=", 3, "3マス以内")]),
    ("ちょうど5枚", [("==", 5, "ちょうど5枚")]),
    ("合計十点以上", [(">=", 10, "十点以上")]),
    ("二十五点ちょうど", [("==", 25, "二十五点ちょうど")]),
    ("百二十点以上", [(">=", 120, "百二十点以上")]),
    ("一人以上", [(">=", 1, "一人以上")]),
    ("2人以上4人以下", [(">=", 2, "2人以上"), ("<=", 4, "4人以下")]),
    ("プレゼント5コを超えたら3点", [(">", 5, "5コを超えたら")]),
]


@pytest.mark.parametrize(("text", "expected"), JAPANESE)
def test_japanese_reads(text: str, expected: list[tuple[str, int, str]]) -> None:
    assert _read(text, "ja") == expected


JAPANESE_NOT = [
    "以上です",  # "that is all"
    "以上のルールで遊びます",  # "the rules above"
    "以上、5点です",
    "5。以上です",
    "以下の通り",  # "as follows"
    "1. 以下のとおり",
    "ぴったり〇Point",  # 〇 is a placeholder here, not zero
    "プレゼント〇コ",
    "ちょうどいい",
    "ちょうど5時",  # a clock time
    "第3ラウンド以上",  # an ordinal
    "3位以上",  # a rank
    "3回目以上",
    "1～3枚以上",  # a range
    "統一以上",  # 一 inside a word
    "十分以上に",  # 十分: "enough"
    "十百以上",  # not a simple numeral
    "一番以上",
    "人数 :2-6 人",
    "硬さを示す数字 1~7 の関係",
]


@pytest.mark.parametrize("text", JAPANESE_NOT)
def test_japanese_ignores(text: str) -> None:
    assert read_japanese(text) == []


def test_readers_do_not_read_each_other() -> None:
    assert read_english("プレゼント5コ以上") == []
    assert read_japanese("more than 5 present cards you got") == []


def test_mixed_line_is_read_by_both_readers() -> None:
    text = '"プレゼント5コ以上"：more than 5 present cards you got'
    assert [(p.lang, p.op, p.number, p.text) for p in read_phrases(text)] == [("ja", ">=", 5, "5コ以上"), ("en", ">", 5, "more than 5")]


def test_unknown_language_has_no_reader() -> None:
    assert read_phrases("5개 이상", "ko") == []
    assert read_phrases("more than 5", "en-GB") == [read_english("more than 5")[0]]


@pytest.mark.parametrize(("text", "value"), [
    ("五", 5), ("十", 10), ("十二", 12), ("二十五", 25), ("百", 100), ("百二十", 120), ("三千五百", 3500),
    ("一〇", 10), ("二五", 25), ("零", 0), ("〇", None), ("十百", None), ("二三十", None), ("十〇", None), ("五a", None), ("", None),
])
def test_kanji_number(text: str, value: int | None) -> None:
    assert kanji_number(text) == value


# ---- lines and near misses ----------------------------------------------------------------------


def test_same_line_on_integers() -> None:
    assert same_line((">", 4), (">=", 5))
    assert same_line((">=", 5), ("<", 5))  # the same line seen from the other side
    assert same_line((">", 5), ("<=", 5))
    assert same_line(("==", 4), ("!=", 4))
    assert not same_line((">", 5), (">=", 5))
    assert not same_line(("==", 4), (">=", 4))
    assert not same_line((">", 5), (">", 6))


def test_same_line_within_a_type_range() -> None:
    assert same_line(("==", 4), (">=", 4), 2, 4)  # 4 players in a 2-4 player game
    assert same_line(("==", 0), ("<", 1), 0, None)  # an empty count
    assert not same_line(("==", 0), ("<", 1))
    assert not same_line(("==", 3), (">=", 3), 2, 4)


def test_near_miss() -> None:
    assert near_miss((">", 5), (">=", 5))
    assert near_miss((">=", 5), (">", 5))
    assert near_miss((">", 5), (">", 4))  # > 4 is the formal spelling of >= 5
    assert near_miss(("==", 4), (">=", 4))
    assert not near_miss((">", 5), (">=", 7))  # a different number, not a slip
    assert not near_miss((">=", 4), ("==", 4))  # match arms list values one by one
    assert not near_miss(("==", 4), ("==", 5))
    assert not near_miss((">", 5), (">", 5))


def test_meaning() -> None:
    assert meaning(">", 5) == "6 or more (> 5)"
    assert meaning(">=", 5) == "5 or more (>= 5)"
    assert meaning("<", 5) == "4 or fewer (< 5)"
    assert meaning("<=", 5) == "5 or fewer (<= 5)"
    assert meaning("==", 4) == "exactly 4 (== 4)"
    assert meaning("!=", 4) == "anything but 4 (!= 4)"


# ---- sources and the IR they annotate ------------------------------------------------------------


def _load(name: str) -> ir.Ruleset:
    loaded = load_path(HERE / name if not name.startswith("rulesets/") else ROOT / name)
    assert loaded.ok, loaded.diagnostics.sorted()
    assert loaded.rules is not None
    return loaded.rules


RULESETS = sorted(p.name for p in HERE.glob("*.rules"))


@pytest.mark.parametrize("name", [*RULESETS, "rulesets/cinderella.rules"])
def test_sites_cover_every_source(name: str) -> None:
    rules = _load(name)
    assert {id(s.source) for s in sites(rules)} == {id(s) for s in all_sources(rules)}


def _site(rules: ir.Ruleset, subject: str, quote: str) -> list[tuple[str, int]]:
    [site] = [s for s in sites(rules) if s.subject == subject and s.source.quotes[0].text.startswith(quote)]
    return [(c.op, c.number) for c in formal_claims(rules, site)]


def test_formal_claims_follow_the_ir() -> None:
    rules = _load("all_agree.rules")
    assert _site(rules, "request_bonus, case five_or_more", "5 or more") == [(">", 4)]
    assert _site(rules, "request_bonus, case some", "at least 2") == [("<=", 3), (">=", 2)]  # in 2..3
    assert _site(rules, "flow", "more than 5 present") == [(">", 5)]
    assert _site(rules, "flow", "5 present cards or fewer") == [(">", 5)]  # the else branch: its condition
    assert _site(rules, "flow", "If nobody") == [(">=", 3)]
    # The definition cited on its own, and the statement: the definition's comparisons come through
    # the call, but the cases that cite their own quotes are not the definition's.
    assert _site(rules, "total", "When end") == []
    rules = _load("end_condition.rules")
    assert _site(rules, "game_over, case long_game", "Long Game") == [(">", 100)]  # passes(score[p], 100)
    assert _site(rules, "game_over, case short_game", "Short Game") == [(">=", 1)]


# ---- end to end ----------------------------------------------------------------------------------


def _findings_json(rules: ir.Ruleset) -> str:
    return json.dumps([f.to_json() for f in check_translations(rules)], ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize("name", RULESETS)
def test_golden_findings(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    rules = _load(name)
    out = _findings_json(rules)
    assert out == _findings_json(_load(name))  # deterministic
    golden(HERE / (Path(name).stem + ".findings.json"), out)


def test_english_disagrees_with_formal_rule_and_japanese() -> None:
    [f] = check_translations(_load("english_slip.rules"))
    assert (f.kind, f.status, f.severity) == ("translation", "static", "warning")
    assert f.subject == "request_bonus, case five_or_more"
    assert (f.span.line, f.span.col) == (35, 5)
    assert [(q.lang, q.text) for q in f.quotes] == [(None, "more than 5 present cards you got"), ("ja", "プレゼント5コ以上")]
    assert f.message.startswith(
        "The Japanese 「プレゼント5コ以上」 means 5 or more (>= 5), and so does the formal rule; "
        "the English 'more than 5 present cards you got' means 6 or more (> 5)."
    )
    phrases = {(p["lang"], p["op"], p["number"], p["agrees_with_rule"]) for p in f.details["phrases"]}
    assert phrases == {("en", ">", 5, False), ("ja", ">=", 5, True)}
    assert [(c["op"], c["number"]) for c in f.details["formal"]] == [(">=", 5)]


def test_all_agree() -> None:
    assert check_translations(_load("all_agree.rules")) == []


def test_end_condition_more_than_50_is_not_flagged() -> None:
    assert check_translations(_load("end_condition.rules")) == []


def test_formal_rule_slips_in_one_language() -> None:
    found = check_translations(_load("formal_slip.rules"))
    assert [(f.subject, f.details["phrases"][0]["op"], f.details["formal"][0]["op"]) for f in found] == [
        ("game_over", ">", ">="),
        ("achieved", "==", ">="),
    ]
    assert found[0].message.startswith("The formal rule says 50 or more (>= 50), but the English 'any player has more than 50 points' means 51 or more (> 50).")


def test_mixed_line() -> None:
    [f] = check_translations(_load("mixed_line.rules"))
    assert {(p["lang"], p["agrees_with_rule"]) for p in f.details["phrases"]} == {("en", False), ("ja", True)}


def test_declared_ambiguity_covers_both_editions() -> None:
    [f] = check_translations(_load("declared_ambiguity.rules"))
    assert f.subject == "limit"  # the variable's editions; the ambiguity's readings cover its sentence
    assert f.details["formal"] == []
    assert f.message.startswith(
        "The English 'You may keep more than 5 cards' means 6 or more (> 5), but the Japanese 「手札は5枚以上持てる」 means 5 or more (>= 5)."
    )


# Each change below breaks one agreement of all_agree.rules; the check must notice every one.
MUTATIONS = [
    ("size(got[p]) > 4 => 10", "size(got[p]) > 5 => 10", ["request_bonus, case five_or_more"]),
    ("size(got[p]) == 4 => 8", "size(got[p]) >= 4 => 8", ["request_bonus, case four"]),
    ("total(p) == 25 => 5", "total(p) >= 25 => 5", ["request_bonus, case points"]),
    ("size(got[p]) in 2..3 => 2", "size(got[p]) in 2..4 => 2", ["request_bonus, case some"]),
    ("if size(got[p]) > 5", "if size(got[p]) >= 5", ["flow", "flow"]),  # both the if and the else quote
    ("size(got[q]) >= 3 for q", "size(got[q]) > 3 for q", ["flow"]),
    ('"プレゼント5コ以上"', '"プレゼント5コ超"', ["request_bonus, case five_or_more"]),
    ('"just 4 present cards you got"', '"at least 4 present cards you got"', ["request_bonus, case four"]),
]


@pytest.mark.parametrize(("old", "new", "subjects"), MUTATIONS)
def test_mutations_of_all_agree_are_found(old: str, new: str, subjects: list[str]) -> None:
    text = (HERE / "all_agree.rules").read_text(encoding="utf-8")
    assert text.count(old) == 1
    loaded = load_text(text.replace(old, new), "all_agree.rules")
    assert loaded.ok and loaded.rules is not None
    assert [f.subject for f in check_translations(loaded.rules)] == subjects


def test_more_than_two_players_in_a_three_player_game() -> None:
    # all_agree formalizes "more than 2 players" as num_players == 3 (players 2..3); with 4 players
    # possible the two no longer mean the same, but "== 3" against "> 2" is no slip of one number.
    # The statement also calls request_bonus, whose case "in 2..3" (>= 2) cites its own quote: it
    # is that case's comparison, not a near miss of this quote.
    text = (HERE / "all_agree.rules").read_text(encoding="utf-8").replace("players 2..3", "players 2..4")
    loaded = load_text(text, "all_agree.rules")
    assert loaded.rules is not None
    assert check_translations(loaded.rules) == []


def test_cinderella_has_one_translation_finding_the_moved_negation() -> None:
    """No threshold of Cinderella's quotes disagrees with its rule; the one finding is the
    quantifier of "If anyone did not present a NO! Chip", cited where no player presented one."""
    (f,) = check_translations(_load("rulesets/cinderella.rules"))
    assert f.details["check"] == "quantifier" and (f.details["said"], f.details["formal"]) == ("some-not", "none")


def test_loving_penguin_rulebook_lines() -> None:
    book = seed_text("002_1405677882e650ee.txt")
    found = [(p.lang, p.op, p.number, p.text) for line in book.splitlines() for p in read_phrases(line)]
    assert found == [
        ("en", ">", 50, "more than 50"),
        ("en", ">", 100, "more than 100"),
        ("en", ">=", 2, "2 or more"),
        ("ja", "==", 25, "ぴったり25Point"),
        ("en", "==", 25, "just 25"),
        ("ja", "==", 15, "ぴったり15Point"),
        ("en", "==", 15, "just 15"),
        ("ja", "==", 12, "ぴったり12Point"),
        ("en", "==", 12, "just 12"),
        ("ja", "==", 10, "ぴったり10Point"),
        ("en", "==", 10, "just 10"),
        ("ja", "==", 5, "ぴったり 5Point"),
        ("en", "==", 5, "just \u00a05"),  # the rulebook pads with a no-break space
        ("ja", ">=", 5, "5コ以上"),
        ("en", ">", 5, "more than 5"),
        ("ja", "==", 4, "4コちょうど"),
        ("en", "==", 4, "just 4"),
        ("ja", "==", 2, "2コちょうど"),
        ("en", "==", 2, "just 2"),
        ("ja", "==", 0, "0コちょうど"),
        ("en", "==", 0, "just 0"),
    ]


@pytest.mark.parametrize("name", ["000_c6ed9cf66444a7c4.txt", "001_c1cf31131da53fa8.txt", "003_4a940997a66707e1.txt", "004_f623f8a487391db2.txt"])
def test_other_rulebooks(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    # Every phrase the readers find in the other rulebooks, reviewed once: a new false reading shows
    # up as a diff.
    book = seed_text(name)
    lines = [f"{n}: {p.lang} {p.op} {p.number} {p.text!r}" for n, line in enumerate(book.splitlines(), 1) for p in read_phrases(line)]
    golden(HERE / "seeds" / (Path(name).stem + ".phrases.txt"), "\n".join(lines) + "\n")


def _variant(name: str, old: str, new: str) -> ir.Ruleset:
    text = (HERE / name).read_text(encoding="utf-8")
    assert text.count(old) == 1
    loaded = load_text(text.replace(old, new), name)
    assert loaded.ok and loaded.rules is not None
    return loaded.rules


def test_a_constant_passed_to_a_definition_is_the_rules_number() -> None:
    # passes(score[p], 100) with passes = points >= limit reads as score >= 100 against "more than 100".
    rules = _variant("end_condition.rules", "= points > limit", "= points >= limit")
    assert [(f.subject, f.details["formal"][0]["shown"]) for f in check_translations(rules)] == [("game_over, case long_game", ">= 100")]


def test_a_different_number_is_not_a_slip() -> None:
    rules = _variant("formal_slip.rules", "score[p] >= 50", "score[p] >= 52")
    assert [f.subject for f in check_translations(rules)] == ["achieved"]
