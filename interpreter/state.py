"""OpenSpiel-style game and state objects over the reference semantics.

The method names are OpenSpiel's (current_player, legal_actions, chance_outcomes, apply_action,
apply_actions, returns, observation_string, information_state_string, clone, ...), so the
differential tests can drive the interpreter and a generated engine with the same code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import TPlayer
from rulecheck.dsl.values import drawn_names, num_distinct_actions, player_name, show

from .machine import Machine
from .semantics import Pending, RuleError

CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4


class Game:
    def __init__(self, program: ir.Program, num_players: int, params: dict[str, ir.Value] | None = None) -> None:
        self.program = program
        self.rules = program.rules
        self._n = num_players
        self.params = dict(params or {})
        m = Machine(program, num_players, self.params)  # validates the player count and parameters
        self._actions = num_distinct_actions(self.rules, m.params)

    def num_players(self) -> int:
        return self._n

    def num_distinct_actions(self) -> int:
        return self._actions

    @property
    def pass_action(self) -> int:
        return self._actions - 1

    def new_initial_state(self, log: bool = False) -> State:
        return State(self, log)


class State:
    def __init__(self, game: Game, log: bool = False, covered: set[str] | None = None,
                 heads: dict[int, list[Any]] | None = None, exits: dict[int, list[Any]] | None = None) -> None:
        self.game = game
        self.machine = Machine(game.program, game.num_players(), game.params, log=log, covered=covered, heads=heads, exits=exits)
        self._gen: Generator[Pending, Any, None] = self.machine.run()
        self.pending: Pending | None = None
        self._history: list[int | tuple[int, ...]] = []
        self._advance(None, first=True)

    # ---- driving the generator --------------------------------------------------------------

    def _advance(self, value: Any, first: bool = False) -> None:
        try:
            self.pending = next(self._gen) if first else self._gen.send(value)
        except StopIteration:
            self.pending = None
        except RuleError as err:
            self.pending = None
            self.machine.error = err
            err.state = self  # the game as far as it got, with its log, for whoever reports the error
            raise

    # ---- OpenSpiel API ----------------------------------------------------------------------

    def current_player(self) -> int:
        p = self.pending
        if p is None:
            return TERMINAL
        if p.kind == "chance":
            return CHANCE
        if p.kind == "simultaneous":
            return SIMULTANEOUS
        return p.player

    def is_terminal(self) -> bool:
        return self.pending is None

    def is_chance_node(self) -> bool:
        return self.pending is not None and self.pending.kind == "chance"

    def is_simultaneous_node(self) -> bool:
        return self.pending is not None and self.pending.kind == "simultaneous"

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self.pending
        if p is None:
            return []
        if p.kind == "chance":
            return list(p.options)
        if p.kind == "simultaneous":
            if player is None:
                raise ValueError("at a simultaneous node, ask legal_actions(player)")
            return list(p.per_player.get(player, [self.game.pass_action]))
        if player is not None and player != p.player:
            return []
        return list(p.options)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = self.pending
        if p is None or p.kind != "chance":
            return []
        prob = 1.0 / len(p.options)
        return [(a, prob) for a in p.options]

    def apply_action(self, action: int) -> None:
        p = self.pending
        if p is None:
            raise ValueError("the game is over")
        if p.kind == "simultaneous":
            raise ValueError("at a simultaneous node, use apply_actions")
        if action not in p.options:
            raise ValueError(f"illegal action {action}")
        self._history.append(action)
        self.machine.percepts = []  # what was learnt is shown until the next decision
        self._advance(action)

    def apply_actions(self, actions: list[int]) -> None:
        p = self.pending
        if p is None or p.kind != "simultaneous":
            raise ValueError("apply_actions is for simultaneous nodes")
        if len(actions) != self.game.num_players():
            raise ValueError(f"expected {self.game.num_players()} actions")
        for q in range(self.game.num_players()):
            if actions[q] not in self.legal_actions(q):
                raise ValueError(f"illegal action {actions[q]} for {player_name(q)}")
        self._history.append(tuple(actions))
        self.machine.percepts = []
        self._advance(list(actions))

    def decision_label(self) -> str:
        """What the node decides (ir.decision_label): "" when the game is over."""
        return self.pending.label if self.pending is not None else ""

    def action_to_string(self, player: int, action: int) -> str:
        p = self.pending
        if p is None:
            return str(action)
        return describe_action(self.game.rules, p, player, action, self.game.pass_action)

    def pending_question(self) -> tuple[str, tuple[Any, ...]] | None:
        """At an answer (``ask``): the question and its arguments; None elsewhere."""
        p = self.pending
        if p is None or p.question is None:
            return None
        return p.question, p.args

    def answers(self) -> list[tuple[str, int, tuple[Any, ...], Any, bool]]:
        """The statements made so far: (question, speaker, arguments, answer, whether it was true).
        Whether an answer was true is hidden information: no view shows it."""
        return [(a.question, a.speaker, a.args, int(a.value), a.true) for a in self.machine.answers]

    def target_value(self, name: str) -> Any:
        """The value of the ruleset's target ``name`` now (full information, not a player's view)."""
        t = next(t for t in self.game.rules.targets if t.name == name)
        return self.machine.call(t.part(name), [], t.span)

    def returns(self) -> list[float]:
        """Each player's return at the end (the game's ``returns``: ir.RETURNS); 0 before the end
        and where the rules stopped the game."""
        m = self.machine
        n = self.game.num_players()
        if m.winners is None:
            return [0.0] * n
        mode = ir.RETURNS[self.game.rules.game.returns]
        if mode is None:  # each player's score
            (score,) = [v for v in self.game.rules.vars.values() if v.score]
            return [float(m.vars[score.name][q]) for q in range(n)]
        win, lose, draw = mode
        if m.draw:
            return [draw] * n
        return [win if q in m.winners else lose for q in range(n)]

    def winners(self) -> list[int]:
        """The players who won (share the victory), in seat order; none in a draw or before the end."""
        return sorted(self.machine.winners or ())

    def is_draw(self) -> bool:
        return self.machine.draw

    def turns(self) -> int:
        """Turns begun so far: calls of the procedure the game names with ``turn`` (0 without)."""
        return self.machine.turns

    def observation_string(self, player: int) -> str:
        return observation(self.machine, player)

    def information_state_string(self, player: int) -> str:
        return information_state(self.game, self._history, player)

    def history(self) -> list[int | tuple[int, ...]]:
        return list(self._history)

    def clone(self) -> State:
        return replay(self.game, self._history, self.machine.logging)

    def __str__(self) -> str:
        return observation(self.machine, None)


def replay(game: Game, history: list[int | tuple[int, ...]], log: bool = False) -> State:
    s = State(game, log)
    for step in history:
        if isinstance(step, tuple):
            s.apply_actions(list(step))
        else:
            s.apply_action(step)
    return s


def describe_action(rules: ir.Ruleset, p: Pending, player: int, action: int, pass_action: int) -> str:
    if p.kind == "chance" and isinstance(p.stmt, ir.Observe):
        return f"{p.label}: off by {action - p.stmt.amount:+d}"
    if p.kind == "chance":
        return f"draw {drawn_names(rules)[action]}"
    if p.kind == "simultaneous" and action == pass_action and player not in p.per_player:
        return "pass"
    assert p.type is not None
    value: Any = bool(action) if p.type.show() == "bool" else action
    return f"{p.label}: {show(value, p.type, rules)}"


def _sees(z: ir.ZoneInfo, idx: Any, player: int | None, params: dict[str, Any]) -> bool:
    """Does a player see the faces of a zone's components (``player`` None: everything)?"""
    vis = ir.visibility_in(z, params)
    return player is None or vis == "public" or (vis == "owner" and idx == player)


def seen(m: Machine, player: int | None) -> dict[int, str]:
    """The components whose faces a player sees at the table now or remembers where they lie
    (``reveal``), each with its zone's label (``player`` None: every component)."""
    known = m.known[player] if player is not None else set()
    return {c: m.zone_label((z.name, idx)) for z in m.rules.zones.values() for idx in m.zone_indexes(z)
            for c in m.contents[(z.name, idx)] if _sees(z, idx, player, m.params) or c in known}


def observation(m: Machine, player: int | None) -> str:
    """What a player sees at the table now (``player`` None: everything, for debugging)."""
    rules = m.rules
    lines: list[str] = []
    for z in rules.zones.values():
        for idx in m.zone_indexes(z):
            items = sorted(m.contents[(z.name, idx)])
            label = m.zone_label((z.name, idx))
            if _sees(z, idx, player, m.params):
                lines.append(f"{label}: {', '.join(rules.components[c].display for c in items) or 'empty'}")
            else:
                remembered = [rules.components[c].display for c in items if player is not None and c in m.known[player]]
                lines.append(f"{label}: {len(items)} hidden" + (f", seen {', '.join(remembered)}" if remembered else ""))
    for v in rules.vars.values():
        vis = ir.visibility_in(v, m.params)
        if vis == "hidden" and player is not None:
            continue
        if v.index is None:
            lines.append(f"{v.name}: {show(m.vars[v.name], v.type, rules)}")
            continue
        for idx in m.domain(v.index):
            if vis == "owner" and player is not None and idx != player:
                continue
            value = m.vars[v.name][idx]
            if value != v.init:
                lines.append(f"{v.name}[{show(idx, v.index, rules)}]: {show(value, v.type, rules)}")
    lines.extend(percept_lines(m.percepts, player))
    return "\n".join(lines)


def percept_lines(percepts: list[tuple[int, int, str, str]], player: int | None) -> list[str]:
    """What observations since the last decision told this player: an observer learns the value,
    the others that the observation happened (``player`` None: everything)."""
    out = []
    for k, who, label, text in percepts:
        if player is None or who == player:
            out.append(f"observation {k}: {player_name(who)} {label}: {text}")
        else:
            out.append(f"observation {k}: {player_name(who)} {label}")
    return out


def information_state(game: Game, history: list[int | tuple[int, ...]], player: int) -> str:
    """Everything a player with perfect recall knows: the observations as they changed, the
    public decisions and the player's own, in order."""
    s = State(game)
    entries = [observation(s.machine, player)]
    last = entries[0]
    for step in history:
        p = s.pending
        assert p is not None
        if p.kind == "chance":
            entries.append("chance")
            s.apply_action(step)  # type: ignore[arg-type]
        elif p.kind == "player":
            who = player_name(p.player)
            if p.player == player or not p.secret:
                entries.append(f"{who} {describe_action(game.rules, p, p.player, step, game.pass_action)}")  # type: ignore[arg-type]
            else:
                entries.append(f"{who} {p.label}: ?")
            s.apply_action(step)  # type: ignore[arg-type]
        else:
            assert isinstance(step, tuple)
            parts = []
            for q in sorted(p.per_player):
                if q == player or not p.secret:
                    parts.append(f"{player_name(q)} {describe_action(game.rules, p, q, step[q], game.pass_action)}")
                else:
                    parts.append(f"{player_name(q)} {p.label}: ?")
            entries.append("; ".join(parts))
            s.apply_actions(list(step))
        obs = observation(s.machine, player)
        if obs != last:
            entries.append(observation_change(last, obs))
            last = obs
    return "\n".join(entries)


def observation_change(before: str, after: str) -> str:
    """The lines an observation lost (``- line``), then those it gained (``+ line``), each in its
    order: an information state records what changed, not the whole table again (a board's
    observation is kilobytes; a move changes a line or two).  Counted, so a repeated line is kept."""
    old = before.split("\n") if before else []
    new = after.split("\n") if after else []
    olds, news = set(old), set(new)
    if len(olds) == len(old) and len(news) == len(new):  # the usual case, and faster
        return "\n".join(["- " + line for line in old if line not in news] + ["+ " + line for line in new if line not in olds])
    lost = Counter(old) - Counter(new)
    got = Counter(new) - Counter(old)
    out = []
    for line in old:
        if lost[line] > 0:
            lost[line] -= 1
            out.append("- " + line)
    for line in new:
        if got[line] > 0:
            got[line] -= 1
            out.append("+ " + line)
    return "\n".join(out)


__all__ = ["CHANCE", "SIMULTANEOUS", "TERMINAL", "Game", "RuleError", "State", "TPlayer", "replay"]
