"""Safety: text from a ruleset is data.  It reaches the engine only as escaped literals, and
names only as parts of prefixed identifiers, whatever it contains.

EVIL is a valid ruleset whose title, file name, enum labels, component texts, choice labels, string
constants, reading descriptions and names (Python keywords, dunders, the engine's own short names)
are full of quote marks, triple quotes, backslashes, newlines, tabs, jinja's {{ }} and {% %}, and
Python code that would leave a mark if it ever ran.
"""

from __future__ import annotations

import ast
import builtins
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_codegen_differential import TEXTS, engine, play_both, ruleset

from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir

# three single quotes cannot appear inside this module's literal, so they are written <SQ3>
EVIL = r"""game "Evil \"\"\" <SQ3> {{ 7*7 }} {% raw %} \\ \n __import__('builtins').__dict__.__setitem__('PWNED', 1) #" {
  players 2..3
  order counterclockwise
  source "x"
}

enum class "label \"quotes\" 'single' \\ backslash" { True "{{ config }}", None "{% for x in y %}\n<SQ3> \"\"\"", lambda "__import__('builtins').__dict__.__setitem__('PWNED', 2)" }

card def "{note}" {
  note: text
  import: class
}

table def in S {
  given note, import source "x"
  | note                                                               | import |
  | "\"\"\"; __import__('builtins').__dict__.__setitem__('PWNED', 3); \"\"\"" | True   |
  | "{{ self.__init__.__globals__ }}\n{% include '/etc/passwd' %}"      | None   |
  | "\\' + __import__('os').getcwd() + '\\"                               | lambda |
  | "end\\"                                                            | True   |
  | "<SQ3>"                                                              | None   |
  | "\t{}\\n"                                                          | lambda |
}

zone S: def hidden "\"\"\" zone"
zone Z[player]: def owner
zone L: def public
var C: text = "\"\"\" {{ }} {% %} \\" "the last note"
var n[player]: int = 0 owner
var return: set of class = {}
var yield[class]: bool = false hidden

define _run(x: def) -> bool = x.import != None or x.note == "{{ 1 }}\"\\"
define __init__(p: player) -> text "x" {
  case self: n[p] > 0 => "\n<SQ3>\"\"\"{% if %}"
  otherwise => "__import__('builtins').__dict__.__setitem__('PWNED', 4)"
}
define lambda_ -> int "x" varies by try

procedure pass() source "x" {
  for each p in players from player(1) {
    draw from S to Z[p] as yield_
    choose global from Z[p] by p label "pick \"it\" {{ now }} {% end %}\n\\ __import__('builtins').__dict__.__setitem__('PWNED', 5)" secret
    move global to L
    set C = global.note
    set n[p] = n[p] + lambda_
    set return = return + {global.import}
    set yield[global.import] = _run(global)
  }
}

flow source "x" {
  pass()
  choose each q in players: raise from {True, None} label "<SQ3> \"\"\" {% %} {{ }}"
  set C = __init__(player(1))
  end winners {p for p in players if raise[p] == True}
}

ambiguity try {
  kind gap
  source "\"\"\" {{ }} {% %}"
  question "q<SQ3> \\"
  reading def default "d\"\"\"" clarify "{{ x }}"
  {
    define lambda_ -> int = match seat(player(1)) { 1 => 1  else => 2 }
  }
  reading import "{% if %}\n__import__('builtins').__dict__.__setitem__('PWNED', 6)"
  {
    define lambda_ -> int = 2
  }
}
""".replace("<SQ3>", "'" * 3)
#: the file name is hostile too: the engine's header names it
EVIL_FILE = "ev\"il'''\n{{ x }}.rules"
TEXTS["evil"] = (EVIL, EVIL_FILE)
STDLIB_IMPORTS = {"__future__", "hashlib", "json", "collections", "collections.abc", "typing"}


def evil_source(readings: dict[str, str] | None = None) -> str:
    return generate(ir.bind(ruleset("evil"), readings or {}))


@contextmanager
def watched_imports() -> Iterator[list[str]]:
    """Every import made while the block runs (the hostile texts import builtins and os)."""
    seen: list[str] = []
    real = builtins.__import__

    def spy(name: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(name)
        return real(name, *args, **kwargs)

    builtins.__import__ = spy
    try:
        yield seen
    finally:
        builtins.__import__ = real


def test_the_hostile_ruleset_is_valid() -> None:
    rules = ruleset("evil")
    assert '"""' in rules.game.title and "{{ 7*7 }}" in rules.game.title and "\n" in rules.game.title
    assert any("'''" in c.display for c in rules.components)


@pytest.mark.parametrize("reading", ["def", "import"])
def test_hostile_text_is_never_executed(reading: str) -> None:
    source = evil_source({"try": reading})
    with watched_imports() as seen:
        mod = load_module(source, "engine_evil")
        for seed in range(20):
            n = 2 + seed % 2
            s = mod.load_game({"players": n}).new_initial_state()
            rng = random.Random(seed)
            while not s.is_terminal():
                if s.is_simultaneous_node():
                    s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(n)])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                for p in range(n):
                    s.observation_string(p)
                s.information_state_string(0)
                s.serialize()
    assert set(seen) <= STDLIB_IMPORTS, set(seen) - STDLIB_IMPORTS
    assert not hasattr(builtins, "PWNED")


def test_hostile_text_arrives_intact() -> None:
    """Component names, enum labels, choice labels and the title read exactly as in the ruleset."""
    rules = ruleset("evil")
    _, mod = engine("evil", {})
    assert list(mod._DISP) == [c.display for c in rules.components]
    assert mod.TITLE == rules.game.title
    assert mod.RULESET == Path(EVIL_FILE).name
    tables = [v for v in vars(mod).values() if isinstance(v, tuple)]
    strings = {x for t in tables for x in t if isinstance(x, str)}
    assert {lab for e in rules.enums.values() for lab in e.labels} <= strings
    labels = {"pick \"it\" {{ now }} {% end %}\n\\ __import__('builtins').__dict__.__setitem__('PWNED', 5)", "''' \"\"\" {% %} {{ }}"}
    assert labels <= set(mod._PLABEL)


@pytest.mark.parametrize("reading", ["def", "import"])
def test_hostile_engine_matches_interpreter(reading: str) -> None:
    """Byte for byte the same strings as the interpreter, which holds the texts as Python str."""
    for seed in range(12):
        play_both("evil", {"try": reading}, 2 + seed % 2, seed=seed, info_states=True)


def test_hostile_header_and_module_structure() -> None:
    source = evil_source()
    assert source.split("\n")[0] == f"# Generated by `rulecheck gen` from {Path(EVIL_FILE).name!r}. DO NOT EDIT: regenerate it instead."
    tree = ast.parse(source)
    # the module only defines things: no top-level statement evaluates ruleset text
    for node in tree.body[1:]:
        assert isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef)), ast.dump(node)[:200]
    # names from the rules never become identifiers on their own
    rules = ruleset("evil")
    names = set(rules.zones) | set(rules.vars) | set(rules.defs) | set(rules.procs) | set(rules.kinds) | set(rules.enums)
    names |= {v for e in rules.enums.values() for v in e.values} | {"yield_", "global", "raise"}
    engine_names = {"S", "Z", "L", "C", "n", "_run", "__init__"}  # the engine's own names, which the rules happen to use too
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            ident = node.id
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            ident = node.name
        elif isinstance(node, ast.arg):
            ident = node.arg
        else:
            continue
        assert ident not in names or ident in engine_names, ident


def test_hostile_engine_passes_ruff_and_mypy(tmp_path: Path) -> None:
    path = tmp_path / "evil_engine.py"
    path.write_text(evil_source({"try": "import"}), encoding="utf-8")
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), str(path)],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
