"""Clarification reports for translators: the IR and the verifier's findings as Markdown or HTML.

    report = build_report(rules, findings, simulation=None, rulebook=None, rulebook_name=None)
    write_report("report.html", report)   # or .md; render_markdown / render_html give the text
"""

from .model import ReadingFrequency, Report, SimulationResults, build_report
from .render import render_html, render_markdown, write_report

__all__ = ["ReadingFrequency", "Report", "SimulationResults", "build_report", "render_html", "render_markdown", "write_report"]
