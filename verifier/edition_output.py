"""The three spellings of `rulecheck diff`: compiler-style text, JSON (schemas/rulecheck-diff.schema.json)
and SARIF 2.1.0, as verify's (verifier/output.py). Deterministic: the same editions and options
give the same bytes."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from rulecheck import __version__

from .editions import AREAS, EditionOutcome
from .findings import Finding
from .output import _artifact_uri, _short, findings_exit_code, sarif_document, sarif_result

SCHEMA_VERSION = 1


def _file_of(o: EditionOutcome, f: Finding) -> str:
    present = f.details.get("in", [True, True])
    return o.a.name if present[0] else o.b.name


def render_diff_text(o: EditionOutcome) -> str:
    a, b = o.a.game.title, o.b.game.title
    out = [f"{o.a.name} ({a}) and {o.b.name} ({b}): two editions of \"{o.a.edition.game if o.a.edition else ''}\", "
           f"compared for {_players(o.players)} ({o.games} games searched per player count, seed {o.seed})"]
    for area in AREAS:
        group = [f for f in o.findings if f.details.get("area") == area]
        if not group:
            continue
        out.append("")
        out.append(f"== {area} ({_count(group)}) ==")
        for f in group:
            out.append(render_difference(o, f))
    out.append("")
    out.append(summary_line(o))
    return "\n".join(out) + "\n"


def render_difference(o: EditionOutcome, f: Finding) -> str:
    file = _file_of(o, f)
    lines = [f"{file}:{f.span.line}:{f.span.col}: {f.severity}[edition-difference]: {f.title} [{f.status}]", f"   = {f.message}"]
    editions = f.details.get("quoted_from") or []
    for i, q in enumerate(f.quotes[:2]):
        lang = f" ({q.lang})" if q.lang else ""
        whose = f"{editions[i]}'s rulebook" if len(editions) == len(f.quotes) else "rulebook"
        lines.append(f"   = {whose}{lang}: \"{_short(q.text, 160)}\"")
    if f.witness is not None:
        lines.append(f"   = witness, {f.witness.players} players: {f.witness.divergence}")
        step = f.details.get("step")
        if step is not None:
            lines.append(f"     the editions play alike for {step} moves (chance draws included), then part "
                         "(the games in full, replayable: --format json):")
        for p in f.witness.plays:
            lines.append(f"     {p.label}: {p.outcome}, {len(p.actions)} moves" + (" (replayed in both engines)" if p.replayed else ""))
    return "\n".join(lines)


def _players(ns: list[int]) -> str:
    if len(ns) == 1:
        return f"{ns[0]} players"
    return f"{ns[0]} to {ns[-1]} players" if ns == list(range(ns[0], ns[-1] + 1)) else ", ".join(map(str, ns)) + " players"


def _count(group: list[Finding]) -> str:
    c = Counter(f.status for f in group)
    words = (("witness", "with a witness"), ("proven", "proven"), ("unknown", "unknown"), ("static", "found in the rules"))
    return ", ".join(f"{c[s]} {w}" for s, w in words if c[s])


def summary_line(o: EditionOutcome) -> str:
    c = Counter(f.status for f in o.findings)
    parts = [f"{c[s]} {s}" for s in ("witness", "proven", "unknown", "static") if c[s]]
    return f"summary: {len(o.findings)} differences: {', '.join(parts) or 'none'}"


def to_diff_json(o: EditionOutcome) -> str:
    doc: dict[str, Any] = {
        "schema": "rulecheck-diff",
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rulecheck", "version": __version__},
        "editions": [{"file": r.name, "sha256": r.text_hash, "game": r.game.title} for r in (o.a, o.b)],
        "game": o.a.edition.game if o.a.edition else None,
        "players": o.players,
        "games": o.games,
        "seed": o.seed,
        "findings": [dict(f.to_json(), file=_file_of(o, f)) for f in o.findings],
        "summary": {
            "by_area": {area: dict(sorted(Counter(f.status for f in o.findings if f.details.get("area") == area).items()))
                        for area in AREAS if any(f.details.get("area") == area for f in o.findings)},
            "by_status": dict(sorted(Counter(f.status for f in o.findings).items())),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_diff_sarif(o: EditionOutcome) -> str:
    uris = [_artifact_uri(o.a.name), _artifact_uri(o.b.name)]
    results = []
    for f in o.findings:
        present = f.details.get("in", [True, True])
        index = 0 if present[0] else 1
        results.append(sarif_result(f, "edition-difference", 0, uris[index], index, area=f.details.get("area")))
    rules = [{"id": "edition-difference", "name": "EditionsGiveDifferentResults",
              "shortDescription": {"text": "Where do two editions of one game give different results?"},
              "help": {"text": "rulecheck's `diff`: see docs/verify.md, \"Comparing editions\"."}}]
    return sarif_document("Compares two editions of one tabletop game, formalized as .rules files: every rule that "
                          "differs, with a game that both editions play alike until they part, or why none was found.",
                          rules, uris, results)


def diff_exit_code(o: EditionOutcome, fail_on: str) -> int:
    return findings_exit_code(o.findings, fail_on)
