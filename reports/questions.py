"""The questions for the publisher: every declared question and every problem verify found in the
rulebook, each once, ordered by how much it matters, with the evidence behind it; exportable on
its own (CSV or Markdown) for a translator to send.

A question comes from one of three places: a declared ambiguity (its findings, of every pair of
readings, and its sensitivity and translation findings are its evidence); a problem of the rules
that a game shows (a situation no rule settles, two rules that disagree, a supply that runs out,
endless play, a broken invariant); or data the rulebook does not give (an assumed table).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rulecheck.dsl import ir
from rulecheck.verifier.findings import Finding

from . import wording

if TYPE_CHECKING:
    from .model import AssumptionView, Cited, FindingView, ReadingView, SimulationResults

#: How much a verdict of an ambiguity matters, most first (the question's rank).
IMPACT_RANK = {"outcome": 0, "moves": 2, "information": 3, "coarse": 6, "timeout": 6, "endless": 6, "same-rule": 6, "harmless": 8}
#: Problems of the rules a game shows: their rank among the questions.
PROBLEM_KINDS = {"incompleteness": 1, "conflict": 1, "exhaustion": 1, "non-termination": 1, "invariant": 4}


@dataclass
class Question:
    number: int
    anchor: str
    kind: str  # a declared kind (ambiguity, gap, contradiction, translation), a finding kind, or "missing data"
    kind_label: str
    subject: str
    text: str  # the question, in one line
    impact: str  # how much it matters, in a sentence or two
    quotes: list[Cited]
    readings: list[ReadingView]
    evidence: list[tuple[int, str, str]]  # (finding number, anchor, title) in the report
    location: str
    rank: tuple[int, float, int] = field(default=(9, 0.0, 0), repr=False)


def build_questions(rules: ir.Ruleset, findings: list[Finding], views: dict[int, FindingView], assumptions: list[AssumptionView],
                    sim: SimulationResults | None, labels: dict[str, str], declared_labels: dict[str, str]) -> list[Question]:
    """The questions, numbered in the order they matter. ``views`` maps id(finding) to its view in
    the report (its number and anchor); ``labels`` and ``declared_labels`` give the kinds' names."""
    from .model import _cited_quotes, _location, _quotes, _readings

    out: list[Question] = []
    by_amb: dict[str, list[Finding]] = {}
    for f in findings:
        names = [f.subject] if f.subject in rules.ambiguities and f.kind in ("ambiguity", "sensitivity") else []
        names += [n for n in f.details.get("ambiguities", []) if n in rules.ambiguities]
        if f.kind == "dead-rule" and f.verdict == "other-reading":
            names += [part.split("=")[0] for part in str(f.details.get("under", "")).split(", ") if part.split("=")[0] in rules.ambiguities]
        for n in names:
            by_amb.setdefault(n, []).append(f)
    attached = {id(f) for fs in by_amb.values() for f in fs}
    for order, amb in enumerate(rules.ambiguities.values()):
        evidence = by_amb.get(amb.name, [])
        pairs = [f for f in evidence if f.kind == "ambiguity"]
        impact, rank = _ambiguity_impact(amb, pairs, evidence, views, sim)
        plays = [p for f in pairs if f.witness for p in f.witness.plays]
        out.append(Question(0, "", amb.kind, declared_labels.get(amb.kind, amb.kind), amb.name,
                            amb.question or f"Which reading of '{amb.name}' is meant?", impact,
                            [_cited_quotes(rules, s.quotes) for s in amb.sources], _readings(amb, plays, sim),
                            _evidence(evidence, views), _location(rules, amb.span.line, amb.span.col), (rank[0], rank[1], order)))
    for order, f in enumerate(findings):
        if id(f) in attached:
            continue
        if f.kind in PROBLEM_KINDS and f.status == "witness":
            text, impact = wording.problem_question(f)
            out.append(Question(0, "", f.kind, labels.get(f.kind, f.kind), f.subject, text, impact, _quotes(rules, f), [],
                                _evidence([f], views), _location(rules, f.span.line, f.span.col), (PROBLEM_KINDS[f.kind], 0.0, order)))
        elif f.kind == "translation":
            out.append(Question(0, "", f.kind, labels.get(f.kind, f.kind), f.subject, f.title + "?" if not f.title.endswith("?") else f.title,
                                f.message, _quotes(rules, f), [], _evidence([f], views), _location(rules, f.span.line, f.span.col),
                                (5, 0.0, order)))
    for order, a in enumerate(assumptions):
        out.append(Question(0, "", "missing data", "Missing data: the rulebook does not give it", a.subject, a.question,
                            wording.missing_data_impact(a.kind), a.quotes, [], [], a.location, (5, 0.0, 1000 + order)))
    out.sort(key=lambda q: q.rank)
    for i, q in enumerate(out, start=1):
        q.number, q.anchor = i, f"question-{i}"
    return out


def _evidence(fs: list[Finding], views: dict[int, FindingView]) -> list[tuple[int, str, str]]:
    return sorted((views[id(f)].number, views[id(f)].anchor, views[id(f)].title) for f in fs if id(f) in views)


def _ambiguity_impact(amb: ir.Ambiguity, pairs: list[Finding], evidence: list[Finding], views: dict[int, FindingView],
                      sim: SimulationResults | None) -> tuple[str, tuple[int, float]]:
    """How much a declared question matters: the strongest verdict of its pairs of readings, with
    the share of coupled random games it changes."""
    if not pairs:
        return "Not verified in this report: whether the readings ever differ is not known here.", (7, 0.0)
    strongest = min(pairs, key=lambda f: IMPACT_RANK.get(f.verdict, 7))
    number = views[id(strongest)].number if id(strongest) in views else None
    shares = [r for r in sim.for_ambiguity(amb.name) if r.changed] if sim and sim.for_ambiguity(amb.name) else None
    top = max((r.share for r in shares or []), default=0.0)
    text = wording.ambiguity_impact(strongest, number, shares)
    sens = [f for f in evidence if f.kind == "sensitivity" and f.verdict == "depends"]
    if sens and strongest.status == "witness":
        text += " " + wording.depends_on_data(views[id(sens[0])].number if id(sens[0]) in views else None)
    return text, (IMPACT_RANK.get(strongest.verdict, 7), -top)


# ---- export ---------------------------------------------------------------------------------------

CSV_COLUMNS = ("number", "kind", "subject", "question", "impact", "rulebook", "readings", "evidence", "location")


def _quote_text(q: Cited) -> str:
    return f"“{q.text}” ({q.lang})" + "".join(f" / {lang}: “{text}”" for lang, _, text in q.translations)


def _reading_text(r: ReadingView) -> str:
    head = f"{r.name}{' (default)' if r.default else ''}: {r.desc}"
    return head + (f" Settled by: “{r.clarify}”" if r.clarify else "")


def to_csv(questions: list[Question]) -> str:
    """One row per question, for a spreadsheet; every cell plain text. A cell that a spreadsheet
    would read as a formula (=, +, -, @ first) gets a leading apostrophe."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for q in questions:
        row = [str(q.number), q.kind_label, q.subject, q.text, q.impact, "\n".join(_quote_text(x) for x in q.quotes),
               "\n".join(_reading_text(r) for r in q.readings), ", ".join(f"finding {n}" for n, _, _ in q.evidence), q.location]
        w.writerow([("'" + c) if c[:1] in ("=", "+", "-", "@") else c for c in row])
    return buf.getvalue()
