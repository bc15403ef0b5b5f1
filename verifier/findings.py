"""What verification produces: findings, each with a witness, a proof or an honest "unknown".

This module is the contract between the verifier and its readers (the command line's text, JSON
and SARIF output, and the reports); it has no solver code.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rulecheck.dsl.source import Span

#: The kinds of finding (brief, section 4), in the order reports list them.
KINDS = (
    "ambiguity",
    "incompleteness",
    "conflict",
    "non-termination",
    "exhaustion",
    "dead-rule",
    "sensitivity",
    "translation",
    "edition-difference",
    "invariant",
    "deduction",
)

#: witness: a concrete game shows it; proven: no such game exists within the stated bound;
#: unknown: the solver ran out of time (never shown as proven); static: found by reading the text.
STATUSES = ("witness", "proven", "unknown", "static")

SEVERITIES = ("error", "warning", "note")

#: What the ruleset declares a question to be (`ambiguity … { kind K }`): kept through to every
#: output, so a gap is never shown as an ambiguity.
DECLARED_KINDS = ("ambiguity", "gap", "contradiction", "translation")

_OBLIGATION = {"happens": ("witness", "error"), "coarse": ("unknown", "error"), "timeout": ("unknown", "warning"),
               "never": ("proven", "note")}

#: Every verdict a check can reach, by kind of finding: its status and severity. A check says
#: which verdict it reached and the facts behind it; the sentences are made from the two in one
#: place (reports/wording.py), tested verdict by verdict.
VERDICTS: dict[tuple[str, str], tuple[str, str]] = {
    **{(kind, v): st for kind in ("incompleteness", "conflict", "exhaustion") for v, st in _OBLIGATION.items()},
    ("invariant", "holds-any-length"): ("proven", "note"),  # no state of the table breaks it
    ("invariant", "holds"): ("proven", "note"),  # no game within the bound breaks it
    ("invariant", "broken"): ("witness", "error"),
    ("invariant", "timeout"): ("unknown", "warning"),
    ("invariant", "endless"): ("unknown", "warning"),  # no game ends within the bound
    ("non-termination", "no-open-loop"): ("proven", "note"),
    ("non-termination", "drains"): ("proven", "note"),  # the loop empties a zone nothing refills
    ("non-termination", "within-bound"): ("proven", "note"),  # no game makes more passes than the bound
    ("non-termination", "ranked"): ("proven", "note"),  # a measure progresses every pass
    ("non-termination", "measured"): ("proven", "note"),  # a sum of counts progresses every pass (by induction)
    ("non-termination", "lasso"): ("witness", "error"),
    ("non-termination", "timeout"): ("unknown", "warning"),
    ("dead-rule", "dead"): ("proven", "warning"),
    ("dead-rule", "not-reached"): ("unknown", "note"),
    ("dead-rule", "other-reading"): ("witness", "note"),  # dead under the default readings only
    ("ambiguity", "outcome"): ("witness", "warning"),
    ("ambiguity", "moves"): ("witness", "warning"),
    ("ambiguity", "information"): ("witness", "warning"),
    ("ambiguity", "harmless"): ("proven", "note"),
    ("ambiguity", "same-rule"): ("static", "error"),  # the readings formalize one rule: a modelling defect
    ("ambiguity", "coarse"): ("unknown", "error"),
    ("ambiguity", "timeout"): ("unknown", "warning"),
    ("ambiguity", "endless"): ("unknown", "warning"),
    ("translation", "threshold"): ("static", "warning"),  # a comparison's wording against the rule's, or another edition's
    ("translation", "quantifier"): ("static", "warning"),  # a condition's quantifier or negation
    ("translation", "count"): ("static", "warning"),  # a count of things or rounds
    ("sensitivity", "any-table"): ("proven", "note"),
    ("sensitivity", "depends"): ("witness", "note"),
    ("sensitivity", "undecided"): ("unknown", "note"),
    # rulecheck diff (verifier/checks/edition.py): two editions of one game
    ("edition-difference", "changes-result"): ("witness", "warning"),  # a game valid in both ends differently
    ("edition-difference", "changes-moves"): ("witness", "warning"),  # one edition allows a move the other forbids
    ("edition-difference", "information-only"): ("proven", "note"),  # only reveals differ: no move or result can change
    ("edition-difference", "cosmetic"): ("proven", "note"),  # only what things are called: no rule reads a name
    ("edition-difference", "data"): ("static", "note"),  # what the components are or print: read by the rules that differ
    ("edition-difference", "counts"): ("static", "note"),  # the player counts the editions allow
    ("edition-difference", "masked"): ("unknown", "note"),  # no game of the search parted the editions there
    # a target (verifier/checks/deduction.py): can the player who decides always know it?
    ("deduction", "always"): ("proven", "note"),
    ("deduction", "not-always"): ("witness", "note"),
    ("deduction", "undecided"): ("unknown", "note"),
}


@dataclass
class Quote:
    text: str
    lang: str | None = None  # None: the rulebook's language


@dataclass
class Play:
    """One reading's version of a witness game."""

    label: str  # e.g. "reading inverted (default)"
    readings: dict[str, str]
    actions: list[Any]  # int, or a list of ints for a simultaneous step: replayable in any engine
    steps: list[str]  # the game told move by move
    outcome: str  # e.g. "Player 2 wins" or "the rules stop: no case of 'winner' applies"
    winners: list[int] | None = None
    replayed: bool = False  # the generated engine reproduced this outcome


@dataclass
class Position:
    """The table at the latest point the plays of a witness share: what a person lays out to see
    the question, before the few moves that follow under each reading."""

    step: int  # actions of the game (chance draws included) that lead here
    table: list[list[str]]  # [place, what it holds] for every zone that holds something, then the variables
    draws: list[list[str]]  # [zone, the components drawn from it from here on, in draw order] (the first play's)
    cards: list[list[str]]  # [component, its data the ruleset assumes] for the components on the table here
    marks: list[int]  # per play: how many of its steps (log lines) come before this point
    longest: int  # the most moves (player and chance decisions) any play makes after this point
    note: str | None = None  # why more than a few moves follow, when they do
    ends: list[int] | None = None  # per play: where the steps worth showing end (a witness of different moves: at the parting)
    where: str = "parting"  # "parting": where the plays of two readings part; "deal": a game of one reading, after its deal;
    # "late": a long game of one reading, a few moves before what it shows; "editions": where two editions' games part
    # (step counts the first play's moves; each edition's own moves may differ in number)


@dataclass
class Witness:
    players: int
    setup: list[str]  # the deal and anything else a table needs before the first move
    plays: list[Play]
    divergence: str  # what differs between the plays, in one sentence
    position: Position | None = None


@dataclass
class Finding:
    kind: str
    severity: str
    status: str
    subject: str  # the ambiguity, definition, statement or invariant concerned
    title: str  # one line
    message: str  # what it means, in plain words
    span: Span
    quotes: list[Quote] = field(default_factory=list)
    witness: Witness | None = None
    bound: str | None = None  # for proven findings: what the proof covers
    seconds: float = 0.0  # solver time (excluded from the byte-stable outputs)
    details: dict[str, Any] = field(default_factory=dict)  # the facts behind the verdict
    verdict: str = ""  # which of the kind's VERDICTS (empty: a finding made outside the checks)
    declared: str | None = None  # for a declared question: its DECLARED_KINDS kind

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind
        assert self.status in STATUSES, self.status
        assert self.severity in SEVERITIES, self.severity
        assert not self.verdict or VERDICTS.get((self.kind, self.verdict)) == (self.status, self.severity), (self.kind, self.verdict)
        assert self.declared is None or self.declared in DECLARED_KINDS, self.declared

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["span"] = {"line": self.span.line, "col": self.span.col, "end_line": self.span.end_line, "end_col": self.span.end_col}
        d.pop("seconds")
        return d
