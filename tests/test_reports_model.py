"""The report's data: verdicts, quotes with their translations, witnesses as tables, open questions,
missing data and source coverage.  The findings are hand-written test data."""

from __future__ import annotations

from conftest import seed_text
from test_reports_english import CONSTRUCTS
from test_reports_golden import SEED, cinderella, hand_written_findings, hand_written_simulation

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.reports.model import build_report, verdict
from rulecheck.verifier.findings import Finding, Play, Quote, Witness


def constructs() -> ir.Ruleset:
    loaded = load_text(CONSTRUCTS, "constructs.rules")
    assert loaded.rules is not None
    return loaded.rules


def test_unknown_is_never_shown_as_proven() -> None:
    rules = cinderella()
    findings = hand_written_findings(rules)
    report = build_report(rules, findings)
    unknown = next(f for f in findings if f.status == "unknown")
    proven = next(f for f in findings if f.status == "proven")
    assert unknown.title not in " ".join(report.summary.proven)
    assert any(unknown.title in u for u in report.summary.unknown)
    assert any(proven.title in p for p in report.summary.proven)
    view = next(v for v in report.findings if v.status == "unknown")
    assert "not a proof" in view.verdict and "proven" not in view.verdict.lower()
    assert verdict(proven).startswith("Proven harmless")


def test_the_summary_says_where_an_unknown_is_undecided_not_only_where_it_was_proven() -> None:
    """An unknown finding's bound is what was checked (2 to 4 players proven, 5 to 6 not decided):
    the summary's list of what is not decided said "not decided in time (2 to 4 players)", which
    reads as undecided at 2 to 4 players."""
    rules = cinderella()
    span = next(iter(rules.ambiguities.values())).span
    partial = Finding("invariant", "warning", "unknown", "inv_a", "invariant 'inv_a': not decided in time", "m", span,
                      bound="2 to 4 players", details={"unknown": "5 to 6 players", "proven": "2 to 4 players"}, verdict="timeout")
    loop = Finding("non-termination", "warning", "unknown", "loop", "no end proven for this loop", "m", span, bound="3 passes",
                   details={"unknown": "3 players (up to 3 passes of each open loop)"}, verdict="timeout")
    bare = Finding("invariant", "warning", "unknown", "inv_b", "invariant 'inv_b': not decided in time", "m", span,
                   details={"unknown": "2 to 6 players"}, verdict="timeout")
    shown = build_report(rules, [partial, loop, bare]).summary.unknown
    assert "invariant 'inv_a': not decided in time — for 5 to 6 players; proven for 2 to 4 players" in shown
    assert "no end proven for this loop — for 3 players (up to 3 passes of each open loop); checked: 3 passes" in shown
    assert "invariant 'inv_b': not decided in time — for 2 to 6 players" in shown


def test_findings_are_ordered_by_kind_then_severity() -> None:
    rules = cinderella()
    report = build_report(rules, list(reversed(hand_written_findings(rules))))
    assert [f.kind for f in report.findings] == ["ambiguity", "ambiguity", "incompleteness", "dead-rule"]
    assert [f.severity for f in report.findings[:2]] == ["warning", "note"]
    assert [f.number for f in report.findings] == [1, 2, 3, 4]


def test_counts_by_kind_and_severity() -> None:
    rules = cinderella()
    s = build_report(rules, hand_written_findings(rules)).summary
    rows = {r.kind: (r.counts, r.total) for r in s.rows}
    assert s.severities == ["error", "warning", "note"]
    assert rows == {"ambiguity": ([0, 1, 1], 2), "incompleteness": ([1, 0, 0], 1), "dead-rule": ([0, 0, 1], 1)}
    assert s.findings == 4


def test_a_quote_comes_with_the_translation_the_ruleset_gives() -> None:
    rules = constructs()
    f = Finding("ambiguity", "note", "static", "amb_x", "t", "m", rules.ambiguities["amb_x"].span,
                quotes=[Quote("The rule  may apply."), Quote("Only in the finding", "ja")])
    view = build_report(rules, [f]).findings[0]
    assert view.quotes[0].text == "The rule may apply."
    assert (view.quotes[0].lang, view.quotes[0].code) == ("English", "en")
    assert view.quotes[0].translations == [("Japanese", "ja", "規則が適用されるかもしれない。")]
    assert (view.quotes[1].lang, view.quotes[1].code, view.quotes[1].text, view.quotes[1].translations) == (
        "Japanese", "ja", "Only in the finding", [])


def test_an_ambiguity_finding_without_quotes_shows_the_ambiguity_sources() -> None:
    rules = constructs()
    f = Finding("ambiguity", "warning", "proven", "amb_x", "t", "m", rules.ambiguities["amb_x"].span, bound="3 players")
    view = build_report(rules, [f]).findings[0]
    assert [q.text for q in view.quotes] == ["The rule may apply."]
    assert view.question == "Does the rule apply?"
    assert [(r.name, r.default, r.clarify) for r in view.readings] == [
        ("yes", True, "The rule always applies."), ("no", False, "The rule never applies.")]
    assert view.affects == [("The rule that varies", "def-rule_x")]


def test_the_witness_splits_shared_moves_from_the_moves_where_readings_part() -> None:
    rules = constructs()
    plays = [
        Play("reading yes (default)", {"amb_x": "yes"}, [1, [0, 2], 3], ["a", "b", "c1", "d1"], "Player 1 wins", [0], True),
        Play("reading no", {"amb_x": "no"}, [1, [0, 2], 2], ["a", "b", "c2"], "Player 2 wins", [1]),
    ]
    w = Witness(2, ["Player 1: Tile 1, Tile 3", "the pile: Tile 2"], plays, "they differ at the third move")
    f = Finding("ambiguity", "warning", "witness", "amb_x", "t", "m", rules.ambiguities["amb_x"].span, witness=w)
    view = build_report(rules, [f]).findings[0]
    assert view.witness is not None
    assert view.witness.setup == [("Player 1", "Tile 1, Tile 3"), ("the pile", "Tile 2")]
    assert view.witness.common == ["a", "b"]
    assert [(r.label, r.cells) for r in view.witness.rows] == [("1", ["c1", "c2"]), ("2", ["d1", ""])]
    assert [(c.outcome, c.replayed, c.actions) for c in view.witness.columns] == [
        ("Player 1 wins", True, "1 [0,2] 3"), ("Player 2 wins", False, "1 [0,2] 2")]
    assert [r.outcome for r in view.readings] == ["Player 1 wins", "Player 2 wins"]


def test_the_moves_of_two_plays_are_aligned_and_long_runs_of_the_same_moves_folded() -> None:
    """A move both plays make shares a row even after moves only one makes; a run of the same
    moves longer than twice FOLD_KEEP and one is shown by its ends, the rest folded into one row
    that says how many (the numbers go on counting the folded moves)."""
    from rulecheck.reports.witnesses import FOLD_KEEP, _step_rows

    same = [f"move {i}" for i in range(20)]
    rows = _step_rows([["x", *same, "end a"], ["y", "only b", *same, "end b"]])
    shown = [(r.label, r.cells, r.fold) for r in rows]
    assert shown[:2] == [("1", ["x", "y"], ""), ("2", ["", "only b"], "")]
    kept = [r for r in rows if r.cells and r.cells[0] == r.cells[1]]
    assert [r.cells[0] for r in kept] == same[:FOLD_KEEP] + same[-FOLD_KEEP:]
    fold = next(r for r in rows if r.fold)
    assert fold.cells == [] and f"steps {3 + FOLD_KEEP} to {2 + 20 - FOLD_KEEP}" in fold.fold and f"({20 - 2 * FOLD_KEEP} steps" in fold.fold
    assert (rows[-1].label, rows[-1].cells) == (str(2 + 20 + 1), ["end a", "end b"])
    # a long game is shown by its first and last rows, the steps between said by one row
    from rulecheck.reports.witnesses import ROWS_SHOWN

    long = _step_rows([[f"a{i}" for i in range(500)], [f"b{i}" for i in range(400)]])
    assert len(long) == ROWS_SHOWN + 1
    cut = long[ROWS_SHOWN // 2]
    assert cut.fold and cut.steps == (ROWS_SHOWN // 2 + 1, 500 - ROWS_SHOWN // 2) and f"({cut.steps[1] - cut.steps[0] + 1} steps" in cut.fold
    assert long[-1].cells == ["a499", ""] and long[0].cells == ["a0", "b0"]
    # a short run is not folded; three plays are shown row by row
    assert not any(r.fold for r in _step_rows([same[:7], same[:7]]))
    assert [r.cells for r in _step_rows([["a"], ["b", "c"], ["d"]])] == [["a", "b", "d"], ["", "c", ""]]


def test_frequencies_come_from_the_simulation_results() -> None:
    rules = cinderella()
    report = build_report(rules, hand_written_findings(rules), hand_written_simulation())
    view = report.findings[0]
    assert view.simulation == "2000 random games per reading at each of 2 and 3 players, seed 7; random choices coupled between readings"
    assert [r.frequency for r in view.readings] == [
        None,  # the default reading is what the others are compared with
        "changes the result at 2 players: never in 2000 games (at most 0.2% at 95%); "
        "at 3 players: 61 of 2000 games (3.0%; 95% interval 2.4% to 3.9%)",
    ]
    # an ambiguity the simulation did not cover shows no frequency at all
    assert all(r.frequency is None for r in report.findings[1].readings)


def test_every_declared_ambiguity_is_in_the_report() -> None:
    rules = cinderella()
    report = build_report(rules, hand_written_findings(rules))
    covered = {f.subject for f in report.findings}
    assert {q.name for q in report.open_questions} == set(rules.ambiguities) - covered
    assert report.summary.unverified == len(rules.ambiguities) - len(covered & set(rules.ambiguities))


def test_missing_data_becomes_questions_with_values() -> None:
    rules = constructs()
    a = {x.subject: x for x in build_report(rules, []).assumptions}
    assert set(a) == {"Tile cards: suit", "Tile cards: weight", "Game option: the points needed to win", "Game option: bonus",
                      "Board: spot of the track"}
    suit = a["Tile cards: suit"]
    assert suit.kind == "assumed" and suit.rationale == "The suits are not printed in the rulebook."
    assert suit.values is not None and suit.values.rows == [["Tile 1", "Sun"], ["Tile 2", "Moon"], ["Tile 3", "Sun"], ["Tile 4", "Moon"]]
    assert "Engines use 1" in a["Tile cards: weight"].question
    assert "assume 5" in a["Game option: the points needed to win"].question
    assert a["Game option: bonus"].kind == "unspecified" and "Engines use 2" in a["Game option: bonus"].question


def test_source_coverage_lists_the_sentences_no_rule_cites() -> None:
    rules = cinderella()
    book = seed_text(SEED)
    cov = build_report(rules, [], rulebook=book, rulebook_name=SEED).coverage
    assert cov is not None
    assert cov.total == cov.cited + len(cov.uncited) and cov.cited == len(cov.cited_sentences)
    uncited = [text for _, text in cov.uncited]
    assert "Table of Contents" in uncited
    assert any(text.startswith("Rank The rank of the card.") for _, text in cov.cited_sentences)


def test_details_are_words_in_a_stable_order() -> None:
    """The facts a report lists are words, in a fixed order; the facts its sentences already say
    (what, situation, how …) are not repeated."""
    rules = constructs()
    f = Finding("conflict", "error", "static", "worth", "t", "m", rules.defs["worth"].span,
                details={"players": 2, "readings": ["a", "b"], "data": {"y": True, "x": None}, "what": "said already"})
    view = build_report(rules, [f]).findings[0]
    assert view.details == [("readings", "a, b"), ("players", "2"), ("data", "x: none; y: yes")]
    assert view.subject_anchor == "def-worth"
