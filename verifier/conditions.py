"""Verification conditions, built from symbolic traces with no solver code (as Catala's
verification/conditions.ml is kept apart from its z3 back end).

A condition is a goal term together with its background: SAT means a witness game exists, UNSAT
that none does within the bound of the traces.
"""

from __future__ import annotations

from collections import defaultdict
from copy import copy as shallow_copy
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.walk import walk_exprs, walk_stmts

from . import terms as tm
from .symvalues import AbstractCheck, Decision, Obligation, ObligationKey, SymSet, Trace, as_int, value_eq
from .terms import Term


@dataclass
class Condition:
    """Is ``goal`` satisfiable together with ``background``? ``shortcuts`` are cheaper
    over-approximations tried first (background, goal): UNSAT there is UNSAT here."""

    goal: Term
    background: list[Term]
    shortcuts: list[tuple[list[Term], Term]] = field(default_factory=list)
    # the goal's disjuncts, asked one at a time of one solver before the goal itself (see
    # Session.check_each): each is far smaller, and what the solver learns serves the next
    parts: list[Term] = field(default_factory=list)


@dataclass
class ObligationGroup:
    """Every place where one rule can fail in the same way (one finding)."""

    kind: str
    span: Span
    subject: str
    message: str
    items: list[Obligation]
    part: str = ""  # see Obligation.part

    @property
    def key(self) -> ObligationKey:
        return self.items[0].key


def obligation_groups(trace: Trace) -> list[ObligationGroup]:
    groups: dict[tuple[str, int, int, str], ObligationGroup] = {}
    for o in trace.obligations:
        key = o.key
        g = groups.get(key)
        if g is None:
            g = groups[key] = ObligationGroup(o.kind, o.span, o.subject, o.message, [], o.part)
        g.items.append(o)
    return [groups[k] for k in sorted(groups)]


def obligation_condition(trace: Trace, group: ObligationGroup) -> Condition:
    goal = tm.or_all(o.cond for o in group.items)
    shortcuts: list[tuple[list[Term], Term]] = []
    by_site: dict[int, list[Obligation]] = defaultdict(list)
    for o in group.items:
        by_site[o.site].append(o)
    # where a statement was also checked over an abstract state, its part of the goal can be
    # proved there; the rest of the goal keeps its own form
    abstract: list[AbstractCheck] = [a for a in trace.abstract if a.site in by_site]
    if abstract:
        key = group.key
        covered = {a.site for a in abstract}
        lemmas = [lemma for a in abstract for lemma in a.lemmas]
        abstract_goal = tm.or_all(
            o.cond for a in abstract for o in a.obligations if o.key == key
        )
        rest = tm.or_all(o.cond for o in group.items if o.site not in covered)
        shortcuts.append((lemmas + trace.constraints if rest is not False else lemmas, tm.or_(abstract_goal, rest)))
    # the abstract states first: small problems, and where they exist the ones that settle it
    shortcuts.append(([], goal))
    return Condition(goal, trace.constraints, shortcuts)


def invariant_conditions(trace: Trace) -> dict[str, Condition]:
    goals: dict[str, list[Term]] = defaultdict(list)
    at_end: dict[str, bool] = {}
    for inv, cond in trace.invariant_violations:
        goals[inv.name].append(cond)
        at_end[inv.name] = inv.at_end
    abstract: dict[str, tuple[list[Term], list[Term]]] = defaultdict(lambda: ([], []))
    for inv, lemmas, violated in trace.invariant_abstract:
        abstract[inv.name][0].extend(lemmas)
        abstract[inv.name][1].append(violated)
    out = {}
    for name, conds in goals.items():
        goal = tm.or_all(conds)
        # the bare goal (no legality at all) settles an invariant of every point, never one of
        # the final state, which only holds of games played by the rules
        shortcuts: list[tuple[list[Term], Term]] = [] if at_end[name] else [([], goal)]
        if name in abstract:
            # every point's abstract state, each with its own atoms: unsat proves every point
            shortcuts.append((abstract[name][0], tm.or_all(abstract[name][1])))
        # a final state's invariant, one conjunct at a time
        parts = conds if at_end[name] and len(conds) > 1 else []
        out[name] = Condition(goal, trace.constraints, shortcuts, parts)
    return out


def outcome_differs(a: Trace, b: Trace) -> Term:
    """The two games end differently: different winners, scores, or one stops where the other
    does not."""
    parts: list[Term] = [tm.ne(a.stopped, b.stopped), tm.ne(a.ended, b.ended)]
    both = tm.and_(a.ended, b.ended, tm.not_(a.stopped), tm.not_(b.stopped))
    parts.append(tm.and_(both, tm.not_(value_eq(a.winners, b.winners))))
    parts.append(tm.and_(both, tm.ne(a.drawn, b.drawn)))
    for name, scores in a.scores.items():
        for x, y in zip(scores, b.scores.get(name, [])):
            parts.append(tm.and_(both, tm.not_(value_eq(x, y))))
    # a game still going at the loop bound has no result yet: it shows nothing either way
    return tm.and_(tm.not_(a.truncated), tm.not_(b.truncated), tm.or_all(parts))


def parting(x: Decision | None, y: Decision | None) -> Term:
    """The readings' games part at this decision: one offers a choice where the other offers none,
    both reach it and offer different options, or both offer a choice but to different players.
    A decision with a single option is no choice: a forced move in one reading only, or different
    forced moves, part nothing here (what they change shows in the results)."""
    if x is None or y is None:
        d = x or y
        assert d is not None
        return tm.and_(d.active, _choice(d.options))
    return tm.or_all([
        tm.and_(x.active, y.active, tm.not_(same_options(x.options, y.options)), tm.or_(_choice(x.options), _choice(y.options))),
        tm.and_(x.active, tm.not_(y.active), _choice(x.options)),
        tm.and_(y.active, tm.not_(x.active), _choice(y.options)),
        # the same options, but another player decides (as the replay sees it: witness._same_node)
        tm.and_(x.active, y.active, _choice(x.options), _choice(y.options), tm.not_(value_eq(x.player, y.player))),
    ])


def _choice(options: SymSet) -> Term:
    """At least two options: a real choice."""
    return tm.ge(tm.count_true(list(options.mem.values())), 2)


def _is_move(d: Decision | None) -> bool:
    return d is not None and d.kind in ("player", "simultaneous")


def moves_differ(a: Trace, b: Trace) -> Term:
    """Somewhere the same history offers a player different legal moves: a choice the other
    reading does not have, or the same decision with other options (see parting: a decision
    with one option is no choice)."""
    da = {d.key: d for d in a.decisions}
    db = {d.key: d for d in b.decisions}
    parts: list[Term] = []
    for key in sorted(set(da) | set(db)):
        x, y = da.get(key), db.get(key)
        if _is_move(x) or _is_move(y):
            parts.append(parting(x, y))
    return tm.or_all(parts)


def moves_condition(a: Trace, b: Trace) -> tuple[list[Term], Term]:
    """``moves_differ`` with the background it needs: the game of ``a`` legal throughout, that of
    ``b`` only up to the first decision where the readings part (after it, ``b``'s players may
    need moves ``a`` does not allow, and the witness continues ``b``'s game on its own)."""
    da = {d.key: d for d in a.decisions}
    # b's lemmas hold of legal games only: after the parting b's game need not be one
    background = list(a.constraints) + b.constraints[: b.data_constraints]
    parted: Term = False  # some decision up to this one differs
    for y in sorted(b.decisions, key=lambda d: d.order):
        # at the parting decision itself b's choice does not matter either
        parted = tm.or_(parted, parting(da.get(y.key), y))
        background.append(tm.implies(tm.not_(parted), y.rule))
    return background, moves_differ(a, b)


def same_options(x: SymSet, y: SymSet) -> Term:
    keys = sorted(set(x.mem) | set(y.mem))
    return tm.and_all(tm.eq(x.mem.get(k, False), y.mem.get(k, False)) for k in keys)


def lasso(trace: Trace, sid: int, counters: dict[str, int | None] | None = None) -> Term:
    """An open loop returns to a state it was in at an earlier iteration with the game going on:
    then the same choices can repeat that round for ever. ``counters`` (see :func:`counters`) need
    not repeat: it is enough that each has passed every number it is compared with."""
    n = len(trace.loop_heads.get(sid, []))
    return tm.or_all(lasso_at(trace, sid, i, j, counters) for j in range(1, n) for i in range(j))


def lasso_at(trace: Trace, sid: int, i: int, j: int, counters: dict[str, int | None] | None = None) -> Term:
    """The loop is going on at its i-th and j-th heads, in the same state (counters aside)."""
    counters = counters or {}
    heads = trace.loop_heads[sid]
    same = [heads[j]["live"], heads[i]["live"]]
    for la, lb in zip(heads[i]["loc"], heads[j]["loc"]):
        for z in sorted(set(la) | set(lb)):
            same.append(tm.eq(la.get(z, False), lb.get(z, False)))
    for name, va in heads[i]["vars"].items():
        vb = heads[j]["vars"][name]
        if name in counters:
            limit = counters[name]
            if limit is not None:
                same.append(tm.gt(as_int(va), limit))
        elif isinstance(va, dict):
            same.extend(value_eq(va[k], vb[k]) for k in va)
        else:
            same.append(value_eq(va, vb))
    return tm.and_all(same)


def repeat_pass(trace: Trace, sid: int, i: int) -> list[Term]:
    """Pass i of a loop makes every decision (chance and choice) as pass i-1 did: a hint that
    narrows the search for a lasso to rounds played twice alike. Not a proof obligation: a lasso
    found with it is a lasso; none found with it proves nothing."""
    heads = trace.loop_heads[sid]
    now, before = heads[i]["prefix"], heads[i - 1]["prefix"]
    earlier = {d.key: d for d in trace.decisions if d.key.startswith(before)}
    out: list[Term] = []
    for d in trace.decisions:
        if not d.key.startswith(now):
            continue
        e = earlier.get(before + d.key[len(now):])
        if e is None:
            continue
        same = tm.and_all(tm.eq(b, e.sel.get(k, False)) for k, b in sorted(d.sel.items()))
        out.append(tm.implies(tm.and_(d.active, e.active), same))
    return out


_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}


def counters(program: ir.Program, params: dict[str, object] | None = None) -> dict[str, int | None]:
    """State variables that only count: every assignment adds a constant of at least 0 to the
    variable, and every other use compares it with a constant or shows it in a message. Each maps
    to the largest constant it is compared with (None when never compared). Once a counter is past
    that constant, its value no longer changes what happens, so a loop that comes back to the same
    state apart from its counters can repeat for ever. Cases of a definition that the parameters
    rule out (``case short: length == short => …`` in a long game) are not looked at."""
    roots: list[object] = [program.rules.flow]
    for p in program.procs.values():
        if p.body:
            roots.append(p.body)
    for d in program.defs.values():
        roots.extend([d.body, d.otherwise])
        for c in d.cases or []:
            if _static(c.guard, params or {}) is not False:
                roots.extend([c.guard, c.value])
    uses: dict[str, int] = defaultdict(int)
    fine: dict[str, int] = defaultdict(int)
    limits: dict[str, int | None] = {}
    bad: set[str] = set()

    def plain(e: object) -> str | None:
        return e.name if isinstance(e, ir.VarRef) and e.index is None else None

    def const_int(e: object) -> int | None:
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return e.value
        return None

    for root in roots:
        for e in walk_exprs(root):
            if isinstance(e, ir.VarRef):
                uses[e.name] += 1
            elif isinstance(e, ir.BinOp) and e.op in _COMPARISONS:
                for var, k in ((plain(e.left), const_int(e.right)), (plain(e.right), const_int(e.left))):
                    if var is not None and k is not None:
                        fine[var] += 1
                        old = limits.get(var)
                        limits[var] = k if old is None else max(old, k)
        if not isinstance(root, list):
            continue
        for s in walk_stmts(root):
            if isinstance(s, ir.Say):
                for part in s.parts:
                    var = plain(part)
                    if var is not None:
                        fine[var] += 1
            if isinstance(s, ir.Assign) and not s.local:
                rhs = s.value
                step = None
                if isinstance(rhs, ir.BinOp) and rhs.op == "+" and s.index is None:
                    if plain(rhs.left) == s.name:
                        step = const_int(rhs.right)
                    elif plain(rhs.right) == s.name:
                        step = const_int(rhs.left)
                if step is None or step < 0:
                    bad.add(s.name)
                else:
                    fine[s.name] += 1
    out: dict[str, int | None] = {}
    for name, info in program.rules.vars.items():
        if info.index is None and name not in bad and uses[name] == fine[name] and uses[name] > 0:
            out[name] = limits.get(name)
    return out


def _static(e: ir.Expr, params: dict[str, object]) -> object:
    """The value of an expression made of parameters and constants only (None otherwise)."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.ParamRef):
        return params.get(e.name)
    if isinstance(e, ir.Unary) and e.op == "not":
        v = _static(e.operand, params)
        return None if v is None else not v
    if isinstance(e, ir.BinOp) and e.op in ("==", "!=", "and", "or"):
        a, b = _static(e.left, params), _static(e.right, params)
        if e.op == "and" and (a is False or b is False):
            return False
        if e.op == "or" and (a is True or b is True):
            return True
        if a is None or b is None:
            return None
        return {"==": a == b, "!=": a != b, "and": bool(a) and bool(b), "or": bool(a) or bool(b)}[e.op]
    return None


def shrinking_zone(loop: ir.RepeatUntil | ir.While, procs: dict[str, ir.Procedure]) -> str | None:
    """A zone whose size proves the loop ends whatever the number of passes: the loop goes on only
    while the zone holds something (``while size(Z) > 0``, ``repeat until size(Z) == 0``), every
    pass draws at least one card from it, and nothing in the loop ever puts a card into it. The
    zone's size is then a measure that falls at every pass and cannot go below 0."""
    zone = _emptiness_test(loop.cond, negated=isinstance(loop, ir.RepeatUntil))
    if zone is None:
        return None
    body = _inline(loop.body, procs, set())
    if body is None:
        return None
    for s in walk_stmts(body):
        if isinstance(s, ir.Move) and s.zone == zone:
            return None
        if isinstance(s, ir.Draw) and s.dst == zone:
            return None
    # a draw from the zone on every pass: at the top level of the body, not under a branch
    for s in body:
        if (isinstance(s, ir.Draw) and s.src == zone and s.src_index is None
                and isinstance(s.count, ir.Const) and isinstance(s.count.value, int) and s.count.value >= 1):
            return zone
    return None


def _emptiness_test(cond: ir.Expr, negated: bool) -> str | None:
    """Z when ``cond`` says "Z is not empty" (or, negated, "Z is empty")."""
    if not isinstance(cond, ir.BinOp):
        return None
    left, right = cond.left, cond.right
    if not (isinstance(left, ir.Builtin) and left.op == "size" and len(left.args) == 1
            and isinstance(left.args[0], ir.ZoneRef) and left.args[0].index is None
            and isinstance(right, ir.Const) and isinstance(right.value, int) and not isinstance(right.value, bool)):
        return None
    k = right.value
    nonempty = (cond.op == ">" and k == 0) or (cond.op == ">=" and k == 1) or (cond.op == "!=" and k == 0)
    empty = (cond.op == "==" and k == 0) or (cond.op == "<" and k == 1) or (cond.op == "<=" and k == 0)
    return left.args[0].zone if (empty if negated else nonempty) else None


def _inline(stmts: list[ir.Stmt], procs: dict[str, ir.Procedure], seen: set[str]) -> list[ir.Stmt] | None:
    """The statements with every procedure call replaced by its body (None for recursion or a
    procedure without one)."""
    out: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.CallProc):
            p = procs.get(s.name)
            if p is None or p.body is None or s.name in seen:
                return None
            inner = _inline(p.body, procs, seen | {s.name})
            if inner is None:
                return None
            out.extend(inner)
            continue
        copy = s
        for f in ("then", "else_", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                inner = _inline(sub, procs, seen)
                if inner is None:
                    return None
                if copy is s:
                    copy = shallow_copy(s)
                setattr(copy, f, inner)
        out.append(copy)
    return out


def ranked_counter(loop: ir.RepeatUntil | ir.While, program: ir.Program, params: dict[str, object]) -> tuple[str, int, int, int] | None:
    """A counter that ranks the loop: (name, step, limit, most passes). Every pass adds ``step``
    (at least 1) to a variable that only ever counts up (:func:`counters`), at the top level of
    the pass, and the loop goes on only while the variable is below ``limit``. As the variable
    starts at its initial value and never falls, the loop makes at most
    ceil((limit - initial) / step) passes, however the game goes."""
    counting = counters(program, params)
    body = _inline(loop.body, program.procs, set())
    if body is None:
        return None
    steps: dict[str, int] = {}
    for s in body:
        if isinstance(s, ir.Assign) and not s.local and s.index is None and s.name in counting:
            rhs = s.value
            if isinstance(rhs, ir.BinOp) and rhs.op == "+":
                for own, other in ((rhs.left, rhs.right), (rhs.right, rhs.left)):
                    k = _static(other, params)
                    if (isinstance(own, ir.VarRef) and own.name == s.name and own.index is None
                            and isinstance(k, int) and not isinstance(k, bool) and k >= 1):
                        steps[s.name] = steps.get(s.name, 0) + k
    best: tuple[str, int, int, int] | None = None
    for name, step in sorted(steps.items()):
        limit = _exit_limit(loop.cond, name, params, isinstance(loop, ir.While), program.defs)
        init = program.rules.vars[name].init
        if limit is None or not isinstance(init, int):
            continue
        passes = max(0, -(-(limit - init) // step))
        if best is None or passes < best[3]:
            best = (name, step, limit, passes)
    return best


def _exit_limit(cond: ir.Expr, var: str, params: dict[str, object], going_on: bool,
                defs: dict[str, ir.Definition], depth: int = 0) -> int | None:
    """The least K such that ``var >= K`` settles ``cond``: makes it false when ``going_on`` (the
    condition of a while), true otherwise (the condition of a repeat until); None if none is
    seen in its form. A definition without arguments or cases is read through (so a reading that
    redefines it changes the limit)."""
    if isinstance(cond, ir.CallDef) and not cond.args and depth < 32:
        d = defs.get(cond.name)
        if d is None or d.body is None or d.cases:
            return None
        return _exit_limit(d.body, var, params, going_on, defs, depth + 1)
    if isinstance(cond, ir.BinOp) and cond.op in ("and", "or"):
        # a while goes on while both hold: either one failing stops it; a repeat until stops
        # when either holds
        if cond.op == ("and" if going_on else "or"):
            found = [k for k in (_exit_limit(cond.left, var, params, going_on, defs, depth),
                                 _exit_limit(cond.right, var, params, going_on, defs, depth)) if k is not None]
            return min(found) if found else None
        return None
    if not (isinstance(cond, ir.BinOp) and cond.op in ("<", "<=", ">", ">=")):
        return None
    op, left, right = cond.op, cond.left, cond.right
    if isinstance(right, ir.VarRef) and right.name == var and right.index is None:
        op, left, right = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op], right, left
    if not (isinstance(left, ir.VarRef) and left.name == var and left.index is None):
        return None
    k = _static(right, params)
    if not isinstance(k, int) or isinstance(k, bool):
        return None
    # var OP k: which K makes "var >= K" settle it
    if going_on:
        return {"<": k, "<=": k + 1}.get(op)
    return {">=": k, ">": k + 1}.get(op)
