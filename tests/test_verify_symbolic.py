"""The verifier's symbolic executor agrees with the reference interpreter on the same IR.

verifier/symbolic.py mirrors interpreter/semantics.py statement by statement, over terms instead of
values. Two properties check the mirror, with hypothesis choosing the games and states, and a third
checks the converse, that the solver's models are games:

* **Random games.** The interpreter plays a game whose every decision (chance draw, choice,
  simultaneous choice) hypothesis picks among the legal ones. The model that fixes the decision
  variables of the symbolic trace to the same moves must satisfy the trace's legality constraints
  and give the same outcome: the same winners and scores, or the same kind of rule error, the same
  invariants broken, and at the end of the game the same zone contents, variable values and values
  (or errors) of every definition at every argument.
* **Random states.** The symbolic state is made free — one boolean per zone a component could be
  in, one free variable per game variable — and the interpreter's state is set at random. Every
  definition is evaluated both ways: the term the executor builds, evaluated under the model of
  the random state, must equal the interpreter's value, it must raise an error exactly where the
  interpreter does, and z3 (verifier/z3backend.py) must read the terms as terms.evaluate does.
* **Solver models are games.** For every decision variable of a trace, a model of the legality
  constraints that sets it (as the verifier's witnesses come from such models) must describe a
  game the interpreter plays to the end the model says.

All use the executor's internals read-only (SymExec's state, ``ev``, ``zone_members``); the
rulesets are tests/verify/symbolic/mixed.rules (most statements and expression forms), the
small rulesets of tests/verify/good and bad, and rulesets/cinderella.rules and
loving_penguin.rules.
"""

from __future__ import annotations

import functools
import itertools
from collections import ChainMap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from rulecheck.dsl import ir
from rulecheck.dsl.loader import load_path
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlayer, TRecord, TSet, TText, Type
from rulecheck.dsl.values import num_distinct_actions
from rulecheck.interpreter.machine import Machine
from rulecheck.interpreter.semantics import RuleError
from rulecheck.interpreter.state import Game, State
from rulecheck.verifier import terms as tm
from rulecheck.verifier.symbolic import SymExec
from rulecheck.verifier.symvalues import FD, SymMap, SymRecord, SymSet, Trace, Unsupported
from rulecheck.verifier.witness import actions_of, model_of_actions
from rulecheck.verifier.z3backend import Session, Translator

ROOT = Path(__file__).resolve().parent.parent
MIXED = ROOT / "tests" / "verify" / "symbolic" / "mixed.rules"
CINDERELLA = ROOT / "rulesets" / "cinderella.rules"
PENGUIN = ROOT / "rulesets" / "loving_penguin.rules"
SMALL = sorted((ROOT / "tests" / "verify").glob("[bg]*/*.rules"))

#: No deadline (the first example of a ruleset builds its trace); no "explain" phase, whose tracing
#: of every line makes a failure take minutes to report.
QUICK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
                 phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])

#: Arguments tried per definition at the end of a game (every combination up to this many).
MAX_ARGS = 40
#: Integers a variable of type int (no range) takes in a random state.
FREE_INT = (-7, 12)


# ---- values -----------------------------------------------------------------------------------


class Evaluate:
    """terms.evaluate with one memo for many terms under one model (a game's traces share most of
    their subterms). The model may grow while the memo lives, as long as no variable an evaluated
    term reads is added later: decisions are fixed in the order the trace made them, and a
    decision's terms only read the variables of earlier decisions."""

    def __init__(self, model: dict[str, bool | int]) -> None:
        self.model = model
        self.memo: dict[int, bool | int] = {}

    def __repr__(self) -> str:  # pytest shows the arguments of failing frames: keep them short
        return f"Evaluate({len(self.model)} variables set)"

    def __call__(self, term: tm.Term) -> bool | int:
        if not isinstance(term, tm.T):
            return term
        memo = self.memo
        stack: list[tuple[tm.T, bool]] = [(term, False)]
        while stack:
            t, ready = stack.pop()
            if id(t) in memo:
                continue
            if t.op == "var":
                memo[id(t)] = tm.evaluate(t, self.model)
            elif not ready:
                stack.append((t, True))
                stack.extend((a, False) for a in t.args if isinstance(a, tm.T) and id(a) not in memo)
            else:
                memo[id(t)] = tm._apply(t.op, [memo[id(a)] if isinstance(a, tm.T) else a for a in t.args])
        return memo[id(term)]


def concrete(v: Any, ev: Evaluate) -> Any:
    """The value a symbolic value takes under a model (the interpreter's representation)."""
    __tracebackhide__ = True  # v's terms are DAGs whose repr, as a tree, is exponentially long
    if isinstance(v, FD):
        held = [k for k, c in sorted(v.mem.items()) if ev(c)]
        assert len(held) == 1, f"a one-hot value holds {len(held)} values: {held}"
        return held[0]
    if isinstance(v, SymSet):
        return frozenset(k for k, c in v.mem.items() if ev(c))
    if isinstance(v, str):
        return v
    if isinstance(v, SymMap):
        raise TypeError("a per-player choice is not compared")
    if isinstance(v, SymRecord):
        assert v.slots is not None
        return tuple(tuple(concrete(x, ev) for x in fields) for ex, fields in v.slots if ev(ex))
    return ev(v)


def normal(v: Any, t: Type) -> Any:
    """One spelling for values of a type (bool as bool, sets of ints as frozensets)."""
    if isinstance(t, TBool):
        return bool(v)
    if isinstance(t, TSet):
        return frozenset(int(x) for x in v)
    if isinstance(t, TText):
        return v
    if isinstance(t, TRecord):
        return tuple(tuple(normal(x, ft) for x, (_, ft) in zip(entry, t.fields)) for entry in v)
    return int(v)


def domain(rules: ir.Ruleset, n: int, t: Type) -> list[Any] | None:
    """The values of a finite type (None when there are too many to try them all)."""
    if isinstance(t, TPlayer):
        return list(range(n))
    if isinstance(t, TComp):
        return [c.cid for c in rules.components_of(t.kind)]
    if isinstance(t, TEnum):
        return list(range(len(rules.enums[t.name].values)))
    if isinstance(t, TBool):
        return [False, True]
    if isinstance(t, TInt) and t.lo is not None and t.hi is not None and t.hi - t.lo <= 12:
        return list(range(t.lo, t.hi + 1))
    return None


def calls(program: ir.Program, n: int) -> list[tuple[ir.Definition, tuple[Any, ...]]]:
    """Every definition with every combination of arguments (up to MAX_ARGS of them)."""
    out: list[tuple[ir.Definition, tuple[Any, ...]]] = []
    for d in sorted(program.defs.values(), key=lambda d: d.name):
        doms = [domain(program.rules, n, t) for _, t in d.formals]
        if any(dom is None for dom in doms):
            continue
        out.extend((d, args) for args in itertools.islice(itertools.product(*doms), MAX_ARGS))  # type: ignore[arg-type]
    return out


def call_expr(d: ir.Definition, args: tuple[Any, ...]) -> ir.CallDef:
    consts: list[ir.Expr] = [ir.Const(t, d.span, a) for (_, t), a in zip(d.formals, args)]
    return ir.CallDef(d.ret, d.span, d.name, consts)


@dataclass(repr=False)
class Evaluated:
    """An expression evaluated symbolically: its value, and the errors it can raise (kind and
    condition)."""

    value: Any
    errors: list[tuple[str, tm.Term]]

    def __repr__(self) -> str:
        return f"Evaluated({type(self.value).__name__}, {len(self.errors)} possible errors)"


def sym_eval(ex: SymExec, e: ir.Expr) -> Evaluated:
    """Evaluate an expression over the executor's current state, keeping its obligations apart."""
    saved = (ex.errs, ex.obligations, ex.stopped)
    ex.errs, ex.obligations = [], []
    try:
        value = ex.ev(e, ChainMap(), True)
        errors = [(o.kind, o.cond) for o in ex.obligations]
    finally:
        ex.errs, ex.obligations, ex.stopped = saved
    return Evaluated(value, errors)


def concrete_eval(m: Machine, e: ir.Expr) -> tuple[Any, str | None]:
    try:
        return m.ev(e, ChainMap()), None
    except RuleError as err:
        return None, err.kind


def agree(what: str, sym: Evaluated, ev: Evaluate, value: Any, error: str | None, t: Type) -> None:
    """The symbolic evaluation under the model says what the interpreter said."""
    raised = sorted({kind for kind, cond in sym.errors if ev(cond)})
    if error is not None:
        assert error in raised, f"{what}: the interpreter stops ({error}); the executor's errors that hold: {raised}"
        return
    assert not raised, f"{what}: the executor raises {raised}, the interpreter gives {value!r}"
    got = normal(concrete(sym.value, ev), t)
    assert got == normal(value, t), f"{what}: symbolic {got!r}, interpreter {normal(value, t)!r}"


def loaded(path: Path) -> ir.Ruleset:
    rules = load_path(path).rules
    assert rules is not None, path
    return rules


@functools.cache
def ruleset(path: Path) -> ir.Ruleset:
    return loaded(path)


# ---- random games -----------------------------------------------------------------------------


@dataclass(repr=False)
class Explored:
    """One ruleset's symbolic trace for one player count, with every end-of-game value worked out
    once (terms are only evaluated afterwards, never built, so examples cannot disturb each other)."""

    program: ir.Program
    n: int
    trace: Trace
    zones: dict[tuple[str, Any], SymSet] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    defs: list[tuple[ir.Definition, tuple[Any, ...], Evaluated]] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Explored({self.program.rules.name}, {self.n} players)"


@functools.cache
def explored(path: Path, n: int) -> Explored:
    tm.reset()
    program = ir.bind(ruleset(path))
    ex = SymExec(program, n)
    out = Explored(program, n, ex.run())
    for (zone, idx), _ in ex.zone_ids.items():
        out.zones[(zone, idx)] = ex.zone_members(zone, idx)
    out.vars = {name: (dict(v) if isinstance(v, dict) else v) for name, v in ex.vars.items()}
    for d, args in calls(program, n):
        out.defs.append((d, args, sym_eval(ex, call_expr(d, args))))
    return out


def model_of(x: Explored, history: list[Any]) -> tuple[Evaluate, int]:
    """The assignment of the trace's decision variables that makes the moves of ``history`` (with
    its evaluator), and how many moves it used: the decisions the game reaches are the active ones,
    in order."""
    model: dict[str, bool | int] = {}
    ev = Evaluate(model)
    used = 0
    joint: dict[int, Any] = {}
    for d in x.trace.decisions:
        if not ev(d.active):
            continue
        assert used < len(history) or (d.kind == "simultaneous" and d.node in joint), f"the trace asks for more moves than the game made ({d.key})"
        if d.kind == "simultaneous":
            if d.node not in joint:
                joint[d.node] = history[used]
                used += 1
            values = [joint[d.node][int(d.player)]]
        elif d.kind == "deal":
            values = list(history[used:used + d.count])
            used += d.count
        else:
            values = [history[used]]
            used += 1
        for v in values:
            assert v in d.sel, f"move {v} is not an option of decision {d.key} ({sorted(d.sel)})"
            model[f"d|{d.key}|{v}"] = True
    return ev, used


def play(data: st.DataObject, program: ir.Program, n: int) -> tuple[State, RuleError | None, set[str]]:
    """A game whose every move hypothesis chooses; the invariants it breaks on the way."""
    state = Game(program, n).new_initial_state()
    broken: set[str] = set()
    try:
        while not state.is_terminal():
            broken.update(state.machine.broken_invariants(at_end=False))
            if state.is_simultaneous_node():
                pending = state.pending
                assert pending is not None
                pass_action = state.game.pass_action
                state.apply_actions([
                    data.draw(st.sampled_from(state.legal_actions(q))) if q in pending.per_player else pass_action
                    for q in range(n)
                ])
            else:
                state.apply_action(data.draw(st.sampled_from(state.legal_actions())))
    except RuleError as err:
        return err.state, err, broken
    broken.update(state.machine.broken_invariants(at_end=True))
    return state, None, broken


def note(text: str) -> None:
    """A hypothesis event, when a hypothesis test is running (check_played also serves plain tests)."""
    if currently_in_test_context():
        event(text)


def check_game(data: st.DataObject, path: Path, n: int, z3: bool = True) -> None:
    x = explored(path, n)
    state, error, broken = play(data, x.program, n)
    check_played(x, state, error, broken, z3)


def check_played(x: Explored, state: State, error: RuleError | None, broken: set[str], z3: bool = True) -> bool:
    """The symbolic trace against one game the interpreter played (to its end, or to a rule
    error): False when the game is longer than the trace's loop bound, so not compared."""
    n = x.n
    t = x.trace
    history = state.history()
    ev, used = model_of(x, history)
    model = ev.model
    if ev(t.truncated):
        note("longer than the loop bound")
        return False  # longer than the loop bound: the trace does not cover this game
    if error is None or error.kind != "exhaustion":
        assert used == len(history), f"the game made {len(history)} moves, the trace used {used}"
    if z3:  # the verifier's own inverse of actions_of agrees (slow on big traces: small games only)
        theirs = model_of_actions(t, [list(a) if isinstance(a, tuple) else a for a in history])
        assert {k for k, v in theirs.items() if v} == {k for k, v in model.items() if v}, "witness.model_of_actions disagrees"
    # the game is one of the games the solver considers
    broken_constraints = [i for i, c in enumerate(t.constraints) if not ev(c)]
    assert not broken_constraints, f"the game played breaks legality constraints {broken_constraints} of the trace"
    raised = sorted({o.kind for o in t.obligations if ev(o.cond)})
    note(f"the game: {error.kind if error is not None else 'ends'}")
    if error is not None:
        assert tm.evaluate(t.stopped, model), f"the interpreter stops ({error}) but the trace goes on"
        assert error.kind in raised, f"the interpreter stops with {error.kind}, the trace's obligations that hold: {raised}"
        assert not tm.evaluate(t.ended, model), "the interpreter stops, the trace ends the game"
        return True
    assert not raised, f"the game ends normally, but the trace's obligations {raised} hold"
    assert tm.evaluate(t.ended, model) and not tm.evaluate(t.stopped, model), "the game ends, the trace does not"
    m = state.machine
    assert m.winners is not None
    assert concrete(t.winners, ev) == m.winners, f"winners: symbolic {sorted(concrete(t.winners, ev))}, interpreter {sorted(m.winners)}"
    for name, scores in t.scores.items():
        got = [concrete(s, ev) for s in scores]
        assert got == [m.vars[name][q] for q in range(n)], f"{name}: symbolic {got}, interpreter {[m.vars[name][q] for q in range(n)]}"
    if z3:
        outcome = [(t.ended, True), (t.stopped, False), *parts(t.winners, model)]
        for scores in t.scores.values():
            outcome.extend(x for s in scores for x in parts(s, model))
        z3_reads_as_evaluate(outcome, model)
    symbolic_broken = {inv.name for inv, cond in t.invariant_violations if ev(cond)}
    assert symbolic_broken == broken, f"invariants broken: symbolic {sorted(symbolic_broken)}, interpreter {sorted(broken)}"
    # the final state, and every definition evaluated in it
    for key, members in x.zones.items():
        assert concrete(members, ev) == frozenset(m.contents[key]), f"zone {key}"
    for name, v in x.vars.items():
        info = x.program.rules.vars[name]
        if isinstance(v, dict):
            for idx, sv in v.items():
                assert normal(concrete(sv, ev), info.type) == normal(m.vars[name][idx], info.type), f"{name}[{idx}]"
        else:
            assert normal(concrete(v, ev), info.type) == normal(m.vars[name], info.type), name
    for d, args, sym in x.defs:
        value, err = concrete_eval(m, call_expr(d, args))
        agree(f"{d.name}{args} at the end", sym, ev, value, err, d.ret)
    return True


GAMES = [(MIXED, 2), (MIXED, 3), *((p, n) for p in SMALL for n in (2, 3) if loaded(p).game.min_players <= n <= loaded(p).game.max_players)]


@settings(QUICK, max_examples=120)
@given(data=st.data(), which=st.sampled_from(GAMES))
def test_random_games_agree(data: st.DataObject, which: tuple[Path, int]) -> None:
    check_game(data, *which)


@settings(QUICK, max_examples=12)
@given(data=st.data())
def test_random_games_agree_on_cinderella(data: st.DataObject) -> None:
    """A real ruleset (its loops are counted, so the trace covers every game)."""
    check_game(data, CINDERELLA, 2, z3=False)


# ---- random states ----------------------------------------------------------------------------


def free_value(name: str, t: Type, rules: ir.Ruleset, n: int, init: Any) -> Any:
    """A symbolic value of type t whose every part is a free variable named after ``name``."""
    if isinstance(t, TBool):
        return tm.bool_var(name)
    if isinstance(t, TEnum):
        return FD({k: tm.bool_var(f"{name}|{k}") for k in range(len(rules.enums[t.name].values))})
    if isinstance(t, TInt):
        return tm.int_var(name)
    if isinstance(t, TSet):
        dom = domain(rules, n, t.elem)
        if dom is None:
            return SymSet({int(v): True for v in sorted(init)})
        return SymSet({int(k): tm.bool_var(f"{name}|{int(k)}") for k in dom})
    return init


def assign(name: str, t: Type, value: Any, model: dict[str, bool | int]) -> None:
    """The model entries that give the free value ``name`` the concrete ``value``."""
    if isinstance(t, (TBool, TInt)):
        model[name] = value
    elif isinstance(t, TEnum):
        model[f"{name}|{value}"] = True
    elif isinstance(t, TSet):
        for k in value:
            model[f"{name}|{int(k)}"] = True


def random_value(data: st.DataObject, t: Type, rules: ir.Ruleset, n: int, init: Any) -> Any:
    if isinstance(t, TBool):
        return data.draw(st.booleans())
    if isinstance(t, TEnum):
        return data.draw(st.integers(0, len(rules.enums[t.name].values) - 1))
    if isinstance(t, TInt):
        lo = t.lo if t.lo is not None else FREE_INT[0]
        hi = t.hi if t.hi is not None else FREE_INT[1]
        return data.draw(st.integers(lo, hi))
    if isinstance(t, TSet):
        dom = domain(rules, n, t.elem)
        if dom is None:
            return init
        return frozenset(data.draw(st.sets(st.sampled_from(dom))))
    return init


def check_state(data: st.DataObject, path: Path, n: int, picks: int) -> None:
    tm.reset()
    program = ir.bind(ruleset(path))
    rules = program.rules
    m = Machine(program, n)
    ex = SymExec(program, n)
    model: dict[str, bool | int] = {}
    # where each component is: any zone instance that holds its kind
    instances = sorted(m.contents, key=lambda key: ex.zone_ids[key])
    for key in instances:
        m.contents[key] = set()
    ex.loc = []
    for comp in rules.components:
        places = [key for key in instances if comp.kind in rules.zones[key[0]].kinds]
        key = data.draw(st.sampled_from(places))
        m.loc[comp.cid] = key
        m.contents[key].add(comp.cid)
        ex.loc.append({ex.zone_ids[k]: tm.bool_var(f"loc|{comp.cid}|{ex.zone_ids[k]}") for k in places})
        model[f"loc|{comp.cid}|{ex.zone_ids[key]}"] = True
    ex.counts = {}  # no zone count is known: sizes are counted from the members
    # every variable free
    for v in rules.vars.values():
        if v.index is None:
            m.vars[v.name] = random_value(data, v.type, rules, n, v.init)
            ex.vars[v.name] = free_value(f"var|{v.name}", v.type, rules, n, v.init)
            assign(f"var|{v.name}", v.type, m.vars[v.name], model)
            continue
        for idx in list(m.vars[v.name]):
            m.vars[v.name][idx] = random_value(data, v.type, rules, n, v.init)
            ex.vars[v.name][idx] = free_value(f"var|{v.name}|{idx}", v.type, rules, n, v.init)
            assign(f"var|{v.name}|{idx}", v.type, m.vars[v.name][idx], model)
    ex.version = -1
    ex.def_cache = {}
    # some definitions (all of them when picks allows), each at arguments hypothesis picks
    defs = [d for d in sorted(program.defs.values(), key=lambda d: d.name) if all(domain(rules, n, t) for _, t in d.formals)]
    if len(defs) > picks:
        defs = data.draw(st.permutations(defs))[:picks]
    exprs: list[tuple[str, ir.Expr, Type]] = []
    for d in defs:
        args = tuple(data.draw(st.sampled_from(domain(rules, n, t) or [])) for _, t in d.formals)
        exprs.append((f"{d.name}{args}", call_expr(d, args), d.ret))
    exprs.extend((f"invariant {inv.name}", inv.expr, TBool()) for inv in rules.invariants)
    checked: list[tuple[tm.Term, bool | int]] = []
    ev = Evaluate(model)
    for what, e, t in exprs:
        try:
            sym = sym_eval(ex, e)
        except Unsupported:
            event("not supported by the executor")
            continue
        value, err = concrete_eval(m, e)
        agree(what, sym, ev, value, err, t)
        event(f"a definition: {err or 'a value'}")
        for _, cond in sym.errors:
            checked.append((cond, tm.evaluate(cond, model)))
        checked.extend(parts(sym.value, model))
    z3_reads_as_evaluate(checked, model)


def parts(v: Any, model: dict[str, bool | int]) -> list[tuple[tm.Term, bool | int]]:
    """The terms inside a symbolic value, each with its value under the model."""
    if isinstance(v, FD | SymSet):
        terms = list(v.mem.values())
    elif isinstance(v, tm.T):
        terms = [v]
    else:
        terms = []
    return [(x, tm.evaluate(x, model)) for x in terms if isinstance(x, tm.T)]


def z3_reads_as_evaluate(checked: list[tuple[tm.Term, bool | int]], model: dict[str, bool | int]) -> None:
    """With every variable fixed to its model value, z3 gives no term another value.

    The question is put to z3 directly rather than as a new term: building terms out of a cached
    trace's terms after terms.reset() would mix two intern tables, whose term ids collide."""
    __tracebackhide__ = True  # the terms' repr is too long to show
    if not checked:
        return
    ctx = z3.Context()
    tr = Translator(ctx)
    solver = z3.SolverFor("QF_BV", ctx=ctx)
    solver.set("timeout", 20_000)
    differs = z3.Or([z3.Not(tr.value_is(x, value)) for x, value in checked])
    for name, v in sorted(tr.vars.items()):
        solver.add(v == (z3.BoolVal(bool(model.get(name, False)), ctx) if z3.is_bool(v) else int(model.get(name, 0))))
    solver.add(differs)
    solver.add(*tr.definitions([x for x, _ in checked], set()))
    result = solver.check()
    assert result == z3.unsat, f"z3 gives a term another value than terms.evaluate ({result}): {solver.model() if result == z3.sat else ''}"


STATES = [(MIXED, 2, 99), (MIXED, 3, 99), (PENGUIN, 3, 6), (CINDERELLA, 2, 6)]


@settings(QUICK, max_examples=60)
@given(data=st.data(), which=st.sampled_from(STATES))
def test_random_states_agree(data: st.DataObject, which: tuple[Path, int, int]) -> None:
    check_state(data, *which)


# ---- solver models are games ------------------------------------------------------------------


def solver_models(path: Path, n: int) -> list[str]:
    """The converse of the random games: for every selector variable of the trace, a model of its
    legality constraints that makes it true (where one exists) must describe a game the
    interpreter plays, ending as the model says. The verifier turns such models into witnesses, so
    a model the interpreter does not follow is a false finding. Returns what went wrong."""
    tm.reset()
    program = ir.bind(ruleset(path))
    ex = SymExec(program, n)
    t = ex.run()
    end_zones = {key: ex.zone_members(*key) for key in ex.zone_ids}
    pass_action = num_distinct_actions(program.rules) - 1
    session = Session(t.constraints, 10.0)
    problems: list[str] = []
    for d in t.decisions:
        for value, selector in sorted(d.sel.items()):
            r = session.check(selector)
            if r.status != "sat":
                continue
            assert r.model is not None
            ev = Evaluate(r.model)
            if ev(t.truncated):
                continue
            where = f"a model with {d.key} = {value}"
            actions = actions_of(t, r.model, n, pass_action)
            state = Game(program, n).new_initial_state()
            error: RuleError | None = None
            try:
                for a in actions:
                    if isinstance(a, list):
                        state.apply_actions(a)
                    else:
                        state.apply_action(a)
            except RuleError as err:
                error = err
            except ValueError as err:
                problems.append(f"{where}: the moves {actions} are not a legal game ({err})")
                continue
            raised = {o.kind for o in t.obligations if ev(o.cond)}
            if error is not None:
                if not ev(t.stopped) or error.kind not in raised:
                    problems.append(f"{where}: the interpreter stops ({error.kind}), the model has {sorted(raised)}")
                continue
            if not state.is_terminal() or raised or not ev(t.ended):
                problems.append(f"{where}: the game ends after {actions}, the model has errors {sorted(raised)}")
                continue
            m = state.machine
            if concrete(t.winners, ev) != m.winners:
                problems.append(f"{where}: winners {sorted(concrete(t.winners, ev))} in the model, {sorted(m.winners or [])} in the game")
            for key, members in end_zones.items():
                if concrete(members, ev) != frozenset(m.contents[key]):
                    problems.append(f"{where}: at the end {key} holds {sorted(concrete(members, ev))} in the model, "
                                    f"{sorted(m.contents[key])} in the game {actions}")
    return problems


SOLVED = [
    pytest.param(p, id=f"{p.parent.name}/{p.stem}") for p in [MIXED, *SMALL]
]


@pytest.mark.parametrize("path", SOLVED)
def test_solver_models_are_games(path: Path) -> None:
    rules = ruleset(path)
    for n in range(rules.game.min_players, rules.game.max_players + 1):
        problems = solver_models(path, n)
        assert not problems, f"{n} players:\n" + "\n".join(problems[:5])
