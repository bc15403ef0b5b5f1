"""What random games show at the heads of the open loops: the candidate facts of the induction
over the loops (induction.py), and the numbers that move one way from pass to pass (its measures).

The games are replayed in the reference interpreter, which records the state at the head of every
pass of an open loop and where the loop stops (``Machine(heads=…, exits=…)``); a state is seen as
its numbers: every zone instance's size and every integer, enumeration or truth variable.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rulecheck.codegen.playout import apply
from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TEnum, TInt, TPlayer
from rulecheck.dsl.values import place_table
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game, State

#: At most this many facts sampled at one loop's head are candidates (the first, in a fixed
#: order): each is a question for the solver.
MAX_SAMPLED = 320
#: A number that takes at most this many values at a loop's head can be the condition of a fact
#: ("in the first pass, or in the last phase").
FEW_VALUES = 4

#: A number of the state: a zone's size ("zone", name, index) or a variable's value ("var", name,
#: index; an enumeration's value by its position, a truth value 0 or 1).
Feature = tuple[str, str, Any]
#: A fact sampled at a loop's head: ("const", x, c): x == c; ("sum", x, y, b, c): x + b*y == c;
#: ("either", x, a, y, c): x == a or y == c; ("unless", x, a, y, c): x != a or y == c; ("since", x, s):
#: s*x >= s*(x where the run of the loop began).
Sampled = tuple[Any, ...]


def sampled_equations(heads: list[dict[Feature, int]], counts: set[Feature]) -> list[Sampled]:
    """Facts over the numbers of a state that hold in every sampled state at a loop's head: a
    number that is always the same; two counts (``counts``: the features that are quantities)
    that always add up to, or differ by, the same; a number that is the same wherever another
    is not one of its few values."""
    if not heads:
        return []
    features = sorted(set.intersection(*(set(h) for h in heads)), key=repr)
    const = [f for f in features if len({h[f] for h in heads}) == 1]
    out: list[Sampled] = [("const", f, heads[0][f]) for f in const]
    varying = [f for f in features if f not in const]
    quantities = [f for f in varying if f in counts]
    for i, x in enumerate(quantities):
        for y in quantities[i + 1:]:
            for b in (1, -1):
                sums = {h[x] + b * h[y] for h in heads}
                if len(sums) == 1:
                    out.append(("sum", x, y, b, sums.pop()))
    subsets: dict[tuple[int, ...], tuple[Feature, int]] = {}
    for x in varying:
        values = sorted({h[x] for h in heads})
        if len(values) > FEW_VALUES:
            continue
        for a in values:
            rest = [h for h in heads if h[x] != a]
            for y in varying:
                if y != x and len(rest) > 1 and len({h[y] for h in rest}) == 1:
                    out.append(("either", x, a, y, rest[0][y]))
            # and the other way: where x is a, y is the same ("in the first pass, nothing
            # counted yet"), once for each set of states that some such x picks out (another x that
            # picks out the same states says so of the first)
            here = tuple(i for i, h in enumerate(heads) if h[x] == a)
            if 1 < len(here) < len(heads) and here in subsets:
                out.append(("unless", x, a, *subsets[here]))
            elif 1 < len(here) < len(heads):
                subsets[here] = (x, a)
                out += [("unless", x, a, y, heads[here[0]][y]) for y in varying
                        if y != x and len({heads[i][y] for i in here}) == 1]
    return out


def state_numbers(rules: ir.Ruleset, n: int, snapshot: Any) -> dict[Feature, int]:
    """The numbers of an interpreter's state (Machine.snapshot) in a game of n players: every
    zone instance's size, every integer variable."""
    values, loc, _ = snapshot
    out: dict[Feature, int] = {}
    for zone, idx in place_table(rules):
        if idx is None or not isinstance(rules.zones[zone].index, TPlayer) or idx < n:
            out[("zone", zone, idx)] = 0
    for place in loc:
        if place[0]:
            key = ("zone", place[0], place[1])
            out[key] = out.get(key, 0) + 1
    for v in rules.vars.values():
        if not isinstance(v.type, (TInt, TEnum, TBool)):
            continue
        x = values[v.name]
        for idx, value in (x if v.index is not None else [(None, x)]):
            if isinstance(value, int):
                out[("var", v.name, idx)] = int(value)
    return out


@dataclass
class Samples:
    """Random games replayed in the reference interpreter, seen at the heads of the open loops:
    per loop, the numbers of every state at the head of a pass or where the loop stopped, and per
    run of the loop, the heads of its passes in order and where it stopped; whether one of the
    games ended."""

    states: dict[int, list[dict[Feature, int]]]
    runs: dict[int, list[tuple[list[dict[Feature, int]], dict[Feature, int]]]]
    ended: bool
    counts: set[tuple[str, str]]  # the integer variables (quantities, as zone sizes are)

    def equations(self) -> dict[int, list[Sampled]]:
        """Per loop, the facts that held in every state seen at its head (sampled_equations),
        then those that relate a number to its value where the run of the loop began (its
        first head): never below it, never above it."""
        out: dict[int, list[Sampled]] = {}
        for sid, states in sorted(self.states.items()):
            quantities = {f for h in states for f in h if f[0] == "zone" or f[:2] in self.counts}
            since: list[Sampled] = []
            for f in sorted(quantities, key=repr):
                steps = [h[f] - heads[0][f] for heads, stop in self.runs.get(sid, []) for h in [*heads[1:], stop] if heads]
                # (one that never moved may have in other games, or be kept by the loop: both
                # ways are candidates, as they are beside a constant that may not be one)
                if steps:
                    since += [("since", f, sign) for sign in (1, -1) if all(sign * d >= 0 for d in steps)]
            facts = sampled_equations(states, quantities)
            # the kinds that are fewest and most often needed first ("either" facts abound)
            kinds = {"const": 0, "since": 1, "sum": 2, "unless": 3, "either": 4}
            out[sid] = sorted([*facts, *since], key=lambda x: kinds[x[0]])[:MAX_SAMPLED]
        return out

    def monotone(self, sid: int) -> list[tuple[Feature, int]]:
        """The numbers that went one way only from each pass of the loop to the next, in every
        run: each with -1 where it grew, 1 where it shrank (so that the sum of each times its
        sign fell, pass after pass); a count that never moved, with both."""
        runs = [heads for heads, _ in self.runs.get(sid, []) if len(heads) > 1]
        if not runs:
            return []
        out: list[tuple[Feature, int]] = []
        for f in sorted(set.intersection(*(set(h) for r in runs for h in r)), key=repr):
            steps = [b[f] - a[f] for r in runs for a, b in itertools.pairwise(r)]
            if not any(steps):  # never moved here: may still move, one way or the other
                if f[0] == "zone" or f[:2] in self.counts:
                    out += [(f, -1), (f, 1)]
            elif all(d >= 0 for d in steps):
                out.append((f, -1))
            elif all(d <= 0 for d in steps):
                out.append((f, 1))
        return out


def sample(program: ir.Program, n: int, params: dict[str, Any] | None, games: list[list[Any]]) -> Samples:
    """The given games (of n players) replayed in the reference interpreter and seen at the
    loops' heads (a game the rules stop is used up to that point)."""
    ended = False
    states: dict[int, list[dict[Feature, int]]] = defaultdict(list)
    runs: dict[int, list[tuple[list[dict[Feature, int]], dict[Feature, int]]]] = defaultdict(list)
    for actions in games:
        heads: dict[int, list[Any]] = {}
        exits: dict[int, list[Any]] = {}
        try:
            state = State(Game(program, n, params), heads=heads, exits=exits)
            for a in actions:
                if state.is_terminal():
                    break
                apply(state, a)
            ended = ended or state.is_terminal()
        except (RuleError, ValueError):
            pass
        numbers = {sid: [state_numbers(program.rules, n, snap) for snap in snaps] for sid, snaps in heads.items()}
        for sid, seen in numbers.items():
            states[sid].extend(seen)
        for sid, stops in exits.items():
            for first, last, snap in stops:
                stop = state_numbers(program.rules, n, snap)
                states[sid].append(stop)
                runs[sid].append((numbers.get(sid, [])[first:last], stop))
    counts = {("var", v.name) for v in program.rules.vars.values() if isinstance(v.type, TInt)}
    return Samples(dict(states), dict(runs), ended, counts)
