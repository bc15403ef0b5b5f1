"""How values and code are laid out: how a value of each type is held (``rep_of``, ``py_type``,
``zero_of``), small spellings of code (``bare``, ``at``), where a local lives (``Loc``, ``Scope``),
the records of the flow's code (``Point``, ``Piece``, ``BlockRec``, ``Cont``, ``Hoist``), the
function being written (``Fn``), and where zones, variables and parameters live in a state
(``Layout``).  Plain data; the compiler's parts all read it.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TSet, TText, Type
from rulecheck.dsl.values import small_numbers


class GenerationError(Exception):
    """The ruleset is valid but cannot be spelled as an engine (a limit of the generator)."""


#: Whether the engine being generated holds its sets of small numbers as masks: set by the
#: compiler for its ruleset (dsl.values.small_numbers_sound: not where a range written with
#: parameters could leave 0..63 with other parameter values than those its type was given with).
SMALL_MASKS: ContextVar[bool] = ContextVar("small_masks", default=False)


def rep_of(t: Type) -> str | None:
    """How a value of this type is held: 'mask' (int bitmask), 'fs' (frozenset) or None (not a set).
    A set of numbers is a mask where its type keeps them small (dsl.values.small_numbers)."""
    if isinstance(t, TSet):
        return "fs" if isinstance(t.elem, TInt) and not (SMALL_MASKS.get() and small_numbers(t) is not None) else "mask"
    return None


def py_type(t: Type) -> str:
    """The Python annotation of a value of this type."""
    if isinstance(t, TBool):
        return "bool"
    if isinstance(t, TText):
        return "str"
    if isinstance(t, (TInt, TPlayer, TComp, TEnum, TPlace)):
        return "int"
    if isinstance(t, TSet):
        return "int" if rep_of(t) == "mask" else "frozenset[int]"
    if isinstance(t, TMap):
        return "tuple[Any, ...]"
    return "Any"


def zero_of(t: Type) -> str:
    """A placeholder value of the type (never observable: used only to give a variable a type)."""
    if isinstance(t, TBool):
        return "False"
    if isinstance(t, TText):
        return "''"
    if rep_of(t) == "fs":
        return "_EMPTY"
    if isinstance(t, TMap):
        return "()"
    return "0"


def bare(code: str) -> str:
    """Drop one pair of parentheses around a whole expression (used where they are redundant)."""
    if code.startswith("(") and code.endswith(")") and "'" not in code and '"' not in code:
        depth = 0
        for i, ch in enumerate(code):
            depth += ch in "(["
            depth -= ch in ")]"
            if (depth == 0 and i < len(code) - 1) or (depth == 1 and ch == ","):
                return code  # not one parenthesized expression, or a tuple
        return code[1:-1]
    return code


def at(span: Span) -> str:
    return f"{span.line}, {span.col}"


#: the mask of every seat; loops over it run over ``range(n)``, which compiles to a plain counter
ALL_PLAYERS = "((1 << n) - 1)"


def zone_update(inst: str, op: str, value: str) -> str:
    """``Z[inst] = Z[inst] op value``: compiled, that is computed on machine integers, where the
    augmented ``Z[inst] op= value`` goes through Python's generic operators (mypyc does not type
    an item's augmented assignment); interpreted, it is no slower."""
    operand = value if re.fullmatch(r"\w+", value) else f"({value})"
    return f"Z[{inst}] = Z[{inst}] {op} {operand}"


def members(mask: str) -> str:
    """A Python iterable over the members of a mask, in ascending order."""
    if mask == ALL_PLAYERS:
        return "range(n)"
    if mask.isdigit() and int(mask).bit_count() <= 64:
        # a mask known now: its members, written out
        return "(" + "".join(f"{i}, " for i in range(int(mask).bit_length()) if int(mask) >> i & 1) + ")"
    return f"_BITS[{mask}]"


#: code that reads a name, a constant or one subscript/attribute of a name: cheap and cannot fail
SIMPLE = re.compile(r"^(?:-?\d+|[A-Za-z_]\w*|[A-Za-z_]\w*\[(?:-?\d+|[A-Za-z_]\w*)\]|[A-Za-z_]\w*\.[A-Za-z_]\w*|True|False)$")


@dataclass
class Loc:
    """Where a local lives: a Python name or a slot ``L[k]``."""

    code: str
    type: Type
    rep: str | None
    #: (zone, instance, epoch) for a component known to be in that zone instance while no
    #: statement that can move components has been compiled since (Compiler.epoch)
    where: tuple[str, str, int] | None = None
    #: (lo, hi) for a number known to lie in lo..hi (a member of a constant range)
    bounds: tuple[int, int] | None = None
    #: for the choices of a simultaneous decision, the local holding the set of players who chose
    #: (and how many local assignments had been compiled then); for a member of a set held in a
    #: local, the same for that local
    among: tuple[int, int] | None = None
    #: for the choices of a simultaneous decision of every player, how many local assignments had
    #: been compiled then: while none has since, each player's choice is there
    everyone: int | None = None


@dataclass
class Scope:
    parent: Scope | None = None
    names: dict[str, Loc] = field(default_factory=dict)

    def get(self, name: str) -> Loc:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        raise GenerationError(f"unknown local '{name}'")  # the checker resolves every name


@dataclass
class Point:
    """A decision of the flow: the state waits here for an action."""

    kind: str  # "chance", "player", "simultaneous"
    label: str
    secret: bool
    type: Type | None
    span: Span
    secret_if: str | None = None  # secret only while this bool parameter is true


@dataclass
class Piece:
    """The code of one statement of the flow, from its start."""

    lines: list[str]
    falls: bool  # can control pass its end? (not after 'end' or a decision)


@dataclass(eq=False)
class BlockRec:
    """The statements of a block of the flow, as code, and what runs when the block is done."""

    tail: Cont | None  # None: the flow is over
    pieces: list[Piece] = field(default_factory=list)
    falls: bool = True  # can the code that runs the block from its start pass its end?


@dataclass(eq=False)
class Cont:
    """What runs once a construct holding decisions is done: its loop's next rounds (``advance``
    then ``loop``; empty for a procedure call or an if), then the statements after it."""

    rec: BlockRec  # the block the construct is in
    index: int  # its position there
    advance: list[str] = field(default_factory=list)
    loop: list[str] = field(default_factory=list)


@dataclass
class Hoist:
    """Where values looked up inside the loops of an expression go: before its outermost loop."""

    lines: list[str]
    at: int
    ind: int
    scope: Scope  # the locals there
    names: dict[str, str] = field(default_factory=dict)

    def scope_get(self, name: str) -> Loc | None:
        try:
            return self.scope.get(name)
        except GenerationError:
            return None


class Fn:
    """One Python function being written: its lines, indentation and fresh names."""

    def __init__(self, indent: int) -> None:
        self.lines: list[str] = []
        self.ind = indent
        self.counter = 0
        self.loops = 0
        self.uses: set[str] = set()

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    def fresh(self, base: str = "t") -> str:
        self.counter += 1
        return f"{base}{self.counter}"


class Layout:
    """Where zone instances, variables and attribute tables live in a state, independent of the
    player count (player-indexed zones and variables get a place for every possible seat)."""

    def __init__(self, program: ir.Program) -> None:
        rules = program.rules
        self.rules = rules
        self.maxp = rules.game.max_players
        self.ncomp = len(rules.components)
        self.kind_ids = {k: [c.cid for c in rules.components if c.kind == k] for k in rules.kinds}
        self.zone_base: dict[str, int] = {}
        pos = 0
        for z in rules.zones.values():
            self.zone_base[z.name] = pos
            pos += self.size(z.index)
        self.nzones = pos
        self.var_base: dict[str, int] = {}
        pos = 0
        for v in rules.vars.values():
            self.var_base[v.name] = pos
            pos += self.size(v.index)
        self.nvars = pos
        self.params = list(rules.params)

    def size(self, t: Type | None) -> int:
        if t is None:
            return 1
        if isinstance(t, TPlayer):
            return self.maxp
        if isinstance(t, TComp):
            return self.ncomp  # indexed by component id, so any id is in bounds
        if isinstance(t, TEnum):
            return len(self.rules.enums[t.name].values)
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return t.hi - t.lo + 1
        raise GenerationError(f"cannot index by {t.show()}")

    def offset(self, t: Type, value: int) -> int:
        """The position of index ``value`` within an indexed zone or variable."""
        if isinstance(t, TInt):
            assert t.lo is not None
            return value - t.lo
        return value

    def domain(self, t: Type) -> list[int] | None:
        """The index values, or None for players (they depend on the player count)."""
        if isinstance(t, TPlayer):
            return None
        if isinstance(t, TComp):
            return list(self.kind_ids.get(t.kind or "", range(self.ncomp)))
        if isinstance(t, TEnum):
            return list(range(len(self.rules.enums[t.name].values)))
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return list(range(t.lo, t.hi + 1))
        raise GenerationError(f"no finite domain for {t.show()}")
