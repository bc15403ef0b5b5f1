"""The adapters' overhead: random playouts per second of the bare engine, through OpenSpiel
(rulecheck.adapters.openspiel, the pyspiel State API) and through PettingZoo (the AEC and the
parallel environment), side by side in one run for every committed ruleset; outcome-sampling
MCCFR iterations per second; and the cost of an information-state call at the end of a game.

    .venv/bin/python benchmarks/adapters.py [--seconds S] [--rounds R] [--players N]

Every playout is a game between uniformly random players (chance uniform), as in
benchmarks/engines.py.  The four ways take turns in short rounds and the best round of each
counts, so a busy machine slows all alike.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import outcome_sampling_mccfr

ROOT = Path(__file__).resolve().parent.parent

from counting import playout  # noqa: E402

from rulecheck.adapters import engine_module, openspiel, pettingzoo  # noqa: E402


def bare(mod: Any, n: int) -> Callable[[random.Random], None]:
    game = mod.load_game({"players": n})

    def play(rng: random.Random) -> None:
        playout(game.new_initial_state(), n, rng)
    return play


def through_openspiel(mod: Any, n: int) -> Callable[[random.Random], None]:
    game = openspiel.load(mod, players=n)

    def play(rng: random.Random) -> None:
        playout(game.new_initial_state(), n, rng)
    return play


def through_aec(mod: Any, n: int) -> Callable[[random.Random], None]:
    env = pettingzoo.env(mod, players=n)

    def play(rng: random.Random) -> None:
        env.reset(seed=rng.randrange(1 << 30))
        choice = rng.choice
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else choice(np.flatnonzero(obs["action_mask"])))
    return play


def through_parallel(mod: Any, n: int) -> Callable[[random.Random], None]:
    env = pettingzoo.parallel_env(mod, players=n)

    def play(rng: random.Random) -> None:
        obs, _ = env.reset(seed=rng.randrange(1 << 30))
        choice = rng.choice
        while env.agents:
            actions = {a: choice(np.flatnonzero(o["action_mask"])) if o["action_mask"].any() else 0 for a, o in obs.items()}
            obs, *_ = env.step(actions)
    return play


def rate(play: Callable[[random.Random], None], seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while True:
        play(rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def mccfr_rate(mod: Any, n: int, key: bool, seconds: float) -> float:
    game = openspiel.load(mod, players=n, infostate_key=key)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    np.random.seed(1)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or done == 0:
        solver.iteration()
        done += 1
    return done / (time.perf_counter() - start)


def infostate_cost(mod: Any, n: int, seed: int) -> tuple[int, float, float, float]:
    """At the end of one random game with an information-state call at every decision on the
    way: the string's length, the time of the last call, of the same call on a state that kept no
    earlier call (a replay of the whole game, which every call cost before), and of the key."""
    rng = random.Random(seed)
    s = mod.load_game({"players": n}).new_initial_state()
    while not s.is_terminal():
        if s.is_simultaneous_node():
            s.information_state_string(0)
            s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(n)])
        elif s.is_chance_node():
            s.apply_action(rng.choice(s.legal_actions()))
        else:
            s.information_state_string(0)
            s.apply_action(rng.choice(s.legal_actions()))
    before = mod.load_game({"players": n}).deserialize_state(s.serialize())
    t = time.perf_counter()
    text = s.information_state_string(0)
    kept = time.perf_counter() - t
    t = time.perf_counter()
    assert before.information_state_string(0) == text
    replay = time.perf_counter() - t
    t = time.perf_counter()
    s.information_state_key(0)
    key = time.perf_counter() - t
    return len(text), kept, replay, key


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one round per way (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per way; the best counts (default 3)")
    ap.add_argument("--players", type=int, default=None, help="player count (default: the fewest each game allows)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"random playouts, default readings; best of {args.rounds} rounds of {args.seconds:g} s; Python {sys.version.split()[0]}")
    print(f"{'ruleset':<16} {'players':>7}  {'engine':>9}  {'OpenSpiel':>9}  {'PZ AEC':>9}  {'PZ par.':>9}  {'OS/eng':>6}  {'AEC/eng':>7}  {'par/eng':>7}")
    rulesets = sorted((ROOT / "rulesets").glob("*.rules"))
    for path in rulesets:
        mod = engine_module(path)
        n = args.players or mod.MIN_PLAYERS
        ways = {"engine": bare(mod, n), "openspiel": through_openspiel(mod, n), "aec": through_aec(mod, n), "parallel": through_parallel(mod, n)}
        best = dict.fromkeys(ways, 0.0)
        for r in range(args.rounds):
            for name, play in ways.items():
                best[name] = max(best[name], rate(play, args.seconds, seed=1000 * r + n))
        e, o, a, p = best["engine"], best["openspiel"], best["aec"], best["parallel"]
        print(f"{path.stem:<16} {n:>7}  {e:>7.0f}/s  {o:>7.0f}/s  {a:>7.0f}/s  {p:>7.0f}/s  {o / e:>6.2f}  {a / e:>7.2f}  {p / e:>7.2f}")
    print()
    print("outcome-sampling MCCFR (turn-based conversion of simultaneous games), iterations/s:")
    print(f"{'ruleset':<16} {'players':>7}  {'text keys':>9}  {'compact':>9}")
    for path in rulesets:
        mod = engine_module(path)
        n = args.players or mod.MIN_PLAYERS
        text = mccfr_rate(mod, n, False, 3 * args.seconds)
        key = mccfr_rate(mod, n, True, 3 * args.seconds)
        print(f"{path.stem:<16} {n:>7}  {text:>9.1f}  {key:>9.1f}")
    print()
    print("information_state_string(0) at the end of a game with a call at every decision (4 players):")
    for path in rulesets:
        mod = engine_module(path)
        if not mod.MIN_PLAYERS <= 4 <= mod.MAX_PLAYERS:
            continue
        size, kept, replay, key = infostate_cost(mod, 4, seed=1)
        print(f"{path.stem:<16} {size / 1000:>6.0f} kB: {kept * 1e3:.2f} ms; a whole replay (every call, before): {replay * 1e3:.1f} ms; "
              f"information_state_key: {key * 1e6:.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
