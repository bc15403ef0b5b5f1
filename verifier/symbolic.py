"""Bounded symbolic execution of the IR: the interpreter's semantics over terms.

Every chance outcome and every player choice becomes a set of boolean selectors (one per legal
value, exactly one of them true where the decision is reached); loops are unrolled (fixed counts
exactly, open-ended loops up to a bound); branches run under guards and merge with if-then-else.
Where a component is, which value a choice took, and which element a ``the`` picked are all kept
as one boolean per possible value ("one-hot"), so the solver works on booleans and cardinality
constraints rather than on arithmetic over ids. The result is a :class:`Trace`: the outcome as
terms, the decisions in the order they are made, the legality constraints, and the obligations
(situations no rule settles) with the condition under which each arises.

This module builds conditions only; it imports no solver (see z3backend.py). It mirrors
interpreter/semantics.py statement by statement; tests check that the two agree.
"""

from __future__ import annotations

from collections import ChainMap
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TRecord, TText, Type

from . import terms as tm
from .symabstract import SymAbstract
from .symvalues import (
    FD,
    MAX_DRAW_CASES,
    MAX_UNROLL,
    Decision,
    Env,
    SymMap,
    SymSet,
    Trace,
    Unsupported,
    Value,
    _upper_bound,
    append_record,
    as_bool,
    as_fd,
    as_int,
    differing,
    merge,
    proc_env,
    value_eq,
)
from .terms import Term


class SymExec(SymAbstract):
    """One symbolic run of the flow (``run``): statements, decisions and loops, and the two readings
    of a procedure side by side. It builds on SymAbstract (abstract states, symabstract.py), then
    SymExpressions (expressions, symexpr.py), then SymState (the state and its moves, symstate.py)."""

    # ---- running ----------------------------------------------------------------------------

    def flow_obligation(self) -> None:
        """At the end of the flow: some 'end winners' must have been reached."""
        self.fail(
            "incomplete", self.rules.flow[-1].span if self.rules.flow else Span(1, 1, 1, 1), "flow",
            "the flow ends without a result: no 'end winners' is reached",
            tm.and_(tm.not_(self.ended), tm.not_(self.stopped), tm.not_(self.truncated)),
        )

    def run(self) -> Trace:
        self.block(self.rules.flow, ChainMap(), True)
        # true by construction, but the solver would have to rediscover it through every move:
        # each component is in exactly one zone, and each zone holds as many as its count says
        # (a component out of play is in none)
        for cid, loc in enumerate(self.loc):
            if cid not in self.out:
                self.constraints.append(tm.pb_eq(loc.values(), 1))
        # the domains of the free data this run read (made as it read them): without them a model
        # could give an attribute two values at once, or none, and be no table at all
        self.constraints[self.data_known:self.data_known] = self.attrs.constraints[self.data_known:]

        self.flow_obligation()
        if self.watch_invariants:
            done = tm.and_(self.ended, tm.not_(self.stopped))
            for inv in self.rules.invariants:
                ok = self.eval_pure(inv.expr, ChainMap(), done)
                # one violation per conjunct (a player's part of an 'all'): the same goal, which
                # the solver can take one part at a time
                for part in (ok.args if isinstance(ok, tm.T) and ok.op == "and" else [ok]):
                    self.invariant_violations.append((inv, tm.and_(done, tm.not_(part))))
            self.abstract_invariants([inv for inv in self.rules.invariants if inv.at_end])
        scores = {v.name: [self.vars[v.name][q] for q in range(self.n)] for v in self.rules.vars.values() if v.score}
        return Trace(
            self.n, dict(self.p.readings), self.decisions, self.constraints, self.obligations, self.reach,
            self.ended, self.stopped, self.winners, scores, self.invariant_violations, self.loop_heads,
            self.truncated, list(self.attrs.vars), self.abstract, len(self.attrs.constraints), self.invariant_abstract,
            self.drawn,
        )

    def block(self, stmts: list[ir.Stmt], env: Env, g: Term) -> None:
        env = env.new_child()  # let binds in this block; set finds the block that bound the name
        for s in stmts:
            live = self.live(g)
            if live is False:
                return
            self.struct = g
            self.stmt(s, env, live)

    def stmt(self, s: ir.Stmt, env: Env, g: Term) -> None:
        """Execute one statement where ``g`` holds (the path to it, the game not over);
        ``self.struct`` is the path alone, which keeps zone counts independent of errors."""
        try:
            self.stmt1(s, env, g)
        except Unsupported as exc:
            if exc.span is None:  # not met in an expression: the statement's own
                exc.span = s.span
                exc.args = (exc.what, exc.span, exc.hint)
            raise

    def stmt1(self, s: ir.Stmt, env: Env, g: Term) -> None:
        self.errs = []
        self.site = s.sid
        struct = self.struct
        if isinstance(s, ir.Let):
            env[s.name] = self.ev(s.value, env, g)
            self.settle()
        elif isinstance(s, ir.Assign):
            v = self.ev(s.value, env, g)
            self.check_range(v, s.type, s.span, s.name, tm.and_(g, tm.not_(tm.or_all(self.errs))))
            idx = self.entry(s.index, env, g, self.rules.vars[s.name].index, s.name) if not s.local else None
            ok = tm.and_(g, self.settle())
            if s.local:
                scope = next(m for m in env.maps if s.name in m)
                scope[s.name] = merge(ok, v, scope[s.name])
            elif idx is None:
                self.vars[s.name] = merge(ok, v, self.vars[s.name])
                self.var_ver[s.name] = next(self.fresh)
            else:
                table = self.vars[s.name]
                f = as_fd(idx, sorted(table))
                for k, c in f.mem.items():
                    if k in table:
                        table[k] = merge(tm.and_(ok, c), v, table[k])
                self.var_ver[s.name] = next(self.fresh)
            self.version += 1
        elif isinstance(s, ir.Move):
            what = self.ev(s.what, env, g)
            idx = self.entry(s.index, env, g, self.rules.zones[s.zone].index, s.zone)
            struct = self.struct
            ok = tm.and_(g, self.settle())
            zid = self.zone_id(s.zone, idx)
            known = self.known_move(what, zid)
            if isinstance(what, SymSet):
                for c, m in sorted(what.mem.items()):
                    self.move(c, zid, tm.and_(ok, m), count=known is None)
            else:
                f = as_fd(what, self.comp_domain(s.what.type))
                # one component of several moves: a zone gains or loses one where any of them
                # came or left (one boolean, where a sum over the components is an adder)
                one: dict[int, tuple[list[Term], list[Term]]] | None = {} if self.exact_counts and known is None else None
                for c, m in sorted(f.mem.items()):
                    self.move(c, zid, tm.and_(ok, m), count=known is None, one=one)
                for z, (came, left) in sorted((one or {}).items()):
                    self.counts[z] = tm.sub(tm.add(self.counts[z], tm.bool_to_int(tm.or_all(came))), tm.bool_to_int(tm.or_all(left)))
            if known is not None:
                src, moved = known
                assert isinstance(zid, int)
                step = tm.mul(moved, tm.bool_to_int(struct))
                self.counts[src] = tm.sub(self.counts[src], step)
                self.counts[zid] = tm.add(self.counts[zid], step)
            self.version += 1
            self.loc_ver = next(self.fresh)
        elif isinstance(s, ir.Draw):
            self.draw(s, env, g)
        elif isinstance(s, ir.Choose):
            self.choose(s, env, g)
        elif isinstance(s, ir.ChooseEach):
            self.choose_each(s, env, g)
        elif isinstance(s, ir.If):
            c = as_bool(self.ev(s.cond, env, g))
            ok = tm.and_(g, self.settle())
            then_g = tm.and_(ok, c)
            else_g = tm.and_(ok, tm.not_(c))
            self.reached(ir.label_if(s.sid, True), s.span, "if", "the 'then' branch of this if", then_g)
            self.reached(ir.label_if(s.sid, False), s.span, "if", "the 'else' branch of this if" if s.else_ else "the case where this if does nothing", else_g)
            # nested blocks follow the path; each statement in them adds "the game goes on" itself
            if then_g is not False:
                self.block(s.then, env, tm.and_(struct, c))
            if else_g is not False:
                self.block(s.else_, env, tm.and_(struct, tm.not_(c)))
        elif isinstance(s, ir.ForEach):
            self.for_each(s, env, g, struct)
        elif isinstance(s, ir.Repeat):
            count = as_int(self.ev(s.count, env, g))
            ok = tm.and_(g, self.settle())
            bound = _upper_bound(s.count.type, self.loop_bound) if isinstance(count, tm.T) else max(0, int(count))
            too_many = bound > MAX_UNROLL
            if too_many:
                # more passes than a trace can hold: explored as an open loop is, and a game that
                # goes on past them is reported (truncated below), never cut silently
                bound = self.loop_bound
            self.path.append(self.ordinals[s.sid])
            for i in range(bound):
                gi = tm.and_(struct, tm.lt(i, count)) if isinstance(count, tm.T) else struct
                self.path.append(f"it{i}")
                self.block(s.body, env, gi)
                self.path.pop()
            if isinstance(count, tm.T) or too_many:
                self.truncated = tm.or_(self.truncated, tm.and_(self.live(ok), tm.gt(count, bound)))
            self.path.pop()
        elif isinstance(s, (ir.RepeatUntil, ir.While)):
            self.errs = None
            self.open_loop(s, env, struct)
        elif isinstance(s, ir.CallProc):
            proc = self.p.procs[s.name]
            args = [self.ev(a, env, g) for a in s.args]
            ok = tm.and_(g, self.settle())
            self.reached(ir.label_proc(s.name, proc.reading), proc.span, s.name, f"procedure '{s.name}'", ok)
            assert proc.body is not None
            self.path.append(self.ordinals[s.sid])
            if s.name in self.displaced and not self.no_compare:
                self.both_versions(proc, self.displaced[s.name], args, struct)
            elif s.name in self.compare_procs and self.mode == 0 and not self.no_compare:
                from .product import both_readings  # the product's module builds on this one

                both_readings(self, proc, args, struct, self.live(ok))
            else:
                self.block(proc.body, proc_env(proc, args), struct)
            self.path.pop()
        elif isinstance(s, ir.End):
            # where the game reaches its end, every count followed the path: tell the solver
            for (zname, _idx), zid in self.zone_ids.items():
                if zid in self.counts:
                    members = [self.loc[c].get(zid, False) for c in self.zone_kinds[zname]]
                    self.constraints.append(tm.implies(g, tm.eq(tm.count_true(members), self.counts[zid])))
            if self.compare_ends:
                self.abstract.append(self.end_comparison(s, env))
            else:
                self.abstract_check(s, lambda: self.ev(s.winners, env, True))
            w = self.ev(s.winners, env, g)
            ok = tm.and_(g, self.settle())
            assert isinstance(w, SymSet)
            self.winners = merge(ok, w, self.winners)
            self.ended = tm.or_(self.ended, ok)
            if s.draw:
                self.drawn = tm.or_(self.drawn, ok)
            self.reached(ir.label_end(s.sid), s.span, "end", "this end of the game", ok)
        elif isinstance(s, ir.Say):
            # a say statement only logs, but its expressions may still fail, as in the interpreter
            self.no_compare += 1  # what it logs is no move and no result
            for part in s.parts:
                if isinstance(part, ir.Expr) and not isinstance(part.type, TText):
                    self.ev(part, env, g)
            self.no_compare -= 1
            self.settle()
        elif isinstance(s, ir.Shuffle):
            if s.index is not None:
                self.ev(s.index, env, g)
            self.settle()
        elif isinstance(s, ir.Reveal):
            # what players see changes no move and no result; its expressions may still fail
            self.no_compare += 1
            self.ev(s.what, env, g)
            self.ev(s.who, env, g)
            self.no_compare -= 1
            self.settle()
        elif isinstance(s, ir.Observe):
            self.observe(s, env, g)
        elif isinstance(s, ir.Append):
            self.append(s, env, g)
        else:  # pragma: no cover
            raise AssertionError(type(s).__name__)

    # ---- decisions and loops ----------------------------------------------------------------

    def new_decision(self, s: ir.Stmt, kind: str, active: Term, player: Value, options: SymSet, t: Type | None,
                     extra: str = "", node: int | None = None, count: int = 1) -> Decision:
        key = self.key(s, extra)
        sel: dict[int, Term] = {k: tm.bool_var(f"{self.sel_prefix}|{key}|{k}") for k, m in sorted(options.mem.items()) if m is not False}
        if node is None:
            self.nodes += 1
            node = self.nodes
        d = Decision(key, kind, s, active, sel, player, options, len(self.decisions), node, t, count)  # type: ignore[arg-type]
        d.origin = (options.origin, options.ver)
        self.decisions.append(d)
        # only where the decision is reached: two readings share these variables, and a decision
        # one reading reaches may not exist in the other
        legal = [tm.implies(b, options.mem[k]) for k, b in sel.items()]
        d.rule = tm.implies(active, tm.and_all([tm.pb_eq(sel.values(), count), *legal]))
        self.constraints.append(d.rule)
        return d

    def draw(self, s: ir.Draw, env: Env, g: Term) -> None:
        count = self.ev(s.count, env, g)
        sidx = self.entry(s.src_index, env, g, self.rules.zones[s.src].index, s.src)
        didx = self.entry(s.dst_index, env, g, self.rules.zones[s.dst].index, s.dst)
        struct = self.struct
        ok = tm.and_(g, self.settle())
        if isinstance(count, (bool, int)):
            value = self.draw_cards(s, max(0, int(count)), ok, struct, sidx, didx, "")
            if s.bind is not None and value is not None:
                env[s.bind] = value
            return
        # a number of cards the game decides: one draw per number it can be, each where the
        # count is that number, as ``if k == 1 { draw 1 … } else if k == 2 …`` would be
        cnt = as_int(count)
        bounds = tm.int_range(cnt)
        if bounds is None:
            raise Unsupported("a draw of a number of cards without a range", s.count.span,
                              hint="give the number a range, e.g. a variable of type 0..5")
        lo, hi = max(0, bounds[0]), bounds[1]
        cap = len(self.rules.components)  # more than every component is always too many
        if min(hi, cap) - lo + 1 > MAX_DRAW_CASES:
            raise Unsupported(f"a draw of a number of cards that depends on the game and can be any of {min(hi, cap) - lo + 1:,} numbers "
                              f"(verify follows at most {MAX_DRAW_CASES})", s.count.span,
                              hint=f"give the number a range of at most {MAX_DRAW_CASES} values, or draw one card at a time in a loop")
        live = self.live(ok)
        if live is False:
            return
        # one message for every number: the findings group the failures of a statement by it
        short = f"the cards to be drawn from '{s.src}' are more than it has"
        if hi > cap:
            self.fail("exhaustion", s.span, s.src, short, tm.and_(live, tm.lt(cap, cnt)))
        bound: Value | None = None
        for k in range(lo, min(hi, cap) + 1):
            here = tm.eq(cnt, k)
            if here is False:
                continue
            value = self.draw_cards(s, k, tm.and_(ok, here), tm.and_(struct, here), sidx, didx, f"#{k}", short)
            if value is not None:
                bound = value if bound is None else merge(here, value, bound)
        if s.bind is not None and bound is not None:
            env[s.bind] = bound

    def draw_cards(self, s: ir.Draw, n: int, ok: Term, struct: Term, sidx: Value | None, didx: Value | None, extra: str,
                   message: str | None = None) -> Value | None:
        """Draw ``n`` cards where ``ok`` holds (``struct``: the path alone); the value of the card
        drawn (for ``draw … as c``), or None where nothing is drawn."""
        live = self.live(ok)
        if n == 0 or live is False:
            return None
        self.check_always_invariants(live)
        src = self.zone_members(s.src, sidx)
        if self.alt_loc and not self.no_compare:  # the draw reads the zone itself
            other, _ = self.in_other(lambda: self.zone_members(s.src, sidx))
            self.diverge(s.span, tm.and_(live, tm.not_(value_eq(src, other))))
        short = tm.lt(self.zone_count(s.src, sidx), n)
        message = message or f"{n} card{'s' if n != 1 else ''} must be drawn from '{s.src}', which has fewer"
        self.fail("exhaustion", s.span, s.src, message, tm.and_(live, short))
        active = tm.and_(live, tm.not_(short))
        # several draws in a row are one choice of a subset: the order of the draws changes nothing
        d = self.new_decision(s, "chance" if n == 1 else "deal", active, -1, src, None, extra=extra, count=n)
        dst = self.zone_id(s.dst, didx)
        src_id = self.zone_id(s.src, sidx)
        for c, b in d.sel.items():
            # a selector is only constrained where its draw is reached: guard the move by that
            self.move(c, dst, tm.and_(active, b), count=False)
        # exactly n cards leave the source and arrive at the destination (counted along the path:
        # where the game has stopped nothing is observed, so the count need not follow the stop)
        moved = tm.mul(n, tm.bool_to_int(struct))
        for zid, sign in ((src_id, -1), (dst, 1)):
            if isinstance(zid, int):
                if zid in self.counts:
                    self.counts[zid] = tm.add(self.counts[zid], tm.mul(sign, moved))
            else:
                assert isinstance(zid, FD)
                for z, cz in zid.mem.items():
                    if z in self.counts:
                        self.counts[z] = tm.add(self.counts[z], tm.mul(sign, tm.mul(n, tm.bool_to_int(tm.and_(struct, cz)))))
        self.version += 1
        self.loc_ver = next(self.fresh)
        return d.value

    def choose(self, s: ir.Choose, env: Env, g: Term) -> None:
        options = self.ev(s.options, env, g)
        chooser = self.ev(s.chooser, env, g)
        ok = tm.and_(g, self.settle())
        assert isinstance(options, SymSet)
        live = self.live(ok)
        if live is False:
            return
        self.check_always_invariants(live)
        empty = tm.not_(tm.or_all(options.mem.values()))
        self.fail("incomplete", s.span, s.label, f"a player must choose ({s.label}) but has no option", tm.and_(live, empty))
        active = tm.and_(live, tm.not_(empty))
        d = self.new_decision(s, "player", active, chooser, options, s.type)
        env[s.bind] = d.value

    def choose_each(self, s: ir.ChooseEach, env: Env, g: Term) -> None:
        who = self.ev(s.players, env, g)
        assert isinstance(who, SymSet)
        per: list[SymSet | None] = []
        for q in range(self.n):
            part = who.mem.get(q, False)
            if part is False:
                per.append(None)
                continue
            inner = env.new_child({s.pvar: q})
            per.append(self.ev(s.options, inner, tm.and_(g, part)))
        ok = tm.and_(g, self.settle())
        live = self.live(ok)
        if live is False:
            env[s.bind] = SymMap([False] * self.n, [0] * self.n)
            return
        self.check_always_invariants(live)
        empties = []
        for q, opts in enumerate(per):
            if opts is None:
                continue
            empty = tm.and_(who.mem.get(q, False), tm.not_(tm.or_all(opts.mem.values())))
            empties.append(empty)
            self.fail("incomplete", s.span, s.label, f"Player {q + 1} must choose ({s.label}) but has no option", tm.and_(live, empty))
        live = tm.and_(live, tm.not_(tm.or_all(empties)))
        self.nodes += 1
        node = self.nodes
        parts: list[Term] = []
        vals: list[Value] = []
        for q, opts in enumerate(per):
            part = tm.and_(live, who.mem.get(q, False)) if opts is not None else False
            parts.append(part)
            if opts is None:
                vals.append(0)
                continue
            d = self.new_decision(s, "simultaneous", part, q, opts, s.type, extra=f"@{q}", node=node)
            vals.append(d.value)
        env[s.bind] = SymMap(parts, vals)

    def for_each(self, s: ir.ForEach, env: Env, g: Term, struct: Term) -> None:
        coll = self.ev(s.coll, env, g)
        start = self.ev(s.start, env, g) if s.start is not None else None
        ok = tm.and_(g, self.settle())
        assert isinstance(coll, SymSet)
        self.path.append(self.ordinals[s.sid])
        order: list[tuple[Value, Term]]
        if start is None:
            order = sorted(coll.mem.items())
        else:
            d = 1 if self.rules.game.order == "clockwise" else -1
            order = []
            for k in range(self.n):
                if isinstance(start, (bool, int)):
                    x: Value = (int(start) + d * k) % self.n
                else:
                    f = as_fd(start, list(range(self.n)))
                    x = FD({(q + d * k) % self.n: c for q, c in f.mem.items()})
                order.append((x, coll.member(x)))
        for i, (x, m) in enumerate(order):
            if tm.and_(ok, m) is False:
                continue
            self.path.append(f"it{i}")
            self.block(s.body, env.new_child({s.var: x}), tm.and_(struct, m))
            self.path.pop()
        self.path.pop()

    def open_loop(self, s: ir.RepeatUntil | ir.While, env: Env, struct: Term) -> None:
        self.path.append(self.ordinals[s.sid])
        running = struct
        heads: list[dict[str, Any]] = []
        bound = self.drained.get(s.sid, self.loop_bound)
        for i in range(bound + 1):
            live = self.live(running)
            heads.append(self.snapshot(live))
            heads[-1]["prefix"] = "/".join([*self.path, f"it{i}"]) + "/"  # of the keys of this pass's decisions
            self.errs = []
            c = as_bool(self.ev(s.cond, env, live))
            ok = tm.and_(live, self.settle())
            more = tm.not_(c) if isinstance(s, ir.RepeatUntil) else c
            go = tm.and_(ok, more)
            if i == bound:
                if s.sid not in self.drained:  # a drained loop cannot go on: proven by the caller
                    self.truncated = tm.or_(self.truncated, go)
                break
            self.reached(f"loop{s.sid}:{i}", s.span, "loop", f"iteration {i + 1} of this loop", go)
            self.path.append(f"it{i}")
            self.block(s.body, env, tm.and_(running, more))
            self.path.pop()
            running = tm.and_(running, more)
        self.loop_heads[s.sid] = heads
        self.path.pop()

    # ---- two readings of a procedure, side by side ------------------------------------------

    def both_versions(self, proc: ir.Procedure, other: ir.Procedure, args: list[Value], struct: Term) -> None:
        """A displaced procedure: the other version runs in the other state first, then this one
        here; the components they leave in different places get their other location (versions
        that only move components and evaluate: see __init__)."""
        assert proc.body is not None and other.body is not None
        env = proc_env(proc, args)
        stopped_before = self.stopped
        saved = (self.loc, self.counts, self.obligations, self.reach, self.stopped, self.ended, self.errs, self.loc_ver)
        self.loc, self.counts = self.other_state()
        self.loc_ver = next(self.fresh)  # a state of its own: no call cached elsewhere applies
        self.obligations, self.reach, self.moves = [], {}, {}
        self.no_compare += 1
        try:
            self.block(other.body, env, struct)
            other_loc, other_moves = self.loc, self.moves
            failed = tm.or_all([*(o.cond for o in self.obligations), tm.and_(self.stopped, tm.not_(stopped_before))])
        finally:
            self.loc, self.counts, self.obligations, self.reach, self.stopped, self.ended, self.errs, self.loc_ver = saved
        old = {c: differing(alt, self.loc[c]) for c, alt in self.alt_loc.items()}
        self.moves, start, stopped = {}, len(self.obligations), self.stopped
        try:
            self.block(proc.body, env.new_child(), struct)
        finally:
            self.no_compare -= 1
            these_moves, self.moves = self.moves, None
        failed_here = tm.or_all([*(o.cond for o in self.obligations[start:]), tm.and_(self.stopped, tm.not_(stopped))])
        self.diverge(proc.span, tm.and_(struct, tm.not_(value_eq(failed_here, failed))))
        self.version += 1  # the other state has changed
        self.loc_ver = next(self.fresh)
        for c in sorted({*other_moves, *these_moves, *old}):
            when_a, where_a = these_moves.get(c, (False, set()))
            when_b, where_b = other_moves.get(c, (False, set()))
            here = self.loc[c]
            if when_a is False or when_b is False:  # one version alone moves it
                keep = {*here, *other_loc[c]}
            else:
                # both take it away from where it was, under the same condition (or the states
                # differ there too): outside the zones either puts it in, its place is then the
                # same term in both states, and the comparisons stay small
                self.diverge(proc.span, tm.and_(struct, tm.not_(value_eq(when_a, when_b))))
                keep = where_a | where_b | old.get(c, set())
            there = {z: m for z, m in other_loc[c].items() if z in keep}
            there.update({z: m for z, m in here.items() if z not in keep})
            if not differing(there, here):
                self.alt_loc.pop(c, None)
            else:
                self.alt_loc[c] = there

    # ---- appended values and observations ---------------------------------------------------

    def append(self, s: ir.Append, env: Env, g: Term) -> None:
        values = [self.ev(v, env, g) for v in s.values]
        idx = self.ev(s.index, env, g) if s.index is not None else None
        t = self.rules.vars[s.name].type
        assert isinstance(t, TRecord)
        for (fname, ft), v in zip(t.fields, values):
            self.check_range(v, ft, s.span, f"{s.name}.{fname}", tm.and_(g, tm.not_(tm.or_all(self.errs or []))))
        ok = tm.and_(g, self.settle())
        entry = tuple(values)
        if idx is None:
            self.vars[s.name] = append_record(self.vars[s.name], ok, entry)
        else:
            table = self.vars[s.name]
            f = as_fd(idx, sorted(table))
            for k, c in f.mem.items():
                if k in table:
                    table[k] = append_record(table[k], tm.and_(ok, c), entry)
        self.var_ver[s.name] = next(self.fresh)
        self.version += 1

    def observe(self, s: ir.Observe, env: Env, g: Term) -> None:
        """What the observer learns is bound; the error of a perception is a chance decision."""
        value = self.ev(s.what, env, g)
        self.ev(s.observer, env, g)
        ref = self.ev(s.ref, env, g) if s.ref is not None else None
        ok = tm.and_(g, self.settle())
        learnt: Value = value
        if s.mode == "than":
            x, r = as_int(value), as_int(ref)
            learnt = tm.ite(tm.lt(x, r), -1, tm.ite(tm.eq(x, r), 0, 1))
        elif s.mode == "within" and s.amount > 0:
            live = self.live(ok)
            if live is not False:
                self.check_always_invariants(live)
            options = SymSet(dict.fromkeys(range(2 * s.amount + 1), True))
            d = self.new_decision(s, "chance", live, -1, options, None)
            learnt = tm.add(as_int(value), tm.sub(as_int(d.value), s.amount))
        if s.bind is not None:
            env[s.bind] = learnt
