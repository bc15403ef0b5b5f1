"""The work a game takes, counted rather than timed: instructions and first-level data-cache misses
per random playout, from valgrind's cachegrind, which a busy machine does not disturb.

    (used by benchmarks/engines.py --count and benchmarks/penguin.py --count)

On a shared machine games per second vary from hour to hour, and not alike for every engine (see
docs/engine.md); the instructions an engine executes for the same games do not.  Each engine is
played in a child process twice under cachegrind, with the same seed: ``warmup`` games, then
``warmup + games``; the difference of the two counts, over ``games``, is what one game costs,
with Python's start, the imports and the first games' warm-up (caches the engines fill) taken out.
The data-cache misses are cachegrind's simulation of this machine's first-level cache, which says
how much memory a game touches, not what it costs in time.

The child (``python counting.py MODULE PARAMS PLAYERS GAMES``) imports the engine from its file
(a generated engine's source, a compiled engine, a hand-written one) and plays with the random
player of the benchmarks, nothing else: no rulecheck import to count.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEED = 7


def playout(state: Any, n: int, rng: random.Random) -> None:
    """One game between uniformly random players."""
    choice = rng.choice
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([choice(state.legal_actions(q)) for q in range(n)])
        else:
            state.apply_action(choice(state.legal_actions()))


@dataclass(frozen=True)
class Counts:
    """What one game costs: instructions, first-level cache misses of data (reads and writes) and
    of instructions, and mispredicted branches (cachegrind's simulation)."""

    instructions: float
    d1_misses: float
    i1_misses: float
    mispredicts: float


#: the summary lines cachegrind prints, in Counts' order
_LABELS = ("I   refs:", "D1  misses:", "I1  misses:", "Mispredicts:")


def missing() -> str | None:
    """Why counting cannot run here (None: it can)."""
    if shutil.which("valgrind") is None:
        return "--count needs valgrind (apt-get install valgrind)"
    return None


def _field(text: str, label: str) -> int:
    m = re.search(rf"{re.escape(label)}\s+([\d,]+)", text)
    if m is None:
        raise RuntimeError(f"cachegrind printed no '{label}' line:\n{text[-2000:]}")
    return int(m.group(1).replace(",", ""))


def _run(module: Path, params: dict[str, Any], players: int, games: int) -> list[int]:
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--cachegrind-out-file=/dev/null",
           sys.executable, str(Path(__file__).resolve()), str(module), json.dumps(params), str(players), str(games)]
    # the same hashes in both runs: the string keys of an engine's dicts then land alike
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the counted run failed ({' '.join(cmd)}):\n{done.stderr[-2000:]}")
    return [_field(done.stderr, label) for label in _LABELS]


def count(module: Path, params: dict[str, Any], players: int, games: int, warmup: int) -> Counts:
    """One game of ``module``'s engine (``load_game(params)`` with ``players``), counted: see the
    module's docstring."""
    before = _run(module, params, players, warmup)
    after = _run(module, params, players, warmup + games)
    return Counts(*((b - a) / games for a, b in zip(before, after)))


def table(players: list[int], engines: dict[str, tuple[Path, dict[str, Any]]], games: int, warmup: int) -> None:
    """Prints, per player count and engine, what a game costs (Counts), with the ratio of the
    hand-written engine's instructions to each engine's (above 1: fewer instructions, as a speed
    ratio reads). ``engines``: name -> (module file, parameters), one of them "hand-written"."""
    print(f"per game, counted by valgrind's cachegrind ({games} games after {warmup}, seed {SEED}; the caches and branch predictor simulated)")
    print(f"{'players':>7}  {'engine':<12}  {'instructions':>12}  {'hand/this':>9}  {'D1 misses':>9}  {'I1 misses':>9}  {'mispredicted':>12}")
    for n in players:
        got = {name: count(path, params, n, games, warmup) for name, (path, params) in engines.items()}
        hand = got["hand-written"].instructions
        for i, (name, c) in enumerate(got.items()):
            print(f"{n if i == 0 else '':>7}  {name:<12}  {c.instructions:>12,.0f}  {hand / c.instructions:>8.2f}x  {c.d1_misses:>9,.0f}"
                  f"  {c.i1_misses:>9,.0f}  {c.mispredicts:>12,.0f}")


def _load(path: Path) -> Any:
    name = path.name.split(".")[0]  # a compiled module's file: NAME.cpython-311-....so
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import does (a dataclass looks its module up there)
    spec.loader.exec_module(module)
    return module


def _child(argv: list[str]) -> None:
    path, params, players, games = Path(argv[0]), json.loads(argv[1]), int(argv[2]), int(argv[3])
    game = _load(path).load_game({"players": players, **params})
    rng = random.Random(SEED)
    for _ in range(games):
        playout(game.new_initial_state(), players, rng)


if __name__ == "__main__":
    _child(sys.argv[1:])
