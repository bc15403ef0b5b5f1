"""The three spellings of a verification: compiler-style text, JSON (docs/verify.md) and SARIF 2.1.0.

All three are deterministic: the same ruleset and options give the same bytes (solver times are
never printed).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from rulecheck import __version__
from rulecheck.dsl.diagnostics import Diagnostic, Severity, render
from rulecheck.dsl.source import SourceFile
from rulecheck.reports import wording

from .findings import Finding, Play
from .verify import _KIND_ORDER, Outcome

SEVERITY_RANK = {"error": 0, "warning": 1, "note": 2}
SCHEMA_VERSION = 1


def wall_stop_warning(stops: int) -> str:
    """Said loudly whenever the wall-clock safety net, not a question's resource limit, stopped the
    solver: those answers are "unknown" here and may be decided on another run."""
    return (f"warning: the wall-clock safety net stopped {stops} solver question{'s' if stops != 1 else ''} before "
            f"{'their' if stops != 1 else 'its'} resource limit (the machine was slower or busier than the calibration of "
            "--timeout): their 'unknown' may differ on another run; verify again on a quieter machine or with a larger --timeout")


def _span_text(n: list[int]) -> str:
    if len(n) == 1:
        return f"{n[0]} players"
    return f"{n[0]} to {n[-1]} players"


def render_text(outcome: Outcome, source: SourceFile | None, verbose: bool = False) -> str:
    rules = outcome.rules
    out = [f"{rules.name}: {rules.game.title}: verified for {_span_text(outcome.players)}"]
    changed = {a: r for a, r in outcome.readings.items() if r != rules.ambiguities[a].default.name}
    if changed:
        out.append("readings: " + ", ".join(f"{a}={r}" for a, r in sorted(changed.items())))
    if outcome.params:
        out.append("parameters: " + ", ".join(f"{k}={v}" for k, v in outcome.params.items()) + " (the others at their defaults)")
    if outcome.wall_stops:
        out.append(wall_stop_warning(outcome.wall_stops))
    for kind in _KIND_ORDER:
        group = [f for f in outcome.findings if f.kind == kind]
        if not group:
            continue
        shown = group if verbose else [f for f in group if not (f.status == "proven" and f.severity == "note" and kind in _QUIET)]
        hidden = len(group) - len(shown)
        out.append("")
        out.append(f"== {kind} ({_count_line(group)}) ==")
        for f in shown:
            out.append(render_finding(f, source))
        if hidden:
            out.append(f"  … and {hidden} more proven: " + _proven_list([f for f in group if f not in shown]) + " (--verbose lists them)")
    out.append("")
    out.append(summary_line(outcome))
    return "\n".join(out) + "\n"


#: Kinds whose proven notes are many and alike: listed in one line unless --verbose.
_QUIET = ("incompleteness", "conflict", "exhaustion", "invariant")


def _proven_list(items: list[Finding]) -> str:
    names = sorted({f"{f.subject} (line {f.span.line})" for f in items})
    if len(names) > 12:
        return ", ".join(names[:12]) + f", … ({len(names)} in all)"
    return ", ".join(names)


def _count_line(group: list[Finding]) -> str:
    c = Counter(f.status for f in group)
    parts = []
    for status, word in (("witness", "with a witness"), ("proven", "proven"), ("unknown", "unknown"), ("static", "found in the text")):
        if c[status]:
            parts.append(f"{c[status]} {word}")
    return ", ".join(parts)


def render_finding(f: Finding, source: SourceFile | None) -> str:
    sev = {"error": Severity.ERROR, "warning": Severity.WARNING, "note": Severity.NOTE}[f.severity]
    d = Diagnostic(sev, f.kind, f"{f.title} [{f.status}]", f.span)
    text = render(d, source).replace(f"[{f.kind}]", f"[{f.kind}]", 1)
    lines = [text, f"   = {f.message}"]
    for q in f.quotes[:3]:
        lang = f" ({q.lang})" if q.lang else ""
        lines.append(f"   = rulebook{lang}: \"{_short(q.text, 160)}\"")
    if f.bound and f.status == "proven":
        lines.append(f"   = proven for {f.bound}")
    if f.witness is not None:
        w = f.witness
        lines.append(f"   = witness, {w.players} players: {w.divergence}")
        pos = w.position
        if pos is not None and len(pos.marks) == len(w.plays):
            lines.append(f"     {wording.position_heading(pos.where, pos.step)} (the whole game: --format json):")
            lines.extend(f"       {where}: {what}" for where, what in pos.table)
            if pos.draws:
                lines.append("       draws from here on: " + "; ".join(f"{zone}: {what}" for zone, what in pos.draws))
            ends = pos.ends or [len(p.steps) for p in w.plays]
            for p, m, e in zip(w.plays, pos.marks, ends):
                lines.append(f"     {p.label}: {p.outcome}" + (" (replayed in the generated engine)" if p.replayed else ""))
                lines.extend(f"       {step}" for step in p.steps[m:e])
            if pos.note:
                lines.append(f"     {pos.note}")
        else:
            if w.setup:
                lines.append("     table before the first move:")
                lines.extend(f"       {s}" for s in w.setup)
            lines.extend(_plays(w.plays))
    return "\n".join(lines)


def _plays(plays: list[Play]) -> list[str]:
    out: list[str] = []
    first = plays[0].steps
    for i, p in enumerate(plays):
        steps = p.steps
        skip = 0
        if i > 0:
            while skip < min(len(first), len(steps)) and first[skip] == steps[skip]:
                skip += 1
        out.append(f"     {p.label}: {p.outcome}" + (" (replayed in the generated engine)" if p.replayed else ""))
        if skip:
            out.append(f"       … the first {skip} steps as above …")
        out.extend(f"       {s}" for s in steps[skip:])
    return out


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def summary_line(outcome: Outcome) -> str:
    c = Counter((f.kind, f.status) for f in outcome.findings)
    parts = []
    for kind in _KIND_ORDER:
        bits = []
        for status in ("witness", "unknown", "proven", "static"):
            if c[(kind, status)]:
                bits.append(f"{c[(kind, status)]} {status}")
        if bits:
            parts.append(f"{kind}: {', '.join(bits)}")
    sev = Counter(f.severity for f in outcome.findings)
    return f"summary: {'; '.join(parts)} — {sev['error']} errors, {sev['warning']} warnings, {sev['note']} notes"


def to_json(outcome: Outcome) -> str:
    rules = outcome.rules
    doc: dict[str, Any] = {
        "schema": "rulecheck-verify",
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rulecheck", "version": __version__},
        "ruleset": {"file": rules.name, "sha256": rules.text_hash, "game": rules.game.title},
        "players": outcome.players,
        "readings": dict(sorted(outcome.readings.items())),
        "params": outcome.params,
        "findings": [f.to_json() for f in outcome.findings],
        "summary": {
            "by_kind": {k: dict(sorted(Counter(f.status for f in outcome.findings if f.kind == k).items())) for k in _KIND_ORDER if any(f.kind == k for f in outcome.findings)},
            "by_severity": dict(sorted(Counter(f.severity for f in outcome.findings).items())),
        },
    }
    if outcome.wall_stops:  # only then: the bytes of an undisturbed run never depend on the clock
        doc["wall_clock_stops"] = outcome.wall_stops
    return json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


_KIND_TEXT = {
    "ambiguity": "Do the readings of a declared ambiguity ever give a different result?",
    "incompleteness": "Is there a reachable situation in which no rule says what happens?",
    "conflict": "Is there a reachable situation in which two rules apply and disagree?",
    "non-termination": "Can play go on for ever?",
    "exhaustion": "Can a supply run out when a rule needs it?",
    "dead-rule": "Is there a rule that can never apply?",
    "sensitivity": "Does a result depend on assumed or unspecified data?",
    "translation": "Does a quote's wording disagree with the formal rule?",
    "edition-difference": "Where do two editions of one game give different results?",
    "invariant": "Does a declared invariant hold in every reachable state?",
    "deduction": "Can the player who makes a decision always know what the ruleset's target says they want to know?",
}
#: SARIF rule names (reportingDescriptor.name): what a failing result of each kind says, in the
#: PascalCase the spec's examples use; ids stay the kinds that --check and the JSON use.
_RULE_NAME = {
    "ambiguity": "ReadingsChangeTheResult",
    "incompleteness": "NoRuleSaysWhatHappens",
    "conflict": "RulesDisagree",
    "non-termination": "PlayCanGoOnForEver",
    "exhaustion": "SupplyRunsOut",
    "dead-rule": "RuleNeverApplies",
    "sensitivity": "ResultDependsOnAssumedData",
    "translation": "TranslationDisagreesWithRule",
    "edition-difference": "EditionsGiveDifferentResults",
    "invariant": "InvariantBroken",
    "deduction": "TargetCannotAlwaysBeKnown",
}


def sarif_kind_and_level(f: Finding) -> tuple[str, str]:
    """SARIF's result.kind and result.level (SARIF 2.1.0, 3.27.9 and 3.27.10) of a finding.

    A finding at error or warning severity is a problem whatever its status: a witness shows it, a
    proof can show it too (a dead rule: proven never to apply), a static reading finds it. A proven
    note is a check that passed (an ambiguity proven harmless, an invariant proven to hold). A note
    with a witness is a fact worth knowing, not a problem (a result that depends on assumed data).
    "unknown" is neither pass nor fail: "open". The spec requires level "none" for every kind but
    "fail"."""
    if f.status == "unknown":
        return "open", "none"
    if f.severity == "note":
        return ("pass" if f.status == "proven" else "informational"), "none"
    return "fail", f.severity


def _documentation_uri() -> str | None:
    """The project's documentation URL from its package metadata (pyproject's [project.urls]):
    SARIF wants an absolute URI there, and none is invented when the project declares none."""
    from importlib import metadata

    try:
        urls: list[str] = [str(u) for u in metadata.metadata("rulecheck").get_all("Project-URL") or []]
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("documentation", "homepage") and url.strip():
            return url.strip()
    return None


def _artifact_uri(name: str) -> str:
    """A ruleset's name as a URI reference (relative, forward slashes, percent-encoded)."""
    from pathlib import PurePath
    from urllib.parse import quote

    return quote(PurePath(name).as_posix())


def sarif_result(f: Finding, rule_id: str, rule_index: int, uri: str, index: int, **properties: Any) -> dict[str, Any]:
    """One SARIF result: the finding's title, message and witness, where it is (in artifact
    ``index``, whose URI is ``uri``) and rulecheck's own words in its properties."""
    text = f"{f.title}. {f.message}"
    if f.witness is not None:
        text += f" Witness ({f.witness.players} players): {f.witness.divergence}."
    if f.status == "proven" and f.bound:
        text += f" Proven for {f.bound}."
    kind, level = sarif_kind_and_level(f)
    return {
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "kind": kind,
        "level": level,
        "message": {"text": text},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri, "index": index},
                "region": {
                    "startLine": f.span.line, "startColumn": f.span.col,
                    "endLine": f.span.end_line, "endColumn": f.span.end_col,
                },
            },
        }],
        # rulecheck's own words: the severity holds for "open" results too, whose level is none
        "properties": {"status": f.status, "severity": f.severity, "subject": f.subject, **properties},
    }


def sarif_document(description: str, rules: list[dict[str, Any]], uris: list[str], results: list[dict[str, Any]]) -> str:
    """A SARIF 2.1.0 log of one run of rulecheck over the artifacts ``uris``."""
    driver: dict[str, Any] = {
        "name": "rulecheck",
        "version": __version__,
        "semanticVersion": __version__,
        "fullDescription": {"text": description},
        "rules": rules,
    }
    info = _documentation_uri()
    if info is not None:
        driver["informationUri"] = info
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            # columns count characters (code points), as rulecheck's diagnostics do
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": {"uri": u}, "sourceLanguage": "rulecheck-rules"} for u in uris],
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_sarif(outcome: Outcome) -> str:
    rules_used = [k for k in _KIND_ORDER if any(f.kind == k for f in outcome.findings)]
    uri = _artifact_uri(outcome.rules.name)
    results = [sarif_result(f, f.kind, rules_used.index(f.kind), uri, 0) for f in outcome.findings]
    rules = [{
        "id": k,
        "name": _RULE_NAME[k],
        "shortDescription": {"text": _KIND_TEXT[k]},
        "help": {"text": f"rulecheck's check `{k}`: see docs/verify.md, \"The checks\"; "
                         f"`rulecheck verify FILE --check {k}` runs it alone."},
    } for k in rules_used]
    return sarif_document("Checks a tabletop game's formalized rules (a .rules file) for ambiguities, gaps, "
                          "conflicts, endless play and more; each finding with a witness game, a proof or "
                          "an honest unknown. The checks are described in docs/verify.md of rulecheck.",
                          rules, [uri], results)


def exit_code(outcome: Outcome, fail_on: str) -> int:
    return findings_exit_code(outcome.findings, fail_on)


def findings_exit_code(findings: Iterable[Any], fail_on: str) -> int:
    """1 when a finding is at least as severe as ``fail_on`` ("never": 0 always), else 0."""
    if fail_on == "never":
        return 0
    limit = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK[f.severity] <= limit for f in findings) else 0
