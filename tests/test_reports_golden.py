"""Golden clarification reports for Too Many Cinderellas.

The findings here are TEST DATA written by hand to exercise every field of the findings model;
the real findings come from the verifier.  Each one says so in its message, and so does the
golden report made from them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, seed_text

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.reports.model import ReadingFrequency, Report, SimulationResults, build_report
from rulecheck.reports.render import render_html, render_markdown, write_report
from rulecheck.verifier.findings import Finding, Play, Quote, Witness

GOLDEN = ROOT / "tests" / "golden" / "reports"
SEED = "000_c6ed9cf66444a7c4.txt"
TEST_DATA = "Test data, not a verifier result: "


def cinderella() -> ir.Ruleset:
    loaded = load_path(ROOT / "rulesets" / "cinderella.rules")
    assert loaded.ok and loaded.rules is not None
    loaded.rules.name = "rulesets/cinderella.rules"  # the same name wherever the tests run from
    return loaded.rules


def hand_written_findings(rules: ir.Ruleset, seconds: float = 0.0) -> list[Finding]:
    """Hand-written findings covering every field: a witness with two plays (a simultaneous step
    among the actions, one play replayed and one not), a proof with its bound, an unknown, a
    static finding, quotes with and without a language, and details."""
    shared = [
        "Player 1 puts as informant: Person 18",
        "information of Person 18: Card rank becomes upside down.",
        "shows: Player 1 red OK!; Player 2 blue OK!; Player 3 green OK!",
        "no NO! chip shown: the information of Person 18 is valid",
    ]
    witness = Witness(
        players=3,
        setup=[
            "Player 1: Person 18, Person 6, Person 9, Person 12",
            "Player 2: Person 4, Person 7, Person 11, Person 14",
            "Player 3: Person 2, Person 5, Person 10, Person 16",
            "the deck holds the other 6 cards, Person 1 on top",
        ],
        plays=[
            Play(
                label="reading inverted (default)",
                readings={"inversion_presentation": "inverted"},
                actions=[17, 5, [18, 19, 20], 3],
                steps=[*shared, "Player 2 presents Person 14", "Player 3 presents Person 16"],
                outcome="Player 3 wins",
                winners=[2],
                replayed=True,
            ),
            Play(
                label="reading printed",
                readings={"inversion_presentation": "printed"},
                actions=[17, 5, [18, 19, 20], 2],
                steps=[*shared, "Player 2 presents Person 11", "Player 3 presents Person 10"],
                outcome="Player 2 wins",
                winners=[1],
                replayed=False,
            ),
        ],
        divergence="With information 18 valid, Player 3 presents Person 16 under one reading and Person 10 under the other.",
    )
    return [
        Finding(
            kind="ambiguity", severity="warning", status="witness", subject="inversion_presentation",
            title="Which card a player presents while rank is upside down",
            message=TEST_DATA + "the two readings of the presentation choose different cards and different winners.",
            span=rules.ambiguities["inversion_presentation"].span,
            quotes=[
                Quote("If both of a player's cards meet the \"Requirement of Cinderella\", they need to select a single one, whichever is higher-ranked."),
                Quote("両方のカードが条件を満たす場合、ランクの高い方を1枚選びます。", "ja"),
            ],
            witness=witness, seconds=seconds, details={"depth": 41, "compared": ["inverted", "printed"]},
        ),
        Finding(
            kind="ambiguity", severity="note", status="proven", subject="gray_two_player",
            title="Where the gray NO! chip goes in a 2-player game",
            message=TEST_DATA + "both readings give the same winner in every game within the bound.",
            span=rules.ambiguities["gray_two_player"].span, bound="2 players, every deal and every choice", seconds=seconds,
        ),
        Finding(
            kind="incompleteness", severity="error", status="unknown", subject="winner",
            title="Can the decision end with no winner?",
            message=TEST_DATA + "the solver did not decide whether some game reaches the decision with no case of 'winner' applying.",
            span=rules.defs["winner"].span,
            quotes=[Quote("Check that all cards have been presented, and determine the winner.")],
            bound="4 players, up to 60 moves", seconds=seconds,
        ),
        Finding(
            kind="dead-rule", severity="note", status="static", subject="spare",
            title="The zone of unused chips is used by one reading only",
            message=TEST_DATA + "under the default readings nothing is ever moved to the chips beside the table.",
            span=rules.zones["spare"].span, seconds=seconds,
        ),
    ]


def hand_written_simulation() -> SimulationResults:
    return SimulationResults(
        seed=7, games=2000, players=(2, 3),
        readings=(
            ReadingFrequency("inversion_presentation", "printed", 2000, 0, 0.0, 0.0, 0.0019, 2),
            ReadingFrequency("inversion_presentation", "printed", 2000, 61, 0.0305, 0.0238, 0.0391, 3),
        ),
    )


def cinderella_report(rulebook: str | None = None, seconds: float = 0.0) -> Report:
    rules = cinderella()
    text = (ROOT / "rulesets" / "cinderella.rules").read_text(encoding="utf-8")  # the HTML shows the formal rules
    return build_report(rules, hand_written_findings(rules, seconds), hand_written_simulation(), rulebook, SEED if rulebook else None,
                        rules_text=text)


def test_markdown_report_of_cinderella(golden) -> None:  # type: ignore[no-untyped-def]
    report = cinderella_report(seed_text(SEED))
    golden(GOLDEN / "cinderella.md", render_markdown(report))


def test_html_report_of_cinderella(golden) -> None:  # type: ignore[no-untyped-def]
    report = cinderella_report(seed_text(SEED))
    golden(GOLDEN / "cinderella.html", render_html(report))


def test_reports_are_deterministic_and_ignore_solver_time() -> None:
    a = cinderella_report(seconds=0.25)
    b = cinderella_report(seconds=31.0)
    assert render_markdown(a) == render_markdown(b)
    assert render_html(a) == render_html(b)


def test_write_report_chooses_by_suffix(tmp_path: Path) -> None:
    report = cinderella_report()
    write_report(tmp_path / "r.md", report)
    write_report(tmp_path / "r.html", report)
    assert (tmp_path / "r.md").read_text(encoding="utf-8") == render_markdown(report)
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == render_html(report)
    with pytest.raises(ValueError, match=r"\.md or \.html"):
        write_report(tmp_path / "r.pdf", report)
