"""A construct the verifier cannot encode is a diagnostic at its span (E0701), exit code 2.

A growing ``set of int``, a draw count that depends on the game, a text that depends on a choice:
the checker accepts them, ``play`` and ``gen`` work, and ``verify`` exited 3 because the
symbolic executor's ``Unsupported`` escaped. Now ``Unsupported`` carries the span of the
expression or statement that needs the construct and a hint, and ``verify`` and ``report`` show
it as a diagnostic (tests/bad/cli/verify_*.args hold the command lines with their output); a text
is a value the verifier follows (one of the ruleset's texts, each with its condition), and so is a
draw's number of cards where it can be one of at most MAX_DRAW_CASES numbers (one draw per number),
and a set of int whose members can be at most MAX_INT_MEMBERS numbers (their bounds).
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pytest
from conftest import ROOT

from rulecheck.cli import main
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.source import Span
from rulecheck.verifier.symbolic import SymExec
from rulecheck.verifier.symvalues import MAX_DRAW_CASES, MAX_INT_MEMBERS, Unsupported

CASES = {
    "verify_set_of_int": (13, 23, "a number as a member of a set of int, where the number can have 401 values"),
    "verify_draw_count": (19, 8, "a draw of a number of cards that depends on the game"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_unsupported_has_the_span_and_a_hint(name: str) -> None:
    loaded = load_path(ROOT / "tests" / "bad" / "cli" / f"{name}.rules")
    assert loaded.ok and loaded.rules is not None
    with pytest.raises(Unsupported) as got:
        SymExec(ir.bind(loaded.rules, {}), 2).run()
    line, col, what = CASES[name]
    assert got.value.span is not None and (got.value.span.line, got.value.span.col) == (line, col)
    assert what in got.value.what and got.value.hint
    # it crosses from a verify worker to the parent whole
    again = pickle.loads(pickle.dumps(got.value))
    assert (again.what, again.span, again.hint) == (got.value.what, got.value.span, got.value.hint)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("command", ["verify", "report"])
def test_verify_and_report_say_where(name: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    path = f"tests/bad/cli/{name}.rules"
    args = [command, path, "--timeout", "1", *(["--jobs", "2"] if command == "verify" else ["-o", str(tmp_path / "r.md")])]
    code = main(args, out, err)
    line, col, what = CASES[name]
    assert code == 2, err.getvalue()
    # after the line that says verify started (rulecheck/terminal.py)
    assert err.getvalue().startswith(f"rulecheck: {command} " if command == "verify" else "rulecheck: verify "), err.getvalue()
    assert f"\n{path}:{line}:{col}: error[E0701]: verify cannot reason about {what}" in err.getvalue(), err.getvalue()
    assert "= help: " in err.getvalue() and "internal error" not in err.getvalue()
    assert not (tmp_path / "r.md").exists()


def test_the_span_is_the_innermost_one() -> None:
    e = Unsupported("x")
    assert e.span is None and str(e) == "x"
    e2 = Unsupported("y", Span(3, 4, 3, 9), "do z")
    assert str(e2) == "y" and e2.hint == "do z"


def test_a_reading_only_a_worker_follows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The construct is in a reading that is not the default: its trace is made in a worker of
    ``--jobs 2``; the diagnostic comes back to the parent whole."""
    text = (ROOT / "tests" / "bad" / "cli" / "verify_draw_count.rules").read_text(encoding="utf-8")
    text = text.replace("  draw k from deck to hand[player(1)]\n", "  deal(k)\n")
    text += '''
procedure deal(k: int) varies by how_many

ambiguity how_many {
  source "Draw cards."
  reading one default "One card." {
    procedure deal(k: int) {
      draw 1 from deck to hand[player(1)]
    }
  }
  reading chosen "As many as chosen." {
    procedure deal(k: int) {
      draw k from deck to hand[player(1)]
    }
  }
}
'''
    path = tmp_path / "readings.rules"
    path.write_text(text, encoding="utf-8")
    loaded = load_path(path)
    assert loaded.ok, [d.message for d in loaded.diagnostics.items]
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(path), "--timeout", "1", "--jobs", "2"], out, err)
    assert "internal error" not in err.getvalue(), err.getvalue()
    assert code == 2 and "error[E0701]" in err.getvalue(), (code, out.getvalue(), err.getvalue())


TEXTS = """game "Words" {
  players 2..2
}

var word: text = "none" "the word said last"

define said -> text varies by saying

flow {
  choose yes from {true, false} by player(1)
  set word = if yes then said else "no"
  end winners {p for p in players if (word == "yes") == (p == player(1))}
}

ambiguity saying {
  source "Say yes."
  reading yes default "The word is yes." {
    define said -> text = "yes"
  }
  reading other "The word is another." {
    define said -> text = "maybe"
  }
}
"""


def test_a_text_that_depends_on_a_choice_is_followed(tmp_path: Path) -> None:
    """Before, E0701 (exit 3 before that); now the ambiguity's readings are told apart by a game,
    and the witness replays in the generated engine."""
    path = tmp_path / "words.rules"
    path.write_text(TEXTS, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(path), "--timeout", "5", "--jobs", "1"], out, err)
    assert code in (0, 1) and "internal error" not in err.getvalue(), err.getvalue()
    text = out.getvalue()
    assert "[witness]" in text and "replayed in the generated engine" in text, text
    assert "Player 1 yes: yes" in text or "yes: yes" in text, text


DRAWS = """game "Draws" {
  players 2..2
}

card Card { rank: 1..CARDS }

zone deck: Card hidden
zone hand[player]: Card owner

table Card in deck {
  given rank source "The cards."
  | rank |
  | 1..CARDS |
}

define extra(k: int) -> int varies by how_many

flow {
  shuffle deck
  choose k from 1..3 by player(1) label "how many cards"
  draw k from deck to hand[player(1)]
  choose m from 0..2 by player(2) label "how many more"
  draw extra(m) from deck to hand[player(2)]
  end winners {p for p in players if size(hand[p]) >= 2}
}

ambiguity how_many {
  source "Draw as many more."
  reading same default "As many as chosen." {
    define extra(k: int) -> int = k
  }
  reading plus "One more than chosen." {
    define extra(k: int) -> int = k + 1
  }
}
"""


def verify_text(text: str, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "draws.rules"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(path), "--timeout", "5", "--jobs", "1", *extra], out, err)
    assert "internal error" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def test_a_draw_count_a_choice_decides_is_followed(tmp_path: Path) -> None:
    """Before, E0701 (exit 3 before that): now one draw per number the count can be. The readings
    differ in how many cards player 2 draws, and the witness replays in the generated engine; with
    five cards the deck runs out under the other reading only (3 + 2 under the default, 3 + 3)."""
    code, out, _ = verify_text(DRAWS.replace("CARDS", "5"), tmp_path, "--check", "ambiguity", "--check", "exhaustion")
    assert code == 1, out
    assert "warning[ambiguity]: how_many: the readings give different results" in out, out
    assert "reading how_many=plus: the rules stop: exhaustion: cannot draw from deck: it is empty (line 23) (replayed in the generated engine)" in out, out
    assert "exhaustion: 1 witness, 2 proven" in out, out


def test_a_draw_count_beyond_the_deck_has_a_witness_that_replays(tmp_path: Path) -> None:
    """Four cards: 3 and then 2 more is one too many. The engines draw the card there is and then
    stop; the witness holds that draw too, and replays in the interpreter and the engine."""
    code, out, _ = verify_text(DRAWS.replace("CARDS", "4"), tmp_path, "--check", "exhaustion")
    assert code == 1, out
    assert "error[exhaustion]: 'deck' runs out: it happens [witness]" in out, out
    assert "the cards to be drawn from 'deck' are more than it has" in out and "replayed in the generated engine" in out, out


def test_a_draw_count_of_too_many_numbers_is_still_a_diagnostic() -> None:
    loaded = load_path(ROOT / "tests" / "bad" / "cli" / "verify_draw_count.rules")
    assert loaded.rules is not None
    with pytest.raises(Unsupported) as got:
        SymExec(ir.bind(loaded.rules, {}), 2).run()
    assert f"can be any of 40 numbers (verify follows at most {MAX_DRAW_CASES})" in got.value.what


SUMS = """game "Sums" {
  players 2..2
}

var total: int = 0 "the sum so far"
var seen: set of int = {} "the sums seen"

define target -> int varies by aim

invariant few: size(seen) <= 3
invariant no_nine: 9 not in seen

flow {
  repeat 3 times {
    choose k from 1..3 by player(1)
    set total = total + k
    set seen = seen + {total}
  }
  end winners {p for p in players if target in seen}
}

ambiguity aim {
  source "Reach six."
  reading six default "Six." {
    define target -> int = 6
  }
  reading seven "Seven." {
    define target -> int = 7
  }
}
"""


def test_a_set_of_int_that_grows_is_followed(tmp_path: Path) -> None:
    """Before, E0701 (exit 3 before that): the members of ``seen`` are the sums, 1 to 9, each with
    its condition. The readings differ (a game that sees 6 and not 7), 9 can be seen (3 + 3 + 3),
    and at most three sums are: each answer with a witness replayed in the engine, or a proof."""
    code, out, _ = verify_text(SUMS, tmp_path)
    assert code == 1, out
    assert "warning[ambiguity]: aim: the readings give different results" in out, out
    assert "error[invariant]: invariant 'no_nine' can be broken [witness]" in out, out
    assert "1 more proven: few" in out and out.count("replayed in the generated engine") == 3, out
    assert f"at most {MAX_INT_MEMBERS}" not in out
