"""`rulecheck diff` of the two editions of rulesets/: golden text and JSON (rewritten only with
`pytest --update`, reviewed as diffs), every witness replayed here through both generated engines,
SARIF, and the command's bad inputs.

The comparison is made for 3 players with a short search (--games 40) so the test stays quick;
the differences it finds at 3 players are the setup (another set of cards), the flow (another
end), the questions (the centre may be asked about), the guess (the centre may be chosen) and
the scoring (one token per win instead of the card's amount).
"""

from __future__ import annotations

import html
import io
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from rulecheck.adapters import engine_module
from rulecheck.cli import main

FIRST = "rulesets/prince_mochi.rules"
LATER = "rulesets/tofu_kingdom.rules"
ARGS = ["--players", "3", "--games", "40", "--seed", "0"]
GOLDEN = ROOT / "tests" / "golden" / "diff"


@cache
def run(fmt: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)  # the file names in the output are relative to the working directory
    try:
        code = main(["diff", FIRST, LATER, *ARGS, "--format", fmt], out, err)
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt, name", [("text", "editions.txt"), ("json", "editions.json")])
def test_the_editions_differences_are_the_golden_ones(fmt: str, name: str, golden: Any) -> None:
    code, out, err = run(fmt)
    assert code == 0, err
    golden(GOLDEN / name, out)


def findings() -> list[dict[str, Any]]:
    return list(json.loads(run("json")[1])["findings"])


def test_every_kind_of_difference_is_there() -> None:
    got = findings()
    by_status = {f["status"] for f in got}
    assert {"witness", "proven"} <= by_status
    witnessed = {f["subject"] for f in got if f["status"] == "witness"}
    # the differences that change play at 3 players, each with a game
    assert {"proc setup_round", "proc guess", "proc put_question", "proc score_round", "flow"} <= witnessed
    # names that only the mapping tells apart never change a result: proven, not witnessed
    renamed = [f for f in got if "only a name" in f["title"]]
    assert renamed and all(f["status"] == "proven" for f in renamed)
    for f in got:
        assert f["kind"] == "edition-difference"
        assert f["quotes"], f["subject"]  # each difference quotes its rulebook


def _replay(path: str, actions: list[int]) -> Any:
    mod = engine_module(ROOT / path)
    s = mod.load_game({"players": 3}).new_initial_state()
    for k, a in enumerate(actions):
        assert not s.is_terminal(), f"{path}: the game ended before move {k + 1}"
        legal = [x for x, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        assert a in legal, f"{path}: move {k + 1} ({a}) is not allowed here"
        s.apply_action(a)
    return s


def test_every_witness_replays_in_both_generated_engines() -> None:
    """Each witness is two games, one per edition, made of the same deal and choices; replayed here
    move by move, each is legal throughout and ends as the finding says."""
    witnesses = [f["witness"] for f in findings() if f["status"] == "witness"]
    assert witnesses
    for w in witnesses:
        assert w["players"] == 3
        first, later = w["plays"]
        assert (first["label"], later["label"]) == ("Prince Mochi", "Tofu Kingdom")
        for play, path in ((first, FIRST), (later, LATER)):
            s = _replay(path, play["actions"])
            assert play["replayed"]
            assert s.is_terminal(), f"{path}: the witness game does not end"
            assert [q for q, r in enumerate(s.returns()) if r > 0] == play["winners"]
        assert w["divergence"]


def test_a_witness_is_shown_from_where_the_editions_part() -> None:
    """Not two whole games side by side: the table at the point where the editions part, then a
    few moves of each; the first edition's part of it is its game replayed to that point."""
    from rulecheck.dsl import ir
    from rulecheck.dsl.loader import load_path
    from rulecheck.interpreter.state import Game

    rules = load_path(ROOT / FIRST).rules
    assert rules is not None
    program = ir.bind(rules, {})
    for f in findings():
        w = f["witness"]
        if w is None:
            continue
        pos = w["position"]
        assert pos["where"] == "editions" and len(pos["marks"]) == len(pos["ends"]) == 2, f["subject"]
        for play, mark, end in zip(w["plays"], pos["marks"], pos["ends"]):
            assert 0 <= mark <= end <= len(play["steps"]), f["subject"]
        assert pos["longest"] <= 20 and pos["table"], f["subject"]
        state = Game(program, 3).new_initial_state(log=True)
        for a in w["plays"][0]["actions"][:pos["step"]]:
            state.apply_action(a)
        assert len(state.machine.log) == pos["marks"][0], f["subject"]
        if f["subject"] == "flow":  # parted by their ends: the end that differs is among the moves shown
            assert any(end == len(p["steps"]) for p, end in zip(w["plays"], pos["ends"])), f["subject"]


def test_a_difference_that_changes_the_result_shows_both_results() -> None:
    """The end differs: the first edition ends past 7 tokens, the later after a number of rounds;
    the witness is a game that one edition ends where the other goes on."""
    flow = next(f for f in findings() if f["subject"] == "flow")
    assert flow["status"] == "witness"
    assert "the game goes on" in flow["witness"]["divergence"]
    first, later = flow["witness"]["plays"]
    # alike up to the end of the first edition's game: the later one goes on from there
    assert len(later["actions"]) > len(first["actions"])


def test_sarif_lists_the_same_differences() -> None:
    code, out, err = run("sarif")
    assert code == 0, err
    doc = json.loads(out)
    results = doc["runs"][0]["results"]
    assert len(results) == len(findings())
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] in (FIRST, LATER) for r in results)


def test_fail_on_makes_a_difference_exit_1() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(ROOT / FIRST), str(ROOT / LATER), *ARGS, "--fail-on", "warning"], out, err) == 1


@pytest.mark.parametrize(("a", "b", "extra", "says"), [
    ("rulesets/cinderella.rules", LATER, [], "does not say which game it is an edition of"),
    (FIRST, LATER, ["--players", "12"], "both editions are played by 3 to 8 players, not 12"),
    (FIRST, "rulesets/no_such.rules", [], "no such file"),
])
def test_bad_input_exits_2_with_a_diagnostic(a: str, b: str, extra: list[str], says: str, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", str(ROOT / a), str(ROOT / b), *extra], out, err)
    assert code == 2 and out.getvalue() == ""
    assert says in err.getvalue() and "Traceback" not in err.getvalue()


def test_an_edition_compared_with_itself_has_no_difference() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(ROOT / FIRST), str(ROOT / FIRST), "--players", "3", "--games", "5"], out, err) == 0
    assert "summary: 0 differences" in out.getvalue()


# ---- the diff in a report ---------------------------------------------------------------------------


def report(ruleset: str, diff: str, out: Path, *extra: str) -> tuple[int, str, str]:
    o, e = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        name = Path(ruleset).stem
        code = main(["report", ruleset, "-o", str(out), "--findings", f"docs/reports/{name}.verify.json", "--diff", diff, *extra], o, e)
    finally:
        os.chdir(cwd)
    return code, o.getvalue(), e.getvalue()


@pytest.mark.parametrize("ruleset, other", [(FIRST, "Tofu Kingdom"), (LATER, "Prince Mochi")])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_report_has_a_section_on_the_other_edition(ruleset: str, other: str, fmt: str, tmp_path: Path) -> None:
    diff = tmp_path / "diff.json"
    diff.write_text(run("json")[1], encoding="utf-8")
    out = tmp_path / f"report.{fmt}"
    code, _, err = report(ruleset, str(diff), out)
    assert code == 0, err
    whole = out.read_text(encoding="utf-8")
    assert f"The other edition: {other}" in whole
    text = whole[whole.index(f"The other edition: {other}"):whole.rindex("Appendix: checks of the formal model")]
    got = findings()
    assert f"{len(got)} differences: " in text
    shown = html.unescape(text) if fmt == "html" else text.replace("\\", "")
    for f in got:
        assert f["title"] in shown
    # each located in its own file; a witness game shown as a table of moves
    assert f"{LATER}:" in shown and f"{FIRST}:" in shown
    assert text.count("The table where the editions part") == sum(1 for f in got if f["witness"]) > 0
    # the verdict, after the game, points back to it
    assert "Confirmed by a concrete game: the game above" in shown
    # whose rulebook each quote is from
    assert "(English, Prince Mochi)" in text and "(English, Tofu Kingdom)" in text


def test_a_diff_of_other_games_or_other_texts_is_refused(tmp_path: Path) -> None:
    diff = tmp_path / "diff.json"
    diff.write_text(run("json")[1], encoding="utf-8")
    code, _, err = report("rulesets/cinderella.rules", str(diff), tmp_path / "r.md")
    assert code == 2 and "compares Prince Mochi and Tofu Kingdom" in err and "not Too Many Cinderellas" in err
    doc = json.loads(diff.read_text(encoding="utf-8"))
    for e in doc["editions"]:
        e["sha256"] = "0" * 64
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = report(FIRST, str(stale), tmp_path / "r.md")
    assert code == 2 and "is stale" in err and "rulecheck diff" in err
    code, _, err = report(FIRST, str(diff), diff)  # the report would overwrite its own input
    assert code == 2 and json.loads(diff.read_text(encoding="utf-8"))["schema"] == "rulecheck-diff"
    (tmp_path / "verify.json").write_text((ROOT / "docs" / "reports" / "prince_mochi.verify.json").read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = report(FIRST, str(tmp_path / "verify.json"), tmp_path / "r.md")
    assert code == 2 and "not a rulecheck-diff file" in err
