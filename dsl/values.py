"""How values read in logs, observations and reports.

The generated engines carry a copy of these rules (codegen/templates/runtime), and the differential
tests check that both spell every value the same way.
"""

from __future__ import annotations

from .ir import Ruleset, Value
from .types import TBool, TComp, TEnum, TInt, TMap, TPlayer, TRecord, TSet, TText, Type


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


def show(value: Value, typ: Type, rules: Ruleset) -> str:
    if isinstance(typ, TBool):
        return "yes" if value else "no"
    if isinstance(typ, TPlayer):
        assert isinstance(value, int)
        return player_name(value)
    if isinstance(typ, TComp):
        assert isinstance(value, int)
        return rules.components[value].display
    if isinstance(typ, TEnum):
        assert isinstance(value, int)
        return rules.enums[typ.name].labels[value]
    if isinstance(typ, TSet):
        assert isinstance(value, frozenset)
        if not value:
            return "none"
        return ", ".join(show(v, typ.elem, rules) for v in sorted(value))
    if isinstance(typ, TMap):
        assert isinstance(value, tuple)
        return "; ".join(
            f"{player_name(i)}: {show(v, typ.elem, rules)}" for i, v in enumerate(value) if v is not None
        )
    if isinstance(typ, TRecord):
        assert isinstance(value, tuple)
        if not value:
            return "none"
        return "; ".join(", ".join(show(v, t, rules) for v, (_, t) in zip(entry, typ.fields)) for entry in value)
    if isinstance(typ, (TInt, TText)):
        return str(value)
    return str(value)


def encode_action(value: Value) -> int:
    """Decision values become OpenSpiel actions: booleans 0/1, everything else is already an int."""
    return int(value)  # type: ignore[arg-type]


def num_distinct_actions(rules: Ruleset) -> int:
    """The size of the action space: every decision value is below it, and the last action (the
    value itself) is PASS, played by the players a simultaneous decision does not include."""
    from .ir import Choose, ChooseEach, Observe
    from .walk import walk_stmts

    top = max(len(rules.components), rules.game.max_players, 2)
    bodies = [rules.flow] + [p.body for p in rules.procs.values() if p.body]
    for a in rules.ambiguities.values():
        for r in a.readings:
            bodies += [p.body for p in r.procs.values() if p.body]
    for body in bodies:
        for s in walk_stmts(body):
            if isinstance(s, Observe) and s.mode == "within":
                top = max(top, 2 * s.amount + 1)  # the chance outcomes of a perception's error
            if isinstance(s, (Choose, ChooseEach)):
                t = s.type
                if isinstance(t, TEnum):
                    top = max(top, len(rules.enums[t.name].values))
                elif isinstance(t, TInt) and t.hi is not None:
                    top = max(top, t.hi + 1)
    return top + 1
