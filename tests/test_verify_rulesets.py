"""The verifier on small rulesets with known problems (tests/verify/bad) and their fixed
counterparts (tests/verify/good): every bad one is flagged with the finding it was written for,
no good one is flagged, and the whole output matches a golden file beside the ruleset
(NAME.expected; ``pytest --update`` rewrites them). Then the command line: exit codes, the JSON and
SARIF outputs, and byte-identical output across runs.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import conftest
import pytest

from rulecheck.dsl.loader import Loaded, load_path
from rulecheck.verifier.output import render_text
from rulecheck.verifier.verify import Options, Outcome, verify

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "verify"
BAD = sorted((HERE / "bad").glob("*.rules"))
GOOD = sorted((HERE / "good").glob("*.rules"))

#: Seconds per solver call: every question on these games is settled in well under a second.
TIMEOUT = 10.0

#: What each bad ruleset was written to show: the kind of finding and its status.
INTENDED = {
    "missing_tiebreak": ("incompleteness", "witness"),
    "conflicting_rules": ("conflict", "witness"),
    "no_progress": ("non-termination", "witness"),
    "no_progress_while": ("non-termination", "witness"),
    "counted_rounds": ("non-termination", "witness"),
    "negative_supply": ("exhaustion", "witness"),
    "empty_deck": ("exhaustion", "witness"),
    "dead_rule": ("dead-rule", "proven"),
    "ambiguity_differs": ("ambiguity", "witness"),
    "given_back": ("ambiguity", "witness"),
    "other_chooser": ("ambiguity", "witness"),
    "broken_invariant": ("invariant", "witness"),
}

#: The proofs a good ruleset must show besides having no flagged finding: that the check the bad
#: counterpart fails ran and came out proven.
PROVEN = {
    "missing_tiebreak": "incompleteness",
    "conflicting_rules": "conflict",
    "no_progress": "non-termination",
    "no_progress_while": "non-termination",
    "counted_rounds": "non-termination",
    "negative_supply": "exhaustion",
    "ambiguity_agrees": "ambiguity",
    "given_back": "ambiguity",
    "broken_invariant": "invariant",
    "drains_deck": "non-termination",  # beyond the loop bound: proven by the deck's shrinking size
}

#: Good rulesets the verifier currently gets wrong (see the reason): a strict expected failure each.
WRONG_ON_GOOD: dict[str, str] = {}

FLAGGED = ("error", "warning")


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@functools.cache
def load(path: Path) -> Loaded:
    """The ruleset, named by its path from the repository root (the name appears in the output)."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        loaded = load_path(rel(path))
    finally:
        os.chdir(cwd)
    assert loaded.ok and loaded.rules is not None, f"{rel(path)} does not check"
    return loaded


@functools.cache
def outcome(path: Path) -> Outcome:
    rules = load(path).rules
    assert rules is not None
    # two worker processes whatever the machine: the golden files must not depend on its cores
    return verify(rules, Options(timeout=TIMEOUT, jobs=2))


def params(paths: list[Path], wrong: dict[str, str] | None = None) -> list[Any]:
    """Test parameters named bad/NAME and good/NAME; a good ruleset the verifier gets wrong is a
    strict expected failure (it passes once the verifier is fixed, and must then be unmarked)."""
    out = []
    for p in paths:
        reason = (wrong or {}).get(p.stem) if p.parent.name == "good" else None
        mark = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(p, id=f"{p.parent.name}/{p.stem}", marks=mark))
    return out


def describe(o: Outcome) -> str:
    return "; ".join(f"{f.kind}/{f.status}/{f.severity}: {f.title}" for f in o.findings) or "no findings"


# ---- the rulesets -------------------------------------------------------------------------------


def test_every_ruleset_is_paired_and_explained() -> None:
    """Each bad ruleset says what it tests and has a fixed counterpart; each good one says what it
    tests or what it fixes."""
    assert {p.stem for p in BAD} == set(INTENDED)
    assert {p.stem for p in BAD} <= {p.stem for p in GOOD}
    for p in BAD + GOOD:
        first = p.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(("# Tests:", "# Fixed counterpart of bad/")), f"{rel(p)}: the first comment says what it tests"
        if first.startswith("# Fixed"):
            assert f"bad/{p.name}" in first, rel(p)


@pytest.mark.parametrize("path", params(BAD + GOOD))
def test_rulesets_check_cleanly(path: Path) -> None:
    """No diagnostic at all: a warning would be noise in the ruleset that tests one thing."""
    loaded = load(path)
    assert not loaded.diagnostics.sorted(), [d.message for d in loaded.diagnostics.sorted()]


@pytest.mark.parametrize("path", params(BAD))
def test_bad_ruleset_is_flagged(path: Path) -> None:
    kind, status = INTENDED[path.stem]
    o = outcome(path)
    hits = [f for f in o.findings if f.kind == kind and f.status == status and f.severity in FLAGGED]
    assert hits, f"{rel(path)}: expected a {kind} finding ({status}); got {describe(o)}"
    for f in hits:
        if status != "witness":
            continue
        assert f.witness is not None and f.witness.plays, "a witness finding shows the game"
        if kind != "non-termination":  # an endless game has no end to replay in the engine
            assert all(p.replayed for p in f.witness.plays), f"{rel(path)}: the engine did not reproduce {f.title}"


@pytest.mark.parametrize("path", params(GOOD, WRONG_ON_GOOD))
def test_good_ruleset_is_not_flagged(path: Path) -> None:
    o = outcome(path)
    flagged = [f for f in o.findings if f.severity in FLAGGED or f.status in ("witness", "unknown")]
    assert not flagged, f"{rel(path)}: {describe(o)}"
    if path.stem in PROVEN:
        kind = PROVEN[path.stem]
        assert any(f.kind == kind and f.status == "proven" for f in o.findings), f"{rel(path)}: no {kind} proof; {describe(o)}"


@pytest.mark.parametrize("path", params(BAD + GOOD, WRONG_ON_GOOD))
def test_findings_match_golden(path: Path, golden: Any) -> None:
    loaded = load(path)
    text = render_text(outcome(path), loaded.source, verbose=True)
    if path.parent.name == "good" and path.stem in WRONG_ON_GOOD:
        # the golden file holds the right answer; the verifier's wrong one must not be accepted
        assert "witness" not in text.split("summary:")[-1], text
    golden(path.with_suffix(".expected"), text)


# ---- the command line ---------------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str, str]:
    """rulecheck in this process (the exit code main returns, stdout, stderr)."""
    code, out, err = conftest.run_cli(*args)
    # progress lines tell the time a run took (rulecheck/terminal.py): the rest of stderr is compared
    return code, out, PROGRESS.sub("", err)


PROGRESS = re.compile(r"^rulecheck: verify \S+: (started|\d+ checks to go|\d+/\d+ checks .*)\n", re.M)


def verify_args(path: Path, *more: str) -> list[str]:
    return ["verify", rel(path), "--timeout", str(TIMEOUT), *more]


def test_exit_codes_of_the_installed_command() -> None:
    """The console script itself: 0 on a clean ruleset, 1 on an error finding, 2 on bad usage."""
    exe = Path(sys.executable).parent / "rulecheck"
    if not exe.exists():
        pytest.skip("the rulecheck console script is not installed next to this Python")

    def run(*args: str) -> int:
        return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, timeout=120).returncode

    assert run(*verify_args(HERE / "good" / "ambiguity_agrees.rules")) == 0
    assert run(*verify_args(HERE / "bad" / "conflicting_rules.rules")) == 1
    assert run(*verify_args(HERE / "good" / "ambiguity_agrees.rules", "--reading", "tie=nobody")) == 2


def test_exit_code_follows_fail_on() -> None:
    """dead_rule has warnings only: it passes at the default threshold (error) and fails at warning."""
    path = HERE / "bad" / "dead_rule.rules"
    assert run_cli(*verify_args(path))[0] == 0
    assert run_cli(*verify_args(path, "--fail-on", "warning"))[0] == 1
    assert run_cli(*verify_args(path, "--fail-on", "never"))[0] == 0
    assert run_cli(*verify_args(HERE / "bad" / "ambiguity_differs.rules", "--fail-on", "warning"))[0] == 1
    assert run_cli(*verify_args(HERE / "good" / "ambiguity_agrees.rules", "--fail-on", "warning"))[0] == 0
    assert run_cli(*verify_args(HERE / "good" / "ambiguity_agrees.rules", "--fail-on", "note"))[0] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--reading", "ace=sideways"], "sideways"),
        (["--reading", "nonsense=high"], "nonsense"),
        (["--players", "5"], "5"),
        (["--timeout", "0"], "--timeout"),
        (["--format", "xml"], "xml"),
        (["--fail-on", "sometimes"], "sometimes"),
    ],
    ids=["unknown-reading", "unknown-ambiguity", "player-count", "timeout", "format", "fail-on"],
)
def test_bad_usage_exits_2(args: list[str], message: str) -> None:
    code, out, err = run_cli(*verify_args(HERE / "bad" / "ambiguity_differs.rules", *args))
    assert code == 2, (out, err)
    assert message in err and out == ""


def test_missing_or_broken_file_exits_2(tmp_path: Path) -> None:
    code, out, err = run_cli("verify", str(tmp_path / "no_such.rules"))
    assert code == 2 and out == "" and "no_such.rules" in err
    broken = tmp_path / "broken.rules"
    broken.write_text('game "Broken" {\n  players 2..2\n}\n', encoding="utf-8")  # no flow
    code, out, err = run_cli("verify", str(broken))
    assert code == 2 and out == "" and "E0403" in err


FINDING_FIELDS = {"kind", "severity", "status", "subject", "title", "message", "span", "quotes", "witness", "bound", "details"}


def test_json_output() -> None:
    path = HERE / "bad" / "ambiguity_differs.rules"
    code, out, _ = run_cli(*verify_args(path, "--format", "json"))
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "rulecheck-verify" and doc["schema_version"] == 1
    assert doc["tool"]["name"] == "rulecheck" and doc["tool"]["version"]
    assert doc["ruleset"] == {"file": rel(path), "sha256": load(path).rules.text_hash, "game": "Ace High or Low"}  # type: ignore[union-attr]
    assert doc["players"] == [2] and doc["readings"] == {"ace": "low"}
    assert doc["findings"], "the ambiguity finding at least"
    for f in doc["findings"]:
        assert FINDING_FIELDS <= set(f), sorted(FINDING_FIELDS - set(f))
        assert set(f["span"]) == {"line", "col", "end_line", "end_col"}
        assert (f["witness"] is not None) == (f["status"] == "witness")
    amb = next(f for f in doc["findings"] if f["kind"] == "ambiguity")
    assert amb["status"] == "witness" and amb["details"]["readings"] == ["low", "high"]
    plays = amb["witness"]["plays"]
    assert [p["readings"] for p in plays] == [{"ace": "low"}, {"ace": "high"}]
    assert plays[0]["actions"] == plays[1]["actions"] and plays[0]["winners"] != plays[1]["winners"]
    # the summary counts the findings
    by_kind: dict[str, dict[str, int]] = {}
    for f in doc["findings"]:
        by_kind.setdefault(f["kind"], {}).setdefault(f["status"], 0)
        by_kind[f["kind"]][f["status"]] += 1
    assert doc["summary"]["by_kind"] == by_kind
    assert sum(doc["summary"]["by_severity"].values()) == len(doc["findings"])


def test_sarif_output() -> None:
    path = HERE / "bad" / "conflicting_rules.rules"
    code, out, _ = run_cli(*verify_args(path, "--format", "sarif"))
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    assert len(doc["runs"]) == 1
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "rulecheck" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids)) and all(r["shortDescription"]["text"] for r in driver["rules"])
    assert run["results"], "the conflict at least"
    for r in run["results"]:
        assert r["ruleId"] in ids and ids[r["ruleIndex"]] == r["ruleId"]
        assert r["level"] in ("none", "note", "warning", "error") and r["kind"] in ("pass", "fail", "open", "informational")
        assert r["message"]["text"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == rel(path)
        region = loc["region"]
        assert 1 <= region["startLine"] <= region["endLine"] and region["startColumn"] >= 1
    conflict = [r for r in run["results"] if r["ruleId"] == "conflict"]
    assert conflict and conflict[0]["level"] == "error" and conflict[0]["kind"] == "fail"
    assert conflict[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 30


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("text", "bad/ambiguity_differs"), ("json", "bad/no_progress_while"), ("sarif", "good/missing_tiebreak")],
)
def test_output_is_byte_identical_across_runs(fmt: str, name: str) -> None:
    """Two processes (with different string hashing, so no set or dict order can leak into the
    output) print the same bytes."""
    exe = Path(sys.executable).parent / "rulecheck"
    if not exe.exists():
        pytest.skip("the rulecheck console script is not installed next to this Python")
    args = [str(exe), *verify_args(HERE / f"{name}.rules", "--format", fmt, "--verbose")]
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(args, cwd=ROOT, capture_output=True, timeout=120, env=env)
        assert done.returncode in (0, 1), done.stderr
        outputs.append(done.stdout)
    assert outputs[0] and outputs[0] == outputs[1]
    assert outputs[0].decode("utf-8") == run_cli(*args[1:])[1], "the command prints what verify in-process renders"


@pytest.mark.parametrize("name", ["conflicting_rules", "ambiguity_differs"])
def test_output_does_not_depend_on_jobs(name: str) -> None:
    """docs/verify.md: findings are sorted, and every check runs in a fresh worker forked at a
    fixed point of the parent's work (after the shared traces it may use, with one job too), so
    the output depends neither on which worker finished first nor on --jobs."""
    base = verify_args(HERE / "bad" / f"{name}.rules", "--verbose")
    one, two = run_cli(*base, "--jobs", "1"), run_cli(*base, "--jobs", "2")
    assert one == two


def test_check_selects_the_kinds_of_finding() -> None:
    """--check KIND runs only the checks that give that kind; the others are not reported."""
    path = HERE / "bad" / "conflicting_rules.rules"
    code, out, _ = run_cli(*verify_args(path, "--check", "non-termination", "--format", "json"))
    kinds = {f["kind"] for f in json.loads(out)["findings"]}
    assert kinds == {"non-termination"}
    code, out, _ = run_cli(*verify_args(path, "--check", "conflict", "--format", "json"))
    assert {f["kind"] for f in json.loads(out)["findings"]} == {"conflict"}
    assert code == 1  # the conflict is an error
    code, _, err = run_cli(*verify_args(path, "--check", "everything"))
    assert code == 2 and "invalid choice" in err
