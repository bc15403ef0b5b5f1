"""Abstract states (SymAbstract): checks made from any state the invariants allow at a point, not only
the states the trace reaches: invariants, the end of the game, two versions of a definition."""

from __future__ import annotations

from collections import ChainMap, defaultdict
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlayer, TRecord, TSet, TText, Type

from . import terms as tm
from .symexpr import SymExpressions
from .symvalues import (
    FD,
    AbstractCheck,
    Env,
    Obligation,
    SymRecord,
    SymSet,
    Unsupported,
    Value,
    abstract_value,
    as_fd,
    free_locals,
    free_text,
    statements,
    value_eq,
)
from .terms import Term


class SymAbstract(SymExpressions):
    """Invariants and comparisons checked over an abstract state of a point of the game."""

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
            return self.free_value(t, name, lemmas) if whole else abstract_value(cur, t, name, lemmas)

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
            return free_text(sorted(self.texts), name, lemmas)
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
        if any(free_locals(s.winners) for s in ends):
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
