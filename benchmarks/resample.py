"""How often resample_from_infostate finds another state, and at what cost: over random games,
at every decision, a resample for the player to move (at a simultaneous one, one of those who
choose); how many found a state within the budget
(rather than falling back on a copy), how many of those differ from the state itself, and the
mean time of a call.

    .venv/bin/python benchmarks/resample.py [--games G] [--players N] [--steps S]

Games of rules with no length bound are cut at S steps (default 200).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from rulecheck.adapters import engine_module  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=5, help="random games per ruleset (default 5)")
    ap.add_argument("--players", type=int, default=3, help="player count where the game allows it, else the fewest (default 3)")
    ap.add_argument("--steps", type=int, default=200, help="steps after which a game is cut (default 200)")
    args = ap.parse_args(argv)
    paths = sorted((ROOT / "rulesets").glob("*.rules")) + [ROOT / "tests" / "rulesets" / f for f in ("kuhn_poker.rules", "liars_dice.rules")]
    print(f"{'ruleset':<16} {'players':>7}  {'decisions':>9}  {'found':>6}  {'other':>6}  {'ms/call':>7}")
    for path in paths:
        mod = engine_module(path)
        n = args.players if mod.MIN_PLAYERS <= args.players <= mod.MAX_PLAYERS else mod.MIN_PLAYERS
        g = mod.load_game({"players": n})
        decisions = found = other = 0
        spent = 0.0
        for seed in range(args.games):
            rng = random.Random(seed)
            s = g.new_initial_state()
            while not s.is_terminal() and len(s.history()) < args.steps:
                if s.is_chance_node():
                    s.apply_action(rng.choice(s.legal_actions()))
                    continue
                p = s.current_player()
                if s.is_simultaneous_node():
                    p = rng.choice([q for q in range(n) if s.legal_actions(q) != [g.PASS]] or [0])
                t = time.perf_counter()
                r = mod._resample(s, p, True, 1, random.Random(seed * 7919 + decisions), 10_000)
                spent += time.perf_counter() - t
                decisions += 1
                if r is not None:
                    found += 1
                    other += r.history() != s.history()
                if s.is_simultaneous_node():
                    s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(n)])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
        print(f"{path.stem:<16} {n:>7}  {decisions:>9}  {found:>6}  {other:>6}  {spent / max(decisions, 1) * 1e3:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
