"""simulate's games per second on this machine: locally with 1 and 2 jobs, and on a local Dask
cluster of 1 and 2 worker processes (one thread each), side by side in one run.

    .venv/bin/python benchmarks/cluster.py [FILE] [--games N] [--rounds R]

Each configuration plays the same games (the same seed: every result is checked to be the same
bytes of JSON) and the rounds alternate between configurations, so that a change in the machine's
load falls on all of them; the best round of each counts. A game is played once under the base
readings and once more under each reading compared (docs/simulate.md), so a "game" here is that
whole set of plays. The time counts from the plan (engines generated) to the last tally, the same
span for every configuration; starting a cluster is measured apart, as it is paid once per command.
Needs the cluster extra: pip install -e '.[cluster]'.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from rulecheck import cluster  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.reports import simulate as sim  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "rulesets" / "cinderella.rules"))
    ap.add_argument("--games", type=int, default=4000, help="games per round (default 4000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per configuration; the best counts (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    rules = load_path(args.file).rules
    assert rules is not None, f"{args.file} does not check"
    players = rules.game.max_players

    with ExitStack() as stack:
        started: dict[str, float] = {}  # seconds to start each cluster
        clients = {}
        runners: dict[str, sim.ChunkRunner | None] = {"local, 1 job": None, "local, 2 jobs": None}
        jobs = {"local, 1 job": 1, "local, 2 jobs": 2}
        for n in (1, 2):
            name = f"Dask, {n} worker{'s' if n > 1 else ''}"
            t0 = time.perf_counter()
            clients[name] = stack.enter_context(cluster.connect(workers=n))
            started[name] = time.perf_counter() - t0
            runners[name], jobs[name] = cluster.runner(clients[name]), 1

        def once(name: str) -> tuple[float, str]:
            if name in clients:
                # the workers keep a plan's engines: build them again, as a new command does
                clients[name].run(cluster._BUILT.clear)
            t0 = time.perf_counter()
            result = sim.simulate(rules, games=args.games, seed=args.seed, players=players, jobs=jobs[name], runner=runners[name])
            return time.perf_counter() - t0, sim.to_json(result)

        best: dict[str, float] = {}
        outputs: set[str] = set()
        for _ in range(args.rounds):
            for name in runners:
                seconds, text = once(name)
                outputs.add(text)
                best[name] = min(best.get(name, float("inf")), seconds)
        assert len(outputs) == 1, "the configurations gave different results"

    base = args.games / best["local, 1 job"]
    print(f"{rules.game.title}: {args.games} games of {players} players, {len(sim.variants(rules, {})) + 1} plays each "
          f"(base readings and every reading compared); best of {args.rounds} rounds; Python {sys.version.split()[0]}")
    print(f"{'configuration':<16}  {'games/s':>8}  {'vs 1 job':>8}  {'cluster start':>13}")
    for name, seconds in best.items():
        rate = args.games / seconds
        start = f"{started[name]:.1f} s" if name in started else "—"
        print(f"{name:<16}  {rate:>8.0f}  {rate / base:>7.2f}x  {start:>13}")
    print("identical JSON from every configuration: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
