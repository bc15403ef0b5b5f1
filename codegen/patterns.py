"""Shapes of IR expressions the compiler recognizes, as plain functions of the IR: constant sets of
numbers, emptiness tests, chains of ``and``/``or``, memberships ``x in E``, whether an expression
reads a local, and a long match on a number rebuilt as a balanced tree of comparisons.
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.types import TInt, Type
from rulecheck.dsl.walk import walk_exprs

from .layout import rep_of


def match_tree(chain: tuple[ir.Expr, list[tuple[ir.Expr, ir.Expr]], ir.Expr]) -> ir.Expr | None:
    """A long match on a number as a balanced tree of comparisons: the arms' constant tests
    become disjoint intervals (the first arm that matches a value keeps it, as in the chain), and
    the values between them go to what the chain ends with (else, the last arm, or a failure)."""
    from rulecheck.dsl.types import BOOL

    from .analysis import test

    subj, arms, last = chain
    points: set[int] = set()
    for cond, _ in arms:
        for lo, hi in intervals(cond):
            points.update((lo, hi + 1))
    cuts = sorted(points)
    if len(cuts) > 64:
        return None
    # between two cuts every value goes to the same arm: ask a representative
    segments: list[tuple[int, ir.Expr]] = []  # (first value, what it gives); the first from -inf
    for k, start in enumerate([cuts[0] - 1, *cuts]):
        target = next((v for cond, v in arms if test(cond, start)), last)
        if segments and segments[-1][1] is target:
            continue
        segments.append((start if k else -(10**18), target))

    def build(segs: list[tuple[int, ir.Expr]]) -> ir.Expr:
        if len(segs) == 1:
            return segs[0][1]
        mid = len(segs) // 2
        bound = segs[mid][0]
        below = ir.BinOp(BOOL, subj.span, "<", subj, ir.Const(TInt(bound, bound), subj.span, bound))
        left, right = build(segs[:mid]), build(segs[mid:])
        return ir.Cond(join_type(left.type, right.type), left.span, below, left, right)

    return build(segments)


def join_type(a: Type, b: Type) -> Type:
    from rulecheck.dsl.types import join

    return join(a, b) or a


def intervals(cond: ir.Expr) -> list[tuple[int, int]]:
    """The values a constant test of a match accepts, as closed intervals."""
    assert isinstance(cond, ir.BinOp)
    if cond.op == "or":
        return intervals(cond.left) + intervals(cond.right)
    if cond.op == "==":
        assert isinstance(cond.right, ir.Const)
        v = int(cond.right.value)  # type: ignore[arg-type]
        return [(v, v)]
    r = cond.right
    assert isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const)
    return [(int(r.lo.value), int(r.hi.value))]  # type: ignore[arg-type]


def const_numbers(e: ir.Expr) -> frozenset[int] | None:
    """The members of a constant set of numbers (a literal, or a range with literal bounds)."""
    if isinstance(e, ir.Const) and isinstance(e.value, frozenset) and all(isinstance(v, int) and not isinstance(v, bool) for v in e.value):
        return frozenset(int(v) for v in e.value)  # type: ignore[call-overload]
    if isinstance(e, ir.IntRange) and isinstance(e.lo, ir.Const) and isinstance(e.hi, ir.Const):
        lo, hi = e.lo.value, e.hi.value
        if isinstance(lo, int) and isinstance(hi, int) and hi - lo < 4096:
            return frozenset(range(lo, hi + 1))
    return None


def emptiness(e: ir.BinOp) -> tuple[ir.Expr, bool] | None:
    """(S, True) when ``e`` says that the set S is empty (``size(S) == 0``, ``size(S) < 1``,
    ``size(S) <= 0``), (S, False) when it says S is not (``!= 0``, ``> 0``, ``>= 1``)."""
    left, right, op = e.left, e.right, e.op
    if isinstance(left, ir.Const) and not isinstance(right, ir.Const):
        left, right = right, left
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    if not (isinstance(left, ir.Builtin) and left.op == "size" and isinstance(right, ir.Const)):
        return None
    k = right.value
    if isinstance(k, bool) or not isinstance(k, int):
        return None
    says = {("==", 0): True, ("<", 1): True, ("<=", 0): True, ("!=", 0): False, (">", 0): False, (">=", 1): False}.get((op, k))
    return None if says is None else (left.args[0], says)


def or_chain(e: ir.Expr) -> list[ir.Expr]:
    """The operands of ``a or b or …`` from left to right."""
    if isinstance(e, ir.BinOp) and e.op == "or":
        return or_chain(e.left) + or_chain(e.right)
    return [e]


def and_chain(e: ir.Expr) -> list[ir.Expr]:
    """The operands of ``a and b and …`` from left to right."""
    if isinstance(e, ir.BinOp) and e.op == "and":
        return and_chain(e.left) + and_chain(e.right)
    return [e]


def mentions(e: ir.Expr, name: str) -> bool:
    return any(isinstance(x, ir.Local) and x.name == name for x in walk_exprs(e))


def membership(c: ir.Expr, var: str) -> ir.Expr | None:
    """E when the test ``c`` on ``var`` is ``var in E`` (or ``any(var in E(p) for p in P)``, then
    that aggregate), with E not depending on ``var``."""
    if isinstance(c, ir.BinOp) and c.op == "in" and isinstance(c.left, ir.Local) and c.left.name == var:
        if rep_of(c.right.type) == "mask" and not mentions(c.right, var):
            return c.right
    if isinstance(c, ir.Agg) and c.op == "any" and c.filt is None and not mentions(c.coll, var):
        inner = c.elem
        if isinstance(inner, ir.BinOp) and inner.op == "in" and isinstance(inner.left, ir.Local) and inner.left.name == var:
            if rep_of(inner.right.type) == "mask" and not mentions(inner.right, var) and rep_of(c.coll.type) == "mask":
                return c
    return None
