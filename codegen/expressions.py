"""Expressions: the ``x_*`` visitors that spell IR expressions as Python (``Expressions``), with
the order of evaluation and the errors of ``interpreter/semantics.py``.  Aggregates are in
``aggregates.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from rulecheck.dsl import ir
from rulecheck.dsl.types import TAny, TComp, TEnum, TInt, TSet, Type
from rulecheck.dsl.values import SMALL_NUMBERS

from .analysis import match_chain
from .layout import ALL_PLAYERS, SMALL_MASKS, GenerationError, Loc, Scope, at, bare, rep_of
from .lines import STRING, nesting
from .literals import ident, pyrepr
from .patterns import emptiness, match_tree
from .tables import Tables

#: (X != 0), (X == 0) with X free of comparisons: a negation flips the comparison
_NONZERO = re.compile(r"\(([^()<>=!]*(?:\([^()<>=!]*\)[^()<>=!]*)*) (==|!=) (0|_EMPTY)\)")


#: Brackets one generated expression may nest before it is computed into a local first.
MAX_CODE_NESTING = 100


#: a mask's count as the code generator spells it: a name's or a parenthesized expression's
_COUNTED = re.compile(r"(\w+|\([^()]*\))\.bit_count\(\)")

class Expressions(Tables):
    """One ``x_<Node>`` method per kind of IR expression (aggregates in ``aggregates.py``), each
    returning (code, representation); ``ex`` dispatches and converts between representations."""

    def ex(self, e: ir.Expr, rep: str | None = None) -> str:
        """A Python expression for ``e`` (in representation ``rep`` for a set); preamble
        statements it needs are emitted first."""
        want = rep if rep is not None else rep_of(e.type)
        done = self.subst.get(id(e))
        if done is not None:
            return self.convert(done[0], done[1], want, e)
        if want == "mask" and rep_of(e.type) == "fs" and not self.small_members(e):
            # numbers that may be negative, wanted as a mask: made as a frozenset first
            return self.convert(self.ex(e, "fs"), "fs", want, e)
        method = getattr(self, "x_" + type(e).__name__)
        code, got = method(e, want)
        if nesting(code) > MAX_CODE_NESTING:
            # Python's parser refuses more than 200 brackets inside one another: an expression
            # the rules nest 250 deep is computed in steps (its preamble keeps the order)
            code = self.materialize(code)
        return self.convert(code, got, want, e)

    def convert(self, code: str, got: str | None, want: str | None, e: ir.Expr) -> str:
        if got is None or want is None or got == want:
            return code
        if got == "mask":
            return f"frozenset(_BITS[{code}])"
        return f"_mask({code}, {at(e.span)})"

    def small_members(self, e: ir.Expr) -> bool:
        """Whether every member of the set of numbers ``e`` is a number from 0 up to
        SMALL_NUMBERS - 1 (so that it can be held as a mask): by its type, a variable's declared
        range (kept by every assignment), or the numbers it is made of. For a difference, its
        left side: what is taken away is a mask of the members that can be in it."""
        if rep_of(e.type) == "mask":
            return True
        if not SMALL_MASKS.get():
            return False
        if isinstance(e, ir.SetOf):
            return all(self.small_number(x) for x in e.items)
        if isinstance(e, ir.BinOp) and e.op == "diff":
            return self.small_members(e.left)
        if isinstance(e, ir.BinOp) and e.op == "union":
            return self.small_members(e.left) and self.small_members(e.right)
        if isinstance(e, ir.Cond):
            return self.small_members(e.then) and self.small_members(e.else_)
        b = self.elem_bounds(e)
        return b is not None and 0 <= b[0] and b[1] < SMALL_NUMBERS

    def small_number(self, e: ir.Expr) -> bool:
        """Whether the number ``e`` is from 0 up to SMALL_NUMBERS - 1 for certain."""
        lo, hi = self.analysis.bounds.of(e)
        if 0 <= lo and hi < SMALL_NUMBERS:
            return True
        b = self.value_bounds(e)
        return b is not None and 0 <= b[0] and b[1] < SMALL_NUMBERS

    def ex_seq(self, items: list[tuple[ir.Expr, str | None]]) -> list[str]:
        """Operands left to right: when a later one needs a preamble, the earlier ones are
        computed before it, so errors happen in the interpreter's order."""
        out: list[str] = []
        for e, rep in items:
            with self.capture() as buf:
                code = self.ex(e, rep)
            if buf:
                out = [self.materialize(c) for c in out]
                self.fn.lines.extend(buf)
            out.append(code)
        return out

    # ---- names, state and definitions --------------------------------------------------------------

    def x_Const(self, e: ir.Const, want: str | None) -> tuple[str, str | None]:
        v = e.value
        if isinstance(v, frozenset):
            rep = want or rep_of(e.type) or "mask"
            return self.set_literal(v, rep), rep
        if isinstance(v, int) and not isinstance(v, bool) and v < 0:
            return f"({v})", None
        return pyrepr(v), None

    def x_Local(self, e: ir.Local, want: str | None) -> tuple[str, str | None]:
        loc = self.scope.get(e.name)
        return loc.code, loc.rep

    def index_code(self, t: Type | None, index: ir.Expr | None, base: int, what: str) -> str:
        if t is None or index is None:
            return str(base)
        idx = self.ex(index)
        if isinstance(t, TInt):
            assert t.lo is not None and t.hi is not None
            return f"{base} + _ix({idx}, {t.lo}, {t.hi}, {pyrepr(what)}, {at(index.span)})"
        if re.fullmatch(r"\d+", idx):
            return str(base + int(idx))
        return idx if base == 0 else f"{base} + {idx}"

    def x_VarRef(self, e: ir.VarRef, want: str | None) -> tuple[str, str | None]:
        v = self.rules.vars[e.name]
        self.uses("V")
        return f"V[{self.index_code(v.index, e.index, self.layout.var_base[v.name], v.name)}]", rep_of(v.type)

    def x_ParamRef(self, e: ir.ParamRef, want: str | None) -> tuple[str, str | None]:
        return f"S.g.P[{self.layout.params.index(e.name)}]", rep_of(e.type)

    def zone_instance(self, zone: str, index: ir.Expr | None) -> str:
        z = self.rules.zones[zone]
        return self.index_code(z.index, index, self.layout.zone_base[zone], zone)

    def x_PlaceOf(self, e: ir.PlaceOf, want: str | None) -> tuple[str, str | None]:
        # a place is the number of its zone instance (values.place_table)
        return self.zone_instance(e.zone, e.index), None

    def x_ZoneRef(self, e: ir.ZoneRef, want: str | None) -> tuple[str, str | None]:
        self.uses("Z")
        return f"Z[{self.zone_instance(e.zone, e.index)}]", "mask"

    def x_AttrRef(self, e: ir.AttrRef, want: str | None) -> tuple[str, str | None]:
        obj = self.ex(e.obj)
        t = self.rules.kinds[e.kind].attrs[e.attr]
        return f"{self.attr_table(e.kind, e.attr)}[{obj}]", rep_of(t)

    def x_CallDef(self, e: ir.CallDef, want: str | None) -> tuple[str, str | None]:
        d = self.program.defs[e.name]
        args = [bare(a) for a in self.ex_seq([(a, rep_of(t)) for a, (_, t) in zip(e.args, d.formals)])]
        table = self.def_tables.get(d.name)
        if table is None and d.name in self.var_tables:
            # a value of the arguments and a few variables' values, computed when the engine was generated
            table = self.var_table_code(d.name)
        if table is not None:
            # a value of the arguments alone, computed when the engine was generated
            return table + "".join(f"[{a}]" for a in args), rep_of(d.ret)
        if d.name in self.inlined:
            body = self.bodies[d.name]
            assert body is not None
            with self.inline_scope(e, args):
                return self.ex(body, rep_of(d.ret)), rep_of(d.ret)
        memo = self.memos.get(d.name)
        if memo is not None and all(isinstance(t, TInt) for _, t in d.formals):
            # numbers known to lie in small ranges: the values for those ranges, computed now
            ranges = [self.value_bounds(a) for a in e.args]
            if all(r is not None for r in ranges):
                m = self.machine()
                axes: list[Type | tuple[int, list[object]] | None] = [
                    (r[1] + 1, list(range(r[0], r[1] + 1))) if r is not None and 0 <= r[0] <= r[1] < 1024 else None for r in ranges]
                table = self.table(("call", d.name, tuple(ranges)), axes,
                                   lambda vals: self.value_literal(m.call(d.name, list(vals), e.span), d.ret))
                if table is not None:
                    return table + "".join(f"[{a}]" for a in args), rep_of(d.ret)
        if memo is not None:
            args = [self.materialize(a) for a in args]
            key = args[0] if len(args) == 1 else f"({', '.join(args)},)"
            if self.needs_call_site(d):
                args.append(f"({at(e.span)})")
            got = self.fn.fresh()
            self.emit(f"{got} = {memo}.get({key})")
            self.emit(f"if {got} is None:")
            self.emit(f"    {got} = D_{ident(d.name)}({', '.join(['S', *args])})")
            self.emit(f"    if len({memo}) < 65536:")
            self.emit(f"        {memo}[{key}] = {got}")
            return got, rep_of(d.ret)
        if self.needs_call_site(d):
            args.append(f"({at(e.span)})")
        call = f"D_{ident(d.name)}({', '.join(['S', *args])})"
        if d.name in self.cached and self.hoist is not None and not self.analysis.def_raises(d.name):
            # inside the loops of an expression nothing changes: a value that cannot fail is
            # looked up once, before the outermost loop
            self.uses("C")
            hoisted = self.hoist.names.get(d.name)
            if hoisted is None:
                got = self.hoist.names[d.name] = self.fn.fresh()
                g, k = self.cache_slot[d.name]
                pad = "    " * self.hoist.ind
                self.hoist.lines[self.hoist.at:self.hoist.at] = [f"{pad}{got} = C[{g}].get({k})", f"{pad}if {got} is None:", f"{pad}    {got} = {call}"]
                self.hoist.at += 3
            else:
                got = hoisted
            return got, rep_of(d.ret)
        if d.name in self.cached:
            # the remembered value, without a call when there is one
            self.uses("C")
            got = self.fn.fresh()
            g, k = self.cache_slot[d.name]
            self.emit(f"{got} = C[{g}].get({k})")
            self.emit(f"if {got} is None:")
            self.emit(f"    {got} = {call}")
            return got, rep_of(d.ret)
        return call, rep_of(d.ret)

    @contextmanager
    def inline_scope(self, e: ir.CallDef, args: list[str]) -> Iterator[None]:
        """The scope of an inlined definition: the arguments are computed first, as for a call;
        then the body sees only them."""
        d = self.program.defs[e.name]
        scope = Scope()
        for (name, t), code, arg in zip(d.formals, args, e.args):
            bounds = self.elem_bounds(arg) if isinstance(t, TSet) else self.value_bounds(arg)
            scope.names[name] = Loc(self.materialize(code), t, rep_of(t), bounds=bounds)
        saved_scope, saved_subst = self.scope, self.subst
        self.scope, self.subst = scope, {}
        try:
            yield
        finally:
            self.scope, self.subst = saved_scope, saved_subst

    # ---- operators ---------------------------------------------------------------------------------

    def x_Builtin(self, e: ir.Builtin, want: str | None) -> tuple[str, str | None]:
        op = e.op
        if op == "players":
            self.uses("n")
            return ALL_PLAYERS, "mask"
        if op == "num_players":
            self.uses("n")
            return "n", None
        if op == "winners":
            return "max(S.w or 0, 0)", "mask"  # a draw (-1) has no winners
        if op == ir.IN_PLAY:
            t = e.type
            assert isinstance(t, TSet) and isinstance(t.elem, TComp) and t.elem.kind is not None
            return f"S.g.K[{list(self.rules.kinds).index(t.elem.kind)}]", "mask"
        args = self.ex_seq([(a, None) for a in e.args])
        if op in ir.BOARD_BUILTINS:
            return self.board_builtin(e, args)
        if op in ("length", "entries"):
            return self.record_builtin(e, args)
        if op in ("next", "prev"):
            self.uses("n")
            step = self.order if op == "next" else -self.order
            return f"(({args[0]} {'+' if step > 0 else '-'} 1) % n)", None
        if op == "seat":
            return f"({args[0]} + 1)", None
        if op == "player":
            if self.analysis.fixed_seat(e):
                k = e.args[0].value if isinstance(e.args[0], ir.Const) else None
                assert isinstance(k, int)
                return str(k - 1), None  # (the game always has that player)
            self.uses("n")
            return f"_player({bare(args[0])}, n, {at(e.span)})", None
        if op == "size":
            if rep_of(e.args[0].type) == "fs":
                return f"len({bare(args[0])})", None
            return f"{args[0]}.bit_count()", None
        if op == "abs":
            return f"abs({bare(args[0])})", None
        if op == "where":
            self.uses("loc")
            return f"loc[{bare(args[0])}]", None
        if op in ("min", "max"):
            return f"{op}({bare(args[0])}, {bare(args[1])})", None
        raise GenerationError(f"unknown builtin {op}")

    def x_Unary(self, e: ir.Unary, want: str | None) -> tuple[str, str | None]:
        v = self.ex(e.operand)
        if e.op == "not":
            m = _NONZERO.fullmatch(v)
            if m and not STRING.search(v) and not re.search(r"\b(?:if|and|or|not|lambda)\b", m.group(1)):
                return f"({m.group(1)} {'==' if m.group(2) == '!=' else '!='} {m.group(3)})", None
            return f"(not {v})", None
        return f"(-{v})", None

    def short_circuit(self, op: str, left: ir.Expr, right: ir.Expr) -> str:
        an = self.analysis
        if an.cost(right) * 2 < an.cost(left) and not an.can_raise(left) and not an.can_raise(right):
            # neither side can fail, so the cheaper one may decide first: same value, less work
            left, right = right, left
        a = self.ex(left)
        with self.capture(1) as buf:
            b = self.ex(right)
        if not buf:
            return f"({a} {op} {b})"
        t = self.fn.fresh()
        self.emit(f"{t} = {a}")
        self.emit(f"if {'' if op == 'and' else 'not '}{t}:")
        self.fn.lines.extend(buf)
        self.emit(f"    {t} = {b}")
        return t

    def x_BinOp(self, e: ir.BinOp, want: str | None) -> tuple[str, str | None]:
        op = e.op
        if op in ("and", "or"):
            return self.short_circuit(op, e.left, e.right), None
        tested = self.attr_test(e)
        if tested is not None:
            return tested, None
        empty = emptiness(e)
        if empty is not None:
            test = self.nonempty(empty[0])
            if test is not None:
                return (f"(not {test})" if empty[1] else test), None
            # size(S) == 0, size(S) > 0 ...: whether the set is empty, without counting
            s_code = self.ex(empty[0])
            return f"({s_code} {'==' if empty[1] else '!='} {'0' if rep_of(empty[0].type) == 'mask' else '_EMPTY'})", None
        lt, rt = e.left.type, e.right.type
        if op in ("==", "!="):
            rep = None
            if isinstance(lt, TSet) or isinstance(rt, TSet):
                rep = "fs" if "fs" in (rep_of(lt), rep_of(rt)) else "mask"
            a, b = self.ex_seq([(e.left, rep), (e.right, rep)])
            counted = _COUNTED.fullmatch(a) if b == "1" else _COUNTED.fullmatch(b) if a == "1" else None
            if counted is not None:
                # exactly one member: some, and none beside the lowest (bit_count is no primitive
                # of a compiled engine, a call by name there)
                m = counted.group(1)
                if not re.fullmatch(r"\w+", m):
                    m = self.fn.fresh()
                    self.emit(f"{m} = {counted.group(1)}")
                return f"({m} != 0 and {m} & ({m} - 1) == 0)" if op == "==" else f"({m} == 0 or {m} & ({m} - 1) != 0)", None
            return f"({a} {op} {b})", None
        if op in ("<", "<=", ">", ">="):
            a, b = self.ex_seq([(e.left, None), (e.right, None)])
            return f"({a} {op} {b})", None
        if op == "in":
            r = e.right
            if isinstance(r, ir.IntRange) and isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const):
                a = self.ex(e.left)
                return f"({r.lo.value} <= {a} <= {r.hi.value})", None
            rep = rep_of(rt) or "mask"
            if isinstance(rt, TSet) and isinstance(rt.elem, TAny) and isinstance(lt, TInt):
                rep = "fs"  # an int is never in a mask
            a, b = self.ex_seq([(e.left, None), (e.right, rep)])
            if rep == "mask" and isinstance(lt, TInt) and self.analysis.bounds.of(e.left)[0] < 0 \
                    and not (self.value_bounds(e.left) or (-1, -1))[0] >= 0:
                # a negative number is in no mask (nor may it shift one)
                a = self.materialize(a)
                return f"({a} >= 0 and {b} >> {a} & 1 == 1)", None
            if rep == "mask":
                return f"({b} >> {a} & 1 == 1)", None
            return f"({a} in {b})", None
        if op in ("union", "diff"):
            rep = want or rep_of(e.type) or "mask"
            r = e.right
            if rep == "fs" and isinstance(r, ir.SetOf) and r.items and not all(isinstance(x, ir.Const) for x in r.items):
                # a set display on the right: a frozenset's | and - take it and give a frozenset,
                # with no tuple made to build a frozenset first
                elem = r.type.elem if isinstance(r.type, TSet) else TAny()
                a, *items = self.ex_seq([(e.left, rep), *[(x, rep_of(elem)) for x in r.items]])
                b = "{" + ", ".join(items) + "}"
            elif rep == "mask" and op == "diff" and isinstance(r, ir.SetOf) and r.items and not self.small_members(r):
                # numbers taken away that may be negative: such a one is in no mask
                a, *items = self.ex_seq([(e.left, rep), *[(x, None) for x in r.items]])
                items = [self.materialize(i) for i in items]
                b = "(" + " | ".join(f"(1 << {i} if {i} >= 0 else 0)" for i in items) + ")"
            elif rep == "mask" and op == "diff" and rep_of(e.right.type) == "fs" and not self.small_members(e.right):
                a, b = self.ex_seq([(e.left, rep), (e.right, "fs")])
                b = f"_mask_of_some({b})"
            else:
                a, b = self.ex_seq([(e.left, rep), (e.right, rep)])
            if op == "union":
                return f"({a} | {b})", rep
            return (f"({a} & ~{b})" if rep == "mask" else f"({a} - {b})"), rep
        a, b = self.ex_seq([(e.left, None), (e.right, None)])
        if op in ("+", "-", "*"):
            if self.analysis.bounds.needs_check(e):
                return f"_int({a} {op} {b}, {at(e.span)})", None
            return f"({a} {op} {b})", None
        if op == "/":
            return f"_div({bare(a)}, {bare(b)}, {at(e.span)})", None
        if op == "%":
            return f"_mod({bare(a)}, {bare(b)}, {at(e.span)})", None
        raise GenerationError(f"unknown operator {op}")

    def attr_test(self, e: ir.BinOp) -> str | None:
        """``X.attr == constant`` (or another comparison) for a component X: a table by
        component id, as the attribute's column is (X is computed as it would be)."""
        if e.op not in ("==", "!=", "<", "<=", ">", ">="):
            return None
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if not (isinstance(side, ir.AttrRef) and isinstance(other, ir.Const) and isinstance(side.obj.type, TComp)):
                continue
            prov = self.rules.kinds[side.kind].provenance.get(side.attr)
            if prov is not None and prov.kind == "unspecified":
                continue
            hole = ir.Local(side.obj.type, side.obj.span, " x")
            probe = ir.AttrRef(side.type, side.span, hole, side.kind, side.attr)
            test = ir.BinOp(e.type, e.span, e.op, probe, other) if side is e.left else ir.BinOp(e.type, e.span, e.op, other, probe)
            table = self.table(("attr", side.kind, side.attr, e.op, repr(other.value), side is e.left), [side.obj.type], self.tester(test, " x"))
            if table is None:
                return None
            return f"{table}[{self.ex(side.obj)}]"
        return None

    def nonempty(self, e: ir.Expr) -> str | None:
        """Whether the set ``{x for x in S if F}`` has a member, as ``any``: the tests stop at the
        first member that passes (when no test can fail, skipping the others changes nothing)."""
        if isinstance(e, ir.CallDef) and e.name in self.inlined:
            body = self.bodies[e.name]
            if not (isinstance(body, ir.Agg) and self.nonempty_form(body)):
                return None
            d = self.program.defs[e.name]
            args = [bare(a) for a in self.ex_seq([(a, rep_of(t)) for a, (_, t) in zip(e.args, d.formals)])]
            with self.inline_scope(e, args):
                return self.nonempty(body)
        if isinstance(e, ir.Agg) and self.nonempty_form(e):
            assert e.filt is not None
            return self.ex(ir.Agg(e.filt.type, e.span, "any", e.var, e.coll, ir.Const(e.filt.type, e.span, True), e.filt))
        return None

    def nonempty_form(self, e: ir.Agg) -> bool:
        return (e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var and e.filt is not None
                and not self.analysis.can_raise(e.filt))

    # ---- conditionals, sets and the rest -----------------------------------------------------------

    def x_Cond(self, e: ir.Cond, want: str | None) -> tuple[str, str | None]:
        rep = want or rep_of(e.type)
        chain = match_chain(e)
        if chain is not None and id(chain[0]) not in self.subst:
            # a match: its subject is the first thing evaluated, and evaluated in every test
            subj = chain[0]
            code = self.ex(subj)
            if not re.fullmatch(r"[A-Za-z_]\w*", code):
                t = self.fn.fresh()
                self.emit(f"{t} = {code}")
                code = t
            self.subst[id(subj)] = (code, rep_of(subj.type))
            try:
                tree = match_tree(chain) if isinstance(subj.type, (TInt, TEnum)) and len(chain[1]) >= 4 else None
                if isinstance(tree, ir.Cond):
                    return self.x_Cond(tree, want)
                return self.x_Cond(e, want)
            finally:
                del self.subst[id(subj)]
        c = self.ex(e.cond)
        with self.capture(1) as tbuf:
            a = self.ex(e.then, rep)
        with self.capture(1) as ebuf:
            b = self.ex(e.else_, rep)
        if not tbuf and not ebuf:
            return f"({a} if {c} else {b})", rep
        t = self.fn.fresh()
        self.emit(f"if {c}:")
        self.fn.lines.extend(tbuf)
        self.emit(f"    {t} = {a}")
        self.emit("else:")
        self.fn.lines.extend(ebuf)
        self.emit(f"    {t} = {b}")
        return t, rep

    def x_SetOf(self, e: ir.SetOf, want: str | None) -> tuple[str, str | None]:
        rep = want or rep_of(e.type) or "mask"
        elem = e.type.elem if isinstance(e.type, TSet) else TAny()
        if not e.items:
            return ("0" if rep == "mask" else "_EMPTY"), rep
        if all(isinstance(i, ir.Const) for i in e.items):
            return self.set_literal(frozenset(i.value for i in e.items if isinstance(i, ir.Const)), rep), rep
        items = self.ex_seq([(i, rep_of(elem)) for i in e.items])
        if rep == "mask":
            if len(items) == 1:
                return f"(1 << {items[0]})", rep
            return "(" + " | ".join(f"(1 << {i})" for i in items) + ")", rep
        return "frozenset((" + ", ".join(items) + ",))", rep

    def x_IntRange(self, e: ir.IntRange, want: str | None) -> tuple[str, str | None]:
        if isinstance(e.lo, ir.Const) and isinstance(e.hi, ir.Const):
            lo, hi = e.lo.value, e.hi.value
            assert isinstance(lo, int) and isinstance(hi, int)
            rep = "mask" if want == "mask" and rep_of(e.type) == "mask" and lo >= 0 else "fs"
            return self.set_literal(frozenset(range(lo, hi + 1)), rep), rep
        lo_c, hi_c = self.ex_seq([(e.lo, None), (e.hi, None)])
        if rep_of(e.type) == "mask" and want == "mask":
            # small numbers (by the range's type): the bits from lo to hi
            lo_v, hi_v = self.materialize(lo_c), self.materialize(hi_c)
            return f"(((1 << ({hi_v} + 1)) - (1 << {lo_v})) if {lo_v} <= {hi_v} else 0)", "mask"
        if self.analysis.range_too_large(e):
            return f"_range({bare(lo_c)}, {bare(hi_c)}, {at(e.span)})", "fs"
        return f"frozenset(range({lo_c}, {hi_c} + 1))", "fs"

    def x_MapGet(self, e: ir.MapGet, want: str | None) -> tuple[str, str | None]:
        m, i = self.ex_seq([(e.map, None), (e.index, None)])
        if isinstance(e.map, ir.Local) and isinstance(e.index, ir.Local):
            chose, member = self.scope.get(e.map.name).among, self.scope.get(e.index.name).among
            if chose is not None and member == chose:
                # a member of the very set of players who chose: every one of them made a choice
                return f"{m}[{i}]", rep_of(e.type)
        if isinstance(e.map, ir.Local) and self.scope.get(e.map.name).everyone == self.local_epoch:
            return f"{m}[{i}]", rep_of(e.type)  # every player chose
        t = self.fn.fresh()
        self.emit(f"{t} = {m}[{i}]")
        self.emit(f"if {t} is None:")
        self.emit(f"    _raise('incomplete', 'this player made no choice here', {at(e.span)})")
        return t, rep_of(e.type)

    def x_Fail(self, e: ir.Fail, want: str | None) -> tuple[str, str | None]:
        return f"_raise({pyrepr(e.kind)}, {pyrepr(e.message)}, {at(e.span)})", want
