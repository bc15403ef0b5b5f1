"""Random games on a generated engine, their choices coupled between readings (docs/simulate.md).

Shared by `rulecheck simulate` (how often a reading changes the result) and `rulecheck verify`
(a concrete game where it does, when the solver finds none within its bound).
"""

from __future__ import annotations

import hashlib
from typing import Any

from rulecheck.dsl.coupling import Coupled

# Results other than a returns vector.  Each is a result of its own: equal to itself only.
ERROR = "error"  # the rules stopped the game (a RuleError), or a node offered no option
CAPPED = "capped"  # no end within max_steps nodes

#: A game that ended: its returns, its winners (seats) and whether it was a draw. Two games have
#: the same result when all three agree (a draw is not the same as nobody winning).
Result = tuple[tuple[float, ...], tuple[int, ...], bool]
Outcome = Result | str


def result(state: Any) -> Result:
    """The result of an engine state that has ended."""
    return tuple(state.returns()), tuple(state.winners()), bool(state.is_draw())


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game``'s stream: a function of (seed, game) only, whatever the job count."""
    digest = hashlib.sha256(f"rulecheck-simulate/{seed}/{game}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# ---- one game -----------------------------------------------------------------------------------


def play(game: Any, rule_error: type[BaseException], stream_seed: int, max_steps: int,
         record: list[Any] | None = None) -> tuple[Outcome, int, int]:
    """One game on the engine ``game``: its result, its length in decisions and in turns (calls
    of the procedure the game names with ``turn``; 0 without); ``record``, when given, receives
    every action taken (a list of one per seat at a simultaneous node), the one the rules stop at
    included.

    Every choice, chance's included, is a coupled random choice (dsl/coupling.py): it depends on
    the seed, the chooser, the decision's label, how often the chooser met that label before and
    the options, never on how many decisions came before; a forced move takes no number."""
    log = record if record is not None else []
    pick = Coupled(stream_seed)
    decisions = 0
    state = None
    try:
        state = game.new_initial_state()
        n = game.num_players()
        for _ in range(max_steps):
            if state.is_terminal():
                return result(state), decisions, state.turns()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if not outcomes:
                    return ERROR, decisions, state.turns()
                chosen = pick.chance(state.decision_label(), outcomes)
                log.append(chosen)  # before it is applied: a move the rules stop at is part of the game
                state.apply_action(chosen)
            elif state.is_simultaneous_node():
                decisions += 1
                label = state.decision_label()
                joint = []
                for q in range(n):
                    options = state.legal_actions(q)
                    if not options:
                        return ERROR, decisions, state.turns()
                    joint.append(pick.choose(q, label, options))
                log.append(joint)
                state.apply_actions(joint)
            else:
                decisions += 1
                options = state.legal_actions()
                if not options:
                    return ERROR, decisions, state.turns()
                action = pick.choose(state.current_player(), state.decision_label(), options)
                log.append(action)
                state.apply_action(action)
        if state.is_terminal():
            return result(state), decisions, state.turns()
        return CAPPED, decisions, state.turns()
    except rule_error:
        return ERROR, decisions, 0 if state is None else state.turns()
