"""Boards, records and observations (``Boards``): a space's attributes and the board builtins
(adjacency as one bitmask per space; distances and steps by small runtime functions), the
fields and length of a record (a tuple of entries in a variable's slot), ``append``, and
``observe`` (a chance point for the error of a perception).
"""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.types import TEnum, TInt, TRecord

from .layout import BlockRec, Scope, at, bare
from .literals import pyrepr
from .tables import Tables


class Boards(Tables):
    """``x_SpaceAttr``, ``x_RecordField``, the board and record builtins, ``s_Observe`` and
    ``s_Append``."""

    # ---- boards ------------------------------------------------------------------------------------

    def adjacency(self, board: str) -> str:
        """The constant tuple of each space's neighbours, as bitmasks."""
        b = self.rules.boards[board]
        masks = [sum(1 << x for x in b.neighbours(k)) for k in range(len(b.spaces))]
        return self.const(pyrepr(tuple(masks)))

    def x_SpaceAttr(self, e: ir.SpaceAttr, want: str | None) -> tuple[str, str | None]:
        b = self.rules.boards[e.board]
        t = b.attrs[e.attr]
        cells = [self.value_literal(v[e.attr], t) for v in b.values]
        table = self.const("(" + ", ".join(cells) + ("," if len(cells) == 1 else "") + ")")
        from .layout import rep_of

        return f"{table}[{bare(self.ex(e.obj))}]", rep_of(t)

    def board_builtin(self, e: ir.Builtin, args: list[str]) -> tuple[str, str | None]:
        t = e.args[0].type
        assert isinstance(t, TEnum)
        adj = self.adjacency(t.name)
        if e.op == "adjacent":
            return f"({adj}[{bare(args[0])}] >> {args[1]} & 1 == 1)", None
        if e.op == "neighbours":
            return f"{adj}[{bare(args[0])}]", "mask"
        if e.op == "distance":
            labels = self.const(pyrepr(tuple(self.rules.enums[t.name].labels)))
            return f"_distance({adj}, {bare(args[0])}, {bare(args[1])}, {bare(args[2])}, {labels}, {at(e.span)})", None
        return f"_steps({adj}, {bare(args[0])}, {bare(args[1])}, {bare(args[2])}, {bare(args[3])}, {at(e.span)})", "mask"

    # ---- records -----------------------------------------------------------------------------------

    def record_builtin(self, e: ir.Builtin, args: list[str]) -> tuple[str, str | None]:
        if e.op == "length":
            return f"len({bare(args[0])})", None
        return f"frozenset(range(1, len({bare(args[0])}) + 1))", "fs"

    def x_RecordField(self, e: ir.RecordField, want: str | None) -> tuple[str, str | None]:
        t = e.record.type
        assert isinstance(t, TRecord)
        rec, pos = self.ex_seq([(e.record, None), (e.pos, None)])
        k = [f for f, _ in t.fields].index(e.field)
        return f"_record_entry({bare(rec)}, {bare(pos)}, {pyrepr(t.name)}, {at(e.span)})[{k}]", None

    def s_Append(self, s: ir.Append, after: bool) -> None:
        self.comment(s, f"append to {s.name}")
        self.tick(s.span)
        var = self.rules.vars[s.name]
        t = var.type
        assert isinstance(t, TRecord)
        values = [self.materialize(v) for v in self.ex_seq([(v, None) for v in s.values])]
        for (fname, ft), v in zip(t.fields, values):
            if isinstance(ft, TInt) and (ft.lo is not None or ft.hi is not None):
                conds = ([f"{v} < {ft.lo}"] if ft.lo is not None else []) + ([f"{v} > {ft.hi}"] if ft.hi is not None else [])
                msg1, msg2 = f"'{s.name}.{fname}' would become ", f", outside {ft.show()}"
                self.emit(f"if {' or '.join(conds)}:")
                self.emit(f"    _raise('range', {pyrepr(msg1)} + str({v}) + {pyrepr(msg2)}, {at(s.span)})")
        idx = self.materialize(self.index_code(var.index, s.index, self.layout.var_base[var.name], var.name))
        self.uses("V")
        entry = "(" + ", ".join(values) + ("," if len(values) == 1 else "") + ")"
        self.emit(f"V[{idx}] = V[{idx}] + ({entry},)")
        self.changed({"var:" + s.name})

    # ---- observations ------------------------------------------------------------------------------

    def percept(self, who: str, label: str, text: str) -> None:
        """Record what an observation told its observer (shown until the next decision)."""
        self.emit("S.nob += 1")
        self.emit(f"S.ob.append((S.nob, {who}, {pyrepr(label)}, {text}))")

    def s_Observe(self, s: ir.Observe, after: bool, rec: BlockRec, i: int) -> bool:
        self.comment(s, f"observe ({s.label})")
        self.tick(s.span)
        value, who = (self.materialize(c) for c in self.ex_seq([(s.what, None), (s.observer, None)]))
        bind_t = TInt(-1, 1) if s.mode == "than" else s.what.type
        if s.mode == "within" and s.amount > 0:
            p = self.point("chance", s, s.label)
            self.observe_points[p] = s.amount
            vs, ws = self.alloc(), self.alloc()
            self.emit(f"{vs} = {value}")
            self.emit(f"{ws} = {who}")
            loc = self.bind(Scope(), s.bind, bind_t, after) if s.bind is not None else None
            self.suspend(p, "-1", str((1 << (2 * s.amount + 1)) - 1))
            with self.capture_rel() as resume:
                learnt = self.fn.fresh("u")
                self.emit(f"{learnt} = {vs} + a - {s.amount}")
                self.percept(ws, s.label, f"str({learnt}) + {pyrepr(f' (within {s.amount})')}")
                if loc is not None:
                    self.emit(f"{loc.code} = {learnt}")
            self.resumes[p] = (resume, rec, i)
            if loc is not None and s.bind is not None:
                self.scope.names[s.bind] = loc
            self.epoch += 1
            return False
        if s.mode == "within":
            learnt, text = value, f"str({value}) + ' (within 0)'"
        elif s.mode == "than":
            assert s.ref is not None
            ref = self.materialize(self.ex(s.ref))
            learnt = self.fn.fresh("u")
            self.emit(f"{learnt} = ({value} > {ref}) - ({value} < {ref})")
            text = f"('lower', 'the same', 'higher')[{learnt} + 1]"
        else:
            learnt, text = value, self.show(s.what.type, value)
        self.percept(who, s.label, text)
        if s.bind is not None:
            loc = self.bind(self.scope, s.bind, bind_t, after)
            self.emit(f"{loc.code} = {learnt}")
        return True


__all__ = ["Boards"]
