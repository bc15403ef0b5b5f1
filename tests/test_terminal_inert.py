"""Terminal control sequences and bidirectional overrides in ruleset text reach the terminal inert.

A title with ESC sequences cleared the screen, coloured the output and retitled the terminal when
``check``, ``play`` or ``verify`` printed it. Now every output made for a terminal shows such a
character as ``\\u{1b}`` (dsl/safetext.py): in the summary, the play log, verify's and simulate's
text, diagnostics (the source line, with the carets moved to match) and error messages; JSON
output escapes them as JSON does.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from rulecheck.cli import main
from rulecheck.dsl.safetext import inert, json_inert

ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"  # retitle, clear the screen, red
BIDI = "\u202eevil\u202c\u2066x\u2069"
C1 = "\x9b31m\x85"
HOSTILE = ESC + BIDI + C1 + "\r\x08\x00"
#: what a terminal would act on
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}") + '"'


RULES = f"""game {lit("Title " + HOSTILE)} {{
  players 2..2
  source {lit("Quote " + HOSTILE)}
}}

enum Colour {lit("Colour " + HOSTILE)} {{ red {lit("Red " + HOSTILE)}, blue "blue" }}

card Tile {lit("Tile {colour} " + HOSTILE).replace(chr(92) + "{colour" + chr(92) + "}", "{colour}")} {{
  colour: Colour
}}

zone deck: Tile hidden
zone hand[player]: Tile owner

table Tile in deck {{
  given colour source {lit("Table " + HOSTILE)}
  | colour |
  | red    |
  | blue   |
}}

var word: text = {lit("Word " + HOSTILE)} {lit("Desc " + HOSTILE)}

flow source {lit("Flow " + HOSTILE)} {{
  for each p in players {{
    draw 1 from deck to hand[p]
    choose c from hand[p] by p label {lit("Pick " + HOSTILE)}
  }}
  say {lit("Say " + HOSTILE)}
  say "{{word}}"
  end winners {{p for p in players if size(hand[p]) > 0}}
}}
"""


def run(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    # the file's own name is hostile too
    path = tmp_path / "evil\x1b[2J\u202e.rules"
    path.write_text(RULES, encoding="utf-8")
    return path


def test_the_hostile_ruleset_is_valid(hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulecheck.dsl.loader import load_path

    loaded = load_path(hostile)
    assert loaded.ok, [d.message for d in loaded.diagnostics.items]
    assert loaded.rules is not None and ESC in loaded.rules.game.title and "\r" not in loaded.rules.game.title


@pytest.mark.parametrize("args", [
    ["check", "{f}"],
    ["play", "{f}", "--seed", "3"],
    ["verify", "{f}", "--jobs", "1", "--timeout", "2"],
    ["verify", "{f}", "--jobs", "1", "--timeout", "2", "--format", "json"],
    ["verify", "{f}", "--jobs", "1", "--timeout", "2", "--format", "sarif"],
    ["simulate", "{f}", "--games", "3", "--jobs", "1"],
    ["simulate", "{f}", "--games", "3", "--jobs", "1", "--format", "json"],
    ["gen", "{f}", "-o", "engine.py"],
    ["play", "{f}", "--players", "5"],
    ["play", "{f}", "--reading", "x\x1b[2J=y"],
    ["play", "{f}", "--param", "\x1b[2J=y"],
    ["check", "no such \x1b[2J\u202e file.rules"],
], ids=["check", "play", "verify", "verify-json", "verify-sarif", "simulate", "simulate-json", "gen", "players", "reading", "param", "missing"])
def test_every_output_is_inert(args: list[str], hostile: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run([a.replace("{f}", hostile.name) for a in args], hostile.parent, monkeypatch)
    assert "internal error" not in err, err
    assert not UNSAFE.search(out), repr(UNSAFE.search(out))
    assert not UNSAFE.search(err), repr(UNSAFE.search(err))
    if "json" in args or "sarif" in args:
        doc = json.loads(out)  # the same data: the escapes are JSON's
        assert any(ESC in text for text in strings(doc))
    elif args[0] in ("check", "play", "simulate") and code in (0, 1) and "--players" not in args:
        assert "\\u{1b}" in out  # shown, not dropped


def strings(doc: object) -> list[str]:
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for k, v in doc.items() for s in strings(k) + strings(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in strings(v)]
    return []


def test_diagnostics_show_the_line_inert_with_the_carets_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.rules").write_text('game "G" {\n  players 2..2\n}\nflow {\n  end winners \x1b[2J\u202e playerz\n}\n', encoding="utf-8")
    code, _out, err = run(["check", "bad.rules"], tmp_path, monkeypatch)
    assert code == 2 and not UNSAFE.search(err), err
    lines = err.split("\n")
    shown = next(line for line in lines if line.startswith("5 |"))
    carets = lines[lines.index(shown) + 1]
    assert shown[carets.index("^") :].startswith("\\u{1b}")  # the first bad character, escaped, under the carets


def test_a_name_error_in_an_escaped_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.rules").write_text('game "\x1b[2J" {\n  players 2..2\n}\nflow {\n  say "\u202e" end winners playerz\n}\n', encoding="utf-8")
    _code, _out, err = run(["check", "bad.rules"], tmp_path, monkeypatch)
    lines = err.split("\n")
    shown = next(line for line in lines if line.startswith("5 |"))
    carets = lines[lines.index(shown) + 1]
    start = carets.index("^")
    assert shown[start : start + carets.count("^")] == "playerz"


def test_inert() -> None:
    assert inert("plain text, tabs\tand\nlines, ünïcödé, 日本語") == "plain text, tabs\tand\nlines, ünïcödé, 日本語"
    assert inert("\x1b[2J") == "\\u{1b}[2J"
    assert inert("\u202e") == "\\u{202e}"
    assert inert("a\rb") == "a\\u{d}b"
    assert inert(inert(HOSTILE)) == inert(HOSTILE)
    assert not UNSAFE.search(inert(HOSTILE))
    doc = json.dumps({"t": HOSTILE}, ensure_ascii=False)
    assert json.loads(json_inert(doc)) == {"t": HOSTILE} and not UNSAFE.search(json_inert(doc))
