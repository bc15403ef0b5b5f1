"""Readings that formalize the same rule: a modelling defect, never a proof that a question does
not matter (a comparison of two equal rules proves nothing about the rulebook).

Two readings are one rule when their versions of every definition and procedure they replace are
written alike (apart from positions, quotes and what `say` writes in the log), or, for
definitions, when the solver shows the two versions agree in every state of the table and for any
arguments, whatever the game (an abstract state with no trace behind it).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rulecheck.dsl import ir
from rulecheck.reports import wording

from ..symbolic import SymExec
from ..symvalues import Unsupported
from .local_proofs import LocalProofs

#: Fields that say where or how a rule is written, not what it does.
_NOT_MEANING = frozenset({"span", "sid", "source", "else_source", "desc", "reading", "label"})


def same_ir(a: Any, b: Any) -> bool:
    """Structural equality of two pieces of IR, ignoring positions, quotes, descriptions and the
    log (`say` statements)."""
    if isinstance(a, list) and isinstance(b, list):
        a = [x for x in a if not isinstance(x, ir.Say)]
        b = [x for x in b if not isinstance(x, ir.Say)]
        return len(a) == len(b) and all(same_ir(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_ir(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_ir(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        return all(same_ir(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a) if f.name not in _NOT_MEANING)
    return bool(a == b)


class SameRuleCheck(LocalProofs):
    """Readings that formalize one rule (a modelling defect)."""

    def same_rule(self, amb: ir.Ambiguity, alt: dict[str, str]) -> str | None:
        """Why the default readings and ``alt`` (one ambiguity switched) are the same rule, in
        words for the finding; None when they are not, or when that is not decided."""
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(alt[amb.name])
        if ra is None or rb is None:
            return None
        pa, pb = self.program(self.base_readings), self.program(alt)
        defs = sorted({*ra.defs, *rb.defs})
        procs = sorted({*ra.procs, *rb.procs})
        if all(same_ir(pa.defs[d], pb.defs[d]) for d in defs) and all(same_ir(pa.procs[q], pb.procs[q]) for q in procs):
            names = ", ".join(f"'{x}'" for x in [*defs, *procs])
            return f"give {names} the same body (apart from what the game's log says)"
        if procs:
            return None
        # every player count the game allows, not only those verified: two rules that agree with
        # two players and not with three are two rules
        g = self.rules.game
        counts = list(range(g.min_players, g.max_players + 1))
        for n in counts:
            try:
                lemmas, differ = SymExec(pa, n, params=self.o.params, shadow={d: pb.defs[d] for d in defs},
                                         watch_invariants=False).versions_differ_anywhere(defs)
            except Unsupported:
                return None
            if self.session(lemmas).check(differ).status != "unsat":
                return None
        names = ", ".join(f"'{x}'" for x in defs)
        return (f"give {names} the same value in every state of the table and for every argument, whatever the game "
                f"(proven for {wording.players_text(counts)} without looking at the game's rules)")
