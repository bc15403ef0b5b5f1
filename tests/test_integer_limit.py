"""The integer limit: every integer of a game lies within ±MAX_INT (dsl/types.py).

A number written beyond it is E0106 wherever a number can be written, a constant computed beyond
it is E0305, and in play a ``+``, ``-``, ``*`` or ``sum`` whose value is beyond it stops the game
with the same *range* error in the interpreter, in a generated engine and in the verifier.  Before,
integers grew without bound: ``repeat 40 times { set x = x * x }`` ran for ever, and a number of
more than 4,300 digits escaped as a traceback (Python's int/str conversion limit).
"""

from __future__ import annotations

import io
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from rulecheck.cli import main
from rulecheck.codegen.engine import generate, load_module
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_text
from rulecheck.dsl.types import MAX_INT
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game

HUGE = "9" * 5000  # beyond Python's int/str conversion limit of 4,300 digits


def game(body: str, decls: str = "", players: str = "2..2") -> str:
    return f'game "Numbers" {{\n  players {players}\n}}\n\n{decls}\nflow {{\n{body}\n  end winners players\n}}\n'


CARDS = 'card Card {{ rank: {range} }}\n\nzone deck: Card hidden\n\ntable Card in deck {{\n  given rank source "r"\n  | rank |\n  | {cell} |\n}}\n'


def codes(text: str) -> list[str]:
    loaded = load_text(text, "numbers.rules")
    return [d.code for d in loaded.diagnostics.sorted() if d.is_error]


# ---- written numbers: E0106 ---------------------------------------------------------------------

PLACES = {
    "expression": lambda n: game(f"  set x = {n}", "var x: int = 0\n"),
    "negative expression": lambda n: game(f"  set x = -{n}", "var x: int = 0\n"),
    "initial value": lambda n: game("", f"var x: int = {n}\n"),
    "table cell": lambda n: game("", CARDS.format(range="int", cell=n)),
    "negative table cell": lambda n: game("", CARDS.format(range="int", cell=f"-{n}")),
    "table range cell": lambda n: game("", CARDS.format(range="int", cell=f"1..{n}")),
    "range type": lambda n: game("", f"var x: 0..{n} = 0\n"),
    "range expression": lambda n: game("  set b = x in 1..{n}".replace("{n}", n), "var x: int = 0\nvar b: bool = false\n"),
    "pattern": lambda n: game(f"  set x = match x {{ {n} => 1  else => 2 }}", "var x: int = 0\n"),
    "range pattern": lambda n: game(f"  set x = match x {{ 1..{n} => 1  else => 2 }}", "var x: int = 0\n"),
    "player count": lambda n: game("", "", players=f"2..{n}"),
    "say interpolation": lambda n: game(f'  say "{{{n}}}"'),
}


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("number", [str(MAX_INT + 1), HUGE, "0" * 20 + str(MAX_INT + 1)], ids=["max+1", "5000-digits", "zeros"])
def test_a_number_beyond_the_limit_is_refused_where_it_is_written(place: str, number: str) -> None:
    assert "E0106" in codes(PLACES[place](number))


@pytest.mark.parametrize("place", [p for p in PLACES if p not in ("range type", "range expression", "range pattern", "player count", "table range cell")])
def test_the_limit_itself_is_a_number(place: str) -> None:
    assert "E0106" not in codes(PLACES[place](str(MAX_INT)))
    assert "E0106" not in codes(PLACES[place]("0" * 30 + "7"))


def test_the_diagnostic_does_not_print_five_thousand_digits() -> None:
    loaded = load_text(PLACES["expression"](HUGE), "numbers.rules")
    (d,) = [d for d in loaded.diagnostics.sorted() if d.code == "E0106"]
    assert "(5,000 digits)" in d.message and len(d.message) < 120


# ---- constants: E0305 ---------------------------------------------------------------------------


@pytest.mark.parametrize("expr", ["65536 * 65536", "2147483647 + 1", "-2147483647 - 1", "1000 * 1000 * 1000 * 1000"])
def test_a_constant_computed_beyond_the_limit(expr: str) -> None:
    assert codes(game(f"  set x = {expr}", "var x: int = 0\n")) == ["E0305"]


@pytest.mark.parametrize("expr", ["65536 * 32767", "2147483646 + 1", "-2147483646 - 1", "2147483647 / 1", "-2147483647 % 7"])
def test_a_constant_within_the_limit(expr: str) -> None:
    assert codes(game(f"  set x = {expr}", "var x: int = 0\n")) == []


# ---- in play: the same range error in the interpreter and in an engine -------------------------

SQUARES = game("  repeat 40 times { set x = x * x }", "var x: int = 2\n")
DOUBLING = game('  repeat 15000 times { set x = x * 2 }\n  say "{x}"', "var x: int = 1\n")
CHOSEN = game("  choose k from 1..3 by player(1)\n  set x = k\n  repeat 8 times { set x = x * x }", "var x: int = 0\n")
SUMS = game("  set x = sum(2000000000 + c.rank for c in deck)", "var x: int = 0\n" + CARDS.format(range="1..3", cell="1..3"))
PARTIAL = game("  set x = (2000000000 + 2000000000) - 2000000000", "var x: int = 0\nvar y: int = 0\n".replace("var y: int = 0\n", ""))
RANGE = game("  for each k in 1..n {\n    set x = k\n  }", 'var x: int = 0\nparam n: int = 5 "how many"\n')
LIMIT = game('  set x = x - 1\n  set x = x + 1\n  say "{x} {-x}"\n  set x = x + 1', f"var x: int = {MAX_INT}\n")

RUNTIME = {
    "squares": (SQUARES, "the result 4,294,967,296 is beyond the integer limit ±2,147,483,647"),
    "doubling": (DOUBLING, "the result 2,147,483,648 is beyond the integer limit ±2,147,483,647"),
    "chosen": (CHOSEN, "beyond the integer limit ±2,147,483,647"),
    "sum": (SUMS, "the result 6,000,000,006 is beyond the integer limit ±2,147,483,647"),
    "partial": (PARTIAL, "E0305"),
    "range": (RANGE, "the range 1..1,000,000 has 1,000,000 values; the limit is 10,000"),
    "limit": (LIMIT, "the result 2,147,483,648 is beyond the integer limit ±2,147,483,647"),
}


def program(text: str) -> ir.Program:
    loaded = load_text(text, "numbers.rules")
    assert loaded.rules is not None and loaded.ok, [d.message for d in loaded.diagnostics.items]
    return ir.bind(loaded.rules, {})


#: parameters given to a game (a range's bounds computed in play come from one)
PARAMS = {"n": 1_000_000}


def play_interpreter(p: ir.Program, seed: int) -> tuple[str, str, int, int] | str:
    rng = random.Random(seed)
    try:
        s = Game(p, 2, {k: v for k, v in PARAMS.items() if k in p.rules.params}).new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
    except RuleError as err:
        return err.kind, err.message, err.span.line, err.span.col
    return "end"


def play_engine(mod: Any, seed: int) -> tuple[str, str, int, int] | str:
    rng = random.Random(seed)
    try:
        s = mod.load_game({"players": 2, **{k: v for k, v in PARAMS.items() if k in mod._PARAM_NAMES}}).new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
    except mod.RuleError as err:
        return err.kind, err.message, err.line, err.column
    return "end"


@pytest.mark.parametrize("name", [n for n in RUNTIME if n != "partial"])
def test_interpreter_and_engine_stop_alike(name: str) -> None:
    text, message = RUNTIME[name]
    p = program(text)
    mod = load_module(generate(p), f"engine_numbers_{name}")
    results = []
    for seed in range(6):
        a, b = play_interpreter(p, seed), play_engine(mod, seed)
        assert a == b
        results.append(a)
    stopped = [r for r in results if r != "end"]
    assert stopped and all(r[0] == "range" and message in r[1] for r in stopped), results


def test_a_partial_result_beyond_the_limit_is_an_error_too() -> None:
    """Each operator's value is checked, not only what is stored: (a + b) - b fails at a + b."""
    text = game("  set y = 2000000000\n  set x = (y + y) - y", "var x: int = 0\nvar y: int = 0\n")
    p = program(text)
    mod = load_module(generate(p), "engine_numbers_partial")
    a = play_interpreter(p, 0)
    assert a == play_engine(mod, 0)
    line = text.split("\n").index("  set x = (y + y) - y") + 1
    assert a[0] == "range" and a[2:] == (line, 12), a


def test_play_reports_the_range_error() -> None:
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "squares.rules"
        path.write_text(SQUARES, encoding="utf-8")
        code = main(["play", str(path)], out, err)
    assert code == 1, err.getvalue()
    assert "the result 4,294,967,296 is beyond the integer limit" in out.getvalue()


def test_the_limit_is_written_into_a_generated_engine() -> None:
    """Constants at the limit reach the engine as literals, and the engine checks exactly there."""
    p = program(LIMIT)
    source = generate(p)
    assert f"_MAX_INT: Final = {MAX_INT}" in source
    mod = load_module(source, "engine_numbers_limit")
    s = mod.load_game({"players": 2})
    with pytest.raises(mod.RuleError) as got:
        s.new_initial_state()
    assert got.value.line == LIMIT.split("\n").index("  set x = x + 1", 9) + 1  # the last `set x = x + 1`


def test_arithmetic_proven_within_the_limit_is_not_checked() -> None:
    """Sums of table values and counts cannot leave the limit: no check in the engine."""
    text = game("  set x = sum(c.rank for c in deck) * 3 + size(deck)", "var x: int = 0\n" + CARDS.format(range="1..3", cell="1..3"))
    assert "_int(" not in generate(program(text)).split("# ---- the components", 1)[1]
    assert "_int(" in generate(program(SQUARES)).split("# ---- the components", 1)[1]


# ---- in the verifier ----------------------------------------------------------------------------


def verify_text(text: str, *args: str) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "numbers.rules"
        path.write_text(text, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        code = main(["verify", str(path), "--jobs", "1", "--timeout", "5", "--check", "exhaustion", *args], out, err)
    assert "internal error" not in err.getvalue(), err.getvalue()
    return code, out.getvalue()


def test_the_verifier_finds_a_value_beyond_the_limit() -> None:
    """The value depends on a choice: the symbolic executor's range obligation, with a witness the
    engine replays."""
    code, out = verify_text(CHOSEN)
    assert code == 1
    assert "beyond the integer limit" in out and "[witness]" in out and "replayed in the generated engine" in out


def test_the_verifier_proves_a_value_within_the_limit() -> None:
    text = game("  choose k from 1..3 by player(1)\n  set x = k\n  repeat 4 times { set x = x * x }", "var x: int = 0\n")
    code, out = verify_text(text)
    assert code == 0 and "beyond the integer limit" not in out, out


def test_the_verifier_does_not_unroll_a_million_passes() -> None:
    text = game("  repeat 1000000 times {\n    choose k from 1..2 by player(1)\n    set x = k\n  }", "var x: int = 0\n")
    code, out = verify_text(text, "--check", "non-termination")
    assert code == 0, out


def test_terms_clamp_and_range() -> None:
    from rulecheck.verifier import terms as tm

    x = tm.int_var("x", 0, 10)
    big = tm.mul(tm.add(x, MAX_INT), 2)
    assert tm.int_range(big) == (2 * MAX_INT, 2 * (MAX_INT + 10))
    c = tm.clamp(big, MAX_INT)
    assert tm.int_range(c) == (0, 0)
    c2 = tm.clamp(tm.add(x, MAX_INT - 5), MAX_INT)
    assert tm.int_range(c2) == (0, MAX_INT)
    for v in range(11):
        assert tm.evaluate(c2, {"x": v}) == (MAX_INT - 5 + v if v <= 5 else 0)
