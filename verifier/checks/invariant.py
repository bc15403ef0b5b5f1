"""invariant: does each declared invariant hold in every reachable (or final) state?
"""

from __future__ import annotations

from typing import Any

from rulecheck.dsl import ir
from rulecheck.reports import wording

from .. import terms as tm
from ..conditions import (
    invariant_conditions,
)
from ..context import SHORTCUT_TIMEOUT, Context, _quotes, drained_loops
from ..symbolic import SymExec
from ..symvalues import Trace, Unsupported
from ..z3backend import Result


class InvariantCheck(Context):
    """invariant: does each declared invariant hold in every reachable (or final) state?"""

    def holds_in_every_state(self, inv: ir.Invariant) -> bool:
        """An invariant that holds over every state at all (for one of the final state: at each
        end of the flow, with the winners it gives there): true however long the game, with no
        loop bound."""
        for n in self.players:
            try:
                mine = SymExec(self.program(self.base_readings), n, params=self.o.params, watch_invariants=False).whole_state_checks(inv)
            except Unsupported:
                return False
            if mine is None:
                return False
            lemmas = [x for lm, _ in mine for x in lm]
            if self.session(lemmas, min(self.o.timeout, SHORTCUT_TIMEOUT)).check(tm.or_all(bad for _, bad in mine)).status != "unsat":
                return False
        return True

    def proven_by_induction(self, inv: ir.Invariant, n: int) -> bool:
        """The invariant holds in every game of n players however long (one of the final state:
        in every game that ends), by induction over the open loops."""
        found = self.induction(n)
        return found is not None and found.proves(inv.name)

    def invariant_on_whole_passes(self, inv: ir.Invariant, n: int) -> tuple[Result, Trace]:
        """An invariant of the final state, where no game of the cut trace ends, asked again of
        the trace whose zone-draining loops are unrolled whole (a round's every trick): there
        games end within the bound. (An invariant the cut trace leaves unknown is not: the larger
        trace settles it later still.) The whole goal only: the abstract shortcuts were tried
        already. A proof counts only if some game of that trace is shown to end."""
        t = self.trace_bounded(n, self.o.loop_bound, invariants=True)
        cond = invariant_conditions(t).get(inv.name)
        r = self.session(cond.background).check(cond.goal) if cond is not None else Result("unsat")
        if r.status == "unsat" and inv.at_end and not self.random_play_shows(t, tm.and_(t.ended, tm.not_(t.truncated))):
            return Result("unknown"), t
        return r, t

    def invariant_result(self, inv: ir.Invariant, n: int, drained: bool, any_table: bool = False) -> tuple[Result, Trace, bool]:
        """Can a game of n players break the invariant (``any_table``: with any values of the
        assumed and unspecified data)? Also whether it was decided on the trace whose drained
        loops are whole (see invariant_on_whole_passes)."""
        if not any_table:
            t = self.base(n)
            if self.proven_invariants.get((inv.name, n, True)):
                return Result("unsat"), t, False  # proven for every table, so for this one
        else:
            t = self.free_base(n)
        cond = invariant_conditions(t).get(inv.name)
        if cond is None:
            return Result("unsat"), t, False
        r = self.solved.get((inv.name, n, any_table)) or self.solve(cond)
        if not any_table and drained and inv.at_end and r.status == "unsat" and not self.ends_within(n):
            r2, t2 = self.invariant_on_whole_passes(inv, n)
            if r2.status != "unknown":
                return r2, t2, True
        return r, t, False

    def invariant_proven(self, name: str, n: int, any_table: bool = False) -> bool:
        """The invariant holds in every game of n players, as check_invariants would report it
        (for one of the final state: some game ends within the bound); ``any_table``: with every
        value of the assumed and unspecified data."""
        key = (name, n, any_table)
        if key not in self.proven_invariants:
            inv = next(i for i in self.rules.invariants if i.name == name)
            r, _, on_whole = self.invariant_result(inv, n, bool(drained_loops(self.program(self.base_readings))), any_table)
            self.proven_invariants[key] = r.status == "unsat" and (not inv.at_end or on_whole or self.ends_within(n))
        return self.proven_invariants[key]

    def prove_invariants(self, n: int, any_table: bool) -> None:
        """invariant_proven for every invariant, their questions asked together (see solve_all:
        the invariants of the final state share the abstract states of the game's ends)."""
        t = self.free_base(n) if any_table else self.base(n)
        conds = invariant_conditions(t)
        names = [inv.name for inv in self.rules.invariants if inv.name in conds]
        for name, r in zip(names, self.solve_all([conds[name] for name in names])):
            self.solved[(name, n, any_table)] = r
        for inv in self.rules.invariants:
            self.invariant_proven(inv.name, n, any_table)

    def check_invariants(self) -> None:
        drained = bool(drained_loops(self.program(self.base_readings)))
        scope = self.readings_scope()
        for inv in self.rules.invariants:
            proven: list[int] = []
            unknown: list[int] = []
            found = None
            facts: dict[str, Any] = {"desc": inv.desc or inv.name, "at_end": inv.at_end}
            quotes = _quotes(inv.source)
            if self.holds_in_every_state(inv):
                every = wording.players_text(self.players)
                self.found("invariant", "holds-any-length", inv.name, inv.span, quotes, bound=self.bound(f"every game of {every}, any length"),
                           players=every, scope=scope, **facts)
                continue
            # proven by induction over the open loops: whatever their number of passes
            inductive = [n for n in self.players if self.proven_by_induction(inv, n)]
            if inductive == self.players:
                every = wording.players_text(self.players)
                self.found("invariant", "holds-any-length", inv.name, inv.span, quotes, bound=self.bound(f"every game of {every}, any length"),
                           players=every, scope=scope, how="induction", **facts)
                continue
            whole: set[int] = set()  # decided on the trace whose drained loops are whole, where games end
            for n in self.players:
                if n in inductive:
                    continue
                r, t, on_whole = self.invariant_result(inv, n, drained)
                if on_whole:
                    whole.add(n)
                if r.status == "sat":
                    assert r.model is not None
                    # a state that breaks an 'always' invariant is within the model's game: shown
                    # as far as that goes; a final state needs the game's end
                    found = (n, self.play_of(t, r.model, n, "the game", to_the_end=inv.at_end))
                    break
                (proven if r.status == "unsat" else unknown).append(n)
            # a final state no game reaches within the bound proves nothing about final states
            endless = [n for n in proven if inv.at_end and n not in whole and not self.ends_within(n)]
            held = [n for n in proven if n not in endless]  # proven where games end within the bound
            line = self.proven_line(held, inductive)
            if found is not None:
                n, play = found
                self.found("invariant", "broken", inv.name, inv.span, quotes, witness=self.witness([play], n, f"'{inv.name}' does not hold"),
                           players=n, **facts)
            elif endless:
                self.found("invariant", "endless", inv.name, inv.span, quotes, bound=line, endless=self.span_line(endless),
                           unknown=self.span_line(unknown) if unknown else None, proven=line, scope=scope if line else None, **facts)
            elif unknown:
                self.found("invariant", "timeout", inv.name, inv.span, quotes, bound=line, unknown=self.span_line(unknown), proven=line,
                           scope=scope if line else None, **facts)
            else:
                assert line is not None
                self.found("invariant", "holds", inv.name, inv.span, quotes, bound=self.bound(f"every game of {line}"),
                           proven=line, scope=scope, **facts)
