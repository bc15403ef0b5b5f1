"""Inputs the fuzzer (tests/test_fuzz.py) or the hunt for issue 26's findings turned up, each the
smallest form found, kept so that they stay fixed. Those whose cause lies in code being
reworked elsewhere are marked xfail(strict=True) with the reason: when the cause is fixed, the
mark must go.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rulecheck.cli import main


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def allowed(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2) and "internal error" not in err and "Traceback" not in out + err, err


@pytest.mark.parametrize("first", ["set x = 5 / (x - 1)", "set x = 2  repeat 40 times { set x = x * x }"], ids=["division", "integer-limit"])
def test_verify_a_game_the_rules_stop_before_any_decision(first: str, tmp_path: Path) -> None:
    """The random games (verifier/witness.py continue_game) built the first state outside their
    try: a rule error before the first decision escaped as RuntimeError, exit 3."""
    path = tmp_path / "stop.rules"
    path.write_text(f'game "Stop" {{\n  players 2..2\n}}\n\nvar x: int = 1\n\nflow {{\n  {first}\n'
                    '  choose k from 1..3 by player(1)\n  end winners players\n}\n', encoding="utf-8")
    code, out, err = run(["verify", str(path), "--jobs", "1", "--timeout", "2", "--players", "2"])
    allowed(code, out, err)


SHORT_DEAL = """game "Short" {
  players 2..2
}

card Card { rank: 1..3 }

zone deck: Card hidden
zone pile: Card public

table Card in deck {
  given rank source "Three cards."
  | rank |
  | 1..3 |
}

flow {
  draw 4 from deck to pile
  end winners players
}
"""


def test_verify_a_draw_of_more_cards_than_there_are(tmp_path: Path) -> None:
    """The symbolic executor records the exhaustion at the draw and draws none; the interpreter
    draws the three cards there are and stops at the fourth. The witness had no actions for those
    three, its replay failed, exit 3; now it holds them (verifier/witness.py finish_short_draw)."""
    path = tmp_path / "short.rules"
    path.write_text(SHORT_DEAL, encoding="utf-8")
    code, out, err = run(["verify", str(path), "--jobs", "1", "--timeout", "2", "--check", "exhaustion"])
    allowed(code, out, err)
    assert code == 1 and "[witness]" in out and "replayed in the generated engine" in out, out
    assert "gets Card 1, Card 2, Card 3" not in out  # the log of a draw that fails is the error
    assert "cannot draw from pile" not in out and "cannot draw from deck: it is empty (line 17)" in out, out


# ---- found and fixed --------------------------------------------------------------------------

HEAD = 'game "Deep" {\n  players 2..2\n}\n\nvar x: int = 0\n\nflow {\n  choose k from 1..2 by player(1)\n  end winners {p for p in players if d0(k) > 0}\n}\n'


def chain(links: int, terms: int) -> str:
    """d0 calls d1 calls d2 …: each call at the bottom of a sum of ``terms`` terms."""
    inner = " + ".join(["n"] * terms)
    return HEAD + "".join(f'define d{i}(n: int) -> int = d{i + 1}(n) + {inner}\n  source "s"\n' for i in range(links)) \
        + f'define d{links}(n: int) -> int = 1\n  source "s"\n'


def commands(path: Path) -> list[list[str]]:
    p = str(path)
    return [["check", p], ["play", p], ["gen", p, "-o", str(path.with_suffix(".py"))], ["simulate", p, "--games", "2", "--jobs", "1"],
            ["verify", p, "--jobs", "1", "--timeout", "1"]]


@pytest.mark.parametrize("links, terms", [(1000, 1), (2, 200), (16, 30)], ids=["thousand-definitions", "two-deep-bodies", "sixteen-links"])
def test_a_chain_of_calls_too_deep_is_refused(links: int, terms: int, tmp_path: Path) -> None:
    """A chain of a thousand definitions exhausted the checker's stack (RecursionError, exit 3); two
    definitions 200 deep each exhausted the verifier's, sixteen of 30 the interpreter's."""
    path = tmp_path / "deep.rules"
    path.write_text(chain(links, terms), encoding="utf-8")
    code, _out, err = run(["check", str(path)])
    assert code == 2 and "error[E0004]: nested too deeply through calls: 'd0'" in err, err


@pytest.mark.parametrize("links, terms", [(8, 29), (1, 250), (120, 1)], ids=["eight-links", "one-body-250-deep", "120-links"])
def test_a_chain_of_calls_within_the_limit_works_everywhere(links: int, terms: int, tmp_path: Path) -> None:
    """Within the limit every command works; a body 250 deep made an engine Python cannot compile
    (more than 200 nested parentheses), which simulate and verify imported: exit 3."""
    path = tmp_path / "deep.rules"
    path.write_text(chain(links, terms), encoding="utf-8")
    for args in commands(path):
        code, _out, err = run(args)
        assert code in (0, 1) and "internal error" not in err, (args[0], err)


def test_loops_nested_deeper_than_an_engine_allows(tmp_path: Path) -> None:
    """verify replays witnesses in an engine: the code generator's limit is exit 1 with the reason,
    as for gen and simulate (it was exit 3)."""
    n = 25
    body = "".join("  " * (i + 1) + f"for each v{i} in {{1}} {{\n" for i in range(n)) + "  set x = x + 1\n" + "}\n" * n
    path = tmp_path / "loops.rules"
    path.write_text('game "Loops" {\n  players 2..2\n}\n\nvar x: int = 0\n\nflow {\n' + body + "  end winners players\n}\n", encoding="utf-8")
    for args in commands(path):
        code, _out, err = run(args)
        assert code in (0, 1) and "internal error" not in err, (args[0], err)
        if args[0] in ("gen", "simulate", "verify"):
            assert code == 1 and "a limit of the code generator" in err, (args[0], err)


PLAYER_ZERO = """game "Seat zero" {
  players 2..2
}

card Card { rank: 1..2 }

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank source "Two cards."
  | rank |
  | 1..2 |
}

define rank_of(p: player) -> int = sum(c.rank for c in hand[p])
  source "The rank."

flow {
  for each p in players {
    draw from deck to hand[p]
  }
  end winners {p for p in players if rank_of(player(0)) > 0}
}
"""


def test_verify_a_player_that_does_not_exist(tmp_path: Path) -> None:
    """Found by the long profile (a mutation of tests/verify/bad/missing_tiebreak.rules): player(0)
    indexed a zone with seat -1 in the symbolic executor, KeyError, exit 3."""
    path = tmp_path / "zero.rules"
    path.write_text(PLAYER_ZERO, encoding="utf-8")
    code, out, err = run(["verify", str(path), "--jobs", "1", "--timeout", "2", "--check", "incompleteness", "--check", "exhaustion"])
    allowed(code, out, err)
    assert "there is no such player" in out and "[witness]" in out


INDEX = """game "Index" {
  players 2..2
}

card Card { rank: 1..2 }

zone deck: Card hidden
zone pile[1..3]: Card public

table Card in deck {
  given rank source "Two cards."
  | rank |
  | 1..2 |
}

var a[1..3]: int = 0 "three counters"
var k: int = 5 "an index"

flow {
  choose c from {1, 2} by player(1)
  STATEMENT
  end winners players
}
"""


@pytest.mark.parametrize("statement", ["set k = a[k]", "set a[k] = 1", "draw from deck to pile[k]", "set k = size(pile[k + c])",
                                       "move the(x for x in deck if x.rank == 1) to pile[k]"])
def test_an_index_outside_its_range(statement: str, tmp_path: Path) -> None:
    """A variable or zone indexed by 1..3 read with index 5: the engine stopped with a range error,
    the interpreter and the verifier with KeyError (exit 3). Now all three alike."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from fuzzing import play_engine

    from rulecheck.dsl import ir
    from rulecheck.dsl.loader import load_path

    path = tmp_path / "index.rules"
    path.write_text(INDEX.replace("STATEMENT", statement), encoding="utf-8")
    code, out, err = run(["play", str(path)])
    allowed(code, out, err)
    assert code == 1 and "has no entry" in out, out
    code, out, err = run(["gen", str(path), "-o", str(tmp_path / "engine.py")])
    loaded = load_path(path)
    assert loaded.rules is not None
    for seed in range(3):
        play_engine(tmp_path / "engine.py", ir.bind(loaded.rules, {}), 2, seed)
    code, out, err = run(["verify", str(path), "--jobs", "1", "--timeout", "2", "--check", "exhaustion"])
    allowed(code, out, err)
    assert "has no entry" in out and "[witness]" in out, out


@pytest.mark.parametrize("text", ["table x {|0 \r|\r}", "table x {|0 \n|\n}", "table x {\n  | 1 | 2\n  |\n}\n"],
                         ids=["cr", "lf", "cells-then-bar"])
def test_fmt_of_a_table_row_whose_closing_bar_is_on_the_next_line(text: str, tmp_path: Path) -> None:
    """fmt took the line holding only a row's closing bar for a whole row of no cells and wrote
    "|  |" (two bars for one): its check that the tokens are unchanged failed, exit 3. A row is
    aligned only where one line holds all of it."""
    from rulecheck.editor.format import format_text

    path = tmp_path / "row.rules"
    path.write_bytes(text.encode("utf-8"))
    code, out, err = run(["fmt", "--check", str(path)])
    allowed(code, out, err)
    assert format_text("table t {\n  | 1 | 2\n  |\n}\n").splitlines()[1:3] == ["  | 1 | 2", "    |"]  # the bar goes on with its row
