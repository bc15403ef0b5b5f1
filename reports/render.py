"""Reports as Markdown and HTML: one configured jinja Environment over templates/.

Text from a ruleset or a finding is data: HTML templates are autoescaped, and the Markdown
template passes every value through the ``md`` filter, which escapes it so it cannot become markup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from .model import Report

TEMPLATES = Path(__file__).resolve().parent / "templates"

# Characters that are Markdown (CommonMark/GFM) syntax anywhere in a line; a backslash makes each
# one literal.  "$" is GitHub's math delimiter, "|" ends a table cell, "<" and "&" start HTML.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&$])")
# What opens a block at the start of a line: a list item ("- ", "+ ", "1. ", "1) ") or a setext
# underline; a backslash before it keeps the line a paragraph.
_MD_LEADING = re.compile(r"^([-+=]|\d{1,9}(?=[.)](\s|$)))")


def md_escape(value: object) -> str:
    """Plain text for Markdown: one line (white space collapsed, so a value cannot end a table
    row or start a block) and every syntax character escaped."""
    text = re.sub(r"\s+", " ", str(value)).strip()
    text = _MD_SPECIAL.sub(r"\\\1", text)
    m = _MD_LEADING.match(text)
    if m:
        if m.group(1)[0].isdigit():
            text = text[: m.end()] + "\\" + text[m.end():]  # "1\." is no list marker
        else:
            text = "\\" + text
    return text


def md_indent(depth: int) -> str:
    """Indentation inside a Markdown table cell, where spaces collapse: em spaces do not."""
    return "\u2003\u2003" * depth


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default_for_string=False, default=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["md_indent"] = md_indent
    return env


def render_markdown(report: Report) -> str:
    text = environment().get_template("report.md.j2").render(r=report)
    # blank lines collapse to one so template layout does not leak into the file
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def render_questions_markdown(report: Report) -> str:
    """The questions for the publisher alone, as Markdown (the evidence links point into the full report)."""
    text = environment().get_template("questions.md.j2").render(r=report)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def render_html(report: Report) -> str:
    return environment().get_template("report.html.j2").render(r=report)


def write_report(path: Path | str, report: Report) -> None:
    """Write the report as Markdown (.md) or HTML (.html), chosen by the file's suffix."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".md":
        text = render_markdown(report)
    elif suffix in (".html", ".htm"):
        text = render_html(report)
    else:
        raise ValueError(f"cannot tell the report format from '{p.name}': use a .md or .html file name")
    with p.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
