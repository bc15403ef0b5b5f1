"""Reading the JSON that ``rulecheck verify``, ``rulecheck simulate`` and ``rulecheck diff`` write,
back into the objects a report is built from.

A report made from a verify JSON file is the report made from the verify run itself: the JSON
holds every field of a finding except its solver time, which reports never print.  Files are
checked before they are used (schema, version, fields), and each loader returns the file's header
so the caller can compare its ruleset sha256 with the ruleset it is reporting on.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from rulecheck.dsl.source import Span
from rulecheck.verifier.findings import DECLARED_KINDS, KINDS, SEVERITIES, STATUSES, VERDICTS, Finding, Play, Position, Quote, Witness

from . import simulate
from .model import EditionDiff, SimulationResults

VERIFY_SCHEMA = "rulecheck-verify"
DIFF_SCHEMA = "rulecheck-diff"
SIMULATE_SCHEMA = simulate.SCHEMA
#: The schema versions these loaders read; a newer file is refused rather than half understood.
VERIFY_VERSIONS = (1,)
SIMULATE_VERSIONS = (simulate.SCHEMA_VERSION,)
DIFF_VERSIONS = (1,)


class LoadError(ValueError):
    """A file that is not what it claims to be; the message says what is wrong, in one line."""


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON, and no count or share of rulecheck's is one."""
    raise LoadError(f"{name} is not a number JSON allows")


def _int(digits: str) -> int:
    """No number of rulecheck's output has more than 20 digits (Python refuses to read more than
    4,300 of them, with an error of its own)."""
    if len(digits.lstrip("-")) > 20:
        raise LoadError(f"a number of {len(digits):,} digits is no count or position of rulecheck's")
    return int(digits)


def _parse(text: str, schema: str, versions: tuple[int, ...]) -> dict[str, Any]:
    doc = _document(text, schema, versions)
    ruleset = doc.get("ruleset")
    if not isinstance(ruleset, dict) or not isinstance(ruleset.get("sha256"), str):
        raise LoadError("the file does not say which ruleset it is about (ruleset.sha256)")
    return doc


def _document(text: str, schema: str, versions: tuple[int, ...]) -> dict[str, Any]:
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise LoadError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise LoadError("arrays or objects nested too deeply to be rulecheck's output") from None
    if not isinstance(doc, dict) or doc.get("schema") != schema:
        found = doc.get("schema") if isinstance(doc, dict) else None
        raise LoadError(f"not a {schema} file (its schema is {found!r})")
    if doc.get("schema_version") not in versions:
        raise LoadError(f"{schema} schema version {doc.get('schema_version')!r} is not one this rulecheck reads "
                        f"({', '.join(map(str, versions))})")
    return doc


def _need(d: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise LoadError(f"{where}: '{key}' is missing")
    v = d[key]
    # bool is an int in Python; a JSON true where a number belongs is still wrong
    if not isinstance(v, kind) or (isinstance(v, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
        raise LoadError(f"{where}: '{key}' has the wrong type ({type(v).__name__})")
    return v


def header(doc: dict[str, Any], skip: str) -> dict[str, Any]:
    """Everything in a document except its bulky list."""
    return {k: v for k, v in doc.items() if k != skip}


# ---- verify ------------------------------------------------------------------------------------


def _span(d: Any, where: str) -> Span:
    return Span(*(_need(d, k, int, where) for k in ("line", "col", "end_line", "end_col")))


def _quote(d: Any, where: str) -> Quote:
    lang = d.get("lang") if isinstance(d, dict) else None
    if lang is not None and not isinstance(lang, str):
        raise LoadError(f"{where}: 'lang' has the wrong type")
    return Quote(_need(d, "text", str, where), lang)


def _play(d: Any, where: str) -> Play:
    winners = d.get("winners") if isinstance(d, dict) else None
    if winners is not None and not (isinstance(winners, list) and all(isinstance(w, int) for w in winners)):
        raise LoadError(f"{where}: 'winners' has the wrong type")
    readings = _need(d, "readings", dict, where)
    steps = _need(d, "steps", list, where)
    if not all(isinstance(v, str) for v in [*readings.values(), *steps]):
        raise LoadError(f"{where}: readings and steps must be text")
    return Play(
        label=_need(d, "label", str, where),
        readings=readings,
        actions=_need(d, "actions", list, where),
        steps=steps,
        outcome=_need(d, "outcome", str, where),
        winners=winners,
        replayed=bool(d.get("replayed", False)),
    )


def _rows(d: Any, key: str, where: str) -> list[list[str]]:
    rows = _need(d, key, list, where)
    if not all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r) for r in rows):
        raise LoadError(f"{where}: '{key}' must be a list of [text, text] pairs")
    return [[str(a), str(b)] for a, b in rows]


def _ints(d: Any, key: str, where: str, optional: bool = False) -> list[int] | None:
    value = d.get(key) if isinstance(d, dict) else None
    if value is None and optional:
        return None
    if not (isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value)):
        raise LoadError(f"{where}: '{key}' must be a list of whole numbers")
    return value


def _position(d: Any, where: str) -> Position:
    note = d.get("note") if isinstance(d, dict) else None
    if note is not None and not isinstance(note, str):
        raise LoadError(f"{where}: 'note' has the wrong type")
    marks = _ints(d, "marks", where)
    assert marks is not None
    kind = d.get("where", "parting")
    if kind not in ("parting", "deal", "late", "editions"):
        raise LoadError(f"{where}: 'where' is 'parting', 'deal', 'late' or 'editions', not {kind!r}")
    return Position(_need(d, "step", int, where), _rows(d, "table", where), _rows(d, "draws", where), _rows(d, "cards", where),
                    marks, _need(d, "longest", int, where), note, _ints(d, "ends", where, optional=True), kind)


def _witness(d: Any, where: str) -> Witness:
    setup = _need(d, "setup", list, where)
    if not all(isinstance(s, str) for s in setup):
        raise LoadError(f"{where}: 'setup' must be a list of text")
    plays = [_play(p, f"{where}, play {i + 1}") for i, p in enumerate(_need(d, "plays", list, where))]
    pos = _position(d["position"], f"{where}, position") if isinstance(d, dict) and d.get("position") is not None else None
    if pos is not None and (len(pos.marks) != len(plays) or (pos.ends is not None and len(pos.ends) != len(plays))):
        raise LoadError(f"{where}, position: one mark per play")
    return Witness(_need(d, "players", int, where), setup, plays, _need(d, "divergence", str, where), pos)


def _finding(d: Any, where: str) -> Finding:
    for key, allowed in (("kind", KINDS), ("severity", SEVERITIES), ("status", STATUSES)):
        if _need(d, key, str, where) not in allowed:
            raise LoadError(f"{where}: unknown {key} '{d[key]}'")
    bound = d.get("bound")
    if bound is not None and not isinstance(bound, str):
        raise LoadError(f"{where}: 'bound' has the wrong type")
    args: dict[str, Any] = {
        "kind": d["kind"], "severity": d["severity"], "status": d["status"],
        "subject": _need(d, "subject", str, where), "title": _need(d, "title", str, where),
        "message": _need(d, "message", str, where), "span": _span(_need(d, "span", dict, where), f"{where}, span"),
        "quotes": [_quote(q, f"{where}, quote {i + 1}") for i, q in enumerate(d.get("quotes") or [])],
        "witness": _witness(d["witness"], f"{where}, witness") if d.get("witness") is not None else None,
        "bound": bound,
        "details": d.get("details") or {},
    }
    if not isinstance(args["details"], dict):
        raise LoadError(f"{where}: 'details' has the wrong type")
    verdict, declared = d.get("verdict", ""), d.get("declared")
    if not isinstance(verdict, str) or (verdict and VERDICTS.get((d["kind"], verdict)) != (d["status"], d["severity"])):
        raise LoadError(f"{where}: verdict {verdict!r} is not one of a {d['kind']} finding with status {d['status']} and severity {d['severity']}")
    if declared is not None and declared not in DECLARED_KINDS:
        raise LoadError(f"{where}: unknown declared kind {declared!r}")
    # fields the verifier adds later (with defaults) are carried over as they are
    for f in dataclasses.fields(Finding):
        if f.name not in args and f.name in d and f.name != "seconds":
            args[f.name] = d[f.name]
    return Finding(**args)


def load_findings_json(text: str) -> tuple[dict[str, Any], list[Finding]]:
    """The header (schema, tool, ruleset, players, readings, summary) and the findings of a
    ``rulecheck verify --format json`` output.  Raises LoadError with a one-line message."""
    doc = _parse(text, VERIFY_SCHEMA, VERIFY_VERSIONS)
    items = _need(doc, "findings", list, "the file")
    return header(doc, "findings"), [_finding(f, f"finding {i + 1}") for i, f in enumerate(items)]


# ---- simulate ----------------------------------------------------------------------------------


def read_simulation_json(text: str) -> tuple[dict[str, Any], SimulationResults]:
    """The header and the results of a ``rulecheck simulate --format json`` output.  Raises
    LoadError with a one-line message.  The results are read by simulate.load_simulation_json; the
    header is read here because the caller checks the ruleset's sha256 in it."""
    doc = _parse(text, SIMULATE_SCHEMA, SIMULATE_VERSIONS)
    try:
        results = simulate.load_simulation_json(text)
    except simulate.SimulationFormatError as exc:
        raise LoadError(str(exc).replace("\n", " ")) from None
    _plausible(results)
    return header(doc, "readings"), results


def _plausible(sim: SimulationResults) -> None:
    """Counts that a simulation can have given: no negative count, no share outside 0..1, no
    interval that leaves out its share; a report prints them as they are."""
    import math

    counts = sim.players if isinstance(sim.players, tuple) else (sim.players,)
    if sim.games < 1 or not all(isinstance(n, int) and n >= 1 for n in counts):
        raise LoadError(f"a simulation of {sim.games} games for {counts} players cannot have been made")
    if not (math.isfinite(sim.level) and 0 < sim.level < 1):
        raise LoadError(f"the confidence level {sim.level} is not between 0 and 1")
    for r in sim.readings:
        shares = (r.low, r.share, r.high)
        if not (0 <= r.changed <= r.games and all(math.isfinite(x) for x in shares) and 0 <= r.low <= r.share <= r.high <= 1):
            raise LoadError(f"reading {r.ambiguity}={r.reading}: {r.changed} of {r.games} games changed, share {r.share} "
                            f"in [{r.low}, {r.high}] is not a count and a share a simulation gives")


# ---- diff --------------------------------------------------------------------------------------


def load_diff_json(text: str) -> EditionDiff:
    """The two editions and the differences of a ``rulecheck diff --format json`` output, each
    difference with the file its span is in.  Raises LoadError with a one-line message."""
    doc = _document(text, DIFF_SCHEMA, DIFF_VERSIONS)
    editions = _need(doc, "editions", list, "the file")
    if len(editions) != 2:
        raise LoadError(f"a diff compares two editions, not {len(editions)}")
    pairs = [(_need(e, "file", str, f"edition {i + 1}"), _need(e, "sha256", str, f"edition {i + 1}"),
              _need(e, "game", str, f"edition {i + 1}")) for i, e in enumerate(editions)]
    files = {f for f, _, _ in pairs}
    players = _ints(doc, "players", "the file")
    assert players is not None
    items = []
    for i, d in enumerate(_need(doc, "findings", list, "the file")):
        where = f"difference {i + 1}"
        file = _need(d, "file", str, where)
        if file not in files:
            raise LoadError(f"{where}: its file {file} is neither edition")
        items.append((file, _finding(d, where)))  # 'file' is no field of a Finding: left out
    return EditionDiff((pairs[0], pairs[1]), tuple(players), _need(doc, "games", int, "the file"), _need(doc, "seed", int, "the file"),
                       tuple(items))
