"""Aggregates (``set``, ``any``, ``all``, ``count``, ``sum``, ``max``, ``min``, ``the``): the loop
over a set's members and the cheaper forms the compiler uses when analysis shows that they give
the same value and the same errors (``Aggregates``).
"""

from __future__ import annotations

import re

from rulecheck.dsl import ir
from rulecheck.dsl.types import TAny, TInt, TSet

from .analysis import free_locals
from .layout import GenerationError, Hoist, Loc, Scope, at, members, py_type, rep_of, zero_of
from .literals import ident, pyrepr
from .patterns import and_chain, const_numbers, membership, mentions, or_chain
from .tables import Tables

#: The largest part of a test (analysis.cost) computed before the table of the test's values is
#: read, even where the test would not have reached it: a comparison of two variables, not a loop.
ATOM_COST = 12


class Aggregates(Tables):
    """``x_Agg`` and the ways it avoids a plain loop: a mask computed when the engine is generated,
a filter that does not depend on the member, a union of sets, members narrowed by a test, and
parts computed once before the loop."""

    def iterate(self, coll: ir.Expr) -> str:
        """A Python iterable over the members of a set, in ascending order."""
        fixed = const_numbers(coll)
        if fixed is not None and rep_of(coll.type) == "fs":
            return self.const(pyrepr(tuple(sorted(fixed))))  # a constant set of numbers, in order once
        c = self.ex(coll)
        if rep_of(coll.type) == "fs":
            return f"sorted({c})"
        return members(c)

    def x_Agg(self, e: ir.Agg, want: str | None) -> tuple[str, str | None]:
        op = e.op
        elem_t = e.coll.type.elem if isinstance(e.coll.type, TSet) else TAny()
        if op == "count" and e.filt is None:
            c = self.ex(e.coll)
            return (f"len({c})" if rep_of(e.coll.type) == "fs" else f"{c}.bit_count()"), None
        rep = want or rep_of(e.type)
        is_var = isinstance(e.elem, ir.Local) and e.elem.name == e.var
        if op == "set" and e.filt is None and is_var:
            return self.ex(e.coll, rep), rep
        if op in ("max", "min") and e.filt is None and is_var and rep_of(e.coll.type) == "fs":
            # the largest (smallest) of a set of numbers: Python's own, after the loop's test for
            # an empty set
            c = self.materialize(self.ex(e.coll))
            self.emit(f"if not {c}:")
            self.emit(f"    _raise('incomplete', {pyrepr(f'{op} of nothing: the collection is empty')}, {at(e.span)})")
            return f"{op}({c})", rep
        if op in ("max", "min") and e.filt is None and is_var and isinstance(elem_t, TInt) and rep_of(e.coll.type) == "mask":
            # a set of small numbers: its highest (lowest) bit
            c = self.materialize(self.ex(e.coll))
            self.emit(f"if not {c}:")
            self.emit(f"    _raise('incomplete', {pyrepr(f'{op} of nothing: the collection is empty')}, {at(e.span)})")
            return (f"({c}.bit_length() - 1)" if op == "max" else f"(({c} & -{c}).bit_length() - 1)"), rep
        tabled = self.tabled_agg(e)
        if tabled is not None:
            return tabled
        if op == "set" and is_var and e.filt is not None:
            hoisted = self.invariant_filter(e, rep)
            if hoisted is not None:
                return hoisted, rep
        if op == "any":
            flat = self.union_any(e)
            if flat is not None:
                return flat, None
        if op == "any" and not (isinstance(e.elem, ir.Const) and e.elem.value is True):
            # any(E for x in S if F) is any(true for x in S if F and E): E's tests can then
            # narrow the members visited, as F's can
            both: ir.Expr = e.elem if e.filt is None else ir.BinOp(e.elem.type, e.elem.span, "and", e.filt, e.elem)
            narrowed = ir.Agg(e.type, e.span, "any", e.var, e.coll, ir.Const(e.elem.type, e.elem.span, True), both)
            if self.pushdown(narrowed, probe=True) is not None:
                e = narrowed
        filt = e.filt
        pushed = self.pushdown(e)
        if pushed is not None:
            narrowed_to, filt = pushed
            if op == "any" and filt is None and isinstance(e.elem, ir.Const) and e.elem.value is True:
                return f"({narrowed_to} != 0)", None
            it = members(narrowed_to)
        elif self.hoist is not None and rep_of(e.coll.type) == "fs" and const_numbers(e.coll) is None \
                and not self.analysis.can_raise(e.coll) and all(self.hoist.scope_get(v) is self.scope.get(v) for v in free_locals(e.coll)):
            # a set of numbers the loops around do not change: put in order once, before them
            with self.capture_rel() as lines:
                it = self.iterate(e.coll)
            h = self.fn.fresh("h")
            pad = "    " * self.hoist.ind
            self.hoist.lines[self.hoist.at:self.hoist.at] = [pad + x for x in [*lines, f"{h} = {it}"]]
            self.hoist.at += len(lines) + 1
            it = h
        else:
            it = self.iterate(e.coll)
        fn = self.fn
        x = fn.fresh(f"x_{ident(e.var)}_")
        acc = fn.fresh()
        k = fn.fresh("k")
        if op == "set":
            self.emit(f"{acc}{': set[int]' if rep == 'fs' else ''} = {'set()' if rep == 'fs' else '0'}")
        elif op == "any":
            self.emit(f"{acc} = False")
        elif op == "all":
            self.emit(f"{acc} = True")
        elif op in ("count", "sum"):
            self.emit(f"{acc} = 0")
        elif op in ("max", "min", "the"):
            self.emit(f"{acc}: {py_type(e.type)} = {zero_of(e.type)}")
            self.emit(f"{k} = 0")
        else:
            raise GenerationError(f"unknown aggregate {op}")
        # parts of the tests that do not depend on the member and cannot fail: computed once,
        # before the loop (the loop changes nothing)
        invariant = [part for x_ in (filt, e.elem) if x_ is not None for part in self.invariant_parts(x_, {e.var})]
        for part in invariant:
            self.subst[id(part)] = (self.materialize(self.ex(part)), rep_of(part.type))
        saved = self.scope
        member = Loc(x, elem_t, rep_of(elem_t), bounds=self.elem_bounds(e.coll))
        if isinstance(e.coll, ir.Local):
            member.among = (id(self.scope.get(e.coll.name)), self.local_epoch)
        self.scope = Scope(saved, {e.var: member})
        outermost = self.hoist is None
        if outermost:
            self.hoist = Hoist(self.fn.lines, len(self.fn.lines), self.fn.ind, saved)
        self.emit(f"for {x} in {it}:")
        with self.loop():
            if filt is not None:
                f = self.ex(filt)
                self.emit(f"if {f}:")
                self.fn.ind += 1
            if op == "set":
                v = self.ex(e.elem, rep_of(e.type.elem) if isinstance(e.type, TSet) else None)
                self.emit(f"{acc} |= 1 << {v}" if rep == "mask" else f"{acc}.add({v})")
            elif op == "any":
                v = self.ex(e.elem)
                self.emit(f"if {v}:")
                self.emit(f"    {acc} = True")
                self.emit("    break")
            elif op == "all":
                v = self.ex(e.elem)
                self.emit(f"if not {v}:")
                self.emit(f"    {acc} = False")
                self.emit("    break")
            elif op == "count":
                self.emit(f"{acc} += 1")
            elif op == "sum":
                v = self.ex(e.elem)
                self.emit(f"{acc} += {v}")
            elif op in ("max", "min"):
                v = self.materialize(self.ex(e.elem))
                cmp = ">" if op == "max" else "<"
                self.emit(f"if not {k} or {v} {cmp} {acc}:")
                self.emit(f"    {acc} = {v}")
                self.emit(f"    {k} = 1")
            else:  # the: every candidate's value is computed before the count is judged
                v = self.ex(e.elem, rep)
                self.emit(f"{acc} = {v}")
                self.emit(f"{k} += 1")
            if filt is not None:
                self.fn.ind -= 1
        if outermost:
            self.hoist = None
        for part in invariant:
            del self.subst[id(part)]
        self.scope = saved
        if op in ("max", "min"):
            msg = f"{op} of nothing: the collection is empty"
            self.emit(f"if not {k}:")
            self.emit(f"    _raise('incomplete', {pyrepr(msg)}, {at(e.span)})")
        elif op == "the":
            self.emit(f"if {k} != 1:")
            self.emit(f"    _the_fail({k}, {at(e.span)})")
        if op == "set" and rep == "fs":
            return f"frozenset({acc})", rep
        if op == "sum" and self.analysis.bounds.needs_check(e):
            return f"_int({acc}, {at(e.span)})", rep
        return acc, rep

    # ---- cheaper forms of an aggregate -------------------------------------------------------------

    def tabled_agg(self, e: ir.Agg) -> tuple[str, str | None] | None:
        """An aggregate over a set whose test depends on no state (only on the member and other
        locals of finite types): the members that pass are a mask computed when the engine is
        generated, and the aggregate is a few operations on masks."""
        op = e.op
        if op not in ("set", "count", "the", "any", "all") or rep_of(e.coll.type) != "mask" or not isinstance(e.coll.type, TSet):
            return None
        is_var = isinstance(e.elem, ir.Local) and e.elem.name == e.var
        tests: list[tuple[ir.Expr, bool]] = [] if e.filt is None else [(e.filt, True)]
        if op in ("set", "the") and not is_var:
            return None
        if op == "any":
            tests.append((e.elem, True))
        elif op == "all":
            tests.append((e.elem, False))
        if not tests and op != "the":
            return None
        passing = self.pure_mask(e.var, e.coll.type.elem, tests) if tests else None
        if passing is None and tests:
            # a test that reads the state only through parts of few values (whether a bid is
            # higher, a phase): a table indexed by their values too
            atoms = tuple(a for t, _ in tests for a in self.state_atoms(t, {e.var}))
            passing = self.pure_mask(e.var, e.coll.type.elem, tests, atoms) if atoms else None
        if passing is None and tests:
            return None
        coll = self.ex(e.coll, "mask")
        if op == "set":
            return f"({coll} & {passing})", "mask"
        if op == "count":
            return f"({coll} & {passing}).bit_count()", None
        if op == "any":
            return f"({coll} & {passing} != 0)", None
        if op == "all":
            return f"({coll} & {passing} == 0)", None
        t = self.fn.fresh()
        self.emit(f"{t} = {coll}" + (f" & {passing}" if passing is not None else ""))  # one member, or fail
        # (not one member: none, or another beside the lowest; bit_count is no primitive of a
        # compiled engine, so counted only to say how many)
        self.emit(f"if not {t} or {t} & ({t} - 1):")
        self.emit(f"    _the_fail({t}.bit_count(), {at(e.span)})")
        return f"({t}.bit_length() - 1)", None

    def invariant_filter(self, e: ir.Agg, rep: str | None) -> str | None:
        """``{x for x in S if A(x) or B}`` with B not depending on x: when B holds every member
        passes, so the set is S itself and the loop is needed only when B fails (the tests before
        B must not be able to fail, since they are then not evaluated)."""
        assert e.filt is not None
        disjuncts = or_chain(e.filt)
        for i, d in enumerate(disjuncts):
            if mentions(d, e.var) or any(self.analysis.can_raise(x) for x in disjuncts[: i + 1]):
                continue
            cond = self.ex(d)
            rest = disjuncts[:i] + disjuncts[i + 1:]
            t = self.fn.fresh()
            self.emit(f"if {cond}:")
            with self.indented():
                self.emit(f"{t} = {self.ex(e.coll, rep)}")
            self.emit("else:")
            with self.indented():
                if not rest:
                    self.emit(f"{t} = {'0' if rep == 'mask' else '_EMPTY'}")
                else:
                    filt = rest[0]
                    for x in rest[1:]:
                        filt = ir.BinOp(x.type, x.span, "or", filt, x)
                    self.emit(f"{t} = {self.ex(ir.Agg(e.type, e.span, e.op, e.var, e.coll, e.elem, filt), rep)}")
            return t
        return None

    def union_any(self, e: ir.Agg) -> str | None:
        """``any(P(c) for c in E(q))`` for some q in Q (an any of anys): ``any(P(c) for c in U)``
        with U the union of the E(q), when nothing in it can fail; U is computed before the loops
        of the expression when it depends on none of their variables."""
        inner = e.filt if isinstance(e.elem, ir.Const) and e.elem.value is True else (e.elem if e.filt is None else None)
        if not isinstance(inner, ir.Agg) or inner.op != "any" or inner.filt is not None or not isinstance(inner.coll.type, TSet):
            return None
        if rep_of(e.coll.type) != "mask" or rep_of(inner.coll.type) != "mask" or not mentions(inner.coll, e.var):
            return None
        if mentions(inner.elem, e.var) or self.analysis.can_raise(inner.coll) or self.analysis.can_raise(inner.elem):
            return None
        elem_t = e.coll.type.elem if isinstance(e.coll.type, TSet) else TAny()
        outer = self.hoist is not None and all(self.hoist.scope_get(x) is self.scope.get(x)
                                                 for x in (free_locals(e.coll) | free_locals(inner.coll)) - {e.var})
        coll = self.ex(e.coll)  # (computed where it was)
        u, q = self.fn.fresh("u"), self.fn.fresh(f"x_{ident(e.var)}_")
        with self.capture_rel() as lines:
            self.emit(f"{u} = 0")
            self.emit(f"for {q} in {members(coll)}:")
            saved = self.scope
            self.scope = Scope(saved, {e.var: Loc(q, elem_t, rep_of(elem_t))})
            with self.loop():
                self.emit(f"{u} |= {self.ex(inner.coll, 'mask')}")
            self.scope = saved
        if outer and self.hoist is not None and re.fullmatch(r"[\d()<> n-]*", coll):  # (players, or a constant)
            pad = "    " * self.hoist.ind
            self.hoist.lines[self.hoist.at:self.hoist.at] = [pad + x for x in lines]
            self.hoist.at += len(lines)
        else:
            self.splice(lines)
        name = f" {u}"
        saved = self.scope
        self.scope = Scope(saved, {name: Loc(u, inner.coll.type, "mask")})
        try:
            return self.ex(ir.Agg(e.type, e.span, "any", inner.var, ir.Local(inner.coll.type, inner.coll.span, name), inner.elem, None))
        finally:
            self.scope = saved

    def pushdown(self, e: ir.Agg, probe: bool = False) -> tuple[str, ir.Expr | None] | None:
        """``x for x in S if … and T(x) and …``: visit only the members of S that pass T, when the
        tests skipped for the others cannot fail (so skipping them changes nothing).  T is
        ``x in E`` (E may be a union, written ``any(x in E(p) for p in P)``) or a test that
        depends on no state (a mask computed when the engine is generated).  Returns (the mask
        of the members to visit, the remaining filter); with ``probe``, emits nothing."""
        if e.filt is None or rep_of(e.coll.type) != "mask" or not isinstance(e.coll.type, TSet):
            return None
        conjuncts = and_chain(e.filt)
        taken: list[tuple[int, ir.Expr | None, str | None]] = []  # (position, E, mask of a pure test)
        for i, c in enumerate(conjuncts):
            member = membership(c, e.var)
            mask = self.pure_mask(e.var, e.coll.type.elem, [(c, True)]) if member is None else None
            if mask is None and self.analysis.can_raise(c):
                break  # the tests after this one must still be made for every member
            if member is not None or mask is not None:
                taken.append((i, member, mask))
        if not taken:
            return None
        if probe:
            return "", None
        restrict = [self.materialize(self.ex(e.coll))]
        for _, member, mask in taken:
            if mask is not None:
                restrict.append(mask)
            elif isinstance(member, ir.Agg):  # any(x in E(p) for p in P): the union of the E(p)
                assert isinstance(member.elem, ir.BinOp)
                u = self.fn.fresh("u")
                pv = self.fn.fresh(f"x_{ident(member.var)}_")
                p_elem = member.coll.type.elem if isinstance(member.coll.type, TSet) else TAny()
                self.emit(f"{u} = 0")
                self.emit(f"for {pv} in {self.iterate(member.coll)}:")
                saved = self.scope
                self.scope = Scope(saved, {member.var: Loc(pv, p_elem, rep_of(p_elem))})
                with self.loop():
                    self.emit(f"{u} |= {self.ex(member.elem.right, 'mask')}")
                self.scope = saved
                restrict.append(u)
            else:
                assert member is not None
                restrict.append(self.ex(member, "mask"))
        positions = {i for i, _, _ in taken}
        filt: ir.Expr | None = None
        for i, x in enumerate(conjuncts):
            if i not in positions:
                filt = x if filt is None else ir.BinOp(x.type, x.span, "and", filt, x)
        return " & ".join(restrict), filt

    # ---- parts computed once, before the loop ------------------------------------------------------

    def invariant_parts(self, e: ir.Expr, bound: set[str]) -> list[ir.Expr]:
        """The largest parts of ``e`` that read none of the locals ``bound`` (the loop's member and
        the members of the loops inside it), cannot fail and are worth computing once: an
        aggregate, or a definition that is neither remembered nor a table."""
        if isinstance(e, (ir.Const, ir.Local, ir.Fail)) or id(e) in self.subst:
            return []
        if not (free_locals(e) & bound) and self.costly(e) and not self.analysis.can_raise(e):
            return [e]
        if isinstance(e, ir.Agg):
            inner = bound | {e.var}
            return [*self.invariant_parts(e.coll, bound), *(p for x in (e.filt, e.elem) if x is not None for p in self.invariant_parts(x, inner))]
        if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            return self.invariant_parts(e.left, bound)  # (the right side may not be evaluated)
        if isinstance(e, ir.Cond):
            return self.invariant_parts(e.cond, bound)
        out: list[ir.Expr] = []
        for f in vars(e).values():
            if isinstance(f, ir.Expr):
                out.extend(self.invariant_parts(f, bound))
            elif isinstance(f, list):
                for x in f:
                    if isinstance(x, ir.Expr):
                        out.extend(self.invariant_parts(x, bound))
        return out

    def state_atoms(self, e: ir.Expr, bound: set[str]) -> list[ir.Expr]:
        """The largest parts of ``e`` that read the state and none of the locals ``bound`` (the
        member and the members of the aggregates inside), cannot fail, and take few values
        (atom_domain): computed before the table is read, they change nothing that the tests
        would not (they have no effect, and cannot fail where the tests would not reach them)."""
        if isinstance(e, (ir.Const, ir.Local, ir.Fail)):
            return []
        if not (free_locals(e) & bound) and not self.analysis.pure(e) and not self.analysis.can_raise(e) \
                and self.atom_domain(e) is not None and self.analysis.cost(e) <= ATOM_COST:
            return [e]
        if isinstance(e, ir.Agg):
            inner = bound | {e.var}
            return [*self.state_atoms(e.coll, bound), *(p for x in (e.filt, e.elem) if x is not None for p in self.state_atoms(x, inner))]
        out: list[ir.Expr] = []
        for f in vars(e).values():
            for x in (f if isinstance(f, list) else [f]):
                if isinstance(x, ir.Expr):
                    out.extend(self.state_atoms(x, bound))
        return out

    def costly(self, e: ir.Expr) -> bool:
        if isinstance(e, ir.Agg):
            return True
        if isinstance(e, ir.CallDef):
            return e.name not in self.cached and e.name not in self.def_tables and e.name not in self.var_tables
        return False
