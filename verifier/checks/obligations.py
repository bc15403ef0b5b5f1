"""incompleteness, conflict and exhaustion: can play reach a point where no rule decides, where
two cases disagree, or where a supply or a range runs out?
"""

from __future__ import annotations

from typing import Any

from ..conditions import (
    Condition,
    obligation_condition,
    obligation_groups,
)
from ..context import Context, _enclosing

#: Obligation kinds of the symbolic executor and the finding kind they become.
OBLIGATION_KINDS = {"incomplete": "incompleteness", "conflict": "conflict", "exhaustion": "exhaustion", "range": "exhaustion"}

#: Subjects of obligations that name a construct of the language, not a rule of the game.
GENERIC_SUBJECTS = frozenset({"the", "choice", "match", "min", "max", "player"})


class ObligationCheck(Context):
    """incompleteness, conflict and exhaustion: can play reach a point where no rule decides, where"""

    def check_obligations(self) -> None:
        merged: dict[tuple[str, int, int, str], dict[str, Any]] = {}
        for n in self.players:
            t = self.base(n)
            asked: list[tuple[dict[str, Any], Condition]] = []
            for grp in obligation_groups(t):
                key = (grp.kind, grp.span.line, grp.span.col, grp.subject)
                entry = merged.setdefault(key, {"group": grp, "proven": [], "unknown": [], "unconfirmed": [], "witness": None})
                if entry["witness"] is None:
                    asked.append((entry, obligation_condition(t, grp)))
            for (entry, _), r in zip(asked, self.solve_all([cond for _, cond in asked])):
                if r.status == "sat":
                    assert r.model is not None
                    play = self.play_of(t, r.model, n, "the game")
                    if play.outcome.startswith("the rules stop"):
                        entry["witness"] = (n, play)
                    else:
                        # the solver's game plays to the end in the interpreter and the engine:
                        # the symbolic model over-approximates here, which is rulecheck's limit
                        entry["unconfirmed"].append(n)
                elif r.status == "unsat":
                    entry["proven"].append(n)
                else:
                    entry["unknown"].append(n)
        for entry in merged.values():
            grp = entry["group"]
            kind = OBLIGATION_KINDS[grp.kind]
            what = _obligation_what(grp.kind, grp.subject, grp.part, _enclosing(self.rules, grp.span))
            proven = self.span_line(entry["proven"]) if entry["proven"] else None
            facts: dict[str, Any] = {"what": what, "situation": grp.message, "obligation": grp.kind}
            if entry["witness"] is not None:
                n, play = entry["witness"]
                self.found(kind, "happens", grp.subject, grp.span, witness=self.witness([play], n, f"the rules stop: {grp.message}"),
                           players=n, **facts)
            elif entry["unconfirmed"]:
                self.found(kind, "coarse", grp.subject, grp.span, bound=proven, unconfirmed=self.span_line(entry["unconfirmed"]),
                           proven=proven, **facts)
            elif entry["unknown"]:
                self.found(kind, "timeout", grp.subject, grp.span, bound=proven, unknown=self.span_line(entry["unknown"]),
                           proven=proven, **facts)
            else:
                self.found(kind, "never", grp.subject, grp.span, bound=f"every game of {proven}, {self.readings_scope()}",
                           proven=proven, scope=self.readings_scope(), **facts)


def _obligation_what(kind: str, subject: str, part: str = "", where: str | None = None) -> str:
    if subject in GENERIC_SUBJECTS and where is not None:
        subject = f"{subject}' in '{where}"
    if kind == "conflict":
        # a definition can have several pairs of cases: the title names the pair
        return f"'{subject}': {part or 'two cases'} disagree"
    if kind in ("exhaustion", "range"):
        return f"'{subject}' runs out"
    return f"'{subject}': no rule decides"
