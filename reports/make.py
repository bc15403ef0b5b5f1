"""A report's text and its file: the format chosen by the file name, written all at once.

``rulecheck report`` and ``python -m rulecheck.reports.regenerate`` both go through here, so a
committed report is byte for byte what the command writes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.files import MAX_JSON_BYTES, FileProblem, read_text_bounded
from rulecheck.verifier.findings import Finding

from .loaders import LoadError, load_diff_json, load_findings_json, read_simulation_json
from .model import EditionDiff, SimulationResults, build_report
from .questions import to_csv
from .render import render_html, render_markdown, render_questions_markdown

FORMATS = {".md": "md", ".html": "html", ".htm": "html", ".csv": "csv"}


def report_format(path: Path | str) -> str | None:
    """'md', 'html' or 'csv' (the questions only) from the file's extension, or None when it names none."""
    return FORMATS.get(Path(path).suffix.lower())


def report_text(
    rules: ir.Ruleset,
    findings: list[Finding],
    fmt: str,
    simulation: SimulationResults | None = None,
    rulebook: str | None = None,
    rulebook_name: str | None = None,
    rules_text: str | None = None,
    diff: EditionDiff | None = None,
) -> str:
    report = build_report(rules, findings, simulation=simulation, rulebook=rulebook, rulebook_name=rulebook_name,
                          rules_text=rules_text if fmt == "html" else None, diff=diff)
    if fmt == "csv":
        return to_csv(report.questions)
    if fmt == "questions-md":
        return render_questions_markdown(report)
    # both renderers escape every value (render.py): HTML by autoescaping, Markdown by the md filter
    return render_html(report) if fmt == "html" else render_markdown(report)


def write_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename, so
    a reader (or a failure half way) never sees a partial file.  OSError is the caller's to word."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        # mkstemp makes the file private; a report is an ordinary file (mode from the umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---- inputs ------------------------------------------------------------------------------------


class InputError(ValueError):
    """An input file that cannot be used, with a one-line message and a hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def read_input(path: str, what: str, limit: int = MAX_JSON_BYTES) -> str:
    """A UTF-8 file a command reads (a rulebook, a findings file …) of at most ``limit`` bytes, or
    an InputError that names it."""
    try:
        return read_text_bounded(path, what, limit)
    except FileProblem as exc:
        raise InputError(exc.message, exc.hint) from None


def _same_ruleset(header: dict[str, Any], rules: ir.Ruleset, path: str, rerun: str, option: str) -> None:
    """Results made from another version of the ruleset would put old findings beside new rules.

    The hint names ``path`` as the file to write only when it holds results of this very game:
    results of another game are never to be overwritten with this one's."""
    made_from = str(header["ruleset"]["sha256"])
    if made_from == rules.text_hash:
        return
    game, file = header["ruleset"].get("game"), header["ruleset"].get("file")
    if game != rules.game.title:
        raise InputError(f"{path} holds results for {game or 'another game'} ({file or 'another ruleset'}), "
                         f"not for {rules.game.title} ({rules.name})",
                         f"give {option} the results of {rules.name}: {rerun} > NEW.json, then {option} NEW.json")
    raise InputError(f"{path} is stale: it was made from a text of {rules.name} with sha256 {made_from[:12]}…, "
                     f"and the ruleset's is now {rules.text_hash[:12]}…", f"re-run {rerun} > {path}")


def findings_file(path: str, rules: ir.Ruleset, rules_path: str) -> list[Finding]:
    """The findings of a ``rulecheck verify --format json`` file made from exactly this ruleset."""
    try:
        header, findings = load_findings_json(read_input(path, "findings file"))
    except LoadError as exc:
        raise InputError(f"{path}: {exc}", "give the output of rulecheck verify --format json") from None
    _same_ruleset(header, rules, path, f"rulecheck verify {rules_path} --format json", "--findings")
    return findings


def simulation_file(path: str, rules: ir.Ruleset, rules_path: str) -> SimulationResults:
    """The results of a ``rulecheck simulate --format json`` file made from exactly this ruleset."""
    try:
        header, results = read_simulation_json(read_input(path, "simulation file"))
    except LoadError as exc:
        raise InputError(f"{path}: {exc}", "give the output of rulecheck simulate --format json") from None
    _same_ruleset(header, rules, path, f"rulecheck simulate {rules_path} --format json", "--simulation")
    return results


def diff_file(path: str, rules: ir.Ruleset, rules_path: str) -> EditionDiff:
    """A ``rulecheck diff --format json`` file of this very ruleset (by sha256) and another edition."""
    try:
        diff = load_diff_json(read_input(path, "diff file"))
    except LoadError as exc:
        raise InputError(f"{path}: {exc}", "give the output of rulecheck diff A.rules B.rules --format json") from None
    (file_a, sha_a, game_a), (file_b, sha_b, game_b) = diff.editions
    if rules.text_hash in (sha_a, sha_b):
        return diff
    rerun = f"rulecheck diff {rules_path} OTHER.rules --format json"
    if rules.name in (file_a, file_b) or rules.game.title in (game_a, game_b):
        raise InputError(f"{path} is stale: it compares other texts of {file_a} and {file_b} than the ruleset's now",
                         f"re-run {rerun} > {path}")
    raise InputError(f"{path} compares {game_a} and {game_b} ({file_a}, {file_b}), not {rules.game.title} ({rules.name})",
                     f"give --diff a diff of {rules.name} with another edition: {rerun} > NEW.json")
