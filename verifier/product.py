"""Both readings of a procedure, side by side from the same state: the product of two programs
that share everything but some definitions, for a proof local to the procedures that use them.

Where two versions of a definition disagree (who takes part in a choice, say), the procedure
that uses them may still leave the game exactly as the other does: the extra chooser has one
option, the vote comes out the same. At each call, the procedure runs first with the other
versions (``shadow``) and selectors of its own, then as the program has it; a choice both runs
offer with the same options is taken alike in both. A "diverge" obligation records where the
two runs part: a real choice one offers and the other does not or offers otherwise (as in the
whole-game comparison, a decision with one option is no choice), or a different state after
the call. Where none can arise, the rest of the game is the same program from the same state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulecheck.dsl import ir

from . import terms as tm
from .conditions import parting as parting_at
from .conditions import same_options
from .symvalues import Decision, Value, proc_env, value_eq

if TYPE_CHECKING:
    from .symbolic import SymExec

Term = tm.Term

#: the other versions' selectors: "d|key|value" is the program's own (see SymExec.new_decision)
OTHER_PREFIX = "d~other"

# what a run of a procedure changes, copied before the other versions' run and put back after it
_PLAIN = ("loc_ver", "win_ver", "_winners", "version", "ended", "drawn", "stopped", "truncated", "struct", "site", "errs",
          "obligations", "reach", "mode", "nodes", "abstract_states", "sel_prefix")
_LISTS = ("decisions", "abstract", "invariant_violations", "invariant_abstract")  # appended to: cut back


def _save(sx: SymExec) -> dict[str, Any]:
    saved = {name: getattr(sx, name) for name in _PLAIN}
    saved.update({name: len(getattr(sx, name)) for name in _LISTS})
    state = _final(sx)
    saved["loc"], saved["vars"] = state["loc"], state["vars"]
    saved["counts"] = dict(sx.counts)
    for name in ("var_ver", "loop_heads", "invariant_version"):
        saved[name] = dict(getattr(sx, name))
    return saved


def _restore(sx: SymExec, saved: dict[str, Any]) -> None:
    for name in _LISTS:
        del getattr(sx, name)[saved[name]:]
    for name, value in saved.items():
        if name not in _LISTS:
            setattr(sx, name, value)


def both_readings(sx: SymExec, proc: ir.Procedure, args: list[Value], struct: Term, entry: Term) -> None:
    """A call of ``proc`` under both versions (see the module's docstring); ``entry``: where the
    call is reached with the game going on. The trace keeps this program's run, the other run's
    rules for its own selectors, and the obligations that compare the two."""
    assert proc.body is not None
    body = proc.body

    def run(mode: int, prefix: str) -> None:
        sx.mode, sx.sel_prefix = mode, prefix
        sx.block(body, proc_env(proc, args), struct)

    saved = _save(sx)
    start = len(sx.decisions)
    sx.obligations, sx.reach = [], {}  # the other run's failures and branches are no findings
    try:
        run(2, OTHER_PREFIX)
        theirs = _final(sx)
        their_decisions = sx.decisions[start:]
    finally:
        _restore(sx, saved)
    try:
        run(1, saved["sel_prefix"])  # no comparing nested inside: the whole call is compared
    finally:
        # the obligations below are the call's own
        sx.mode, sx.sel_prefix, sx.site = saved["mode"], saved["sel_prefix"], saved["site"]
    ours = {d.key: d for d in sx.decisions[start:]}
    other = {d.key: d for d in their_decisions}
    parting: list[Term] = []
    for key in sorted(set(ours) | set(other)):
        x, y = ours.get(key), other.get(key)
        if x is not None and y is not None:
            sx.constraints.append(_alike(x, y))
        parting.append(parting_at(x, y))
    mine = _final(sx)
    after = tm.or_(tm.not_(tm.eq(mine["stopped"], theirs["stopped"])), tm.not_(tm.eq(mine["truncated"], theirs["truncated"])))
    after = tm.or_(after, tm.and_(tm.not_(mine["stopped"]), _state_differs(mine, theirs)))
    # two questions per call, each far smaller than both together
    sx.diverge(proc.span, tm.and_(entry, tm.or_all(parting)))
    sx.diverge(proc.span, tm.and_(entry, after))


def _alike(x: Decision, y: Decision) -> Term:
    """Where both runs reach a decision with the same options, both take the same one."""
    taken = tm.and_all(tm.eq(x.sel.get(k, False), y.sel.get(k, False)) for k in sorted(set(x.sel) | set(y.sel)))
    return tm.implies(tm.and_(x.active, y.active, same_options(x.options, y.options)), taken)


def _final(sx: SymExec) -> dict[str, Any]:
    """What a run leaves that the rest of the game can see."""
    state = sx.snapshot(True)  # the locations and variables, copied as at a loop head
    state.update(winners=sx.winners, ended=sx.ended, drawn=sx.drawn, stopped=sx.stopped, truncated=sx.truncated)
    return state


def _state_differs(a: dict[str, Any], b: dict[str, Any]) -> Term:
    parts: list[Term] = []
    for la, lb in zip(a["loc"], b["loc"]):
        parts.extend(tm.not_(tm.eq(la.get(z, False), lb.get(z, False))) for z in sorted(set(la) | set(lb)))
    for name, va in a["vars"].items():
        vb = b["vars"][name]
        if isinstance(va, dict):
            parts.extend(_differ(va[k], vb[k]) for k in sorted(va))
        else:
            parts.append(_differ(va, vb))
    parts.append(_differ(a["winners"], b["winners"]))
    parts.extend(tm.not_(tm.eq(a[k], b[k])) for k in ("ended", "drawn"))
    return tm.or_all(parts)


def _differ(u: Value, v: Value) -> Term:
    return tm.not_(value_eq(u, v))
