"""The Pygments lexer of .rules files (rulecheck/editor/lexer.py), registered as a plugin."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name
from pygments.token import Comment, Error, Keyword, Name, String, Text

from rulecheck.editor.lexer import BUILTINS, CONSTANTS, DECLARATIONS, KEYWORDS, TYPES, RulesLexer

RULESETS = sorted([*ROOT.glob("rulesets/*.rules"), *ROOT.glob("tests/verify/*/*.rules")])


def test_every_reserved_word_of_the_grammar_is_highlighted() -> None:
    grammar = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
    reserved = set(re.findall(r'"([a-z_]+)"', grammar))
    known = {*DECLARATIONS, *KEYWORDS, *TYPES, *CONSTANTS}
    assert reserved - known == set(), "words of the grammar the lexer does not know"
    assert known - reserved == set(), "words the lexer knows that the grammar does not reserve"
    from rulecheck.dsl import ir

    assert set(BUILTINS) >= (set(ir.BUILTINS_0 + ir.BUILTINS_1 + ir.BUILTINS_2 + ir.AGGREGATES + ir.BOARD_BUILTINS) - reserved)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: str(p.relative_to(ROOT)))
def test_rulesets_lex_without_errors_and_round_trip(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(RulesLexer().get_tokens(text))
    assert "".join(v for _, v in tokens) == text if text.endswith("\n") else text + "\n"
    assert [v for t, v in tokens if t is Error or t is Text] == []


def test_tokens_of_each_construct() -> None:
    text = ('# a comment\ncard Person "Person {rank}" {\n  rank: 1..18 source "say \\"hi\\"" @ja "はい"\n}\n'
            'define f(p: player) -> int = sum(c.rank for c in hand[p])\n'
            'flow { say "{if x then \\"yes\\" else \\"no\\"}" }\n')
    tokens = [(t, v) for t, v in RulesLexer().get_tokens(text) if v.strip()]
    assert (Comment.Single, "# a comment") in tokens
    assert (Keyword.Declaration, "card") in tokens and (Name.Function, "Person") in tokens
    assert (String.Interpol, "{") in tokens and (Name, "rank") in tokens
    assert (String.Escape, '\\"') in tokens and (Name.Attribute, "@ja") in tokens
    assert (Keyword.Declaration, "define") in tokens and (Name.Function, "f") in tokens
    assert (Keyword.Type, "player") in tokens and (Keyword.Type, "int") in tokens
    assert (Name.Builtin, "sum") in tokens and (Keyword, "for") in tokens
    # inside an interpolation, \" quotes a string
    assert (Keyword, "if") in tokens and (String.Double, "yes") in tokens and (String.Double, "no") in tokens


def test_a_reserved_word_called_is_a_name() -> None:
    """`turn` is a keyword of the game declaration and, in many rulesets, a procedure's name."""
    text = 'game "G" {\n  turn turn\n}\nprocedure turn(p: player) { say "x" }\nflow { turn(player(1)) }\n'
    tokens = [(t, v) for t, v in RulesLexer().get_tokens(text) if v.strip()]
    assert (Keyword, "turn") in tokens  # in the game declaration
    assert (Name.Function, "turn") in tokens  # declared
    assert tokens.count((Name, "turn")) == 2  # named by the game declaration, and called


def test_registered_as_a_pygments_plugin() -> None:
    assert get_lexer_by_name("rules").__class__ is RulesLexer
    assert find_lexer_class_for_filename("game.rules") is RulesLexer
    exe = Path(sys.executable).parent / "pygmentize"
    if not exe.exists():
        pytest.skip("pygmentize is not installed next to this Python")
    done = subprocess.run([str(exe), "-l", "rules", "-f", "html", str(ROOT / "tests" / "verify" / "good" / "ambiguity_differs.rules")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '<span class="kd">game</span>' in done.stdout and '<span class="c1"># Fixed counterpart' in done.stdout


VSCODE = ROOT / "editors" / "vscode"


def _patterns(node: object) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    if isinstance(node, dict):
        if "match" in node or "begin" in node:
            out.append(node)
        for value in node.values():
            out += _patterns(value)
    elif isinstance(node, list):
        for value in node:
            out += _patterns(value)
    return out


def test_the_textmate_grammar_knows_the_same_words_and_compiles() -> None:
    """The VS Code extension's grammar (TextMate, Oniguruma regexes): valid JSON, the extension's
    scope, regexes that compile (those it uses are in the part of Oniguruma that Python's re
    shares), and the lexer's words, so that the two highlighters cannot drift apart."""
    import json

    grammar = json.loads((VSCODE / "syntaxes" / "rules.tmLanguage.json").read_text(encoding="utf-8"))
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (contributed,) = package["contributes"]["grammars"]
    assert contributed["scopeName"] == grammar["scopeName"] and (VSCODE / contributed["path"]).exists()
    assert package["contributes"]["languages"][0]["extensions"] == [".rules"]
    found: set[str] = set()
    for p in _patterns(grammar):
        for key in ("match", "begin", "end"):
            if key in p:
                regex = str(p[key])
                re.compile(regex)
                for group in re.findall(r"\\b\(([a-z_|]+)\)", regex):
                    found.update(group.split("|"))
    assert found == {*DECLARATIONS, *KEYWORDS, *TYPES, *CONSTANTS, *BUILTINS}
    for ref in re.findall(r'"include": "#([a-z]+)"', json.dumps(grammar)):
        assert ref in grammar["repository"]
