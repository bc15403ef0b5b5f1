"""Proofs local to the rule an ambiguity changes: where it is used, at the end of the game, or
where its procedures leave components. Small problems next to comparing two whole games.
"""

from __future__ import annotations

from collections.abc import Callable

from rulecheck.dsl import ir
from rulecheck.dsl.walk import callees, walk_exprs, walk_stmts

from .. import terms as tm
from ..symbolic import SymExec
from ..symvalues import AttrSource, Unsupported, statements
from .invariant import InvariantCheck

#: the most questions a proof at the end of the game asks (Verifier.agree_at_end): one per pair of
#: winners and a few more at each end the trace reaches; 6 players at 2 ends take 68
END_QUESTIONS = 80


class LocalProofs(InvariantCheck):
    """Proofs local to the rule an ambiguity changes (where it is used, at the end of the game,
    where its procedures leave components), and the invariants they use."""

    def agree_where_used(self, amb: ir.Ambiguity, alt: dict[str, str], n: int, attrs: AttrSource | None = None) -> bool:
        """A proof local to the rules that change: when two readings differ only in definitions,
        evaluate the other reading's version beside this one's wherever a game of n players uses
        them, in the same state. If the two can never disagree, both readings play every game
        alike. Where the changed definitions themselves disagree, their callers may not (two
        versions of a tie-break can pick different cards yet the same player), so the comparison
        moves out one caller at a time: definitions first, then the procedures that use them,
        each call run under both readings from the same state (see product.py), then their
        callers (from those a smaller player count's proof compared, where there is one). Small
        problems next to comparing two whole games; readings that change a
        procedure are left to the whole-game search. The procedures compared are kept in
        ``where_used`` for the finding's words; ``attrs``: the components' data (free, for a
        proof for every table)."""
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(alt[amb.name])
        if ra is None or rb is None or ra.procs or rb.procs:
            return False
        other = self.program(alt)
        program = self.program(self.base_readings)
        changed = sorted({*ra.defs, *rb.defs})
        shadow = {name: other.defs[name] for name in changed}
        callers: dict[str, set[str]] = {}
        users: list[ir.Definition | ir.Procedure] = [*program.defs.values(), *program.procs.values()]
        for v in users:
            for c in callees(v):
                callers.setdefault(c, set()).add(v.name)
        key = (amb.name, alt[amb.name], attrs is not None)
        compare, procs = self.where_used_from.get(key, (frozenset(changed), frozenset[str]()))
        in_flow = {s.sid for s in walk_stmts(self.rules.flow)}  # the statements outside every procedure
        while True:
            try:
                t = SymExec(program, n, params=self.o.params, attrs=attrs, loop_bound=self.o.loop_bound, shadow=shadow,
                            compare=compare, compare_procs=procs, watch_invariants=False).run()
            except Unsupported:  # both readings' games are supported, but not every product of them
                return False
            diverging = [o for o in t.obligations if o.kind == "diverge"]
            session = self.session(t.constraints)
            # the procedures' comparisons one at a time: two per call (see product.py)
            r = session.check_each([o.cond for o in diverging]) if procs else session.check(tm.or_all(o.cond for o in diverging))
            if r.status == "unsat":
                self.where_used[n] = sorted(procs)
                self.where_used_from[key] = compare, procs
                return True
            if r.status == "unknown":  # a wider comparison is a larger problem still
                return False
            around = {c for name in compare | procs for c in callers.get(name, ())}
            wider = compare | {c for c in around if c in program.defs}
            if wider != compare:
                compare = wider
                continue
            # the definitions disagree wherever the game uses them: the procedures that do may
            # still leave the same game, but not where the flow itself sees the difference
            assert r.model is not None
            value = tm.Evaluator(r.model)
            if any(o.site in in_flow and value(o.cond) for o in diverging):
                return False
            wider = procs | {c for c in around if c in program.procs}
            if wider == procs:
                return False
            procs = wider

    def where_used_any_table(self, amb: ir.Ambiguity, alt: dict[str, str], n: int) -> bool:
        """agree_where_used with the assumed and unspecified data free (for the sensitivity of a
        harmless finding)."""
        return self.proof_any_table(("where", amb.name, alt[amb.name], n), lambda: self.agree_where_used(amb, alt, n, self.free_data()))

    def agree_at_end(self, amb: ir.Ambiguity, alt: dict[str, str], n: int, any_table: bool = False) -> bool:
        """A proof local to the end of the game, for readings that change only definitions the
        game uses nowhere but in its winners: both versions of the winners are evaluated over an
        abstract state of each end (each component in one place, the counts known there),
        constrained by the ruleset's invariants. One question per pair of winners, and one per
        version naming nobody or failing alone (see SymExec.end_comparison): each far smaller
        than the whole comparison. An invariant a proof used must itself be proven for n players
        (by the invariant check's own question); where one is not, nothing is claimed.
        ``any_table``: with the assumed and unspecified data free, the invariants proven for every
        table too."""
        if not self.end_proof_candidate(amb, alt[amb.name]):
            return False
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(alt[amb.name])
        assert ra is not None and rb is not None
        program = self.program(self.base_readings)
        changed = {*ra.defs, *rb.defs}
        other = self.program(alt)
        t = SymExec(program, n, params=self.o.params, attrs=self.free_data() if any_table else None, loop_bound=self.o.loop_bound,
                    shadow={name: other.defs[name] for name in changed}, watch_invariants=False, compare_ends=True).run()
        if sum(o.kind == "diverge" for check in t.abstract for o in check.obligations) > END_QUESTIONS:
            return False  # many ends reached many ways: the whole-game search is the smaller problem
        needed: set[str] = set()
        for check in t.abstract:
            # an invariant holds at the end of a game that ends: where this reading's winners
            # fail, the game stops there and the invariant says nothing
            facts = {name: tm.or_(check.failed, ok) for name, ok in check.facts.items()}
            goals = [o.cond for o in check.obligations if o.kind == "diverge"]
            batch = self.session(check.lemmas).batch(goals, facts)
            for i in range(len(goals)):
                r, used = batch.ask_using(i)
                if r.status != "unsat":
                    return False
                needed.update(used)
        if not all(self.invariant_proven(name, n, any_table) for name in sorted(needed)):
            return False
        self.end_proofs[n] = sorted(needed)
        return True

    def end_proof_candidate(self, amb: ir.Ambiguity, other: str) -> bool:
        """The reading changes only definitions that the game uses nowhere but in its winners
        (see agree_at_end)."""
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(other)
        if ra is None or rb is None or ra.procs or rb.procs:
            return False
        return not ({*ra.defs, *rb.defs} & _used_in_play(self.program(self.base_readings)))

    def end_any_table(self, amb: ir.Ambiguity, alt: dict[str, str], n: int) -> bool:
        """agree_at_end with the assumed and unspecified data free: asked once, for the
        ambiguity check and its sensitivity."""
        return self.proof_any_table(("end", amb.name, alt[amb.name], n), lambda: self.agree_at_end(amb, alt, n, any_table=True))

    def proof_any_table(self, key: tuple[str, str, str, int], prove: Callable[[], bool]) -> bool:
        """A local proof with the assumed and unspecified data free, asked once per check (the
        ambiguity check and its sensitivity both use it); none where no data is assumed."""
        if key not in self.any_table:
            self.any_table[key] = bool(self.symbolic) and prove()
        return self.any_table[key]

    def same_after_moves(self, names: list[str], alt: dict[str, str], n: int, attrs: AttrSource | None = None) -> bool:
        """A proof local to the procedures that change, when they differ only in where they leave
        components: one game is played with both versions of them (see SymExec's ``displaced``),
        and from their first call on, every value a rule computes is computed in both readings'
        states. If no value can differ, no move and no result can: the readings play every game
        alike, whatever the components left elsewhere."""
        other = self.program(alt)
        try:
            t = SymExec(self.program(self.base_readings), n, params=self.o.params, attrs=attrs, loop_bound=self.o.loop_bound,
                        displaced={name: other.procs[name] for name in names}, watch_invariants=False).run()
        except Unsupported:
            return False
        # one question per rule that may see the difference
        goals: dict[tuple[int, int], list[tm.Term]] = {}
        for o in t.obligations:
            if o.kind == "diverge":
                goals.setdefault((o.span.line, o.span.col), []).append(o.cond)
        return self.session(t.constraints).check_each([tm.or_all(goals[k]) for k in sorted(goals)]).status == "unsat"

    def alike_any_table(self, moved: list[str], alt: dict[str, str], amb: str, n: int) -> bool:
        """same_after_moves with the assumed and unspecified data free: asked once, for the
        ambiguity check and its sensitivity."""
        return self.proof_any_table(("moves", amb, alt[amb], n), lambda: self.same_after_moves(moved, alt, n, self.free_data()))


def _used_in_play(program: ir.Program) -> set[str]:
    """The definitions a game's moves can depend on: every one a statement other than an end
    of the game uses, directly or through other definitions. (A say only logs.)"""
    roots: set[str] = set()
    for s in statements(program):
        if isinstance(s, (ir.End, ir.Say)):
            continue
        for f in vars(s).values():
            exprs = [f] if isinstance(f, ir.Expr) else [x for x in f if isinstance(x, ir.Expr)] if isinstance(f, list) else []
            for e in exprs:
                roots.update(x.name for x in walk_exprs(e) if isinstance(x, ir.CallDef))
    used, todo = set(roots), list(roots)
    while todo:
        for c in callees(program.defs[todo.pop()]):
            if c in program.defs and c not in used:
                used.add(c)
                todo.append(c)
    return used


def _moved_only(amb: ir.Ambiguity, base: str, other: str) -> list[str]:
    """The procedures two readings change, when they change nothing else (see same_after_moves)."""
    ra, rb = amb.reading(base), amb.reading(other)
    return sorted({*ra.procs, *rb.procs}) if ra and rb and not ra.defs and not rb.defs else []
