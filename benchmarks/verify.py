"""Time of each check of `rulecheck verify` and of the whole run, printed per check.

    .venv/bin/python benchmarks/verify.py [FILE] [--players N ...] [--timeout S] [--jobs J]

Per-check times are the seconds each check spent in its worker (solver calls, symbolic execution
of the readings it needs, witness replays); with several jobs they add up to more than the wall
time. The goal of the issue is the whole of rulesets/cinderella.rules in under 60 s on a 2-core
machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.verifier.output import summary_line  # noqa: E402
from rulecheck.verifier.verify import Options, verify  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "rulesets" / "cinderella.rules"))
    ap.add_argument("--players", type=int, nargs="+", default=None)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    loaded = load_path(args.file)
    if loaded.rules is None:
        print(f"{args.file} does not load; run rulecheck check on it", file=sys.stderr)
        return 2
    start = time.perf_counter()
    outcome = verify(loaded.rules, Options(timeout=args.timeout, players=args.players, jobs=args.jobs))
    wall = time.perf_counter() - start
    print(f"{args.file}: players {outcome.players}, --timeout {args.timeout:g}, --jobs {args.jobs}")
    print(f"{'seconds':>9}  check")
    for name, secs in sorted(outcome.checks.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{secs:9.1f}  {name}")
    print(f"{sum(outcome.checks.values()):9.1f}  all checks (worker time)")
    print(f"{wall:9.1f}  whole verify (wall), {wall / 60:.1f} min; goal 60 s: {wall / 60:.1f}x over" if wall > 60 else f"{wall:9.1f}  whole verify (wall): within the 60 s goal")
    print(summary_line(outcome), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
