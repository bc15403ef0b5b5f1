"""Statements and the flow (``Flow``): blocks and their scopes, every kind of statement (let, set,
move, draw, choose, choose each, if, loops, end, say, shuffle, procedure calls), zone references
and the ``{expressions}`` inside a say text.
"""

from __future__ import annotations

from .. import ast, ir
from ..parser import parse_expr_text
from ..source import Span
from ..types import BOOL, INT, PLAYER, TAny, TComp, TError, TInt, TMap, TPlayer, TRecord, TSet, is_choosable
from .base import Scope, _listing, _src
from .names import Names
from .types import const_value, tshow


class Flow(Names):
    """One branch of ``stmt`` per kind of statement; blocks and their scopes."""

    def block(self, stmts: list[ast.Stmt], parent: Scope) -> list[ir.Stmt]:
        scope = Scope(parent)
        out: list[ir.Stmt] = []
        for s in stmts:
            r = self.stmt(s, scope)
            if r is not None:
                out.append(r)
        return out

    def zone_ref(self, z: ast.ZoneRef, scope: Scope) -> tuple[str, ir.Expr | None, ir.ZoneInfo | None]:
        info = self.zones.get(z.name)
        if info is None:
            self.d.error("E0201", f"unknown zone '{z.name}'", z.name_span, hint=self.suggest(z.name, self.zones) or _listing("zones", self.zones))
            return z.name, None, None
        self.used.add(("zone", z.name))
        index = None
        if info.index is None and z.index is not None:
            self.d.error("E0303", f"zone '{z.name}' is a single zone; it takes no index", z.index.span, hint=f"write {z.name} without […]")
        elif info.index is not None and z.index is None:
            self.d.error("E0303", f"zone '{z.name}' is one zone per {tshow(info.index)}; say which", z.name_span, hint=f"write {z.name}[…]")
        elif info.index is not None and z.index is not None:
            index = self.expect(z.index, scope, info.index, f"the index of '{z.name}'")
        return z.name, index, info

    def secret_param(self, s: ast.Choose | ast.ChooseEach) -> str | None:
        """The parameter of `secret when P` (None: always or never secret, or a diagnostic)."""
        if s.secret_if is None:
            return None
        name, span = s.secret_if
        return self.bool_param(name, span, f"the secrecy of '{s.label or s.name}'")

    def stmt(self, s: ast.Stmt, scope: Scope) -> ir.Stmt | None:
        src = _src(s.source)
        if isinstance(s, ast.Let):
            value = self.expr(s.value, scope)
            if isinstance(value.type, TMap):
                self.d.error("E0301", "a per-player choice cannot be copied; read it as name[p]", s.value.span, hint="read one player's choice as name[p]")
            # a let name can be set again later, so a number keeps no range from its first value
            t = INT if isinstance(value.type, TInt) else value.type
            self.bind_local(scope, s.name, t, s.name_span, mutable=True)
            return ir.Let(s.span, src, s.name, value)
        if isinstance(s, ast.SetStmt):
            local = scope.lookup(s.name)
            if local is not None:
                if not local.mutable:
                    self.d.error(
                        "E0203", f"'{s.name}' cannot be changed: only names bound by let can", s.name_span,
                        hint=f"bind a new name instead, e.g. let {s.name}2 = …",
                    )
                if s.index is not None:
                    self.d.error("E0303", f"'{s.name}' is a local value; it takes no index", s.index.span, hint=f"write {s.name} without […]")
                value = self.expect(s.value, scope, local.type, f"the new value of '{s.name}'")
                return ir.Assign(s.span, src, s.name, True, None, value, local.type)
            var = self.vars.get(s.name)
            if var is not None and isinstance(var.type, TRecord):
                self.d.error("E0408", f"record '{s.name}' only grows: write its entries with append", s.name_span,
                             hint=f"append {{field: …}} to {s.name}[…]")
                return None
            if var is None:
                self.d.error(
                    "E0201", f"unknown variable '{s.name}'", s.name_span,
                    hint=self.suggest(s.name, list(self.vars) + list(scope.all_names())) or f"declare it: var {s.name}: type = value, or bind it first with let",
                )
                return None
            index = None
            if var.index is None and s.index is not None:
                self.d.error("E0303", f"variable '{s.name}' takes no index", s.index.span, hint=f"write set {s.name} = … without […]")
            elif var.index is not None and s.index is None:
                self.d.error("E0303", f"variable '{s.name}' is one value per {tshow(var.index)}; say which", s.name_span, hint=f"write set {s.name}[…] = …")
            elif var.index is not None and s.index is not None:
                index = self.expect(s.index, scope, var.index, f"the index of '{s.name}'")
            value = self.expect(s.value, scope, var.type, f"the new value of '{s.name}'")
            self.check_const_range(value, var.type, s.value.span, s.name)
            return ir.Assign(s.span, src, s.name, False, index, value, var.type)
        if isinstance(s, ast.Move):
            what = self.expr(s.what, scope)
            zname, zindex, zinfo = self.zone_ref(s.zone, scope)
            kinds: set[str | None] = set()
            if isinstance(what.type, TComp):
                kinds = {what.type.kind}
            elif isinstance(what.type, TSet) and isinstance(what.type.elem, TComp):
                kinds = {what.type.elem.kind}
            elif isinstance(what.type, TSet) and isinstance(what.type.elem, TAny):
                kinds = set()
            elif not isinstance(what.type, TError):
                self.d.error("E0301", f"only cards and pieces can be moved, not {tshow(what.type)}", s.what.span, hint="move a card or piece, or a set of them, e.g. move c to pile")
            if zinfo is not None:
                for k in kinds:
                    if k is not None and k not in zinfo.kinds:
                        self.d.error("E0301", f"zone '{zname}' does not hold {k}", s.zone.span, hint=f"it holds: {', '.join(zinfo.kinds) or 'nothing'}")
            return ir.Move(s.span, src, what, zname, zindex)
        if isinstance(s, ast.Draw):
            count = self.expect(s.count, scope, INT, "the number of cards to draw") if s.count else ir.Const(INT, s.span, 1)
            sname, sidx, sinfo = self.zone_ref(s.src, scope)
            dname, didx, dinfo = self.zone_ref(s.dst, scope)
            if sinfo is not None and dinfo is not None:
                for k in sinfo.kinds:
                    if k not in dinfo.kinds:
                        self.d.error("E0301", f"zone '{dname}' does not hold {k}, which '{sname}' can hold", s.dst.span, hint=f"add {k} to the declaration of zone '{dname}'")
            if s.bind is not None:
                assert s.bind_span is not None
                if s.count is not None and const_value(count, self.params) != 1:
                    self.d.error("E0405", "'as' names one drawn card; draw one at a time to name each", s.bind_span, hint="write: draw from A to B as c, which draws one")
                kind = sinfo.kinds[0] if sinfo is not None and len(sinfo.kinds) == 1 else None
                self.bind_local(scope, s.bind, TComp(kind), s.bind_span)
            return ir.Draw(s.span, src, count, sname, sidx, dname, didx, s.bind)
        if isinstance(s, ast.Choose):
            options = self.expr(s.options, scope)
            elem = self.set_elem(options, s.options.span, "the options of a choice")
            if not is_choosable(elem):
                self.d.error("E0301", f"players cannot choose among {tshow(elem)} values", s.options.span, hint="choices are among cards, pieces, players, enum values, booleans or ranges of non-negative numbers")
            chooser = self.expect(s.chooser, scope, PLAYER, "who chooses")
            self.bind_local(scope, s.name, elem, s.name_span)
            return ir.Choose(s.span, src, s.name, options, chooser, s.label or s.name, s.secret, elem, self.secret_param(s))
        if isinstance(s, ast.ChooseEach):
            players = self.expect(s.players, scope, TSet(PLAYER), "who chooses")
            inner = Scope(scope)
            self.bind_local(inner, s.pvar, PLAYER, s.pvar_span)
            options = self.expr(s.options, inner)
            elem = self.set_elem(options, s.options.span, "the options of a choice")
            if not is_choosable(elem):
                self.d.error("E0301", f"players cannot choose among {tshow(elem)} values", s.options.span, hint="choices are among cards, pieces, players, enum values, booleans or ranges of non-negative numbers")
            self.bind_local(scope, s.name, TMap(elem), s.name_span)
            return ir.ChooseEach(s.span, src, s.name, s.pvar, players, options, s.label or s.name, s.secret, elem, self.secret_param(s))
        if isinstance(s, ast.If):
            cond = self.expect(s.cond, scope, BOOL, "the condition of an if")
            then = self.block(s.then, scope)
            else_ = self.block(s.else_, scope) if s.else_ is not None else []
            return ir.If(s.span, src, cond, then, else_, _src(s.else_source))
        if isinstance(s, ast.ForEach):
            coll = self.expr(s.coll, scope)
            elem = self.set_elem(coll, s.coll.span, "a for each loop")
            start = None
            if s.start is not None:
                if not isinstance(elem, (TPlayer, TError)):
                    self.d.error("E0301", "'from' gives the first player of a turn order; this loop is not over players", s.start.span, hint="remove 'from …', or loop over players")
                start = self.expect(s.start, scope, PLAYER, "the first player")
            inner = Scope(scope)
            self.bind_local(inner, s.var, elem, s.var_span)
            body = self.block(s.body, inner)
            return ir.ForEach(s.span, src, s.var, coll, start, body)
        if isinstance(s, ast.Repeat):
            count = self.expect(s.count, scope, INT, "the number of repetitions")
            return ir.Repeat(s.span, src, count, self.block(s.body, scope))
        if isinstance(s, ast.RepeatUntil):
            cond = self.expect(s.cond, scope, BOOL, "the condition of repeat until")
            return ir.RepeatUntil(s.span, src, cond, self.block(s.body, scope))
        if isinstance(s, ast.While):
            cond = self.expect(s.cond, scope, BOOL, "the condition of while")
            return ir.While(s.span, src, cond, self.block(s.body, scope))
        if isinstance(s, ast.End):
            if s.winners is None:  # a draw: nobody wins, nobody loses
                return ir.End(s.span, src, ir.Const(TSet(PLAYER), s.span, frozenset()), draw=True)
            winners = self.expect(s.winners, scope, TSet(PLAYER), "the winners")
            return ir.End(s.span, src, winners)
        if isinstance(s, ast.Say):
            return ir.Say(s.span, src, self.interpolate(s, scope))
        if isinstance(s, ast.Shuffle):
            zname, zidx, _ = self.zone_ref(s.zone, scope)
            return ir.Shuffle(s.span, src, zname, zidx)
        if isinstance(s, (ast.Reveal, ast.Ask)):
            return self.knowledge_stmt(s, scope)
        if isinstance(s, ast.CallStmt):
            if s.name not in self.proc_sigs:
                if s.name in self.def_decls:
                    self.d.error("E0203", f"'{s.name}' is a definition: it gives a value and cannot be a step", s.name_span, hint="use it inside an expression, e.g. let x = " + s.name + "(…)")
                else:
                    self.d.error(
                        "E0201", f"unknown procedure '{s.name}'", s.name_span,
                        hint=self.suggest(s.name, self.proc_sigs) or f"declare it: procedure {s.name}(…) {{ … }}",
                    )
                for a in s.args:
                    self.expr(a, scope)
                return None
            self.used.add(("proc", s.name))
            formals = self.proc_sigs[s.name]
            args = self.args(s.name, formals, s.args, scope, s.name_span, "procedure")
            return ir.CallProc(s.span, src, s.name, args)
        if isinstance(s, ast.Observe):
            return self.observe_stmt(s, scope)
        if isinstance(s, ast.Append):
            return self.append_stmt(s, scope)
        raise AssertionError(f"unknown statement {type(s).__name__}")  # pragma: no cover

    def interpolate(self, s: ast.Say, scope: Scope) -> list[str | ir.Expr]:
        """Split a say text into literal parts and ``{expression}`` parts."""
        raw = s.raw[1:-1]
        parts: list[str | ir.Expr] = []
        text: list[str] = []
        line, col = s.raw_span.line, s.raw_span.col + 1

        def pos_of(offset: int) -> tuple[int, int]:
            before = raw[:offset]
            if "\n" in before:
                return line + before.count("\n"), offset - before.rfind("\n")
            return line, col + offset

        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and i + 1 < len(raw):
                nxt = raw[i + 1]
                text.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                i += 2
            elif ch.isspace():
                while i < len(raw) and raw[i].isspace():
                    i += 1
                text.append(" ")
            elif ch == "{":
                depth, j, in_str = 1, i + 1, False
                while j < len(raw) and depth:
                    c = raw[j]
                    if c == '"' and raw[j - 1] != "\\":
                        in_str = not in_str
                    elif not in_str and c == "{":
                        depth += 1
                    elif not in_str and c == "}":
                        depth -= 1
                    j += 1
                if depth:
                    l0, c0 = pos_of(i)
                    self.d.error("E0102", "this '{' in a say text is never closed", Span.point(l0, c0), hint="write \\{ for a brace in the text")
                    break
                if text:
                    parts.append("".join(text))
                    text = []
                l1, c1 = pos_of(i + 1)
                # inside the braces, \" is a quote mark of a string literal of the expression
                inner = raw[i + 1 : j - 1].replace('\\"', '"')
                e = parse_expr_text(inner, l1, c1, self.d, self.src)
                if e is not None:
                    parts.append(self.expr(e, scope))
                i = j
            elif ch == "}":
                l0, c0 = pos_of(i)
                self.d.error("E0102", "a '}' in a say text without its '{'", Span.point(l0, c0), hint="write \\} for a brace in the text")
                i += 1
            else:
                text.append(ch)
                i += 1
        if text:
            parts.append("".join(text))
        return parts
