"""Which components are in play in a game: a table's row may depend on parameters (a range up to a
parameter, ``| 1..num_cards |``, or a guard, ``| … | when long_game``), so each component carries
the condition under which it is in play (``ir.Component.when``).

A condition is fixed for a game: it reads only parameters, the player count and constants, through
the few operators below, so the interpreter, the verifier and the reports evaluate it here and a
generated engine spells the same operators in Python (``codegen/engine.py``, ``guard_code``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import ir
from .types import TBool, TEnum, TError, TInt

#: the operators a condition may use: comparisons, and, or, not, a minus sign
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
LOGICAL = ("and", "or")


def not_fixed(e: ir.Expr) -> ir.Expr | None:
    """The first part of a condition that is not fixed for a game or not one of the operators a
    condition may use, or None when the whole of it is (a part with an error already has its
    diagnostic)."""
    if isinstance(e.type, TError):
        return None
    if isinstance(e, ir.Const):
        return None if isinstance(e.type, (TBool, TInt, TEnum)) else e
    if isinstance(e, ir.ParamRef):
        return None if isinstance(e.type, (TBool, TInt, TEnum)) else e
    if isinstance(e, ir.Builtin):
        return None if e.op == "num_players" else e
    if isinstance(e, ir.Unary):
        return not_fixed(e.operand) if e.op in ("not", "neg") else e
    if isinstance(e, ir.BinOp):
        if e.op not in COMPARISONS + LOGICAL:
            return e
        return not_fixed(e.left) or not_fixed(e.right)
    return e


def guard_value(e: ir.Expr, params: Mapping[str, Any], n: int) -> Any:
    """A condition's value in a game with these (resolved) parameter values and n players."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.ParamRef):
        return params[e.name]
    if isinstance(e, ir.Builtin):
        assert e.op == "num_players"
        return n
    if isinstance(e, ir.Unary):
        v = guard_value(e.operand, params, n)
        return (not v) if e.op == "not" else -v
    assert isinstance(e, ir.BinOp)
    if e.op == "and":
        return bool(guard_value(e.left, params, n)) and bool(guard_value(e.right, params, n))
    if e.op == "or":
        return bool(guard_value(e.left, params, n)) or bool(guard_value(e.right, params, n))
    a, b = guard_value(e.left, params, n), guard_value(e.right, params, n)
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]


def out_of_play(rules: ir.Ruleset, params: Mapping[str, Any], n: int) -> frozenset[int]:
    """The components out of play in a game with these parameter values and n players."""
    return frozenset(c.cid for c in rules.components if c.when is not None and not guard_value(c.when, params, n))


def in_play_of(rules: ir.Ruleset, kind: str, out: frozenset[int]) -> frozenset[int]:
    """The components of a kind that are in play, given those out of play."""
    return frozenset(c.cid for c in rules.components_of(kind) if c.cid not in out)


def condition_text(e: ir.Expr, rules: ir.Ruleset, name: Callable[[str], str] = str) -> str:
    """A condition as the rules language writes it (``name`` maps a parameter's name, as an
    edition's common names do), for comparing conditions and showing them."""
    from .values import show

    if isinstance(e, ir.Const):
        return show(e.value, e.type, rules)
    if isinstance(e, ir.ParamRef):
        return name(e.name)
    if isinstance(e, ir.Builtin):
        return "num_players"
    if isinstance(e, ir.Unary):
        inner = condition_text(e.operand, rules, name)
        return f"not ({inner})" if e.op == "not" else f"-{inner}"
    assert isinstance(e, ir.BinOp)
    return f"({condition_text(e.left, rules, name)} {e.op} {condition_text(e.right, rules, name)})"
