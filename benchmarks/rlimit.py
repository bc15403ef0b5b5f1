"""Calibration of `--timeout`: how many of z3's resource units this machine works through per
second, on the questions verify asks (the obligations of a ruleset's default game).

    .venv/bin/python benchmarks/rlimit.py [FILE] [--players N]

verify bounds each solver question by z3's resource count (``rlimit``), never by the clock, so
that its answers do not depend on the machine's load; ``RLIMIT_PER_SECOND`` in
verifier/z3backend.py converts `--timeout` seconds into units. This prints the units and the
seconds of each question and their ratio, side by side, to check that constant on a machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulecheck.dsl import ir  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402
from rulecheck.verifier import terms as tm  # noqa: E402
from rulecheck.verifier.conditions import obligation_condition, obligation_groups  # noqa: E402
from rulecheck.verifier.symbolic import SymExec  # noqa: E402
from rulecheck.verifier.z3backend import RLIMIT_PER_SECOND, Session  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "rulesets" / "cinderella.rules"))
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args(argv)
    rules = load_path(args.file).rules
    if rules is None:
        print(f"{args.file} does not load; run rulecheck check on it", file=sys.stderr)
        return 2
    tm.reset()
    trace = SymExec(ir.bind(rules, {}), args.players).run()
    units_total, seconds_total = 0, 0.0
    print(f"{'question':<48} {'status':>8} {'units':>12} {'seconds':>8} {'units/s':>12}")
    for grp in obligation_groups(trace):
        cond = obligation_condition(trace, grp)
        session = Session(cond.background, 30.0)
        solver = session._solver(30.0)
        (x,), defs = session.assertions([cond.goal])
        solver.add(x, defs)
        start = time.perf_counter()
        status = solver.check()
        seconds = time.perf_counter() - start
        stats = solver.statistics()
        units = int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0
        units_total += units
        seconds_total += seconds
        name = f"{grp.kind} {grp.subject} (line {grp.span.line})"[:48]
        print(f"{name:<48} {status!s:>8} {units:>12,} {seconds:>8.2f} {units / seconds if seconds else 0:>12,.0f}")
    rate = units_total / seconds_total if seconds_total else 0.0
    print(f"\nall: {units_total:,} units in {seconds_total:.2f} s: {rate:,.0f} units/s "
          f"(RLIMIT_PER_SECOND is {RLIMIT_PER_SECOND:,}: {rate / RLIMIT_PER_SECOND:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
