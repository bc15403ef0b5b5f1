"""Invariants proven for games of any length: induction over the open loops.

The bounded trace (symbolic.py) unrolls each open loop (``while``, ``repeat until``) a few times,
so its proofs cover those passes only. Here every open loop is a cut point instead, and the game
is executed once from its start as follows (Floyd's inductive assertions):

* where a loop is reached, its *head facts* are checked;
* one pass of its body runs from *any* state at all (each component somewhere its kind can be,
  each variable anything its type allows, the local names the body sets anything of their type)
  in which the head facts and the loop's condition to go on hold; the invariants are checked at
  every decision of the pass, and the head facts at its end;
* after the loop the game goes on from any state in which the head facts hold and the loop's
  condition to go on does not, the variables no pass can set as they were before it.

A loop inside a pass is cut in the same way. The head facts of a loop are candidates: the ruleset's
``always`` invariants, and facts that held at the head of every pass of that loop, and where it
stopped, in a few random games (Samples.equations: a zone's size or a number is a constant, two
of them add up to one or differ by one, a hand that shrinks as a counter grows; one is a
constant where another is, or is not, one of its few values; a count is never below, or above,
its value where the run of the loop began). Which of them hold is found as Houdini does:
the candidates a pass (or the way to the loop) can break, the solver says, are dropped, and the
rest asked again, until none is. What remains holds at the head of every pass of every game: the
first pass starts from a state where they were checked, and each pass ends in one. The ruleset's
invariants are then checked with those facts assumed: one that no decision can break holds in
every game, however many passes its loops make. One the solver does not prove is not shown false
(the state it found may be one no game reaches): it keeps its bounded result.

Each assumption is guarded by a literal of its own cut point, which also guards what runs from
there: facts that contradict each other make that part of the game vacuous, not what was checked
before it. A cut point replaces the state of every path, also of those that do not reach the loop
(a loop in one branch of an ``if``): those go on from any state, with nothing assumed; sound, and
less precise.

A game with no open loop is cut at its outermost counted loops whose count the rules compute
(``repeat rounds times``, the rounds depending on the players): each may stop after any pass, so
the number of passes is not followed and the proof covers every count; the bounded trace unrolls
them whole, which for many players can be more than the solver settles.

The same conditions prove that a loop ends (ranking): a sum of counts that every pass moves one
way, bounded while the loop goes on.
"""

from __future__ import annotations

import itertools
from collections import ChainMap, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import MAX_INT, TInt, Type
from rulecheck.dsl.walk import walk_stmts

from . import terms as tm
from .heads import Feature, Sampled, Samples, sample
from .symbolic import SymExec
from .symvalues import Env, Obligation, Unsupported, as_bool, as_int, statements
from .terms import Term
from .z3backend import Batch, Session

#: A loop the induction cuts: an open one, or a counted one in a game without open loops.
Loop = ir.RepeatUntil | ir.While | ir.Repeat


@dataclass
class Pass:
    """One pass of a loop from any state at its head: where it starts (the loop going on), the
    numbers there, where it ends with the game going on, the numbers there, and where the loop
    goes on from there."""

    start_guard: Term
    start: dict[Feature, Term]
    end_guard: Term
    end: dict[Feature, Term]
    again: Term


@dataclass
class Induction:
    """The verification conditions of one player count. ``cuts``: per cut point, its literal and
    the truth of each head fact there; ``checks``: per head fact and per invariant, where it can
    fail (each a term that is true where it fails)."""

    players: int
    background: list[Term]
    cuts: list[tuple[Term, dict[str, Term]]] = field(default_factory=list)
    checks: dict[str, list[Term]] = field(default_factory=lambda: defaultdict(list))
    facts: list[str] = field(default_factory=list)  # the head facts' names, in the order they were made
    invariant_names: list[str] = field(default_factory=list)  # the ruleset's invariants, checked after the facts
    # per loop whose numbers were asked for (InductiveExec's ``measured``): each pass
    passes: dict[int, list[Pass]] = field(default_factory=lambda: defaultdict(list))
    # the rules' failures (a decision no rule settles, a supply that runs out …), each a term
    # true where it happens, over the cut game: one no state allows cannot happen in any game
    obligations: list[Obligation] = field(default_factory=list)


def assigned_globals(stmts: list[ir.Stmt], procs: dict[str, ir.Procedure]) -> set[str]:
    """The variables of the state that the statements (and the procedures they call) can set."""
    out: set[str] = set()
    todo, seen = [stmts], set()
    while todo:
        for x in walk_stmts(todo.pop()):
            if isinstance(x, ir.Assign) and not x.local:
                out.add(x.name)
            elif isinstance(x, ir.Append):
                out.add(x.name)
            elif isinstance(x, ir.CallProc) and x.name not in seen:
                seen.add(x.name)
                if x.name not in procs:  # a procedure not in this program: anything may change
                    return {"*"}
                body = procs[x.name].body
                if body is not None:
                    todo.append(body)
    return out


class InductiveExec(SymExec):
    """The game executed with its open loops cut (see the module's docstring). ``sampled``: per
    loop (its statement id), the equations sampled at its head."""

    def __init__(self, program: ir.Program, n: int, params: dict[str, Any] | None = None,
                 sampled: dict[int, list[Sampled]] | None = None, measured: dict[int, list[Feature]] | None = None) -> None:
        super().__init__(program, n, params=params, watch_invariants=True)
        self.measured = measured or {}
        self.always = [inv for inv in self.rules.invariants if not inv.at_end]
        self.sampled = sampled or {}
        self.result = Induction(n, self.constraints, invariant_names=[inv.name for inv in self.rules.invariants])
        self.cut_ids = itertools.count()
        # from an abstract state, a zone's members are free: its count after a move is the count
        # before it and the one component that came or left, not 60 members counted again
        self.exact_counts = True
        self.run_entry: dict[int, dict[Feature, Term]] = {}  # per loop being run: its numbers where the run began
        # a game with no open loop: its outermost counted loops of a count the rules compute (the
        # rounds of a game whose number depends on the players) are cut instead (cut_counted)
        self.cut_counted = not has_open_loop(program)
        self.depth = 0  # the loops (counted, open, 'for each') whose body is being run

    def prove(self) -> Induction:
        """The conditions; raises Unsupported where the game has a construct this cannot follow."""
        self.block(self.rules.flow, ChainMap(), True)
        if self.truncated is not False:  # a `repeat N times` too long to unroll: not every pass was followed
            raise Unsupported("a loop of more passes than a trace holds")
        self.flow_obligation()
        self.result.obligations = self.obligations
        for cid, loc in enumerate(self.loc):
            if cid not in self.out:
                self.constraints.append(tm.pb_eq(loc.values(), 1))
        return self.result

    # ---- what is checked ----------------------------------------------------------------------

    def check_always_invariants(self, g: Term) -> None:
        if g is False:
            return
        for inv in self.always:
            ok = self.eval_pure(inv.expr, ChainMap(), g)
            if ok is not True:
                self.result.checks[inv.name].append(tm.and_(g, tm.not_(ok)))

    def stmt1(self, s: ir.Stmt, env: Env, g: Term) -> None:
        if isinstance(s, ir.Repeat) and self.cut_counted and self.depth == 0 and not isinstance(s.count, ir.Const):
            struct = self.struct
            self.ev(s.count, env, g)  # (its failures, as the trace has them)
            self.settle()
            self.errs = None
            self.open_loop(s, env, struct)
            return
        nested = isinstance(s, (ir.Repeat, ir.ForEach))
        self.depth += nested
        try:
            super().stmt1(s, env, g)
        finally:
            self.depth -= nested
        if isinstance(s, ir.End):  # the final state is this one (a later cut point replaces every path's state)
            done = tm.and_(g, self.ended, tm.not_(self.stopped))
            if done is False:
                return
            # the final state is a state too: an 'always' invariant is checked there as well
            for inv in self.rules.invariants:
                ok = self.eval_pure(inv.expr, ChainMap(), done)
                if ok is not True:
                    self.result.checks[inv.name].append(tm.and_(done, tm.not_(ok)))

    def head_facts(self, s: Loop) -> dict[str, Term]:
        """The candidate facts of the loop's head, over the current state."""
        facts = {f"{s.sid}|{inv.name}": self.eval_pure(inv.expr, ChainMap(), True) for inv in self.always}
        for k, fact in enumerate(self.sampled.get(s.sid, [])):
            facts[f"{s.sid}|~{k}"] = self.sampled_fact(fact, self.run_entry.get(s.sid, {}))
        for name in facts:
            if name not in self.result.facts:
                self.result.facts.append(name)
        return facts

    def sampled_fact(self, fact: Sampled, entry: dict[Feature, Term]) -> Term:
        """The fact over the current state; ``entry``: the numbers where the run of its loop began."""
        if fact[0] == "const":
            return tm.eq(self.number(fact[1]), fact[2])
        if fact[0] == "since":
            _, x, sign = fact
            return tm.ge(tm.mul(sign, self.number(x)), tm.mul(sign, entry[x]))
        if fact[0] == "sum":
            _, x, y, b, c = fact
            return tm.eq(tm.add(self.number(x), tm.mul(b, self.number(y))), c)
        kind, x, a, y, c = fact
        if kind == "unless":
            return tm.or_(tm.ne(self.number(x), a), tm.eq(self.number(y), c))
        return tm.or_(tm.eq(self.number(x), a), tm.eq(self.number(y), c))

    def number(self, f: Feature) -> Term:
        kind, name, idx = f
        if kind == "zone":
            return self.zone_count(name, idx)
        v = self.vars[name]
        x = as_int(v if idx is None else v[idx])
        return tm.bool_to_int(x) if tm.sort_of(x) == tm.BOOL else x

    def check_head(self, s: Loop, g: Term) -> None:
        if g is False:
            return
        for name, ok in self.head_facts(s).items():
            if ok is not True:
                self.result.checks[name].append(tm.and_(g, tm.not_(ok)))

    # ---- the cut points -----------------------------------------------------------------------

    def free_value(self, t: Type, name: str, lemmas: list[Term]) -> Any:
        # a state of a game of any length: an integer without a declared range can be any the
        # language allows (16 bits with wrap-around would leave the larger ones out)
        if isinstance(t, TInt) and (t.lo is None or t.hi is None):
            t = TInt(-MAX_INT if t.lo is None else t.lo, MAX_INT if t.hi is None else t.hi)
        return super().free_value(t, name, lemmas)

    def any_state(self, s: Loop, tag: str, env: Env, assigned: dict[str, Type],
                  kept: dict[str, Any] | None = None) -> Term:
        """From here on, any state in which the loop's head facts hold where the returned literal
        does; the local names in ``assigned`` (those the loop sets) any value of their type; the
        variables in ``kept`` the values given."""
        lemmas, self.loc, self.counts, self.vars = self.abstract_state(tag, whole=True)
        self.vars.update(kept or {})
        for name, t in assigned.items():
            for scope in env.maps:
                if name in scope:
                    scope[name] = self.free_value(t, f"{tag}|local|{name}", lemmas)
                    break
        self.constraints.extend(lemmas)
        self.loc_ver, self.var_ver = next(self.fresh), {name: next(self.fresh) for name in self.var_ver}
        self.version += 1
        lit = tm.bool_var(f"{tag}|cut")
        self.result.cuts.append((lit, self.head_facts(s)))
        return lit

    def open_loop(self, s: Loop, env: Env, struct: Term) -> None:
        live = self.live(struct)
        if live is False:
            return
        k = next(self.cut_ids)
        # the numbers where this run of the loop begins (for the facts that compare with them)
        since = sorted({f[1] for f in self.sampled.get(s.sid, []) if f[0] == "since"}, key=repr)
        entry = {f: self.number(f) for f in since}
        outer_entry = self.run_entry.get(s.sid)
        self.run_entry[s.sid] = entry
        self.check_head(s, live)  # where the loop is reached
        assigned = {x.name: x.type for x in walk_stmts(s.body) if isinstance(x, ir.Assign) and x.local}
        saved = (self.loc, self.counts, self.vars, self.ended, self.stopped, self.loc_ver, self.var_ver)
        # one pass from any state at the head where its facts hold and the loop goes on, in a run
        # of the loop that began anywhere; the locals are copied, so that what the pass sets
        # stays in it
        inner: Env = ChainMap(*[dict(m) for m in env.maps])
        self.ended, self.stopped = False, False  # (the path to the loop is in ``struct``)
        self.run_entry[s.sid] = {f: self.any_number(f, f"ind|{k}|entry|{i}") for i, f in enumerate(since)}
        lit = self.any_state(s, f"ind|{k}|pass", inner, assigned)
        # not under the path to the loop: a pass from any such state at all, whichever way the
        # game came here (more states than the games reach, so sound), and a question about
        # the pass has no other part of the game in it (see houdini)
        guard = lit
        more = self.condition(s, inner, guard)
        features = self.measured.get(s.sid, [])
        start = (self.live(tm.and_(guard, more)), {f: self.number(f) for f in features})
        self.path.append(f"ind{k}")
        self.depth += 1
        self.block(s.body, inner, tm.and_(guard, more))
        self.depth -= 1
        self.path.pop()
        self.check_head(s, self.live(tm.and_(guard, more)))  # at the head of the next pass
        if features:
            end_guard = self.live(tm.and_(guard, more))
            end = {f: self.number(f) for f in features}
            self.result.passes[s.sid].append(Pass(*start, end_guard, end, tm.and_(end_guard, self.condition(s, inner, end_guard))))
        self.loc, self.counts, self.vars, self.ended, self.stopped, self.loc_ver, self.var_ver = saved
        # after the loop: any state where the head facts hold and the loop does not go on; the
        # variables no pass can set are as they were before it
        changed = assigned_globals(s.body, self.p.procs)
        kept = {} if "*" in changed else {name: v for name, v in self.vars.items() if name not in changed}
        self.run_entry[s.sid] = entry
        lit = self.any_state(s, f"ind|{k}|exit", env, assigned, kept)
        if outer_entry is None:
            del self.run_entry[s.sid]
        else:
            self.run_entry[s.sid] = outer_entry
        more = self.condition(s, env, tm.and_(struct, lit))
        self.stopped = tm.or_(self.stopped, tm.and_(live, tm.not_(tm.and_(lit, tm.not_(more)))))

    def any_number(self, f: Feature, name: str) -> Term:
        """Any value the number can have."""
        rng = tm.int_range(self.number(f))
        lo, hi = rng if rng is not None else (-MAX_INT, MAX_INT)
        return tm.int_var(name, lo, hi)

    def condition(self, s: Loop, env: Env, g: Term) -> Term:
        """Whether the loop goes on for another pass, in this state (a condition that fails there
        stops the game, as in the bounded trace); for a counted loop, either (any pass may be its
        last: the number of passes is not followed, which covers every count)."""
        if isinstance(s, ir.Repeat):
            return tm.bool_var(f"ind|more|{next(self.cut_ids)}")
        self.errs = []
        c = as_bool(self.ev(s.cond, env, self.live(g)))
        self.settle()
        return tm.not_(c) if isinstance(s, ir.RepeatUntil) else c


def _broken_in(model: dict[str, bool | int] | None, number: dict[str, int], goals: list[Term], kept: set[str]) -> set[str]:
    """The facts kept whose goal (a way to break them) holds in the solver's state (none without one)."""
    if model is None:
        return set()
    value = tm.Evaluator(model)
    return {name for name, i in number.items() if name in kept and value(goals[i])}


def components(groups: list[list[Term]]) -> tuple[list[int], dict[str, int]]:
    """For each group of terms, the number of its part of the problem: groups that share a
    variable (through each other too) are in one part, numbered in the order of their first group
    (-1: a group with no variable); and each variable's part."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    roots: list[str | None] = []
    for terms in groups:
        names = list(tm.free_vars(terms))
        for x in names[1:]:
            parent[find(x)] = find(names[0])
        roots.append(names[0] if names else None)
    numbers: dict[str, int] = {}
    part = [numbers.setdefault(find(r), len(numbers)) if r is not None else -1 for r in roots]
    return part, {x: numbers.setdefault(find(x), len(numbers)) for x in sorted(parent)}


class Houdini:
    """The largest set of head facts each of which the solver proves with all of them assumed at
    every cut point (see the module's docstring); then, with those assumed, which invariants it
    proves. The conditions fall apart where the parts of the game they are about share nothing (a
    pass of a loop from any state shares nothing with the passes of the other loops): each part
    is asked of a solver of its own, with only its own part of the game as background. A fact the
    solver cannot decide is dropped, as is every fact broken in a state it shows."""

    def __init__(self, session: Callable[[list[Term]], Session], ind: Induction, kept: set[str] | None = None) -> None:
        self.ind = ind
        names = [*ind.facts, *ind.invariant_names]
        checks = [(name, t) for name in names for t in ind.checks.get(name, [])]
        cuts = [(name, tm.implies(lit, ok)) for lit, oks in ind.cuts for name, ok in oks.items()]
        background = [c for c in ind.background if c is not True]
        part, self.var_part = components([[c] for c in background] + [[t] for _, t in checks] + [[t] for _, t in cuts])
        parts = sorted(set(part) - {-1})
        self.parts: list[tuple[Batch, dict[str, int], list[Term]]] = []  # a solver, its goals' numbers by name, the goals
        cut_part = part[len(background) + len(checks):]
        check_part = part[len(background):len(background) + len(checks)]
        self.session = session
        self.backgrounds = {p: [c for c, q in zip(background, part) if q == p] for p in parts}
        self.cut_terms = {p: [(name, t) for (name, t), q in zip(cuts, cut_part) if q == p] for p in parts}
        for p in parts:
            goals: dict[str, list[Term]] = defaultdict(list)
            for (name, t), q in zip(checks, check_part):
                if q == p:
                    goals[name].append(t)
            if not goals:
                continue
            facts: dict[str, list[Term]] = defaultdict(list)
            for (name, t), q in zip(cuts, cut_part):
                if q == p:
                    facts[name].append(t)
            order = sorted(goals, key=names.index)
            terms = [tm.or_all(goals[name]) for name in order]
            batch = session(self.backgrounds[p]).batch(
                terms, {name: tm.and_all(ts) for name, ts in facts.items()})
            self.parts.append((batch, {name: i for i, name in enumerate(order)}, terms))
        # a check with no variable at all is a constant: true where it fails in every game
        self.broken = {name for (name, t), q in zip(checks, check_part) if q == -1 and t is not False}
        # ``kept``: the facts a fixpoint over the same cut game found already (in another worker)
        self.kept = self.fixpoint() if kept is None else kept & set(ind.facts) - self.broken

    def fixpoint(self) -> set[str]:
        """Houdini's fixpoint: each part asked at once whether any of its facts kept can break
        where all of them hold at the cut points (one question while none does, where asking
        fact by fact took thousands), every fact broken in the state the solver shows dropped;
        a part whose question the solver cannot decide asked fact by fact."""
        kept = set(self.ind.facts) - self.broken
        changed = True
        while changed:
            changed = False
            for batch, number, goals in self.parts:
                while True:
                    asked = [i for name, i in number.items() if name in kept]
                    r = batch.ask_any(asked, kept & batch.facts.keys())
                    if r.status == "unsat":
                        break
                    out = _broken_in(r.model, number, goals, kept)
                    if not out:  # undecided (or a state the terms do not show breaking one): one at a time
                        out = self.one_by_one(batch, number, goals, kept)
                        kept -= out
                        changed = changed or bool(out)
                        break
                    kept -= out
                    changed = True
        return kept

    @staticmethod
    def one_by_one(batch: Batch, number: dict[str, int], goals: list[Term], kept: set[str]) -> set[str]:
        """The facts of one part that the solver does not prove one at a time, where all those
        not yet dropped hold at the cut points (and those a state it shows breaks)."""
        out: set[str] = set()
        for name, i in number.items():
            if name in kept - out:
                r, _ = batch.ask_using(i, (kept - out) & batch.facts.keys())
                if r.status != "unsat":
                    out |= {name} | _broken_in(r.model, number, goals, kept)
        return out

    def proves(self, name: str) -> bool:
        """Does the invariant hold where every head fact kept holds at its cut points?"""
        if name in self.broken:
            return False
        for batch, number, _ in self.parts:
            if name in number and batch.ask_using(number[name], self.kept & batch.facts.keys())[0].status != "unsat":
                return False
        return True

    def parts_of(self, violation: Term) -> tuple[int, ...]:
        """The parts of the game a term is about (none: a constant, or nothing the game has)."""
        return tuple(sorted({self.var_part[x] for x in tm.free_vars([violation]) if x in self.var_part}))

    def question(self, parts: tuple[int, ...]) -> tuple[Session, list[Term]]:
        """A session with those parts of the game as background, and the head facts kept there."""
        facts = [t for p in parts for name, t in self.cut_terms.get(p, []) if name in self.kept]
        return self.session([c for p in parts for c in self.backgrounds.get(p, [])]), facts

    def holds_each(self, violations: list[Term]) -> list[bool]:
        """holds for each violation, those about the same parts of the game asked of one solver
        (see Batch); one that a state the solver shows for another makes true does not hold."""
        out = [v is False for v in violations]
        groups: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for i, v in enumerate(violations):
            if v is not False:
                groups[self.parts_of(v)].append(i)
        for parts, items in sorted(groups.items()):
            if not parts:
                continue  # a constant that is not False, or a term about nothing the game has
            session, facts = self.question(parts)
            batch = session.batch([violations[i] for i in items], {"kept": tm.and_all(facts)})
            broken: set[int] = set()
            for k, i in enumerate(items):
                if i in broken:
                    continue
                r = batch.ask(k)
                out[i] = r.status == "unsat"
                if r.model is not None:
                    value = tm.Evaluator(r.model)
                    broken |= {j for j in items if value(violations[j])}
        return out

    def holds(self, violation: Term, effort: float = 1.0) -> bool:
        """Is ``violation`` (a term over the conditions' states) impossible where the head facts
        kept hold? Asked of the parts of the game it is about, with nothing else, with ``effort``
        times the resource limit of a question."""
        if violation is False:
            return True
        parts = self.parts_of(violation)
        if not parts:
            return False  # a constant that is not False, or a term about nothing the game has
        session, facts = self.question(parts)
        return session.check(violation, *facts, timeout_s=session.timeout_s * effort).status == "unsat"


#: Random games whose loop heads give the candidate facts of the induction: a fact a few games
#: break is no candidate, and each candidate costs a question.
SAMPLE_GAMES = 8
#: The bound asked of a number that only grows (or only shrinks) from pass to pass, in a proof
#: that a loop ends: this many times as far from zero as any value the random games saw (a
#: bound of any size will do; the loose one is the easy question).
BOUND_SCALE = 100
#: The resource limit of the question whether a measure falls in every pass, in questions' limits:
#: it is about the whole pass and the sum of all the numbers (a committed ruleset's round of many
#: steps needed 3 at 2 players; docs/verify.md).
MEASURE_EFFORT = 4.0


def has_open_loop(program: ir.Program) -> bool:
    """Does the game have an open loop (``while``, ``repeat until``)?"""
    return any(isinstance(s, (ir.RepeatUntil, ir.While)) for s in statements(program))


def has_loop_to_cut(program: ir.Program) -> bool:
    """Does the game have a loop the induction cuts: an open one, or (in a game with none) a
    counted one of a count the rules compute? (With none, the bounded trace is the whole game
    already, and no larger than the induction's.)"""
    return has_open_loop(program) or any(isinstance(s, ir.Repeat) and not isinstance(s.count, ir.Const) for s in statements(program))


def induct(program: ir.Program, n: int, params: dict[str, Any] | None, games: list[list[Any]],
           session: Callable[[list[Term]], Session], loop: int | None = None,
           kept: set[str] | None = None) -> tuple[Houdini | None, Samples]:
    """The proof by induction over the open loops of games of n players, with the head facts
    sampled from ``games``; with ``loop``, the numbers that went one way only from pass to pass
    of that loop are followed through its passes (see ranking); ``kept``: the head facts that
    hold, found for the same games already. None where the game has no loop to cut, a construct
    the induction cannot follow, or no sampled game ends."""
    none = Samples({}, {}, False, set())
    if not has_loop_to_cut(program):
        return None, none
    try:
        # the cut game without facts first: replaying the sampled games costs more (long games
        # that do not end, seconds each) than finding that it has a construct the induction
        # cannot follow, or no loop to cut that a game reaches
        if not InductiveExec(program, n, params).prove().cuts:
            return None, none
    except Unsupported:
        return None, none
    samples = sample(program, n, params, games)
    if not samples.ended:
        return None, samples
    measured = {loop: [f for f, _ in samples.monotone(loop)]} if loop is not None else None
    try:
        ind = InductiveExec(program, n, params, samples.equations(), measured).prove()
    except Unsupported:
        return None, samples
    # with no loop cut the bounded trace is the whole game already
    return (Houdini(session, ind, kept) if ind.cuts else None), samples


#: The name of a lemma (verify.Lemmas) that says whether the induction of a player count was made,
#: and the prefix of those that name the head facts it kept (a fact's name has a '|', a ruleset's
#: invariant's none, so they never meet an invariant's lemma)
INDUCTION_LEMMA = "|induction"
KEPT_LEMMA = "|kept|"


def induction_lemmas(h: Houdini | None, n: int) -> dict[tuple[str, int, bool], bool]:
    """The induction of n players as lemmas for other workers: made or not, the facts it kept."""
    return {(INDUCTION_LEMMA, n, False): h is not None, **{(KEPT_LEMMA + name, n, False): True for name in sorted(h.kept if h else ())}}


def kept_of(lemmas: dict[tuple[str, int, bool], bool], n: int) -> set[str] | None:
    """The facts the induction of n players kept, from its lemmas; None where none are given
    (the induction is to be made here)."""
    if (INDUCTION_LEMMA, n, False) not in lemmas:
        return None
    return {name[len(KEPT_LEMMA):] for name, m, _ in lemmas if m == n and name.startswith(KEPT_LEMMA)}


def _alike_again(h: Houdini, numbers: list[tuple[Feature, int]], violations: list[Term], held: list[bool]) -> list[bool]:
    """``held`` (whether each violation is impossible, asked together), with those left open
    whose number has the same name and sign as one proven (another player's score) asked again
    alone, with the measure's effort: a player's number can take the solver longer than
    another's, though the rules treat them alike."""
    proven = {(f[0], f[1], sign) for (f, sign), ok in zip(numbers, held) if ok}
    return [ok or ((f[0], f[1], sign) in proven and h.holds(v, MEASURE_EFFORT)) for (f, sign), v, ok in zip(numbers, violations, held)]


def ranking(h: Houdini, loop: int, samples: Samples) -> list[tuple[Feature, int, int]] | None:
    """A measure that proves the loop ends: numbers of the state each of which never moves the
    wrong way in a pass (grows, for one that the random games saw grow), that together move the
    right way by at least one in every pass after which the loop goes on, and each of which is
    bounded wherever a pass ends with the loop going on (so at every head but the first, a state
    of the game like any other); (number, sign, bound) each, where ``sign`` times the number
    never grows and stays at or above ``sign`` times the bound. Proven from the head facts kept,
    which hold at every pass of every game; None where none is found."""
    passes = h.ind.passes.get(loop)
    if not passes:
        return None
    candidates = samples.monotone(loop)
    wrong_way = [tm.or_all(tm.and_(p.end_guard, tm.gt(tm.mul(sign, p.end[f]), tm.mul(sign, p.start[f]))) for p in passes)
                 for f, sign in candidates]
    moving = [c for c, ok in zip(candidates, _alike_again(h, candidates, wrong_way, h.holds_each(wrong_way))) if ok]
    # sign * f stays at or above a bound far below any value seen (far within the integers'
    # range: a number bounded only by the largest integer is not bounded)
    lows = [-BOUND_SCALE * (max(abs(st[f]) for st in samples.states.get(loop, []) if f in st) + 1) for f, _ in moving]
    beyond = [tm.or_all(tm.and_(p.again, tm.lt(tm.mul(sign, p.end[f]), low)) for p in passes) if -low <= MAX_INT // 4 else True
              for (f, sign), low in zip(moving, lows)]
    bounded = _alike_again(h, moving, beyond, h.holds_each(beyond))
    measure = [(f, sign, sign * low) for (f, sign), low, ok in zip(moving, lows, bounded) if ok]
    # a count that moves neither way adds nothing to the sum but work for the solver
    both = {f for f, sign, _ in measure if sign == 1} & {f for f, sign, _ in measure if sign == -1}
    measure = [m for m in measure if m[0] not in both]
    if not measure:
        return None
    # every pass but the first begins where one ended with the loop going on, so within the
    # bounds: only those passes need to lower the measure, and only those after which the loop
    # goes on (a last pass that moves nothing ends the loop all the same). No number of it moves
    # the wrong way in any pass (proven above), so the sum of the integers falls by at least one
    # unless every one of them stays as it was: the question is whether all can stay (equalities
    # the solver substitutes, not a sum of every number of the pass: 1 s instead of more than
    # 100 s for a committed ruleset's round at 3 players)
    stays = [tm.and_(p.again, *(tm.ge(tm.mul(sign, p.start[f]), sign * bound) for f, sign, bound in measure),
                     *(tm.eq(p.end[f], p.start[f]) for f, _, _ in measure)) for p in passes]
    return measure if h.holds(tm.or_all(stays), MEASURE_EFFORT) else None
