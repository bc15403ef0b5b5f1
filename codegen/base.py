"""The base of the compiler: the state its parts share (``CompilerBase``), writing lines of code
into the function being compiled, slots for locals that outlive a decision, the statement
counter of the step budget, and the expression methods other parts call (declared here,
spelled in ``expressions.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import Type
from rulecheck.dsl.values import small_numbers_sound

from .analysis import Analysis
from .layout import ALL_PLAYERS, SIMPLE, SMALL_MASKS, BlockRec, Cont, Fn, GenerationError, Hoist, Layout, Loc, Point, Scope, at, rep_of
from .literals import comment_text, ident

#: CPython refuses more than 20 statically nested loops in one function; keep a margin.
MAX_LOOP_DEPTH = 18


class CompilerBase(ABC):
    """What every part of the compiler shares: the program, the layout, the function being written
    and its scope, the decision points and continuations of the flow; writing lines; slots; and
    the expression methods the statement parts call (``expressions.py`` spells them)."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.rules = program.rules
        # (for the whole of this engine's generation, which starts here)
        SMALL_MASKS.set(small_numbers_sound(self.rules))
        self.layout = Layout(program)
        self.order = 1 if self.rules.game.order == "clockwise" else -1
        self.points: list[Point] = []
        self.shows: dict[str, str] = {}  # show expression template -> function name
        self.fn = Fn(1)
        self.scope = Scope()
        self.slot_top = 0
        self.slot_max = 0
        self.point_counts: dict[int, int] = {}
        self.resumes: dict[int, tuple[list[str], BlockRec, int]] = {}  # point -> code after it, where
        self.loop_draws: set[int] = set()  # points of draws of more than one component
        self.chance_zones: dict[int, str] = {}  # the zone each chance point draws from
        self.observe_points: dict[int, int] = {}  # chance points of a perception's error: how far off it can be
        self.fast: list[str] = []  # apply_action's own code for those draws
        self.cont_names: dict[Cont, str] = {}  # continuations written as functions
        self.cont_memo: dict[Cont, list[str]] = {}
        self.end_line = ""
        self.rest: list[ir.Stmt] = []
        self.bounded = False
        self.analysis = Analysis(program)
        self.subst: dict[int, tuple[str, str | None]] = {}  # IR nodes already computed, by id
        self.hoist: Hoist | None = None
        self.epoch = 0  # counts the statements compiled that may move components (see Loc.where)
        self.local_epoch = 0  # counts the assignments of locals compiled (see Loc.among)

    # ---- what the flow uses ------------------------------------------------------------------------

    def proc(self, name: str) -> ir.Procedure:
        p = self.program.procs[name]
        if p.body is None:
            raise GenerationError(f"procedure '{name}' has no body under the chosen readings")
        return p

    def count_points(self, s: ir.Stmt) -> int:
        """How many decision points a statement holds (procedures included, as inlined)."""
        got = self.point_counts.get(id(s))
        if got is not None:
            return got
        n = 0
        if isinstance(s, (ir.Draw, ir.Choose, ir.ChooseEach)):
            n = 1
        elif isinstance(s, ir.Observe):
            n = 1 if s.mode == "within" and s.amount > 0 else 0
        elif isinstance(s, ir.If):
            n = self.block_points(s.then) + self.block_points(s.else_)
        elif isinstance(s, (ir.ForEach, ir.Repeat, ir.RepeatUntil, ir.While)):
            n = self.block_points(s.body)
        elif isinstance(s, ir.CallProc):
            body = self.proc(s.name).body
            assert body is not None
            n = self.block_points(body)
        self.point_counts[id(s)] = n
        return n

    def block_points(self, stmts: list[ir.Stmt]) -> int:
        return sum(self.count_points(s) for s in stmts)

    # ---- writing code ------------------------------------------------------------------------------

    @contextmanager
    def capture(self, extra: int = 0) -> Iterator[list[str]]:
        """Compile into a separate list of lines (a preamble that may have to move)."""
        fn = self.fn
        saved = fn.lines
        fn.lines = []
        fn.ind += extra
        buf = fn.lines
        try:
            yield buf
        finally:
            fn.lines = saved
            fn.ind -= extra

    @contextmanager
    def capture_rel(self) -> Iterator[list[str]]:
        """Compile into a separate list of lines indented from zero (code that is also used
        elsewhere, at another depth)."""
        fn = self.fn
        saved, saved_ind = fn.lines, fn.ind
        fn.lines, fn.ind = [], 0
        buf = fn.lines
        try:
            yield buf
        finally:
            fn.lines, fn.ind = saved, saved_ind

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.fn.ind += 1
        try:
            yield
        finally:
            self.fn.ind -= 1

    @contextmanager
    def loop(self) -> Iterator[None]:
        self.fn.loops += 1
        if self.fn.loops > MAX_LOOP_DEPTH:
            raise GenerationError(f"loops and aggregates nest more than {MAX_LOOP_DEPTH} deep, more than Python allows in one function")
        try:
            with self.indented():
                yield
        finally:
            self.fn.loops -= 1

    def emit(self, text: str) -> None:
        self.fn.emit(text)

    def splice(self, lines: list[str]) -> None:
        pad = "    " * self.fn.ind
        self.fn.lines.extend(pad + x for x in lines)

    def materialize(self, code: str) -> str:
        if SIMPLE.match(code) or code == ALL_PLAYERS:
            return code
        t = self.fn.fresh()
        self.emit(f"{t} = {code}")
        return t

    def uses(self, what: str) -> None:
        self.fn.uses.add(what)

    def comment(self, s: ir.Stmt, what: str) -> None:
        self.emit(f"# {s.span.line}:{s.span.col} {comment_text(what)}")

    def tick(self, span: Span) -> None:
        if self.bounded:
            return  # the budget cannot run out: no run between two decisions is that long
        # st counts down the statements left in the budget (the interpreter's tick)
        self.emit("st -= 1")
        self.emit("if not st:")
        self.emit(f"    _over({at(span)})")

    # ---- locals of the flow ------------------------------------------------------------------------

    def alloc(self) -> str:
        k = self.slot_top
        self.slot_top += 1
        self.slot_max = max(self.slot_max, self.slot_top)
        return f"L[{k}]"

    def bind(self, scope: Scope, name: str, t: Type, slot: bool, rep: str | None = None) -> Loc:
        code = self.alloc() if slot else self.fn.fresh(f"x_{ident(name)}_")
        loc = Loc(code, t, rep if rep is not None else rep_of(t))
        scope.names[name] = loc
        return loc

    # ---- what one part calls in another (spelled in expressions.py) --------------------------------

    @abstractmethod
    def ex(self, e: ir.Expr, rep: str | None = None) -> str:
        """A Python expression for ``e``; its preamble is emitted first."""

    @abstractmethod
    def ex_seq(self, items: list[tuple[ir.Expr, str | None]]) -> list[str]:
        """Operands left to right, computed in the interpreter's order."""

    @abstractmethod
    def index_code(self, t: Type | None, index: ir.Expr | None, base: int, what: str) -> str:
        """The position of an indexed zone instance or variable."""

    @abstractmethod
    def zone_instance(self, zone: str, index: ir.Expr | None) -> str:
        """The number of a zone instance."""

    @abstractmethod
    def point(self, kind: str, s: ir.Stmt, label: str = "", secret: bool = False, t: Type | None = None) -> int:
        """A new decision point (decisions.py)."""

    @abstractmethod
    def suspend(self, point: int, cp: str, options: str) -> None:
        """Wait at a decision point (decisions.py)."""

    @abstractmethod
    def show(self, t: Type | None, x: str) -> str:
        """The text of a value, as dsl/values.show gives it (compiler.py)."""

    @abstractmethod
    def board_builtin(self, e: ir.Builtin, args: list[str]) -> tuple[str, str | None]:
        """adjacent, neighbours, distance, steps (boards.py)."""

    @abstractmethod
    def record_builtin(self, e: ir.Builtin, args: list[str]) -> tuple[str, str | None]:
        """length and entries of a record (boards.py)."""
