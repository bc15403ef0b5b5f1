"""A small term language for verification conditions, with no solver in it.

The symbolic executor builds terms; the z3 back end (z3backend.py) translates them. Terms are
hash-consed and simplified as they are built: most of a game is concrete once the player count is
fixed, so constant folding and lifting comparisons through if-then-else chains of constants keep
the formulas small. Constants are plain Python ``bool`` and ``int``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import Any

BOOL = "Bool"
INT = "Int"


class T:
    """A non-constant term. Build terms with the functions below, never directly."""

    __slots__ = ("_hash", "args", "id", "neg", "op", "parts", "sort")

    def __init__(self, op: str, args: tuple[Term, ...], sort: str, tid: int) -> None:
        self.op = op
        self.args = args
        self.sort = sort
        self.id = tid
        # interned: one object per term, so its number is a hash (hashing the parts cost more)
        self._hash = tid
        self.neg: T | None = None  # the term "not this", once built (and/or look for pairs)
        self.parts: frozenset[int] | None = None  # an and/or's parts' numbers, once asked (_pair)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        if self.op == "var":
            return str(self.args[0])
        return f"({self.op} {' '.join(map(repr, self.args))})"


Term = T | bool | int

_table: dict[tuple[object, ...], T] = {}
_not_cache: dict[int, Term] = {}


def _key(x: Term) -> object:
    # True == 1 in Python: keep booleans and ints apart in the intern table
    if isinstance(x, bool):
        return ("b", x)
    if isinstance(x, int):
        return ("i", x)
    if isinstance(x, str):
        return ("s", x)
    return x.id


def _mk(op: str, args: tuple[Term, ...], sort: str) -> T:
    key = (op, *[a.id if a.__class__ is T else _key(a) for a in args])
    t = _table.get(key)
    if t is None:
        t = T(op, args, sort, len(_table))
        _table[key] = t
        if op == "not":
            args[0].neg = t  # type: ignore[union-attr]
    return t


def key_of(terms: Iterable[Term]) -> tuple[object, ...]:
    """A key for a list of terms (constants kept apart from term numbers)."""
    return tuple(_key(t) for t in terms)


def reset() -> None:
    """Forget every interned term (between independent verification runs)."""
    _table.clear()
    _lift_cache.clear()
    _not_cache.clear()
    _range_cache.clear()


def sort_of(x: Term) -> str:
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return INT
    return x.sort


def is_const(x: Term) -> bool:
    return not isinstance(x, T)


# ---- variables --------------------------------------------------------------------------------


def var(name: str, sort: str) -> T:
    return _mk("var", (name,), sort)  # type: ignore[arg-type]


def bool_var(name: str) -> T:
    return var(name, BOOL)


def int_var(name: str, lo: int | None = None, hi: int | None = None) -> T:
    """An integer variable; ``lo``..``hi``: the values it can take (the z3 back end sizes its
    bit-vector by them and gives every question that names it the range as a constraint)."""
    if lo is None or hi is None:
        return var(name, INT)
    return _mk("var", (name, lo, hi), INT)  # type: ignore[arg-type]


def var_range(t: T) -> tuple[int, int] | None:
    """An integer variable's declared range (see int_var)."""
    if len(t.args) == 3:
        return int(t.args[1]), int(t.args[2])  # type: ignore[arg-type]
    return None


# ---- booleans ---------------------------------------------------------------------------------


def not_(a: Term) -> Term:
    """Negation (not pushed through and/or: on shared terms that multiplies their size)."""
    if isinstance(a, bool):
        return not a
    assert isinstance(a, T)
    if a.op == "not":
        return a.args[0]
    return _mk("not", (a,), BOOL)


def and_(*items: Term) -> Term:
    return and_all(items)


def _complementary(x: T, whole: AbstractSet[int]) -> bool:
    if x.op == "not" and isinstance(x.args[0], T) and x.args[0].id in whole:
        return True
    return x.neg is not None and x.neg.id in whole


def and_all(items: Iterable[Term]) -> Term:
    return _junction(items, "and", True)


def or_(*items: Term) -> Term:
    return or_all(items)


def or_all(items: Iterable[Term]) -> Term:
    return _junction(items, "or", False)


def _junction(items: Iterable[Term], op: str, unit: bool) -> Term:
    """``and`` (unit True) or ``or`` (unit False), flattened, without repeats, sorted: the unit
    drops out, the other constant absorbs, and so does a part beside its own negation."""
    absorbing = not unit
    if items.__class__ is tuple and len(items) == 2:  # type: ignore[arg-type]
        a, b = items  # type: ignore[misc]
        if a.__class__ is T and b.__class__ is T:
            return _pair(a, b, op, absorbing)
        if a is unit:
            return b  # type: ignore[no-any-return]
        if b is unit:
            return a  # type: ignore[no-any-return]
        if a is absorbing or b is absorbing:
            return absorbing
    out: list[T] = []
    seen: set[int] = set()
    whole: set[int] = set()
    for x in items:
        if x is unit:
            continue
        if x is absorbing:
            return absorbing
        assert isinstance(x, T), x
        if _complementary(x, whole):
            return absorbing
        whole.add(x.id)
        for p in x.args if x.op == op else (x,):  # parts of a junction are terms (built here)
            pid = p.id  # type: ignore[union-attr]
            if pid in seen:
                continue
            neg = p.neg  # type: ignore[union-attr]
            if (neg is not None and neg.id in seen) or (p.op == "not" and p.args[0].id in seen):  # type: ignore[union-attr]
                return absorbing
            seen.add(pid)
            out.append(p)  # type: ignore[arg-type]
    if not out:
        return unit
    if len(out) == 1:
        return out[0]
    out.sort(key=_by_id)
    return _mk(op, tuple(out), BOOL)


_by_id = operator.attrgetter("id")


def _pair(a: T, b: T, op: str, absorbing: bool) -> Term:
    """``_junction`` of two terms, most calls (a guard and one more condition): the same term,
    but only the smaller side's parts are looked at one by one; the larger's are already a
    junction's, with no repeats and no part beside its negation."""
    if a is b:
        return a
    if a.neg is b or b.neg is a:
        return absorbing
    pa = a.args if a.op == op else (a,)
    pb = b.args if b.op == op else (b,)
    if len(pa) < len(pb):
        a, b, pa, pb = b, a, pb, pa
    if a.op == op:
        big = a.parts
        if big is None:
            big = a.parts = frozenset([p.id for p in pa])  # type: ignore[union-attr]
    else:
        big = frozenset((a.id,))
    new: list[T] = []
    for p in pb:
        pid = p.id  # type: ignore[union-attr]
        if pid in big:
            continue
        if _complementary(p, big):  # type: ignore[arg-type]
            return absorbing
        new.append(p)  # type: ignore[arg-type]
    if not new:
        return a
    out = [*pa, *new]
    out.sort(key=_by_id)
    return _mk(op, tuple(out), BOOL)  # type: ignore[arg-type]


def implies(a: Term, b: Term) -> Term:
    return or_(not_(a), b)


def ite(c: Term, a: Term, b: Term) -> Term:
    if c is True:
        return a
    if c is False:
        return b
    if _same(a, b):
        return a
    if sort_of(a) == BOOL:
        # keep booleans in and/or form, which z3 and our folding handle best
        if a is True:
            return or_(c, b)
        if a is False:
            return and_(not_(c), b)
        if b is True:
            return or_(not_(c), a)
        if b is False:
            return and_(c, a)
    assert isinstance(c, T)
    if c.op == "not":
        return ite(c.args[0], b, a)
    return _mk("ite", (c, a, b), sort_of(a))


def _same(a: Term, b: Term) -> bool:
    if isinstance(a, T) or isinstance(b, T):
        return a is b
    return type(a) is type(b) and a == b


# ---- comparisons ------------------------------------------------------------------------------

_LIFT_DEPTH = 64


def eq(a: Term, b: Term) -> Term:
    if not isinstance(a, T) and not isinstance(b, T):
        return a == b
    if _same(a, b):
        return True
    va, vb = _pb_view(a), _pb_view(b)
    if va is not None and not isinstance(b, T):
        return pb_eq(va[0], int(b) - va[1])
    if vb is not None and not isinstance(a, T):
        return pb_eq(vb[0], int(a) - vb[1])
    if sort_of(a) == BOOL:
        if a is True:
            return b
        if a is False:
            return not_(b)
        if b is True:
            return a
        if b is False:
            return not_(a)
    # lift a comparison with a constant through an if-then-else chain of constants
    if isinstance(a, T) and not isinstance(b, T):
        lifted = _lift_eq(a, b, _LIFT_DEPTH)
        if lifted is not None:
            return lifted
    if isinstance(b, T) and not isinstance(a, T):
        lifted = _lift_eq(b, a, _LIFT_DEPTH)
        if lifted is not None:
            return lifted
    x, y = (a, b) if _key_order(a) <= _key_order(b) else (b, a)
    return _mk("eq", (x, y), BOOL)


def _key_order(x: Term) -> tuple[int, int]:
    if isinstance(x, T):
        return (1, x.id)
    return (0, int(x))


_lift_cache: dict[tuple[int, object], Term | None] = {}


def _lift_eq(t: T, k: Term, depth: int) -> Term | None:
    """``ite(c, a, b) == k`` as ``ite(c, a == k, b == k)`` when the leaves are constants."""
    if t.op != "ite" or depth <= 0:
        return None
    key = (t.id, _key(k))
    if key in _lift_cache:
        return _lift_cache[key]
    c, a, b = t.args
    ra = (a == k) if not isinstance(a, T) else _lift_eq(a, k, depth - 1)
    rb = (b == k) if not isinstance(b, T) else _lift_eq(b, k, depth - 1)
    out = None if ra is None or rb is None else ite(c, ra, rb)
    _lift_cache[key] = out
    return out


def ne(a: Term, b: Term) -> Term:
    return not_(eq(a, b))


def _pb_view(t: Term) -> tuple[tuple[Term, ...], int] | None:
    """``count(bs) + c`` as (bs, c), so that comparing it with a number is a cardinality constraint."""
    if not isinstance(t, T):
        return None
    if t.op == "count":
        return t.args, 0
    if t.op == "add" and len(t.args) == 2 and isinstance(t.args[0], T) and t.args[0].op == "count" and not isinstance(t.args[1], T):
        return t.args[0].args, int(t.args[1])
    return None


def lt(a: Term, b: Term) -> Term:
    if not isinstance(a, T) and not isinstance(b, T):
        return a < b
    if _same(a, b):
        return False
    va, vb = _pb_view(a), _pb_view(b)
    if va is not None and not isinstance(b, T):
        return pb_le(va[0], int(b) - va[1] - 1)
    if vb is not None and not isinstance(a, T):
        return pb_ge(vb[0], int(a) - vb[1] + 1)
    return _mk("lt", (a, b), BOOL)


def le(a: Term, b: Term) -> Term:
    if not isinstance(a, T) and not isinstance(b, T):
        return a <= b
    if _same(a, b):
        return True
    va, vb = _pb_view(a), _pb_view(b)
    if va is not None and not isinstance(b, T):
        return pb_le(va[0], int(b) - va[1])
    if vb is not None and not isinstance(a, T):
        return pb_ge(vb[0], int(a) - vb[1])
    return _mk("le", (a, b), BOOL)


def pb_eq(items: Iterable[Term], k: int) -> Term:
    bs, k = _pb_fold(items, k)
    if k < 0 or k > len(bs):
        return False
    if k == 0:
        return not_(or_all(bs))
    if k == len(bs):
        return and_all(bs)
    return _mk("pbeq", (k, *bs), BOOL)


def pb_ge(items: Iterable[Term], k: int) -> Term:
    bs, k = _pb_fold(items, k)
    if k <= 0:
        return True
    if k > len(bs):
        return False
    if k == 1:
        return or_all(bs)
    if k == len(bs):
        return and_all(bs)
    return _mk("pbge", (k, *bs), BOOL)


def pb_le(items: Iterable[Term], k: int) -> Term:
    bs, k = _pb_fold(items, k)
    if k < 0:
        return False
    if k >= len(bs):
        return True
    if k == 0:
        return not_(or_all(bs))
    return _mk("pble", (k, *bs), BOOL)


def _pb_fold(items: Iterable[Term], k: int) -> tuple[list[Term], int]:
    bs: list[Term] = []
    for b in items:
        if b is True:
            k -= 1
        elif b is not False:
            bs.append(b)
    bs.sort(key=lambda t: t.id)  # type: ignore[union-attr]
    return bs, k


def gt(a: Term, b: Term) -> Term:
    return lt(b, a)


def ge(a: Term, b: Term) -> Term:
    return le(b, a)


# ---- integers ---------------------------------------------------------------------------------


def add(*items: Term) -> Term:
    return add_all(items)


def add_all(items: Iterable[Term]) -> Term:
    const = 0
    rest: list[Term] = []
    for x in items:
        if isinstance(x, T):
            if x.op == "add":
                for y in x.args:
                    if isinstance(y, T):
                        rest.append(y)
                    else:
                        const += int(y)
            else:
                rest.append(x)
        else:
            const += int(x)
    if not rest:
        return const
    if const == 0 and len(rest) == 1:
        return rest[0]
    args: tuple[Term, ...] = tuple(rest) + ((const,) if const else ())
    return _mk("add", args, INT)


def neg(a: Term) -> Term:
    if not isinstance(a, T):
        return -int(a)
    return mul(-1, a)


def sub(a: Term, b: Term) -> Term:
    return add(a, neg(b))


def mul(a: Term, b: Term) -> Term:
    if not isinstance(a, T) and not isinstance(b, T):
        return int(a) * int(b)
    if a == 0 or b == 0:
        if not isinstance(a, T) or not isinstance(b, T):
            return 0
    if a == 1 and not isinstance(a, T):
        return b
    if b == 1 and not isinstance(b, T):
        return a
    return _mk("mul", (a, b), INT)


def div(a: Term, b: Term) -> Term:
    """Floor division, as Python's // (b is never 0 where this is used: that is an obligation)."""
    if not isinstance(a, T) and not isinstance(b, T):
        return int(a) // int(b) if int(b) else 0
    return _mk("div", (a, b), INT)


def mod(a: Term, b: Term) -> Term:
    if not isinstance(a, T) and not isinstance(b, T):
        return int(a) % int(b) if int(b) else 0
    return _mk("mod", (a, b), INT)


def bool_to_int(a: Term) -> Term:
    return ite(a, 1, 0)


def count_true(items: Iterable[Term]) -> Term:
    """How many of the booleans hold: a term that comparisons turn into cardinality constraints."""
    bs, k = _pb_fold(items, 0)
    if not bs:
        return -k
    c = _mk("count", tuple(bs), INT)
    return add(c, -k) if k else c


def clamp(a: Term, limit: int) -> Term:
    """``a`` where it lies within -limit..limit, else 0: the value of an integer after the check
    that it is within the limit (beyond it the game has stopped, so 0 changes nothing), which
    keeps the values made from it within bounds the z3 back end computes exactly."""
    if not isinstance(a, T):
        return a if -limit <= int(a) <= limit else 0
    return _mk("clamp", (a, limit), INT)


_range_cache: dict[int, tuple[int, int] | None] = {}


def int_range(t: Term) -> tuple[int, int] | None:
    """Bounds the values of an integer term lie within, computed from its parts (a variable's
    declared range, a count's number of booleans), or None where a part's are unknown."""
    if isinstance(t, bool):
        return None
    if not isinstance(t, T):
        return int(t), int(t)
    if t.id in _range_cache:
        return _range_cache[t.id]
    # parts first, without recursion
    stack: list[T] = [t]
    while stack:
        node = stack[-1]
        todo = [a for a in node.args if isinstance(a, T) and a.sort == INT and a.id not in _range_cache]
        if node.op != "var" and todo:
            stack.extend(todo)
            continue
        stack.pop()
        _range_cache[node.id] = _node_range(node)
    return _range_cache[t.id]


def _node_range(t: T) -> tuple[int, int] | None:
    if t.op == "var":
        return var_range(t)
    if t.op == "count":
        return 0, len(t.args)
    if t.op == "clamp":
        limit = int(t.args[1])  # type: ignore[arg-type]
        inner = int_range(t.args[0])
        if inner is None:
            return -limit, limit
        lo, hi = max(inner[0], -limit), min(inner[1], limit)
        return (min(lo, 0), max(hi, 0)) if lo <= hi else (0, 0)  # 0 beyond the limit
    parts = [int_range(a) for a in (t.args[1:] if t.op == "ite" else t.args)]
    if any(p is None for p in parts):
        return None
    known = [p for p in parts if p is not None]
    if t.op == "add":
        return sum(p[0] for p in known), sum(p[1] for p in known)
    if t.op == "ite":
        return min(p[0] for p in known), max(p[1] for p in known)
    if t.op == "mul":
        ends = [x * y for x in known[0] for y in known[1]]
        return min(ends), max(ends)
    if t.op == "div":  # |x // y| <= |x| for y != 0, and 0 for y = 0
        m = max(abs(v) for v in known[0])
        return -m, m
    if t.op == "mod":  # |x % y| < |y|, and 0 for y = 0
        m = max(abs(v) for v in known[1])
        return -m, m
    return None


def max_of(a: Term, b: Term) -> Term:
    return ite(ge(a, b), a, b)


def min_of(a: Term, b: Term) -> Term:
    return ite(le(a, b), a, b)


# ---- evaluation under an assignment -----------------------------------------------------------


def evaluate(term: Term, assignment: dict[str, bool | int], default: bool | int = 0) -> bool | int:
    """The value of a term when its variables take the given values (missing ones: ``default``
    for ints, False for booleans)."""
    return Evaluator(assignment, default)(term)


class Evaluator:
    """``evaluate`` for many terms under one assignment, sharing the values of common subterms.
    The assignment may grow between calls only with variables no term evaluated so far contains
    (a game's decisions, assigned in the order they were created)."""

    def __init__(self, assignment: dict[str, bool | int], default: bool | int = 0) -> None:
        self.assignment = assignment
        self.default = default
        self.memo: dict[int, bool | int] = {}

    def __call__(self, term: Term) -> bool | int:
        if not isinstance(term, T):
            return term
        value: bool | int = _bottom_up(term, self.memo, self._var, self._node)
        return value

    def _var(self, t: T) -> bool | int:
        v = self.assignment.get(str(t.args[0]))
        return v if v is not None else (False if t.sort == BOOL else self.default)

    def _node(self, t: T) -> bool | int:
        memo = self.memo
        return _apply(t.op, [memo[a.id] if isinstance(a, T) else a for a in t.args])


def _bottom_up(term: T, memo: dict[int, Any], var: Callable[[T], Any], node: Callable[[T], Any]) -> Any:
    """A term's value, each part's worked out first and kept in ``memo``: ``var`` gives a
    variable's, ``node`` any other term's from its parts' values. Iterative, so deep terms cannot
    overflow the stack."""
    got = memo.get(term.id)
    if got is not None:
        return got
    stack: list[tuple[T, bool]] = [(term, False)]
    while stack:
        t, ready = stack.pop()
        if t.id in memo:
            continue
        if t.op == "var":
            memo[t.id] = var(t)
        elif not ready:
            stack.append((t, True))
            stack.extend((a, False) for a in t.args if isinstance(a, T) and a.id not in memo)
        else:
            memo[t.id] = node(t)
    return memo[term.id]


class Evaluators:
    """``evaluate`` under several assignments at once, in one pass over the shared terms (a few
    random games checked against a whole game's trace): a boolean's value is a bit mask, bit g
    its value under assignment g (``mask``); an integer's, the tuple of its values."""

    def __init__(self, assignments: list[dict[str, bool | int]], default: int = 0) -> None:
        self.assignments = assignments
        self.default = default
        self.games = range(len(assignments))
        self.full = (1 << len(assignments)) - 1  # true under every assignment
        self.memo: dict[int, Any] = {}

    def mask(self, term: Term) -> int:
        """Which assignments make a boolean term true, as a bit mask."""
        m = self(term)
        assert isinstance(m, int)
        return m

    def _lift(self, x: Term) -> Any:
        if isinstance(x, bool):
            return self.full if x else 0
        if isinstance(x, int):
            return (x,) * len(self.assignments)
        return self.memo[x.id]

    def __call__(self, term: Term) -> Any:
        if not isinstance(term, T):
            return self._lift(term)
        return _bottom_up(term, self.memo, self._var, self._apply)

    def _var(self, t: T) -> Any:
        name = str(t.args[0])
        if t.sort == BOOL:
            return sum(1 << g for g, a in enumerate(self.assignments) if a.get(name))
        return tuple(int(a.get(name, self.default)) for a in self.assignments)

    def _apply(self, t: T) -> Any:
        op, full = t.op, self.full
        v = [self._lift(a) for a in t.args]
        if op == "not":
            return full ^ v[0]
        if op == "and":
            m = full
            for x in v:
                m &= x
            return m
        if op == "or":
            m = 0
            for x in v:
                m |= x
            return m
        if op == "ite" and t.sort == BOOL:
            return (v[0] & v[1]) | ((full ^ v[0]) & v[2])
        if op == "eq" and sort_of(t.args[0]) == BOOL:
            return full ^ (v[0] ^ v[1])
        if op == "ite":
            return tuple(x if v[0] >> g & 1 else y for g, (x, y) in enumerate(zip(v[1], v[2])))
        if op in ("pbeq", "pbge", "pble", "count"):
            # the first argument of a cardinality constraint is its bound, a number
            bools = v if op == "count" else v[1:]
            counts = [sum(m >> g & 1 for m in bools) for g in self.games]
            if op == "count":
                return tuple(counts)
            k = int(t.args[0])  # type: ignore[arg-type]
            test = {"pbeq": operator.eq, "pbge": operator.ge, "pble": operator.le}[op]
            return sum(1 << g for g, c in enumerate(counts) if test(c, k))
        per_game = [_apply(op, list(xs)) for xs in zip(*v)]
        if t.sort == BOOL:
            return sum(1 << g for g, x in enumerate(per_game) if x)
        return tuple(int(x) for x in per_game)


def _apply(op: str, v: list[bool | int]) -> bool | int:
    if op == "not":
        return not v[0]
    if op == "and":
        return all(v)
    if op == "or":
        return any(v)
    if op == "ite":
        return v[1] if v[0] else v[2]
    if op == "eq":
        return v[0] == v[1]
    if op == "lt":
        return v[0] < v[1]
    if op == "le":
        return v[0] <= v[1]
    if op == "add":
        return sum(int(x) for x in v)
    if op == "mul":
        return int(v[0]) * int(v[1])
    if op == "div":
        return int(v[0]) // int(v[1]) if int(v[1]) else 0
    if op == "mod":
        return int(v[0]) % int(v[1]) if int(v[1]) else 0
    if op == "count":
        return sum(1 for x in v if x)
    if op == "clamp":
        return int(v[0]) if -int(v[1]) <= int(v[0]) <= int(v[1]) else 0
    if op == "pbeq":
        return sum(1 for x in v[1:] if x) == v[0]
    if op == "pbge":
        return sum(1 for x in v[1:] if x) >= v[0]
    if op == "pble":
        return sum(1 for x in v[1:] if x) <= v[0]
    raise AssertionError(op)  # pragma: no cover


def free_vars(terms: list[Term]) -> dict[str, str]:
    """The variables of some terms, with their sorts."""
    out: dict[str, str] = {}
    seen: set[int] = set()
    stack = [x for x in terms if isinstance(x, T)]
    while stack:
        t = stack.pop()
        if t.id in seen:
            continue
        seen.add(t.id)
        if t.op == "var":
            out[str(t.args[0])] = t.sort
        else:
            stack.extend(a for a in t.args if isinstance(a, T))
    return out
