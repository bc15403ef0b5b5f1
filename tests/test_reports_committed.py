"""The committed reports of the shipped rulesets (docs/reports/) are current, and `rulecheck report`
writes them the way it should.

A committed report is stale when its ruleset changed after its JSON was made (the sha256 in the
JSON), when the reports code renders it differently now, or when its rulebook changed.  Every
message names the command that brings it up to date.  No test here runs the verifier: reports
are made from the committed JSON or from findings written by hand.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT
from test_reports_escaping import EVIL
from test_reports_escaping import RULES as HOSTILE_RULES
from test_reports_golden import hand_written_findings, hand_written_simulation

from rulecheck.cli import main
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.source import Span
from rulecheck.reports import regenerate as rg
from rulecheck.reports.loaders import LoadError, load_diff_json, load_findings_json, read_simulation_json
from rulecheck.reports.make import write_atomic
from rulecheck.reports.model import SimulationResults, build_report
from rulecheck.reports.render import render_html, render_markdown
from rulecheck.verifier.findings import Finding
from rulecheck.verifier.output import to_json
from rulecheck.verifier.verify import Outcome

SHIPPED = rg.shipped()
MANIFEST = rg.read_manifest()


@cache
def text_hash(ruleset: str) -> str:
    loaded = load_path(ROOT / ruleset)
    assert loaded.rules is not None
    return loaded.rules.text_hash


def entry(name: str) -> rg.Entry:
    if name not in MANIFEST:
        pytest.fail(f"rulesets/{name}.rules has no committed report: run {rg.COMMAND} --only {name}")
    e = MANIFEST[name]
    if e.pending is not None:
        leftovers = sorted(p.name for p in rg.OUT.glob(f"{name}.*"))
        assert not leftovers, f"{name} is pending in docs/reports/manifest.json, yet {leftovers} are there: run {rg.COMMAND} --only {name}"
        # visible in every test summary until the command succeeds once for this ruleset
        pytest.skip(f"{name} has no committed report yet ({e.pending}): run {rg.COMMAND} --only {name}")
    return e


# ---- the committed reports ------------------------------------------------------------------------


def test_every_shipped_ruleset_is_in_the_manifest_and_nothing_else() -> None:
    assert SHIPPED, "no rulesets/*.rules found"
    assert sorted(MANIFEST) == SHIPPED, f"stale: docs/reports/manifest.json lists {sorted(MANIFEST)}: run {rg.COMMAND}"


def test_docs_reports_holds_exactly_the_manifest_files() -> None:
    listed = {f for e in MANIFEST.values() for f in e.files().values()} | {"manifest.json"}
    present = {p.name for p in rg.OUT.iterdir() if not p.name.startswith(".")}
    assert present == listed, f"docs/reports/ has {sorted(present - listed)} beyond the manifest and lacks {sorted(listed - present)}: run {rg.COMMAND}"


@pytest.mark.parametrize("name", SHIPPED)
def test_committed_json_is_made_from_the_current_ruleset(name: str) -> None:
    e = entry(name)
    files = e.files()
    for key in ("verify", "simulate"):
        if key not in files:
            continue
        text = (rg.OUT / files[key]).read_text(encoding="utf-8")
        header, _ = load_findings_json(text) if key == "verify" else read_simulation_json(text)
        assert header["ruleset"]["sha256"] == text_hash(e.ruleset), (
            f"stale: docs/reports/{files[key]} was made from another text of {e.ruleset}: run {rg.COMMAND} --only {name}")
        assert header["ruleset"]["file"] == e.ruleset


@pytest.mark.parametrize("name", [n for n in SHIPPED if "diff" in entry(n).files()])
def test_committed_diff_is_made_from_both_current_editions(name: str) -> None:
    e = entry(name)
    assert e.diff is not None
    diff = load_diff_json((rg.OUT / e.files()["diff"]).read_text(encoding="utf-8"))
    assert [f for f, _, _ in diff.editions] == [e.ruleset, e.diff[0]]
    for file, sha, _ in diff.editions:
        assert sha == text_hash(file), f"stale: docs/reports/{e.files()['diff']} was made from another text of {file}: run {rg.COMMAND} --only {name}"


@pytest.mark.parametrize("fmt", ["html", "md"])
@pytest.mark.parametrize("name", SHIPPED)
def test_committed_report_is_what_rulecheck_report_writes(name: str, fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    e = entry(name)
    if e.rulebook is not None:
        rulebook = ROOT / e.rulebook
        if not rulebook.exists():
            pytest.skip(f"the rulebook {e.rulebook} is absent: the coverage section cannot be recomputed here")
        assert hashlib.sha256(rulebook.read_bytes()).hexdigest() == e.rulebook_sha256, (
            f"stale: the rulebook {e.rulebook} changed since docs/reports/{name}.{fmt} was made: run {rg.COMMAND} --render-only --only {name}")
    monkeypatch.chdir(ROOT)  # the file names in a report are relative to the working directory
    out = tmp_path / f"{name}.{fmt}"
    err = io.StringIO()
    code = main(rg.report_args(e, str(out)), io.StringIO(), err)
    assert code == 0, f"stale: rulecheck report cannot render {name} from its committed JSON ({err.getvalue().strip()}): run {rg.COMMAND} --only {name}"
    committed = rg.OUT / e.files()[fmt]
    assert out.read_bytes() == committed.read_bytes(), (
        f"stale: docs/reports/{committed.name} is not what the reports code writes now: run {rg.COMMAND} --render-only")


# ---- the JSON loaders -------------------------------------------------------------------------------


@cache
def cinderella() -> ir.Ruleset:
    loaded = load_path(ROOT / "rulesets" / "cinderella.rules")
    assert loaded.rules is not None
    loaded.rules.name = "rulesets/cinderella.rules"
    return loaded.rules


def verify_json(rules: ir.Ruleset, findings: list[Finding]) -> str:
    """What `rulecheck verify --format json` prints for these findings (written by the verifier's own code)."""
    return to_json(Outcome(rules, findings, [rules.game.min_players], {}))


def simulate_json(rules: ir.Ruleset, sim: SimulationResults) -> str:
    """A `rulecheck simulate --format json` output in the agreed schema (docs/reports.md)."""
    return json.dumps({
        "schema": "rulecheck-simulate", "schema_version": 2, "tool": {"name": "rulecheck", "version": "test"},
        "ruleset": {"file": rules.name, "sha256": rules.text_hash, "game": rules.game.title},
        "seed": sim.seed, "games": sim.games, "players": list(sim.players), "level": sim.level, "readings_fixed": {},
        "by_players": [],
        "readings": [{"ambiguity": r.ambiguity, "reading": r.reading, "players": r.players, "games": r.games,
                      "changed": r.changed, "share": r.share, "low": r.low, "high": r.high} for r in sim.readings],
    })


def test_findings_survive_the_verify_json() -> None:
    rules = cinderella()
    findings = hand_written_findings(rules, seconds=3.5)
    header, loaded = load_findings_json(verify_json(rules, findings))
    assert header["ruleset"]["sha256"] == rules.text_hash
    for f in findings:
        f.seconds = 0.0  # solver time is not in the JSON, and reports never show it
    assert loaded == findings


def test_simulation_survives_its_json() -> None:
    rules = cinderella()
    _, sim = read_simulation_json(simulate_json(rules, hand_written_simulation()))
    assert sim == hand_written_simulation()


@pytest.mark.parametrize("text, says", [
    ("not json", "not JSON"),
    ('{"schema": "rulecheck-simulate", "schema_version": 1}', "not a rulecheck-verify file"),
    ('{"schema": "rulecheck-verify", "schema_version": 99, "ruleset": {"sha256": "x"}, "findings": []}', "version 99"),
    ('{"schema": "rulecheck-verify", "schema_version": 1, "ruleset": {"sha256": "x"}, "findings": [{"kind": "ambiguity"}]}', "finding 1"),
    ('{"schema": "rulecheck-verify", "schema_version": 1, "ruleset": {"sha256": "x"}, "findings": [{"kind": "nonsense", '
     '"severity": "note", "status": "static"}]}', "unknown kind"),
])
def test_a_bad_findings_file_is_refused_in_one_line(text: str, says: str) -> None:
    with pytest.raises(LoadError) as exc:
        load_findings_json(text)
    assert says in str(exc.value) and "\n" not in str(exc.value)


# ---- rulecheck report -------------------------------------------------------------------------------


def run(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    rules = cinderella()
    findings = tmp_path / "verify.json"
    findings.write_text(verify_json(rules, hand_written_findings(rules)), encoding="utf-8")
    sim = tmp_path / "simulate.json"
    sim.write_text(simulate_json(rules, hand_written_simulation()), encoding="utf-8")
    return findings, sim


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_report_from_json_files(fmt: str, inputs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    findings, sim = inputs
    out = tmp_path / f"report.{fmt}"
    code, stdout, err = run(["rulesets/cinderella.rules", "-o", str(out), "--findings", str(findings), "--simulation", str(sim)], monkeypatch)
    assert (code, err) == (0, "")
    assert stdout == f"wrote {out}: a clarification report on Too Many Cinderellas, from 4 findings\n"
    # the same bytes as rendering the findings themselves: nothing is lost on the way through JSON
    rules = cinderella()
    text = (ROOT / "rulesets" / "cinderella.rules").read_text(encoding="utf-8") if fmt == "html" else None
    report = build_report(rules, hand_written_findings(rules), hand_written_simulation(), rules_text=text)
    assert out.read_text(encoding="utf-8") == (render_html(report) if fmt == "html" else render_markdown(report))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def stale_copy(tmp_path: Path) -> Path:
    path = tmp_path / "cinderella.rules"
    path.write_text((ROOT / "rulesets" / "cinderella.rules").read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case, says", [
    ("extension", "cannot tell the report format from"),
    ("no findings file", "no such findings file"),
    ("no simulation file", "no such simulation file"),
    ("no folder", "there is no directory"),
    ("stale findings", "is stale: it was made from a text of"),
    ("stale simulation", "is stale: it was made from a text of"),
    ("another game's findings", "holds results for Loving Penguin (rulesets/loving_penguin.rules), not for Too Many Cinderellas"),
    ("another game's simulation", "holds results for Loving Penguin (rulesets/loving_penguin.rules), not for Too Many Cinderellas"),
    ("not findings", "not a rulecheck-verify file"),
    ("verify options with findings", "with --findings the verification is already done"),
])
def test_report_errors_are_one_line_and_exit_2(case: str, says: str, inputs: tuple[Path, Path], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    findings, sim = inputs
    rules, out = "rulesets/cinderella.rules", tmp_path / "report.md"
    extra: list[str] = []
    if case == "extension":
        out = tmp_path / "report.pdf"
    elif case == "no findings file":
        findings = tmp_path / "missing.json"
    elif case == "no simulation file":
        extra = ["--simulation", str(tmp_path / "missing.json")]
    elif case == "no folder":
        out = tmp_path / "missing" / "report.md"
    elif case == "stale findings":
        rules = str(stale_copy(tmp_path))
    elif case == "stale simulation":
        rules = str(stale_copy(tmp_path))
        findings.write_text(verify_json(load_path(rules).rules, []), encoding="utf-8")  # type: ignore[arg-type]
        extra = ["--simulation", str(sim)]
    elif case == "another game's findings":
        findings = ROOT / "docs" / "reports" / "loving_penguin.verify.json"
    elif case == "another game's simulation":
        extra = ["--simulation", str(ROOT / "docs" / "reports" / "loving_penguin.simulate.json")]
    elif case == "not findings":
        findings = sim
    elif case == "verify options with findings":
        extra = ["--players", "3"]
    code, stdout, err = run([rules, "-o", str(out), "--findings", str(findings), *extra], monkeypatch)
    lines = err.splitlines()
    assert code == 2 and stdout == ""
    assert lines[0].startswith("rulecheck: error: ") and says in lines[0], err
    assert all(line.startswith("  = help: ") for line in lines[1:]), err
    assert not out.exists()
    if case.startswith("stale"):
        assert "re-run rulecheck" in err
    if case.startswith("another game"):
        # the hint must not write this game's results over the other game's file
        assert "loving_penguin" not in lines[1] and "> NEW.json" in lines[1], err


def test_report_keeps_hostile_text_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command renders through the escaping renderers (tests/test_reports_escaping.py tests those)."""
    path = tmp_path / "evil.rules"
    path.write_text(HOSTILE_RULES, encoding="utf-8")
    rules = load_path(path).rules
    assert rules is not None
    finding = Finding("incompleteness", "error", "unknown", "Subject " + EVIL, "Title " + EVIL, "Message " + EVIL, Span(1, 1, 1, 2))
    findings = tmp_path / "evil.json"
    findings.write_text(verify_json(rules, [finding]), encoding="utf-8")
    for fmt, escaped in (("html", "&lt;script&gt;alert"), ("md", "\\<script\\>alert")):
        out = tmp_path / f"evil.{fmt}"
        code, _, err = run([str(path), "-o", str(out), "--findings", str(findings)], monkeypatch)
        assert code == 0, err
        text = out.read_text(encoding="utf-8")
        assert "<script>" not in text and escaped in text
        assert "{{ 7" in text  # jinja syntax in the text stays text


# ---- writing -----------------------------------------------------------------------------------------


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n", encoding="utf-8")

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]
