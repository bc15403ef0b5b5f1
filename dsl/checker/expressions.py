"""Expressions (``Expressions``): literals, names, operators, conditionals, ranges, sets,
aggregates, calls of definitions and builtins, attributes, indexes and matches, with their types
checked against what the context expects.
"""

from __future__ import annotations

from .. import ast, ir
from ..source import Span
from ..types import (
    ANY,
    BOOL,
    ERROR,
    INT,
    MAX_INT,
    PLAYER,
    TEXT,
    TAny,
    TComp,
    TEnum,
    TError,
    TInt,
    TMap,
    TRecord,
    TSet,
    TText,
    Type,
    fits,
    join,
)
from .base import BUILTIN_USE, MAX_PLAYERS, MAX_RANGE, Scope
from .names import Names
from .types import const_value, tshow, type_hint, zone_elem


class Expressions(Names):
    """One branch of ``expr`` (or a method) per kind of expression; ``expect`` checks the type."""

    def expect(self, e: ast.Expr, scope: Scope, t: Type, what: str) -> ir.Expr:
        x = self.expr(e, scope)
        if not fits(t, x.type):
            return self.err("E0301", f"{what} should be {tshow(t)}, but this is {tshow(x.type)}", e.span, hint=type_hint(t, x.type))
        if isinstance(x.type, TAny) or (isinstance(x.type, TSet) and isinstance(x.type.elem, TAny)):
            x.type = t
        return x

    def set_elem(self, x: ir.Expr, span: Span, what: str) -> Type:
        if isinstance(x.type, TError):
            return ERROR
        if not isinstance(x.type, TSet):
            self.d.error("E0301", f"{what} needs a set, but this is {tshow(x.type)}", span, hint="zones, players, ranges like 1..5 and {a, b} are sets")
            return ERROR
        return x.type.elem

    def args(self, name: str, formals: list[tuple[str, Type]], args: list[ast.Expr], scope: Scope, span: Span, what: str) -> list[ir.Expr]:
        if len(args) != len(formals):
            self.d.error(
                "E0204", f"{what} '{name}' takes {len(formals)} argument{'s' if len(formals) != 1 else ''}, not {len(args)}", span,
                hint=f"{name}({', '.join(f'{n}: {tshow(t)}' for n, t in formals)})",
            )
            return [self.expr(a, scope) for a in args]
        return [self.expect(a, scope, t, f"argument '{n}' of '{name}'") for a, (n, t) in zip(args, formals)]

    def expr(self, e: ast.Expr, scope: Scope) -> ir.Expr:
        sp = e.span
        if isinstance(e, ast.IntLit):
            return ir.Const(TInt(e.value, e.value), sp, e.value)
        if isinstance(e, ast.StrLit):
            return ir.Const(TEXT, sp, e.value)
        if isinstance(e, ast.BoolLit):
            return ir.Const(BOOL, sp, e.value)
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.Unary):
            if e.op == "not":
                return ir.Unary(BOOL, sp, "not", self.expect(e.operand, scope, BOOL, "the operand of 'not'"))
            x = self.expect(e.operand, scope, INT, "the operand of '-'")
            if isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool):
                return ir.Const(TInt(-x.value, -x.value), sp, -x.value)
            return ir.Unary(INT, sp, "neg", x)
        if isinstance(e, ast.Binary):
            return self.binary(e, scope)
        if isinstance(e, ast.IfExpr):
            c = self.expect(e.cond, scope, BOOL, "the condition")
            a = self.expr(e.then, scope)
            b = self.expr(e.else_, scope)
            joined = join(a.type, b.type)
            if joined is None:
                return self.err("E0301", f"the two branches differ: {tshow(a.type)} and {tshow(b.type)}", sp, hint="both branches must give the same type of value")
            return ir.Cond(joined, sp, c, a, b)
        if isinstance(e, ast.RangeExpr):
            lo = self.expect(e.lo, scope, INT, "the start of a range")
            hi = self.expect(e.hi, scope, INT, "the end of a range")
            lv, hv = const_value(lo, self.params), const_value(hi, self.params)
            if not isinstance(lv, int) or not isinstance(hv, int):
                return self.err(
                    "E0302", "the bounds of a range must be constants", sp,
                    hint="write numbers or parameters, e.g. 1..4; to go over the players, use players",
                )
            if hv - lv >= MAX_RANGE:
                return self.err("E0006", f"the range {lv}..{hv} has {hv - lv + 1:,} values; the limit is {MAX_RANGE:,}", sp, hint="use a comparison instead, e.g. lo <= x and x <= hi")
            return ir.IntRange(TSet(TInt(lv, hv)), sp, lo, hi)
        if isinstance(e, ast.SetLit):
            items = [self.expr(i, scope) for i in e.items]
            t: Type | None = ANY
            for it in items:
                t = join(t, it.type) if t is not None else None
            if t is None:
                return self.err("E0301", "the items of this set have different types", sp, hint="items: " + ", ".join(tshow(i.type) for i in items))
            if isinstance(t, (TSet, TMap, TText)):
                return self.err(
                    "E0301", f"a set cannot hold {tshow(t)} values", sp,
                    hint="to choose among words, declare an enum: enum Answer { yes, no }" if isinstance(t, TText) else None,
                )
            return ir.SetOf(TSet(t), sp, items)
        if isinstance(e, ast.SetComp):
            return self.aggregate("set", e.gen, scope, sp, e.gen.var_span)
        if isinstance(e, ast.CallGen):
            if e.name not in ("any", "all", "count", "sum", "max", "min", "the"):
                return self.err(
                    "E0201", f"'{e.name}' does not take 'for … in …'", e.name_span,
                    hint=self.suggest(e.name, ["any", "all", "count", "sum", "max", "min", "the"]) or "aggregates: any, all, count, sum, max, min, the",
                )
            return self.aggregate(e.name, e.gen, scope, sp, e.name_span)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Attr):
            return self.attr(e, scope)
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.Match):
            return self.match(e, scope)
        raise AssertionError(f"unknown expression {type(e).__name__}")  # pragma: no cover

    def name(self, e: ast.Name, scope: Scope) -> ir.Expr:
        n, sp = e.name, e.span
        local = scope.lookup(n)
        if local is not None:
            return ir.Local(local.type, sp, n)
        if n in self.vars:
            v = self.vars[n]
            if self.in_init:
                return self.err("E0302", "an initial value cannot read another variable", sp, hint="initial values are constants: literals, enum values, sets and ranges")
            self.used.add(("var", n))
            if isinstance(v.type, TRecord) and not self.record_ok:
                return self.record_misuse(n, sp)
            if v.index is not None:
                return self.err("E0303", f"variable '{n}' is one value per {tshow(v.index)}; say which", sp, hint=f"write {n}[…]")
            return ir.VarRef(v.type, sp, n, None)
        if n in self.params:
            self.used.add(("param", n))
            if self.in_init:
                # a game may give the parameter another value (--param, load_game) after the initial
                # values are fixed: the variable would silently keep the default's
                return self.err("E0302", f"an initial value cannot read the parameter '{n}', whose value each game may change", sp,
                                hint="start the variable at a constant and set it at the start of the flow")
            return ir.ParamRef(self.params[n].type, sp, n)
        if n in self.zones:
            z = self.zones[n]
            self.used.add(("zone", n))
            if z.index is not None:
                return self.err("E0303", f"zone '{n}' is one zone per {tshow(z.index)}; say which", sp, hint=f"write {n}[…]")
            return ir.ZoneRef(TSet(zone_elem(z)), sp, n, None)
        if n in self.def_sigs:
            formals, ret = self.def_sigs[n]
            self.used.add(("def", n))
            if formals:
                return self.err("E0204", f"'{n}' takes {len(formals)} argument{'s' if len(formals) != 1 else ''}", sp, hint=f"write {n}({', '.join(f for f, _ in formals)})")
            return ir.CallDef(ret, sp, n, [])
        if n == "players":
            return ir.Builtin(TSet(PLAYER), sp, "players", [])
        if n == "num_players":
            g = self.game
            return ir.Builtin(TInt(g.min_players, g.max_players) if g else INT, sp, "num_players", [])
        if n == "winners":
            if not self.allow_winners:
                return self.err("E0203", "'winners' is known only at the end of the game", sp, hint="use it in an 'invariant … at end'")
            return ir.Builtin(TSet(PLAYER), sp, "winners", [])
        if n in self.enum_values:
            owners = self.enum_values[n]
            if len(owners) > 1:
                return self.err(
                    "E0203", f"'{n}' is a value of several enums: {', '.join(o for o, _ in owners)}", sp,
                    hint="write " + " or ".join(f"{o}.{n}" for o, _ in owners),
                )
            enum, idx = owners[0]
            self.used.add(("enum", enum))
            return ir.Const(TEnum(enum), sp, idx)
        if n in self.proc_sigs:
            return self.err("E0203", f"'{n}' is a procedure: it is a step of the game, not a value", sp, hint=f"run it as a step on its own line: {n}(…)")
        if n in self.kinds:
            if any(c.when is not None for c in self.components if c.kind == n):
                # its table depends on parameters: the components in play, known once a game is set up
                return ir.Builtin(TSet(TComp(n)), sp, ir.IN_PLAY, [])
            # a card or piece type stands for the set of all its components
            if n not in self.all_of:  # (once per name: a file may name a type thousands of times)
                self.all_of[n] = frozenset(c.cid for c in self.components if c.kind == n)
            return ir.Const(TSet(TComp(n)), sp, self.all_of[n])
        if n in self.enums:
            self.used.add(("enum", n))
            if n not in self.all_of:
                self.all_of[n] = frozenset(range(len(self.enums[n].values)))
            return ir.Const(TSet(TEnum(n)), sp, self.all_of[n])
        return self.err(
            "E0201", f"unknown name '{n}'", sp,
            hint=self.suggest(n, lambda: list(scope.all_names()) + self.global_names())
            or "declare it, or bind it with let, choose, for each or draw … as",
        )

    def binary(self, e: ast.Binary, scope: Scope) -> ir.Expr:
        op, sp = e.op, e.span
        if op in ("and", "or"):
            a = self.expect(e.left, scope, BOOL, f"the left side of '{op}'")
            b = self.expect(e.right, scope, BOOL, f"the right side of '{op}'")
            return ir.BinOp(BOOL, sp, op, a, b)
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        if op in ("==", "!="):
            if join(a.type, b.type) is None or isinstance(a.type, TMap):
                return self.err("E0301", f"cannot compare {tshow(a.type)} with {tshow(b.type)}", sp, hint=type_hint(a.type, b.type))
            return ir.BinOp(BOOL, sp, op, a, b)
        if op in ("<", "<=", ">", ">="):
            for x, side in ((a, e.left), (b, e.right)):
                if not fits(INT, x.type):
                    return self.err("E0301", f"'{op}' compares numbers; this is {tshow(x.type)}", side.span, hint="compare other values with == or !=")
            return ir.BinOp(BOOL, sp, op, a, b)
        if op == "in":
            if isinstance(b.type, TError):
                return ir.BinOp(BOOL, sp, op, a, b)
            if not isinstance(b.type, TSet):
                return self.err("E0301", f"'in' needs a set on its right, but this is {tshow(b.type)}", e.right.span, hint="write x in {a, b}, x in 1..5 or x in a zone; for one value, write x == y")
            if not fits(b.type.elem, a.type):
                return self.err("E0301", f"a {tshow(a.type)} is never in a set of {tshow(b.type.elem)}", sp, hint=type_hint(b.type.elem, a.type))
            return ir.BinOp(BOOL, sp, op, a, b)
        if (op in ("+", "-") and isinstance(a.type, TSet)) or isinstance(b.type, TSet):
            if op not in ("+", "-"):
                return self.err("E0301", f"'{op}' does not apply to sets", sp, hint="sets take + (union) and - (difference)")
            t = join(a.type, b.type)
            if t is None or not isinstance(t, TSet):
                return self.err("E0301", f"cannot combine {tshow(a.type)} and {tshow(b.type)}", sp, hint="+ and - combine two sets of the same kind of values")
            return ir.BinOp(t, sp, "union" if op == "+" else "diff", a, b)
        for x, side in ((a, e.left), (b, e.right)):
            if not fits(INT, x.type):
                return self.err("E0301", f"'{op}' works on numbers; this is {tshow(x.type)}", side.span, hint="arithmetic is on numbers; sets take + (union) and - (difference)")
        av, bv = const_value(a, {}), const_value(b, {})
        if isinstance(av, int) and isinstance(bv, int) and not isinstance(av, bool) and not isinstance(bv, bool):
            if op in ("/", "%") and bv == 0:
                return self.err("E0304", "division by zero", sp, hint="divide by a number other than 0")
            v = {"+": av + bv, "-": av - bv, "*": av * bv, "/": av // bv if bv else 0, "%": av % bv if bv else 0}[op]
            if not -MAX_INT <= v <= MAX_INT:
                return self.err("E0305", f"{av} {op} {bv} is {v:,}, beyond the integer limit {MAX_INT:,}", sp,
                                hint=f"numbers of a game lie within -{MAX_INT:,}..{MAX_INT:,}")
            return ir.Const(TInt(v, v), sp, v)
        return ir.BinOp(INT, sp, op, a, b)

    def aggregate(self, op: str, g: ast.Generator, scope: Scope, sp: Span, name_span: Span) -> ir.Expr:
        coll = self.expr(g.coll, scope)
        elem_t = self.set_elem(coll, g.coll.span, f"'{op}'" if op != "set" else "a set comprehension")
        inner = Scope(scope)
        self.bind_local(inner, g.var, elem_t, g.var_span)
        elem = self.expr(g.elem, inner)
        filt = self.expect(g.filt, inner, BOOL, "the condition after 'if'") if g.filt is not None else None
        if op in ("any", "all") and not fits(BOOL, elem.type):
            return self.err("E0301", f"'{op}' needs a condition before 'for', but this is {tshow(elem.type)}", g.elem.span, hint=f"e.g. {op}(x.rank > 3 for x in S)")
        if op in ("sum", "max", "min") and not fits(INT, elem.type):
            return self.err("E0301", f"'{op}' needs a number before 'for', but this is {tshow(elem.type)}", g.elem.span, hint=f"e.g. {op}(x.rank for x in S)")
        if op == "set" and isinstance(elem.type, (TSet, TMap, TText)):
            return self.err("E0301", f"a set cannot hold {tshow(elem.type)} values", g.elem.span, hint="sets hold players, components, enum values, numbers or booleans")
        if op == "count" and not (isinstance(g.elem, ast.Name) and g.elem.name == g.var):
            # count(c.rank > 3 for c in S) counts all of S: a trap worth a warning
            self.d.warning(
                "W0604", f"count ignores '{self.src.snippet(g.elem.span)}': it counts the members of the set that pass 'if'", g.elem.span,
                hint=f"write count({g.var} for {g.var} in … if condition)",
            )
        t: Type = {"any": BOOL, "all": BOOL, "count": INT, "sum": INT, "max": INT, "min": INT}.get(op, ERROR)
        if op == "the":
            t = elem.type
        elif op == "set":
            t = TSet(elem.type)
        return ir.Agg(t, sp, op, g.var, coll, elem, filt)

    def call(self, e: ast.Call, scope: Scope) -> ir.Expr:
        n, sp = e.name, e.span
        if n in self.def_sigs and scope.lookup(n) is None:
            self.used.add(("def", n))
            formals, ret = self.def_sigs[n]
            return ir.CallDef(ret, sp, n, self.args(n, formals, e.args, scope, e.name_span, "definition"))
        placed = self.place_call(e, scope)
        if placed is not None:
            return placed
        if n in ir.BOARD_BUILTINS and scope.lookup(n) is None:
            return self.board_call(e, scope)
        if n in ("size", "count", "entries"):
            rec = self.record_call(e, scope)
            if rec is not None:
                return rec
        if n == "entries":
            for a in e.args:
                self.expr(a, scope)
            return self.err("E0408", "'entries' takes one record", e.name_span, hint="entries(R[…]) is the set of the positions of R's entries, from 1")
        if n in ("size", "count"):
            if len(e.args) != 1:
                for a in e.args:
                    self.expr(a, scope)
                return self.err("E0204", f"'{n}' takes one set, not {len(e.args)} arguments", e.name_span, hint=f"{n}(S), or {n}(A + B) for the size of a union")
            x = self.expr(e.args[0], scope)
            self.set_elem(x, e.args[0].span, f"'{n}'")
            return ir.Builtin(TInt(0, None), sp, "size", [x])
        if n in ("min", "max") and len(e.args) == 1:
            x = self.expr(e.args[0], scope)
            elem = self.set_elem(x, e.args[0].span, f"'{n}'")
            if not fits(INT, elem):
                return self.err("E0301", f"'{n}' of a set needs a set of numbers, not of {tshow(elem)}", e.args[0].span, hint="min and max of a set need numbers, e.g. max(x.rank for x in S)")
            return ir.Agg(INT, sp, n, "_", x, ir.Local(elem, sp, "_"), None)
        if n in ("min", "max"):
            if len(e.args) != 2:
                return self.err("E0204", f"'{n}' takes two numbers or one set", e.name_span, hint=f"{n}(a, b), {n}(S) or {n}(x.rank for x in S)")
            args = [self.expect(a, scope, INT, f"an argument of '{n}'") for a in e.args]
            return ir.Builtin(INT, sp, n, args)
        builtin_1 = {"next": (PLAYER, PLAYER), "prev": (PLAYER, PLAYER), "seat": (PLAYER, None), "player": (INT, PLAYER), "abs": (INT, INT)}
        if n in builtin_1:
            arg_t, ret_t = builtin_1[n]
            if n == "seat":
                g = self.game
                ret_t = TInt(1, g.max_players if g else MAX_PLAYERS)
            if len(e.args) != 1:
                for a in e.args:
                    self.expr(a, scope)
                return self.err("E0204", f"'{n}' takes one argument, not {len(e.args)}", e.name_span, hint=BUILTIN_USE[n])
            assert ret_t is not None
            return ir.Builtin(ret_t, sp, n, [self.expect(e.args[0], scope, arg_t, f"the argument of '{n}'")])
        if n in ir.BUILTINS_0:
            return self.err("E0204", f"'{n}' takes no arguments", e.name_span, hint=f"write {n} without parentheses")
        if n in ("any", "all", "sum", "the"):
            return self.err("E0405", f"'{n}' is written with 'for … in …'", sp, hint=f"e.g. {n}(x.rank > 3 for x in hand[p])" if n != "the" else "e.g. the(p for p in players if …)")
        for a in e.args:
            self.expr(a, scope)
        if n in self.proc_sigs:
            return self.err("E0203", f"'{n}' is a procedure: it is a step of the game, not a value", e.name_span, hint=f"run it as a step on its own line: {n}(…)")
        return self.err(
            "E0201", f"unknown definition '{n}'", e.name_span,
            hint=self.suggest(n, [*list(self.def_sigs), "size", "count", "min", "max", "next", "prev", "seat", "player", "abs", "where", "place", *ir.BOARD_BUILTINS, "entries"])
            or f"declare it: define {n}(…) -> type = …",
        )

    def attr(self, e: ast.Attr, scope: Scope) -> ir.Expr:
        if isinstance(e.obj, ast.Name) and e.obj.name in self.enums and scope.lookup(e.obj.name) is None:
            enum = self.enums[e.obj.name]
            self.used.add(("enum", enum.name))
            if e.name not in enum.values:
                return self.err("E0205", f"'{e.name}' is not a value of {enum.name}", e.name_span, hint=self.suggest(e.name, enum.values) or "values: " + ", ".join(enum.values))
            return ir.Const(TEnum(enum.name), e.span, enum.values.index(e.name))
        field = self.record_field(e, scope)
        if field is not None:
            return field
        obj = self.expr(e.obj, scope)
        if isinstance(obj.type, TError):
            return obj
        if self.board_of(obj.type) is not None:
            return self.space_attr(obj, e)
        if not isinstance(obj.type, TComp):
            return self.err("E0205", f"{tshow(obj.type)} has no attribute '{e.name}'", e.name_span, hint="attributes belong to cards and pieces")
        if obj.type.kind is None:
            return self.err("E0205", f"this could be any kind of component, so '{e.name}' is unknown", e.name_span, hint="read attributes from a zone that holds one card or piece type")
        kind = self.kinds[obj.type.kind]
        if e.name not in kind.attrs:
            return self.err("E0205", f"'{kind.name}' has no attribute '{e.name}'", e.name_span, hint=self.suggest(e.name, kind.attrs) or "attributes: " + ", ".join(kind.attrs))
        return ir.AttrRef(kind.attrs[e.name], e.span, obj, kind.name, e.name)

    def index(self, e: ast.Index, scope: Scope) -> ir.Expr:
        if isinstance(e.obj, ast.Name):
            n = e.obj.name
            local = scope.lookup(n)
            if local is not None:
                if isinstance(local.type, TMap):
                    idx = self.expect(e.index, scope, PLAYER, f"the index of '{n}'")
                    return ir.MapGet(local.type.elem, e.span, ir.Local(local.type, e.obj.span, n), idx)
                return self.err("E0303", f"'{n}' is a single value; it takes no index", e.index.span, hint=f"write {n} without […]")
            if n in self.vars:
                v = self.vars[n]
                if self.in_init:
                    return self.err("E0302", "an initial value cannot read another variable", e.span, hint="initial values are constants: literals, enum values, sets and ranges")
                self.used.add(("var", n))
                if isinstance(v.type, TRecord) and not self.record_ok:
                    return self.record_misuse(n, e.span)
                if v.index is None:
                    return self.err("E0303", f"variable '{n}' takes no index", e.index.span, hint=f"write {n} without […]")
                idx = self.expect(e.index, scope, v.index, f"the index of '{n}'")
                return ir.VarRef(v.type, e.span, n, idx)
            if n in self.zones:
                z = self.zones[n]
                self.used.add(("zone", n))
                if z.index is None:
                    return self.err("E0303", f"zone '{n}' is a single zone; it takes no index", e.index.span, hint=f"write {n} without […]")
                idx = self.expect(e.index, scope, z.index, f"the index of '{n}'")
                return ir.ZoneRef(TSet(zone_elem(z)), e.span, n, idx)
            if n in self.def_sigs:
                return self.err("E0303", f"'{n}' is a definition: call it as {n}(…)", e.span, hint=f"write {n}(…)")
            return self.err(
                "E0201", f"unknown name '{n}'", e.obj.span,
                hint=self.suggest(n, list(self.vars) + list(self.zones) + list(scope.all_names())) or "only variables, zones and choices take an index",
            )
        self.expr(e.obj, scope)
        return self.err("E0303", "only variables, zones and per-player choices take an index", e.span, hint="index a variable or zone declared with […], e.g. hand[p]")

    def match(self, e: ast.Match, scope: Scope) -> ir.Expr:
        subj = self.expr(e.subject, scope)
        st = subj.type
        if not isinstance(st, (TInt, TEnum, TError)):
            return self.err("E0301", f"match works on numbers and enum values, not {tshow(st)}", e.subject.span, hint="match on a number or an enum value")
        arms: list[tuple[ir.Expr | None, ir.Expr]] = []
        covered: set[int] = set()
        result_t: Type | None = None
        has_else = False
        for i, arm in enumerate(e.arms):
            conds: list[ir.Expr] = []
            for p in arm.patterns:
                if p.kind == "name":
                    if not isinstance(st, TEnum):
                        self.d.error("E0301", f"'{p.value}' is a name, but the value matched is {tshow(st)}", p.span, hint="match numbers with patterns such as 1, 2 | 3 or 4..6")
                        continue
                    idx = self.enum_index(st.name, str(p.value), p.span)
                    if idx in covered:
                        self.d.warning("W0601", f"'{p.value}' is already matched by an earlier arm", p.span, hint="remove it from this arm")
                    covered.add(idx)
                    conds.append(ir.BinOp(BOOL, p.span, "==", subj, ir.Const(st, p.span, idx)))
                elif p.kind == "int":
                    if not isinstance(st, TInt):
                        self.d.error("E0301", f"{p.value} is a number, but the value matched is {tshow(st)}", p.span, hint=f"match {tshow(st)} values by name")
                        continue
                    conds.append(ir.BinOp(BOOL, p.span, "==", subj, ir.Const(TInt(int(p.value), int(p.value)), p.span, p.value)))
                else:
                    if not isinstance(st, TInt):
                        self.d.error("E0301", "a range pattern needs a number", p.span, hint=f"match {tshow(st)} values by name")
                        continue
                    lo, hi = int(p.value), int(p.hi or 0)
                    if hi - lo >= MAX_RANGE or lo > hi:
                        what = "is empty" if lo > hi else f"has {hi - lo + 1:,} values; the limit is {MAX_RANGE:,}"
                        self.d.error("E0006" if lo <= hi else "E0405", f"the pattern {lo}..{hi} {what}", p.span, hint="write the smaller bound first, within the limit; or use an else arm")
                        continue
                    rng = ir.IntRange(TSet(TInt(lo, hi)), p.span, ir.Const(TInt(lo, lo), p.span, lo), ir.Const(TInt(hi, hi), p.span, hi))
                    conds.append(ir.BinOp(BOOL, p.span, "in", subj, rng))
            value = self.expr(arm.value, scope)
            result_t = value.type if result_t is None else join(result_t, value.type)
            if result_t is None:
                self.d.error("E0301", f"this arm gives {tshow(value.type)}, unlike the arms before it", arm.value.span, hint="every arm must give the same type of value")
                result_t = ERROR
            if not arm.patterns:
                has_else = True
                arms.append((None, value))
                if i + 1 < len(e.arms):
                    self.d.warning(
                        "W0601", "this arm comes after 'else' and is never used", e.arms[i + 1].span,
                        hint="move the 'else' arm to the end",
                    )
                break
            # every pattern of the arm may have had an error: then it matches nothing
            arm_cond: ir.Expr = conds[0] if conds else ir.Const(BOOL, arm.span, False)
            for c in conds[1:]:
                arm_cond = ir.BinOp(BOOL, c.span, "or", arm_cond, c)
            arms.append((arm_cond, value))
        t = result_t or ERROR
        exhaustive = isinstance(st, TEnum) and len(covered) == len(self.enums[st.name].values)
        if has_else:
            out: ir.Expr = arms[-1][1]
            rest = arms[:-1]
        elif exhaustive and arms:
            out = arms[-1][1]
            rest = arms[:-1]
        else:
            out = ir.Fail(t, e.span, "incomplete", "no arm of this match covers the value")
            rest = arms
        for cond, value in reversed(rest):
            assert cond is not None or isinstance(t, TError)
            out = ir.Cond(t, value.span, cond or ir.Const(BOOL, value.span, True), value, out)
        return out
