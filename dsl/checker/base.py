"""The base of the checker: the limits of a ruleset (``MAX_PLAYERS``, ``MAX_COMPONENTS``,
``MAX_RANGE``, ``MAX_SUGGESTIONS``), the scopes of local names, and ``CheckerBase``: the state every
part shares, reporting errors, suggestions, and the methods one part calls in another.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .. import ast, ir
from ..diagnostics import Diagnostics, did_you_mean
from ..source import SourceFile, Span
from ..types import ERROR, Type

AMBIGUITY_KINDS = ("ambiguity", "gap", "contradiction", "translation")

#: How the one-argument builtins are called, for hints.
BUILTIN_USE = {
    "next": "next(p) is the player after p in turn order",
    "prev": "prev(p) is the player before p in turn order",
    "seat": "seat(p) is the seat number of p, from 1",
    "player": "player(n) is the player in seat n, from 1",
    "abs": "abs(x) is the absolute value of a number",
}
MAX_PLAYERS = 16
#: Limits that keep checking and playing a 1 MiB file from running for hours (docs/language.md).
MAX_COMPONENTS = 10_000  # components made by all tables together
MAX_RANGE = 10_000  # values in a range written in an expression, a match pattern or an index type
MAX_SUGGESTIONS = 100


@dataclass
class LocalInfo:
    type: Type
    mutable: bool
    span: Span


@dataclass
class Scope:
    parent: Scope | None = None
    names: dict[str, LocalInfo] = field(default_factory=dict)

    def lookup(self, name: str) -> LocalInfo | None:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self) -> Iterator[str]:
        s: Scope | None = self
        while s is not None:
            yield from s.names
            s = s.parent


def _src(s: ast.Source | None) -> ir.Source | None:
    if s is None:
        return None
    return ir.Source(tuple(ir.Quote(q.lang, q.text) for q in s.quotes), s.span)


def _listing(what: str, names: Iterable[str]) -> str:
    shown = sorted(names)
    if not shown:
        return f"no {what} are declared"
    return f"{what}: " + ", ".join(shown[:12]) + (", …" if len(shown) > 12 else "")


class CheckerBase(ABC):
    """What every part of the checker shares: the source, the diagnostics, the declarations
    collected so far and the names used; and the methods of the expression and flow parts that
    the others call (declared here)."""

    def __init__(self, src: SourceFile, diags: Diagnostics) -> None:
        self.src = src
        self.d = diags
        self.enums: dict[str, ir.EnumInfo] = {}
        self.enum_values: dict[str, list[tuple[str, int]]] = {}
        self.kinds: dict[str, ir.Kind] = {}
        self.zones: dict[str, ir.ZoneInfo] = {}
        self.vars: dict[str, ir.VarInfo] = {}
        self.params: dict[str, ir.ParamInfo] = {}
        self.def_decls: dict[str, ast.DefineDecl] = {}
        self.proc_decls: dict[str, ast.ProcDecl] = {}
        self.def_sigs: dict[str, tuple[list[tuple[str, Type]], Type]] = {}
        self.proc_sigs: dict[str, list[tuple[str, Type]]] = {}
        self.components: list[ir.Component] = []
        self.displays: dict[str, list[str | tuple[str, Span]]] = {}  # a card type's display text, in parts
        self.used: set[tuple[str, str]] = set()
        self.game: ir.GameInfo | None = None
        self.allow_winners = False
        self.in_init = False
        self.decl_spans: dict[str, Span] = {}
        self.suggestions = 0
        self.all_of: dict[str, frozenset[int]] = {}  # a card type's components, an enum's values, by name
        self.question_decls: dict[str, ast.QuestionDecl] = {}
        self.question_sigs: dict[str, tuple[list[tuple[str, Type]], Type]] = {}  # formals, answer type
        # boards and records (boards.py)
        self.board_names: set[str] = set()
        self.boards_ast: dict[str, ast.BoardDecl] = {}
        self.board_attr_types: dict[tuple[str, str], Type] = {}
        self.record_decls: dict[str, ast.RecordDecl] = {}
        self.record_defaults: dict[tuple[str, str], ir.Expr] = {}
        self.record_ok = False  # a record may be named here (the argument of size or entries, a field's base)

    # ---- helpers -----------------------------------------------------------------------------------

    def err(self, code: str, msg: str, span: Span, hint: str | None = None) -> ir.Const:
        self.d.error(code, msg, span, hint)
        return ir.Const(ERROR, span, 0)

    def suggest(self, name: str, candidates: Iterable[str] | Callable[[], Iterable[str]]) -> str | None:
        """'did you mean', for the first MAX_SUGGESTIONS unknown names only: a file with thousands of
        misspellings among thousands of declarations would otherwise take minutes to check.
        ``candidates`` may be a function that lists them, called only when a suggestion is made."""
        self.suggestions += 1
        if self.suggestions > MAX_SUGGESTIONS:
            return None
        return did_you_mean(name, candidates() if callable(candidates) else candidates)

    # ---- what one part calls in another ------------------------------------------------------------

    @abstractmethod
    def expr(self, e: ast.Expr, scope: Scope) -> ir.Expr:
        """The IR of an expression (expressions.py)."""

    @abstractmethod
    def expect(self, e: ast.Expr, scope: Scope, t: Type, what: str) -> ir.Expr:
        """The IR of an expression that must be of type ``t`` (expressions.py)."""

    @abstractmethod
    def set_elem(self, x: ir.Expr, span: Span, what: str) -> Type:
        """The element type of a set, or an error (expressions.py)."""

    @abstractmethod
    def args(self, name: str, formals: list[tuple[str, Type]], args: list[ast.Expr], scope: Scope, span: Span, what: str) -> list[ir.Expr]:
        """The arguments of a call to a definition or procedure (expressions.py)."""

    @abstractmethod
    def block(self, stmts: list[ast.Stmt], parent: Scope) -> list[ir.Stmt]:
        """The IR of a block of statements (flow.py)."""

    @abstractmethod
    def knowledge_stmt(self, s: ast.Stmt, scope: Scope) -> ir.Stmt | None:
        """The IR of a reveal or an ask (knowledge.py)."""

    @abstractmethod
    def place_call(self, e: ast.Call, scope: Scope) -> ir.Expr | None:
        """The IR of where(c) or place(Z), or None for another call (knowledge.py)."""

    @abstractmethod
    def board_of(self, t: Type) -> str | None:
        """The board whose spaces are values of type ``t``, if any (boards.py)."""

    @abstractmethod
    def board_call(self, e: ast.Call, scope: Scope) -> ir.Expr:
        """adjacent, neighbours, distance or steps (boards.py)."""

    @abstractmethod
    def space_attr(self, obj: ir.Expr, e: ast.Attr) -> ir.Expr:
        """An attribute of a space (boards.py)."""

    @abstractmethod
    def record_call(self, e: ast.Call, scope: Scope) -> ir.Expr | None:
        """size or entries of a record, None when the argument is no record (boards.py)."""

    @abstractmethod
    def record_field(self, e: ast.Attr, scope: Scope) -> ir.Expr | None:
        """A field of an entry of a record, None when ``e`` reads no record (boards.py)."""

    @abstractmethod
    def record_misuse(self, name: str, span: Span) -> ir.Expr:
        """The error for a record named where a value is needed (boards.py)."""

    @abstractmethod
    def append_stmt(self, s: ast.Append, scope: Scope) -> ir.Stmt | None:
        """The IR of an append statement (boards.py)."""

    @abstractmethod
    def observe_stmt(self, s: ast.Observe, scope: Scope) -> ir.Stmt:
        """The IR of an observe statement (boards.py)."""
