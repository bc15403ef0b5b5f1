"""The values of the symbolic execution (symbolic.py) and what works on them: finite values, sets,
records and texts over terms, decisions, obligations, the trace, and the components' data."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TEnum, TInt, TMap, TRecord, TSet, TText, Type
from rulecheck.dsl.walk import walk_exprs, walk_stmts

from . import terms as tm
from .terms import Term

#: How many times an open-ended loop (repeat until, while) is unrolled by default.
DEFAULT_LOOP_BOUND = 3
#: A ``repeat N times`` of more passes than this is unrolled as an open loop is (--loop-bound
#: passes, a game that goes on past them reported): a trace of thousands of passes would not end.
MAX_UNROLL = 100
#: A draw whose number of cards the game decides is one draw per number it can be: at most this many.
MAX_DRAW_CASES = 32
#: A number put in a set of int (no declared range) is one of the numbers its bounds allow: at most this many.
MAX_INT_MEMBERS = 256


class Unsupported(Exception):
    """A construct the symbolic executor cannot encode. ``what`` names it ("a draw of a number of
    cards that depends on the game"), ``hint`` says what to write instead; ``span`` is where it is: the innermost
    expression or statement being executed when it was met, filled in on the way out (see ``ev``
    and ``stmt``). Where a check can do without it, the check becomes 'unknown'; where the game
    itself cannot be followed, ``rulecheck verify`` reports it as a diagnostic (E0701)."""

    def __init__(self, what: str, span: Span | None = None, hint: str | None = None) -> None:
        super().__init__(what, span, hint)  # (all in args: it crosses to the parent process)
        self.what = what
        self.span = span
        self.hint = hint

    def __str__(self) -> str:
        return self.what


@dataclass
class FD:
    """A value of a finite type (player, component, enum, choice): the condition for each
    possible value; where the value exists exactly one condition holds. ``origin``: a zone
    instance that holds every possible value (a component chosen from a zone), valid while the
    state version is ``ver``."""

    mem: dict[int, Term]
    origin: int | None = None
    ver: int = -1


@dataclass
class SymSet:
    """A set over a finite domain: each possible element with the condition under which it is in.
    ``origin``: a zone instance that holds every element, valid while the state version is
    ``ver``; ``whole``: the set is that zone's entire contents."""

    mem: dict[int, Term]
    origin: int | None = None
    ver: int = -1
    whole: bool = False

    def member(self, x: Value) -> Term:
        if isinstance(x, bool):
            x = int(x)
        if isinstance(x, int):
            return self.mem.get(x, False)
        f = as_fd(x, list(self.mem))
        return tm.or_all(tm.and_(c, self.mem[k]) for k, c in f.mem.items() if k in self.mem)

    def size(self) -> Term:
        return tm.count_true(self.mem.values())


@dataclass
class SymText:
    """A text that depends on the game: each text it can be, with the condition under which it is
    (where the value exists, exactly one holds). Rules never compute a text, only copy one, so the
    texts it can be are literals of the ruleset."""

    mem: dict[str, Term]


def as_text(v: Value) -> SymText:
    return v if isinstance(v, SymText) else SymText({str(v): True})


@dataclass
class SymMap:
    """What ``choose each`` binds: per seat, whether the player chose, and the value."""

    part: list[Term]
    val: list[Value]


@dataclass(frozen=True)
class SymRecord:
    """A record's entries: slot i is entry i + 1, as (whether it exists, its fields in
    declaration order); the slots that exist are a prefix. Comparisons of the length with
    numbers are then cardinality constraints, and reading entry i where it exists needs no
    arithmetic. ``slots`` None: a record of any length and content (a state of a game of any
    length), which cannot be read; ``free_length`` is then its length."""

    slots: tuple[tuple[Any, tuple[Any, ...]], ...] | None
    free_length: Any = 0

    @property
    def length(self) -> Any:
        if self.slots is None:
            return self.free_length
        return tm.count_true(ex for ex, _ in self.slots)


Value = Any  # bool | int | tm.T | FD | SymSet | SymMap | SymRecord | str | SymText
Env = ChainMap[str, Value]


@dataclass
class Decision:
    key: str
    kind: str  # "chance" (one card), "deal" (several cards at once), "player", "simultaneous"
    stmt: ir.Stmt
    active: Term
    sel: dict[int, Term]  # value -> selector
    player: Value
    options: SymSet
    order: int
    node: int  # decisions of one simultaneous node share it
    type: Type | None
    count: int = 1  # "deal": how many cards

    origin: tuple[int | None, int] = (None, -1)
    rule: Term = True  # where it is reached: exactly `count` legal options taken

    @property
    def value(self) -> FD:
        return FD(self.sel, self.origin[0], self.origin[1])


@dataclass
class Obligation:
    kind: str  # "incomplete", "conflict", "exhaustion", "range"
    span: Span
    subject: str
    message: str
    cond: Term
    site: int = 0  # the statement where it arises
    part: str = ""  # the part of the rule at fault, for a finding's title ("cases 'a' and 'b'")

    @property
    def key(self) -> ObligationKey:
        """Which rule fails and how: the failures of one key are one finding."""
        return (self.kind, self.span.line, self.span.col, self.subject)


#: An obligation's kind, line, column and subject (Obligation.key).
ObligationKey = tuple[str, int, int, str]


@dataclass
class AbstractCheck:
    """A statement's obligations re-evaluated over an abstract state: every location and
    variable a free atom, constrained only by facts true of every reachable state (each component
    in one zone, zone counts). Proving them there proves the statement's obligations without the
    game that leads to it; a counterexample there proves nothing."""

    site: int
    lemmas: list[Term]
    obligations: list[Obligation]
    # with ``compare_ends``: each invariant's truth in this abstract state of an end of the game,
    # with the winners this reading gives there, and the condition under which they fail
    facts: dict[str, Term] = field(default_factory=dict)
    failed: Term = False


@dataclass
class Reach:
    """Where a rule or branch applies, to find rules that never do."""

    label: str
    span: Span
    subject: str
    what: str
    # the conditions of each time it is reached, joined once when asked: joining them one by one
    # rebuilt an ever longer disjunction (quadratic in how often a rule is reached)
    parts: list[Term] = field(default_factory=list)
    joined: Term | None = None

    @property
    def cond(self) -> Term:
        if self.joined is None:
            self.joined = tm.or_all(self.parts)
        return self.joined

    def add(self, cond: Term) -> None:
        if cond is not False:
            self.parts.append(cond)
            self.joined = None


@dataclass
class Trace:
    players: int
    readings: dict[str, str]
    decisions: list[Decision]
    constraints: list[Term]
    obligations: list[Obligation]
    reach: dict[str, Reach]
    ended: Term
    stopped: Term
    winners: SymSet
    scores: dict[str, list[Value]]
    invariant_violations: list[tuple[ir.Invariant, Term]]
    loop_heads: dict[int, list[dict[str, Any]]]
    truncated: Term
    attr_vars: list[tm.T] = field(default_factory=list)
    abstract: list[AbstractCheck] = field(default_factory=list)
    data_constraints: int = 0  # the first constraints: the assumed data's domains, no game in them
    invariant_abstract: list[tuple[ir.Invariant, list[Term], Term]] = field(default_factory=list)
    drawn: Term = False  # the game ends in a draw

    @property
    def legal(self) -> Term:
        return tm.and_all(self.constraints)


# ---- finite values ----------------------------------------------------------------------------


def as_fd(v: Value, domain: list[int] | None = None) -> FD:
    if isinstance(v, FD):
        return v
    if isinstance(v, bool):
        return FD({int(v): True})
    if isinstance(v, int):
        return FD({v: True})
    if isinstance(v, tm.T):
        if v.sort == tm.BOOL:
            return FD({1: v, 0: tm.not_(v)})
        if domain is None:
            raise Unsupported("a number used as one of a finite set of values without a range", hint="give the number a range, e.g. 1..10")
        return FD({k: tm.eq(v, k) for k in domain})
    raise AssertionError(type(v).__name__)


def as_int(v: Value) -> Term:
    if isinstance(v, FD):
        items = sorted(v.mem.items())
        if not items:
            return 0
        out: Term = items[-1][0]
        for k, c in reversed(items[:-1]):
            out = tm.ite(c, k, out)
        return out
    if isinstance(v, bool):
        return int(v)
    return v  # type: ignore[no-any-return]


def as_bool(v: Value) -> Term:
    if isinstance(v, FD):
        return v.mem.get(1, False)
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v != 0
    return v  # type: ignore[no-any-return]


def scalar_eq(a: Value, b: Value) -> Term:
    if isinstance(a, FD) or isinstance(b, FD):
        fa = a if isinstance(a, FD) else None
        fb = b if isinstance(b, FD) else None
        if fa is not None and fb is not None:
            return tm.or_all(tm.and_(c, fb.mem[k]) for k, c in fa.mem.items() if k in fb.mem)
        f, other = (fa, b) if fa is not None else (fb, a)
        assert f is not None
        if isinstance(other, (bool, int)):
            return f.mem.get(int(other), False)
        return tm.eq(as_int(f), other)
    return tm.eq(a, b)


def merge(c: Term, a: Value, b: Value) -> Value:
    """if c then a else b, for every kind of value."""
    if c is True:
        return a
    if c is False:
        return b
    if isinstance(a, SymSet) or isinstance(b, SymSet):
        assert isinstance(a, SymSet) and isinstance(b, SymSet)
        keys = sorted(set(a.mem) | set(b.mem))
        return SymSet({k: tm.ite(c, a.mem.get(k, False), b.mem.get(k, False)) for k in keys})
    if isinstance(a, SymMap):
        assert isinstance(b, SymMap)
        return SymMap([tm.ite(c, x, y) for x, y in zip(a.part, b.part)], [merge(c, x, y) for x, y in zip(a.val, b.val)])
    if isinstance(a, SymRecord):
        assert isinstance(b, SymRecord)
        return merge_records(c, a, b)
    if isinstance(a, (str, SymText)) or isinstance(b, (str, SymText)):
        if isinstance(a, str) and a == b:
            return a
        ta, tb = as_text(a), as_text(b)
        mem = {k: tm.ite(c, ta.mem.get(k, False), tb.mem.get(k, False)) for k in sorted(set(ta.mem) | set(tb.mem))}
        return SymText({k: m for k, m in mem.items() if m is not False})
    if isinstance(a, dict):
        return {k: merge(c, a[k], b[k]) for k in a}
    if isinstance(a, FD) or isinstance(b, FD):
        if (isinstance(a, tm.T) and a.sort == tm.INT) or (isinstance(b, tm.T) and b.sort == tm.INT):
            return tm.ite(c, as_int(a), as_int(b))
        fa, fb = as_fd(a), as_fd(b)
        keys = sorted(set(fa.mem) | set(fb.mem))
        return FD({k: tm.ite(c, fa.mem.get(k, False), fb.mem.get(k, False)) for k in keys})
    return tm.ite(c, a, b)


def select(table: dict[int, Value], idx: Value) -> Value:
    if isinstance(idx, (bool, int)):
        return table[int(idx)]
    f = as_fd(idx, sorted(table))
    items = [(k, c) for k, c in sorted(f.mem.items()) if k in table and c is not False]
    if not items:
        return next(iter(table.values()))
    out = table[items[-1][0]]
    for k, c in reversed(items[:-1]):
        out = merge(c, table[k], out)
    return out


def set_eq(a: SymSet, b: SymSet) -> Term:
    keys = set(a.mem) | set(b.mem)
    return tm.and_all(tm.eq(a.mem.get(k, False), b.mem.get(k, False)) for k in sorted(keys))


def proc_env(proc: ir.Procedure, args: list[Value]) -> Env:
    """The locals a call of a procedure starts with: its formals bound to the arguments."""
    return ChainMap({n: v for (n, _), v in zip(proc.formals, args)})


def value_eq(a: Value, b: Value) -> Term:
    if isinstance(a, SymRecord) or isinstance(b, SymRecord):
        assert isinstance(a, SymRecord) and isinstance(b, SymRecord)
        return records_eq(a, b)
    if isinstance(a, SymSet) or isinstance(b, SymSet):
        assert isinstance(a, SymSet) and isinstance(b, SymSet)
        return set_eq(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return bool(a == b)
    if isinstance(a, (str, SymText)) or isinstance(b, (str, SymText)):
        ta, tb = as_text(a), as_text(b)
        return tm.or_all(tm.and_(m, tb.mem[k]) for k, m in ta.mem.items() if k in tb.mem)
    return scalar_eq(a, b)


def value_key(v: Value) -> Any:
    """A hashable identity of a value, for caching definition calls."""
    if isinstance(v, SymSet):
        return ("set", tuple((k, _tk(m)) for k, m in sorted(v.mem.items())))
    if isinstance(v, FD):
        return ("fd", tuple((k, _tk(m)) for k, m in sorted(v.mem.items())))
    if isinstance(v, SymText):
        return ("text", tuple((k, _tk(m)) for k, m in sorted(v.mem.items())))
    if isinstance(v, tm.T):
        return ("t", v.id)
    if isinstance(v, (SymMap, SymRecord)):
        return ("map", id(v))
    if isinstance(v, bool):
        return ("b", v)
    return v


def _tk(m: Term) -> Any:
    return ("t", m.id) if isinstance(m, tm.T) else m


def default_of(t: Type) -> Value:
    if isinstance(t, TSet):
        return SymSet({})
    if isinstance(t, TBool):
        return False
    if isinstance(t, TText):
        return ""
    if isinstance(t, TMap):
        raise Unsupported("a per-player choice as a result", hint="pass one player's choice instead, e.g. choice[p]")
    return 0


def const_value(raw: Any) -> Value:
    if isinstance(raw, frozenset):
        return SymSet({int(v): True for v in sorted(raw)})
    return raw


# ---- component attributes ---------------------------------------------------------------------


class AttrSource:
    """Component attributes: the table's values, or free variables over each attribute's domain
    when a check asks whether a result holds for every possible table (sensitivity)."""

    def __init__(self, rules: ir.Ruleset, values: list[dict[str, Any]], symbolic: set[tuple[str, str]] | None = None) -> None:
        self.rules = rules
        self.values = values
        self.symbolic = symbolic or set()
        self.vars: list[tm.T] = []
        self.constraints: list[Term] = []
        self._cache: dict[tuple[int, str], Value] = {}

    def get(self, cid: int, attr: str) -> Value:
        key = (cid, attr)
        if key not in self._cache:
            comp = self.rules.components[cid]
            t = self.rules.kinds[comp.kind].attrs[attr]
            if (comp.kind, attr) in self.symbolic:
                self._cache[key] = self._symbolic(cid, comp.kind, attr, t)
            else:
                self._cache[key] = const_value(self.values[cid][attr])
        return self._cache[key]

    def _symbolic(self, cid: int, kind: str, attr: str, t: Type) -> Value:
        name = f"attr|{kind}|{cid}|{attr}"
        if isinstance(t, TBool):
            b = tm.bool_var(name)
            self.vars.append(b)
            return b
        if isinstance(t, TEnum) or (isinstance(t, TInt) and t.lo is not None and t.hi is not None):
            dom = list(range(len(self.rules.enums[t.name].values))) if isinstance(t, TEnum) else list(range(t.lo, t.hi + 1))  # type: ignore[arg-type, operator]
            atoms = {k: tm.bool_var(f"{name}|{k}") for k in dom}
            self.vars.extend(atoms.values())
            self.constraints.append(tm.pb_eq(atoms.values(), 1))
            return FD(dict(atoms))
        if isinstance(t, TSet) and isinstance(t.elem, TEnum):
            mem: dict[int, Term] = {}
            for k in range(len(self.rules.enums[t.elem.name].values)):
                b = tm.bool_var(f"{name}|{k}")
                self.vars.append(b)
                mem[k] = b
            return SymSet(mem)
        raise Unsupported(f"attribute {kind}.{attr} of type {t.show()} with values left free", hint="give the attribute a range or an enum type")


# ---- static keys --------------------------------------------------------------------------------


def ordinals(body: list[ir.Stmt]) -> dict[int, str]:
    """Names for calls, loops and decisions that do not depend on statement numbers, so that the
    same decision gets the same variables under two readings whose procedures differ: the second
    call of a procedure within a body is ``call:name#2``; decisions are keyed by label and
    occurrence."""
    counts: dict[str, int] = {}
    out: dict[int, str] = {}

    def bump(tag: str) -> str:
        counts[tag] = counts.get(tag, 0) + 1
        return f"{tag}#{counts[tag]}"

    stack = list(reversed(body))
    while stack:
        s = stack.pop()
        if isinstance(s, ir.CallProc):
            out[s.sid] = bump(f"call:{s.name}")
        elif isinstance(s, (ir.ForEach, ir.Repeat, ir.RepeatUntil, ir.While)):
            out[s.sid] = bump("loop")
        elif isinstance(s, ir.Draw):
            out[s.sid] = bump("draw")
        elif isinstance(s, (ir.Choose, ir.ChooseEach)):
            out[s.sid] = bump(f"choose:{s.label}")
        elif isinstance(s, ir.Observe):
            out[s.sid] = bump(f"observe:{s.label}")
        for f in ("then", "else_", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                stack.extend(reversed(sub))
    return out


def merge_records(c: Term, a: SymRecord, b: SymRecord) -> SymRecord:
    """if c then a else b for records, slot by slot (a missing slot does not exist)."""
    if a.slots is None or b.slots is None:
        raise Unsupported("a record in a state of a game of any length")
    n = max(len(a.slots), len(b.slots))
    fill = (a.slots or b.slots)[0][1] if (a.slots or b.slots) else ()
    pad_a = a.slots + ((False, fill),) * (n - len(a.slots))
    pad_b = b.slots + ((False, fill),) * (n - len(b.slots))
    return SymRecord(tuple((tm.ite(c, xa, xb), tuple(merge(c, x, y) for x, y in zip(fa, fb)))
                           for (xa, fa), (xb, fb) in zip(pad_a, pad_b)))


def append_record(rec: SymRecord, cond: Term, entry: tuple[Value, ...]) -> SymRecord:
    """The record with ``entry`` after its last entry, where ``cond`` holds: in the first slot
    that does not exist yet."""
    if cond is False:
        return rec
    if rec.slots is None:
        raise Unsupported("a record in a state of a game of any length")
    out: list[tuple[Term, tuple[Value, ...]]] = []
    before: Term = True  # the slot before exists
    for ex, fields in [*rec.slots, (False, entry)]:
        here = tm.and_(cond, tm.not_(ex), before)
        out.append((tm.or_(ex, here), tuple(merge(here, x, y) for x, y in zip(entry, fields))))
        before = ex
    while out and out[-1][0] is False:
        out.pop()  # a slot no game fills
    return SymRecord(tuple(out))


def records_eq(a: SymRecord, b: SymRecord) -> Term:
    """The same entries: the same slots exist, and each that does holds the same fields."""
    if a.slots is None or b.slots is None:
        raise Unsupported("a record in a state of a game of any length")
    parts: list[Term] = []
    n = max(len(a.slots), len(b.slots))
    for i in range(n):
        xa, fa = a.slots[i] if i < len(a.slots) else (False, ())
        xb, fb = b.slots[i] if i < len(b.slots) else (False, ())
        parts.append(tm.eq(xa, xb))
        if fa and fb:
            parts.append(tm.implies(xa, tm.and_all(value_eq(x, y) for x, y in zip(fa, fb))))
    return tm.and_all(parts)


def differing(a: dict[int, Term], b: dict[int, Term]) -> set[int]:
    """The zones where two locations of a component are not the same term."""
    return {z for z in {*a, *b} if a.get(z, False) is not b.get(z, False)}


def free_locals(e: ir.Expr) -> set[str]:
    """Names an expression reads that neither the state nor the expression itself binds
    (approximately: names bound anywhere in it count as bound)."""
    found = list(walk_exprs(e))
    return {x.name for x in found if isinstance(x, ir.Local)} - {x.var for x in found if isinstance(x, ir.Agg)}


def texts_of(program: ir.Program) -> set[str]:
    """The texts of a program: its literals, its variables' and parameters' values, its tables'
    (rules only copy texts, so these are all a text value can be)."""
    rules = program.rules
    out: set[str] = {""}
    roots: list[object] = [rules.flow, *(i.expr for i in rules.invariants)]
    for d in program.defs.values():
        roots += [d.body, d.otherwise, *[x for c in d.cases or [] for x in (c.guard, c.value)]]
    roots += [p.body for p in program.procs.values() if p.body]
    for root in roots:
        if root is not None:
            out.update(e.value for e in walk_exprs(root) if isinstance(e, ir.Const) and isinstance(e.value, str))
    out.update(v for v in [*(x.init for x in rules.vars.values()), *(x.value for x in rules.params.values())] if isinstance(v, str))
    out.update(v for c in rules.components for v in c.attrs.values() if isinstance(v, str))
    return out


def free_text(texts: list[str], name: str, lemmas: list[Term]) -> SymText:
    sel: dict[str, Term] = {k: tm.bool_var(f"{name}|{i}") for i, k in enumerate(texts)}
    lemmas.append(tm.pb_eq(sel.values(), 1))
    return SymText(sel)


def abstract_value(v: Value, t: Type, name: str, lemmas: list[Term]) -> Value:
    """A free value of the same shape as v (v itself when it is a constant)."""
    if isinstance(v, SymText):
        return free_text(sorted(v.mem), name, lemmas)
    if isinstance(v, SymRecord):
        assert isinstance(t, TRecord)
        if v.slots is None or all(isinstance(x, (bool, int, str)) for ex, fields in v.slots for x in (ex, *fields)):
            return v
        slots: list[tuple[Term, tuple[Value, ...]]] = []
        for i, (ex, fields) in enumerate(v.slots):
            free_ex = tm.bool_var(f"{name}|{i}|exists") if isinstance(ex, tm.T) else ex
            if i > 0:
                lemmas.append(tm.implies(free_ex, slots[-1][0]))  # the entries are a prefix
            slots.append((free_ex, tuple(abstract_value(x, ft, f"{name}|{i}|{f}", lemmas) if isinstance(x, (tm.T, FD)) else x
                                         for x, (f, ft) in zip(fields, t.fields))))
        return SymRecord(tuple(slots))
    if isinstance(v, SymSet):
        if all(not isinstance(m, tm.T) for m in v.mem.values()):
            return v
        return SymSet({k: (tm.bool_var(f"{name}|{k}") if isinstance(m, tm.T) else m) for k, m in v.mem.items()})
    if isinstance(v, FD):
        sel: dict[int, Term] = {k: tm.bool_var(f"{name}|{k}") for k in v.mem}
        lemmas.append(tm.pb_eq(sel.values(), 1))
        return FD(sel)
    if isinstance(v, tm.T):
        if v.sort == tm.BOOL:
            return tm.bool_var(name)
        x = tm.int_var(name, t.lo, t.hi) if isinstance(t, TInt) else tm.int_var(name)
        if isinstance(t, TInt) and t.lo is not None:
            lemmas.append(tm.ge(x, t.lo))
        if isinstance(t, TInt) and t.hi is not None:
            lemmas.append(tm.le(x, t.hi))
        return x
    return v


def sum_shape(e: ir.Expr) -> bool:
    """Is ``e`` written as a sum of zone sizes and numbers (see SymExec.zone_total)? Read off
    the syntax, so that other sums cost nothing extra."""
    if isinstance(e, ir.Const):
        return True
    if isinstance(e, ir.Builtin):
        return e.op == "size" and isinstance(e.args[0], ir.ZoneRef)
    if isinstance(e, ir.BinOp):
        return e.op in ("+", "-") and sum_shape(e.left) and sum_shape(e.right)
    return isinstance(e, ir.Agg) and e.op == "sum" and e.filt is None and sum_shape(e.elem)


def cover_shape(e: ir.Expr) -> bool:
    """Is ``e`` written as "x in one of these zones" (see SymExec.in_some_zone)?"""
    if isinstance(e, ir.BinOp):
        if e.op == "in":
            return isinstance(e.right, ir.ZoneRef)
        return e.op == "or" and cover_shape(e.left) and cover_shape(e.right)
    return isinstance(e, ir.Agg) and e.op == "any" and e.filt is None and cover_shape(e.elem)


def merge_counts(zid: FD, counts: dict[int, Term]) -> FD | Term:
    items = sorted(zid.mem.items())
    out: Term = counts[items[-1][0]]
    for z, c in reversed(items[:-1]):
        out = tm.ite(c, counts[z], out)
    return out


def _upper_bound(t: Type, default: int) -> int:
    if isinstance(t, TInt) and t.hi is not None:
        return max(0, t.hi)
    return default


def iter_decisions(trace: Trace, assignment: dict[str, bool | int]) -> Iterator[Decision]:
    """The decisions a concrete game takes, in order."""
    active = tm.Evaluator(assignment)
    for d in trace.decisions:
        if active(d.active):
            yield d


def decision_value(d: Decision, assignment: dict[str, bool | int]) -> list[int]:
    """The value(s) a decision took under an assignment (several for a deal)."""
    return [k for k, b in d.sel.items() if tm.evaluate(b, assignment)]


def statements(program: ir.Program) -> Iterator[ir.Stmt]:
    yield from walk_stmts(program.rules.flow)
    for p in program.procs.values():
        if p.body:
            yield from walk_stmts(p.body)
