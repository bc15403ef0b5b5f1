"""Random playouts per second of one round of Loving Penguin: the generated engine and a
hand-written engine of the same round.

    .venv/bin/python benchmarks/penguin.py [--seconds S] [--rounds R] [--players 4] [--native] [--count]

--native adds the generated engine compiled with mypyc (rulecheck gen --native; the compile takes
about half a minute, once per source in the system's temporary folder).  --count counts instructions
and data-cache misses per game with valgrind instead of timing (benchmarks/counting.py).

The hand-written engine (benchmarks/penguin_handwritten.py) plays one round under the ruleset's
default readings and default parameter values, then ends with the round's leaders as winners.  The
generated engine plays the same ruleset with the parameter ``length`` set to ``short``: the Short
Game ("Short Game: 1 round."), whose end condition holds once the first round is over, so one round
is the whole game there too and the winners are the same leaders.  That is the only parameter
changed (the default, the Normal Game, plays rounds until someone passes 50 points), and
tests/test_codegen_benchmark.py checks, game by game, that both engines then play the same game:
the same chance outcomes, legal actions and returns along the same random games.  So a playout is
one round in both engines, and games per second compare like with like.

Both play with the same random player as benchmarks/engines.py (uniform over legal actions, every
player choosing at simultaneous nodes); the engines take turns in short rounds and the best round
of each counts.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import counting  # noqa: E402
import penguin_handwritten  # noqa: E402
from engines import add_count_options, rate, write_engine  # noqa: E402

from rulecheck.codegen.engine import generate, load_module  # noqa: E402
from rulecheck.codegen.native import load_native  # noqa: E402
from rulecheck.dsl import ir  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402

#: the Short Game: one round is the whole game (the enum value's position in GameLength)
SHORT = 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one round per engine (default 1)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per engine; the best counts (default 5)")
    ap.add_argument("--players", type=int, nargs="+", default=[4])
    ap.add_argument("--native", action="store_true", help="also the engine compiled with mypyc (gen --native)")
    add_count_options(ap)
    args = ap.parse_args(argv)
    if args.count and counting.missing():
        print(counting.missing(), file=sys.stderr)
        return 2

    rules = load_path(ROOT / "rulesets" / "loving_penguin.rules").rules
    assert rules is not None
    length = rules.enums["GameLength"].values
    assert length[SHORT] == "short", length
    source = generate(ir.bind(rules, {}))
    engine = load_module(source, "penguin_engine")
    compiled = load_native(source, "penguin_engine") if args.native else None
    if args.count:
        print(f"Loving Penguin, one round (generated: length = short), default readings; Python {sys.version.split()[0]}")
        with tempfile.TemporaryDirectory() as folder:
            engines = {"generated": (write_engine(source, "penguin_engine", folder), {"length": SHORT}),
                       "hand-written": (Path(penguin_handwritten.__file__), {})}
            if compiled is not None:
                engines["native"] = (Path(compiled.__file__), {"length": SHORT})
            counting.table(args.players, engines, args.games, args.warmup)
        return 0
    print(f"Loving Penguin, one round (generated: length = short), default readings; best of {args.rounds} rounds of {args.seconds:g} s; Python {sys.version.split()[0]}")
    print(f"{'players':>7}  {'generated':>12}  {'hand-written':>12}  {'gen/hand':>8}" + (f"  {'native':>12}  {'native/hand':>11}" if compiled else ""))
    for n in args.players:
        makers: dict[str, Callable[[], Any]] = {
            "generated": engine.load_game({"players": n, "length": SHORT}).new_initial_state,
            "hand-written": penguin_handwritten.load_game({"players": n}).new_initial_state,
        }
        if compiled is not None:
            makers["native"] = compiled.load_game({"players": n, "length": SHORT}).new_initial_state
        best = {name: 0.0 for name in makers}
        for r in range(args.rounds):
            for name, make in makers.items():
                games_per_s, _ = rate(make, n, args.seconds, seed=1000 * r + n)
                best[name] = max(best[name], games_per_s)
        g, h = best["generated"], best["hand-written"]
        c = best.get("native")
        print(f"{n:>7}  {g:>10.0f}/s  {h:>10.0f}/s  {g / h:>7.2f}x" + (f"  {c:>10.0f}/s  {c / h:>10.2f}x" if c else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
