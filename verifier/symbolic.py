"""Bounded symbolic execution of the IR: the interpreter's semantics over terms.

Every chance outcome and every player choice becomes a set of boolean selectors (one per legal
value, exactly one of them true where the decision is reached); loops are unrolled (fixed counts
exactly, open-ended loops up to a bound); branches run under guards and merge with if-then-else.
Where a component is, which value a choice took, and which element a ``the`` picked are all kept
as one boolean per possible value ("one-hot"), so the solver works on booleans and cardinality
constraints rather than on arithmetic over ids. The result is a :class:`Trace`: the outcome as
terms, the decisions in the order they are made, the legality constraints, and the obligations
(situations no rule settles) with the condition under which each arises.

This module builds conditions only; it imports no solver (see z3backend.py). It mirrors
interpreter/semantics.py statement by statement; tests check that the two agree.
"""

from __future__ import annotations

import itertools
from collections import ChainMap, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.checker import MAX_RANGE
from rulecheck.dsl.inplay import in_play_of, out_of_play
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import MAX_INT, TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TRecord, TSet, TText, Type
from rulecheck.dsl.values import place_number
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


def _default_of(t: Type) -> Value:
    if isinstance(t, TSet):
        return SymSet({})
    if isinstance(t, TBool):
        return False
    if isinstance(t, TText):
        return ""
    if isinstance(t, TMap):
        raise Unsupported("a per-player choice as a result", hint="pass one player's choice instead, e.g. choice[p]")
    return 0


def _const_value(raw: Any) -> Value:
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
                self._cache[key] = _const_value(self.values[cid][attr])
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


def _ordinals(body: list[ir.Stmt]) -> dict[int, str]:
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


class SymExec:
    def __init__(
        self,
        program: ir.Program,
        n: int,
        params: dict[str, Any] | None = None,
        attrs: AttrSource | None = None,
        loop_bound: int = DEFAULT_LOOP_BOUND,
        watch_invariants: bool = True,
        drained: dict[int, int] | None = None,
        shadow: dict[str, ir.Definition] | None = None,
        compare: frozenset[str] = frozenset(),
        displaced: dict[str, ir.Procedure] | None = None,
        compare_ends: bool = False,
        compare_procs: frozenset[str] = frozenset(),
    ) -> None:
        from rulecheck.interpreter.semantics import resolve_params

        self.p = program
        self.rules = program.rules
        self.n = n
        values, attr_values = resolve_params(self.rules, params)
        self.params = values
        # parameters are concrete in a run, so the components out of play are known: in no zone,
        # and no zone or variable has an entry for them (as in the interpreter)
        self.out = out_of_play(self.rules, values, n)
        self.attrs = attrs or AttrSource(self.rules, attr_values)
        self.loop_bound = loop_bound
        self.drained = drained or {}  # loop sid -> most passes, for loops proven to end
        # Other versions of some definitions (``shadow``). A call of a definition in ``compare``
        # (those definitions and some of their callers) from outside that set is evaluated twice
        # in the same state, once with the other versions, and a "diverge" obligation records
        # where the two values can disagree.
        self.shadow = shadow or {}
        self.compare = compare
        self.mode = 0  # 0: plain; 1: inside a compared call (no nested comparing); 2: the other versions
        # Procedures run under both versions of ``shadow`` at each call from outside a compared
        # call, side by side from the same state (see product.py); their decisions' selectors are
        # named with ``sel_prefix``, which the other versions' run changes.
        self.compare_procs = compare_procs
        self.sel_prefix = "d"
        # Other versions of some procedures (``displaced``), which may leave components elsewhere.
        # Both versions run at each call; a component they leave in different places gets its
        # other location in ``alt_loc`` (the other reading's state is this one with those
        # locations), and from then on every expression a statement evaluates is evaluated in
        # both states: a "diverge" obligation records where the two values can differ. Where
        # none can, the two readings play every game alike.
        self.displaced = displaced or {}
        for proc in [*self.displaced.values(), *(program.procs[name] for name in self.displaced)]:
            if proc.body is None or any(isinstance(x, (ir.Assign, ir.Choose, ir.ChooseEach, ir.Draw, ir.End, ir.CallProc))
                                        for x in walk_stmts(proc.body)):
                raise Unsupported(f"a version of '{proc.name}' that sets variables, makes choices or calls procedures")
        self.alt_loc: dict[int, dict[int, Term]] = {}
        self.moves: dict[int, tuple[Term, set[int]]] | None = None  # per component: when and where it moves
        self.no_compare = 0  # >0: inside an evaluation already compared, a say, or a displaced procedure
        self.watch_invariants = watch_invariants
        # compare the winners of each end of the game under both versions (``shadow``), over an
        # abstract state of it: see end_comparison
        self.compare_ends = compare_ends
        self.zone_ids: dict[tuple[str, Any], int] = {}
        self.zone_domains: dict[str, list[int] | None] = {}
        for z in self.rules.zones.values():
            dom = None if z.index is None else self.domain(z.index)
            self.zone_domains[z.name] = dom
            for idx in [None] if dom is None else dom:
                self.zone_ids[(z.name, idx)] = len(self.zone_ids)
        # a place (type place) is numbered as in values.place_table, whatever the player count
        self.zid_place: dict[int, int] = {zid: place_number(self.rules, zone, idx) for (zone, idx), zid in self.zone_ids.items()}
        self.zone_kinds: dict[str, list[int]] = {
            z.name: [c.cid for c in self.rules.components if c.kind in z.kinds and c.cid not in self.out] for z in self.rules.zones.values()
        }
        self.loc: list[dict[int, Term]] = []
        self.counts: dict[int, Term] = dict.fromkeys(range(len(self.zone_ids)), 0)
        for comp in self.rules.components:
            if comp.cid in self.out:
                self.loc.append({})
                continue
            start = self.zone_ids[(self.rules.kinds[comp.kind].start_zone, None)]
            self.loc.append({start: True})
            self.counts[start] = tm.add(self.counts[start], 1)
        self.vars: dict[str, Any] = {}
        for v in self.rules.vars.values():
            init = SymRecord(()) if isinstance(v.type, TRecord) else _const_value(v.init)
            self.vars[v.name] = init if v.index is None else {i: init for i in self.domain(v.index)}
        self.adjacency = {b.name: [set(b.neighbours(k)) for k in range(len(b.spaces))] for b in self.rules.boards.values()}
        self.ended: Term = False
        self.drawn: Term = False  # the game ended in a draw (`end draw`)
        self.stopped: Term = False
        # the definitions' cache is keyed by what each one reads: the components' locations, the
        # variables it names, the winners; each has a version of its own (``fresh`` numbers), so a
        # move does not evaluate again a definition of variables alone, nor an assignment one of
        # other variables or of zones
        self.fresh = itertools.count(1)
        self.loc_ver = 0
        self.var_ver: dict[str, int] = dict.fromkeys(self.rules.vars, 0)
        self.win_ver = 0
        self.def_reads: dict[str, tuple[bool, tuple[str, ...], bool]] = {}
        self.winners = SymSet({q: False for q in range(n)})
        self.decisions: list[Decision] = []
        self.constraints: list[Term] = list(self.attrs.constraints)
        self.data_known = len(self.attrs.constraints)  # the data's domains made before this run
        self.obligations: list[Obligation] = []
        self.reach: dict[str, Reach] = {}
        self.errs: list[Term] | None = None  # errors raised while evaluating the current statement
        self.path: list[str] = []
        self.texts = _texts(program) | {v for v in self.params.values() if isinstance(v, str)}  # every text a value can be
        self.ordinals: dict[int, str] = _ordinals(self.rules.flow)
        for proc in [*program.procs.values(), *(displaced or {}).values()]:
            if proc.body:
                self.ordinals.update(_ordinals(proc.body))
        self.version = 0
        self.def_cache: dict[tuple[Any, ...], tuple[Value, list[tuple[Obligation, Term]], list[tuple[Reach, Term]]]] = {}
        self.nodes = 0
        self.invariant_violations: list[tuple[ir.Invariant, Term]] = []
        self.loop_heads: dict[int, list[dict[str, Any]]] = {}
        self.truncated: Term = False
        # a zone's count kept as a term through every move (not the count of its members once
        # a move makes it unknown): see induction.py
        self.exact_counts = False
        self.struct: Term = True
        self.site = 0
        self.abstract: list[AbstractCheck] = []
        self.abstract_states = 0
        self.invariant_abstract: list[tuple[ir.Invariant, list[Term], Term]] = []
        self.invariant_version: dict[str, int] = {}  # the state version last checked abstractly

    @property
    def winners(self) -> SymSet:
        return self._winners

    @winners.setter
    def winners(self, w: SymSet) -> None:
        self._winners = w
        self.win_ver = next(self.fresh)

    # ---- domains and zones ------------------------------------------------------------------

    def domain(self, t: Type) -> list[int]:
        if isinstance(t, TPlayer):
            return list(range(self.n))
        if isinstance(t, TComp):
            return [c.cid for c in self.rules.components_of(t.kind) if c.cid not in self.out]
        if isinstance(t, TEnum):
            return list(range(len(self.rules.enums[t.name].values)))
        if isinstance(t, TBool):
            return [0, 1]
        if isinstance(t, TPlace):
            return sorted(self.zid_place.values())
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return list(range(t.lo, t.hi + 1))
        raise Unsupported(f"values of type {t.show()} as members of a set or as choices (verify keeps one boolean per possible value, and {t.show()} has no bounds)", hint="give the numbers a range, e.g. set of 1..10")

    def place_of(self, zid: Value) -> Value:
        """The place (values.place_table) of a zone instance: an int, or an FD over places."""
        if isinstance(zid, (bool, int)):
            return self.zid_place[int(zid)]
        assert isinstance(zid, FD)
        return FD({self.zid_place[z]: c for z, c in sorted(zid.mem.items())})

    def where(self, comp: Value) -> Value:
        """``where(c)``: the place of a component (an FD over the places it can be in)."""
        if isinstance(comp, (bool, int)):
            return FD({self.zid_place[z]: c for z, c in sorted(self.loc[int(comp)].items())})
        f = as_fd(comp, [c.cid for c in self.rules.components])
        return select({k: self.where(k) for k in f.mem}, f)

    def zone_id(self, zone: str, idx: Value | None) -> Value:
        """The zone instance: an int, or an FD over instances when the index is symbolic."""
        dom = self.zone_domains[zone]
        if dom is None:
            return self.zone_ids[(zone, None)]
        assert idx is not None
        if isinstance(idx, (bool, int)):
            return self.zone_ids[(zone, int(idx))]
        f = as_fd(idx, dom)
        return FD({self.zone_ids[(zone, k)]: c for k, c in f.mem.items() if (zone, k) in self.zone_ids})

    def in_zone(self, cid: int, zid: Value) -> Term:
        loc = self.loc[cid]
        if isinstance(zid, int):
            return loc.get(zid, False)
        assert isinstance(zid, FD)
        return tm.or_all(tm.and_(c, loc[z]) for z, c in zid.mem.items() if z in loc)

    def zone_members(self, zone: str, idx: Value | None) -> SymSet:
        zid = self.zone_id(zone, idx)
        mem = {c: self.in_zone(c, zid) for c in self.zone_kinds[zone]}
        if isinstance(zid, int):
            return SymSet(mem, zid, self.loc_ver, True)
        return SymSet(mem)

    def zone_count(self, zone: str, idx: Value | None) -> Term:
        zid = self.zone_id(zone, idx)
        if isinstance(zid, int) and zid in self.counts:
            return self.counts[zid]
        if isinstance(zid, FD) and all(z in self.counts for z in zid.mem):
            return as_int(merge_counts(zid, self.counts))
        return self.zone_members(zone, idx).size()

    def move(self, cid: int, dst: Value, cond: Term, count: bool = True, one: dict[int, tuple[list[Term], list[Term]]] | None = None) -> None:
        """Move one component under a condition, keeping every zone's count exact (a caller that
        knows the counts better updates them itself and passes count=False; one that moves one
        of several components gets, in ``one``, the conditions under which it came to or left
        each zone)."""
        if cond is False:
            return
        dsts = {dst: True} if isinstance(dst, int) else dict(dst.mem)
        cur = self.loc[cid]
        if self.moves is not None:
            when, where = self.moves.get(cid, (False, set()))
            self.moves[cid] = (tm.or_(when, cond), where | set(dsts))
        if cid in self.alt_loc and not self.no_compare:  # the same move in the other state
            alt = self.alt_loc[cid]
            moved = {z: tm.or_(tm.and_(cond, dsts.get(z, False)), tm.and_(tm.not_(cond), alt.get(z, False))) for z in sorted(set(alt) | set(dsts))}
            self.alt_loc[cid] = {z: c for z, c in moved.items() if c is not False}
        new: dict[int, Term] = {}
        for z in sorted(set(cur) | set(dsts)):
            here = cur.get(z, False)
            arrive = tm.and_(cond, dsts.get(z, False))
            new[z] = tm.or_(arrive, tm.and_(tm.not_(cond), here))
            if not count or z not in self.counts:
                continue
            came = tm.and_(arrive, tm.not_(here))
            left = tm.and_(cond, here, tm.not_(dsts.get(z, False)))
            if one is not None:
                one.setdefault(z, ([], []))
                one[z][0].append(came)
                one[z][1].append(left)
            elif came is not False or left is not False:
                if self.exact_counts:
                    self.counts[z] = tm.sub(tm.add(self.counts[z], tm.bool_to_int(came)), tm.bool_to_int(left))
                else:
                    # a zone whose count stops being a number is counted by its members instead
                    del self.counts[z]
        self.loc[cid] = {z: c for z, c in new.items() if c is not False}

    # ---- guards, errors, reach ------------------------------------------------------------

    def live(self, g: Term) -> Term:
        # a game cut at the loop bound has left the model: what follows the cut loop would run
        # from a state the game never reaches there, so nothing after it is live (its decisions
        # are no moves to compare, its failures no findings)
        return tm.and_(g, tm.not_(self.ended), tm.not_(self.stopped), tm.not_(self.truncated))

    def fail(self, kind: str, span: Span, subject: str, message: str, cond: Term, part: str = "") -> None:
        if cond is False:
            return
        self.obligations.append(Obligation(kind, span, subject, message, cond, self.site, part))
        if self.errs is not None:
            self.errs.append(cond)
        else:
            self.stopped = tm.or_(self.stopped, cond)

    def reached(self, label: str, span: Span, subject: str, what: str, cond: Term) -> None:
        r = self.reach.get(label)
        if r is None:
            r = self.reach[label] = Reach(label, span, subject, what)
        r.add(cond)

    def settle(self) -> Term:
        """Errors of the statement just evaluated stop the game where they happen; returns the
        condition under which none happened."""
        errs = tm.or_all(self.errs or [])
        if errs is not False:
            self.stopped = tm.or_(self.stopped, errs)
        self.errs = None
        return tm.not_(errs)

    # ---- running ----------------------------------------------------------------------------

    def flow_obligation(self) -> None:
        """At the end of the flow: some 'end winners' must have been reached."""
        self.fail(
            "incomplete", self.rules.flow[-1].span if self.rules.flow else Span(1, 1, 1, 1), "flow",
            "the flow ends without a result: no 'end winners' is reached",
            tm.and_(tm.not_(self.ended), tm.not_(self.stopped), tm.not_(self.truncated)),
        )

    def run(self) -> Trace:
        self.block(self.rules.flow, ChainMap(), True)
        # true by construction, but the solver would have to rediscover it through every move:
        # each component is in exactly one zone, and each zone holds as many as its count says
        # (a component out of play is in none)
        for cid, loc in enumerate(self.loc):
            if cid not in self.out:
                self.constraints.append(tm.pb_eq(loc.values(), 1))
        # the domains of the free data this run read (made as it read them): without them a model
        # could give an attribute two values at once, or none, and be no table at all
        self.constraints[self.data_known:self.data_known] = self.attrs.constraints[self.data_known:]

        self.flow_obligation()
        if self.watch_invariants:
            done = tm.and_(self.ended, tm.not_(self.stopped))
            for inv in self.rules.invariants:
                ok = self.eval_pure(inv.expr, ChainMap(), done)
                # one violation per conjunct (a player's part of an 'all'): the same goal, which
                # the solver can take one part at a time
                for part in (ok.args if isinstance(ok, tm.T) and ok.op == "and" else [ok]):
                    self.invariant_violations.append((inv, tm.and_(done, tm.not_(part))))
            self.abstract_invariants([inv for inv in self.rules.invariants if inv.at_end])
        scores = {v.name: [self.vars[v.name][q] for q in range(self.n)] for v in self.rules.vars.values() if v.score}
        return Trace(
            self.n, dict(self.p.readings), self.decisions, self.constraints, self.obligations, self.reach,
            self.ended, self.stopped, self.winners, scores, self.invariant_violations, self.loop_heads,
            self.truncated, list(self.attrs.vars), self.abstract, len(self.attrs.constraints), self.invariant_abstract,
            self.drawn,
        )

    def check_always_invariants(self, g: Term) -> None:
        if not self.watch_invariants or g is False:
            return
        abstract = []
        for inv in self.rules.invariants:
            if not inv.at_end:
                ok = self.eval_pure(inv.expr, ChainMap(), g)
                self.invariant_violations.append((inv, tm.and_(g, tm.not_(ok))))
                if ok is not True:  # true here whatever the game: nothing to prove abstractly
                    abstract.append(inv)
        self.abstract_invariants(abstract)

    def abstract_invariants(self, invs: list[ir.Invariant]) -> None:
        """The invariants over the abstract state of this point (once per state version): when one
        holds there at every point, it holds in every game, whatever the game that leads there.
        One abstract state for all of them: questions over the same background are asked together
        (see Verifier.solve_all)."""
        invs = [inv for inv in invs if self.invariant_version.get(inv.name) != self.version]
        if not invs:
            return
        for inv in invs:
            self.invariant_version[inv.name] = self.version
        lemmas, (oks, _) = self.over_abstract_state(f"inv|{self.abstract_states}",
                                                    lambda: [self.eval_pure(inv.expr, ChainMap(), True) for inv in invs])
        for inv, ok in zip(invs, oks):
            self.invariant_abstract.append((inv, lemmas, tm.not_(ok)))

    def eval_pure(self, e: ir.Expr, env: Env, g: Term) -> Term:
        """A condition that must hold; an evaluation that fails counts as not holding."""
        saved_errs, saved_obl = self.errs, self.obligations
        self.errs, self.obligations = [], []
        try:
            v = as_bool(self.ev(e, env, g))
            errs = self.errs
        finally:
            self.errs, self.obligations = saved_errs, saved_obl
        return tm.and_(v, tm.not_(tm.or_all(errs)))

    def block(self, stmts: list[ir.Stmt], env: Env, g: Term) -> None:
        env = env.new_child()  # let binds in this block; set finds the block that bound the name
        for s in stmts:
            live = self.live(g)
            if live is False:
                return
            self.struct = g
            self.stmt(s, env, live)

    def stmt(self, s: ir.Stmt, env: Env, g: Term) -> None:
        """Execute one statement where ``g`` holds (the path to it, the game not over);
        ``self.struct`` is the path alone, which keeps zone counts independent of errors."""
        try:
            self.stmt1(s, env, g)
        except Unsupported as exc:
            if exc.span is None:  # not met in an expression: the statement's own
                exc.span = s.span
                exc.args = (exc.what, exc.span, exc.hint)
            raise

    def stmt1(self, s: ir.Stmt, env: Env, g: Term) -> None:
        self.errs = []
        self.site = s.sid
        struct = self.struct
        if isinstance(s, ir.Let):
            env[s.name] = self.ev(s.value, env, g)
            self.settle()
        elif isinstance(s, ir.Assign):
            v = self.ev(s.value, env, g)
            self.check_range(v, s.type, s.span, s.name, tm.and_(g, tm.not_(tm.or_all(self.errs))))
            idx = self.entry(s.index, env, g, self.rules.vars[s.name].index, s.name) if not s.local else None
            ok = tm.and_(g, self.settle())
            if s.local:
                scope = next(m for m in env.maps if s.name in m)
                scope[s.name] = merge(ok, v, scope[s.name])
            elif idx is None:
                self.vars[s.name] = merge(ok, v, self.vars[s.name])
                self.var_ver[s.name] = next(self.fresh)
            else:
                table = self.vars[s.name]
                f = as_fd(idx, sorted(table))
                for k, c in f.mem.items():
                    if k in table:
                        table[k] = merge(tm.and_(ok, c), v, table[k])
                self.var_ver[s.name] = next(self.fresh)
            self.version += 1
        elif isinstance(s, ir.Move):
            what = self.ev(s.what, env, g)
            idx = self.entry(s.index, env, g, self.rules.zones[s.zone].index, s.zone)
            struct = self.struct
            ok = tm.and_(g, self.settle())
            zid = self.zone_id(s.zone, idx)
            known = self.known_move(what, zid)
            if isinstance(what, SymSet):
                for c, m in sorted(what.mem.items()):
                    self.move(c, zid, tm.and_(ok, m), count=known is None)
            else:
                f = as_fd(what, self.comp_domain(s.what.type))
                # one component of several moves: a zone gains or loses one where any of them
                # came or left (one boolean, where a sum over the components is an adder)
                one: dict[int, tuple[list[Term], list[Term]]] | None = {} if self.exact_counts and known is None else None
                for c, m in sorted(f.mem.items()):
                    self.move(c, zid, tm.and_(ok, m), count=known is None, one=one)
                for z, (came, left) in sorted((one or {}).items()):
                    self.counts[z] = tm.sub(tm.add(self.counts[z], tm.bool_to_int(tm.or_all(came))), tm.bool_to_int(tm.or_all(left)))
            if known is not None:
                src, moved = known
                assert isinstance(zid, int)
                step = tm.mul(moved, tm.bool_to_int(struct))
                self.counts[src] = tm.sub(self.counts[src], step)
                self.counts[zid] = tm.add(self.counts[zid], step)
            self.version += 1
            self.loc_ver = next(self.fresh)
        elif isinstance(s, ir.Draw):
            self.draw(s, env, g)
        elif isinstance(s, ir.Choose):
            self.choose(s, env, g)
        elif isinstance(s, ir.ChooseEach):
            self.choose_each(s, env, g)
        elif isinstance(s, ir.If):
            c = as_bool(self.ev(s.cond, env, g))
            ok = tm.and_(g, self.settle())
            then_g = tm.and_(ok, c)
            else_g = tm.and_(ok, tm.not_(c))
            self.reached(ir.label_if(s.sid, True), s.span, "if", "the 'then' branch of this if", then_g)
            self.reached(ir.label_if(s.sid, False), s.span, "if", "the 'else' branch of this if" if s.else_ else "the case where this if does nothing", else_g)
            # nested blocks follow the path; each statement in them adds "the game goes on" itself
            if then_g is not False:
                self.block(s.then, env, tm.and_(struct, c))
            if else_g is not False:
                self.block(s.else_, env, tm.and_(struct, tm.not_(c)))
        elif isinstance(s, ir.ForEach):
            self.for_each(s, env, g, struct)
        elif isinstance(s, ir.Repeat):
            count = as_int(self.ev(s.count, env, g))
            ok = tm.and_(g, self.settle())
            bound = _upper_bound(s.count.type, self.loop_bound) if isinstance(count, tm.T) else max(0, int(count))
            too_many = bound > MAX_UNROLL
            if too_many:
                # more passes than a trace can hold: explored as an open loop is, and a game that
                # goes on past them is reported (truncated below), never cut silently
                bound = self.loop_bound
            self.path.append(self.ordinals[s.sid])
            for i in range(bound):
                gi = tm.and_(struct, tm.lt(i, count)) if isinstance(count, tm.T) else struct
                self.path.append(f"it{i}")
                self.block(s.body, env, gi)
                self.path.pop()
            if isinstance(count, tm.T) or too_many:
                self.truncated = tm.or_(self.truncated, tm.and_(self.live(ok), tm.gt(count, bound)))
            self.path.pop()
        elif isinstance(s, (ir.RepeatUntil, ir.While)):
            self.errs = None
            self.open_loop(s, env, struct)
        elif isinstance(s, ir.CallProc):
            proc = self.p.procs[s.name]
            args = [self.ev(a, env, g) for a in s.args]
            ok = tm.and_(g, self.settle())
            self.reached(ir.label_proc(s.name, proc.reading), proc.span, s.name, f"procedure '{s.name}'", ok)
            assert proc.body is not None
            self.path.append(self.ordinals[s.sid])
            if s.name in self.displaced and not self.no_compare:
                self.both_versions(proc, self.displaced[s.name], args, struct)
            elif s.name in self.compare_procs and self.mode == 0 and not self.no_compare:
                from .product import both_readings  # the product's module builds on this one

                both_readings(self, proc, args, struct, self.live(ok))
            else:
                self.block(proc.body, proc_env(proc, args), struct)
            self.path.pop()
        elif isinstance(s, ir.End):
            # where the game reaches its end, every count followed the path: tell the solver
            for (zname, _idx), zid in self.zone_ids.items():
                if zid in self.counts:
                    members = [self.loc[c].get(zid, False) for c in self.zone_kinds[zname]]
                    self.constraints.append(tm.implies(g, tm.eq(tm.count_true(members), self.counts[zid])))
            if self.compare_ends:
                self.abstract.append(self.end_comparison(s, env))
            else:
                self.abstract_check(s, lambda: self.ev(s.winners, env, True))
            w = self.ev(s.winners, env, g)
            ok = tm.and_(g, self.settle())
            assert isinstance(w, SymSet)
            self.winners = merge(ok, w, self.winners)
            self.ended = tm.or_(self.ended, ok)
            if s.draw:
                self.drawn = tm.or_(self.drawn, ok)
            self.reached(ir.label_end(s.sid), s.span, "end", "this end of the game", ok)
        elif isinstance(s, ir.Say):
            # a say statement only logs, but its expressions may still fail, as in the interpreter
            self.no_compare += 1  # what it logs is no move and no result
            for part in s.parts:
                if isinstance(part, ir.Expr) and not isinstance(part.type, TText):
                    self.ev(part, env, g)
            self.no_compare -= 1
            self.settle()
        elif isinstance(s, ir.Shuffle):
            if s.index is not None:
                self.ev(s.index, env, g)
            self.settle()
        elif isinstance(s, ir.Reveal):
            # what players see changes no move and no result; its expressions may still fail
            self.no_compare += 1
            self.ev(s.what, env, g)
            self.ev(s.who, env, g)
            self.no_compare -= 1
            self.settle()
        elif isinstance(s, ir.Observe):
            self.observe(s, env, g)
        elif isinstance(s, ir.Append):
            self.append(s, env, g)
        else:  # pragma: no cover
            raise AssertionError(type(s).__name__)

    def end_comparison(self, s: ir.End, env: Env) -> AbstractCheck:
        """The winners of an end of the game under both versions of the definitions in
        ``shadow``, over an abstract state of it (see over_abstract_state): "diverge" obligations
        that together say where they differ, each a small question (below), and one where a
        version fails where the other does not (both failing stop the game alike); with each
        invariant's truth there, the winners bound to this reading's."""
        def evaluate() -> tuple[dict[str, Term], Term]:
            saved_winners, saved_mode = self.winners, self.mode
            try:
                # one winner named ({e}): its two values, whose pairs are the questions below
                one = s.winners.items[0] if isinstance(s.winners, ir.SetOf) and len(s.winners.items) == 1 else None
                sides = []
                for mode in (1, 2):
                    self.mode, self.errs, self.obligations = mode, [], []
                    w = self.ev(one or s.winners, env, True)
                    w = SymSet(dict(as_fd(w, list(range(self.n))).mem)) if one is not None else w
                    assert isinstance(w, SymSet)
                    sides.append((w, tm.or_all(o.cond for o in self.obligations)))  # every error is an obligation
                (mine, failed), (theirs, other_failed) = sides
                self.mode, self.errs, self.obligations = 1, [], []
                self.winners = mine
                facts = {inv.name: self.eval_pure(inv.expr, ChainMap(), True) for inv in self.rules.invariants}
                # one version fails where the other does not
                self.fail("diverge", s.span, "winners", "this version fails alone", tm.and_(failed, tm.not_(other_failed)), "failed")
                self.fail("diverge", s.span, "winners", "the other version fails alone", tm.and_(other_failed, tm.not_(failed)), "failed")
                fine = tm.and_(tm.not_(failed), tm.not_(other_failed))
                # the winners differ. Either one version has a winner p and the other another
                # winner q: one question for each such pair, in which the solver knows who wins
                # under both; or, where no such pair exists, one version names nobody
                differ = fine if one is not None else tm.and_(fine, tm.not_(value_eq(mine, theirs)))
                for p in range(self.n):
                    for q in range(self.n):
                        if q != p:
                            self.fail("diverge", s.span, "winners", "the versions name different winners",
                                      tm.and_(differ, mine.member(p), theirs.member(q)), f"{p}/{q}")
                for x, name in ((mine, "this"), (theirs, "the other")):
                    self.fail("diverge", s.span, "winners", f"{name} version names no winner, the other some",
                              tm.and_(differ, tm.not_(tm.or_all(x.member(q) for q in range(self.n)))), f"none/{name}")
                return facts, failed
            finally:
                self.winners, self.mode = saved_winners, saved_mode
        lemmas, ((facts, failed), obligations) = self.over_abstract_state(f"end|{s.sid}|{len(self.abstract)}", evaluate)
        return AbstractCheck(s.sid, lemmas, obligations, facts, failed)

    def abstract_check(self, s: ir.Stmt, evaluate: Any) -> None:
        """Evaluate a statement's expressions again over an abstract state (see AbstractCheck)."""
        lemmas, (_, obligations) = self.over_abstract_state(f"abs|{s.sid}|{len(self.abstract)}", evaluate)
        self.abstract.append(AbstractCheck(s.sid, lemmas, obligations))

    def over_abstract_state(self, tag: str, evaluate: Any, whole: bool = False) -> tuple[list[Term], tuple[Any, list[Obligation]]]:
        """``evaluate()`` over a state whose every location and variable is a free atom, constrained
        only by facts true of every state reachable here: each component in one zone of its kind,
        the zone counts known at this point, the variables' ranges. ``whole``: facts true of every
        state at all (no count, no value known from the trace), so that a proof there holds
        however long the game that leads to it."""
        lemmas, loc_abs, counts_abs, vars_abs = self.abstract_state(tag, whole)
        saved = (self.loc, self.vars, self.obligations, self.errs, self.reach, self.site, self.counts, self.loc_ver, self.var_ver)
        self.loc, self.vars, self.obligations, self.errs, self.reach, self.counts = loc_abs, vars_abs, [], [], {}, counts_abs
        self.no_compare += 1  # an abstract state has no other reading's state beside it
        self.abstract_states += 1
        # a state no concrete one is: the definitions' cache keeps it apart
        self.loc_ver, self.var_ver = next(self.fresh), {name: next(self.fresh) for name in self.var_ver}
        try:
            value = evaluate()
            obligations = self.obligations
        finally:
            self.loc, self.vars, self.obligations, self.errs, self.reach, self.site, self.counts, self.loc_ver, self.var_ver = saved
            self.no_compare -= 1
        return lemmas + self.attrs.constraints, (value, obligations)

    def abstract_state(self, tag: str, whole: bool) -> tuple[list[Term], list[dict[int, Term]], dict[int, Term], dict[str, Any]]:
        """The locations, zone counts and variables of an abstract state (see over_abstract_state),
        and the facts that constrain them."""
        lemmas: list[Term] = []
        loc_abs: list[dict[int, Term]] = []
        zones = sorted(self.zone_ids.items(), key=lambda kv: kv[1])
        for c, loc in enumerate(self.loc):
            if c in self.out:  # out of play: in no zone, in every state
                loc_abs.append({})
                continue
            if whole:  # anywhere its kind can be
                places = [zid for (zname, _idx), zid in zones if c in self.zone_kinds[zname]]
            elif all(not isinstance(v, tm.T) for v in loc.values()):
                loc_abs.append(dict(loc))
                continue
            else:
                places = [z for z, v in loc.items() if v is not False]
            atoms: dict[int, Term] = {z: tm.bool_var(f"{tag}|loc|{c}|{z}") for z in places}
            lemmas.append(tm.pb_eq(atoms.values(), 1))
            loc_abs.append(atoms)
        # each zone's count an atom of its own: the count of its members, and the count known
        # here when the trace tracks it; per kind the counts add up to the kind's size, which
        # the solver would otherwise have to rediscover from the one-hot locations
        counts_abs: dict[int, Term] = {}
        by_kind: dict[tuple[int, ...], list[Term]] = defaultdict(list)
        for (zname, _idx), zid in zones:
            members = [loc_abs[c].get(zid, False) for c in self.zone_kinds[zname]]
            cnt = tm.int_var(f"{tag}|cnt|{zid}", 0, len(members))
            lemmas.append(tm.eq(cnt, tm.count_true(members)))
            if zid in self.counts and not whole:
                lemmas.append(tm.eq(cnt, self.counts[zid]))
            counts_abs[zid] = cnt
            by_kind[tuple(self.zone_kinds[zname])].append(cnt)
        for comps, cnts in by_kind.items():
            lemmas.append(tm.eq(tm.add_all(cnts), len(comps)))
        vars_abs: dict[str, Any] = {}
        def free(cur: Value, t: Type, name: str) -> Value:
            return self.free_value(t, name, lemmas) if whole else _abstract(cur, t, name, lemmas)

        for v in self.rules.vars.values():
            cur = self.vars[v.name]
            if v.index is None:
                vars_abs[v.name] = free(cur, v.type, f"{tag}|var|{v.name}")
            else:
                vars_abs[v.name] = {k: free(x, v.type, f"{tag}|var|{v.name}|{k}") for k, x in cur.items()}
        return lemmas, loc_abs, counts_abs, vars_abs

    def free_value(self, t: Type, name: str, lemmas: list[Term]) -> Value:
        """Any value of type t."""
        if isinstance(t, TBool):
            return tm.bool_var(name)
        if isinstance(t, TInt):
            x = tm.int_var(name, t.lo, t.hi)
            if t.lo is not None:
                lemmas.append(tm.ge(x, t.lo))
            if t.hi is not None:
                lemmas.append(tm.le(x, t.hi))
            return x
        if isinstance(t, (TPlayer, TComp, TEnum)):
            sel: dict[int, Term] = {k: tm.bool_var(f"{name}|{k}") for k in self.domain(t)}
            lemmas.append(tm.pb_eq(sel.values(), 1))
            return FD(sel)
        if isinstance(t, TSet):
            return SymSet({k: tm.bool_var(f"{name}|{k}") for k in self.domain(t.elem)})
        if isinstance(t, TText):
            return _free_text(sorted(self.texts), name, lemmas)
        if isinstance(t, TRecord):
            n = tm.int_var(f"{name}|len", 0, None)
            lemmas.append(tm.ge(n, 0))
            return SymRecord(None, n)
        raise Unsupported(f"any value of type {t.show()}", hint="give the variable a range or a finite type")

    def whole_state_checks(self, inv: ir.Invariant) -> list[tuple[list[Term], Term]] | None:
        """The invariant over a whole abstract state (see over_abstract_state): for an ``always``
        one, any state at all, with any winners; for an ``at end`` one, the state at each end
        statement of the flow, with the winners that statement gives there. No violation: the
        invariant holds in every game, however long. None when an end's winners depend on a name
        bound in the flow (the state alone does not give them)."""
        if not inv.at_end:
            def anywhere() -> Term:
                saved = self.winners
                try:
                    self.winners = SymSet({q: tm.bool_var(f"all|{inv.name}|winner|{q}") for q in range(self.n)})
                    return self.eval_pure(inv.expr, ChainMap(), True)
                finally:
                    self.winners = saved
            lemmas, (ok, _) = self.over_abstract_state(f"all|{inv.name}", anywhere, whole=True)
            return [(lemmas, tm.not_(ok))]
        ends = [s for s in statements(self.p) if isinstance(s, ir.End)]
        if any(_free_locals(s.winners) for s in ends):
            return None
        out = []
        for s in ends:
            def at_end(s: ir.End = s) -> Term:
                saved = self.winners
                try:
                    self.winners = self.ev(s.winners, ChainMap(), True)
                    return self.eval_pure(inv.expr, ChainMap(), True)
                finally:
                    self.winners = saved
            lemmas, (ok, _) = self.over_abstract_state(f"fin|{inv.name}|{s.sid}", at_end, whole=True)
            out.append((lemmas, tm.not_(ok)))
        return out

    def versions_differ_anywhere(self, names: list[str]) -> tuple[list[Term], Term]:
        """Can the two versions of these definitions (the program's and ``shadow``'s) give
        different values, or one fail where the other does not, in any state of the table at all
        (see over_abstract_state, ``whole``) and for any arguments? Unsatisfiable: they are one
        rule written twice, whatever the game."""
        args_lemmas: list[Term] = []

        def anywhere() -> Term:
            parts: list[Term] = []
            for name in names:
                d = self.p.defs[name]
                args = [self.free_value(t, f"same|{name}|{pname}", args_lemmas) for pname, t in d.formals]
                saved_obl, saved_mode = self.obligations, self.mode
                try:
                    self.obligations, self.mode = [], 1
                    mine = self.def_body(d, args)
                    mine_err = tm.or_all(o.cond for o in self.obligations)
                    self.obligations, self.mode = [], 2
                    theirs = self.def_body(self.shadow[name], args)
                    their_err = tm.or_all(o.cond for o in self.obligations)
                finally:
                    self.obligations, self.mode = saved_obl, saved_mode
                parts.append(tm.or_(tm.ne(mine_err, their_err), tm.and_(tm.not_(mine_err), tm.not_(value_eq(mine, theirs)))))
            return tm.or_all(parts)

        lemmas, (differ, _) = self.over_abstract_state("same", anywhere, whole=True)
        return lemmas + args_lemmas, differ

    def known_move(self, what: Value, dst: Value) -> tuple[int, Term] | None:
        """(source zone, number moved) when a move's effect on counts is known without the
        solver: one component chosen from a zone, or a zone's whole contents, unmoved since."""
        if not isinstance(dst, int) or dst not in self.counts:
            return None
        origin = getattr(what, "origin", None)
        if origin is None or what.ver != self.loc_ver or origin not in self.counts or origin == dst:
            return None
        if isinstance(what, FD):
            return origin, 1
        if isinstance(what, SymSet) and what.whole:
            return origin, self.counts[origin]
        return None

    def entry(self, index: ir.Expr | None, env: Env, g: Term, t: Type | None, what: str) -> Value | None:
        """The index of a zone or variable (None for one without), where ``g`` holds: of one
        declared over a range, a number outside it stops play with a range error, as in the
        interpreter; a constant one is then replaced by one inside (the game has stopped)."""
        if index is None:
            return None
        i = self.ev(index, env, g)
        if not (isinstance(t, TInt) and t.lo is not None and t.hi is not None) or isinstance(i, (FD, SymSet)):
            return i
        x = as_int(i)
        outside = tm.or_(tm.lt(x, t.lo), tm.gt(x, t.hi))
        shown = f" {x}" if not isinstance(x, tm.T) else ""
        self.fail("range", index.span, what, f"'{what}' has no entry{shown}: its index runs over {t.lo}..{t.hi}", tm.and_(g, outside))
        return t.lo if outside is True else i

    def bounded(self, r: Term, span: Span, g: Term) -> Term:
        """The value of an operator or a sum, where ``g`` holds: beyond the integer limit, play
        stops with a range error (interpreter/semantics.py); the value then is 0 (terms.clamp)."""
        rng = tm.int_range(r)
        if rng is None or (-MAX_INT <= rng[0] and rng[1] <= MAX_INT):
            return r  # within the limit, or (a free value of no declared range) in 16 bits as ever
        if not isinstance(r, tm.T):
            self.fail("range", span, "integer limit", f"the result {int(r):,} is beyond the integer limit ±{MAX_INT:,}", g)
            return 0
        self.fail("range", span, "integer limit", f"the result would be beyond the integer limit ±{MAX_INT:,}",
                  tm.and_(g, tm.or_(tm.lt(r, -MAX_INT), tm.gt(r, MAX_INT))))
        return tm.clamp(r, MAX_INT)

    def check_range(self, v: Value, t: Type, span: Span, name: str, g: Term) -> None:
        if isinstance(t, TInt) and (t.lo is not None or t.hi is not None) and not isinstance(v, (SymSet, SymMap, SymText, str)):
            x = as_int(v)
            bad = tm.or_(tm.lt(x, t.lo) if t.lo is not None else False, tm.gt(x, t.hi) if t.hi is not None else False)
            self.fail("range", span, name, f"'{name}' would leave its range {t.show()}", tm.and_(g, bad))
        if isinstance(t, TSet) and isinstance(t.elem, TInt) and isinstance(v, SymSet):
            lo, hi = t.elem.lo, t.elem.hi
            out = [c for k, c in v.mem.items() if (lo is not None and k < lo) or (hi is not None and k > hi)]
            if out:
                self.fail("range", span, name, f"'{name}' would hold a number outside {t.elem.show()}", tm.and_(g, tm.or_all(out)))

    def comp_domain(self, t: Type) -> list[int]:
        kind = t.kind if isinstance(t, TComp) else None
        return [c.cid for c in self.rules.components_of(kind) if c.cid not in self.out]

    def key(self, s: ir.Stmt, extra: str = "") -> str:
        return "/".join([*self.path, self.ordinals[s.sid]]) + extra

    def new_decision(self, s: ir.Stmt, kind: str, active: Term, player: Value, options: SymSet, t: Type | None,
                     extra: str = "", node: int | None = None, count: int = 1) -> Decision:
        key = self.key(s, extra)
        sel: dict[int, Term] = {k: tm.bool_var(f"{self.sel_prefix}|{key}|{k}") for k, m in sorted(options.mem.items()) if m is not False}
        if node is None:
            self.nodes += 1
            node = self.nodes
        d = Decision(key, kind, s, active, sel, player, options, len(self.decisions), node, t, count)  # type: ignore[arg-type]
        d.origin = (options.origin, options.ver)
        self.decisions.append(d)
        # only where the decision is reached: two readings share these variables, and a decision
        # one reading reaches may not exist in the other
        legal = [tm.implies(b, options.mem[k]) for k, b in sel.items()]
        d.rule = tm.implies(active, tm.and_all([tm.pb_eq(sel.values(), count), *legal]))
        self.constraints.append(d.rule)
        return d

    def draw(self, s: ir.Draw, env: Env, g: Term) -> None:
        count = self.ev(s.count, env, g)
        sidx = self.entry(s.src_index, env, g, self.rules.zones[s.src].index, s.src)
        didx = self.entry(s.dst_index, env, g, self.rules.zones[s.dst].index, s.dst)
        struct = self.struct
        ok = tm.and_(g, self.settle())
        if isinstance(count, (bool, int)):
            value = self.draw_cards(s, max(0, int(count)), ok, struct, sidx, didx, "")
            if s.bind is not None and value is not None:
                env[s.bind] = value
            return
        # a number of cards the game decides: one draw per number it can be, each where the
        # count is that number, as ``if k == 1 { draw 1 … } else if k == 2 …`` would be
        cnt = as_int(count)
        bounds = tm.int_range(cnt)
        if bounds is None:
            raise Unsupported("a draw of a number of cards without a range", s.count.span,
                              hint="give the number a range, e.g. a variable of type 0..5")
        lo, hi = max(0, bounds[0]), bounds[1]
        cap = len(self.rules.components)  # more than every component is always too many
        if min(hi, cap) - lo + 1 > MAX_DRAW_CASES:
            raise Unsupported(f"a draw of a number of cards that depends on the game and can be any of {min(hi, cap) - lo + 1:,} numbers "
                              f"(verify follows at most {MAX_DRAW_CASES})", s.count.span,
                              hint=f"give the number a range of at most {MAX_DRAW_CASES} values, or draw one card at a time in a loop")
        live = self.live(ok)
        if live is False:
            return
        # one message for every number: the findings group the failures of a statement by it
        short = f"the cards to be drawn from '{s.src}' are more than it has"
        if hi > cap:
            self.fail("exhaustion", s.span, s.src, short, tm.and_(live, tm.lt(cap, cnt)))
        bound: Value | None = None
        for k in range(lo, min(hi, cap) + 1):
            here = tm.eq(cnt, k)
            if here is False:
                continue
            value = self.draw_cards(s, k, tm.and_(ok, here), tm.and_(struct, here), sidx, didx, f"#{k}", short)
            if value is not None:
                bound = value if bound is None else merge(here, value, bound)
        if s.bind is not None and bound is not None:
            env[s.bind] = bound

    def draw_cards(self, s: ir.Draw, n: int, ok: Term, struct: Term, sidx: Value | None, didx: Value | None, extra: str,
                   message: str | None = None) -> Value | None:
        """Draw ``n`` cards where ``ok`` holds (``struct``: the path alone); the value of the card
        drawn (for ``draw … as c``), or None where nothing is drawn."""
        live = self.live(ok)
        if n == 0 or live is False:
            return None
        self.check_always_invariants(live)
        src = self.zone_members(s.src, sidx)
        if self.alt_loc and not self.no_compare:  # the draw reads the zone itself
            other, _ = self.in_other(lambda: self.zone_members(s.src, sidx))
            self.diverge(s.span, tm.and_(live, tm.not_(value_eq(src, other))))
        short = tm.lt(self.zone_count(s.src, sidx), n)
        message = message or f"{n} card{'s' if n != 1 else ''} must be drawn from '{s.src}', which has fewer"
        self.fail("exhaustion", s.span, s.src, message, tm.and_(live, short))
        active = tm.and_(live, tm.not_(short))
        # several draws in a row are one choice of a subset: the order of the draws changes nothing
        d = self.new_decision(s, "chance" if n == 1 else "deal", active, -1, src, None, extra=extra, count=n)
        dst = self.zone_id(s.dst, didx)
        src_id = self.zone_id(s.src, sidx)
        for c, b in d.sel.items():
            # a selector is only constrained where its draw is reached: guard the move by that
            self.move(c, dst, tm.and_(active, b), count=False)
        # exactly n cards leave the source and arrive at the destination (counted along the path:
        # where the game has stopped nothing is observed, so the count need not follow the stop)
        moved = tm.mul(n, tm.bool_to_int(struct))
        for zid, sign in ((src_id, -1), (dst, 1)):
            if isinstance(zid, int):
                if zid in self.counts:
                    self.counts[zid] = tm.add(self.counts[zid], tm.mul(sign, moved))
            else:
                assert isinstance(zid, FD)
                for z, cz in zid.mem.items():
                    if z in self.counts:
                        self.counts[z] = tm.add(self.counts[z], tm.mul(sign, tm.mul(n, tm.bool_to_int(tm.and_(struct, cz)))))
        self.version += 1
        self.loc_ver = next(self.fresh)
        return d.value

    def choose(self, s: ir.Choose, env: Env, g: Term) -> None:
        options = self.ev(s.options, env, g)
        chooser = self.ev(s.chooser, env, g)
        ok = tm.and_(g, self.settle())
        assert isinstance(options, SymSet)
        live = self.live(ok)
        if live is False:
            return
        self.check_always_invariants(live)
        empty = tm.not_(tm.or_all(options.mem.values()))
        self.fail("incomplete", s.span, s.label, f"a player must choose ({s.label}) but has no option", tm.and_(live, empty))
        active = tm.and_(live, tm.not_(empty))
        d = self.new_decision(s, "player", active, chooser, options, s.type)
        env[s.bind] = d.value

    def choose_each(self, s: ir.ChooseEach, env: Env, g: Term) -> None:
        who = self.ev(s.players, env, g)
        assert isinstance(who, SymSet)
        per: list[SymSet | None] = []
        for q in range(self.n):
            part = who.mem.get(q, False)
            if part is False:
                per.append(None)
                continue
            inner = env.new_child({s.pvar: q})
            per.append(self.ev(s.options, inner, tm.and_(g, part)))
        ok = tm.and_(g, self.settle())
        live = self.live(ok)
        if live is False:
            env[s.bind] = SymMap([False] * self.n, [0] * self.n)
            return
        self.check_always_invariants(live)
        empties = []
        for q, opts in enumerate(per):
            if opts is None:
                continue
            empty = tm.and_(who.mem.get(q, False), tm.not_(tm.or_all(opts.mem.values())))
            empties.append(empty)
            self.fail("incomplete", s.span, s.label, f"Player {q + 1} must choose ({s.label}) but has no option", tm.and_(live, empty))
        live = tm.and_(live, tm.not_(tm.or_all(empties)))
        self.nodes += 1
        node = self.nodes
        parts: list[Term] = []
        vals: list[Value] = []
        for q, opts in enumerate(per):
            part = tm.and_(live, who.mem.get(q, False)) if opts is not None else False
            parts.append(part)
            if opts is None:
                vals.append(0)
                continue
            d = self.new_decision(s, "simultaneous", part, q, opts, s.type, extra=f"@{q}", node=node)
            vals.append(d.value)
        env[s.bind] = SymMap(parts, vals)

    def for_each(self, s: ir.ForEach, env: Env, g: Term, struct: Term) -> None:
        coll = self.ev(s.coll, env, g)
        start = self.ev(s.start, env, g) if s.start is not None else None
        ok = tm.and_(g, self.settle())
        assert isinstance(coll, SymSet)
        self.path.append(self.ordinals[s.sid])
        order: list[tuple[Value, Term]]
        if start is None:
            order = sorted(coll.mem.items())
        else:
            d = 1 if self.rules.game.order == "clockwise" else -1
            order = []
            for k in range(self.n):
                if isinstance(start, (bool, int)):
                    x: Value = (int(start) + d * k) % self.n
                else:
                    f = as_fd(start, list(range(self.n)))
                    x = FD({(q + d * k) % self.n: c for q, c in f.mem.items()})
                order.append((x, coll.member(x)))
        for i, (x, m) in enumerate(order):
            if tm.and_(ok, m) is False:
                continue
            self.path.append(f"it{i}")
            self.block(s.body, env.new_child({s.var: x}), tm.and_(struct, m))
            self.path.pop()
        self.path.pop()

    def open_loop(self, s: ir.RepeatUntil | ir.While, env: Env, struct: Term) -> None:
        self.path.append(self.ordinals[s.sid])
        running = struct
        heads: list[dict[str, Any]] = []
        bound = self.drained.get(s.sid, self.loop_bound)
        for i in range(bound + 1):
            live = self.live(running)
            heads.append(self.snapshot(live))
            heads[-1]["prefix"] = "/".join([*self.path, f"it{i}"]) + "/"  # of the keys of this pass's decisions
            self.errs = []
            c = as_bool(self.ev(s.cond, env, live))
            ok = tm.and_(live, self.settle())
            more = tm.not_(c) if isinstance(s, ir.RepeatUntil) else c
            go = tm.and_(ok, more)
            if i == bound:
                if s.sid not in self.drained:  # a drained loop cannot go on: proven by the caller
                    self.truncated = tm.or_(self.truncated, go)
                break
            self.reached(f"loop{s.sid}:{i}", s.span, "loop", f"iteration {i + 1} of this loop", go)
            self.path.append(f"it{i}")
            self.block(s.body, env, tm.and_(running, more))
            self.path.pop()
            running = tm.and_(running, more)
        self.loop_heads[s.sid] = heads
        self.path.pop()

    def snapshot(self, live: Term) -> dict[str, Any]:
        """The state at a loop head, to find a round that returns to where it started."""
        return {
            "live": live,
            "loc": [dict(x) for x in self.loc],
            "vars": {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.vars.items()},
        }

    # ---- expressions ------------------------------------------------------------------------

    def ev(self, e: ir.Expr, env: Env, g: Term) -> Value:
        try:
            if not self.alt_loc or self.no_compare:
                return self.ev1(e, env, g)
            self.no_compare += 1
            try:
                start = len(self.errs) if self.errs is not None else 0
                value = self.ev1(e, env, g)
                errs = tm.or_all(self.errs[start:]) if self.errs is not None else False
                other, other_errs = self.in_other(lambda: self.ev1(e, env, g))
            finally:
                self.no_compare -= 1
        except Unsupported as exc:
            if exc.span is None:  # the innermost expression that needs it
                exc.span = e.span
                exc.args = (exc.what, exc.span, exc.hint)
            raise
        self.diverge(e.span, tm.and_(g, tm.or_(tm.not_(value_eq(value, other)), tm.not_(value_eq(errs, other_errs)))))
        return value

    def both_versions(self, proc: ir.Procedure, other: ir.Procedure, args: list[Value], struct: Term) -> None:
        """A displaced procedure: the other version runs in the other state first, then this one
        here; the components they leave in different places get their other location (versions
        that only move components and evaluate: see __init__)."""
        assert proc.body is not None and other.body is not None
        env = proc_env(proc, args)
        stopped_before = self.stopped
        saved = (self.loc, self.counts, self.obligations, self.reach, self.stopped, self.ended, self.errs, self.loc_ver)
        self.loc, self.counts = self.other_state()
        self.loc_ver = next(self.fresh)  # a state of its own: no call cached elsewhere applies
        self.obligations, self.reach, self.moves = [], {}, {}
        self.no_compare += 1
        try:
            self.block(other.body, env, struct)
            other_loc, other_moves = self.loc, self.moves
            failed = tm.or_all([*(o.cond for o in self.obligations), tm.and_(self.stopped, tm.not_(stopped_before))])
        finally:
            self.loc, self.counts, self.obligations, self.reach, self.stopped, self.ended, self.errs, self.loc_ver = saved
        old = {c: _differing(alt, self.loc[c]) for c, alt in self.alt_loc.items()}
        self.moves, start, stopped = {}, len(self.obligations), self.stopped
        try:
            self.block(proc.body, env.new_child(), struct)
        finally:
            self.no_compare -= 1
            these_moves, self.moves = self.moves, None
        failed_here = tm.or_all([*(o.cond for o in self.obligations[start:]), tm.and_(self.stopped, tm.not_(stopped))])
        self.diverge(proc.span, tm.and_(struct, tm.not_(value_eq(failed_here, failed))))
        self.version += 1  # the other state has changed
        self.loc_ver = next(self.fresh)
        for c in sorted({*other_moves, *these_moves, *old}):
            when_a, where_a = these_moves.get(c, (False, set()))
            when_b, where_b = other_moves.get(c, (False, set()))
            here = self.loc[c]
            if when_a is False or when_b is False:  # one version alone moves it
                keep = {*here, *other_loc[c]}
            else:
                # both take it away from where it was, under the same condition (or the states
                # differ there too): outside the zones either puts it in, its place is then the
                # same term in both states, and the comparisons stay small
                self.diverge(proc.span, tm.and_(struct, tm.not_(value_eq(when_a, when_b))))
                keep = where_a | where_b | old.get(c, set())
            there = {z: m for z, m in other_loc[c].items() if z in keep}
            there.update({z: m for z, m in here.items() if z not in keep})
            if not _differing(there, here):
                self.alt_loc.pop(c, None)
            else:
                self.alt_loc[c] = there

    def diverge(self, span: Span, cond: Term) -> None:
        """Where the two readings' states give a statement different values (never an error of
        the game: the game goes on)."""
        if cond is not False:
            self.obligations.append(Obligation("diverge", span, "state", "the two readings' states disagree here", cond, self.site))

    def other_state(self) -> tuple[list[dict[int, Term]], dict[int, Term]]:
        """The other reading's locations, and the zone counts that hold there too (not those of
        the zones whose members differ)."""
        differ = {z for c, alt in self.alt_loc.items() for z in _differing(alt, self.loc[c])}
        return [self.alt_loc.get(c, here) for c, here in enumerate(self.loc)], {z: v for z, v in self.counts.items() if z not in differ}

    def in_other(self, evaluate: Callable[[], Value]) -> tuple[Value, Term]:
        """``evaluate()`` in the other reading's state (see ``displaced``): its value, and the
        condition under which it fails."""
        saved = (self.loc, self.counts, self.errs, self.obligations, self.reach, self.loc_ver)
        self.loc, self.counts = self.other_state()
        # calls are cached per state: the other state follows from this one (never nested)
        self.loc_ver = -1 - self.loc_ver
        self.errs, self.obligations, self.reach = [], [], {}
        self.no_compare += 1
        try:
            value = evaluate()
            failed = tm.or_all([*self.errs, *(o.cond for o in self.obligations)])
        finally:
            self.loc, self.counts, self.errs, self.obligations, self.reach, self.loc_ver = saved
            self.no_compare -= 1
        return value, failed

    def ev1(self, e: ir.Expr, env: Env, g: Term) -> Value:
        if isinstance(e, ir.Const):
            return _const_value(e.value)
        if isinstance(e, ir.Local):
            return env[e.name]
        if isinstance(e, ir.VarRef):
            v = self.vars[e.name]
            return v if e.index is None else select(v, self.entry(e.index, env, g, self.rules.vars[e.name].index, e.name))
        if isinstance(e, ir.ParamRef):
            return _const_value(self.params[e.name])
        if isinstance(e, ir.ZoneRef):
            idx = self.entry(e.index, env, g, self.rules.zones[e.zone].index, e.zone)
            return self.zone_members(e.zone, idx)
        if isinstance(e, ir.PlaceOf):
            idx = self.ev(e.index, env, g) if e.index is not None else None
            return self.place_of(self.zone_id(e.zone, idx))
        if isinstance(e, ir.AttrRef):
            obj = self.ev(e.obj, env, g)
            if isinstance(obj, (bool, int)):
                return self.attrs.get(int(obj), e.attr)
            f = as_fd(obj, [c.cid for c in self.rules.components_of(e.kind)])
            return select({k: self.attrs.get(k, e.attr) for k in f.mem}, f)
        if isinstance(e, ir.CallDef):
            return self.call(e, [self.ev(a, env, g) for a in e.args], g)
        if isinstance(e, ir.Builtin):
            return self.builtin(e, env, g)
        if isinstance(e, ir.Unary):
            v = self.ev(e.operand, env, g)
            return tm.not_(as_bool(v)) if e.op == "not" else tm.neg(as_int(v))
        if isinstance(e, ir.BinOp):
            return self.binop(e, env, g)
        if isinstance(e, ir.Cond):
            c = as_bool(self.ev(e.cond, env, g))
            if c is True:
                return self.ev(e.then, env, g)
            if c is False:
                return self.ev(e.else_, env, g)
            return merge(c, self.ev(e.then, env, tm.and_(g, c)), self.ev(e.else_, env, tm.and_(g, tm.not_(c))))
        if isinstance(e, ir.SetOf):
            return self.make_set([(True, self.ev(i, env, g)) for i in e.items], e.type)
        if isinstance(e, ir.IntRange):
            lo, hi = self.ev(e.lo, env, g), self.ev(e.hi, env, g)
            if not isinstance(lo, int) or not isinstance(hi, int):
                raise Unsupported("a range whose bounds depend on the game", hint="write its bounds as numbers or parameters")
            if hi - lo >= MAX_RANGE:
                self.fail("range", e.span, "range", f"the range {lo:,}..{hi:,} has {hi - lo + 1:,} values; the limit is {MAX_RANGE:,}", g)
                return SymSet({})
            return SymSet(dict.fromkeys(range(lo, hi + 1), True))
        if isinstance(e, ir.Agg):
            return self.agg(e, env, g)
        if isinstance(e, ir.MapGet):
            m = self.ev(e.map, env, g)
            assert isinstance(m, SymMap)
            q = self.ev(e.index, env, g)
            part = as_bool(select(dict(enumerate(m.part)), q))
            self.fail("incomplete", e.span, "choice", "this player made no choice here", tm.and_(g, tm.not_(part)))
            return select(dict(enumerate(m.val)), q)
        if isinstance(e, ir.Fail):
            self.fail(e.kind, e.span, "match", e.message, g)
            return _default_of(e.type)
        if isinstance(e, ir.SpaceAttr):
            board = self.rules.boards[e.board]
            return select({k: _const_value(v[e.attr]) for k, v in enumerate(board.values)}, self.ev(e.obj, env, g))
        if isinstance(e, ir.RecordField):
            return self.record_field(e, env, g)
        raise AssertionError(type(e).__name__)  # pragma: no cover

    def make_set(self, items: list[tuple[Term, Value]], t: Type) -> SymSet:
        """A set from (condition, element) pairs."""
        mem: dict[int, list[Term]] = {}
        for cond, x in items:
            if isinstance(x, (bool, int)):
                mem.setdefault(int(x), []).append(cond)
                continue
            dom = self.member_domain(t.elem, x) if isinstance(t, TSet) else None
            f = as_fd(x, dom)
            for k, c in f.mem.items():
                mem.setdefault(k, []).append(tm.and_(cond, c))
        return SymSet({k: tm.or_all(v) for k, v in sorted(mem.items())})

    def member_domain(self, t: Type, x: Value) -> list[int] | None:
        """The values ``x`` can be as a member of a set of ``t``: the type's, or for numbers
        without a declared range, the bounds of ``x`` itself (a set of int that grows in play
        holds only the numbers its members can be)."""
        if isinstance(x, FD):  # its values are its own
            return None
        if not (isinstance(t, TInt) and (t.lo is None or t.hi is None)):
            return self.domain(t)
        bounds = tm.int_range(as_int(x))
        if bounds is None or bounds[1] - bounds[0] >= MAX_INT_MEMBERS:
            what = "no bounds" if bounds is None else f"{bounds[1] - bounds[0] + 1:,} values (verify follows at most {MAX_INT_MEMBERS})"
            raise Unsupported(f"a number as a member of a set of {t.show()}, where the number can have {what}",
                              hint="give the numbers a range, e.g. set of 1..10")
        return list(range(bounds[0], bounds[1] + 1))

    def binop(self, e: ir.BinOp, env: Env, g: Term) -> Value:
        op = e.op
        if op in ("+", "-"):
            total = self.zone_total(e, env, g)
            if total is not None:
                return total
        if op == "and":
            a = as_bool(self.ev(e.left, env, g))
            if a is False:
                return False
            return tm.and_(a, as_bool(self.ev(e.right, env, tm.and_(g, a))))
        if op == "or" and self.in_some_zone(e, env, g):
            return True
        if op == "or":
            a = as_bool(self.ev(e.left, env, g))
            if a is True:
                return True
            return tm.or_(a, as_bool(self.ev(e.right, env, tm.and_(g, tm.not_(a)))))
        a = self.ev(e.left, env, g)
        b = self.ev(e.right, env, g)
        if op in ("==", "!="):
            r = value_eq(a, b)
            return r if op == "==" else tm.not_(r)
        if op in ("<", "<=", ">", ">="):
            x, y = as_int(a), as_int(b)
            return {"<": tm.lt, "<=": tm.le, ">": tm.gt, ">=": tm.ge}[op](x, y)
        if op == "in":
            assert isinstance(b, SymSet)
            return b.member(a)
        if op == "union":
            keys = sorted(set(a.mem) | set(b.mem))
            return SymSet({k: tm.or_(a.mem.get(k, False), b.mem.get(k, False)) for k in keys})
        if op == "diff":
            return SymSet({k: tm.and_(m, tm.not_(b.mem.get(k, False))) for k, m in a.mem.items()}, a.origin, a.ver)
        x, y = as_int(a), as_int(b)
        if op == "+":
            return self.bounded(tm.add(x, y), e.span, g)
        if op == "-":
            return self.bounded(tm.sub(x, y), e.span, g)
        if op == "*":
            return self.bounded(tm.mul(x, y), e.span, g)
        if op in ("/", "%"):
            self.fail("range", e.span, op, "division by zero", tm.and_(g, tm.eq(y, 0)))
            return tm.div(x, y) if op == "/" else tm.mod(x, y)
        raise AssertionError(op)  # pragma: no cover

    def builtin(self, e: ir.Builtin, env: Env, g: Term) -> Value:
        op = e.op
        if op == "players":
            return SymSet(dict.fromkeys(range(self.n), True))
        if op == "num_players":
            return self.n
        if op == "winners":
            return self.winners
        if op == ir.IN_PLAY:
            t = e.type
            assert isinstance(t, TSet) and isinstance(t.elem, TComp)
            return SymSet(dict.fromkeys(in_play_of(self.rules, str(t.elem.kind), self.out), True))
        args = [self.ev(a, env, g) for a in e.args]
        if op in ir.BOARD_BUILTINS:
            return self.board_builtin(e, args, g)
        if op in ("length", "entries"):
            rec = args[0]
            assert isinstance(rec, SymRecord)
            if op == "length":
                return rec.length
            if rec.slots is None:
                raise Unsupported("the entries of a record in a state of a game of any length")
            return SymSet({i + 1: ex for i, (ex, _) in enumerate(rec.slots)})
        if op in ("next", "prev"):
            d = 1 if self.rules.game.order == "clockwise" else -1
            step = d if op == "next" else -d
            x = args[0]
            if isinstance(x, (bool, int)):
                return (int(x) + step) % self.n
            f = as_fd(x, list(range(self.n)))
            return FD({(q + step) % self.n: c for q, c in f.mem.items()})
        if op == "seat":
            return tm.add(as_int(args[0]), 1)
        if op == "player":
            x = as_int(args[0])
            self.fail("range", e.span, "player", "there is no such player", tm.and_(g, tm.or_(tm.lt(x, 1), tm.gt(x, self.n))))
            if isinstance(x, int) and not 1 <= x <= self.n:
                return 0  # play stops here (the failure above): any seat will do, one that exists
            return tm.sub(x, 1)
        if op == "size":
            s = args[0]
            assert isinstance(s, SymSet)
            if self.exact_counts and s.whole and s.origin in self.counts and s.ver == self.loc_ver:
                return self.counts[s.origin]  # a whole zone of this state: its count, kept exact by every move
            return s.size()
        if op == "where":
            return self.where(args[0])
        x = as_int(args[0])
        if op == "abs":
            return tm.ite(tm.lt(x, 0), tm.neg(x), x)
        y = as_int(args[1])
        if op == "min":
            return tm.min_of(x, y)
        if op == "max":
            return tm.max_of(x, y)
        raise AssertionError(op)  # pragma: no cover

    def agg(self, e: ir.Agg, env: Env, g: Term) -> Value:
        if e.op == "sum":
            total = self.zone_total(e, env, g)
            if total is not None:
                return total
        coll = self.ev(e.coll, env, g)
        assert isinstance(coll, SymSet)
        op = e.op
        done: Term = False  # any/all: the answer is already known
        items: list[tuple[Term, Value]] = []
        inner = env.new_child()
        boolean = isinstance(e.coll.type, TSet) and isinstance(e.coll.type.elem, TBool)
        for k, m in sorted(coll.mem.items()):
            if m is False:
                continue
            inner[e.var] = bool(k) if boolean else k  # a set of booleans holds 0 and 1
            f = as_bool(self.ev(e.filt, inner, tm.and_(g, m, tm.not_(done)))) if e.filt is not None else True
            active = tm.and_(m, f, tm.not_(done))
            if active is False:
                continue
            v: Value = k if op == "count" else self.ev(e.elem, inner, tm.and_(g, active))
            items.append((active, v))
            if op == "any":
                done = tm.or_(done, tm.and_(active, as_bool(v)))
            elif op == "all":
                done = tm.or_(done, tm.and_(active, tm.not_(as_bool(v))))
        if op == "set":
            result = self.make_set(items, e.type)
            if isinstance(e.elem, ir.Local) and e.elem.name == e.var:
                result.origin, result.ver = coll.origin, coll.ver
            return result
        if op == "any":
            return tm.or_all(tm.and_(a, as_bool(v)) for a, v in items)
        if op == "all":
            return tm.and_all(tm.implies(a, as_bool(v)) for a, v in items)
        if op == "count":
            return tm.count_true(a for a, _ in items)
        if op == "sum":
            return self.bounded(tm.add_all(tm.ite(a, as_int(v), 0) for a, v in items), e.span, g)
        if op in ("max", "min"):
            none = tm.not_(tm.or_all(a for a, _ in items))
            self.fail("incomplete", e.span, op, f"{op} of nothing: the collection is empty", tm.and_(g, none))
            best: Term = 0
            have: Term = False
            for a, v in items:
                x = as_int(v)
                better = tm.gt(x, best) if op == "max" else tm.lt(x, best)
                best = tm.ite(tm.and_(a, tm.or_(tm.not_(have), better)), x, best)
                have = tm.or_(have, a)
            return best
        if op == "the":
            self.fail("incomplete", e.span, "the", "'the' needs exactly one, but none or several qualify",
                      tm.and_(g, tm.not_(tm.pb_eq([a for a, _ in items], 1))))
            out: Value
            if items and all(isinstance(v, int) and not isinstance(v, bool) for _, v in items):
                # one selector per candidate: where exactly one qualifies, exactly one holds
                sel: dict[int, list[Term]] = {}
                for a, v in items:
                    sel.setdefault(v, []).append(a)
                out = FD({v: tm.or_all(cs) for v, cs in sorted(sel.items())})
            else:
                out = _default_of(e.type)
                for a, v in reversed(items):
                    out = merge(a, v, out)
            if isinstance(out, FD) and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
                out.origin, out.ver = coll.origin, coll.ver
            return out
        raise AssertionError(op)  # pragma: no cover

    def zone_total(self, e: ir.Expr, env: Env, g: Term) -> int | None:
        """A sum of the sizes of several zones (``size(deck) + sum(size(hand[p]) for p in
        players)``) is a number whenever every component that can be in one of them counts the
        same wherever it is: each component is in exactly one zone. Counted per zone, the solver
        would have to rediscover that through every move of the game; None when the sum is not
        of that form, or some component's weight depends on where it is."""
        if not _sum_shape(e):
            return None
        form = self.zone_form(e, env, g)
        if form is None or len(form[0]) < 2:
            return None
        weights, total = form
        for c, loc in enumerate(self.loc):
            if c in self.out:
                continue  # in no zone: it weighs nothing
            ws = {weights.get(z, 0) for z in loc}
            if len(ws) != 1:
                return None
            total += ws.pop()
        return total

    def known_zone(self, z: ir.ZoneRef, env: Env, g: Term) -> int | None:
        """The zone instance a reference names, when the game does not choose it."""
        zid = self.zone_id(z.zone, self.ev(z.index, env, g) if z.index is not None else None)
        return zid if isinstance(zid, int) else None

    def in_some_zone(self, e: ir.Expr, env: Env, g: Term) -> bool:
        """``c in deck or c in field or any(c in hand[p] for p in players)`` holds whenever those
        zones include every zone the component ``c`` can be in (it is always somewhere)."""
        cover = self.zone_cover(e, env, g) if _cover_shape(e) else None
        if cover is None:
            return False
        x, zones = cover
        return isinstance(x, int) and not isinstance(x, bool) and set(self.loc[x]) <= zones

    def zone_cover(self, e: ir.Expr, env: Env, g: Term) -> tuple[Value, set[int]] | None:
        """``e`` as "x is in one of these zones" (the zones known), or None."""
        if isinstance(e, ir.BinOp) and e.op == "in" and isinstance(e.right, ir.ZoneRef):
            zid = self.known_zone(e.right, env, g)
            return None if zid is None else (self.ev(e.left, env, g), {zid})
        parts: list[tuple[Value, set[int]] | None] = []
        if isinstance(e, ir.BinOp) and e.op == "or":
            parts = [self.zone_cover(e.left, env, g), self.zone_cover(e.right, env, g)]
        elif isinstance(e, ir.Agg) and e.op == "any" and e.filt is None:
            envs = self.each_known(e, env, g)
            if envs is None:
                return None
            parts = [self.zone_cover(e.elem, inner, g) for inner in envs]
        if not parts or any(p is None for p in parts):
            return None
        xs = [p[0] for p in parts if p is not None]
        if any(not isinstance(x, int) or x != xs[0] for x in xs):
            return None
        return xs[0], set().union(*(p[1] for p in parts if p is not None))

    def each_known(self, e: ir.Agg, env: Env, g: Term) -> list[Env] | None:
        """The environments of an aggregate's elements, one per element, when its collection is
        known in full (every element surely in it); None otherwise."""
        coll = self.ev(e.coll, env, g)
        if not isinstance(coll, SymSet) or any(m is not True for m in coll.mem.values()):
            return None
        return [env.new_child({e.var: k}) for k in sorted(coll.mem)]

    def zone_form(self, e: ir.Expr, env: Env, g: Term) -> tuple[dict[int, int], int] | None:
        """``e`` as a weighted sum of zone sizes plus a constant, the zones known (not chosen in
        the game), or None."""
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return {}, e.value
        if isinstance(e, ir.Builtin) and e.op == "size" and isinstance(e.args[0], ir.ZoneRef):
            zid = self.known_zone(e.args[0], env, g)
            return None if zid is None else ({zid: 1}, 0)
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            a, b = self.zone_form(e.left, env, g), self.zone_form(e.right, env, g)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "+" else -1
            both = dict(a[0])
            for zid, w in b[0].items():
                both[zid] = both.get(zid, 0) + sign * w
            return both, a[1] + sign * b[1]
        if isinstance(e, ir.Agg) and e.op == "sum" and e.filt is None:
            envs = self.each_known(e, env, g)
            if envs is None:
                return None
            weights: dict[int, int] = {}
            total = 0
            for inner in envs:
                part = self.zone_form(e.elem, inner, g)
                if part is None:
                    return None
                for zid, w in part[0].items():
                    weights[zid] = weights.get(zid, 0) + w
                total += part[1]
            return weights, total
        return None

    def call(self, e: ir.CallDef, args: list[Value], g: Term) -> Value:
        """A definition, evaluated once per state and arguments; its obligations and reached
        cases are kept relative to the call, then placed under the caller's guard."""
        d = self.shadow[e.name] if self.mode == 2 and e.name in self.shadow else self.p.defs[e.name]
        loc, names, win = self.reads_of(e.name)
        # the locations with whether the other reading's state is compared (it adds obligations)
        key = (self.mode, e.name, (self.loc_ver, not self.no_compare and bool(self.alt_loc)) if loc else None,
               *(self.var_ver[v] for v in names), self.win_ver if win else None, *(value_key(a) for a in args))
        cached = self.def_cache.get(key)
        if cached is None:
            saved_errs, saved_obl, saved_reach, saved_mode = self.errs, self.obligations, self.reach, self.mode
            compared = self.mode == 0 and e.name in self.compare
            try:
                if compared:
                    self.errs, self.obligations, self.reach, self.mode = [], [], {}, 2
                    other = self.def_body(self.shadow.get(e.name, d), args)
                    other_errors = [o.cond for o in self.obligations]
                    self.mode = 1
                self.errs, self.obligations, self.reach = [], [], {}
                value = self.def_body(d, args)
                if compared:
                    # different values, or one version fails where the other does not (both
                    # failing stop the game alike)
                    err, other_err = tm.or_all(o.cond for o in self.obligations), tm.or_all(other_errors)
                    self.fail("diverge", d.span, e.name, f"the two versions of '{e.name}' disagree",
                              tm.or_(tm.ne(err, other_err), tm.and_(tm.not_(err), tm.not_(value_eq(value, other)))))
                cached = (value, [(o, o.cond) for o in self.obligations], [(r, r.cond) for r in self.reach.values()])
            finally:
                self.errs, self.obligations, self.reach, self.mode = saved_errs, saved_obl, saved_reach, saved_mode
            self.def_cache[key] = cached
        value, obls, reaches = cached
        for o, cond in obls:
            self.fail(o.kind, o.span, o.subject, o.message, tm.and_(g, cond), o.part)
        for r, cond in reaches:
            self.reached(r.label, r.span, r.subject, r.what, tm.and_(g, cond))
        return value

    def reads_of(self, name: str) -> tuple[bool, tuple[str, ...], bool]:
        """What a definition reads of the state, through the definitions it calls, in either
        version: (the components' locations, the variables, the winners)."""
        got = self.def_reads.get(name)
        if got is not None:
            return got
        self.def_reads[name] = (True, tuple(self.var_ver), True)  # while being worked out: everything
        loc, names, win = False, set(), False
        for d in (self.p.defs.get(name), self.shadow.get(name)):
            if d is None:
                continue
            for x in walk_exprs([d.body, d.otherwise, *(part for c in d.cases or [] for part in (c.guard, c.value))]):
                if isinstance(x, ir.ZoneRef) or (isinstance(x, ir.Builtin) and x.op == "where"):
                    loc = True
                elif isinstance(x, ir.VarRef):
                    names.add(x.name)
                elif isinstance(x, ir.Builtin) and x.op == "winners":
                    win = True
                elif isinstance(x, ir.CallDef) and x.name != name:
                    sub = self.reads_of(x.name)
                    loc, win = loc or sub[0], win or sub[2]
                    names.update(sub[1])
        got = self.def_reads[name] = (loc, tuple(sorted(names)), win)
        return got

    def def_body(self, d: ir.Definition, args: list[Value]) -> Value:
        env: Env = ChainMap({n: v for (n, _), v in zip(d.formals, args)})
        if d.body is not None:
            return self.ev(d.body, env, True)
        assert d.cases is not None
        guards = [as_bool(self.ev(c.guard, env, True)) for c in d.cases]
        over: dict[str, list[Term]] = {}
        for c, gd in zip(d.cases, guards):
            for o in c.overrides:
                over.setdefault(o, []).append(gd)
        wins = [tm.and_(gd, tm.not_(tm.or_all(over.get(c.name, [])))) for c, gd in zip(d.cases, guards)]
        values = [self.ev(c.value, env, w) if w is not False else _default_of(d.ret) for c, w in zip(d.cases, wins)]
        for c, w in zip(d.cases, wins):
            self.reached(ir.label_case(d.name, c.name, d.reading), c.span, d.name, f"case '{c.name}' of '{d.name}'", w)
        none = tm.not_(tm.or_all(wins))
        if d.otherwise is None:
            self.fail("incomplete", d.span, d.name, f"no case of '{d.name}' applies", none)
        for i in range(len(wins)):
            for j in range(i + 1, len(wins)):
                both = tm.and_(wins[i], wins[j])
                if both is False:
                    continue
                self.fail(
                    "conflict", d.cases[i].span, d.name,
                    f"cases '{d.cases[i].name}' and '{d.cases[j].name}' of '{d.name}' both apply and give different values",
                    tm.and_(both, tm.not_(value_eq(values[i], values[j]))),
                    part=f"cases '{d.cases[i].name}' and '{d.cases[j].name}'",
                )
        out: Value = self.ev(d.otherwise, env, none) if d.otherwise is not None else _default_of(d.ret)
        for w, v in reversed(list(zip(wins, values))):
            out = merge(w, v, out)
        return out


    # ---- boards, records, observations ------------------------------------------------------------

    def board_builtin(self, e: ir.Builtin, args: list[Value], g: Term) -> Value:
        """adjacent, neighbours, distance and steps over the board's fixed links."""
        t = e.args[0].type
        assert isinstance(t, TEnum)
        adj = self.adjacency[t.name]
        spaces = list(range(len(adj)))
        a = as_fd(args[0], spaces)
        if e.op == "adjacent":
            b = as_fd(args[1], spaces)
            return tm.or_all(tm.and_(ca, b.mem.get(y, False)) for x, ca in sorted(a.mem.items()) for y in sorted(adj[x]))
        if e.op == "neighbours":
            return SymSet({y: tm.or_all(ca for x, ca in sorted(a.mem.items()) if y in adj[x]) for y in spaces})
        if e.op == "distance":
            return self.board_distance(e, adj, a, as_fd(args[1], spaces), args[2], g)
        n = args[1]
        if not isinstance(n, (bool, int)):
            raise Unsupported("a number of steps on a board that depends on the game")
        if int(n) < 0:
            self.fail("range", e.span, "steps", "a number of steps is at least 0", g)
            return SymSet({})
        stop, via = args[2], args[3]
        assert isinstance(stop, SymSet) and isinstance(via, SymSet)
        here: dict[int, Term] = {x: c for x, c in a.mem.items() if c is not False}
        for _ in range(int(n)):
            nxt: dict[int, list[Term]] = {}
            for x, cx in sorted(here.items()):
                for y in sorted(adj[x]):
                    nxt.setdefault(y, []).append(tm.and_(cx, stop.member(y)))
                    for z in sorted(adj[y] - {x}):
                        nxt.setdefault(z, []).append(tm.and_(cx, via.member(y), stop.member(z)))
            here = {y: tm.or_all(cs) for y, cs in sorted(nxt.items())}
        return SymSet({y: c for y, c in sorted(here.items()) if c is not False})

    def board_distance(self, e: ir.Builtin, adj: list[set[int]], a: FD, b: FD, via: SymSet, g: Term) -> Value:
        """The fewest links from a to b through spaces of ``via``: a table when ``via`` is known,
        otherwise the rounds of a breadth-first search as terms."""
        from rulecheck.interpreter.semantics import RuleError, board_distance

        n = len(adj)
        if all(not isinstance(m, tm.T) for m in via.mem.values()):
            known = frozenset(k for k, m in via.mem.items() if m is True)
            frozen = [frozenset(x) for x in adj]
            out: Term = 0
            none: list[Term] = []
            for x, cx in sorted(a.mem.items()):
                for y, cy in sorted(b.mem.items()):
                    both = tm.and_(cx, cy)
                    if both is False:
                        continue
                    try:
                        d = board_distance(frozen, x, y, known, [str(k) for k in range(n)], e.span)
                    except RuleError:
                        none.append(both)
                        continue
                    out = tm.ite(both, d, out)
            self.fail("incomplete", e.span, "distance", "no path leads between the spaces through the spaces allowed", tm.and_(g, tm.or_all(none)))
            return out
        result: Term = 0
        found: Term = False
        for x, cx in sorted(a.mem.items()):
            reach: dict[int, Term] = {x: True}  # reached within k links, every space between in via
            dist: Term = 0
            got: Term = b.mem.get(x, False)  # a == b: distance 0
            for k in range(1, n):
                nxt = dict(reach)
                for w, cw in sorted(reach.items()):
                    through = cw if w == x else tm.and_(cw, via.member(w))
                    for z in sorted(adj[w]):
                        nxt[z] = tm.or_(nxt.get(z, False), through)
                now = tm.or_all(tm.and_(cy, nxt.get(y, False)) for y, cy in sorted(b.mem.items()))
                dist = tm.ite(tm.and_(tm.not_(got), now), k, dist)
                got = tm.or_(got, now)
                reach = nxt
            result = tm.ite(cx, dist, result)
            found = tm.or_(found, tm.and_(cx, got))
        self.fail("incomplete", e.span, "distance", "no path leads between the spaces through the spaces allowed", tm.and_(g, tm.not_(found)))
        return result

    def record_field(self, e: ir.RecordField, env: Env, g: Term) -> Value:
        rec = self.ev(e.record, env, g)
        pos = as_int(self.ev(e.pos, env, g))
        assert isinstance(rec, SymRecord)
        t = e.record.type
        assert isinstance(t, TRecord)
        if rec.slots is None:
            raise Unsupported("the entries of a record in a state of a game of any length")
        k = [f for f, _ in t.fields].index(e.field)
        if isinstance(pos, int):
            if not 1 <= pos <= len(rec.slots):
                self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", g)
                return _default_of(t.fields[k][1])
            exists, fields = rec.slots[pos - 1]
            self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", tm.and_(g, tm.not_(exists)))
            return fields[k]
        there = tm.or_all(tm.and_(tm.eq(pos, i + 1), ex) for i, (ex, _) in enumerate(rec.slots))
        self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", tm.and_(g, tm.not_(there)))
        if not rec.slots:
            return _default_of(t.fields[k][1])
        out: Value = rec.slots[-1][1][k]
        for i in range(len(rec.slots) - 2, -1, -1):
            out = merge(tm.eq(pos, i + 1), rec.slots[i][1][k], out)
        return out

    def append(self, s: ir.Append, env: Env, g: Term) -> None:
        values = [self.ev(v, env, g) for v in s.values]
        idx = self.ev(s.index, env, g) if s.index is not None else None
        t = self.rules.vars[s.name].type
        assert isinstance(t, TRecord)
        for (fname, ft), v in zip(t.fields, values):
            self.check_range(v, ft, s.span, f"{s.name}.{fname}", tm.and_(g, tm.not_(tm.or_all(self.errs or []))))
        ok = tm.and_(g, self.settle())
        entry = tuple(values)
        if idx is None:
            self.vars[s.name] = append_record(self.vars[s.name], ok, entry)
        else:
            table = self.vars[s.name]
            f = as_fd(idx, sorted(table))
            for k, c in f.mem.items():
                if k in table:
                    table[k] = append_record(table[k], tm.and_(ok, c), entry)
        self.var_ver[s.name] = next(self.fresh)
        self.version += 1

    def observe(self, s: ir.Observe, env: Env, g: Term) -> None:
        """What the observer learns is bound; the error of a perception is a chance decision."""
        value = self.ev(s.what, env, g)
        self.ev(s.observer, env, g)
        ref = self.ev(s.ref, env, g) if s.ref is not None else None
        ok = tm.and_(g, self.settle())
        learnt: Value = value
        if s.mode == "than":
            x, r = as_int(value), as_int(ref)
            learnt = tm.ite(tm.lt(x, r), -1, tm.ite(tm.eq(x, r), 0, 1))
        elif s.mode == "within" and s.amount > 0:
            live = self.live(ok)
            if live is not False:
                self.check_always_invariants(live)
            options = SymSet(dict.fromkeys(range(2 * s.amount + 1), True))
            d = self.new_decision(s, "chance", live, -1, options, None)
            learnt = tm.add(as_int(value), tm.sub(as_int(d.value), s.amount))
        if s.bind is not None:
            env[s.bind] = learnt


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


def _differing(a: dict[int, Term], b: dict[int, Term]) -> set[int]:
    """The zones where two locations of a component are not the same term."""
    return {z for z in {*a, *b} if a.get(z, False) is not b.get(z, False)}


def _free_locals(e: ir.Expr) -> set[str]:
    """Names an expression reads that neither the state nor the expression itself binds
    (approximately: names bound anywhere in it count as bound)."""
    found = list(walk_exprs(e))
    return {x.name for x in found if isinstance(x, ir.Local)} - {x.var for x in found if isinstance(x, ir.Agg)}


def _texts(program: ir.Program) -> set[str]:
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


def _free_text(texts: list[str], name: str, lemmas: list[Term]) -> SymText:
    sel: dict[str, Term] = {k: tm.bool_var(f"{name}|{i}") for i, k in enumerate(texts)}
    lemmas.append(tm.pb_eq(sel.values(), 1))
    return SymText(sel)


def _abstract(v: Value, t: Type, name: str, lemmas: list[Term]) -> Value:
    """A free value of the same shape as v (v itself when it is a constant)."""
    if isinstance(v, SymText):
        return _free_text(sorted(v.mem), name, lemmas)
    if isinstance(v, SymRecord):
        assert isinstance(t, TRecord)
        if v.slots is None or all(isinstance(x, (bool, int, str)) for ex, fields in v.slots for x in (ex, *fields)):
            return v
        slots: list[tuple[Term, tuple[Value, ...]]] = []
        for i, (ex, fields) in enumerate(v.slots):
            free_ex = tm.bool_var(f"{name}|{i}|exists") if isinstance(ex, tm.T) else ex
            if i > 0:
                lemmas.append(tm.implies(free_ex, slots[-1][0]))  # the entries are a prefix
            slots.append((free_ex, tuple(_abstract(x, ft, f"{name}|{i}|{f}", lemmas) if isinstance(x, (tm.T, FD)) else x
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


def _sum_shape(e: ir.Expr) -> bool:
    """Is ``e`` written as a sum of zone sizes and numbers (see SymExec.zone_total)? Read off
    the syntax, so that other sums cost nothing extra."""
    if isinstance(e, ir.Const):
        return True
    if isinstance(e, ir.Builtin):
        return e.op == "size" and isinstance(e.args[0], ir.ZoneRef)
    if isinstance(e, ir.BinOp):
        return e.op in ("+", "-") and _sum_shape(e.left) and _sum_shape(e.right)
    return isinstance(e, ir.Agg) and e.op == "sum" and e.filt is None and _sum_shape(e.elem)


def _cover_shape(e: ir.Expr) -> bool:
    """Is ``e`` written as "x in one of these zones" (see SymExec.in_some_zone)?"""
    if isinstance(e, ir.BinOp):
        if e.op == "in":
            return isinstance(e.right, ir.ZoneRef)
        return e.op == "or" and _cover_shape(e.left) and _cover_shape(e.right)
    return isinstance(e, ir.Agg) and e.op == "any" and e.filt is None and _cover_shape(e.elem)


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
