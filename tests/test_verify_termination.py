"""Termination under every reading: a loop proven to end by a measure (a zone it drains, a counter
every pass adds to), and a lasso found under the default readings replayed under each other
reading. The measures are checked against random play: no game makes more passes than a proof
allows."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from rulecheck.dsl import ir
from rulecheck.dsl.loader import Loaded, load_path, load_text
from rulecheck.interpreter.state import Game, State
from rulecheck.verifier.conditions import ranked_counter
from rulecheck.verifier.output import render_text
from rulecheck.verifier.symvalues import statements
from rulecheck.verifier.verify import Options, Outcome, verify

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "verify" / "termination"
PASSING = HERE / "passing_rounds.rules"
COUNTED = ROOT / "tests" / "verify" / "good" / "counted_rounds.rules"


def rules_of(path: Path) -> ir.Ruleset:
    loaded = load_path(path)
    assert loaded.ok and loaded.rules is not None
    return loaded.rules


def loop_finding(o: Outcome) -> Any:
    (f,) = [f for f in o.findings if f.kind == "non-termination"]
    return f


@pytest.fixture(scope="module")
def passing() -> tuple[Loaded, Outcome]:
    # named by its path from the repository root, as the golden file shows it
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        loaded = load_path(PASSING.relative_to(ROOT))
        assert loaded.ok and loaded.rules is not None
        return loaded, verify(loaded.rules, Options(timeout=10.0, jobs=2))
    finally:
        os.chdir(cwd)


def test_lasso_replayed_under_each_other_reading(passing: tuple[Loaded, Outcome]) -> None:
    _, o = passing
    f = loop_finding(o)
    assert (f.status, f.verdict) == ("witness", "lasso")
    # the same moves repeat where only the winner changes; where passing is refused after the
    # first round they are not a game, and nothing decides it; a round limit ends it
    assert f.details["also_under"] == ["tie=first_seat"]
    assert f.details["open_under"] == ["passing=first_round"]
    assert f.details["ends_under"] == ["rounds=three"]
    assert "under the default readings" in f.message
    assert "not decided" in f.message and "proven to end" in f.message


def test_golden(passing: tuple[Loaded, Outcome], golden: Any) -> None:
    loaded, o = passing
    golden(PASSING.with_suffix(".expected"), render_text(o, loaded.source, verbose=True))


def passes(program: ir.Program, n: int, seed: int, max_steps: int = 2_000) -> dict[int, int]:
    """The passes each open loop makes in one random game (a game cut at max_steps counts what
    it made)."""
    heads: dict[int, list[Any]] = {}
    state = State(Game(program, n), heads=heads)
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return {sid: len(seen) for sid, seen in heads.items()}


@pytest.mark.parametrize("path,readings", [(COUNTED, {}), (PASSING, {"rounds": "three"})], ids=["counted_rounds", "rounds=three"])
def test_ranked_bound_holds_in_random_play(path: Path, readings: dict[str, str]) -> None:
    program = ir.bind(rules_of(path), readings)
    (loop,) = [s for s in statements(program) if isinstance(s, ir.RepeatUntil)]
    ranked = ranked_counter(loop, program, {})
    assert ranked is not None and ranked[0] == "round_no" and ranked[3] == 3
    most = max(passes(program, 2, seed).get(loop.sid, 0) for seed in range(300))
    # the bound is reached (it is not loose) and never passed
    assert most == ranked[3]


RESET = """
game "Reset Rounds" {
  players 2..2
  source "Each round a player may start the count again."
}

var round_no: int = 0 "the number of the round"

flow {
  repeat until round_no >= 3 source "Each round a player may start the count again." {
    set round_no = round_no + 1
    choose again from {true, false} by player(1) label "starts again"
    if again {
      set round_no = 0
    }
  }
  end winners {player(1)}
}
"""


def test_a_counter_that_can_fall_ranks_nothing() -> None:
    loaded = load_text(RESET, "reset.rules")
    assert loaded.ok and loaded.rules is not None
    f = loop_finding(verify(loaded.rules, Options(timeout=10.0, jobs=1)))
    # the count starts again from 0: the loop comes back to the state a pass began in
    assert (f.status, f.verdict) == ("witness", "lasso")


SHUTTLE = """
game "Shuttle" { players 2..2 }
var pos[player]: 0..3 = 0 public "where each runner is"
flow {
  while all(pos[p] < 3 for p in players) {
    for each p in players {
      choose ahead from {true, false} by p label "steps ahead"
      if ahead {
        set pos[p] = pos[p] + 1
      } else {
        set pos[p] = max(0, pos[p] - 1)
      }
    }
  }
  end winners {p for p in players if pos[p] == 3}
}
"""

#: Two runs of a loop that always ends: the second begins where the first began.
RERUN = """
game "Rerun" { players 2..2 }
var pos: 0..3 = 0 public "where the runner is"
flow {
  repeat 2 times {
    set pos = 0
    while pos < 3 {
      choose hop from {true, false} by player(1) label "hops high"
      set pos = pos + 1
    }
  }
  end winners {player(1)}
}
"""


def rules_of_text(text: str) -> ir.Ruleset:
    loaded = load_text(text, "loop.rules")
    assert loaded.ok and loaded.rules is not None, loaded.diagnostics.sorted()
    return loaded.rules


def _loop_verified(text: str) -> Any:
    # one pass of the loop: the solver cannot see a pass come back to where it began
    return loop_finding(verify(rules_of_text(text), Options(timeout=5.0, jobs=1, loop_bound=1, checks=frozenset({"non-termination"}))))


def test_random_play_finds_a_lasso_the_solver_leaves_open() -> None:
    """Runners who may step back: the state a pass began in comes back (both at 0, both step
    back). Beyond the solver's one pass, a random game shows it, cut where the pass begins again,
    and the game replays in the engine as one that goes on."""
    from rulecheck.codegen.engine import generate, load_module
    from rulecheck.verifier.checks.termination import _first_repeat
    from rulecheck.verifier.witness import UNFINISHED, replay_engine

    f = _loop_verified(SHUTTLE)
    assert (f.status, f.verdict) == ("witness", "lasso")
    (play,) = f.witness.plays
    program = ir.bind(rules_of_text(SHUTTLE), {})
    sid = next(s.sid for s in statements(program) if isinstance(s, ir.While))
    assert _first_repeat(program, 2, {}, play.actions, sid, {}) == len(play.actions)
    module = load_module(generate(program), "shuttle_lasso")
    assert replay_engine(module, 2, play.actions)[1] == UNFINISHED


def test_random_play_claims_no_lasso_of_a_loop_run_more_than_once() -> None:
    """A loop run twice that always ends: its second run begins in the state the first began in,
    with the outer loop's count between them, which the state does not hold. Not a lasso, and
    random play claims none; the solver's one pass leaves it undecided, and the induction over
    the passes proves that the loop ends (the runner's position grows each pass, up to 3)."""
    f = _loop_verified(RERUN)
    assert (f.status, f.verdict) == ("proven", "measured")
    assert f.details["grows"] == ["'pos'"]
