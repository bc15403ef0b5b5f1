"""Expressions over the symbolic state (SymExpressions): every value a rule computes, as terms."""

from __future__ import annotations

from collections import ChainMap

from rulecheck.dsl import ir
from rulecheck.dsl.checker import MAX_RANGE
from rulecheck.dsl.inplay import in_play_of
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import MAX_INT, TBool, TComp, TInt, TRecord, TSet, Type
from rulecheck.dsl.walk import walk_exprs

from . import terms as tm
from .symvalues import (
    FD,
    MAX_INT_MEMBERS,
    Env,
    SymMap,
    SymRecord,
    SymSet,
    SymText,
    Unsupported,
    Value,
    as_bool,
    as_fd,
    as_int,
    const_value,
    default_of,
    merge,
    select,
    value_eq,
    value_key,
)
from .symzones import SymZones
from .terms import Term


class SymExpressions(SymZones):
    """An expression's value in the current state (``ev``), definitions and aggregates (the zones'
    sums and the boards: SymZones)."""

    def eval_pure(self, e: ir.Expr, env: Env, g: Term) -> Term:
        """A condition that must hold; an evaluation that fails counts as not holding."""
        saved_errs, saved_obl = self.errs, self.obligations
        self.errs, self.obligations = [], []
        try:
            v = as_bool(self.ev(e, env, g))
            errs = self.errs
        finally:
            self.errs, self.obligations = saved_errs, saved_obl
        return tm.and_(v, tm.not_(tm.or_all(errs)))

    def entry(self, index: ir.Expr | None, env: Env, g: Term, t: Type | None, what: str) -> Value | None:
        """The index of a zone or variable (None for one without), where ``g`` holds: of one
        declared over a range, a number outside it stops play with a range error, as in the
        interpreter; a constant one is then replaced by one inside (the game has stopped)."""
        if index is None:
            return None
        i = self.ev(index, env, g)
        if not (isinstance(t, TInt) and t.lo is not None and t.hi is not None) or isinstance(i, (FD, SymSet)):
            return i
        x = as_int(i)
        outside = tm.or_(tm.lt(x, t.lo), tm.gt(x, t.hi))
        shown = f" {x}" if not isinstance(x, tm.T) else ""
        self.fail("range", index.span, what, f"'{what}' has no entry{shown}: its index runs over {t.lo}..{t.hi}", tm.and_(g, outside))
        return t.lo if outside is True else i

    def bounded(self, r: Term, span: Span, g: Term) -> Term:
        """The value of an operator or a sum, where ``g`` holds: beyond the integer limit, play
        stops with a range error (interpreter/semantics.py); the value then is 0 (terms.clamp)."""
        rng = tm.int_range(r)
        if rng is None or (-MAX_INT <= rng[0] and rng[1] <= MAX_INT):
            return r  # within the limit, or (a free value of no declared range) in 16 bits as ever
        if not isinstance(r, tm.T):
            self.fail("range", span, "integer limit", f"the result {int(r):,} is beyond the integer limit ±{MAX_INT:,}", g)
            return 0
        self.fail("range", span, "integer limit", f"the result would be beyond the integer limit ±{MAX_INT:,}",
                  tm.and_(g, tm.or_(tm.lt(r, -MAX_INT), tm.gt(r, MAX_INT))))
        return tm.clamp(r, MAX_INT)

    def check_range(self, v: Value, t: Type, span: Span, name: str, g: Term) -> None:
        if isinstance(t, TInt) and (t.lo is not None or t.hi is not None) and not isinstance(v, (SymSet, SymMap, SymText, str)):
            x = as_int(v)
            bad = tm.or_(tm.lt(x, t.lo) if t.lo is not None else False, tm.gt(x, t.hi) if t.hi is not None else False)
            self.fail("range", span, name, f"'{name}' would leave its range {t.show()}", tm.and_(g, bad))
        if isinstance(t, TSet) and isinstance(t.elem, TInt) and isinstance(v, SymSet):
            lo, hi = t.elem.lo, t.elem.hi
            out = [c for k, c in v.mem.items() if (lo is not None and k < lo) or (hi is not None and k > hi)]
            if out:
                self.fail("range", span, name, f"'{name}' would hold a number outside {t.elem.show()}", tm.and_(g, tm.or_all(out)))

    # ---- expressions ------------------------------------------------------------------------

    def ev(self, e: ir.Expr, env: Env, g: Term) -> Value:
        try:
            if not self.alt_loc or self.no_compare:
                return self.ev1(e, env, g)
            self.no_compare += 1
            try:
                start = len(self.errs) if self.errs is not None else 0
                value = self.ev1(e, env, g)
                errs = tm.or_all(self.errs[start:]) if self.errs is not None else False
                other, other_errs = self.in_other(lambda: self.ev1(e, env, g))
            finally:
                self.no_compare -= 1
        except Unsupported as exc:
            if exc.span is None:  # the innermost expression that needs it
                exc.span = e.span
                exc.args = (exc.what, exc.span, exc.hint)
            raise
        self.diverge(e.span, tm.and_(g, tm.or_(tm.not_(value_eq(value, other)), tm.not_(value_eq(errs, other_errs)))))
        return value

    def ev1(self, e: ir.Expr, env: Env, g: Term) -> Value:
        if isinstance(e, ir.Const):
            return const_value(e.value)
        if isinstance(e, ir.Local):
            return env[e.name]
        if isinstance(e, ir.VarRef):
            v = self.vars[e.name]
            return v if e.index is None else select(v, self.entry(e.index, env, g, self.rules.vars[e.name].index, e.name))
        if isinstance(e, ir.ParamRef):
            return const_value(self.params[e.name])
        if isinstance(e, ir.ZoneRef):
            idx = self.entry(e.index, env, g, self.rules.zones[e.zone].index, e.zone)
            return self.zone_members(e.zone, idx)
        if isinstance(e, ir.PlaceOf):
            idx = self.ev(e.index, env, g) if e.index is not None else None
            return self.place_of(self.zone_id(e.zone, idx))
        if isinstance(e, ir.AttrRef):
            obj = self.ev(e.obj, env, g)
            if isinstance(obj, (bool, int)):
                return self.attrs.get(int(obj), e.attr)
            f = as_fd(obj, [c.cid for c in self.rules.components_of(e.kind)])
            return select({k: self.attrs.get(k, e.attr) for k in f.mem}, f)
        if isinstance(e, ir.CallDef):
            return self.call(e, [self.ev(a, env, g) for a in e.args], g)
        if isinstance(e, ir.Builtin):
            return self.builtin(e, env, g)
        if isinstance(e, ir.Unary):
            v = self.ev(e.operand, env, g)
            return tm.not_(as_bool(v)) if e.op == "not" else tm.neg(as_int(v))
        if isinstance(e, ir.BinOp):
            return self.binop(e, env, g)
        if isinstance(e, ir.Cond):
            c = as_bool(self.ev(e.cond, env, g))
            if c is True:
                return self.ev(e.then, env, g)
            if c is False:
                return self.ev(e.else_, env, g)
            return merge(c, self.ev(e.then, env, tm.and_(g, c)), self.ev(e.else_, env, tm.and_(g, tm.not_(c))))
        if isinstance(e, ir.SetOf):
            return self.make_set([(True, self.ev(i, env, g)) for i in e.items], e.type)
        if isinstance(e, ir.IntRange):
            lo, hi = self.ev(e.lo, env, g), self.ev(e.hi, env, g)
            if not isinstance(lo, int) or not isinstance(hi, int):
                raise Unsupported("a range whose bounds depend on the game", hint="write its bounds as numbers or parameters")
            if hi - lo >= MAX_RANGE:
                self.fail("range", e.span, "range", f"the range {lo:,}..{hi:,} has {hi - lo + 1:,} values; the limit is {MAX_RANGE:,}", g)
                return SymSet({})
            return SymSet(dict.fromkeys(range(lo, hi + 1), True))
        if isinstance(e, ir.Agg):
            return self.agg(e, env, g)
        if isinstance(e, ir.MapGet):
            m = self.ev(e.map, env, g)
            assert isinstance(m, SymMap)
            q = self.ev(e.index, env, g)
            part = as_bool(select(dict(enumerate(m.part)), q))
            self.fail("incomplete", e.span, "choice", "this player made no choice here", tm.and_(g, tm.not_(part)))
            return select(dict(enumerate(m.val)), q)
        if isinstance(e, ir.Fail):
            self.fail(e.kind, e.span, "match", e.message, g)
            return default_of(e.type)
        if isinstance(e, ir.SpaceAttr):
            board = self.rules.boards[e.board]
            return select({k: const_value(v[e.attr]) for k, v in enumerate(board.values)}, self.ev(e.obj, env, g))
        if isinstance(e, ir.RecordField):
            return self.record_field(e, env, g)
        raise AssertionError(type(e).__name__)  # pragma: no cover

    def make_set(self, items: list[tuple[Term, Value]], t: Type) -> SymSet:
        """A set from (condition, element) pairs."""
        mem: dict[int, list[Term]] = {}
        for cond, x in items:
            if isinstance(x, (bool, int)):
                mem.setdefault(int(x), []).append(cond)
                continue
            dom = self.member_domain(t.elem, x) if isinstance(t, TSet) else None
            f = as_fd(x, dom)
            for k, c in f.mem.items():
                mem.setdefault(k, []).append(tm.and_(cond, c))
        return SymSet({k: tm.or_all(v) for k, v in sorted(mem.items())})

    def member_domain(self, t: Type, x: Value) -> list[int] | None:
        """The values ``x`` can be as a member of a set of ``t``: the type's, or for numbers
        without a declared range, the bounds of ``x`` itself (a set of int that grows in play
        holds only the numbers its members can be)."""
        if isinstance(x, FD):  # its values are its own
            return None
        if not (isinstance(t, TInt) and (t.lo is None or t.hi is None)):
            return self.domain(t)
        bounds = tm.int_range(as_int(x))
        if bounds is None or bounds[1] - bounds[0] >= MAX_INT_MEMBERS:
            what = "no bounds" if bounds is None else f"{bounds[1] - bounds[0] + 1:,} values (verify follows at most {MAX_INT_MEMBERS})"
            raise Unsupported(f"a number as a member of a set of {t.show()}, where the number can have {what}",
                              hint="give the numbers a range, e.g. set of 1..10")
        return list(range(bounds[0], bounds[1] + 1))

    def binop(self, e: ir.BinOp, env: Env, g: Term) -> Value:
        op = e.op
        if op in ("+", "-"):
            total = self.zone_total(e, env, g)
            if total is not None:
                return total
        if op == "and":
            a = as_bool(self.ev(e.left, env, g))
            if a is False:
                return False
            return tm.and_(a, as_bool(self.ev(e.right, env, tm.and_(g, a))))
        if op == "or" and self.in_some_zone(e, env, g):
            return True
        if op == "or":
            a = as_bool(self.ev(e.left, env, g))
            if a is True:
                return True
            return tm.or_(a, as_bool(self.ev(e.right, env, tm.and_(g, tm.not_(a)))))
        a = self.ev(e.left, env, g)
        b = self.ev(e.right, env, g)
        if op in ("==", "!="):
            r = value_eq(a, b)
            return r if op == "==" else tm.not_(r)
        if op in ("<", "<=", ">", ">="):
            x, y = as_int(a), as_int(b)
            return {"<": tm.lt, "<=": tm.le, ">": tm.gt, ">=": tm.ge}[op](x, y)
        if op == "in":
            assert isinstance(b, SymSet)
            return b.member(a)
        if op == "union":
            keys = sorted(set(a.mem) | set(b.mem))
            return SymSet({k: tm.or_(a.mem.get(k, False), b.mem.get(k, False)) for k in keys})
        if op == "diff":
            return SymSet({k: tm.and_(m, tm.not_(b.mem.get(k, False))) for k, m in a.mem.items()}, a.origin, a.ver)
        x, y = as_int(a), as_int(b)
        if op == "+":
            return self.bounded(tm.add(x, y), e.span, g)
        if op == "-":
            return self.bounded(tm.sub(x, y), e.span, g)
        if op == "*":
            return self.bounded(tm.mul(x, y), e.span, g)
        if op in ("/", "%"):
            self.fail("range", e.span, op, "division by zero", tm.and_(g, tm.eq(y, 0)))
            return tm.div(x, y) if op == "/" else tm.mod(x, y)
        raise AssertionError(op)  # pragma: no cover

    def builtin(self, e: ir.Builtin, env: Env, g: Term) -> Value:
        op = e.op
        if op == "players":
            return SymSet(dict.fromkeys(range(self.n), True))
        if op == "num_players":
            return self.n
        if op == "winners":
            return self.winners
        if op == ir.IN_PLAY:
            t = e.type
            assert isinstance(t, TSet) and isinstance(t.elem, TComp)
            return SymSet(dict.fromkeys(in_play_of(self.rules, str(t.elem.kind), self.out), True))
        args = [self.ev(a, env, g) for a in e.args]
        if op in ir.BOARD_BUILTINS:
            return self.board_builtin(e, args, g)
        if op in ("length", "entries"):
            rec = args[0]
            assert isinstance(rec, SymRecord)
            if op == "length":
                return rec.length
            if rec.slots is None:
                raise Unsupported("the entries of a record in a state of a game of any length")
            return SymSet({i + 1: ex for i, (ex, _) in enumerate(rec.slots)})
        if op in ("next", "prev"):
            d = 1 if self.rules.game.order == "clockwise" else -1
            step = d if op == "next" else -d
            x = args[0]
            if isinstance(x, (bool, int)):
                return (int(x) + step) % self.n
            f = as_fd(x, list(range(self.n)))
            return FD({(q + step) % self.n: c for q, c in f.mem.items()})
        if op == "seat":
            return tm.add(as_int(args[0]), 1)
        if op == "player":
            x = as_int(args[0])
            self.fail("range", e.span, "player", "there is no such player", tm.and_(g, tm.or_(tm.lt(x, 1), tm.gt(x, self.n))))
            if isinstance(x, int) and not 1 <= x <= self.n:
                return 0  # play stops here (the failure above): any seat will do, one that exists
            return tm.sub(x, 1)
        if op == "size":
            s = args[0]
            assert isinstance(s, SymSet)
            if self.exact_counts and s.whole and s.origin in self.counts and s.ver == self.loc_ver:
                return self.counts[s.origin]  # a whole zone of this state: its count, kept exact by every move
            return s.size()
        if op == "where":
            return self.where(args[0])
        x = as_int(args[0])
        if op == "abs":
            return tm.ite(tm.lt(x, 0), tm.neg(x), x)
        y = as_int(args[1])
        if op == "min":
            return tm.min_of(x, y)
        if op == "max":
            return tm.max_of(x, y)
        raise AssertionError(op)  # pragma: no cover

    def agg(self, e: ir.Agg, env: Env, g: Term) -> Value:
        if e.op == "sum":
            total = self.zone_total(e, env, g)
            if total is not None:
                return total
        coll = self.ev(e.coll, env, g)
        assert isinstance(coll, SymSet)
        op = e.op
        done: Term = False  # any/all: the answer is already known
        items: list[tuple[Term, Value]] = []
        inner = env.new_child()
        boolean = isinstance(e.coll.type, TSet) and isinstance(e.coll.type.elem, TBool)
        for k, m in sorted(coll.mem.items()):
            if m is False:
                continue
            inner[e.var] = bool(k) if boolean else k  # a set of booleans holds 0 and 1
            f = as_bool(self.ev(e.filt, inner, tm.and_(g, m, tm.not_(done)))) if e.filt is not None else True
            active = tm.and_(m, f, tm.not_(done))
            if active is False:
                continue
            v: Value = k if op == "count" else self.ev(e.elem, inner, tm.and_(g, active))
            items.append((active, v))
            if op == "any":
                done = tm.or_(done, tm.and_(active, as_bool(v)))
            elif op == "all":
                done = tm.or_(done, tm.and_(active, tm.not_(as_bool(v))))
        if op == "set":
            result = self.make_set(items, e.type)
            if isinstance(e.elem, ir.Local) and e.elem.name == e.var:
                result.origin, result.ver = coll.origin, coll.ver
            return result
        if op == "any":
            return tm.or_all(tm.and_(a, as_bool(v)) for a, v in items)
        if op == "all":
            return tm.and_all(tm.implies(a, as_bool(v)) for a, v in items)
        if op == "count":
            return tm.count_true(a for a, _ in items)
        if op == "sum":
            return self.bounded(tm.add_all(tm.ite(a, as_int(v), 0) for a, v in items), e.span, g)
        if op in ("max", "min"):
            none = tm.not_(tm.or_all(a for a, _ in items))
            self.fail("incomplete", e.span, op, f"{op} of nothing: the collection is empty", tm.and_(g, none))
            best: Term = 0
            have: Term = False
            for a, v in items:
                x = as_int(v)
                better = tm.gt(x, best) if op == "max" else tm.lt(x, best)
                best = tm.ite(tm.and_(a, tm.or_(tm.not_(have), better)), x, best)
                have = tm.or_(have, a)
            return best
        if op == "the":
            self.fail("incomplete", e.span, "the", "'the' needs exactly one, but none or several qualify",
                      tm.and_(g, tm.not_(tm.pb_eq([a for a, _ in items], 1))))
            out: Value
            if items and all(isinstance(v, int) and not isinstance(v, bool) for _, v in items):
                # one selector per candidate: where exactly one qualifies, exactly one holds
                sel: dict[int, list[Term]] = {}
                for a, v in items:
                    sel.setdefault(v, []).append(a)
                out = FD({v: tm.or_all(cs) for v, cs in sorted(sel.items())})
            else:
                out = default_of(e.type)
                for a, v in reversed(items):
                    out = merge(a, v, out)
            if isinstance(out, FD) and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
                out.origin, out.ver = coll.origin, coll.ver
            return out
        raise AssertionError(op)  # pragma: no cover

    def call(self, e: ir.CallDef, args: list[Value], g: Term) -> Value:
        """A definition, evaluated once per state and arguments; its obligations and reached
        cases are kept relative to the call, then placed under the caller's guard."""
        d = self.shadow[e.name] if self.mode == 2 and e.name in self.shadow else self.p.defs[e.name]
        loc, names, win = self.reads_of(e.name)
        # the locations with whether the other reading's state is compared (it adds obligations)
        key = (self.mode, e.name, (self.loc_ver, not self.no_compare and bool(self.alt_loc)) if loc else None,
               *(self.var_ver[v] for v in names), self.win_ver if win else None, *(value_key(a) for a in args))
        cached = self.def_cache.get(key)
        if cached is None:
            saved_errs, saved_obl, saved_reach, saved_mode = self.errs, self.obligations, self.reach, self.mode
            compared = self.mode == 0 and e.name in self.compare
            try:
                if compared:
                    self.errs, self.obligations, self.reach, self.mode = [], [], {}, 2
                    other = self.def_body(self.shadow.get(e.name, d), args)
                    other_errors = [o.cond for o in self.obligations]
                    self.mode = 1
                self.errs, self.obligations, self.reach = [], [], {}
                value = self.def_body(d, args)
                if compared:
                    # different values, or one version fails where the other does not (both
                    # failing stop the game alike)
                    err, other_err = tm.or_all(o.cond for o in self.obligations), tm.or_all(other_errors)
                    self.fail("diverge", d.span, e.name, f"the two versions of '{e.name}' disagree",
                              tm.or_(tm.ne(err, other_err), tm.and_(tm.not_(err), tm.not_(value_eq(value, other)))))
                cached = (value, [(o, o.cond) for o in self.obligations], [(r, r.cond) for r in self.reach.values()])
            finally:
                self.errs, self.obligations, self.reach, self.mode = saved_errs, saved_obl, saved_reach, saved_mode
            self.def_cache[key] = cached
        value, obls, reaches = cached
        for o, cond in obls:
            self.fail(o.kind, o.span, o.subject, o.message, tm.and_(g, cond), o.part)
        for r, cond in reaches:
            self.reached(r.label, r.span, r.subject, r.what, tm.and_(g, cond))
        return value

    def reads_of(self, name: str) -> tuple[bool, tuple[str, ...], bool]:
        """What a definition reads of the state, through the definitions it calls, in either
        version: (the components' locations, the variables, the winners)."""
        got = self.def_reads.get(name)
        if got is not None:
            return got
        self.def_reads[name] = (True, tuple(self.var_ver), True)  # while being worked out: everything
        loc, names, win = False, set(), False
        for d in (self.p.defs.get(name), self.shadow.get(name)):
            if d is None:
                continue
            for x in walk_exprs([d.body, d.otherwise, *(part for c in d.cases or [] for part in (c.guard, c.value))]):
                if isinstance(x, ir.ZoneRef) or (isinstance(x, ir.Builtin) and x.op == "where"):
                    loc = True
                elif isinstance(x, ir.VarRef):
                    names.add(x.name)
                elif isinstance(x, ir.Builtin) and x.op == "winners":
                    win = True
                elif isinstance(x, ir.CallDef) and x.name != name:
                    sub = self.reads_of(x.name)
                    loc, win = loc or sub[0], win or sub[2]
                    names.update(sub[1])
        got = self.def_reads[name] = (loc, tuple(sorted(names)), win)
        return got

    def def_body(self, d: ir.Definition, args: list[Value]) -> Value:
        env: Env = ChainMap({n: v for (n, _), v in zip(d.formals, args)})
        if d.body is not None:
            return self.ev(d.body, env, True)
        assert d.cases is not None
        guards = [as_bool(self.ev(c.guard, env, True)) for c in d.cases]
        over: dict[str, list[Term]] = {}
        for c, gd in zip(d.cases, guards):
            for o in c.overrides:
                over.setdefault(o, []).append(gd)
        wins = [tm.and_(gd, tm.not_(tm.or_all(over.get(c.name, [])))) for c, gd in zip(d.cases, guards)]
        values = [self.ev(c.value, env, w) if w is not False else default_of(d.ret) for c, w in zip(d.cases, wins)]
        for c, w in zip(d.cases, wins):
            self.reached(ir.label_case(d.name, c.name, d.reading), c.span, d.name, f"case '{c.name}' of '{d.name}'", w)
        none = tm.not_(tm.or_all(wins))
        if d.otherwise is None:
            self.fail("incomplete", d.span, d.name, f"no case of '{d.name}' applies", none)
        for i in range(len(wins)):
            for j in range(i + 1, len(wins)):
                both = tm.and_(wins[i], wins[j])
                if both is False:
                    continue
                self.fail(
                    "conflict", d.cases[i].span, d.name,
                    f"cases '{d.cases[i].name}' and '{d.cases[j].name}' of '{d.name}' both apply and give different values",
                    tm.and_(both, tm.not_(value_eq(values[i], values[j]))),
                    part=f"cases '{d.cases[i].name}' and '{d.cases[j].name}'",
                )
        out: Value = self.ev(d.otherwise, env, none) if d.otherwise is not None else default_of(d.ret)
        for w, v in reversed(list(zip(wins, values))):
            out = merge(w, v, out)
        return out


    # ---- records ------------------------------------------------------------------------

    def record_field(self, e: ir.RecordField, env: Env, g: Term) -> Value:
        rec = self.ev(e.record, env, g)
        pos = as_int(self.ev(e.pos, env, g))
        assert isinstance(rec, SymRecord)
        t = e.record.type
        assert isinstance(t, TRecord)
        if rec.slots is None:
            raise Unsupported("the entries of a record in a state of a game of any length")
        k = [f for f, _ in t.fields].index(e.field)
        if isinstance(pos, int):
            if not 1 <= pos <= len(rec.slots):
                self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", g)
                return default_of(t.fields[k][1])
            exists, fields = rec.slots[pos - 1]
            self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", tm.and_(g, tm.not_(exists)))
            return fields[k]
        there = tm.or_all(tm.and_(tm.eq(pos, i + 1), ex) for i, (ex, _) in enumerate(rec.slots))
        self.fail("range", e.span, t.name, f"record '{t.name}' has no entry there", tm.and_(g, tm.not_(there)))
        if not rec.slots:
            return default_of(t.fields[k][1])
        out: Value = rec.slots[-1][1][k]
        for i in range(len(rec.slots) - 2, -1, -1):
            out = merge(tm.eq(pos, i + 1), rec.slots[i][1][k], out)
        return out
