"""The reference semantics of the IR over concrete values.

This module is the meaning of a ruleset: the generated engines and the verifier must agree with it,
and the differential tests check that they do.  It is written for clarity, not speed: a tree walk
in which the game (Machine, machine.py, over the state and expressions here: Evaluator) is a Python
generator that yields each decision (chance, one player, or all players at once) and receives the
chosen value.
"""

from __future__ import annotations

import operator
from collections import ChainMap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.checker.base import MAX_RANGE
from rulecheck.dsl.inplay import in_play_of, out_of_play
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import MAX_INT, TComp, TEnum, TInt, TPlayer, TRecord, TSet, Type
from rulecheck.dsl.values import place_number, show

#: Statements a game may execute between two decisions before it is stopped as non-terminating.
STEP_BUDGET = 2_000_000
#: Where a component out of play is (``Machine.loc``): no zone instance, so nothing lists it.
OUT_OF_PLAY: tuple[str, Any] = ("", None)


def bounded(value: int, span: Span) -> int:
    """An operator's or a sum's value, which must lie within the integer limit (dsl/types.py)."""
    if -MAX_INT <= value <= MAX_INT:
        return value
    raise RuleError("range", f"the result {value:,} is beyond the integer limit ±{MAX_INT:,}", span)


def int_range(lo: int, hi: int, span: Span) -> frozenset[int]:
    """The numbers lo..hi, at most MAX_RANGE of them (bounds computed in play can be far apart)."""
    if hi - lo >= MAX_RANGE:
        raise RuleError("range", f"the range {lo:,}..{hi:,} has {hi - lo + 1:,} values; the limit is {MAX_RANGE:,}", span)
    return frozenset(range(lo, hi + 1))


class RuleError(Exception):
    """Play reached a situation the rules do not settle.

    kind: "incomplete" (no rule says what happens), "conflict" (rules disagree), "exhaustion"
    (a supply or zone is empty when a rule needs it), "range" (a value leaves its declared range),
    "nontermination" (no decision or end within the step budget).
    """

    def __init__(self, kind: str, message: str, span: Span) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.span = span
        self.state: Any = None


@dataclass
class Pending:
    """A decision the game waits for."""

    kind: str  # "chance", "player", "simultaneous"
    stmt: ir.Stmt
    player: int = -1
    options: list[int] = field(default_factory=list)  # chance outcomes or one player's choices
    per_player: dict[int, list[int]] = field(default_factory=dict)  # simultaneous: seat -> choices
    type: Type | None = None
    label: str = ""
    secret: bool = False
    question: str | None = None  # an answer (``ask``): the question and its arguments
    args: tuple[Any, ...] = ()


@dataclass
class Answer:
    """A statement made: who answered which question (with its arguments), the answer, and whether
    it was true in the state of the game then (``ask``; what deduction and reports read)."""

    sid: int
    speaker: int
    question: str
    args: tuple[Any, ...]
    value: Any
    true: bool




Env = ChainMap[str, Any]


class Evaluator:
    """A game's state and its expressions' values: everything a rule reads (the flow, which changes the
    state, is Machine in machine.py)."""

    def __init__(self, program: ir.Program, num_players: int, params: dict[str, ir.Value] | None = None, log: bool = False,
                 covered: set[str] | None = None, heads: dict[int, list[Any]] | None = None,
                 exits: dict[int, list[Any]] | None = None) -> None:
        self.covered = covered  # when given, receives the label of every rule that applies (ir.label_*)
        # when given, receives the state at the start of every pass of a loop (open or counted),
        # by loop (the verifier compares them to tell whether a round repeats, and finds facts
        # that hold at every pass)
        self.heads = heads
        # likewise, where a loop stops: (the index in ``heads`` of this run's first pass,
        # one past its last, the state)
        self.exits = exits
        rules = program.rules
        if not rules.game.min_players <= num_players <= rules.game.max_players:
            raise ValueError(
                f"{rules.game.title} is for {rules.game.min_players} to {rules.game.max_players} players, not {num_players}"
            )
        self.program = program
        self.rules = rules
        self.n = num_players
        self.params, self.attr_values = resolve_params(rules, params)
        # components out of play in this game (a table that depends on parameters) are in no zone,
        # and no zone or variable has an entry for them (domain)
        self.out = out_of_play(rules, self.params, num_players)
        self.logging = log
        self.log: list[str] = []
        self.trace: list[tuple[str, str, ir.Source | None]] | None = None
        self.steps = 0
        # zones: one instance per (zone, index); loc gives each component's instance
        self.contents: dict[tuple[str, Any], set[int]] = {}
        for z in rules.zones.values():
            for idx in self.zone_indexes(z):
                self.contents[(z.name, idx)] = set()
        self.loc: list[tuple[str, Any]] = []
        for c in rules.components:
            if c.cid in self.out:
                self.loc.append(OUT_OF_PLAY)
                continue
            key = (rules.kinds[c.kind].start_zone, None)
            self.loc.append(key)
            self.contents[key].add(c.cid)
        self.in_play = {k: in_play_of(rules, k, self.out) for k in rules.kinds}
        self.vars: dict[str, Any] = {}
        for v in rules.vars.values():
            if v.index is None:
                self.vars[v.name] = v.init
            else:
                self.vars[v.name] = {i: v.init for i in self.domain(v.index)}
        # what each player remembers having seen (``reveal``): components, forgotten when they move
        self.known: list[set[int]] = [set() for _ in range(num_players)]
        self.answers: list[Answer] = []  # the statements made so far (``ask``)
        self.winners: frozenset[int] | None = None
        self.draw = False  # the game ended in a draw (`end draw`)
        self.error: RuleError | None = None
        # what players learnt by observations since the last decision: (number, observer, label,
        # what the observer learnt); the number counts every observation of the game
        self.percepts: list[tuple[int, int, str, str]] = []
        self.observations = 0
        self.turns = 0  # calls of the game's turn procedure (`turn NAME`) so far
        self.adjacent = {b.name: [frozenset(b.neighbours(k)) for k in range(len(b.spaces))] for b in rules.boards.values()}

    # ---- domains ----------------------------------------------------------------------------

    def domain(self, t: Type) -> list[int]:
        if isinstance(t, TPlayer):
            return list(range(self.n))
        if isinstance(t, TComp):
            return [c.cid for c in self.rules.components_of(t.kind) if c.cid not in self.out]
        if isinstance(t, TEnum):
            return list(range(len(self.rules.enums[t.name].values)))
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return list(range(t.lo, t.hi + 1))
        raise ValueError(f"no finite domain for {t.show()}")  # pragma: no cover - checker forbids

    def zone_indexes(self, z: ir.ZoneInfo) -> list[Any]:
        return [None] if z.index is None else list(self.domain(z.index))

    def turn_order(self, start: int, members: Iterable[int]) -> list[int]:
        ms = set(members)
        return [p for p in (self.step_seat(start, k) for k in range(self.n)) if p in ms]

    def step_seat(self, seat: int, k: int) -> int:
        d = 1 if self.rules.game.order == "clockwise" else -1
        return (seat + d * k) % self.n

    def entry(self, index: ir.Expr | None, env: Env, t: Type | None, what: str) -> Any:
        """The index of a zone or variable (None for one without): of one declared over a range,
        a number outside it is a range error, as in the engines."""
        if index is None:
            return None
        value = self.ev(index, env)
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None and not t.lo <= value <= t.hi:
            raise RuleError("range", f"'{what}' has no entry {value}: its index runs over {t.lo}..{t.hi}", index.span)
        return value

    def check_range(self, value: Any, t: Type, span: Span, name: str) -> None:
        if isinstance(t, TInt) and not isinstance(value, bool) and isinstance(value, int):
            if (t.lo is not None and value < t.lo) or (t.hi is not None and value > t.hi):
                raise RuleError("range", f"'{name}' would become {value}, outside {t.show()}", span)
        if isinstance(t, TSet) and isinstance(t.elem, TInt) and isinstance(value, frozenset):
            lo, hi = t.elem.lo, t.elem.hi
            out = sorted(x for x in value if (lo is not None and x < lo) or (hi is not None and x > hi))
            if out:
                raise RuleError("range", f"'{name}' would hold {out[0]}, outside {t.elem.show()}", span)

    def zone_label(self, key: tuple[str, Any]) -> str:
        z = self.rules.zones[key[0]]
        if key[1] is None or z.index is None:
            return z.name
        return f"{z.name}[{show(key[1], z.index, self.rules)}]"

    # ---- expressions ------------------------------------------------------------------------

    def ev(self, e: ir.Expr, env: Env) -> Any:
        # one method per kind of expression, looked up by its class (a chain of isinstance
        # tests cost more than the evaluation of most expressions)
        return _EVAL[e.__class__](self, e, env)

    def ev_var(self, e: ir.VarRef, env: Env) -> Any:
        v = self.vars[e.name]
        return v if e.index is None else v[self.entry(e.index, env, self.rules.vars[e.name].index, e.name)]

    def ev_zone(self, e: ir.ZoneRef, env: Env) -> Any:
        idx = self.entry(e.index, env, self.rules.zones[e.zone].index, e.zone)
        return frozenset(self.contents[(e.zone, idx)])

    def ev_place(self, e: ir.PlaceOf, env: Env) -> Any:
        return place_number(self.rules, e.zone, self.ev(e.index, env) if e.index is not None else None)

    def ev_unary(self, e: ir.Unary, env: Env) -> Any:
        v = self.ev(e.operand, env)
        return (not v) if e.op == "not" else -v

    def ev_map_get(self, e: ir.MapGet, env: Env) -> Any:
        m = self.ev(e.map, env)
        v = m[self.ev(e.index, env)]
        if v is None:
            raise RuleError("incomplete", "this player made no choice here", e.span)
        return v

    def ev_fail(self, e: ir.Fail, env: Env) -> Any:
        raise RuleError(e.kind, e.message, e.span)

    def binop(self, e: ir.BinOp, env: Env) -> Any:
        op = e.op
        if op == "and":
            return bool(self.ev(e.left, env)) and bool(self.ev(e.right, env))
        if op == "or":
            return bool(self.ev(e.left, env)) or bool(self.ev(e.right, env))
        a = self.ev(e.left, env)
        b = self.ev(e.right, env)
        plain = _PLAIN_OPS.get(op)
        if plain is not None:
            return plain(a, b)
        if op in _INT_OPS:
            return bounded(_INT_OPS[op](a, b), e.span)
        if op in ("/", "%"):
            if b == 0:
                raise RuleError("range", "division by zero", e.span)
            return a // b if op == "/" else a % b
        raise AssertionError(op)  # pragma: no cover

    def builtin(self, e: ir.Builtin, env: Env) -> Any:
        op = e.op
        if op == "players":
            return frozenset(range(self.n))
        if op == "num_players":
            return self.n
        if op == "winners":
            return self.winners if self.winners is not None else frozenset()
        if op == ir.IN_PLAY:
            t = e.type
            assert isinstance(t, TSet) and isinstance(t.elem, TComp) and t.elem.kind is not None
            return self.in_play[t.elem.kind]
        args = [self.ev(a, env) for a in e.args]
        if op in ir.BOARD_BUILTINS:
            return self.board_builtin(e, args)
        if op == "length":
            return len(args[0])
        if op == "entries":
            return frozenset(range(1, len(args[0]) + 1))
        if op == "next":
            return self.step_seat(args[0], 1)
        if op == "prev":
            return self.step_seat(args[0], -1)
        if op == "seat":
            return args[0] + 1
        if op == "player":
            if not 1 <= args[0] <= self.n:
                raise RuleError("range", f"there is no player {args[0]} in a {self.n}-player game", e.span)
            return args[0] - 1
        if op == "size":
            return len(args[0])
        if op == "abs":
            return abs(args[0])
        if op == "where":
            zone, idx = self.loc[args[0]]
            return place_number(self.rules, zone, idx)
        if op == "min":
            return min(args)
        if op == "max":
            return max(args)
        raise AssertionError(op)  # pragma: no cover

    def board_builtin(self, e: ir.Builtin, args: list[Any]) -> Any:
        """adjacent(a, b), neighbours(a), distance(a, b, via), steps(a, n, stop, via)."""
        t = e.args[0].type
        assert isinstance(t, TEnum)
        adj = self.adjacent[t.name]
        if e.op == "adjacent":
            return args[1] in adj[args[0]]
        if e.op == "neighbours":
            return adj[args[0]]
        if e.op == "distance":
            return board_distance(adj, args[0], args[1], args[2], self.rules.enums[t.name].labels, e.span)
        if args[1] < 0:
            raise RuleError("range", f"{args[1]} steps: a number of steps is at least 0", e.span)
        return board_steps(adj, args[0], args[1], args[2], args[3])

    def record_field(self, e: ir.RecordField, env: Env) -> Any:
        entries = self.ev(e.record, env)
        pos = self.ev(e.pos, env)
        t = e.record.type
        assert isinstance(t, TRecord)
        if not 1 <= pos <= len(entries):
            raise RuleError("range", f"record '{t.name}' has no entry {pos}: it has {len(entries)}", e.span)
        return entries[pos - 1][[f for f, _ in t.fields].index(e.field)]

    def agg(self, e: ir.Agg, env: Env) -> Any:
        coll = sorted(self.ev(e.coll, env))
        items = []
        inner = env.new_child()
        for x in coll:
            inner[e.var] = x
            if e.filt is None or self.ev(e.filt, inner):
                items.append(self.ev(e.elem, inner) if e.op != "count" else x)
                if e.op == "any" and items[-1]:
                    return True
                if e.op == "all" and not items[-1]:
                    return False
        op = e.op
        if op == "set":
            return frozenset(items)
        if op == "any":
            return False
        if op == "all":
            return True
        if op == "count":
            return len(items)
        if op == "sum":
            return bounded(sum(items), e.span)
        if op in ("max", "min"):
            if not items:
                raise RuleError("incomplete", f"{op} of nothing: the collection is empty", e.span)
            return max(items) if op == "max" else min(items)
        if op == "the":
            if len(items) != 1:
                what = "nothing qualifies" if not items else f"{len(items)} candidates qualify and no rule picks one"
                raise RuleError("incomplete", f"'the' needs exactly one, but {what}", e.span)
            return items[0]
        raise AssertionError(op)  # pragma: no cover

    def call(self, name: str, args: list[Any], span: Span) -> Any:
        d = self.program.defs[name]
        env: Env = ChainMap({n: v for (n, _), v in zip(d.formals, args)})
        if d.body is not None:
            return self.ev(d.body, env)
        assert d.cases is not None
        applicable = [c for c in d.cases if self.ev(c.guard, env)]
        names = {c.name for c in applicable}
        overridden = {o for c in applicable for o in c.overrides if o in names}
        winners = [c for c in applicable if c.name not in overridden]
        if not winners:
            if d.otherwise is not None:
                if self.trace is not None:
                    self.trace.append((name, "otherwise", d.source))
                return self.ev(d.otherwise, env)
            raise RuleError("incomplete", f"no case of '{name}' applies", span)
        values = [self.ev(c.value, env) for c in winners]
        if any(v != values[0] for v in values[1:]):
            raise RuleError(
                "conflict",
                f"cases {', '.join(c.name for c in winners)} of '{name}' all apply and disagree",
                winners[0].span,
            )
        if self.trace is not None:
            for c in winners:
                self.trace.append((name, c.name, c.source))
        if self.covered is not None:
            self.covered.update(ir.label_case(name, c.name, d.reading) for c in winners)
        return values[0]

    # ---- invariants -------------------------------------------------------------------------

    def broken_invariants(self, at_end: bool) -> list[str]:
        out = []
        for inv in self.rules.invariants:
            if inv.at_end and not at_end:
                continue
            try:
                ok = self.ev(inv.expr, ChainMap())
            except RuleError:
                ok = False
            if not ok:
                out.append(inv.name)
        return out


#: Operators of two values with no check of their result.
_PLAIN_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "in": lambda a, b: a in b, "union": operator.or_, "diff": operator.sub,
}
#: Integer operators whose result must lie within the integer limit.
_INT_OPS: dict[str, Callable[[int, int], int]] = {"+": operator.add, "-": operator.sub, "*": operator.mul}

#: Machine.ev's method for each kind of expression.
_EVAL: dict[type, Callable[[Evaluator, Any, Env], Any]] = {
    ir.Const: lambda m, e, env: e.value,
    ir.Local: lambda m, e, env: env[e.name],
    ir.VarRef: Evaluator.ev_var,
    ir.ParamRef: lambda m, e, env: m.params[e.name],
    ir.ZoneRef: Evaluator.ev_zone,
    ir.AttrRef: lambda m, e, env: m.attr_values[m.ev(e.obj, env)][e.attr],
    ir.PlaceOf: Evaluator.ev_place,
    ir.CallDef: lambda m, e, env: m.call(e.name, [m.ev(a, env) for a in e.args], e.span),
    ir.Builtin: Evaluator.builtin,
    ir.Unary: Evaluator.ev_unary,
    ir.BinOp: Evaluator.binop,
    ir.Cond: lambda m, e, env: m.ev(e.then, env) if m.ev(e.cond, env) else m.ev(e.else_, env),
    ir.SetOf: lambda m, e, env: frozenset(m.ev(i, env) for i in e.items),
    ir.IntRange: lambda m, e, env: int_range(m.ev(e.lo, env), m.ev(e.hi, env), e.span),
    ir.Agg: Evaluator.agg,
    ir.MapGet: Evaluator.ev_map_get,
    ir.Fail: Evaluator.ev_fail,
    ir.SpaceAttr: lambda m, e, env: m.rules.boards[e.board].values[m.ev(e.obj, env)][e.attr],
    ir.RecordField: Evaluator.record_field,
}




def resolve_params(rules: ir.Ruleset, params: dict[str, Any] | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Parameter values, and every component's attributes with unspecified columns filled in.

    ``params`` maps a parameter name to its value, and ``"Kind.attr"`` (an unspecified column) to
    one value for every component of the kind or a dict from component id to value; what it does
    not give takes the ruleset's default."""
    from rulecheck.dsl.values import param_spec, spec_problem

    values = {name: p.value for name, p in rules.params.items()}
    attrs = [dict(c.attrs) for c in rules.components]
    for name, value in (params or {}).items():
        if name in values:
            problem = spec_problem(param_spec(rules.params[name].type, rules), value)
            if problem is not None:
                raise ValueError(f"parameter '{name}' is {problem}, not {value!r}")
            values[name] = value
            continue
        kind, _, attr = name.partition(".")
        k = rules.kinds.get(kind)
        prov = k.provenance.get(attr) if k is not None else None
        if k is None or prov is None or prov.kind != "unspecified":
            raise ValueError(f"no parameter named '{name}'")
        spec = param_spec(k.attrs[attr], rules)
        for c in rules.components_of(kind):
            cell = value.get(c.cid, attrs[c.cid][attr]) if isinstance(value, dict) else value
            problem = spec_problem(spec, cell)
            if problem is not None:
                raise ValueError(f"'{name}' of {c.display} is {problem}, not {cell!r}")
            if isinstance(value, dict):
                if c.cid in value:
                    attrs[c.cid][attr] = frozenset(cell) if spec[0] == "set" else cell
            else:
                attrs[c.cid][attr] = frozenset(cell) if spec[0] == "set" else cell
    return values, attrs


def board_distance(adj: list[frozenset[int]], a: int, b: int, via: frozenset[int], labels: list[str], span: Span) -> int:
    """The fewest links from a to b, every space between them in ``via`` (breadth first)."""
    if a == b:
        return 0
    seen = {a}
    frontier = [a]
    d = 0
    while frontier:
        d += 1
        nxt: list[int] = []
        for x in frontier:
            for y in sorted(adj[x]):
                if y == b:
                    return d
                if y not in seen and y in via:
                    seen.add(y)
                    nxt.append(y)
        frontier = nxt
    raise RuleError("incomplete", f"no path leads from {labels[a]} to {labels[b]} through the spaces allowed", span)


def board_steps(adj: list[frozenset[int]], a: int, n: int, stop: frozenset[int], via: frozenset[int]) -> frozenset[int]:
    """The spaces n steps from a: each step goes onto a space of ``stop`` that is linked to the
    space before, or linked to a space of ``via`` that is (a step across it)."""
    here = frozenset({a})
    for _ in range(n):
        nxt: set[int] = set()
        for x in here:
            nxt |= adj[x] & stop
            for g in adj[x] & via:
                nxt |= (adj[g] & stop) - {x}
        here = frozenset(nxt)
    return here
