"""The abstract syntax tree: what the text says, with a span on every node, before any checking."""

from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass
class Node:
    span: Span


# ---- sources ----------------------------------------------------------------------------------


@dataclass
class Quote(Node):
    """A quotation of the rulebook; ``lang`` is None for the rulebook's own language."""

    lang: str | None
    text: str


@dataclass
class Source(Node):
    quotes: list[Quote]


# ---- types ------------------------------------------------------------------------------------


@dataclass
class TypeExpr(Node):
    pass


@dataclass
class TBool(TypeExpr):
    pass


@dataclass
class TInt(TypeExpr):
    pass


@dataclass
class TRange(TypeExpr):
    lo: int
    hi: int


@dataclass
class TText(TypeExpr):
    pass


@dataclass
class TPlayer(TypeExpr):
    pass


@dataclass
class TPlace(TypeExpr):
    pass


@dataclass
class TSet(TypeExpr):
    elem: TypeExpr


@dataclass
class TNamed(TypeExpr):
    name: str


# ---- expressions ------------------------------------------------------------------------------


@dataclass
class Expr(Node):
    pass


@dataclass
class IntLit(Expr):
    value: int


@dataclass
class StrLit(Expr):
    value: str


@dataclass
class BoolLit(Expr):
    value: bool


@dataclass
class Name(Expr):
    name: str


@dataclass
class Call(Expr):
    name: str
    name_span: Span
    args: list[Expr]


@dataclass
class Generator(Node):
    """``elem for var in coll if filt`` inside a call or a set comprehension."""

    elem: Expr
    var: str
    var_span: Span
    coll: Expr
    filt: Expr | None


@dataclass
class CallGen(Expr):
    name: str
    name_span: Span
    gen: Generator


@dataclass
class SetLit(Expr):
    items: list[Expr]


@dataclass
class SetComp(Expr):
    gen: Generator


@dataclass
class Pattern(Node):
    kind: str  # "int", "range", "name"
    value: int | str
    hi: int | None = None


@dataclass
class Arm(Node):
    patterns: list[Pattern]  # empty for ``else``
    value: Expr


@dataclass
class Match(Expr):
    subject: Expr
    arms: list[Arm]


@dataclass
class IfExpr(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass
class Unary(Expr):
    op: str  # "not" or "neg"
    operand: Expr


@dataclass
class Attr(Expr):
    obj: Expr
    name: str
    name_span: Span


@dataclass
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass
class RangeExpr(Expr):
    lo: Expr
    hi: Expr


# ---- statements -------------------------------------------------------------------------------


@dataclass
class Stmt(Node):
    source: Source | None


@dataclass
class ZoneRef(Node):
    name: str
    name_span: Span
    index: Expr | None


@dataclass
class Let(Stmt):
    name: str
    name_span: Span
    value: Expr


@dataclass
class SetStmt(Stmt):
    name: str
    name_span: Span
    index: Expr | None
    value: Expr


@dataclass
class Move(Stmt):
    what: Expr
    zone: ZoneRef


@dataclass
class Draw(Stmt):
    count: Expr | None
    src: ZoneRef
    dst: ZoneRef
    bind: str | None
    bind_span: Span | None


@dataclass
class Choose(Stmt):
    name: str
    name_span: Span
    options: Expr
    chooser: Expr
    label: str | None
    secret: bool
    secret_if: tuple[str, Span] | None = None  # `secret when P`: secret while the bool parameter P is true


@dataclass
class ChooseEach(Stmt):
    pvar: str
    pvar_span: Span
    players: Expr
    name: str
    name_span: Span
    options: Expr
    label: str | None
    secret: bool
    secret_if: tuple[str, Span] | None = None


@dataclass
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    else_: list[Stmt] | None
    else_source: Source | None = None


@dataclass
class ForEach(Stmt):
    var: str
    var_span: Span
    coll: Expr
    start: Expr | None
    body: list[Stmt]


@dataclass
class Repeat(Stmt):
    count: Expr
    body: list[Stmt]


@dataclass
class RepeatUntil(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass
class While(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass
class End(Stmt):
    winners: Expr | None  # None for a draw
    draw: bool = False


@dataclass
class Say(Stmt):
    text: str
    raw: str  # the literal as written, for mapping interpolation positions
    raw_span: Span


@dataclass
class Shuffle(Stmt):
    zone: ZoneRef


@dataclass
class CallStmt(Stmt):
    name: str
    name_span: Span
    args: list[Expr]


@dataclass
class Reveal(Stmt):
    """``reveal WHAT to WHO``: the players WHO see the components WHAT (and remember them)."""

    what: Expr
    who: Expr


@dataclass
class Ask(Stmt):
    """``ask QUESTION(ARGS) by SPEAKER as NAME truth when T lie when L``: the speaker answers."""

    question: str
    question_span: Span
    args: list[Expr]
    speaker: Expr
    name: str
    name_span: Span
    truth: Expr | None
    lie: Expr | None
    label: str | None
    secret: bool


@dataclass
class Observe(Stmt):
    """``observe E by p [as x] [within K | than R] [label "…"]``: p learns E, exactly, within K
    either way, or only compared with R."""

    what: Expr
    observer: Expr
    bind: str | None
    bind_span: Span | None
    mode: str  # "exact", "within", "than"
    amount: Expr | None  # within: how far off the perception can be
    ref: Expr | None  # than: what the value is compared with
    label: str | None


@dataclass
class Append(Stmt):
    """``append {field: E, …} to R[i]``: a new last entry of a record."""

    fields: list[tuple[str, Span, Expr]]
    target: ZoneRef


# ---- declarations -----------------------------------------------------------------------------


@dataclass
class Decl(Node):
    pass


@dataclass
class Game(Decl):
    title: str
    edition: str | None = None
    language: str | None = None
    original: str | None = None
    players: tuple[int, int] | None = None
    players_span: Span | None = None
    players_assumed: str | None = None  # `players 3..8 assumed because "…"`: the rationale
    order: str = "clockwise"
    sources: list[Source] = field(default_factory=list)
    returns: str = "winners"
    returns_span: Span | None = None
    turn: str | None = None  # `turn NAME`: each call of procedure NAME is one turn
    turn_span: Span | None = None


@dataclass
class EnumValue(Node):
    name: str
    label: str | None


@dataclass
class EnumDecl(Decl):
    name: str
    label: str | None
    values: list[EnumValue]
    source: Source | None


@dataclass
class AttrDecl(Node):
    name: str
    type: TypeExpr
    source: Source | None


@dataclass
class KindDecl(Decl):
    word: str  # "card" or "piece"
    name: str
    display: str | None
    attrs: list[AttrDecl]
    source: Source | None
    #: the display text's literal parts and ``(attribute, span)`` parts (parser.display_template)
    display_parts: list[str | tuple[str, Span]] = field(default_factory=list)


@dataclass
class Cell(Node):
    kind: str  # "int", "str", "name", "bool", "set", "range", "all", "unknown"
    value: object = None
    items: list[Cell] = field(default_factory=list)
    hi: int | None = None
    bound: str | None = None  # a range whose upper bound is a parameter (`1..num_cards`): its name
    bound_span: Span | None = None


@dataclass
class TableClause(Node):
    provenance: str  # "given", "assumed", "unspecified"
    columns: list[tuple[str, Span]]
    rationale: str | None
    source: Source | None
    default: Cell | None = None


@dataclass
class TableDecl(Decl):
    kind: str
    kind_span: Span
    start: str | None
    start_span: Span | None
    clauses: list[TableClause]
    rows: list[list[Cell]]
    row_spans: list[Span]
    guards: list[Expr | None] = field(default_factory=list)  # `| … | when EXPR`, by row


@dataclass
class VisIf:
    """`V1 when P else V2`: visibility V1 while the bool parameter P is true, V2 while it is false."""

    param: str
    param_span: Span
    otherwise: str


@dataclass
class ZoneDecl(Decl):
    name: str
    index: TypeExpr | None
    kinds: list[tuple[str, Span]]
    visibility: str
    desc: str | None
    source: Source | None
    vis_if: VisIf | None = None


@dataclass
class VarDecl(Decl):
    name: str
    index: TypeExpr | None
    type: TypeExpr
    init: Expr
    score: bool
    visibility: str
    desc: str | None
    source: Source | None
    vis_if: VisIf | None = None


@dataclass
class ParamDecl(Decl):
    name: str
    type: TypeExpr
    provenance: str  # "given", "assumed", "unspecified"
    value: Expr
    rationale: str | None
    desc: str | None
    source: Source | None


@dataclass
class Formal(Node):
    name: str
    type: TypeExpr


@dataclass
class CaseClause(Node):
    name: str
    overrides: list[tuple[str, Span]]
    guard: Expr
    value: Expr
    source: Source | None


@dataclass
class Otherwise(Node):
    value: Expr
    source: Source | None


@dataclass
class DefineDecl(Decl):
    name: str
    name_span: Span
    formals: list[Formal] | None  # None: written without parentheses
    ret: TypeExpr
    desc: str | None
    body: Expr | None = None
    cases: list[CaseClause] | None = None
    otherwise: Otherwise | None = None
    varies: str | None = None
    varies_span: Span | None = None
    source: Source | None = None


@dataclass
class ProcDecl(Decl):
    name: str
    name_span: Span
    formals: list[Formal]
    desc: str | None
    source: Source | None
    body: list[Stmt] | None
    varies: str | None = None
    varies_span: Span | None = None


@dataclass
class FlowDecl(Decl):
    source: Source | None
    body: list[Stmt]


@dataclass
class Reading(Node):
    name: str
    is_default: bool
    desc: str
    clarify: str | None
    defines: list[DefineDecl]
    procs: list[ProcDecl]


@dataclass
class AmbiguityDecl(Decl):
    name: str
    name_span: Span
    kind: str | None
    kind_span: Span | None
    sources: list[Source]
    question: str | None
    readings: list[Reading]


@dataclass
class InvariantDecl(Decl):
    name: str
    desc: str | None
    at_end: bool
    expr: Expr
    source: Source | None


@dataclass
class TermDecl(Decl):
    term: str
    translations: list[Quote]
    meaning: str
    source: Source | None
    reading: str | None = None  # how the original term is read aloud (a transcription)


@dataclass
class LinkDecl(Node):
    """``link a - b - c``: a path of links between spaces of a board."""

    names: list[tuple[str, Span]]
    source: Source | None


@dataclass
class BoardDecl(Decl):
    """A board: named spaces (a table of their attributes) and the links between them."""

    name: str
    name_span: Span
    label: str | None
    clauses: list[tuple[str, str | None, Source | None, Span]]  # (given / assumed, rationale, source, span)
    attrs: list[AttrDecl]
    rows: list[list[Cell]]
    row_spans: list[Span]
    links: list[LinkDecl]
    source: Source | None


@dataclass
class RecordField(Node):
    name: str
    type: TypeExpr
    default: Expr | None


@dataclass
class RecordDecl(Decl):
    """A record players keep: a list of entries, each with the same fields, that only grows."""

    name: str
    index: TypeExpr | None
    fields: list[RecordField]
    visibility: str
    desc: str | None
    source: Source | None


@dataclass
class OutsideDecl(Decl):
    """``outside NAME "what" because "why"``: a part of the real game the formal one leaves out."""

    name: str
    name_span: Span
    what: str
    reason: str
    source: Source | None


@dataclass
class QuestionDecl(Decl):
    """A question from a list: its answer domain, when an answer is true, what a lie must be."""

    name: str
    name_span: Span
    formals: list[Formal] | None
    desc: str | None
    source: Source | None
    answer: tuple[str, Span, TypeExpr, Expr, Source | None] | None = None
    truth: tuple[Expr, Source | None, Span] | None = None
    lie: tuple[Expr, Source | None, Span] | None = None
    extra: list[tuple[str, Span]] = field(default_factory=list)  # clauses written twice


@dataclass
class TargetDecl(Decl):
    """What the player who makes a decision wants to know then: ``target NAME at "LABEL": E``."""

    name: str
    name_span: Span
    desc: str | None
    label: str
    label_span: Span
    expr: Expr
    source: Source | None


@dataclass
class EditionName(Node):
    """A name in an edition mapping: a declaration, ``Enum.value``, or a component's display text."""

    kind: str  # "name", "value", "text"
    name: str
    member: str | None = None


@dataclass
class EditionDecl(Decl):
    """``edition of "GAME" { same LOCAL as COMMON ... }``: this ruleset is one edition of GAME."""

    game: str
    source: Source | None
    same: list[tuple[EditionName, EditionName, Source | None]]


@dataclass
class Ruleset:
    items: list[Decl]
