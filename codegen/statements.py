"""Statements: the ``s_*`` visitors of the flow (``Statements``): blocks, locals and variables,
moves, conditionals and loops (a loop that holds decisions is a continuation, see ``Cont``),
procedure calls (inlined), the end of the game.  Decisions are in ``decisions.py``.
"""

from __future__ import annotations

import re

from rulecheck.dsl import ir
from rulecheck.dsl.types import TAny, TInt, TSet
from rulecheck.dsl.walk import walk_stmts

from .layout import BlockRec, Cont, Loc, Piece, Scope, at, bare, members, rep_of, zone_update
from .literals import ident, pyrepr
from .tables import Tables


class Statements(Tables):
    """One ``s_<Node>`` method per kind of IR statement that does not wait for a decision (those
are in ``decisions.py``); ``block`` and ``stmt`` keep each statement's code for the functions
that resume after a decision."""

    # ---- blocks ------------------------------------------------------------------------------------

    def block(self, stmts: list[ir.Stmt], scope: Scope | None = None, tail: Cont | None = None) -> BlockRec:
        """A block: its own scope (the interpreter copies the environment on entry).  Emits the code
        that runs the block from its start; the code of every statement is also kept in the
        returned record, for the functions that resume after a decision inside the block.
        ``tail`` is what runs when the block is done (None: the flow is over)."""
        saved_scope, saved_top = self.scope, self.slot_top
        self.scope = scope if scope is not None else Scope(saved_scope)
        rec = BlockRec(tail)
        for i, s in enumerate(stmts):
            with self.capture_rel() as buf:
                falls = self.stmt(s, stmts[i + 1:], rec, i)
            rec.pieces.append(Piece(buf, falls))
            if rec.falls:
                # what follows a statement that never finishes (end, or a decision) is reached
                # only by resuming
                self.splice(buf)
                rec.falls = falls
        if not stmts:
            self.emit("pass")
        self.scope, self.slot_top = saved_scope, saved_top
        return rec

    def stmt(self, s: ir.Stmt, rest: list[ir.Stmt], rec: BlockRec, i: int) -> bool:
        """Emit a statement's code; False when control never passes its end (it ends the game or
        waits for a decision)."""
        self.rest = rest
        after = self.block_points(rest) > 0  # does a decision follow in this block?
        name = type(s).__name__
        if isinstance(s, (ir.Draw, ir.Choose, ir.ChooseEach, ir.If, ir.ForEach, ir.Repeat, ir.RepeatUntil, ir.While, ir.CallProc, ir.Observe)):
            return bool(getattr(self, "s_" + name)(s, after, rec, i))
        getattr(self, "s_" + name)(s, after)
        return not isinstance(s, ir.End)

    # ---- locals and variables ----------------------------------------------------------------------

    def s_Let(self, s: ir.Let, after: bool) -> None:
        self.comment(s, f"let {s.name}")
        self.tick(s.span)
        rep = rep_of(s.value.type)
        if isinstance(s.value.type, TSet) and isinstance(s.value.type.elem, TAny):
            # an empty set whose element type only later assignments tell
            later = [x for x in walk_stmts(self.rest) if isinstance(x, ir.Assign) and x.local and x.name == s.name]
            rep = "fs" if any(rep_of(x.value.type) == "fs" for x in later) else "mask"
        v = self.ex(s.value, rep)
        loc = self.bind(self.scope, s.name, s.value.type, after, rep)
        self.emit(f"{loc.code} = {v}")
        if not any(isinstance(x, ir.Assign) and x.local and x.name == s.name for x in walk_stmts(self.rest)):
            # (a local that is never set again keeps the range of its value)
            loc.bounds = self.elem_bounds(s.value) if isinstance(s.value.type, TSet) else self.value_bounds(s.value)

    def s_Assign(self, s: ir.Assign, after: bool) -> None:
        self.comment(s, f"set {s.name}")
        self.tick(s.span)
        target_rep = self.scope.get(s.name).rep if s.local else rep_of(s.type)
        v = self.materialize(self.ex(s.value, target_rep))
        t = s.type
        if isinstance(t, TInt) and (t.lo is not None or t.hi is not None):
            # (a side the value cannot pass, known when the engine is generated, is not tested)
            lo, hi = self.analysis.bounds.of(s.value)
            conds = []
            if t.lo is not None and lo < t.lo:
                conds.append(f"{v} < {t.lo}")
            if t.hi is not None and hi > t.hi:
                conds.append(f"{v} > {t.hi}")
            if conds:
                self.emit(f"if {' or '.join(conds)}:")
                msg1, msg2 = f"'{s.name}' would become ", f", outside {t.show()}"
                self.emit(f"    _raise('range', {pyrepr(msg1)} + str({v}) + {pyrepr(msg2)}, {at(s.span)})")
        if isinstance(t, TSet) and isinstance(t.elem, TInt) and not s.local:
            self.check_members(v, target_rep, t.elem, s)
        if s.local:
            # a name bound by let in an enclosing block keeps its new value after this block
            loc = self.scope.get(s.name)
            self.emit(f"{loc.code} = {v}")
            self.epoch += 1  # (a zone instance may be numbered by it)
            self.local_epoch += 1  # (and a set of players who chose may be it)
            return
        var = self.rules.vars[s.name]
        idx = self.index_code(var.index, s.index, self.layout.var_base[var.name], var.name)
        self.emit(f"V[{idx}] = {v}")
        self.changed({"var:" + s.name})

    def check_members(self, v: str, rep: str | None, t: TInt, s: ir.Assign) -> None:
        """A set of numbers given to a variable holds only numbers of its declared range (a
        range error otherwise, as a number's variable; not tested where the value's numbers are
        known to lie within it)."""
        lo, hi = t.lo, t.hi
        b = self.elem_bounds(s.value)
        if (lo is None and hi is None) or (b is not None and (lo is None or lo <= b[0]) and (hi is None or b[1] <= hi)):
            return
        msg1, msg2 = f"'{s.name}' would hold ", f", outside {t.show()}"
        if rep == "mask":
            # (a mask holds no negative number)
            parts = ([f"{v} & {(1 << lo) - 1}"] if lo else []) + ([f"{v} >> {hi + 1} << {hi + 1}"] if hi is not None else [])
            w = self.fn.fresh()
            self.emit(f"{w} = {' | '.join(parts)}")
            self.emit(f"if {w}:")
            self.emit(f"    _raise('range', {pyrepr(msg1)} + str(({w} & -{w}).bit_length() - 1) + {pyrepr(msg2)}, {at(s.span)})")
            return
        tests = " or ".join(([f"x < {lo}"] if lo is not None else []) + ([f"x > {hi}"] if hi is not None else []))
        w = self.fn.fresh()
        self.emit(f"{w} = [x for x in {v} if {tests}]")
        self.emit(f"if {w}:")
        self.emit(f"    _raise('range', {pyrepr(msg1)} + str(min({w})) + {pyrepr(msg2)}, {at(s.span)})")

    # ---- moving components -------------------------------------------------------------------------

    def move_one(self, comp: str, dest: str) -> str:
        if not re.fullmatch(r"[A-Za-z_]\w*", comp):
            # typed: read from a tuple or a slot it is Any, and a compiled engine would shift and
            # mask with Python's generic operators
            t = self.fn.fresh("c")
            self.emit(f"{t}: int = {comp}")
            comp = t
        if not re.fullmatch(r"\w+", dest):
            t = self.fn.fresh("d")
            self.emit(f"{t} = {dest}")
            dest = t
        b, old = self.fn.fresh("b"), self.fn.fresh("o")
        self.emit(f"{b} = 1 << {comp}")
        self.emit(f"{old} = loc[{comp}]")
        self.emit(zone_update(old, "^", b))
        self.emit(zone_update(dest, "|", b))
        self.emit(f"loc[{comp}] = {dest}")
        return old

    def s_Move(self, s: ir.Move, after: bool) -> None:
        self.comment(s, f"move to {s.zone}")
        self.tick(s.span)
        single = not isinstance(s.what.type, TSet)
        what = self.ex(s.what, None if single else "mask")
        if not single and not re.fullmatch(r"[A-Za-z_]\w*", what):
            # a snapshot: the moves below change the zone the set may be read from
            t = self.fn.fresh()
            self.emit(f"{t} = {what}")
            what = t
        dest = self.materialize(self.zone_instance(s.zone, s.index))
        known = self.known_zone(s.what) if single else None
        if known is not None:
            # the component is where it was chosen from or drawn to
            b = self.fn.fresh("b")
            self.emit(f"{b} = 1 << {what}")
            self.emit(zone_update(known[1], "^", b))
            self.emit(zone_update(dest, "|", b))
            self.emit(f"loc[{what}] = {dest}")
            self.forget(b)
            self.changed({"zone:" + known[0]})
        elif single:
            old = self.move_one(what, dest)
            self.forget(f"1 << {what}")
            self.source_changed(old, s.what.type)
        else:
            src = self.source_of(s.what)
            c = self.fn.fresh("c")
            if src is not None:
                # every component moved comes from one zone instance
                self.emit(zone_update(src[1], "^", what))
                self.emit(f"for {c} in {members(what)}:")
                self.emit(f"    loc[{c}] = {dest}")
                self.changed({"zone:" + src[0]})
            else:
                old = self.fn.fresh("o")
                self.emit(f"for {c} in {members(what)}:")
                with self.loop():
                    self.emit(f"{old} = loc[{c}]")
                    self.emit(zone_update(old, "^", f"1 << {c}"))
                    self.emit(f"loc[{c}] = {dest}")
                    self.source_changed(old, s.what.type)
            self.emit(zone_update(dest, "|", what))
            self.forget(what)
        self.changed({"zone:" + s.zone})
        self.epoch += 1

    def known_zone(self, e: ir.Expr) -> tuple[str, str] | None:
        """(zone, instance) when ``e`` is a local known to be a component in that instance."""
        if isinstance(e, ir.Local):
            where = self.scope.get(e.name).where
            if where is not None and where[2] == self.epoch:
                return where[0], where[1]
        return None

    def source_of(self, e: ir.Expr) -> tuple[str, str] | None:
        """(zone, instance) when every member of the set ``e`` is in that zone instance: a zone,
        or a part of one (a filter over it, or a difference); the instance code is cheap and
        cannot fail, as it was just computed."""
        if isinstance(e, ir.Agg) and e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
            return self.source_of(e.coll)
        if isinstance(e, ir.BinOp) and e.op == "diff":
            return self.source_of(e.left)
        if isinstance(e, ir.ZoneRef):
            z = self.rules.zones[e.zone]
            if e.index is None or (isinstance(e.index, (ir.Local, ir.Const)) and not isinstance(z.index, TInt)):
                return e.zone, self.materialize(self.zone_instance(e.zone, e.index))
        return None

    # ---- conditionals and loops --------------------------------------------------------------------

    def s_If(self, s: ir.If, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "if")
        self.tick(s.span)
        cond = self.ex(s.cond)
        done = Cont(rec, i)
        self.emit(f"if {cond}:")
        with self.indented():
            falls = self.block(s.then, tail=done).falls
        if s.else_:
            self.emit("else:")
            with self.indented():
                falls = self.block(s.else_, tail=done).falls or falls
        else:
            falls = True
        return falls

    def loop_order(self, s: ir.ForEach, stored: bool = False) -> str:
        """The members a loop visits, in order (``stored``: a tuple, kept in a slot of the state)."""
        coll = self.materialize(self.ex(s.coll))
        if s.start is not None:
            start = self.ex(s.start)
            return f"_TURNS[{bare(start)}, {coll}, n, {self.order}]"
        if rep_of(s.coll.type) == "fs":
            return f"_SORTED[{coll}]"
        return f"_BITS[{coll}]" if stored else members(coll)

    def rounds(self, cont: Cont, head: str, first: list[str], body: ir.Stmt, scope: Scope | None, step: list[str]) -> None:
        """The rounds of a loop that holds decisions: ``head`` tests for another round, ``first``
        starts it, ``step`` ends it.  Also kept in ``cont`` as the continuation 'the next round'."""
        assert isinstance(body, (ir.ForEach, ir.Repeat, ir.While, ir.RepeatUntil))
        self.epoch += 1  # (a later round runs after the moves of this one)
        with self.capture_rel() as loop:
            self.emit(head)
            with self.loop():
                for line in first:
                    self.emit(line)
                falls = self.block(body.body, scope, tail=cont).falls
                if falls:
                    for line in step:
                        self.emit(line)
        if not falls and head.startswith("while ") and not head.startswith("while True"):
            loop[0] = "if " + head[len("while "):]  # the round never ends: it is not a loop
        cont.loop = loop
        cont.advance = list(step)
        self.splice(loop)

    def s_ForEach(self, s: ir.ForEach, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"for each {s.var}")
        elem = s.coll.type.elem if isinstance(s.coll.type, TSet) else TAny()
        saved_top = self.slot_top
        if not self.block_points(s.body):
            self.tick(s.span)
            order = self.loop_order(s)
            x = self.fn.fresh(f"x_{ident(s.var)}_")
            self.emit(f"for {x} in {order}:")
            self.epoch += 1
            member = Loc(x, elem, rep_of(elem))
            if isinstance(s.coll, ir.Local):
                member.among = (id(self.scope.get(s.coll.name)), self.local_epoch)
            with self.loop():
                self.block(s.body, Scope(self.scope, {s.var: member}))
            return True
        order_slot, i_slot = self.alloc(), self.alloc()
        var = Loc(self.alloc(), elem, rep_of(elem))
        self.tick(s.span)
        self.emit(f"{order_slot} = {self.loop_order(s, stored=True)}")
        self.emit(f"{i_slot} = 0")
        self.rounds(Cont(rec, i), f"while {i_slot} < len({order_slot}):", [f"{var.code} = {order_slot}[{i_slot}]"], s,
                    Scope(self.scope, {s.var: var}), [f"{i_slot} += 1"])
        self.slot_top = saved_top
        return True

    def s_Repeat(self, s: ir.Repeat, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "repeat")
        if not self.block_points(s.body):
            self.tick(s.span)
            count = self.ex(s.count)
            self.emit(f"for _ in range({count}):")
            self.epoch += 1
            with self.loop():
                self.block(s.body)
            return True
        saved_top = self.slot_top
        self.tick(s.span)
        count = self.materialize(self.ex(s.count))
        if not re.fullmatch(r"\d+", count):
            n_slot = self.alloc()
            self.emit(f"{n_slot} = {count}")
            count = n_slot
        i_slot = self.alloc()
        self.emit(f"{i_slot} = 0")
        self.rounds(Cont(rec, i), f"while {i_slot} < {count}:", [], s, None, [f"{i_slot} += 1"])
        self.slot_top = saved_top
        return True

    def conditional_loop(self, s: ir.While | ir.RepeatUntil, stop_when: bool, rec: BlockRec, i: int) -> bool:
        """``while c`` stops when c is false; ``repeat until c`` stops when c is true (and, like
        the interpreter, tests c before the first round)."""
        self.tick(s.span)
        if not self.block_points(s.body):
            self.emit("while True:")
            self.epoch += 1
            with self.loop():
                cond = self.ex(s.cond)
                self.emit(f"if {'' if stop_when else 'not '}{cond}:")
                self.emit("    break")
                self.tick(s.span)
                self.block(s.body)
            return True
        # the test is compiled once, inside the loop, and copied in front of every round
        with self.capture_rel() as test:
            self.fn.loops += 1
            try:
                cond = self.ex(s.cond)
                self.emit(f"if {'' if stop_when else 'not '}{cond}:")
                self.emit("    break")
                self.tick(s.span)
            finally:
                self.fn.loops -= 1
        self.rounds(Cont(rec, i), "while True:", test, s, None, [])
        return True

    def s_While(self, s: ir.While, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "while")
        return self.conditional_loop(s, False, rec, i)

    def s_RepeatUntil(self, s: ir.RepeatUntil, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, "repeat until")
        return self.conditional_loop(s, True, rec, i)

    # ---- procedures, the end and statements that do nothing in an engine ---------------------------

    def s_CallProc(self, s: ir.CallProc, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"{s.name}(...)")
        proc = self.proc(s.name)
        assert proc.body is not None
        resumable = self.block_points(proc.body) > 0
        callee = Scope()
        self.tick(s.span)
        if s.name == self.rules.game.turn:
            self.emit("S.t += 1")  # a turn begins (`turn NAME` in the game declaration)
        saved_top = self.slot_top
        computed = []
        for (name, t), arg in zip(proc.formals, s.args):
            # a local or a constant argument is used where it is: formals cannot be changed, and
            # the caller's locals do not change during the call (a Python local cannot outlive
            # a decision, a slot can)
            if isinstance(arg, ir.Const):
                callee.names[name] = Loc(self.ex(arg, rep_of(t)), t, rep_of(t))
                continue
            if isinstance(arg, ir.Local):
                loc = self.scope.get(arg.name)
                if not resumable or loc.code.startswith("L["):
                    callee.names[name] = Loc(loc.code, t, loc.rep, loc.where)
                    continue
            computed.append((name, t, arg))
        args = self.ex_seq([(a, rep_of(t)) for _, t, a in computed])
        for (name, t, _), code in zip(computed, args):
            loc = self.bind(callee, name, t, resumable)
            self.emit(f"{loc.code} = {code}")
        saved = self.scope
        self.scope = callee
        falls = self.block(proc.body, Scope(callee), tail=Cont(rec, i)).falls
        self.scope = saved
        self.slot_top = saved_top
        return falls

    def s_End(self, s: ir.End, after: bool) -> None:
        self.comment(s, "end")
        self.tick(s.span)
        if s.draw:
            self.emit("S.w = -1")  # a draw: nobody wins, nobody loses
        else:
            w = self.materialize(self.ex(s.winners, "mask"))
            self.emit(f"S.w = {w}")
        self.emit("S.pc = -1")
        self.emit("S.cp = -4")
        self.emit("S.o = None")
        self.emit("return")

    # ---- who knows what ----------------------------------------------------------------------------

    def s_Reveal(self, s: ir.Reveal, after: bool) -> None:
        self.comment(s, "reveal")
        self.tick(s.span)
        what, who = (self.materialize(c) for c in self.ex_seq([(s.what, "mask"), (s.who, "mask")]))
        q = self.fn.fresh("q")
        self.emit(f"for {q} in {members(who)}:")
        self.emit(f"    S.m[{q}] |= {what}")

    def s_Say(self, s: ir.Say, after: bool) -> None:
        # the engine keeps no log: like the interpreter without logging, it evaluates nothing
        self.comment(s, "say")
        self.tick(s.span)

    def s_Shuffle(self, s: ir.Shuffle, after: bool) -> None:
        # draws are uniform over the zone, so a shuffle changes nothing observable
        self.comment(s, f"shuffle {s.zone}")
        self.tick(s.span)
