"""Verification conditions, built from symbolic traces with no solver code (as Catala's
verification/conditions.ml is kept apart from its z3 back end).

A condition is a goal term together with its background: SAT means a witness game exists, UNSAT
that none does within the bound of the traces.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rulecheck.dsl.source import Span

from . import terms as tm
from .symbolic import AbstractCheck, Decision, Obligation, SymSet, Trace, value_eq
from .terms import Term


@dataclass
class Condition:
    """Is ``goal`` satisfiable together with ``background``? ``shortcuts`` are cheaper
    over-approximations tried first (background, goal): UNSAT there is UNSAT here."""

    goal: Term
    background: list[Term]
    shortcuts: list[tuple[list[Term], Term]] = field(default_factory=list)


@dataclass
class ObligationGroup:
    """Every place where one rule can fail in the same way (one finding)."""

    kind: str
    span: Span
    subject: str
    message: str
    items: list[Obligation]


def obligation_groups(trace: Trace) -> list[ObligationGroup]:
    groups: dict[tuple[str, int, int, str], ObligationGroup] = {}
    for o in trace.obligations:
        key = (o.kind, o.span.line, o.span.col, o.subject)
        g = groups.get(key)
        if g is None:
            g = groups[key] = ObligationGroup(o.kind, o.span, o.subject, o.message, [])
        g.items.append(o)
    return [groups[k] for k in sorted(groups)]


def obligation_condition(trace: Trace, group: ObligationGroup) -> Condition:
    goal = tm.or_all(o.cond for o in group.items)
    shortcuts: list[tuple[list[Term], Term]] = [([], goal)]
    by_site: dict[int, list[Obligation]] = defaultdict(list)
    for o in group.items:
        by_site[o.site].append(o)
    # where a statement was also checked over an abstract state, its part of the goal can be
    # proved there; the rest of the goal keeps its own form
    abstract: list[AbstractCheck] = [a for a in trace.abstract if a.site in by_site]
    if abstract:
        key = (group.kind, group.span.line, group.span.col, group.subject)
        covered = {a.site for a in abstract}
        lemmas = [lemma for a in abstract for lemma in a.lemmas]
        abstract_goal = tm.or_all(
            o.cond for a in abstract for o in a.obligations if (o.kind, o.span.line, o.span.col, o.subject) == key
        )
        rest = tm.or_all(o.cond for o in group.items if o.site not in covered)
        shortcuts.append((lemmas + trace.constraints if rest is not False else lemmas, tm.or_(abstract_goal, rest)))
    return Condition(goal, trace.constraints, shortcuts)


def invariant_conditions(trace: Trace) -> dict[str, Condition]:
    goals: dict[str, list[Term]] = defaultdict(list)
    for inv, cond in trace.invariant_violations:
        goals[inv.name].append(cond)
    out = {}
    for name, conds in goals.items():
        goal = tm.or_all(conds)
        out[name] = Condition(goal, trace.constraints, [([], goal)])
    return out


def outcome_differs(a: Trace, b: Trace) -> Term:
    """The two games end differently: different winners, scores, or one stops where the other
    does not."""
    parts: list[Term] = [tm.ne(a.stopped, b.stopped), tm.ne(a.ended, b.ended)]
    both = tm.and_(a.ended, b.ended, tm.not_(a.stopped), tm.not_(b.stopped))
    parts.append(tm.and_(both, tm.not_(value_eq(a.winners, b.winners))))
    for name, scores in a.scores.items():
        for x, y in zip(scores, b.scores.get(name, [])):
            parts.append(tm.and_(both, tm.not_(value_eq(x, y))))
    return tm.or_all(parts)


def _real_choice(d: Decision) -> Term:
    """A decision that offers a choice (two options or more), not a forced move."""
    return tm.and_(d.active, tm.pb_ge(d.options.mem.values(), 2))


def moves_differ(a: Trace, b: Trace) -> Term:
    """Somewhere the same history offers different legal moves: a decision the other reading
    does not have, or the same decision with other options."""
    da = {d.key: d for d in a.decisions}
    db = {d.key: d for d in b.decisions}
    parts: list[Term] = []
    for key in sorted(set(da) | set(db)):
        x, y = da.get(key), db.get(key)
        if x is not None and y is not None:
            same = _same_options(x.options, y.options)
            parts.append(tm.and_(x.active, y.active, tm.not_(same)))
            parts.append(tm.and_(_real_choice(x), tm.not_(y.active)))
            parts.append(tm.and_(_real_choice(y), tm.not_(x.active)))
        elif x is not None:
            parts.append(_real_choice(x))
        elif y is not None:
            parts.append(_real_choice(y))
    return tm.or_all(parts)


def _same_options(x: SymSet, y: SymSet) -> Term:
    keys = sorted(set(x.mem) | set(y.mem))
    return tm.and_all(tm.eq(x.mem.get(k, False), y.mem.get(k, False)) for k in keys)


def lasso(trace: Trace, sid: int) -> Term:
    """An open loop returns to a state it was in at an earlier iteration with the game going on:
    then the same choices can repeat that round for ever."""
    heads = trace.loop_heads.get(sid, [])
    parts: list[Term] = []
    for j in range(1, len(heads)):
        for i in range(j):
            same = [heads[j]["live"], heads[i]["live"]]
            for la, lb in zip(heads[i]["loc"], heads[j]["loc"]):
                for z in sorted(set(la) | set(lb)):
                    same.append(tm.eq(la.get(z, False), lb.get(z, False)))
            for name, va in heads[i]["vars"].items():
                vb = heads[j]["vars"][name]
                if isinstance(va, dict):
                    same.extend(value_eq(va[k], vb[k]) for k in va)
                else:
                    same.append(value_eq(va, vb))
            parts.append(tm.and_all(same))
    return tm.or_all(parts)
