"""Random games on a generated engine, driven by one random stream per game (docs/simulate.md).

Shared by `rulecheck simulate` (how often a reading changes the result) and `rulecheck verify`
(a concrete game where it does, when the solver finds none within its bound).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

# Results other than a returns vector.  Each is a result of its own: equal to itself only.
ERROR = "error"  # the rules stopped the game (a RuleError), or a node offered no option
CAPPED = "capped"  # no end within max_steps nodes

Outcome = tuple[float, ...] | str


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game``'s stream: a function of (seed, game) only, whatever the job count."""
    digest = hashlib.sha256(f"rulecheck-simulate/{seed}/{game}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# ---- one game -----------------------------------------------------------------------------------


def _pick(options: list[int], u: float) -> int:
    # u in [0, 1): the option at position floor(u * n); min() guards the float edge u*n == n
    return options[min(int(u * len(options)), len(options) - 1)]


def play(game: Any, rule_error: type[BaseException], stream_seed: int, max_steps: int,
         record: list[Any] | None = None) -> tuple[Outcome, int]:
    """One game on the engine ``game``: its result and its length in decisions; ``record``, when
    given, receives every action applied (a list of one per seat at a simultaneous node).

    Node k of the game takes the k-th number u of the stream (a simultaneous node takes one per
    seat, in seat order, even for seats that can only pass): a player takes legal_actions()[⌊u·n⌋];
    chance takes the first outcome whose cumulative probability exceeds u."""
    log = record if record is not None else []
    rand = random.Random(stream_seed).random
    decisions = 0
    try:
        state = game.new_initial_state()
        n = game.num_players()
        for _ in range(max_steps):
            if state.is_terminal():
                return tuple(state.returns()), decisions
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if not outcomes:
                    return ERROR, decisions
                u = rand()
                chosen = outcomes[-1][0]  # when rounding leaves the cumulative sum just below 1
                acc = 0.0
                for action, p in outcomes:
                    acc += p
                    if u < acc:
                        chosen = action
                        break
                state.apply_action(chosen)
                log.append(chosen)
            elif state.is_simultaneous_node():
                decisions += 1
                joint = []
                for q in range(n):
                    options = state.legal_actions(q)
                    if not options:
                        return ERROR, decisions
                    joint.append(_pick(options, rand()))
                state.apply_actions(joint)
                log.append(joint)
            else:
                decisions += 1
                options = state.legal_actions()
                if not options:
                    return ERROR, decisions
                action = _pick(options, rand())
                state.apply_action(action)
                log.append(action)
        if state.is_terminal():
            return tuple(state.returns()), decisions
        return CAPPED, decisions
    except rule_error:
        return ERROR, decisions
