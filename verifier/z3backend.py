"""The z3 back end: translates terms (verifier/terms.py) and decides them.

The only module of the toolkit that imports z3. Everything the symbolic executor produces is
finite: booleans, cardinality constraints and small integers, so the terms go to z3's finite-domain
solver (QF_FD: SAT with native cardinality constraints), integers as bit-vectors of at most 16
bits, each as narrow as the values it can take allow.
Results are three-valued: SAT with a model, UNSAT, or UNKNOWN when the time limit runs out;
UNKNOWN is never reported as proven.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import z3

from . import terms as tm
from .terms import Term

#: Integers are at most 16-bit two's complement; scores and sums of small games fit with room to
#: spare. Most terms' ranges are known (counts, sums of table values), and they get fewer bits.
WIDTH = 16
#: An integer term whose range is known is computed in the bits the range needs, up to this many
#: (a value checked against the integer limit must be exact: see terms.clamp).
EXACT_WIDTH = 64

#: z3's resource units per second of a time limit. A question is stopped after a number of the
#: solver's own steps, not of seconds, so its answer does not depend on the machine's load or speed
#: and verify's output is the same from run to run. Measured on the 2-core machine of the speed
#: figures (docs/verify.md): about 5 million units a second on the finite-domain solver.
RLIMIT_PER_SECOND = 5_000_000

#: z3's "no limit" for the SAT solver's conflicts (its default, UINT_MAX).
NO_CONFLICT_LIMIT = 2**32 - 1

#: Conflicts before the SAT solver's first inprocessing, for a batch's questions after its first.
SKIP_INPROCESSING = 100_000

#: The wall-clock limit, a multiple of the time limit: only a safety net for a machine far slower
#: or busier than that one, where it, not the resource limit, may stop a question. Then the answer
#: could differ on another run, and the run says so (WALL_STOPS, reported by verify). Measured
#: (benchmarks/rlimit.py): with six other jobs on the 2 cores z3 worked through 0.45 million units a
#: second, a tenth of the idle rate, so the net is set well beyond that.
WALL_CLOCK_FACTOR = 60

#: Questions of this process the wall-clock safety net stopped (a description each).
WALL_STOPS: list[str] = []


@dataclass
class Result:
    status: str  # "sat", "unsat", "unknown"
    model: dict[str, bool | int] | None = None
    reason: str = ""


class Translator:
    """Terms to z3 terms, each term translated once. Every ``and``, ``or`` and boolean
    if-then-else becomes a Boolean constant of its own, named by an equation (``definitions``),
    with its arguments' names inside: z3's preprocessing then keeps the terms' sharing instead of
    rewriting the whole formula into a larger one (measured: docs/verify.md). A solver must be
    given the definitions of what it is asked; the names are no game's variables (``vars``)."""

    def __init__(self, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx or z3.Context()
        self.memo: dict[int, Any] = {}
        self.vars: dict[str, Any] = {}
        self.defs: dict[int, Any] = {}  # term id -> the equation naming it
        self.widths: dict[int, int] = {}  # integer term id -> its bit-vector's width
        self.ranges: dict[int, tuple[int, int] | None] = {}  # integer term id -> its values' bounds, where known
        # a background's conjunction and the terms it defines, by the background's terms: the
        # same game is the background of many sessions of a check
        self.backgrounds: dict[tuple[object, ...], tuple[Any, set[int]]] = {}

    def const(self, v: bool | int, width: int = WIDTH) -> Any:
        return z3.BoolVal(v, self.ctx) if isinstance(v, bool) else z3.BitVecVal(v, width, self.ctx)

    def width_of(self, t: Term) -> int:
        """The bit-width of a translated integer term (of a constant: the fewest bits)."""
        if isinstance(t, tm.T):
            return self.widths[t.id]
        return _bits(int(t), int(t))

    def value_is(self, t: Term, v: bool | int) -> Any:
        """The translated term equals the constant v."""
        if not isinstance(t, tm.T):
            return z3.BoolVal(t == v and isinstance(t, bool) == isinstance(v, bool), self.ctx)
        x = self(t)
        if t.sort == tm.BOOL:
            return x == self.const(bool(v))
        w = max(self.widths[t.id], _bits(int(v), int(v)))
        return self._extend(x, self.widths[t.id], w) == self.const(int(v), w)

    def __call__(self, t: Term) -> Any:
        if not isinstance(t, tm.T):
            return self.const(t)
        got = self.memo.get(t.id)
        if got is not None:
            return got
        # iterative post-order: deep terms must not exhaust the Python stack
        stack: list[tuple[tm.T, bool]] = [(t, False)]
        while stack:
            node, ready = stack.pop()
            if node.id in self.memo:
                continue
            if node.op == "var":
                name = str(node.args[0])
                if node.sort == tm.BOOL:
                    v = z3.Bool(name, self.ctx)
                else:
                    declared = tm.var_range(node)
                    w = WIDTH if declared is None else _bits(*declared)
                    v = z3.BitVec(name, w, self.ctx)
                    self.widths[node.id] = w
                    self.ranges[node.id] = declared
                    if declared is not None:
                        # every question with the variable gets its range (as the equations
                        # naming terms: see definitions), so the ranges computed from it hold
                        lo, hi = (self.const(b, w) for b in declared)
                        self.defs[node.id] = self._build("and", [self._build("le", [lo, v], tm.BOOL), self._build("le", [v, hi], tm.BOOL)], tm.BOOL)
                self.vars[name] = v
                self.memo[node.id] = v
                continue
            if not ready:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if isinstance(a, tm.T) and a.id not in self.memo)
                continue
            args = [self.memo[a.id] if isinstance(a, tm.T) else a for a in node.args]
            if node.op in ("and", "or") or (node.op == "ite" and node.sort == tm.BOOL):
                self.memo[node.id] = self._named(node.id, self._build(node.op, args, node.sort))
            elif node.sort == tm.INT or (node.op in ("eq", "lt", "le") and tm.sort_of(node.args[0]) == tm.INT):
                self.memo[node.id] = self._build_int(node, args)
            else:
                self.memo[node.id] = self._build(node.op, args, node.sort)
        return self.memo[t.id]

    def _range(self, a: Term) -> tuple[int, int] | None:
        if isinstance(a, tm.T):
            return self.ranges[a.id]
        return (int(a), int(a))

    def _extend(self, x: Any, have: int, want: int) -> Any:
        if want == have:
            return x
        return z3.BitVecRef(z3.Z3_mk_sign_ext(self.ctx.ref(), want - have, x.as_ast()), self.ctx)

    def _at(self, a: Term, x: Any, w: int) -> Any:
        """An integer argument (translated: x) as a bit-vector of width w."""
        if not isinstance(a, tm.T):
            return self.const(int(a), w)
        return self._extend(x, self.widths[a.id], w)

    def _build_int(self, node: tm.T, raw: list[Any]) -> Any:
        """An integer term, or a comparison of two, in the fewest bits that hold every value it
        can take (its range, computed from its parts') and its parts; where a part's range is
        unknown, or the range does not fit in WIDTH bits, in WIDTH bits with wrap-around. The
        values are those of WIDTH bits everywhere; the narrower the bit-vectors, the smaller the
        problem the solver gets (measured: docs/verify.md)."""
        op, args = node.op, node.args
        if op == "clamp":
            return self._clamp(node, raw[0])
        ints = [a for a in args if tm.sort_of(a) == tm.INT]
        widths = [self.width_of(a) for a in ints]
        if op in ("eq", "lt", "le"):
            w = max(widths)
            return self._build(op, [self._at(a, x, w) if isinstance(a, tm.T) else a for a, x in zip(args, raw)], tm.BOOL, w)
        ranges = [self._range(a) for a in ints]
        rng: tuple[int, int] | None
        if op == "count":
            rng = (0, len(args))
        elif any(r is None for r in ranges):
            rng = None
        else:
            known = [r for r in ranges if r is not None]
            if op == "add":
                # a partial sum may wrap around: sums and products are exact modulo 2**w, so
                # the whole, within range, is exact
                rng = (sum(r[0] for r in known), sum(r[1] for r in known))
            elif op == "ite":
                rng = (min(r[0] for r in known), max(r[1] for r in known))
            elif op == "mul":
                ends = [x * y for x in known[0] for y in known[1]]
                rng = (min(ends), max(ends))
            else:  # div, mod (as built below): |x // y| <= |x| + 1, |x % y + y| <= |x| + |y|,
                # whatever y, 0 included
                m = max(abs(v) for r in known for v in r) + 2
                rng = (-2 * m, 2 * m)
        if rng is not None and _bits(*rng) > EXACT_WIDTH:
            rng = None
        w = max([WIDTH if rng is None else _bits(*rng), *widths])
        self.ranges[node.id] = rng
        self.widths[node.id] = w
        at = [self._at(a, x, w) if isinstance(a, tm.T) and a.sort == tm.INT else x for a, x in zip(args, raw)]
        return self._build(op, at, tm.INT, w)

    def _clamp(self, node: tm.T, x: Any) -> Any:
        """clamp(a, L): a where it lies within -L..L, else 0 (terms.clamp), in the bits of -L..L
        (a's own are exact: its range is known, within EXACT_WIDTH bits)."""
        a, limit = node.args[0], int(node.args[1])  # type: ignore[arg-type]
        have = self.width_of(a)
        w = _bits(-limit, limit)
        self.ranges[node.id] = tm.int_range(node)
        if have <= w:
            self.widths[node.id] = have
            return x
        self.widths[node.id] = w
        # (z3py here: rare, and every part is held by a Python object, so none is freed early)
        inside = z3.And(self.const(-limit, have) <= x, x <= self.const(limit, have))
        return z3.If(inside, z3.Extract(w - 1, 0, x), self.const(0, w))

    def _named(self, tid: int, body: Any) -> Any:
        c = self.ctx.ref()
        name = z3.BoolRef(z3.Z3_mk_const(c, z3.Z3_mk_int_symbol(c, tid), z3.Z3_mk_bool_sort(c)), self.ctx)
        self.defs[tid] = z3.BoolRef(z3.Z3_mk_eq(c, name.as_ast(), body.as_ast()), self.ctx)
        return name

    def definitions(self, roots: Iterable[Term], done: set[int]) -> list[Any]:
        """The equations naming the parts of these (translated) terms, except those of terms in
        ``done``, which the solver has already; ``done`` is updated."""
        out: list[Any] = []
        stack = [r for r in roots if isinstance(r, tm.T)]
        while stack:
            node = stack.pop()
            if node.id in done:
                continue
            done.add(node.id)
            d = self.defs.get(node.id)
            if d is not None:
                out.append(d)
            stack.extend(a for a in node.args if isinstance(a, tm.T) and a.id not in done)
        return out

    def conjunction(self, asts: list[Any]) -> Any:
        """One z3 ``and`` of translated terms (asserted at once: see Session)."""
        return self._build("and", asts, tm.BOOL)

    def _z(self, a: Any, width: int = WIDTH) -> Any:
        return self.const(a, width) if isinstance(a, (bool, int)) else a

    def _build(self, op: str, raw: list[Any], sort: str, width: int = WIDTH) -> Any:
        # z3's C API directly: z3py's And/If/== check and coerce every argument in Python, which
        # cost more than the solver on the smaller questions; the terms built are the same
        ctx = self.ctx
        c = ctx.ref()
        if op in ("pbeq", "pbge", "pble"):
            refs = [self._z(b) for b in raw[1:]]  # held: a z3 term no Python object holds may be freed
            bools = [r.as_ast() for r in refs]
            mk = {"pbeq": z3.Z3_mk_pbeq, "pbge": z3.Z3_mk_pbge, "pble": z3.Z3_mk_pble}[op]
            return z3.BoolRef(mk(c, len(bools), _array(bools), (ctypes.c_int * len(bools))(*([1] * len(bools))), int(raw[0])), ctx)
        refs = [self._z(x, width) for x in raw]
        a = [r.as_ast() for r in refs]
        ref = z3.BoolRef if sort == tm.BOOL else z3.BitVecRef
        if op == "not":
            return z3.BoolRef(z3.Z3_mk_not(c, a[0]), ctx)
        if op == "and":
            return z3.BoolRef(z3.Z3_mk_and(c, len(a), _array(a)), ctx)
        if op == "or":
            return z3.BoolRef(z3.Z3_mk_or(c, len(a), _array(a)), ctx)
        if op == "ite":
            return ref(z3.Z3_mk_ite(c, a[0], a[1], a[2]), ctx)
        if op in ("eq", "lt", "le"):
            if isinstance(raw[1], int) and not isinstance(raw[1], bool) and not isinstance(raw[0], int):
                # as z3py builds `x < 3`: Python lets the number's subclass answer first, so
                # 3 > x (the same question; the same terms keep verify's answers as they were)
                mk = {"eq": z3.Z3_mk_eq, "lt": z3.Z3_mk_bvsgt, "le": z3.Z3_mk_bvsge}[op]
                return z3.BoolRef(mk(c, a[1], a[0]), ctx)
            mk = {"eq": z3.Z3_mk_eq, "lt": z3.Z3_mk_bvslt, "le": z3.Z3_mk_bvsle}[op]
            return z3.BoolRef(mk(c, a[0], a[1]), ctx)
        # intermediate sums are wrapped at once too
        if op == "add":
            out = ref(a[0], ctx)
            for x in a[1:]:
                out = ref(z3.Z3_mk_bvadd(c, out.as_ast(), x), ctx)
            return out
        if op == "count":
            one, zero = self.const(1, width), self.const(0, width)
            total = ref(z3.Z3_mk_ite(c, a[0], one.as_ast(), zero.as_ast()), ctx)
            for x in a[1:]:
                bit = ref(z3.Z3_mk_ite(c, x, one.as_ast(), zero.as_ast()), ctx)
                total = ref(z3.Z3_mk_bvadd(c, total.as_ast(), bit.as_ast()), ctx)
            return total
        x, y = refs
        if op == "mul":
            return x * y
        if op == "div":
            # floor division, as Python's //: z3's signed division rounds towards zero
            q, r = x / y, z3.SRem(x, y)
            return z3.If(z3.And(r != 0, (r < 0) != (y < 0)), q - 1, q)
        if op == "mod":
            r = z3.SRem(x, y)
            return z3.If(z3.And(r != 0, (r < 0) != (y < 0)), r + y, r)
        raise AssertionError(op)  # pragma: no cover


def _bits(lo: int, hi: int) -> int:
    """The fewest bits of a two's complement number that holds every value from lo to hi."""
    w = 1
    while lo < -(1 << (w - 1)) or hi > (1 << (w - 1)) - 1:
        w += 1
    return w


def _array(asts: list[Any]) -> Any:
    return (z3.Ast * len(asts))(*asts)


class Session:
    """A fixed background (legality of the games compared), asked many questions: each question
    gets a fresh finite-domain solver so z3 can preprocess the whole problem, or a batch of them
    shares one (see Batch) that has every goal from the start."""

    def __init__(self, background: Iterable[Term], timeout_s: float, tr: Translator | None = None) -> None:
        # a context of its own, or one shared by the sessions of one check (terms common to its
        # questions are translated once): z3's answers must not depend on what other checks
        # asked before in the process
        self.tr = tr or Translator()
        self.timeout_s = timeout_s
        kept = [b for b in background if b is not True]
        key = tm.key_of(kept)
        if key not in self.tr.backgrounds:
            done: set[int] = set()
            # one conjunction: asserting tens of thousands of definitions one by one through z3py
            # cost more than some questions
            self.tr.backgrounds[key] = (self.tr.conjunction([self.tr(b) for b in kept] + self.tr.definitions(kept, done)), done)
        # the terms whose definitions every solver of this session has (never changed: a
        # question's own definitions are looked for in a copy)
        self.background, self.done = self.tr.backgrounds[key]

    def assertions(self, terms: list[Term]) -> tuple[list[Any], Any]:
        """The terms translated, and the conjunction of the definitions they need beyond the
        background's."""
        return [self.tr(t) for t in terms], self.tr.conjunction(self.tr.definitions(terms, set(self.done)))

    def check_each(self, goals: list[Term]) -> Result:
        """Is any of the goals possible? Asked one goal at a time of one solver (see Batch).
        "unsat" only when each is proven impossible; the first possible one gives "sat" and its
        model."""
        # the impossible goals dropped first, not only skipped: the indicators keep their numbers
        goals = [g for g in goals if g is not False]
        batch = self.batch(goals)
        for i in range(len(goals)):
            r = batch.ask(i)
            if r.status != "unsat":
                return r
        return Result("unsat")

    def batch(self, goals: list[Term], facts: dict[str, Term] | None = None) -> Batch:
        return Batch(self, goals, facts or {})

    def _solver(self, timeout_s: float) -> Any:
        """A finite-domain solver with the background, limited per question (each check)."""
        solver = z3.SolverFor("QF_FD", ctx=self.tr.ctx)
        solver.set("rlimit", max(1, int(timeout_s * RLIMIT_PER_SECOND)))
        solver.set("timeout", max(1, int(timeout_s * 1000 * WALL_CLOCK_FACTOR)))
        solver.set("random_seed", 0)
        # no failed-literal probing in the SAT solver's inprocessing: on these games it cost more
        # than it saved (about a tenth of z3's work in the committed rulesets' verify; docs/verify.md)
        solver.set("sat.probing", False)
        solver.add(self.background)
        return solver

    def _values(self, m: Any) -> dict[str, bool | int]:
        values: dict[str, bool | int] = {}
        for name, v in sorted(self.tr.vars.items()):
            val = m.eval(v, model_completion=True)
            values[name] = z3.is_true(val) if z3.is_bool(val) else val.as_signed_long()
        return values

    def check(self, *goals: Term, timeout_s: float | None = None) -> Result:
        goal = tm.and_all(goals)
        if goal is False:
            return Result("unsat")
        solver = self._solver(self.timeout_s if timeout_s is None else timeout_s)
        if goal is not True:
            (x,), defs = self.assertions([goal])
            solver.add(x, defs)
        return self._result(solver, solver.check())

    def _result(self, solver: Any, r: Any) -> Result:
        """z3's answer as a Result: a model where sat, the reason where unknown."""
        if r == z3.sat:
            return Result("sat", self._values(solver.model()))
        if r == z3.unsat:
            return Result("unsat")
        reason = solver.reason_unknown()
        if "timeout" in reason:  # the wall clock, not the resource limit: say so
            WALL_STOPS.append(reason)
        return Result("unknown", reason=reason)


class Batch:
    """Goals about one background, each asked on its own (``ask``) of one solver, with the time
    limit each: the background is simplified once for all of them, and what the solver learns
    about it on one serves the next, so many small questions about one game cost little more
    than one (measured: docs/verify.md). ``facts``: named assumptions every question may use;
    ``ask`` says which the proof needed."""

    def __init__(self, session: Session, goals: list[Term], facts: dict[str, Term]) -> None:
        self.session = session
        self.goals = goals
        self.facts = facts
        self.solver: Any = None
        self.which: list[Any] = []
        self.fact_vars: dict[str, Any] = {}
        self.contradictory = False  # the background alone is impossible: every goal is
        self.anys = 0  # the disjunctions asked (ask_any)

    def _start(self) -> None:
        s = self.session
        self.solver = s._solver(s.timeout_s)
        self.which = [z3.Bool(f"rulecheck|goal|{i}", s.tr.ctx) for i in range(len(self.goals))]
        self.fact_vars = {name: z3.Bool(f"rulecheck|fact|{name}", s.tr.ctx) for name in sorted(self.facts)}
        asked = [(w, g) for w, g in zip(self.which, self.goals) if g is not False]
        asked += [(w, self.facts[name]) for name, w in self.fact_vars.items()]
        translated, defs = s.assertions([g for _, g in asked])
        self.solver.add(*(z3.Implies(w, x) for (w, _), x in zip(asked, translated)))
        self.solver.add(defs)
        # the game's rules alone first, simplified with no search (finding a whole game cost
        # more than the goals after it), so the goals then get their whole time for themselves
        self.solver.set("max_conflicts", 0)
        self.contradictory = self.solver.check() == z3.unsat
        self.solver.set("max_conflicts", NO_CONFLICT_LIMIT)

    def _ready(self) -> bool:
        """The solver started; False where the background alone is impossible (so is every goal)."""
        if self.solver is None:
            self._start()
        return not self.contradictory

    def _assumed(self, assume: Iterable[str] | None) -> dict[str, Any]:
        return self.fact_vars if assume is None else {name: self.fact_vars[name] for name in sorted(set(assume))}

    def _check(self, goal: Any, used: dict[str, Any]) -> Result:
        r = self.session._result(self.solver, self.solver.check(goal, *used.values()))
        # the SAT solver's inprocessing at the start of each question (about half a second on
        # a 4-player game) has been done once for the game: the next questions go straight to
        # the search (measured: docs/verify.md)
        self.solver.set("sat.simplify.delay", SKIP_INPROCESSING)
        return r

    def ask(self, i: int) -> Result:
        """Is goal i possible (where every fact holds)?"""
        return self.ask_using(i)[0]

    def ask_any(self, indices: list[int], assume: Iterable[str] | None = None) -> Result:
        """Is any of the goals ``indices`` possible where every fact (those named in ``assume``)
        holds? One question for all of them: "unsat" proves each impossible; a model shows (at
        least) one of them."""
        asked = [i for i in indices if self.goals[i] is not False]
        if not asked or not self._ready():
            return Result("unsat")
        # a fresh indicator of this disjunction: false in every other question, so its clause
        # constrains none of them
        self.anys += 1
        pick = z3.Bool(f"rulecheck|any|{self.anys}", self.session.tr.ctx)
        self.solver.add(z3.Implies(pick, z3.Or([self.which[i] for i in asked])))
        return self._check(pick, self._assumed(assume))

    def ask_using(self, i: int, assume: Iterable[str] | None = None) -> tuple[Result, list[str]]:
        """Is goal i possible where every fact (those named in ``assume``) holds? When not: the
        facts the proof needed (from an unsat core, not necessarily the fewest), so that only
        those need proofs of their own."""
        if self.goals[i] is False or not self._ready():
            return Result("unsat"), []
        used = self._assumed(assume)
        r = self._check(self.which[i], used)
        if r.status != "unsat" or not self.fact_vars:
            return r, []
        core = {str(w) for w in self.solver.unsat_core()}
        return r, [name for name, w in used.items() if str(w) in core]
