"""Hostile text in every string slot of a ruleset, one slot at a time, in every output.

A payload of Python code (quotes, triple quotes, ``__import__``), template syntax (jinja's ``{{ }}``
``{% %}``), HTML and Markdown (a script tag, a link, an image, emphasis, a table pipe) and terminal
controls (ESC sequences, a bidirectional override) is put in one slot — a title, a quote, a
translation, a label, a rationale, a description, a glossary term, a text value, a choice label, a
say text, the file's name — and the ruleset goes through every output: the generated engine
(imported and played: the code never runs), the HTML report (autoescaped), the Markdown report (no
raw HTML, no link, no markup made from it), and the terminal output of check, play, verify and gen
(inert). tests/test_reports_escaping.py and tests/test_codegen_safety.py check all slots at once
with richer findings; here every slot is its own case.
"""

from __future__ import annotations

import builtins
import io
import random
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from test_reports_escaping import EVIL, _check_no_injection, parse

from rulecheck.cli import main
from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.reports.make import report_text

CODE = "\"\"\" ''' \\ __import__('builtins').__dict__.__setitem__('PWNED', 1) {{ 7*7 }} {% raw %}"
TERMINAL = "\x1b[2J\x1b]0;owned\x07\u202e"
PAYLOAD = f"{EVIL} {CODE} {TERMINAL} end"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}") + '"'


TEMPLATE = """game {title} {{
  edition {edition}
  language "en"
  players 2..2
  source {game_source} @ja {translation}
}}

enum Colour {enum_label} {{ red {value_label}, blue "blue" }}

card Tile {display} {{
  n: 1..3 source {attr_source}
  colour: Colour
  w: 1..9
}}

zone pile: Tile hidden {zone_desc} source {zone_source}
zone hand[player]: Tile owner "held"

table Tile in pile {{
  given n source {table_source}
  assumed colour because {rationale}
  unspecified w default 5 because {unspecified}
  | n | colour | w |
  | 1 | red    | ? |
  | 2 | blue   | ? |
  | 3 | red    | ? |
}}

var word: text = {text_value} {var_desc}
param bonus: int = 1 {param_desc}

define reds(p: player) -> int {def_desc} = count(t for t in hand[p] if t.colour == red)
  source {def_source}
define best -> player "the best" varies by question

procedure deal() {proc_desc} source {proc_source} {{
  for each p in players from player(1) {{
    draw 1 from pile to hand[p]
  }}
}}

flow source {flow_source} {{
  deal()
  choose t from hand[player(1)] by player(1) label {choice_label}
  set word = {set_text}
  say {say_text}
  end winners {{best}}
}}

ambiguity question {{
  kind ambiguity
  source {amb_source}
  question {amb_question}
  reading first default {reading} clarify {clarify}
  {{
    define best -> player = player(1)
  }}
  reading second "Player 2 wins."
  {{
    define best -> player = player(2)
  }}
}}

invariant small {inv_desc} always: size(pile) <= 3 source {inv_source}

term {term} @ja {term_translation} means {meaning} source {term_source}
"""

SLOTS = sorted(set(re.findall(r"\{(\w+)\}", TEMPLATE)) - {"best"})
#: slots the clarification reports show whole (not: the descriptions of definitions, parameters
#: and invariants, an enum's label, a display text; they are still checked for injection)
IN_REPORTS = set(SLOTS) - {"def_desc", "param_desc", "inv_desc", "enum_label", "display"}


def ruleset(slot: str) -> str:
    values = {s: lit(f"plain {s}") for s in SLOTS}
    values["display"] = '"Tile {n}"'
    values[slot] = lit(f"{slot} {PAYLOAD}") if slot != "display" else lit(f"Tile {PAYLOAD} ").replace('"', '"{n} ', 1)
    return TEMPLATE.format(best="{best}", **values)


@pytest.fixture
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    slot = request.param
    name = "file\x1b[2J\u202e.rules" if slot == "file_name" else "slot.rules"
    path = tmp_path / name
    path.write_text(ruleset(slot if slot != "file_name" else "title"), encoding="utf-8")
    return slot, path


ALL = [*SLOTS, "file_name"]


def rules_of(path: Path) -> ir.Ruleset:
    loaded = load_path(path)
    assert loaded.rules is not None and loaded.ok, [d.message for d in loaded.diagnostics.sorted()]
    return loaded.rules


@pytest.mark.parametrize("hostile", ALL, indirect=True)
def test_the_engine_never_runs_the_text(hostile: tuple[str, Path]) -> None:
    slot, path = hostile
    rules = rules_of(path)
    for reading in ("first", "second"):
        mod = load_module(generate(ir.bind(rules, {"question": reading})), f"engine_slot_{slot}")
        assert mod.TITLE == rules.game.title
        rng = random.Random(0)
        s = mod.load_game({"players": 2}).new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            for p in range(2):
                s.observation_string(p)
                s.information_state_string(p)
            s.serialize()
        assert not hasattr(builtins, "PWNED")


@pytest.mark.parametrize("fmt", ["html", "md"])
@pytest.mark.parametrize("hostile", ALL, indirect=True)
def test_reports_show_the_text_as_text(hostile: tuple[str, Path], fmt: str) -> None:
    slot, path = hostile
    doc = report_text(rules_of(path), [], fmt)
    html = doc if fmt == "html" else MarkdownIt("commonmark", {"html": True}).enable("table").render(doc)
    texts = parse(html)
    _check_no_injection(texts, f"{fmt}, slot {slot}")
    assert "<script" not in html.lower()
    if slot in IN_REPORTS:
        whole = [t for t in texts.texts if f"{slot} {EVIL}" in t]
        assert whole, f"{fmt}: the text of slot {slot} does not come out whole in any element"


@pytest.mark.parametrize("command", ["check", "play", "verify", "gen"])
@pytest.mark.parametrize("hostile", ALL, indirect=True)
def test_the_terminal_shows_the_text_inert(hostile: tuple[str, Path], command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _, path = hostile
    monkeypatch.chdir(path.parent)
    args = {"check": [], "play": ["--seed", "2"], "verify": ["--jobs", "1", "--timeout", "1", "--check", "ambiguity", "--check", "translation"],
            "gen": []}  # (gen without -o: the engine's source on the terminal)
    out, err = io.StringIO(), io.StringIO()
    code = main([command, path.name, *args[command]], out, err)
    assert code in (0, 1) and "internal error" not in err.getvalue(), err.getvalue()
    assert not UNSAFE.search(out.getvalue() + err.getvalue()), repr(UNSAFE.search(out.getvalue() + err.getvalue()))
    assert not hasattr(builtins, "PWNED")


@pytest.mark.parametrize("hostile", ["title", "say_text", "rationale"], indirect=True)
def test_the_markdown_report_holds_terminal_controls_inert(hostile: tuple[str, Path]) -> None:
    """reports/render.py md_escape kept them raw: ``cat report.md`` on a terminal ran them."""
    _, path = hostile
    assert not UNSAFE.search(report_text(rules_of(path), [], "md").replace("\n", "").replace("\t", ""))
