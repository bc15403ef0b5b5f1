"""Text from a ruleset or a finding is data: it must reach the reader literally, never as markup.

A ruleset and findings full of hostile text (script tags, quotes, jinja braces, Markdown syntax,
backticks, table pipes) are rendered; the HTML is parsed and the Markdown is rendered to HTML by a
CommonMark parser with GFM tables, and in both the hostile text must come out as the same text,
whole, inside a single element: no tag, link, emphasis, code span or table cell made from it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import ClassVar

import pytest
from markdown_it import MarkdownIt

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.dsl.source import Span
from rulecheck.reports.model import ReadingFrequency, Report, SimulationResults, build_report
from rulecheck.reports.render import md_escape, render_html, render_markdown
from rulecheck.verifier.findings import Finding, Play, Quote, Witness

EVIL = (
    "<script>alert('x')</script> \"quoted\" {{ 7*7 }} {% if x %} *stars* _under_ `tick` a|b|c "
    "[link](http://evil.example/) ![img](http://evil.example/i.png) <b>bold</b> &amp; $math$ ~~gone~~ \\back"
)
# values that start like Markdown blocks
LEADING = ["- a list item", "1. a numbered item", "# a heading", "> a quote", "+ plus", "=== setext"]


def lit(text: str) -> str:
    """A string literal of the rules language holding exactly ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}") + '"'


RULES = f"""
game {lit("Game " + EVIL)} {{
  edition {lit("Edition " + EVIL)}
  language "en"
  original "ja"
  players 2..2
  order clockwise
  source {lit("Game source " + EVIL)} @ja {lit("Translated " + EVIL)}
}}

enum Colour {lit("Colour label " + EVIL)} {{ red {lit("Red " + EVIL)}, blue "blue" }}

card Tile "Tile {{n}}" {{
  n: 1..3 source {lit("Number source " + EVIL)}
  colour: Colour
}}

table Tile in pile {{
  given n source {lit("Table source " + EVIL)}
  assumed colour because {lit("Rationale " + EVIL)}
  | n | colour |
  | 1 | red    |
  | 2 | blue   |
  | 3 | red    |
}}

zone pile: Tile hidden {lit("Zone desc " + EVIL)} source {lit("Zone source " + EVIL)}
zone hand[player]: Tile owner "the tiles a player holds"

define red_count(p: player) -> int {lit("Desc " + EVIL)} = count(t for t in hand[p] if t.colour == red)
  source {lit("Definition source " + EVIL)}
define best -> player "the best player" varies by evil_question

flow source {lit("Flow source " + EVIL)} {{
  for each p in players from player(1) {{
    draw 1 from pile to hand[p]
  }}
  say {lit("Say " + EVIL)}
  end winners {{best}}
}}

ambiguity evil_question {{
  kind ambiguity
  source {lit("Ambiguity source " + EVIL)} @ja {lit("Ambiguity translation " + EVIL)}
  question {lit("Question " + EVIL)}
  reading first default {lit("Reading one " + EVIL)} clarify {lit("Clarify one " + EVIL)}
  {{
    define best -> player = player(1)
  }}
  reading second {lit("Reading two " + EVIL)} clarify {lit("Clarify two " + EVIL)}
  {{
    define best -> player = player(2)
  }}
}}

invariant small {lit("Invariant " + EVIL)} always: size(pile) <= 3 source {lit("Invariant source " + EVIL)}

term {lit("Term " + EVIL)} @ja {lit("Term translation " + EVIL)} means {lit("Meaning " + EVIL)} source {lit("Term source " + EVIL)} @ja {lit("Term source translation " + EVIL)}
"""

RULEBOOK = "\n".join([
    "Game source " + EVIL,
    "An uncited sentence " + EVIL,
    *LEADING,
])


def hostile_rules() -> ir.Ruleset:
    loaded = load_text(RULES, "evil.rules")
    assert loaded.rules is not None and not loaded.diagnostics.has_errors, loaded.diagnostics.sorted()
    return loaded.rules


def hostile_report() -> Report:
    rules = hostile_rules()
    amb = rules.ambiguities["evil_question"]
    plays = [
        Play("Label one " + EVIL, {"evil_question": "first"}, [0, [1, 2]], ["Step shared " + EVIL, "Step one " + EVIL, *LEADING],
             "Outcome one " + EVIL, [0], True),
        Play("Label two " + EVIL, {"evil_question": "second"}, [0, [2, 1]], ["Step shared " + EVIL, "Step two " + EVIL],
             "Outcome two " + EVIL, [1], False),
    ]
    witness = Witness(2, ["Setup who " + EVIL + ": holds " + EVIL, "Setup line " + EVIL, *LEADING], plays, "Divergence " + EVIL)
    findings = [
        Finding("ambiguity", "warning", "witness", "evil_question", "Title " + EVIL, "Message " + EVIL, amb.span,
                quotes=[Quote("Ambiguity source " + EVIL), Quote("Loose quote " + EVIL, "ja")],
                witness=witness, details={"readings": ["Value " + EVIL, "Item " + EVIL], "found_by": "Key " + EVIL}),
        Finding("incompleteness", "error", "unknown", "Subject " + EVIL, "Title two " + EVIL, "Message two " + EVIL,
                Span(1, 1, 1, 2), bound="Bound " + EVIL),
    ]
    sim = SimulationResults(3, 10, (2,), (ReadingFrequency("evil_question", "second", 10, 1, 0.1, 0.01, 0.4, 2),))
    return build_report(rules, findings, sim, RULEBOOK, "Rulebook " + EVIL, rules_text=RULES)


class Texts(HTMLParser):
    """The text of every element, and every tag and attribute, of an HTML document."""

    BLOCKS: ClassVar[set[str]] = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "title", "blockquote", "small", "span", "em", "strong", "footer"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, list[str]]] = []
        self.texts: list[str] = []
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs += [(tag, k, v) for k, v in attrs]
        if tag in self.BLOCKS:
            self.stack.append((tag, []))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1][0] == tag:
            _, parts = self.stack.pop()
            text = "".join(parts)
            self.texts.append(re.sub(r"\s+", " ", text).strip())
            if self.stack:
                self.stack[-1][1].append(text)

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1][1].append(data)


def parse(doc: str) -> Texts:
    t = Texts()
    t.feed(doc)
    t.close()
    return t


# labels that must each come out whole in some element of the report
LABELS = [
    "Game", "Edition", "Game source", "Translated", "Red", "Number source", "Table source", "Rationale", "Zone desc",
    "Zone source", "Desc", "Colour label", "Definition source", "Flow source", "Say", "Ambiguity source", "Ambiguity translation",
    "Question", "Reading one", "Reading two", "Clarify one", "Clarify two", "Invariant", "Invariant source", "Term",
    "Term translation", "Meaning", "Term source", "Term source translation", "Title", "Message", "Loose quote", "Label one", "Label two", "Step shared",
    "Step one", "Step two", "Outcome one", "Outcome two", "Setup who", "Setup line", "Divergence", "Key", "Value",
    "Item", "Title two", "Message two", "Subject", "Bound", "Rulebook", "An uncited sentence",
]


def _check_whole(texts: Texts, fmt: str) -> None:
    for label in LABELS:
        want = f"{label} {EVIL}"
        assert any(want in t for t in texts.texts), f"{fmt}: '{label} …' does not come out whole in any element"
    for lead in LEADING:
        assert any(t == lead or t.endswith(lead) for t in texts.texts), f"{fmt}: '{lead}' became markup"


def _check_no_injection(texts: Texts, fmt: str) -> None:
    assert "script" not in texts.tags, f"{fmt}: a script tag came through"
    assert "img" not in texts.tags and "b" not in texts.tags and "code" not in texts.tags
    assert not texts.tags & {"del", "s", "math", "iframe", "object", "embed", "link"}
    for tag, name, value in texts.attrs:
        assert not name.startswith("on"), f"{fmt}: event handler {name} on <{tag}>"
        if name in ("href", "src"):
            assert value is not None and value.startswith("#"), f"{fmt}: <{tag} {name}={value!r}> leaves the page"
    assert not any("49" == t for t in texts.texts), "a template expression in the data was evaluated"


def test_html_keeps_hostile_text_as_text() -> None:
    doc = render_html(hostile_report())
    assert "<script" not in doc.lower()
    assert "&lt;script&gt;alert(" in doc
    texts = parse(doc)
    _check_no_injection(texts, "HTML")
    _check_whole(texts, "HTML")


def _md_to_html(text: str) -> str:
    # CommonMark lets raw HTML through, so an unescaped tag in the data would show up below
    rendered: str = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(text)
    return rendered


def test_markdown_keeps_hostile_text_as_text() -> None:
    md = render_markdown(hostile_report())
    texts = parse(_md_to_html(md))
    _check_no_injection(texts, "Markdown")
    _check_whole(texts, "Markdown")


def _cells(row: str) -> int:
    """The number of cells of a GFM table row: pipes not escaped by a backslash, less one."""
    pipes, i = 0, 0
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        pipes += row[i] == "|"
        i += 1
    return pipes - 1


def test_markdown_table_rows_keep_their_cells() -> None:
    """A pipe in the data must not add a cell (GFM would silently drop it): every row of every
    table has as many cells as the table's header."""
    md = render_markdown(hostile_report())
    tables: list[list[str]] = []
    previous = ""
    for line in md.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert len(tables) > 10
    for rows in tables:
        assert {_cells(r) for r in rows} == {_cells(rows[0])}, rows


@pytest.mark.parametrize("text, expected", [
    ("a|b", "a\\|b"),
    ("<x>", "\\<x\\>"),
    ("`c`", "\\`c\\`"),
    ("1. x", "1\\. x"),
    ("- x", "\\- x"),
    ("line\nbreak", "line break"),
    ("69.4%", "69.4%"),
])
def test_md_escape(text: str, expected: str) -> None:
    assert md_escape(text) == expected


def test_the_highlighted_formal_rules_are_the_rules_text_escaped() -> None:
    """The formal rules (Pygments' HTML, put in without autoescaping) hold the rules text and
    nothing else: the text of each block, tags removed and entities decoded, is the declaration."""
    import html

    doc = render_html(hostile_report())
    blocks = re.findall(r'<pre class="highlight">(.*?)</pre>', doc, re.S)
    assert blocks, "no formal rule in the report"
    assert all(re.fullmatch(r'(?:[^<]|<span class="[a-z0-9]+">|</span>)*', b, re.S) for b in blocks), "a tag other than a span"
    texts = [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks]
    assert all(t in RULES for t in texts)
    assert any(lit("Game " + EVIL) in t for t in texts)
