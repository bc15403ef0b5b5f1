"""The types of the rules language.

Values at run time are deliberately plain so every back end can share them: booleans, ints,
players as seat indexes (0-based), components as global ids, enum values as ordinals, texts as str,
sets as frozensets of those, and the result of ``choose each`` as a tuple indexed by seat.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every integer of a game lies in -MAX_INT..MAX_INT (docs/language.md, "Numbers"): a literal
#: beyond it is an error (E0106), so is a constant computed beyond it (E0305), and in play a value
#: an operator or a sum computes beyond it is a *range* error, in every back end alike.
MAX_INT = 2**31 - 1


@dataclass(frozen=True)
class Type:
    # a plain class, not an ABC: every back end tests types with isinstance, and an ABC's
    # isinstance runs a Python-level __instancecheck__ each time
    def show(self) -> str:
        raise NotImplementedError(type(self).__name__)

    def __str__(self) -> str:
        return self.show()


@dataclass(frozen=True)
class TBool(Type):
    def show(self) -> str:
        return "bool"


@dataclass(frozen=True)
class TInt(Type):
    lo: int | None = None
    hi: int | None = None

    def show(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"{self.lo}..{self.hi}"
        return "int"


@dataclass(frozen=True)
class TText(Type):
    def show(self) -> str:
        return "text"


@dataclass(frozen=True)
class TPlayer(Type):
    def show(self) -> str:
        return "player"


@dataclass(frozen=True)
class TEnum(Type):
    name: str

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class TComp(Type):
    """A component (card or piece) of one kind, or of any kind when ``kind`` is None."""

    kind: str | None

    def show(self) -> str:
        return self.kind or "component"


@dataclass(frozen=True)
class TPlace(Type):
    """A place a component can be: one zone instance (``place(hand[p])``, ``where(c)``). Its
    value is the instance's number in ``values.place_table``, the same in every back end."""

    def show(self) -> str:
        return "place"


@dataclass(frozen=True)
class TSet(Type):
    elem: Type

    def show(self) -> str:
        return f"set of {self.elem.show()}"


@dataclass(frozen=True)
class TMap(Type):
    """What ``choose each`` binds: one value per player, read as ``name[p]``."""

    elem: Type

    def show(self) -> str:
        return f"{self.elem.show()} per player"


@dataclass(frozen=True)
class TRecord(Type):
    """A record: the entries written so far, each with the same fields, read by position from 1.
    Values are tuples of entries, an entry a tuple of its field values in declaration order."""

    name: str
    fields: tuple[tuple[str, Type], ...]

    def show(self) -> str:
        return f"record {self.name}"

    def field(self, name: str) -> Type | None:
        return next((t for f, t in self.fields if f == name), None)


@dataclass(frozen=True)
class TAny(Type):
    """The element type of ``{}``: fits any set."""

    def show(self) -> str:
        return "anything"


@dataclass(frozen=True)
class TError(Type):
    """The type of an expression that already has an error; fits everywhere to avoid cascades."""

    def show(self) -> str:
        return "<error>"


BOOL = TBool()
INT = TInt()
TEXT = TText()
PLAYER = TPlayer()
PLACE = TPlace()
ANY = TAny()
ERROR = TError()


def base(t: Type) -> Type:
    """Ranges are one type for compatibility purposes."""
    return INT if isinstance(t, TInt) else t


def fits(expected: Type, actual: Type) -> bool:
    """Can a value of type ``actual`` be used where ``expected`` is required?"""
    if isinstance(expected, TError) or isinstance(actual, TError):
        return True
    if isinstance(actual, TAny) or isinstance(expected, TAny):
        return True
    if isinstance(expected, TInt) and isinstance(actual, TInt):
        return True
    if isinstance(expected, TComp) and isinstance(actual, TComp):
        return expected.kind is None or actual.kind is None or expected.kind == actual.kind
    if isinstance(expected, TSet) and isinstance(actual, TSet):
        return fits(expected.elem, actual.elem)
    if isinstance(expected, TMap) and isinstance(actual, TMap):
        return fits(expected.elem, actual.elem)
    return expected == actual


def join(a: Type, b: Type) -> Type | None:
    """The common type of two branches, or None if they do not mix."""
    if isinstance(a, TError) or isinstance(a, TAny):
        return b
    if isinstance(b, TError) or isinstance(b, TAny):
        return a
    if isinstance(a, TInt) and isinstance(b, TInt):
        if None in (a.lo, a.hi, b.lo, b.hi):
            return INT
        return TInt(min(a.lo, b.lo), max(a.hi, b.hi))  # type: ignore[type-var]
    if isinstance(a, TComp) and isinstance(b, TComp):
        return a if a.kind == b.kind else TComp(None)
    if isinstance(a, TSet) and isinstance(b, TSet):
        e = join(a.elem, b.elem)
        return TSet(e) if e is not None else None
    return a if a == b else None


def is_choosable(t: Type) -> bool:
    """Types whose values can be OpenSpiel actions (non-negative ints)."""
    if isinstance(t, (TBool, TPlayer, TEnum, TComp, TPlace, TError)):
        return True
    return isinstance(t, TInt) and t.lo is not None and t.lo >= 0 and t.hi is not None
