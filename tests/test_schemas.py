"""The JSON outputs against their published schemas (schemas/), and SARIF against the SARIF 2.1.0
schema and the rules of the spec that no schema can say.

tests/schemas/sarif-schema-2.1.0.json is the OASIS SARIF 2.1.0 schema (errata 01, its "id" names
it), kept here so that the test needs no network."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from jsonschema import Draft4Validator, Draft202012Validator, ValidationError
from referencing import Registry, Resource

from rulecheck.cli import main
from rulecheck.dsl.loader import load_path
from rulecheck.reports.loaders import load_findings_json
from rulecheck.verifier.findings import Finding
from rulecheck.verifier.output import to_sarif
from rulecheck.verifier.verify import Outcome

SCHEMAS = ROOT / "schemas"
REPORTS = ROOT / "docs" / "reports"
GAMES = ("cinderella", "loving_penguin", "prince_mochi", "tofu_kingdom")
VERIFY = ROOT / "tests" / "verify"


def schema(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SCHEMAS / f"rulecheck-{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    return doc


def validate(doc: Any, name: str) -> None:
    # the schemas refer to one another by file name, as they lie side by side in schemas/
    registry: Registry[Any] = Registry().with_resources(
        (p.name, Resource.from_contents(schema(p.name.removeprefix("rulecheck-").removesuffix(".schema.json"))))
        for p in SCHEMAS.glob("*.schema.json"))
    Draft202012Validator(schema(name), registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(doc)


def sarif_validator() -> Draft4Validator:
    doc = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    Draft4Validator.check_schema(doc)
    return Draft4Validator(doc, format_checker=Draft4Validator.FORMAT_CHECKER)


def cli(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(args, out, err), out.getvalue()


def committed_outcome(game: str) -> Outcome:
    """The committed verification of a shipped game, as the verifier returned it."""
    header, findings = load_findings_json((REPORTS / f"{game}.verify.json").read_text(encoding="utf-8"))
    rules = load_path(ROOT / header["ruleset"]["file"]).rules
    assert rules is not None and rules.text_hash == header["ruleset"]["sha256"]
    return Outcome(rules, findings, list(header["players"]), dict(header["readings"]), {}, dict(header.get("params", {})))


@pytest.mark.parametrize("game", GAMES)
def test_committed_outputs_follow_their_schemas(game: str) -> None:
    validate(json.loads((REPORTS / f"{game}.verify.json").read_text(encoding="utf-8")), "verify")
    validate(json.loads((REPORTS / f"{game}.simulate.json").read_text(encoding="utf-8")), "simulate")


@pytest.mark.parametrize("name", ["bad/conflicting_rules", "bad/no_progress_while", "good/ambiguity_differs"])
def test_verify_json_follows_its_schema(name: str) -> None:
    code, out = cli(["verify", str(VERIFY / f"{name}.rules"), "--format", "json", "--jobs", "1"])
    assert code in (0, 1)
    validate(json.loads(out), "verify")


def test_simulate_json_follows_its_schema() -> None:
    code, out = cli(["simulate", str(VERIFY / "bad" / "ambiguity_differs.rules"), "--games", "50", "--jobs", "1", "--format", "json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["readings"], "an ambiguity to compare"
    validate(doc, "simulate")


def test_schemas_reject_what_the_outputs_must_not_be() -> None:
    good = json.loads((REPORTS / "cinderella.verify.json").read_text(encoding="utf-8"))
    for path, value in ((("findings", 0, "status"), "maybe"), (("findings", 0, "span", "line"), 0),
                        (("ruleset", "sha256"), "abc"), (("schema_version",), 2)):
        bad = copy.deepcopy(good)
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(ValidationError, match=r"is not|was expected|less than|does not match"):
            validate(bad, "verify")
    game = next(f["witness"] for f in good["findings"] if f["witness"] is not None)
    bad = copy.deepcopy(good)
    proven = next(f for f in bad["findings"] if f["status"] == "proven")
    proven["witness"] = game  # a proof has no witness game
    with pytest.raises(ValidationError, match="is not of type"):
        validate(bad, "verify")
    sim = json.loads((REPORTS / "cinderella.simulate.json").read_text(encoding="utf-8"))
    sim["readings"][0]["share"] = 1.5
    with pytest.raises(ValidationError, match="greater than"):
        validate(sim, "simulate")


def test_diff_json_follows_its_schema() -> None:
    # the golden file is what `rulecheck diff … --format json` writes (tests/test_edition_diff.py)
    validate(json.loads((ROOT / "tests" / "golden" / "diff" / "editions.json").read_text(encoding="utf-8")), "diff")


def test_the_diff_schema_rejects_what_a_difference_must_not_be() -> None:
    good = json.loads((ROOT / "tests" / "golden" / "diff" / "editions.json").read_text(encoding="utf-8"))
    for change, match in ((lambda f: f.update(kind="ambiguity"), "was expected"), (lambda f: f.pop("file"), "is a required"),
                          (lambda f: f.update(extra=1), "Unevaluated properties"), (lambda f: f.update(status="maybe"), "is not one of"),
                          (lambda f: f["details"].update(area="rules"), "is not one of"), (lambda f: f["details"].pop("in"), "is a required")):
        bad = copy.deepcopy(good)
        change(bad["findings"][0])
        with pytest.raises(ValidationError, match=match):
            validate(bad, "diff")
    bad = copy.deepcopy(good)
    bad["editions"].pop()
    with pytest.raises(ValidationError, match="is too short"):
        validate(bad, "diff")
    verify = json.loads((REPORTS / "cinderella.verify.json").read_text(encoding="utf-8"))
    verify["findings"][0]["file"] = "rulesets/cinderella.rules"  # a field only a difference has
    with pytest.raises(ValidationError, match="Unevaluated properties"):
        validate(verify, "verify")


def sarif_spec_rules(doc: dict[str, Any]) -> None:
    """What SARIF 2.1.0 requires beyond its schema, for rulecheck's results."""
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    for rule in driver["rules"]:
        # 3.49.7: a name is not the id over again
        assert rule["name"] != rule["id"] and rule["name"][0].isupper() and " " not in rule["name"]
    assert "example.invalid" not in json.dumps(doc)
    if "informationUri" in driver:
        assert driver["informationUri"].startswith(("https://", "http://"))  # 3.19.17: an absolute URI
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        # 3.27.10: any kind but "fail" has level "none"
        if r["kind"] != "fail":
            assert r["level"] == "none", r
        status, severity = r["properties"]["status"], r["properties"]["severity"]
        if status == "unknown":
            assert r["kind"] == "open"  # not known either way: not a warning, not a pass
        elif severity in ("error", "warning"):
            assert (r["kind"], r["level"]) == ("fail", severity)  # a problem, proven or witnessed
        elif status == "proven":
            assert r["kind"] == "pass"
        region = r["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) <= (region["endLine"], region["endColumn"])
    assert run["columnKind"] == "unicodeCodePoints"


@pytest.mark.parametrize("game", GAMES)
def test_sarif_of_the_shipped_games_follows_the_spec(game: str) -> None:
    doc = json.loads(to_sarif(committed_outcome(game)))
    sarif_validator().validate(doc)
    sarif_spec_rules(doc)
    results = doc["runs"][0]["results"]
    kinds = {(r["properties"]["status"], r["properties"]["severity"]): (r["kind"], r["level"]) for r in results}
    if game == "cinderella":
        assert kinds[("proven", "note")] == ("pass", "none")
        # a rule that applies only under another reading, shown by a game: informational
        assert kinds[("witness", "note")] == ("informational", "none")
    elif game == "loving_penguin":
        # an undecided result (the sensitivity to its assumed data of one ambiguity): open
        unknown = [k for k in kinds if k[0] == "unknown"]
        assert unknown and all(kinds[k] == ("open", "none") for k in unknown)
        assert kinds[("static", "warning")] == ("fail", "warning")
    else:
        # the editions: a rule gap under another reading, with its game
        assert kinds[("witness", "error")] == ("fail", "error")


def test_a_proven_problem_is_a_warning_not_a_pass() -> None:
    """A dead rule is proven never to apply: a warning, not a pass."""
    outcome = committed_outcome("cinderella")
    f = next(f for f in outcome.findings if f.kind == "dead-rule")
    dead = Finding("dead-rule", "warning", "proven", f.subject, "x never applies", "m", f.span, verdict="dead")
    outcome.findings = [dead]
    (r,) = json.loads(to_sarif(outcome))["runs"][0]["results"]
    assert (r["kind"], r["level"]) == ("fail", "warning")


def test_sarif_from_the_command_follows_the_spec() -> None:
    code, out = cli(["verify", str(VERIFY / "bad" / "conflicting_rules.rules"), "--format", "sarif", "--jobs", "1"])
    assert code == 1
    doc = json.loads(out)
    sarif_validator().validate(doc)
    sarif_spec_rules(doc)


def test_the_sarif_schema_catches_a_broken_log() -> None:
    doc = json.loads(to_sarif(committed_outcome("cinderella")))
    doc["runs"][0]["results"][0]["kind"] = "warning"  # not one of SARIF's kinds
    assert list(sarif_validator().iter_errors(doc))


def test_schema_files_are_named_by_the_outputs() -> None:
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == ["rulecheck-diff.schema.json", "rulecheck-simulate.schema.json",
                                                             "rulecheck-verify.schema.json"]
    assert Path(SCHEMAS / "rulecheck-verify.schema.json").read_text(encoding="utf-8").count('"const": "rulecheck-verify"') == 1


def test_the_verify_schema_knows_every_kind_and_verdict() -> None:
    from rulecheck.verifier.findings import KINDS, VERDICTS

    defs = schema("verify")["$defs"]
    assert set(defs["kind"]["enum"]) == set(KINDS)
    verdicts = next(d["properties"]["verdict"]["enum"] for d in defs.values() if "verdict" in d.get("properties", {}))
    assert set(verdicts) == {v for _, v in VERDICTS} | {""}


def test_a_deduction_finding_follows_the_verify_schema() -> None:
    code, out = cli(["verify", str(ROOT / "tests" / "rulesets" / "spy_court.rules"), "--players", "3", "--format", "json", "--jobs", "1"])
    assert code in (0, 1)
    doc = json.loads(out)
    assert "deduction" in {f["kind"] for f in doc["findings"]}
    validate(doc, "verify")
