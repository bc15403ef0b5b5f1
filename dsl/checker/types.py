"""Types and constants: the types written in the rules (``resolve_type``), signatures, constant
expressions and their values (``const``, ``const_value``), and how types read in messages
(``tshow``, ``type_hint``).
"""

from __future__ import annotations

from .. import ast, ir
from ..source import Span
from ..types import BOOL, ERROR, INT, PLACE, PLAYER, TEXT, TBool, TComp, TEnum, TError, TInt, TMap, TPlayer, TSet, TText, Type, fits
from .base import MAX_RANGE, CheckerBase, Scope


class Types(CheckerBase):
    """Types written in the rules, constant values, signatures."""

    def resolve_type(self, t: ast.TypeExpr) -> Type:
        if isinstance(t, ast.TBool):
            return BOOL
        if isinstance(t, ast.TInt):
            return INT
        if isinstance(t, ast.TRange):
            if t.lo > t.hi:
                self.d.error("E0405", f"the range {t.lo}..{t.hi} is empty", t.span, hint="write the smaller bound first")
                return ERROR  # no value fits; checking uses of it would only repeat the error
            return ir_range(t.lo, t.hi)
        if isinstance(t, ast.TText):
            return TEXT
        if isinstance(t, ast.TPlayer):
            return PLAYER
        if isinstance(t, ast.TPlace):
            return PLACE
        if isinstance(t, ast.TSet):
            elem = self.resolve_type(t.elem)
            if isinstance(elem, (TSet, TText)):
                self.d.error("E0301", f"a set cannot hold {tshow(elem)} values", t.span, hint="sets hold players, components, enum values, numbers or booleans")
                return ERROR
            return TSet(elem)
        if isinstance(t, ast.TNamed):
            if t.name in self.enums:
                self.used.add(("enum", t.name))
                return TEnum(t.name)
            if t.name in self.kinds:
                return TComp(t.name)
            self.d.error(
                "E0201", f"unknown type '{t.name}'", t.span,
                hint=self.suggest(t.name, list(self.enums) + list(self.kinds) + ["bool", "int", "text", "player", "place"])
                or "types: bool, int, text, player, place, a range such as 1..5, set of …, or a declared enum, card or piece",
            )
            return ERROR
        return ERROR  # pragma: no cover

    def resolve_index_type(self, t: ast.TypeExpr | None) -> Type | None:
        if t is None:
            return None
        typ = self.resolve_type(t)
        if isinstance(typ, TComp) or isinstance(typ, (TPlayer, TEnum, TError)):
            return typ
        if isinstance(typ, TInt) and typ.lo is not None and typ.hi is not None:
            if typ.hi - typ.lo >= MAX_RANGE:
                self.d.error("E0006", f"an index range of {typ.hi - typ.lo + 1:,} values; the limit is {MAX_RANGE:,}", t.span, hint="index by a smaller range, a player, an enum or a card type")
                return ERROR
            return typ
        self.d.error("E0303", f"cannot index by {tshow(typ)}", t.span, hint="index by player, a card or piece type, an enum or a range such as 1..5")
        return ERROR

    def signature(self, formals: list[ast.Formal], ret: ast.TypeExpr | None) -> tuple[list[tuple[str, Type]], Type]:
        out: list[tuple[str, Type]] = []
        seen: set[str] = set()
        for f in formals:
            if f.name in seen:
                self.d.error("E0202", f"parameter '{f.name}' is declared twice", f.span, hint="give each parameter its own name")
            seen.add(f.name)
            t = self.resolve_type(f.type)
            if isinstance(t, TMap):
                self.d.error("E0301", "a parameter cannot be a per-player choice", f.span, hint="pass one player's choice instead, e.g. f(choice[p])")
            out.append((f.name, t))
        return out, (self.resolve_type(ret) if ret is not None else BOOL)

    def const(self, e: ast.Expr, t: Type, what: str) -> ir.Value:
        """Check and evaluate a constant expression (literals, enum values, sets, ranges, params)."""
        x = self.expect(e, Scope(), t, what)
        value = const_value(x, self.params)
        if value is None:
            if not isinstance(x.type, TError):
                self.d.error("E0302", f"{what} must be a constant", e.span, hint="use literals, enum values, sets and ranges of them")
            return False
        if isinstance(t, TInt) and isinstance(value, int) and not isinstance(value, bool):
            if (t.lo is not None and value < t.lo) or (t.hi is not None and value > t.hi):
                self.d.error("E0304", f"{what} is {value}, outside {tshow(t)}", e.span, hint=f"use a value within {tshow(t)}, or widen the type")
        return value

    def check_const_range(self, value: ir.Expr, t: Type, span: Span, name: str) -> None:
        v = const_value(value, self.params)
        if isinstance(t, TInt) and isinstance(v, int) and not isinstance(v, bool):
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                self.d.error("E0304", f"{v} is outside {tshow(t)}, the type of '{name}'", span, hint=f"use a value within {tshow(t)}, or widen the type of '{name}'")


# ---- types in messages, values of constants -----------------------------------------------------


def tshow(t: Type) -> str:
    """A type as messages show it: the type of a number literal is a one-value range, but reads
    better as plain 'int'."""
    if isinstance(t, TInt) and t.lo is not None and t.lo == t.hi:
        return "int"
    if isinstance(t, TSet):
        return f"set of {tshow(t.elem)}"
    if isinstance(t, TMap):
        return f"{tshow(t.elem)} per player"
    return t.show()


def ir_range(lo: int, hi: int) -> TInt:
    return TInt(lo, hi)


def zone_elem(z: ir.ZoneInfo) -> Type:
    return TComp(z.kinds[0]) if len(z.kinds) == 1 else TComp(None)


def type_hint(expected: Type, actual: Type) -> str:
    """How to turn a value of type ``actual`` into the ``expected`` one, or what to write instead."""
    if isinstance(expected, TSet) and fits(expected.elem, actual):
        return "put it in braces to make a set: {…}"
    if isinstance(actual, TSet) and fits(expected, actual.elem):
        return "this is a set; pick one element, e.g. with the(x for x in … if …)"
    if isinstance(actual, TSet) and isinstance(expected, TInt):
        return "size(S) counts the members of a set"
    if isinstance(expected, TBool) and isinstance(actual, TInt):
        return "compare it, e.g. … > 0"
    if isinstance(expected, TPlayer) and isinstance(actual, TInt):
        return "player(n) is the player in seat n"
    if isinstance(expected, TInt) and isinstance(actual, TPlayer):
        return "seat(p) is the seat number of a player"
    if {type(expected), type(actual)} == {TEnum, TInt}:
        return "enum values are written by name, e.g. x == hearts, and are not numbers"
    if isinstance(expected, TText) or isinstance(actual, TText):
        return "texts only label things; compare enum values or numbers instead"
    return f"a value of type {tshow(expected)} is needed here (the types are listed in docs/language.md)"


def const_value(x: ir.Expr, params: dict[str, ir.ParamInfo]) -> ir.Value | None:
    """The value of a constant expression, or None if it depends on the state of a game."""
    if isinstance(x, ir.Const):
        return x.value
    if isinstance(x, ir.ParamRef) and x.name in params:
        return params[x.name].value
    if isinstance(x, ir.Unary) and x.op == "neg":
        v = const_value(x.operand, params)
        return -v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(x, ir.SetOf):
        vals = [const_value(i, params) for i in x.items]
        if any(v is None for v in vals):
            return None
        return frozenset(vals)  # type: ignore[arg-type]
    if isinstance(x, ir.IntRange):
        lo, hi = const_value(x.lo, params), const_value(x.hi, params)
        if isinstance(lo, int) and isinstance(hi, int):
            return frozenset(range(lo, hi + 1))
    return None
