"""The questions for the publisher (reports/questions.py): every declared question once, with its
declared kind, ordered by how much it matters, missing data among them, exportable as CSV and
Markdown on their own."""

from __future__ import annotations

import csv
import io

from conftest import ROOT

from rulecheck.cli import main
from rulecheck.dsl.loader import load_path
from rulecheck.reports.make import report_text
from rulecheck.reports.model import build_report
from rulecheck.verifier.findings import VERDICTS, Finding

CINDERELLA = ROOT / "rulesets" / "cinderella.rules"


def finding(rules, name: str, verdict: str, players: int = 2) -> Finding:  # type: ignore[no-untyped-def]
    amb = rules.ambiguities[name]
    status, severity = VERDICTS[("ambiguity", verdict)]
    base, other = amb.default.name, next(r.name for r in amb.readings if not r.default)
    return Finding("ambiguity", severity, status, name, f"{name}: t", "m", amb.span,
                   details={"ambiguity": name, "readings": [base, other], "players": players, "proven": "2 to 4 players"},
                   verdict=verdict, declared=amb.kind)


def test_every_declared_question_once_ordered_by_impact() -> None:
    rules = load_path(CINDERELLA).rules
    assert rules is not None
    fs = [finding(rules, "removed_chip", "harmless"), finding(rules, "sum_meaning", "outcome"), finding(rules, "rank3_gray", "moves")]
    qs = build_report(rules, fs).questions
    names = [q.subject for q in qs]
    declared = list(rules.ambiguities)
    assert sorted(n for n in names if n in rules.ambiguities) == sorted(declared)  # each once
    assert names[:2] == ["sum_meaning", "rank3_gray"]  # a changed winner first, then changed moves
    harmless = names.index("removed_chip")
    missing = [i for i, q in enumerate(qs) if q.kind == "missing data"]
    assert missing and all(i < harmless for i in missing)  # missing data before what is proven not to matter
    q = qs[0]
    assert q.kind_label.startswith("Translation") and "Changes who wins" in q.impact  # sum_meaning is declared a translation
    assert [r.clarify for r in q.readings if r.clarify]  # the sentences that would settle it
    data = next(q for q in qs if q.kind == "missing data")
    assert "Its shape is assumed too" in data.text and "exactly one drink" in data.text


def test_the_questions_alone_as_csv_and_markdown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rules = load_path(CINDERELLA).rules
    assert rules is not None
    fs = [finding(rules, "sum_meaning", "outcome")]
    rows = list(csv.reader(io.StringIO(report_text(rules, fs, "csv"))))
    assert rows[0][:4] == ["number", "kind", "subject", "question"]
    assert rows[1][2] == "sum_meaning" and len(rows) == 1 + len(build_report(rules, fs).questions)
    md = report_text(rules, fs, "questions-md")
    assert md.startswith("# Questions for the publisher: Too Many Cinderellas") and "finding 1 of the report" in md
    assert "## 3. The evidence" not in md


def test_report_cli_writes_the_questions(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from rulecheck.verifier.output import to_json
    from rulecheck.verifier.verify import Outcome

    rules = load_path(CINDERELLA).rules
    assert rules is not None
    findings = tmp_path / "f.json"
    findings.write_text(to_json(Outcome(rules, [finding(rules, "sum_meaning", "outcome")], [2], {})), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["report", str(CINDERELLA), "--findings", str(findings), "-o", str(tmp_path / "q.csv")], out, err) == 0, err.getvalue()
    assert "the questions for the publisher" in out.getvalue()
    assert main(["report", str(CINDERELLA), "--findings", str(findings), "--questions", "-o", str(tmp_path / "q.md")], out, err) == 0
    assert (tmp_path / "q.md").read_text(encoding="utf-8").startswith("# Questions for the publisher")
    code = main(["report", str(CINDERELLA), "--findings", str(findings), "--questions", "-o", str(tmp_path / "q.html")], out, err)
    assert code == 2 and "--questions writes" in err.getvalue()


def test_csv_cells_are_never_formulas() -> None:
    from rulecheck.reports.questions import Question, to_csv

    q = Question(1, "q", "gap", "Gap", "=HYPERLINK(1)", "+1", "-2", [], [], [], "@x", (0, 0.0, 0))
    row = list(csv.reader(io.StringIO(to_csv([q]))))[1]
    assert all(cell[:1] not in ("=", "+", "-", "@") for cell in row) and "=HYPERLINK(1)" in row[2]
