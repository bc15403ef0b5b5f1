"""Random playouts per second: the interpreter, the generated engine and a hand-written engine.

    .venv/bin/python benchmarks/engines.py [--seconds S] [--rounds R] [--players 2 4] [--native] [--count]

All three play Too Many Cinderellas (rulesets/cinderella.rules, default readings) with the same
random player: uniform over legal actions, chance outcomes drawn uniformly, every player picking
at simultaneous nodes.  The engines take turns in short rounds and the best round of each counts,
so a busy machine slows all three alike and disturbs the ratios as little as possible.  --native
adds the generated engine compiled with mypyc (rulecheck gen --native).  --count counts instead of
timing (benchmarks/counting.py: instructions and data-cache misses per game under valgrind, which
a busy machine does not disturb; the interpreter is left out, valgrind being some fifty times
slower).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cinderella_handwritten  # noqa: E402
import counting  # noqa: E402
from counting import playout  # noqa: E402

from rulecheck.codegen.engine import generate, load_module  # noqa: E402
from rulecheck.codegen.native import load_native  # noqa: E402
from rulecheck.dsl import ir  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.interpreter.state import Game as InterpreterGame  # noqa: E402


def rate(new_state: Callable[[], Any], n: int, seconds: float, seed: int) -> tuple[float, int]:
    """Games per second over about ``seconds`` (at least one game)."""
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while True:
        playout(new_state(), n, rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, games


def add_count_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--count", action="store_true", help="count instructions per game with valgrind instead of timing")
    ap.add_argument("--games", type=int, default=500, help="with --count: the games counted (default 500)")
    ap.add_argument("--warmup", type=int, default=100, help="with --count: the games played first, not counted (default 100)")


def write_engine(source: str, name: str, folder: str) -> Path:
    """The generated engine as a module file (what --count's child imports)."""
    path = Path(folder) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one round per engine (default 1)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per engine; the best counts (default 5)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--native", action="store_true", help="also the engine compiled with mypyc (gen --native)")
    add_count_options(ap)
    args = ap.parse_args(argv)
    if args.count and counting.missing():
        print(counting.missing(), file=sys.stderr)
        return 2

    rules = load_path(ROOT / "rulesets" / "cinderella.rules").rules
    assert rules is not None
    program = ir.bind(rules, {})
    source = generate(program)
    engine = load_module(source, "cinderella_engine")
    compiled = load_native(source, "cinderella_engine") if args.native else None
    if args.count:
        print(f"Too Many Cinderellas, default readings; Python {sys.version.split()[0]}")
        with tempfile.TemporaryDirectory() as folder:
            engines = {"generated": (write_engine(source, "cinderella_engine", folder), {}),
                       "hand-written": (Path(cinderella_handwritten.__file__), {})}
            if compiled is not None:
                engines["native"] = (Path(compiled.__file__), {})
            counting.table(args.players, engines, args.games, args.warmup)
        return 0
    print(f"Too Many Cinderellas, default readings; best of {args.rounds} rounds of {args.seconds:g} s; Python {sys.version.split()[0]}")
    print(f"{'players':>7}  {'interpreter':>12}  {'generated':>12}  {'hand-written':>12}  {'gen/interp':>10}  {'gen/hand':>8}"
          + (f"  {'native':>12}  {'native/hand':>11}" if compiled else ""))
    for n in args.players:
        makers: dict[str, Callable[[], Any]] = {
            "interpreter": InterpreterGame(program, n).new_initial_state,
            "generated": engine.load_game({"players": n}).new_initial_state,
            "hand-written": cinderella_handwritten.load_game({"players": n}).new_initial_state,
        }
        if compiled is not None:
            makers["native"] = compiled.load_game({"players": n}).new_initial_state
        best = {name: 0.0 for name in makers}
        for r in range(args.rounds):
            for name, make in makers.items():
                games_per_s, _ = rate(make, n, args.seconds, seed=1000 * r + n)
                best[name] = max(best[name], games_per_s)
        i, g, h = best["interpreter"], best["generated"], best["hand-written"]
        c = best.get("native")
        print(f"{n:>7}  {i:>10.0f}/s  {g:>10.0f}/s  {h:>10.0f}/s  {g / i:>9.1f}x  {g / h:>7.2f}x"
              + (f"  {c:>10.0f}/s  {c / h:>10.2f}x" if c else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
