"""Checking time of large and broken files, to show it grows linearly with their size.

    .venv/bin/python benchmarks/checking.py

Each input is checked at a size and at 8 times that size, side by side: a time ratio near 8 is
linear, near 64 quadratic. The inputs are those that were quadratic: an enum of many values (a
list lookup per value: 17 s for 32,000 values), a string of many bad escapes over many lines
(each position found by counting the lines before it, every diagnostic printed: 77 s and 173 MB),
and a file of many unknown names. Also the size of what ``rulecheck check`` prints.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulecheck.dsl.diagnostics import render_all  # noqa: E402
from rulecheck.dsl.loader import load_text  # noqa: E402

HEAD = 'game "Big" {\n  players 2..4\n}\n\nflow {\n  end winners players\n}\n'


def enum(n: int) -> str:
    return HEAD + "enum Big { " + ", ".join(f"v{i}" for i in range(n)) + ' }\nvar x: Big = v0 "the value"\n'


def escapes(n: int) -> str:
    return HEAD + 'define d -> text = "' + ("\\q" * 20 + "\n") * (n // 20) + '"\n  source "x"\n'


def names(n: int) -> str:
    return HEAD + "".join(f'define value{i} -> int = valeu{i}\n  source "v"\n' for i in range(n))


def measure(make: Callable[[int], str], n: int) -> tuple[float, int, int]:
    text = make(n)
    start = time.perf_counter()
    loaded = load_text(text, "big.rules")
    shown = render_all(loaded.diagnostics.sorted(), loaded.source)
    return time.perf_counter() - start, len(text), len(shown)


def main() -> int:
    load_text(enum(10), "warm.rules")  # the parser's tables are built once, before any measure
    print(f"{'input':<34} {'size':>10} {'seconds':>8} {'printed':>10}   {'size x8':>10} {'seconds':>8} {'printed':>10}   ratio")
    for label, make, n in (("enum of n values", enum, 4000), ("n bad escapes in a string", escapes, 40_000),
                           ("n unknown names", names, 2000)):
        t1, s1, p1 = measure(make, n)
        t8, s8, p8 = measure(make, 8 * n)
        print(f"{label + f' (n={n:,})':<34} {s1:>10,} {t1:>8.2f} {p1:>10,}   {s8:>10,} {t8:>8.2f} {p8:>10,}   {t8 / t1:5.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
