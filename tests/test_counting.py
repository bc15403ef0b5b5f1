"""benchmarks/counting.py: what a game costs, counted under valgrind rather than timed, so the same
engine and games give the same figures on an idle or a busy machine."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from rulecheck.codegen.engine import generate
from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path

sys.path.insert(0, str(ROOT / "benchmarks"))

import counting
import engines


def kuhn_engine(folder: Path) -> Path:
    rules = load_path(ROOT / "tests" / "rulesets" / "kuhn_poker.rules").rules
    assert rules is not None
    return engines.write_engine(generate(ir.bind(rules, {})), "kuhn_engine", str(folder))


def test_the_child_plays_an_engine_from_its_file(tmp_path: Path) -> None:
    """The counted child imports a generated engine's file and plays the benchmarks' games: the
    same ones as the same engine imported here, with the same seed."""
    path = kuhn_engine(tmp_path)
    module = counting._load(path)
    game = module.load_game({"players": 2})
    rng = random.Random(counting.SEED)
    returns = []
    for _ in range(20):
        state = game.new_initial_state()
        counting.playout(state, 2, rng)
        returns.append(state.returns())
    assert len({tuple(r) for r in returns}) > 1  # random games, not one game twenty times
    counting._child([str(path), "{}", "2", "20"])  # the same games in the child's function


def test_without_valgrind_the_benchmarks_say_what_to_install(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert engines.main(["--count", "--players", "2"]) == 2
    assert "apt-get install valgrind" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (.ci/run installs it)")
def test_counts_do_not_depend_on_the_run(tmp_path: Path) -> None:
    """Counted twice, the same games cost the same (to a thousandth: memory addresses, which
    valgrind does not fix, could reorder a set); a game costs some thousands of instructions."""
    path = kuhn_engine(tmp_path)
    a = counting.count(path, {}, 2, games=40, warmup=10)
    b = counting.count(path, {}, 2, games=40, warmup=10)
    assert 1000 < a.instructions < 10_000_000 and a.mispredicts > 0, a
    for x, y in zip(vars(a).values(), vars(b).values()):
        assert abs(x - y) <= abs(x) / 1000 + 1, (a, b)
