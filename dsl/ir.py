"""The typed intermediate representation: one meaning, read by every back end.

The checker (dsl/checker/) builds it from the AST; the interpreter gives it its meaning over
concrete values, the code generator spells it as Python, the verifier evaluates it over z3 terms and
the reports render it back into English.  It has no sugar: ``match`` is a chain of conditionals,
names are resolved, every node is typed and carries its span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .source import Span
from .types import Type

Value = bool | int | str | frozenset[Any] | tuple[Any, ...]


@dataclass(frozen=True)
class Quote:
    lang: str | None  # None: the rulebook's own language
    text: str


@dataclass(frozen=True)
class Source:
    quotes: tuple[Quote, ...]
    span: Span

    @property
    def text(self) -> str:
        return self.quotes[0].text


# ---- expressions ------------------------------------------------------------------------------


@dataclass(eq=False)
class Expr:
    type: Type
    span: Span


@dataclass(eq=False)
class Const(Expr):
    value: Value


@dataclass(eq=False)
class Local(Expr):
    name: str


@dataclass(eq=False)
class VarRef(Expr):
    name: str
    index: Expr | None


@dataclass(eq=False)
class ParamRef(Expr):
    name: str


@dataclass(eq=False)
class ZoneRef(Expr):
    """The set of components in one zone (``hand[p]``)."""

    zone: str
    index: Expr | None


@dataclass(eq=False)
class PlaceOf(Expr):
    """``place(hand[p])``: a zone instance as a value of type place (values.place_table)."""

    zone: str
    index: Expr | None


@dataclass(eq=False)
class AttrRef(Expr):
    obj: Expr
    kind: str
    attr: str


@dataclass(eq=False)
class CallDef(Expr):
    name: str
    args: list[Expr]


#: Builtins: players, num_players, winners (no arguments); next, prev, seat, player, size, abs,
#: where (one: the place of a component); min, max (two).
BUILTINS_0 = ("players", "num_players", "winners")
BUILTINS_1 = ("next", "prev", "seat", "player", "size", "abs", "where")
BUILTINS_2 = ("min", "max")
#: The components of one kind that are in play in this game (no arguments; the kind is that of the
#: type, a set of it): what a kind's name stands for when its table depends on parameters
#: (``Component.when``).  Not a name a ruleset can write.
IN_PLAY = "in_play"


#: Builtins of boards (the board is the type of their first argument): adjacent(a, b),
#: neighbours(a), distance(a, b, via), steps(a, n, stop, via); of records: length(R), entries(R).
BOARD_BUILTINS = ("adjacent", "neighbours", "distance", "steps")


@dataclass(eq=False)
class Builtin(Expr):
    op: str
    args: list[Expr]


@dataclass(eq=False)
class SpaceAttr(Expr):
    """An attribute of a space of a board (``s.kind``)."""

    obj: Expr
    board: str
    attr: str


@dataclass(eq=False)
class RecordField(Expr):
    """A field of the entry at a position (from 1) of a record: ``passbook[p][i].mark``."""

    record: Expr  # a VarRef of a record
    pos: Expr
    field: str


@dataclass(eq=False)
class Unary(Expr):
    op: str  # "not", "neg"
    operand: Expr


#: Binary operators: and or (short-circuit) + - * / % (ints; / and % floor) == != < <= > >=
#: in (membership) union diff (sets).
@dataclass(eq=False)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Cond(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass(eq=False)
class SetOf(Expr):
    items: list[Expr]


@dataclass(eq=False)
class IntRange(Expr):
    lo: Expr
    hi: Expr


#: Aggregates over ``elem for var in coll if filt``: set any all count sum max min the.
AGGREGATES = ("set", "any", "all", "count", "sum", "max", "min", "the")


@dataclass(eq=False)
class Agg(Expr):
    op: str
    var: str
    coll: Expr
    elem: Expr
    filt: Expr | None


@dataclass(eq=False)
class MapGet(Expr):
    map: Expr
    index: Expr


@dataclass(eq=False)
class Fail(Expr):
    """Evaluation reaches a situation no rule covers (a ``match`` with no matching arm)."""

    kind: str
    message: str


# ---- statements -------------------------------------------------------------------------------

@dataclass(eq=False)
class Stmt:
    span: Span
    source: Source | None
    #: A number unique within the ruleset, given by the checker in text order; the verifier keys
    #: its symbolic choices by it, so it must not depend on anything but the rules text.
    sid: int = field(init=False, default=0)


@dataclass(eq=False)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(eq=False)
class Assign(Stmt):
    """``set``: ``local`` is True for a let-bound name, else a state variable."""

    name: str
    local: bool
    index: Expr | None
    value: Expr
    type: Type


@dataclass(eq=False)
class Move(Stmt):
    what: Expr  # a component or a set of components
    zone: str
    index: Expr | None


@dataclass(eq=False)
class Draw(Stmt):
    count: Expr
    src: str
    src_index: Expr | None
    dst: str
    dst_index: Expr | None
    bind: str | None


@dataclass(eq=False)
class Choose(Stmt):
    bind: str
    options: Expr
    chooser: Expr
    label: str
    secret: bool
    type: Type
    secret_if: str | None = None  # `secret when P`: secret only while the bool parameter P is true


@dataclass(eq=False)
class ChooseEach(Stmt):
    bind: str
    pvar: str
    players: Expr
    options: Expr
    label: str
    secret: bool
    type: Type
    secret_if: str | None = None


@dataclass(eq=False)
class Ask(Choose):
    """A statement with a truth obligation: the speaker (``chooser``) answers a question. It is a
    choice whose options are the answers the obligation allows; the checker builds ``options``
    from the question's definitions (Question.part): the answers of the domain that are true
    while ``may_truth`` holds, and those that are false and meet the question's lie rule while
    ``may_lie`` holds. Back ends that know only choices play it as one."""

    question: str = ""
    args: list[Expr] = field(default_factory=list)
    may_truth: Expr | None = None
    may_lie: Expr | None = None
    #: the true answers of the domain (whatever the obligation): the engines record, with each
    #: answer, whether it was one of them
    truths: Expr | None = None


@dataclass(eq=False)
class Reveal(Stmt):
    """``reveal WHAT to WHO``: each player of WHO sees the components of WHAT where they lie, and
    remembers it until the component moves (observations show what a player remembers)."""

    what: Expr  # a component or a set of components
    who: Expr  # a set of players


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    else_: list[Stmt]
    else_source: Source | None = None


@dataclass(eq=False)
class ForEach(Stmt):
    var: str
    coll: Expr
    start: Expr | None
    body: list[Stmt]


@dataclass(eq=False)
class Repeat(Stmt):
    count: Expr
    body: list[Stmt]


@dataclass(eq=False)
class RepeatUntil(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False)
class CallProc(Stmt):
    name: str
    args: list[Expr]


@dataclass(eq=False)
class End(Stmt):
    winners: Expr  # for a draw, no player
    draw: bool = False  # `end draw`: nobody wins and nobody loses


@dataclass(eq=False)
class Say(Stmt):
    parts: list[str | Expr]


@dataclass(eq=False)
class Shuffle(Stmt):
    zone: str
    index: Expr | None


#: How precisely an observation tells its value: "exact"; "within" (perceived up to ``amount``
#: off either way, the error a chance outcome); "than" (only lower, equal or higher than ``ref``).
OBSERVE_MODES = ("exact", "within", "than")


@dataclass(eq=False)
class Observe(Stmt):
    """A player learns a value: the value, a perception of it, or how it compares with another;
    ``bind`` names what the player learnt (the value, the perceived number, or -1 / 0 / 1)."""

    what: Expr
    observer: Expr
    bind: str | None
    mode: str
    amount: int
    ref: Expr | None
    label: str


@dataclass(eq=False)
class Append(Stmt):
    """A new last entry of a record; ``values`` in the order of the record's fields."""

    name: str
    index: Expr | None
    values: list[Expr]


# ---- declarations -----------------------------------------------------------------------------


@dataclass
class GameInfo:
    title: str
    edition: str | None
    language: str
    original: str | None
    min_players: int
    max_players: int
    order: str
    sources: list[Source]
    returns: str = "winners"  # RETURNS: what each player's return is at the end
    players_assumed: str | None = None  # `players LO..HI assumed because "…"`: the rulebook does not say; the rationale
    turn: str | None = None  # `turn NAME`: each call of procedure NAME is one turn (simulate counts them)


#: How a game's end becomes each player's return (``returns`` in the game declaration): a winner's
#: return and a loser's, and in a draw everyone's; "score": each player's score variable.
RETURNS = {"winners": (1.0, 0.0, 0.0), "win_loss": (1.0, -1.0, 0.0), "score": None}


@dataclass
class EnumInfo:
    name: str
    label: str | None
    values: list[str]
    labels: list[str]
    source: Source | None


@dataclass
class Provenance:
    """Where a datum comes from: the rulebook (given), an assumption (with a rationale) or nowhere
    (unspecified: only its domain is known; engines use the default)."""

    kind: str  # "given", "assumed", "unspecified"
    rationale: str | None
    source: Source | None
    span: Span
    default: Value | None = None


@dataclass
class VaryingRow:
    """A table row whose components are in play only in some games: a range of a column up to a
    parameter (``bound``: column, first value, parameter) and/or a guard (``when EXPR``)."""

    cids: list[int]
    bound: tuple[str, int, str] | None
    guard: Expr | None
    span: Span


@dataclass
class Kind:
    name: str
    word: str  # "card" or "piece"
    display: str | None
    attrs: dict[str, Type]
    attr_sources: dict[str, Source | None]
    provenance: dict[str, Provenance]
    start_zone: str
    span: Span
    source: Source | None
    varying: list[VaryingRow] = field(default_factory=list)  # rows in play only in some games


@dataclass
class Component:
    cid: int
    kind: str
    attrs: dict[str, Value]
    display: str
    span: Span
    #: in play only in games where this holds (a bool expression of parameters and the player
    #: count, ``dsl/inplay.py``); out of play, a component is in no zone and no rule reaches it
    when: Expr | None = None


@dataclass
class ZoneInfo:
    name: str
    index: Type | None
    kinds: list[str]
    visibility: str  # "public", "owner", "hidden"; with vis_if, while its parameter is true
    desc: str | None
    source: Source | None
    span: Span
    vis_if: tuple[str, str] | None = None  # `V when P else W`: (P, W), W while the bool parameter P is false


@dataclass
class VarInfo:
    name: str
    index: Type | None
    type: Type
    init: Value
    score: bool
    visibility: str
    desc: str | None
    source: Source | None
    span: Span
    vis_if: tuple[str, str] | None = None


@dataclass
class ParamInfo:
    name: str
    type: Type
    value: Value
    provenance: Provenance
    desc: str | None
    source: Source | None
    span: Span


@dataclass
class Case:
    name: str
    guard: Expr
    value: Expr
    overrides: list[str]
    source: Source | None
    span: Span


@dataclass
class Definition:
    name: str
    formals: list[tuple[str, Type]]
    ret: Type
    desc: str | None
    body: Expr | None
    cases: list[Case] | None
    otherwise: Expr | None
    source: Source | None
    span: Span
    varies: str | None = None
    reading: tuple[str, str] | None = None  # (ambiguity, reading) for an override


@dataclass
class Procedure:
    name: str
    formals: list[tuple[str, Type]]
    body: list[Stmt] | None
    desc: str | None
    source: Source | None
    span: Span
    varies: str | None = None
    reading: tuple[str, str] | None = None


@dataclass
class Reading:
    name: str
    default: bool
    desc: str
    clarify: str | None
    defs: dict[str, Definition]
    procs: dict[str, Procedure]
    span: Span


@dataclass
class Ambiguity:
    name: str
    kind: str  # "ambiguity", "gap", "contradiction", "translation"
    sources: list[Source]
    question: str | None
    readings: list[Reading]
    span: Span

    @property
    def default(self) -> Reading:
        return next(r for r in self.readings if r.default)

    def reading(self, name: str) -> Reading | None:
        return next((r for r in self.readings if r.name == name), None)

    @property
    def varies(self) -> list[str]:
        """Names of the definitions and procedures whose meaning this ambiguity changes."""
        names: set[str] = set()
        for r in self.readings:
            names.update(r.defs)
            names.update(r.procs)
        return sorted(names)


@dataclass
class Invariant:
    name: str
    desc: str | None
    at_end: bool
    expr: Expr
    source: Source | None
    span: Span


@dataclass
class Term:
    term: str
    translations: list[Quote]
    meaning: str
    source: Source | None
    span: Span
    reading: str | None = None


@dataclass
class BoardInfo:
    """A board: its spaces (the values of the enum of the same name), their attributes, and the
    links between them (each space's neighbours, in ascending order)."""

    name: str
    label: str | None
    spaces: list[str]
    attrs: dict[str, Type]
    values: list[dict[str, Value]]  # per space, by ordinal
    links: list[tuple[int, int]]  # each link once, the smaller ordinal first
    provenance: Provenance
    source: Source | None
    span: Span

    def neighbours(self, space: int) -> list[int]:
        return sorted({b for a, b in self.links if a == space} | {a for a, b in self.links if b == space})


@dataclass
class Outside:
    """A part of the real game the formal one leaves out, and why."""

    name: str
    what: str
    reason: str
    source: Source | None
    span: Span


@dataclass
class Question:
    """A question from a list (``question``): its answer domain, when an answer is true, and what a
    lie must be. Its three parts are definitions of the question's formals (and of the answer, for
    the last two), named ``part(name, …)``; ``bind`` adds them to every Program."""

    name: str
    formals: list[tuple[str, Type]]
    desc: str | None
    answer: str  # the name of the answer in ``truth`` and ``lie``
    answer_type: Type
    answers: Definition  # formals -> set of answer_type
    truth: Definition  # formals, answer -> bool
    lie: Definition | None  # formals, answer -> bool: a false answer is a lie the speaker may tell when it holds
    source: Source | None
    span: Span

    def parts(self) -> list[Definition]:
        return [self.answers, self.truth, *([self.lie] if self.lie is not None else [])]

    @staticmethod
    def part(name: str, which: str) -> str:
        """The name of a question's part: ``answers``, ``true`` or ``lie``; no declaration can have it."""
        return f"{name}.{which}"


@dataclass
class Target:
    """``target NAME at "LABEL": E``: what the player who makes the decisions labelled LABEL wants
    to know then; verify asks whether that player can always know it, and how often a perfect
    reasoner does (docs/verify.md)."""

    name: str
    desc: str | None
    label: str
    expr: Expr
    source: Source | None
    span: Span

    @staticmethod
    def part(name: str) -> str:
        """The name of the definition that gives a target's value (``bind`` adds it to every Program)."""
        return f"target.{name}"

    def definition(self) -> Definition:
        return Definition(self.part(self.name), [], self.expr.type, self.desc, self.expr, None, None, self.source, self.span)


@dataclass
class EditionName:
    """A name of an edition mapping: a declaration (``kind`` "name"), an enum value ("value", with
    ``member``) or a component's display text ("text")."""

    kind: str
    name: str
    member: str | None = None

    def show(self) -> str:
        return self.name if self.kind == "name" else f"{self.name}.{self.member}" if self.kind == "value" else f'"{self.name}"'


@dataclass
class Edition:
    """``edition of "GAME" { same LOCAL as COMMON }``: the ruleset is one edition of GAME; names that
    differ between editions are mapped onto the common ones (the others correspond by name)."""

    game: str
    same: list[tuple[EditionName, EditionName, Source | None]]
    source: Source | None
    span: Span

    def common(self, kind: str, name: str, member: str | None = None) -> str:
        """The common name of a local declaration, enum value or component display."""
        for local, common, _ in self.same:
            if local.kind == kind and local.name == name and local.member == member:
                return common.member if common.kind == "value" and common.member else common.name
        return member if kind == "value" and member is not None else name


@dataclass
class Ruleset:
    name: str  # file name shown in diagnostics
    text_hash: str  # sha256 of the rules text
    game: GameInfo
    enums: dict[str, EnumInfo]
    kinds: dict[str, Kind]
    components: list[Component]
    zones: dict[str, ZoneInfo]
    vars: dict[str, VarInfo]
    params: dict[str, ParamInfo]
    defs: dict[str, Definition]
    procs: dict[str, Procedure]
    flow: list[Stmt]
    flow_source: Source | None
    ambiguities: dict[str, Ambiguity]
    invariants: list[Invariant]
    terms: list[Term]
    questions: dict[str, Question] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    edition: Edition | None = None
    boards: dict[str, BoardInfo] = field(default_factory=dict)
    outside: list[Outside] = field(default_factory=list)

    def components_of(self, kind: str | None) -> list[Component]:
        return [c for c in self.components if kind is None or c.kind == kind]

    def varies(self, kind: str | None = None) -> bool:
        """Whether some component (of the kind) is in play only in some games."""
        return any(c.when is not None for c in self.components_of(kind))

    def default_readings(self) -> dict[str, str]:
        return {a.name: a.default.name for a in self.ambiguities.values()}


@dataclass
class Program:
    """A ruleset with one reading chosen for every ambiguity: what an engine plays."""

    rules: Ruleset
    readings: dict[str, str]
    defs: dict[str, Definition]
    procs: dict[str, Procedure]


def visibility_in(info: ZoneInfo | VarInfo, params: dict[str, Any]) -> str:
    """Who sees a zone or variable in a game with these parameter values (resolved ones)."""
    if info.vis_if is None or params[info.vis_if[0]]:
        return info.visibility
    return info.vis_if[1]


def secret_in(s: Choose | ChooseEach, params: dict[str, Any]) -> bool:
    """Whether a decision is secret in a game with these parameter values."""
    return s.secret and (s.secret_if is None or bool(params[s.secret_if]))


# Names of the places where a rule applies, shared by the interpreter's coverage and the
# verifier's dead-rule check, so that a game played in one is a game of the other.
def label_if(sid: int, then: bool) -> str:
    return f"if{sid}:{'then' if then else 'else'}"


def label_proc(name: str, reading: tuple[str, str] | None) -> str:
    return f"proc:{name}:{reading}"


def label_end(sid: int) -> str:
    return f"end{sid}"


def label_case(definition: str, case: str, reading: tuple[str, str] | None) -> str:
    return f"case:{definition}:{case}:{reading}"


def decision_label(s: Stmt) -> str:
    """What a decision is about, the same in every back end and every reading: a choice's label,
    or the zone a chance draw is from. Random players key their choices by it (dsl/coupling.py)."""
    if isinstance(s, (Choose, ChooseEach)):
        return s.label
    if isinstance(s, Draw):
        return f"draw from {s.src}"
    return ""


class ReadingError(Exception):
    """A --reading that names no ambiguity or reading; carries a 'did you mean' hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def bind(rules: Ruleset, readings: dict[str, str] | None = None) -> Program:
    """Choose readings (the defaults where not given) and resolve every overridden name."""
    from .diagnostics import did_you_mean

    chosen = rules.default_readings()
    for amb, reading in (readings or {}).items():
        a = rules.ambiguities.get(amb)
        if a is None:
            raise ReadingError(
                f"no ambiguity named '{amb}'",
                did_you_mean(amb, rules.ambiguities) or "ambiguities: " + (", ".join(rules.ambiguities) or "none"),
            )
        if a.reading(reading) is None:
            raise ReadingError(
                f"ambiguity '{amb}' has no reading '{reading}' (its readings: "
                + ", ".join(r.name for r in a.readings) + ")",
                did_you_mean(reading, [r.name for r in a.readings]),
            )
        chosen[amb] = reading
    defs = dict(rules.defs)
    for q in rules.questions.values():
        defs.update({d.name: d for d in q.parts()})
    for t in rules.targets:
        defs[t.part(t.name)] = t.definition()
    procs = dict(rules.procs)
    for amb_name in sorted(chosen):
        r = rules.ambiguities[amb_name].reading(chosen[amb_name])
        assert r is not None
        defs.update(r.defs)
        procs.update(r.procs)
    return Program(rules, chosen, defs, procs)
