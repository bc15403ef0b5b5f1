"""Random playouts per second: OpenSpiel's own C++ games driven from Python, against the engines
generated from the rulesets of the same games (tests/rulesets/, the oracle of
tests/test_oracle_openspiel.py, which checks that they play the same games).

    .venv/bin/python benchmarks/openspiel_games.py [--seconds S] [--rounds R] [--native]

Both sides get the same random driver: at a chance node an outcome drawn from the listed
probabilities, at a simultaneous node every player's uniform pick among her legal actions, else the
mover's uniform pick; one playout is one game from a new initial state to the end. The two take
turns in short rounds and the best round of each counts, so a busy machine slows both alike.

Each call from Python into a pyspiel state crosses pybind11 and builds its answer as Python objects
(a list for legal_actions, a list of pairs for chance_outcomes); a generated engine answers in
Python with no crossing, so the ratio says what the crossing costs against Python's own speed.
--native adds the generated engines compiled with mypyc (rulecheck gen --native).
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

from rulecheck.codegen.engine import generate, load_module  # noqa: E402
from rulecheck.codegen.native import load_native  # noqa: E402
from rulecheck.dsl import ir  # noqa: E402
from rulecheck.dsl.loader import load_path  # noqa: E402

#: (ruleset in tests/rulesets, its parameters, OpenSpiel's game string)
GAMES: list[tuple[str, dict[str, Any], str]] = [
    ("kuhn_poker", {}, "kuhn_poker"),
    ("leduc_poker", {}, "leduc_poker"),
    ("goofspiel", {}, "goofspiel(num_cards=4,players=2,points_order=random,returns_type=win_loss)"),
    ("goofspiel", {"imp_info": True}, "goofspiel(num_cards=4,players=2,points_order=random,returns_type=win_loss,imp_info=true)"),
    ("liars_dice", {}, "liars_dice(numdice=1,dice_sides=6,players=2)"),
]


def playout(state: Any, n: int, rng: random.Random, chance: int, simultaneous: int) -> None:
    """One game between uniformly random players; chance by its probabilities."""
    choice, rand = rng.choice, rng.random
    while not state.is_terminal():
        player = state.current_player()
        if player == chance:
            r = rand()
            outcomes = state.chance_outcomes()
            action = outcomes[-1][0]
            for a, p in outcomes:
                r -= p
                if r < 0:
                    action = a
                    break
            state.apply_action(action)
        elif player == simultaneous:
            state.apply_actions([choice(state.legal_actions(q)) for q in range(n)])
        else:
            state.apply_action(choice(state.legal_actions()))


def rate(new_state: Callable[[], Any], n: int, chance: int, simultaneous: int, seconds: float, seed: int) -> float:
    """Games per second over about ``seconds`` (at least one game)."""
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while True:
        playout(new_state(), n, rng, chance, simultaneous)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per engine; the best counts")
    ap.add_argument("--native", action="store_true", help="also the engines compiled with mypyc (gen --native)")
    a = ap.parse_args()
    import pyspiel

    chance, simultaneous = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.SIMULTANEOUS)
    print(f"random playouts per second, best of {a.rounds} rounds of {a.seconds:g} s; Python {sys.version.split()[0]}, "
          f"OpenSpiel {getattr(pyspiel, '__version__', '?')}")
    print(f"{'game':<44} {'generated':>10} {'OpenSpiel':>10} {'gen/C++':>8}" + (f" {'native':>10} {'native/C++':>10}" if a.native else ""))
    for name, params, spiel in GAMES:
        loaded = load_path(ROOT / "tests" / "rulesets" / f"{name}.rules")
        assert loaded.rules is not None, loaded.diagnostics.sorted()
        source = generate(ir.bind(loaded.rules, {}))
        module = load_module(source, f"bench_{name}")
        game = module.load_game({"players": 2, **params})
        compiled = load_native(source, f"bench_{name}").load_game({"players": 2, **params}) if a.native else None
        os_game = pyspiel.load_game(spiel)
        # the engine's node kinds have OpenSpiel's numbers (docs/engine.md), so one driver serves both
        assert (module.CHANCE, module.SIMULTANEOUS) == (chance, simultaneous)
        best = {"generated": 0.0, "OpenSpiel": 0.0}
        for r in range(a.rounds):
            best["generated"] = max(best["generated"], rate(game.new_initial_state, 2, chance, simultaneous, a.seconds, r))
            best["OpenSpiel"] = max(best["OpenSpiel"], rate(os_game.new_initial_state, 2, chance, simultaneous, a.seconds, r))
            if compiled is not None:
                best["native"] = max(best.get("native", 0.0), rate(compiled.new_initial_state, 2, chance, simultaneous, a.seconds, r))
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        c = best.get("native")
        print(f"{label:<44} {best['generated']:>9.0f}/s {best['OpenSpiel']:>9.0f}/s {best['generated'] / best['OpenSpiel']:>7.2f}x"
              + (f" {c:>9.0f}/s {c / best['OpenSpiel']:>9.2f}x" if c else ""))


if __name__ == "__main__":
    main()
