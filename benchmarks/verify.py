"""Time of each check of `rulecheck verify` and of the whole run, printed per check.

    .venv/bin/python benchmarks/verify.py [FILE] [--players N ...] [--timeout S] [--jobs J] [--per-count]
    .venv/bin/python benchmarks/verify.py --report NAME ... | --all [--per-count]

Per-check times are the seconds each check spent in its worker (solver calls, symbolic execution
of the readings it needs, witness replays); with several jobs they add up to more than the wall
time. After the times, each finding's verdict and what it covers. The defaults are those of
`rulecheck verify`; the goal is the whole of rulesets/cinderella.rules in under 10 s on a 2-core
machine.

``--report NAME`` (repeatable) or ``--all`` runs the verify command of committed reports, with the
arguments docs/reports/manifest.json gives them. ``--per-count`` runs each player count on its own
(each with the others' checks left out: a count's time and verdicts, then the next), and ends
with a table of every run's wall time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulecheck.cli import DEFAULT_TIMEOUT, build_parser, verify_options  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.verifier.output import summary_line  # noqa: E402
from rulecheck.verifier.verify import Options, verify  # noqa: E402

GOAL_S = 10.0  # the speed issue's goal for the README's main command
MANIFEST = ROOT / "docs" / "reports" / "manifest.json"


def commands(args: argparse.Namespace) -> list[tuple[str, str, list[str]]]:
    """The runs asked for: a label, the ruleset and the arguments of its verify command."""
    if not (args.all or args.report):
        extra = ["--players", *map(str, args.players)] if args.players else []
        return [(args.file, args.file, ["--timeout", f"{args.timeout:g}", "--jobs", str(args.jobs), *extra])]
    reports = json.loads(MANIFEST.read_text(encoding="utf-8"))["reports"]
    known = {r["name"] for r in reports}
    unknown = sorted(set(args.report or []) - known)
    if unknown:
        raise SystemExit(f"no committed report {unknown[0]!r}; the reports are: {', '.join(sorted(known))}")
    return [(r["name"], str(ROOT / r["ruleset"]), list(r["verify"])) for r in reports if args.all or r["name"] in args.report]


def timed_run(label: str, file: str, options: Options) -> float:
    """One verify, its times per check and its findings printed; returns its wall time."""
    loaded = load_path(file)
    assert loaded.rules is not None
    start = time.perf_counter()
    outcome = verify(loaded.rules, options)
    wall = time.perf_counter() - start
    print(f"{label}: players {outcome.players}, --timeout {options.timeout:g}, --jobs {options.jobs}")
    print(f"{'seconds':>9}  check")
    for name, secs in sorted(outcome.checks.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{secs:9.1f}  {name}")
    print(f"{sum(outcome.checks.values()):9.1f}  all checks (worker time)")
    print(f"{wall:9.1f}  whole verify (wall), {wall / 60:.1f} min; goal {GOAL_S:g} s: {wall / GOAL_S:.1f}x over" if wall > GOAL_S
          else f"{wall:9.1f}  whole verify (wall): within the {GOAL_S:g} s goal")
    for f in outcome.findings:
        print(f"  {f.kind:<16} {f.subject:<28} {f.verdict:<18} {f.bound or ''}")
    print(summary_line(outcome), end="\n\n")
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "rulesets" / "cinderella.rules"))
    ap.add_argument("--players", type=int, nargs="+", default=None)
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report", action="append", metavar="NAME", help="a committed report's verify command (repeatable)")
    ap.add_argument("--all", action="store_true", help="every committed report's verify command")
    ap.add_argument("--per-count", action="store_true", help="each player count on its own")
    args = ap.parse_args(argv)
    walls: list[tuple[str, str, float]] = []
    for label, file, vargs in commands(args):
        loaded = load_path(file)
        if loaded.rules is None:
            print(f"{file} does not load; run rulecheck check on it", file=sys.stderr)
            return 2
        options = verify_options(build_parser().parse_args(["verify", file, *vargs]), loaded.rules)
        if not args.per_count:
            walls.append((label, "all", timed_run(label, file, options)))
            continue
        g = loaded.rules.game
        for n in options.players or range(g.min_players, g.max_players + 1):
            walls.append((label, str(n), timed_run(f"{label}, {n} players", file, dataclasses.replace(options, players=[n]))))
    if len(walls) > 1:
        print(f"{'ruleset':<20} {'players':>7} {'wall s':>9}")
        for label, players, wall in walls:
            print(f"{Path(label).stem:<20} {players:>7} {wall:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
