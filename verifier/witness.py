"""Witnesses: a solver model turned into games a person can set up at a table, replayed through
the reference interpreter (which also tells the story) and through the generated engine."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.values import player_name, show
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game, State, observation, seen

from . import terms as tm
from .findings import Play
from .symbolic import Trace, decision_value


@dataclass
class Replay:
    actions: list[Any]
    log: list[str]
    setup: list[str]
    winners: list[int] | None
    error: str | None
    legal: bool
    scores: dict[str, list[int]] | None = None  # each score variable's final values, by seat


def actions_of(trace: Trace, model: dict[str, bool | int], n: int, pass_action: int) -> list[Any]:
    """The actions of the game the model describes, in the order the game asks for them."""
    out: list[Any] = []
    node_done: set[int] = set()
    by_node: dict[int, list[Any]] = {}
    value = tm.Evaluator(model)
    for d in trace.decisions:
        if d.kind == "simultaneous":
            by_node.setdefault(d.node, []).append(d)
    for d in trace.decisions:
        if not value(d.active):
            if d.kind != "simultaneous":
                continue
        if d.kind == "simultaneous":
            if d.node in node_done:
                continue
            members = by_node[d.node]
            if not any(value(x.active) for x in members):
                continue
            node_done.add(d.node)
            joint = [pass_action] * n
            for x in members:
                if value(x.active):
                    v = decision_value(x, model)
                    joint[int(x.player)] = v[0]
            out.append(joint)
            continue
        values = decision_value(d, model)
        out.extend(values)
    return out


def apply(state: Any, act: Any) -> None:
    """One step of a recorded game: an action, or a list of one per seat at a simultaneous node."""
    if isinstance(act, list):
        state.apply_actions(act)
    else:
        state.apply_action(act)


def replay_interpreter(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> Replay:
    """Play the actions in the reference interpreter with its log on."""
    game = Game(program, n, params)
    log: list[str] = []
    setup: list[str] = []
    state: State | None = None
    try:
        state = game.new_initial_state(log=True)
        for a in actions:
            if state.is_terminal():
                return Replay(actions, state.machine.log, setup, None, "the game ended before the witness did", False)
            if not setup and not state.is_chance_node():
                setup = table_situation(state)
            apply(state, a)
        if not setup:
            setup = table_situation(state)
        log = state.machine.log
        if not state.is_terminal():
            return Replay(actions, log, setup, None, UNFINISHED, False)
        w = state.machine.winners
        scores = {v.name: [state.machine.vars[v.name][q] for q in range(n)] for v in program.rules.vars.values() if v.score}
        return Replay(actions, log, setup, sorted(w) if w is not None else None, None, True, scores)
    except RuleError as err:
        st = err.state if err.state is not None else state
        log = st.machine.log if st is not None else []
        return Replay(actions, log, setup, None, f"{err.kind}: {err.message} (line {err.span.line})", True)
    except ValueError as err:
        return Replay(actions, state.machine.log if state else [], setup, None, f"illegal move: {err}", False)


def table_situation(state: State) -> list[str]:
    """What is on the table before the first player decision: every zone that holds something."""
    lines = []
    for line in str(state).splitlines():
        head, _, rest = line.partition(": ")
        if rest and rest != "empty" and not rest.endswith(" hidden"):
            lines.append(f"{head}: {rest}")
    return lines


def replay_engine(module: types.ModuleType, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> tuple[list[int] | None, str | None]:
    """Play the actions in a generated engine: (winners, error)."""
    try:
        state = module.load_game({"players": n, **(params or {})}).new_initial_state()
        for a in actions:
            if state.is_terminal():
                return None, "the game ended before the witness did"
            apply(state, a)
        if not state.is_terminal():
            return None, UNFINISHED
        returns = state.returns()
        return [q for q in range(n) if returns[q] > 0], None
    except module.RuleError as err:
        return None, f"{err.kind}: {err.message}"
    except ValueError as err:
        return None, f"illegal move: {err}"


def observe_engine(module: types.ModuleType, n: int, actions: list[Any], player: int, params: dict[str, Any] | None = None) -> str | None:
    """What a player sees after the actions, in a generated engine (None: they do not replay)."""
    try:
        state = module.load_game({"players": n, **(params or {})}).new_initial_state()
        for a in actions:
            apply(state, a)
        return str(state.observation_string(player))
    except (module.RuleError, ValueError):
        return None


def outcome_text(r: Replay) -> str:
    if r.error == UNFINISHED:
        return f"the game goes on: no end within {CONTINUE_MOVES:,} moves"
    if r.error is not None:
        return f"the rules stop: {r.error}"
    if r.winners is None:
        return "no result"
    if not r.winners:
        return "nobody wins"
    names = ", ".join(player_name(q) for q in r.winners)
    return f"{names} win{'s' if len(r.winners) == 1 else ''}"


def make_play(label: str, readings: dict[str, str], r: Replay, engine: tuple[list[int] | None, str | None] | None) -> Play:
    replayed = False
    if engine is not None:
        winners, error = engine
        replayed = (error is None) == (r.error is None) and (error is not None or winners == r.winners)
    return Play(label, dict(sorted(readings.items())), r.actions, r.log, outcome_text(r), r.winners, replayed)


def random_game(program: ir.Program, n: int, seed: int, params: dict[str, Any] | None = None, max_moves: int = 10_000,
                covered: set[str] | None = None) -> list[Any]:
    """The actions of one game between uniformly random players (chance uniform too), up to the
    point where the game ends or the rules stop; ``covered`` receives the rules that applied."""
    return continue_game(program, n, [], params, seed, max_moves, covered)


def model_of_actions(trace: Trace, actions: list[Any]) -> dict[str, bool | int]:
    """The inverse of ``actions_of``: the decision variables of the trace that describe a concrete
    game. Decisions come in game order, so each one's ``active`` only needs earlier choices (and
    one evaluator serves them all: later choices are in no term it has seen)."""
    model: dict[str, bool | int] = {}
    active = tm.Evaluator(model)
    queue = list(actions)
    joint: list[int] | None = None
    node = -1
    for d in trace.decisions:
        if d.kind != "simultaneous" or d.node != node:
            joint = None
        if not active(d.active):
            continue
        if d.kind == "simultaneous":
            if joint is None:
                if not queue or not isinstance(queue[0], list):
                    break
                joint, node = queue.pop(0), d.node
            chosen = {joint[int(d.player)]} if isinstance(d.player, int) else set()
        else:
            take = d.count if d.kind == "deal" else 1
            if len(queue) < take or any(isinstance(a, list) for a in queue[:take]):
                break
            chosen = set(queue[:take])
            del queue[:take]
        for k in d.sel:
            model[f"d|{d.key}|{k}"] = k in chosen
    return model


#: Moves after which a game continued with random moves is cut (a game that may go on for ever).
CONTINUE_MOVES = 10_000
#: What a replay says of a game whose actions run out before its end.
UNFINISHED = "the witness stops before the game ends"


def continue_game(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None, seed: int = 0,
                  max_moves: int = CONTINUE_MOVES, covered: set[str] | None = None) -> list[Any]:
    """The actions as far as the game allows them, then random legal moves to the end: the other
    reading's side of a witness whose readings part at some decision."""
    import random

    rng = random.Random(seed)
    state = State(Game(program, n, params), covered=covered)
    out: list[Any] = []
    queue = list(actions)
    try:
        while not state.is_terminal() and len(out) < max_moves:
            a: Any = queue.pop(0) if queue else None
            if state.is_chance_node():
                legal = [x for x, _ in state.chance_outcomes()]
                a = a if isinstance(a, int) and a in legal else rng.choice(legal)
                state.apply_action(a)
            elif state.is_simultaneous_node():
                options = [state.legal_actions(q) for q in range(n)]
                if not (isinstance(a, list) and all(x in o for x, o in zip(a, options))):
                    a, queue = [rng.choice(o) for o in options], []
                state.apply_actions(a)
            else:
                legal = state.legal_actions()
                if not (isinstance(a, int) and a in legal):
                    a, queue = rng.choice(legal), []
                state.apply_action(a)
            out.append(a)
    except RuleError:
        pass
    return out


def _asks(s: State) -> str:
    """What a state waits for, in words."""
    p = s.pending
    assert p is not None
    label = f" ('{p.label}')" if p.label else ""
    if p.kind == "chance":
        return "a draw"
    if p.kind == "simultaneous":
        return f"a choice by every player at once{label}"
    return f"a choice by {player_name(p.player)}{label}"


def first_difference(a: ir.Program, b: ir.Program, n: int, actions: list[Any], names: tuple[str, str], params: dict[str, Any] | None = None) -> str | None:
    """Where the same history first offers different moves under two readings, in words. Decisions
    are counted from the start of the game, chance draws included."""
    sa, sb = Game(a, n, params).new_initial_state(), Game(b, n, params).new_initial_state()
    try:
        for step, act in enumerate(actions, start=1):
            if sa.is_terminal() or sb.is_terminal():
                if sa.is_terminal() != sb.is_terminal():
                    ended, going = (names[0], names[1]) if sa.is_terminal() else (names[1], names[0])
                    return f"after decision {step - 1} the game is over under '{ended}' but goes on under '{going}'"
                return None
            if _asks(sa) != _asks(sb):
                return f"at decision {step} the game asks for {_asks(sa)} under '{names[0]}' but {_asks(sb)} under '{names[1]}'"
            if sa.is_chance_node():
                ca = sorted(x for x, _ in sa.chance_outcomes())
                cb = sorted(x for x, _ in sb.chance_outcomes())
                if ca != cb:
                    return (f"at decision {step} the draw can give {_options(sa, -1, ca)} under '{names[0]}' "
                            f"but {_options(sb, -1, cb)} under '{names[1]}'")
            else:
                who = range(n) if sa.is_simultaneous_node() else [sa.current_player()]
                for q in who:
                    la, lb = sa.legal_actions(q), sb.legal_actions(q)
                    if la != lb:
                        return (f"at decision {step}, {player_name(q)} may choose "
                                f"{_options(sa, q, la)} under '{names[0]}' but {_options(sb, q, lb)} under '{names[1]}'")
            for s in (sa, sb):
                apply(s, act)
    except (RuleError, ValueError):
        return None
    return None


@dataclass
class SeenDifference:
    """Where the same game shows a player different things under two readings."""

    step: int  # decisions applied before it (chance draws counted)
    player: int
    text: str
    observations: tuple[str, str]  # the player's view of the table under each reading


def first_seen_difference(a: ir.Program, b: ir.Program, n: int, actions: list[Any], names: tuple[str, str],
                          params: dict[str, Any] | None = None) -> SeenDifference | None:
    """The first point of a game, played alike under two readings, where a player has seen the
    face of a component under one reading and never under the other (what a player once saw, the
    player knows: a card turned face down after its owner held it is no news). Only while both
    readings offer the same moves: past that the games differ anyway (``first_difference``)."""
    sa, sb = Game(a, n, params).new_initial_state(), Game(b, n, params).new_initial_state()
    rules = a.rules
    known: list[list[set[int]]] = [[set() for _ in range(n)], [set() for _ in range(n)]]
    try:
        for step in range(len(actions) + 1):
            for q in range(n):
                views = seen(sa.machine, q), seen(sb.machine, q)
                for side in (0, 1):
                    known[side][q].update(views[side])
                news = [views[0].keys() - known[1][q], views[1].keys() - known[0][q]]
                if news[0] or news[1]:
                    when = "at the start of the game" if step == 0 else f"after decision {step}"
                    pieces = [f"{_faces(rules, views[side], news[side])} under '{names[side]}', never under '{names[1 - side]}'"
                              for side in (0, 1) if news[side]]
                    text = f"{when}, {player_name(q)} sees " + "; and ".join(pieces)
                    return SeenDifference(step, q, text, (observation(sa.machine, q), observation(sb.machine, q)))
            if step == len(actions) or sa.is_terminal() or sb.is_terminal() or _asks(sa) != _asks(sb):
                return None
            act = actions[step]
            if not _same_moves(sa, sb, n):
                return None
            for s in (sa, sb):
                apply(s, act)
    except (RuleError, ValueError):
        return None
    return None


def first_state_difference(a: ir.Program, b: ir.Program, n: int, actions: tuple[list[Any], list[Any]], names: tuple[str, str],
                           params: dict[str, Any] | None = None) -> str | None:
    """Where two readings' games, the same moves so far, first leave the table in different
    states: the decision, and the components and variables that differ, in words. A random-play
    witness is a whole game; this is the place in it to look at."""
    sa, sb = Game(a, n, params).new_initial_state(), Game(b, n, params).new_initial_state()
    rules = a.rules
    try:
        for step in range(min(len(actions[0]), len(actions[1])) + 1):
            wa, wb = seen(sa.machine, None), seen(sb.machine, None)
            moved = [c for c in sorted(wa) if wa[c] != wb.get(c)]
            changed = [v for v in rules.vars.values() if sa.machine.vars[v.name] != sb.machine.vars[v.name]]
            if moved or changed:
                parts = [f"{rules.components[c].display} is in '{wa[c]}' under '{names[0]}', in '{wb[c]}' under '{names[1]}'"
                         for c in moved[:3]]
                for v in changed[:3]:
                    xa, xb = sa.machine.vars[v.name], sb.machine.vars[v.name]
                    if v.index is None:
                        parts.append(f"'{v.name}' is {show(xa, v.type, rules)} under '{names[0]}', {show(xb, v.type, rules)} under '{names[1]}'")
                    else:
                        i = next(k for k in xa if xa[k] != xb[k])
                        parts.append(f"'{v.name}[{show(i, v.index, rules)}]' is {show(xa[i], v.type, rules)} under '{names[0]}', "
                                     f"{show(xb[i], v.type, rules)} under '{names[1]}'")
                more = len(moved) + len(changed) - len(parts)
                return (f"after decision {step}, " + "; ".join(parts)) + (f" (and {more} more)" if more > 0 else "")
            if step == min(len(actions[0]), len(actions[1])) or actions[0][step] != actions[1][step]:
                return None
            for s in (sa, sb):
                apply(s, actions[0][step])
    except (RuleError, ValueError):
        return None
    return None


def _same_moves(sa: State, sb: State, n: int) -> bool:
    """Do two states waiting for the same kind of decision offer the same draws or moves?"""
    if sa.is_chance_node():
        return sorted(x for x, _ in sa.chance_outcomes()) == sorted(x for x, _ in sb.chance_outcomes())
    who = range(n) if sa.is_simultaneous_node() else [sa.current_player()]
    return all(sa.legal_actions(q) == sb.legal_actions(q) for q in who)


def _faces(rules: ir.Ruleset, where: dict[int, str], comps: Any) -> str:
    """Components with the zones they lie in: "a, b (in 'x')"."""
    by_zone: dict[str, list[str]] = {}
    for c in sorted(comps):
        by_zone.setdefault(where[c], []).append(rules.components[c].display)
    return "; ".join(f"{', '.join(names)} (in '{z}')" for z, names in sorted(by_zone.items()))


def _options(state: State, player: int, actions: list[int]) -> str:
    words = [state.action_to_string(player, a) for a in actions]
    return "{" + ", ".join(words) + "}" if words else "nothing"
