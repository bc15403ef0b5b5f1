"""`rulecheck play`: one game between uniformly random players, told as a readable log.

The players' choices are coupled between readings (dsl/coupling.py): the same seed under two
readings makes the same choices wherever the readings offer the same ones."""

from __future__ import annotations

from dataclasses import dataclass

from rulecheck.dsl import ir
from rulecheck.dsl.coupling import Coupled
from rulecheck.dsl.values import player_name

from .semantics import RuleError
from .state import Game, State


@dataclass
class PlayResult:
    text: str
    finished: bool
    state: State


def random_step(state: State, pick: Coupled) -> None:
    """One uniformly random move: a chance outcome, one player's choice, or everybody's at once
    (coupled between readings: dsl/coupling.py)."""
    label = state.decision_label()
    if state.is_chance_node():
        state.apply_action(pick.chance(label, state.chance_outcomes()))
    elif state.is_simultaneous_node():
        n = state.game.num_players()
        state.apply_actions([pick.choose(q, label, state.legal_actions(q)) for q in range(n)])
    else:
        state.apply_action(pick.choose(state.current_player(), label, state.legal_actions()))


def play_random(program: ir.Program, players: int, seed: int, params: dict[str, ir.Value] | None = None, max_steps: int = 10_000) -> PlayResult:
    rules = program.rules
    game = Game(program, players, params)
    pick = Coupled(seed)
    head = [f"{rules.game.title}: {players} players, seed {seed}"]
    changed = {a: r for a, r in program.readings.items() if r != rules.ambiguities[a].default.name}
    if changed:
        head.append("readings: " + ", ".join(f"{a}={r}" for a, r in sorted(changed.items())) + " (others default)")
    else:
        head.append(f"readings: the defaults of all {len(rules.ambiguities)} ambiguities")
    finished = False
    problem = ""
    state: State | None = None
    try:
        state = game.new_initial_state(log=True)
        steps = 0
        while not state.is_terminal() and steps < max_steps:
            random_step(state, pick)
            steps += 1
        finished = state.is_terminal()
        if not finished:
            problem = f"stopped after {max_steps} decisions without an end (raise --max-steps to go on)"
    except RuleError as err:
        state = err.state
        problem = f"the rules stop here ({err.kind}): {err.message}\n  at {rules.name}:{err.span.line}:{err.span.col}"
    assert state is not None
    log = state.machine.log
    body = [f"{i:>3}. {line}" for i, line in enumerate(log, start=1)]
    tail: list[str] = []
    if finished:
        ret = state.returns()
        tail.append("returns: " + ", ".join(f"{player_name(q)} {r:g}" for q, r in enumerate(ret)))
    if problem:
        tail.append(problem)
    return PlayResult("\n".join(head + body + tail) + "\n", finished, state)
