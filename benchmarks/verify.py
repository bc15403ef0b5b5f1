"""Time of each check of `rulecheck verify` and of the whole run, printed per check.

    .venv/bin/python benchmarks/verify.py [FILE] [--players N ...] [--timeout S] [--jobs J]

Per-check times are the seconds each check spent in its worker (solver calls, symbolic execution
of the readings it needs, witness replays); with several jobs they add up to more than the wall
time. After the times, each finding's verdict and what it covers. The defaults are those of
`rulecheck verify`; the goal is the whole of rulesets/cinderella.rules in under 10 s on a 2-core
machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulecheck.cli import DEFAULT_TIMEOUT  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.verifier.output import summary_line  # noqa: E402
from rulecheck.verifier.verify import Options, verify  # noqa: E402

GOAL_S = 10.0  # the speed issue's goal for the README's main command


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "rulesets" / "cinderella.rules"))
    ap.add_argument("--players", type=int, nargs="+", default=None)
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
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
    print(f"{wall:9.1f}  whole verify (wall), {wall / 60:.1f} min; goal {GOAL_S:g} s: {wall / GOAL_S:.1f}x over" if wall > GOAL_S
          else f"{wall:9.1f}  whole verify (wall): within the {GOAL_S:g} s goal")
    for f in outcome.findings:
        print(f"  {f.kind:<16} {f.subject:<28} {f.verdict:<18} {f.bound or ''}")
    print(summary_line(outcome), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
