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
         record: list[Any] | None = None, stop: list[str] | None = None) -> tuple[Outcome, int, int]:
    """One game on the engine ``game``: its result, its length in decisions and in turns (calls
    of the procedure the game names with ``turn``; 0 without); ``record``, when given, receives
    every action taken (a list of one per seat at a simultaneous node), the one the rules stop at
    included; ``stop``, when given, the kind of the rules' error that stopped the game (ERROR).

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
    except rule_error as err:
        if stop is not None:
            stop.append(str(getattr(err, "kind", "")))
        return ERROR, decisions, 0 if state is None else state.turns()


# ---- the same game on two engines -------------------------------------------------------------


def _node(state: Any, n: int) -> tuple[Any, ...]:
    """What a node offers, as the rules define it: whose move and which options (chance's with
    their odds), or the end and its winners."""
    if state.is_terminal():
        return ("end", tuple(state.winners()), bool(state.is_draw()))
    if state.is_chance_node():
        return ("chance", tuple(sorted(state.chance_outcomes())))
    if state.is_simultaneous_node():
        return ("together", tuple(tuple(sorted(state.legal_actions(q))) for q in range(n)))
    return ("move", state.current_player(), tuple(sorted(state.legal_actions())))


def _forced(node: tuple[Any, ...]) -> list[Any] | int | None:
    """The only move a node allows (a single option is no choice), None where it offers more."""
    kind, *rest = node
    if kind == "chance":
        return rest[0][0][0] if len(rest[0]) == 1 else None
    if kind == "together":
        return [options[0] for options in rest[0]] if all(len(options) == 1 for options in rest[0]) else None
    if kind == "move":
        return rest[1][0] if len(rest[1]) == 1 else None
    return None


def apply(state: Any, action: Any) -> None:
    """One step of a recorded game: an action, or a list of one per seat at a simultaneous node."""
    if isinstance(action, list):
        state.apply_actions(action)
    else:
        state.apply_action(action)


def _past_forced(state: Any, n: int) -> tuple[Any, ...]:
    """The state moved past the nodes that allow one move only; the node it stops at."""
    while (forced := _forced(node := _node(state, n))) is not None:
        apply(state, forced)
    return node


def _choices(node: tuple[Any, ...]) -> tuple[Any, ...]:
    """A node as the players meet it: at a simultaneous one, a player with a single option has
    no choice, whichever option it is."""
    if node[0] != "together":
        return node
    return ("together", tuple(options if len(options) > 1 else None for options in node[1]))


def plays_alike(game_a: Any, game_b: Any, errors: tuple[type[BaseException], ...], actions: list[Any]) -> bool:
    """Whether the moves of a game played on ``game_a`` (one that ends, as ``play`` recorded it)
    are a game on ``game_b`` too in which every choice offers the same (the same player to
    choose, the same options, chance's with the same odds; a single option is no choice) and
    which ends with the same winners."""
    try:
        a, b = game_a.new_initial_state(), game_b.new_initial_state()
        n = game_a.num_players()
        for action in actions:
            node = _node(a, n)
            apply(a, action)
            if _forced(node) is not None:
                continue
            other = _past_forced(b, n)
            if _choices(node) != _choices(other):
                return False
            if isinstance(action, list):  # where a player has no choice, that player's only option
                action = [options[0] if len(options) == 1 else act for act, options in zip(action, other[1])]
            apply(b, action)
        return _past_forced(a, n) == _past_forced(b, n)
    except errors:
        return False
