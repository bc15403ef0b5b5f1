"""Witnesses: a solver model turned into games a person can set up at a table, replayed through
the reference interpreter (which also tells the story) and through the generated engine."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from rulecheck.codegen.playout import apply
from rulecheck.dsl import ir
from rulecheck.dsl.coupling import Coupled
from rulecheck.dsl.values import player_name, show
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game, State, observation, seen

from . import terms as tm
from .findings import Play, Position
from .symvalues import Trace, decision_value


@dataclass
class Replay:
    actions: list[Any]
    log: list[str]
    setup: list[str]
    winners: list[int] | None
    error: str | None
    legal: bool
    scores: dict[str, list[int]] | None = None  # each score variable's final values, by seat
    draw: bool = False  # the game ended in a draw
    stop_kind: str | None = None  # the kind of the rules' error that stopped the game ("range", ...)


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
        return Replay(actions, log, setup, sorted(w) if w is not None else None, None, True, scores, state.machine.draw)
    except RuleError as err:
        st = err.state if err.state is not None else state
        log = st.machine.log if st is not None else []
        return Replay(actions, log, setup, None, f"{err.kind}: {err.message} (line {err.span.line})", True, stop_kind=err.kind)
    except ValueError as err:
        return Replay(actions, state.machine.log if state else [], setup, None, f"illegal move: {err}", False)


#: A witness whose plays make at most this many moves after their common position is short
#: enough to lay out at a table; longer ones say why (Position.note).
FEW_MOVES = 10


def _node(state: State) -> tuple[Any, ...]:
    """What a state waits for: the kind of decision, who takes it, what about, with which options."""
    p = state.pending
    if p is None:
        return ("over",)
    return (p.kind, p.player, p.label, tuple(p.options), tuple(sorted((q, tuple(o)) for q, o in p.per_player.items())))


def _table(state: State, empty: bool = False) -> list[list[str]]:
    """[place, what it holds] for each place that holds something (``empty``: every place)."""
    rows = []
    for line in observation(state.machine, None).splitlines():
        head, _, rest = line.partition(": ")
        if rest and (empty or rest != "empty"):
            rows.append([head, rest])
    return rows


def _moves_part(sa: State, sb: State, n: int) -> bool:
    """Do the two states offer different moves now (the rule of first_difference: a decision with
    one option is no choice)?"""
    if sa.is_terminal() or sb.is_terminal():
        return sa.is_terminal() != sb.is_terminal()
    if not _same_node(sa, sb):
        return forced(sa, n) is None or forced(sb, n) is None
    if sa.is_chance_node():
        return sorted(x for x, _ in sa.chance_outcomes()) != sorted(x for x, _ in sb.chance_outcomes())
    who = range(n) if sa.is_simultaneous_node() else [sa.current_player()]
    return any(sa.legal_actions(q) != sb.legal_actions(q) and (len(sa.legal_actions(q)) > 1 or len(sb.legal_actions(q)) > 1)
               for q in who)


def position(programs: list[ir.Program], n: int, plays: list[list[Any]], params: dict[str, Any] | None = None,
             at_parting: bool = False) -> Position | None:
    """The table a person lays out to see a witness: the latest point before the plays part (the
    first decision where they offer different moves, or where their moves differ) at which both
    tables are the same, when that is at most a few moves before the parting; otherwise the parting
    itself, the other plays' differences listed. ``at_parting``: the witness is the parting itself
    (different moves or views), so no move after it is shown. None when a play does not replay."""
    try:
        states = [Game(p, n, params).new_initial_state(log=True) for p in programs]
    except RuleError:
        return None
    history: list[list[State]] = []  # the states after each common action (clones)
    k = 0
    try:
        while True:
            history.append([st.clone() for st in states])
            if any(st.is_terminal() for st in states) or any(len(a) <= k for a in plays) or len({repr(a[k]) for a in plays}) > 1:
                break
            if any(_moves_part(states[0], st, n) for st in states[1:]):
                break
            for st, a in zip(states, plays):
                apply(st, a[k])
            k += 1
    except (RuleError, ValueError):
        pass  # the point before the failing action is the last one both share
    parting = len(history) - 1

    def same_table(i: int) -> bool:
        return len({observation(st.machine, None) for st in history[i]}) == 1

    # a position before the end: the last decision, not the table the end has already changed
    while parting > 0 and any(st.is_terminal() for st in history[parting]):
        parting -= 1
    at = parting
    if not same_table(parting):
        equal = next((i for i in range(parting, -1, -1) if same_table(i)), None)
        if equal is not None and parting - equal <= FEW_MOVES:
            at = equal
    here = history[at]
    first = here[0]
    table = _tables(here, ["the other reading"] * (len(here) - 1), "under")
    marks = [len(st.machine.log) for st in here]
    ends = [len(st.machine.log) for st in history[parting]] if at_parting else None
    draws = _draws(programs[0], n, plays[0], at, params, parting if at_parting else None)
    cards = _assumed_cards(first)
    longest = (parting - at) if at_parting else max(len(a) - at for a in plays)
    pos = Position(at, table, draws, cards, marks, longest)
    if ends is not None:
        pos.ends = ends
    return pos


def _tables(states: list[State], others: list[str], word: str) -> list[list[str]]:
    """The first state's table, then each place where another state's table differs from it
    ("hand under the other reading", "hand in <edition>")."""
    table = _table(states[0])
    mine = {row[0]: row[1] for row in table}
    for st, label in zip(states[1:], others):
        other = {row[0]: row[1] for row in _table(st)}
        places = {row[0] for row in _table(st, empty=True)}  # another edition may have no such place
        for place in sorted(set(other) | set(mine)):
            if other.get(place) != mine.get(place):
                table.append([f"{place} {word} {label}", other.get(place, "empty" if place in places else "no such place")])
    return table


def _replayed_to(program: ir.Program, n: int, actions: list[Any], k: int, params: dict[str, Any] | None) -> State:
    state = Game(program, n, params).new_initial_state(log=True)
    for act in actions[:k]:
        apply(state, act)
    return state


def paired_position(programs: list[ir.Program], n: int, plays: list[list[Any]], at: list[int], upto: list[int],
                    labels: list[str]) -> Position | None:
    """The table where plays whose moves do not correspond one to one (two editions of a game, one
    of which asks a decision the other does not) part: ``at[i]`` actions into play i. The first
    play's table, then each place that differs in another (``labels``: the others' names); the
    moves shown after it end ``upto[i]`` actions in. None when a play does not replay to that point."""
    try:
        states = [_replayed_to(p, n, a, k, None) for p, a, k in zip(programs, plays, at)]
        ends = [len(_replayed_to(p, n, a, u, None).machine.log) for p, a, u in zip(programs, plays, upto)]
    except (RuleError, ValueError):
        return None
    return Position(at[0], _tables(states, labels, "in"), _draws(programs[0], n, plays[0], at[0], None, upto[0]), _assumed_cards(states[0]),
                    [len(st.machine.log) for st in states], max(u - k for u, k in zip(upto, at)), ends=ends, where="editions")


def deal_position(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> Position | None:
    """The table after the deal of a one-play witness (a game that breaks a rule, a loop that
    repeats): the moves that show it are all the moves after the deal."""
    try:
        state = Game(program, n, params).new_initial_state(log=True)
        k = 0
        while k < len(actions) and state.is_chance_node():
            apply(state, actions[k])
            k += 1
    except (RuleError, ValueError):
        return None
    return Position(k, _table(state), _draws(program, n, actions, k, params), _assumed_cards(state), [len(state.machine.log)],
                    len(actions) - k, where="deal")


#: A one-play witness longer than this after its deal is shown from a late position instead
#: (late_position): the table a few moves before what it shows.
LONG_AFTER_DEAL = 3 * FEW_MOVES


def one_play_position(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> Position | None:
    """The position of a one-play witness: after the deal, or, when the game is long after it
    (a random game of hundreds of moves), a few moves before its end."""
    pos = deal_position(program, n, actions, params)
    if pos is None or pos.longest <= LONG_AFTER_DEAL:
        return pos
    return late_position(program, n, actions, params) or pos


def late_position(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> Position | None:
    """The table at the last decision that leaves at least FEW_MOVES moves to the end of a
    one-play witness: a person lays it out and plays those moves to see what the witness shows;
    the moves that reach it are in the findings file, for replay.  None when the game does not
    replay or has no such decision after its deal."""
    try:
        game = Game(program, n, params)
        state = game.new_initial_state()
        k_at = None
        for k, act in enumerate(actions[:len(actions) - FEW_MOVES + 1]):
            if not state.is_chance_node() and not state.is_terminal():
                k_at = k
            apply(state, act)
        if k_at is None:
            return None
        state = _replayed_to(program, n, actions, k_at, params)  # again, to the decision found, with the log
    except (RuleError, ValueError):
        return None
    return Position(k_at, _table(state), _draws(program, n, actions, k_at, params), _assumed_cards(state), [len(state.machine.log)],
                    len(actions) - k_at, where="late")


#: Draws listed per zone in a position; the rest are counted (the actions give them all).
DRAWS_LISTED = 30


def _draws(program: ir.Program, n: int, actions: list[Any], k: int, params: dict[str, Any] | None,
           upto: int | None = None) -> list[list[str]]:
    """The components chance draws after action k (up to action ``upto``: the moves a witness
    shows), zone by zone, in the order they are drawn; past DRAWS_LISTED in a zone, how many more."""
    rules = program.rules
    out: dict[str, list[str]] = {}
    try:
        state = Game(program, n, params).new_initial_state()
        for i, a in enumerate(actions[:upto]):
            if i >= k and state.is_chance_node():
                p = state.pending
                if p is not None and isinstance(p.stmt, ir.Observe):
                    # a perception's error, not a draw: "off by k" under its label
                    label, _, what = state.action_to_string(state.current_player(), a).partition(": ")
                    out.setdefault(label, []).append(what)
                else:
                    zone = state.decision_label().removeprefix("draw from ")
                    out.setdefault(zone, []).append(rules.components[a].display)
            apply(state, a)
    except (RuleError, ValueError):
        pass
    return [[zone, ", ".join(names[:DRAWS_LISTED]) + (f", … ({len(names) - DRAWS_LISTED} more)" if len(names) > DRAWS_LISTED else "")]
            for zone, names in out.items()]


def _assumed_cards(state: State) -> list[list[str]]:
    """The components in view (not in a zone nobody sees) whose kind has data the ruleset assumes
    or leaves unspecified, each with those values: they decide games and may not be the printed ones."""
    m = state.machine
    rules = m.rules
    out: list[tuple[int, list[str]]] = []
    for z in rules.zones.values():
        if z.visibility == "hidden":
            continue
        for idx in m.zone_indexes(z):
            for cid in sorted(m.contents[(z.name, idx)]):
                comp = rules.components[cid]
                kind = rules.kinds[comp.kind]
                assumed = [a for a, pv in kind.provenance.items() if pv.kind != "given"]
                if assumed:
                    values = m.attr_values[cid]
                    out.append((cid, [comp.display, "; ".join(f"{a} {show(values[a], kind.attrs[a], rules)}" for a in assumed)]))
    return [row for _, row in sorted(out, key=lambda x: x[0])]  # in table order


def table_situation(state: State) -> list[str]:
    """What is on the table before the first player decision: every zone that holds something."""
    lines = []
    for line in str(state).splitlines():
        head, _, rest = line.partition(": ")
        if rest and rest != "empty" and not rest.endswith(" hidden"):
            lines.append(f"{head}: {rest}")
    return lines


def replay_engine(module: types.ModuleType, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> tuple[list[int] | None, str | None]:
    """Play the actions in a generated engine: (winners, error); a draw is the winners [-1]."""
    try:
        state = module.load_game({"players": n, **(params or {})}).new_initial_state()
        for a in actions:
            if state.is_terminal():
                return None, "the game ended before the witness did"
            apply(state, a)
        if not state.is_terminal():
            return None, UNFINISHED
        return ([-1] if state.is_draw() else list(state.winners())), None
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
        if len(r.actions) < CONTINUE_MOVES:  # shown as far as what it shows (a broken invariant)
            return "the game goes on; the witness stops here"
        return f"the game goes on: no end within {CONTINUE_MOVES:,} moves"
    if r.error is not None:
        return f"the rules stop: {r.error}"
    if r.winners is None:
        return "no result"
    if r.draw:
        return "a draw"
    if not r.winners:
        return "nobody wins"
    names = ", ".join(player_name(q) for q in r.winners)
    return f"{names} win{'s' if len(r.winners) == 1 else ''}"


#: replay_result of a game the rules stop
STOPPED = ("stopped",)

#: The kinds of the rules' errors that are a result of the game, as the rulebook would have it: no
#: rule says what to do (an "as written" reading that stops play), two rules contradict each
#: other, a supply runs out. A number that leaves its declared range may only have met the model's
#: own bound (a round counter's), so such a stop shows no result of the rules.
RULE_STOPS = frozenset({"incomplete", "conflict", "exhaustion"})


def replay_result(r: Replay) -> tuple[Any, ...] | None:
    """What a replayed game came to, to compare two readings' games: its winners and whether it
    was a draw, or that the rules stopped it (RULE_STOPS: a stop is one result, as in simulate and
    in the solver's comparison); None where the replay shows no result (an illegal move, no end,
    a number past its declared range)."""
    if not r.legal:
        return None
    if r.error is not None:
        return STOPPED if r.stop_kind in RULE_STOPS else None
    return None if r.winners is None else (tuple(r.winners), r.draw)


def make_play(label: str, readings: dict[str, str], r: Replay, engine: tuple[list[int] | None, str | None] | None) -> Play:
    replayed = False
    if engine is not None:
        winners, error = engine
        replayed = (error is None) == (r.error is None) and (error is not None or winners == ([-1] if r.draw else r.winners))
    return Play(label, dict(sorted(readings.items())), r.actions, r.log, outcome_text(r), r.winners, replayed)


def random_game(program: ir.Program, n: int, seed: int, params: dict[str, Any] | None = None, max_moves: int = 10_000,
                covered: set[str] | None = None, engine: types.ModuleType | None = None) -> list[Any]:
    """The actions of one game between uniformly random players (chance uniform too), up to the
    point where the game ends or the rules stop; ``covered`` receives the rules that applied.
    With ``engine`` (the program's generated engine) and no ``covered``, the game is played there:
    the same game move for move (the engines equal the interpreter, tests/test_verify_witnesses.py
    checks these games too), a hundred times faster on a long one."""
    if engine is not None and covered is None:
        return engine_random_game(engine, n, seed, params, max_moves)
    return continue_game(program, n, [], params, seed, max_moves, covered)


def engine_random_game(module: types.ModuleType, n: int, seed: int, params: dict[str, Any] | None = None,
                       max_moves: int = 10_000) -> list[Any]:
    """continue_game with no actions given, on a generated engine: the coupled random player of
    simulate (codegen/playout.play) up to the end, the rules' stop or ``max_moves``. play records
    the move the rules stop at, as continue_game does: the replay stops at it with the same error."""
    from rulecheck.codegen.playout import play

    record: list[Any] = []
    play(module.load_game({"players": n, **(params or {})}), module.RuleError, seed, max_moves, record)
    return record


def model_of_actions(trace: Trace, actions: list[Any]) -> dict[str, bool | int]:
    """The inverse of ``actions_of``: the decision variables of the trace that describe a concrete
    game (models_of_actions of one game)."""
    return models_of_actions(trace, [actions])[0]


def models_of_actions(trace: Trace, games: list[list[Any]]) -> list[dict[str, bool | int]]:
    """model_of_actions of several games at once. Decisions come in game order, so each one's
    ``active`` only needs earlier choices, all made by then: one evaluator of every game at once
    (tm.Evaluators, a bit a game) serves them all, each term evaluated once for all the games
    (later choices are in no term it has seen)."""
    models: list[dict[str, bool | int]] = [{} for _ in games]
    active = tm.Evaluators(models)
    queues = [list(actions) for actions in games]
    joints: list[list[int] | None] = [None] * len(games)
    nodes = [-1] * len(games)
    going = set(range(len(games)))  # the games whose actions still match the trace's decisions
    for d in trace.decisions:
        if not going:
            break
        mask = active.mask(d.active)
        for g in sorted(going):
            queue = queues[g]
            if d.kind != "simultaneous" or d.node != nodes[g]:
                joints[g] = None
            if not mask >> g & 1:
                continue
            if d.kind == "simultaneous":
                joint = joints[g]
                if joint is None:
                    if not queue or not isinstance(queue[0], list):
                        going.discard(g)
                        continue
                    joint = joints[g] = queue.pop(0)
                    nodes[g] = d.node
                chosen = {joint[int(d.player)]} if isinstance(d.player, int) else set()
            else:
                take = d.count if d.kind == "deal" else 1
                if len(queue) < take or any(isinstance(a, list) for a in queue[:take]):
                    going.discard(g)
                    continue
                chosen = set(queue[:take])
                del queue[:take]
            for k in d.sel:
                models[g][f"d|{d.key}|{k}"] = k in chosen
    return models


#: Moves after which a game continued with random moves is cut (a game that may go on for ever).
CONTINUE_MOVES = 10_000
#: What a replay says of a game whose actions run out before its end.
UNFINISHED = "the witness stops before the game ends"


def continue_game(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None, seed: int = 0,
                  max_moves: int = CONTINUE_MOVES, covered: set[str] | None = None) -> list[Any]:
    """The actions as far as the game allows them, then random legal moves to the end: the other
    reading's side of a witness whose readings part at some decision."""
    pick = Coupled(seed)
    out: list[Any] = []
    queue = list(actions)
    try:
        # inside the try: rules that stop before the first decision stop the game at once
        state = State(Game(program, n, params), covered=covered)
        while not state.is_terminal() and len(out) < max_moves:
            a: Any = queue.pop(0) if queue else None
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                a = a if isinstance(a, int) and a in [x for x, _ in outcomes] else pick.chance(state.decision_label(), outcomes)
            elif state.is_simultaneous_node():
                options = [state.legal_actions(q) for q in range(n)]
                if not (isinstance(a, list) and all(x in o for x, o in zip(a, options))):
                    label = state.decision_label()
                    a, queue = [pick.choose(q, label, o) for q, o in enumerate(options)], []
            else:
                legal = state.legal_actions()
                if not (isinstance(a, int) and a in legal):
                    a, queue = pick.choose(state.current_player(), state.decision_label(), legal), []
            # recorded first: a move the rules stop at is part of the game, its replay stops there too
            out.append(a)
            apply(state, a)
    except RuleError:
        pass
    return out


def finish_short_draw(program: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None) -> list[Any]:
    """The actions, and where they stop at a draw of more cards than its zone holds, the cards
    there are. The engines draw those and then stop (an exhaustion error); the symbolic executor
    records the failure at the draw itself, so the solver's game has no action for them. Unchanged
    unless the draw fails so: anything else is the replay's to report."""
    out = list(actions)
    try:
        state = State(Game(program, n, params))
        for a in actions:
            apply(state, a)
        draw = state.pending.stmt if state.pending is not None and state.is_chance_node() else None
        if not isinstance(draw, ir.Draw):
            return actions
        for _ in range(len(program.rules.components)):
            if state.is_terminal() or not state.is_chance_node() or state.pending is None or state.pending.stmt is not draw:
                break
            a = min(x for x, _ in state.chance_outcomes())
            out.append(a)
            state.apply_action(a)
    except RuleError as err:
        return out if err.kind == "exhaustion" and len(out) > len(actions) else actions
    except ValueError:
        pass
    return actions


def forced(state: State, n: int) -> Any | None:
    """The one move a decision allows, when it allows one (a choice with a single option, or a
    simultaneous node where every seat has a single one, passing included): no choice at all.
    None at a chance node, at the end, or where someone has a choice."""
    if state.is_terminal() or state.is_chance_node():
        return None
    if state.is_simultaneous_node():
        options = [state.legal_actions(q) for q in range(n)]
        return [o[0] for o in options] if all(len(o) == 1 for o in options) else None
    legal = state.legal_actions()
    return legal[0] if len(legal) == 1 else None


def _same_node(sa: State, sb: State) -> bool:
    pa, pb = sa.pending, sb.pending
    if pa is None or pb is None:
        return pa is pb
    return (pa.kind, pa.player if pa.kind == "player" else -1, pa.label) == (pb.kind, pb.player if pb.kind == "player" else -1, pb.label)


def _mapped(sa: State, sb: State, act: Any, n: int) -> Any | None:
    """The other reading's move for the same choices at the same decision: each seat as in
    ``act`` where that is legal there, a seat with a single option takes it; None where a choice
    is not legal there (the games part)."""
    if isinstance(act, list):
        joint = []
        for q in range(n):
            options = sb.legal_actions(q)
            if len(options) == 1:
                joint.append(options[0])
            elif act[q] in options:
                joint.append(act[q])
            else:
                return None
        return joint
    legal = [x for x, _ in sb.chance_outcomes()] if sb.is_chance_node() else sb.legal_actions()
    if act in legal:
        return act
    return legal[0] if len(legal) == 1 and not sb.is_chance_node() else None


def follow(program: ir.Program, source: ir.Program, n: int, actions: list[Any], params: dict[str, Any] | None = None,
           seed: int = 0, max_moves: int = 10_000) -> list[Any]:
    """One reading's side of a game played under another (``source``, with ``actions``): the same
    choices at the same decisions for as long as this reading allows them, its forced moves made
    where it has them and the source's skipped where only the source has them; from where the
    games part, coupled random moves (dsl/coupling.py) to the end."""
    pick = Coupled(seed)
    out: list[Any] = []
    queue = list(actions)
    parted = False
    moving: Any = None  # this reading's move being applied: where the rules stop, it is part of the game
    try:
        # inside the try: rules that stop before the first decision stop the game at once
        sa, sb = State(Game(source, n, params)), State(Game(program, n, params))
        while not sb.is_terminal() and len(out) < max_moves:
            move: Any = None
            if not parted and queue and not sa.is_terminal():
                if _same_node(sa, sb):
                    move = _mapped(sa, sb, queue[0], n)
                    if move is not None:
                        apply(sa, queue.pop(0))
                elif forced(sa, n) is not None:
                    apply(sa, queue.pop(0))  # a move only the source makes, and it is no choice
                    continue
                else:
                    move = forced(sb, n)  # one only this reading makes, no choice either
            if move is None:
                parted = True
                move = _random_move(sb, n, pick)
            moving = move
            apply(sb, move)
            out.append(move)
            moving = None
    except RuleError:
        if moving is not None:  # its replay stops at the same move, with the same rule error
            out.append(moving)
    except ValueError:
        pass
    return out


def _random_move(state: State, n: int, pick: Coupled) -> Any:
    label = state.decision_label()
    if state.is_chance_node():
        return pick.chance(label, state.chance_outcomes())
    if state.is_simultaneous_node():
        return [pick.choose(q, label, state.legal_actions(q)) for q in range(n)]
    return pick.choose(state.current_player(), label, state.legal_actions())


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
    """Where the same history first offers different moves under two readings, in words: a choice
    one reading offers and the other does not, or other options at the same decision (a decision
    with one option is no choice: a forced move one reading has and the other has not is made and
    passed). Decisions are counted from the start of the game, chance draws included, as the
    first reading makes them."""
    sa, sb = Game(a, n, params).new_initial_state(), Game(b, n, params).new_initial_state()
    queue = list(actions)
    step = 0
    try:
        while queue:
            if sa.is_terminal() or sb.is_terminal():
                going = sb if sa.is_terminal() else sa
                if not going.is_terminal() and forced(going, n) is not None:
                    apply(going, forced(going, n))
                    continue
                if sa.is_terminal() != sb.is_terminal():
                    ended, on = (names[0], names[1]) if sa.is_terminal() else (names[1], names[0])
                    return f"after decision {step} the game is over under '{ended}' but goes on under '{on}'"
                return None
            if not _same_node(sa, sb):
                if forced(sa, n) is not None:
                    apply(sa, queue.pop(0))
                    step += 1
                    continue
                if forced(sb, n) is not None:
                    apply(sb, forced(sb, n))
                    continue
                return f"at decision {step + 1} the game asks for {_asks(sa)} under '{names[0]}' but {_asks(sb)} under '{names[1]}'"
            if sa.is_chance_node():
                ca = sorted(x for x, _ in sa.chance_outcomes())
                cb = sorted(x for x, _ in sb.chance_outcomes())
                if ca != cb:
                    return (f"at decision {step + 1} the draw can give {_options(sa, -1, ca)} under '{names[0]}' "
                            f"but {_options(sb, -1, cb)} under '{names[1]}'")
            else:
                who = range(n) if sa.is_simultaneous_node() else [sa.current_player()]
                for q in who:
                    la, lb = sa.legal_actions(q), sb.legal_actions(q)
                    if la != lb and (len(la) > 1 or len(lb) > 1):
                        return (f"at decision {step + 1}, {player_name(q)} may choose "
                                f"{_options(sa, q, la)} under '{names[0]}' but {_options(sb, q, lb)} under '{names[1]}'")
            act = queue.pop(0)
            other = _mapped(sa, sb, act, n)
            if other is None:
                return None
            apply(sa, act)
            apply(sb, other)
            step += 1
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
