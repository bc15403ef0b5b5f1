"""Random playouts per second: the interpreter, the generated engine and a hand-written engine.

    .venv/bin/python benchmarks/engines.py [--seconds S] [--rounds R] [--players 2 4] [--native]

All three play Too Many Cinderellas (rulesets/cinderella.rules, default readings) with the same
random player: uniform over legal actions, chance outcomes drawn uniformly, every player picking
at simultaneous nodes.  The engines take turns in short rounds and the best round of each counts,
so a busy machine slows all three alike and disturbs the ratios as little as possible.  --native
adds the generated engine compiled with mypyc (rulecheck gen --native).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cinderella_handwritten  # noqa: E402

from rulecheck.codegen.engine import generate, load_module  # noqa: E402
from rulecheck.codegen.native import load_native  # noqa: E402
from rulecheck.dsl import ir  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.interpreter.state import Game as InterpreterGame  # noqa: E402


def playout(state: Any, n: int, rng: random.Random) -> None:
    """One game between uniformly random players."""
    choice = rng.choice
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([choice(state.legal_actions(q)) for q in range(n)])
        else:
            state.apply_action(choice(state.legal_actions()))


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one round per engine (default 1)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per engine; the best counts (default 5)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--native", action="store_true", help="also the engine compiled with mypyc (gen --native)")
    args = ap.parse_args(argv)

    rules = load_path(ROOT / "rulesets" / "cinderella.rules").rules
    assert rules is not None
    program = ir.bind(rules, {})
    source = generate(program)
    engine = load_module(source, "cinderella_engine")
    compiled = load_native(source, "cinderella_engine") if args.native else None
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
