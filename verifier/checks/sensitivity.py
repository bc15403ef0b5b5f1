"""sensitivity: does a finding about an ambiguity hold for every value of the assumed data?
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TEnum, TInt, TSet
from rulecheck.dsl.values import show
from rulecheck.interpreter.semantics import resolve_params

from .. import terms as tm
from ..conditions import (
    moves_differ,
    outcome_differs,
)
from ..findings import Finding
from ..symvalues import Trace, Unsupported
from ..witness import (
    STOPPED,
    replay_interpreter,
    replay_result,
)
from ..z3backend import Session
from .ambiguity import AmbiguityCheck
from .local_proofs import _moved_only

#: Random tables of the unspecified data a random-play witness is replayed with (besides each
#: column's ends), to see whether the difference depends on the data.
SENSITIVITY_TABLES = 20


class SensitivityCheck(AmbiguityCheck):
    """sensitivity: does a finding about an ambiguity hold for every value of the assumed data?"""

    def check_sensitivity(self) -> None:
        """For each ambiguity finding: does it hold for every value of the assumed and
        unspecified data, or only for the values the ruleset assumes?"""
        if not self.symbolic:
            return
        names = sorted(f"{k}.{a}" for k, a in self.symbolic)
        # a difference in what players see is one of where components go, not of the data's values
        for f in [f for f in self.findings if f.kind == "ambiguity" and f.status in ("witness", "proven")
                  and f.details.get("differs_in") != "information"]:
            amb = self.rules.ambiguities[f.subject]
            base, other = f.details["readings"]
            alt = dict(self.base_readings)
            alt[amb.name] = other
            if f.status == "witness" and id(f) not in self.models:
                # found by random play, beyond the solver's traces: the same game replayed with
                # other tables of the unspecified data
                res = self.sensitivity_by_replay(alt, f)
            elif f.status == "witness":
                assert f.witness is not None
                n = f.witness.players
                res = self.sensitivity_of_witness(n, alt, f)
            else:
                res = self.sensitivity_of_proof(amb, alt)
            if res is None:
                continue
            verdict, facts = res
            self.found("sensitivity", verdict, amb.name, amb.span, declared=amb.kind,
                       ambiguity=amb.name, readings=[base, other], data=names, **facts)

    def _attr_traces(self, n: int, alt: dict[str, str]) -> tuple[Trace, Trace]:
        return self.free_base(n), self.trace(n, alt, attrs=self.free_data())

    def sensitivity_of_witness(self, n: int, alt: dict[str, str], f: Finding) -> tuple[str, dict[str, Any]] | None:
        try:
            ta, tb = self._attr_traces(n, alt)
        except Unsupported:
            return None
        assert f.witness is not None
        differs = outcome_differs(ta, tb) if f.details.get("differs_in") == "outcome" else moves_differ(ta, tb)
        # the same choices wherever the same decision arises, but any table: can the difference vanish?
        model, taken = self.models[id(f)]
        fixed = _fix_decisions(ta, model, taken) + _fix_decisions(tb, model, taken)
        session = self.session(ta.constraints + tb.constraints + fixed)
        r = session.check(tm.not_(differs))
        if r.status == "unsat":
            return "any-table", {"how": "witness"}
        if r.status == "sat":
            assert r.model is not None
            table = self.closest_table(session, tm.not_(differs), r.model, (ta, tb))
            # a model that names no value other than the assumed ones shows no other table (the
            # game it describes is not pinned down to the witness): nothing is claimed
            return ("depends", {"how": "witness", "table": table}) if table else ("undecided", {"how": "witness", "unnamed": True})
        return "undecided", {"how": "witness"}

    def closest_table(self, session: Session, goal: tm.Term, model: dict[str, bool | int], traces: tuple[Trace, ...]) -> str | None:
        """The values of the assumed and unspecified data that a solver's model of ``goal`` changes,
        in words ("Person 3: age Adult (assumed Teen)"), as few as the solver finds: every value
        is pinned back to the table's as a named assumption of one solver; while the goal is then
        impossible, the first value in table order that the unsat core names among those the model
        changed is freed (the model shows that freeing all of them is enough); each freed value is
        then tried pinned back once more. About twice as many questions as values freed. Only the
        data the traces read counts (the model gives every variable of the check's context a
        value). None where it changes none."""
        read = {str(v.args[0]) for t in traces for v in t.attr_vars}
        values = self.data_values(model, read)
        names = [f"{j:05d}" for j in range(len(values))]
        changed = {name for name, (_, _, moved) in zip(names, values) if moved}
        if not changed:
            return None
        batch = session.batch([goal], {name: pin for name, (pin, _, _) in zip(names, values)})
        free: set[str] = set()
        while True:
            r, core = batch.ask_using(0, [name for name in names if name not in free])
            if r.status == "sat":
                assert r.model is not None
                model = r.model
                break
            freed = next((name for name in core if name in changed and name not in free), None)
            if r.status != "unsat" or freed is None:
                # the first model's table stands (every value it changed)
                return "; ".join(words for _, words, moved in values if moved)
            free.add(freed)
        # a core names values the proof used, not always values the goal needs: each freed value
        # is pinned back once more where the goal stays possible without it
        for name in sorted(free):
            r, _ = batch.ask_using(0, [x for x in names if x not in free or x == name])
            if r.status == "sat":
                assert r.model is not None
                model = r.model
                free.discard(name)
        return "; ".join(words for _, words, moved in self.data_values(model, read) if moved) or None

    def data_values(self, model: dict[str, bool | int], read: set[str]) -> list[tuple[tm.Term, str, bool]]:
        """Each value of the assumed and unspecified data that a trace read, in a solver's model:
        the term that puts it back to the table's value, the value in words, whether it differs."""
        _, values = resolve_params(self.rules, self.o.params)
        out = []
        for kind, attr in sorted(self.symbolic):
            t = self.rules.kinds[kind].attrs[attr]
            for comp in self.rules.components_of(kind):
                name = f"attr|{kind}|{comp.cid}|{attr}"
                assumed = values[comp.cid][attr]
                got: Any
                if isinstance(t, TBool):
                    if name not in read:
                        continue
                    got, pin = bool(model.get(name)), tm.bool_var(name) if assumed else tm.not_(tm.bool_var(name))
                elif isinstance(t, TSet) and isinstance(t.elem, TEnum):
                    members = range(len(self.rules.enums[t.elem.name].values))
                    if f"{name}|0" not in read:
                        continue
                    got = frozenset(k for k in members if model.get(f"{name}|{k}"))
                    pin = tm.and_all(tm.bool_var(f"{name}|{k}") if k in assumed else tm.not_(tm.bool_var(f"{name}|{k}")) for k in members)
                else:
                    picked = [int(key.rsplit("|", 1)[1]) for key in read if key.startswith(name + "|") and model.get(key) is True]
                    if len(picked) != 1:
                        continue
                    got, pin = picked[0], tm.bool_var(f"{name}|{assumed}")
                out.append((pin, _value_words(self.rules, comp, attr, got, assumed), got != assumed))
        return out

    def sensitivity_by_replay(self, alt: dict[str, str], f: Finding) -> tuple[str, dict[str, Any]] | None:
        """A witness game replayed, both readings, with other values of the unspecified data (the
        ones a parameter can set): each column at the ends of its domain, then random tables. A
        table with which the readings give the same winners shows the witness depends on the
        data; none found is no proof, and said so."""
        assert f.witness is not None
        # (parameter name, kind, lowest, highest) of each column a parameter can set
        columns = [(f"{k.name}.{a}", k.name, t.lo, t.hi) for k in self.rules.kinds.values() for a, t in sorted(k.attrs.items())
                   if k.provenance.get(a) is not None and k.provenance[a].kind == "unspecified" and isinstance(t, TInt)
                   and t.lo is not None and t.hi is not None and f"{k.name}.{a}" not in self.o.params]
        if not columns:
            return None
        rng = random.Random(0)
        tables: list[dict[str, Any]] = []
        for name, _, lo, hi in columns:
            tables += [{name: lo}, {name: hi}]
        for _ in range(SENSITIVITY_TABLES):
            tables.append({name: {c.cid: rng.randint(lo, hi) for c in self.rules.components_of(kind)} for name, kind, lo, hi in columns})
        n = f.witness.players
        pa, pb = f.witness.plays
        names = ", ".join(name for name, *_ in columns)
        tried = 0
        program_a, program_b = self.program(self.base_readings), self.program(alt)

        def alike(table: dict[str, Any]) -> bool | None:
            """Whether the readings give the same winners in the game with these values (None:
            with them the game goes otherwise, which says nothing); one stopped by the rules and
            the other not differ."""
            params = {**self.o.params, **table}
            ka = replay_result(replay_interpreter(program_a, n, pa.actions, params))
            kb = replay_result(replay_interpreter(program_b, n, pb.actions, params))
            # both stopped by the rules: the game went otherwise with these values, before or
            # after the point where the readings part
            return None if ka is None or kb is None or ka == kb == STOPPED else ka == kb

        for table in tables:
            same = alike(table)
            if same is None:
                continue
            tried += 1
            if same:
                return "depends", {"how": "replay", "table": self.fewest_changes(table, {name: kind for name, kind, *_ in columns}, alike)}
        return "undecided", {"how": "replay", "columns": names, "tried": tried, "tables": len(tables)}

    def fewest_changes(self, table: dict[str, Any], kinds: dict[str, str], alike: Callable[[dict[str, Any]], bool | None]) -> str:
        """The values of a table with which the readings agree that differ from the assumed
        ones, as few as still make them agree, in words ("token 3: worth 7 (assumed 1)"): each
        in table order is put back to its assumed value where the readings still agree without
        it (a replay of the game each), again until none can be, so that putting back any one
        left makes them differ or the game go otherwise."""
        _, assumed = resolve_params(self.rules, self.o.params)
        changed: dict[str, dict[int, Any]] = {}
        for column, value in table.items():
            attr = column.split(".", 1)[1]
            cells = {c.cid: value[c.cid] if isinstance(value, dict) else value for c in self.rules.components_of(kinds[column])}
            changed[column] = {cid: v for cid, v in cells.items() if v != assumed[cid][attr]}
        dropped = True
        while dropped:  # (until none can be put back: one put back can let an earlier one go)
            dropped = False
            for column in list(changed):
                for cid in sorted(changed[column]):
                    trial = {**changed, column: {k: v for k, v in changed[column].items() if k != cid}}
                    if alike(trial):
                        changed, dropped = trial, True
        comps = {c.cid: c for c in self.rules.components}
        return "; ".join(_value_words(self.rules, comps[cid], column.split(".", 1)[1], v, assumed[cid][column.split(".", 1)[1]])
                         for column, cells in changed.items() for cid, v in sorted(cells.items()))

    def sensitivity_of_proof(self, amb: ir.Ambiguity, alt: dict[str, str]) -> tuple[str, dict[str, Any]] | None:
        moved = _moved_only(amb, self.base_readings[amb.name], alt[amb.name])
        for n in self.players:
            if (self.alike_any_table(moved, alt, amb.name, n) if moved
                    else self.end_any_table(amb, alt, n) or self.where_used_any_table(amb, alt, n)):
                continue
            try:
                ta, tb = self._attr_traces(n, alt)
            except Unsupported:
                return None
            session = self.session(ta.constraints + tb.constraints)
            differs = tm.or_(outcome_differs(ta, tb), moves_differ(ta, tb))
            r = session.check(differs)
            if r.status == "sat" and (table := self.closest_table(session, differs, r.model or {}, (ta, tb))):
                return "depends", {"how": "proof", "players": n, "table": table}
            if r.status == "sat":
                return "undecided", {"how": "proof", "unnamed": True}
            if r.status == "unknown":
                return "undecided", {"how": "proof"}
        return "any-table", {"how": "proof"}


def _value_words(rules: ir.Ruleset, comp: ir.Component, attr: str, got: Any, assumed: Any) -> str:
    """A value of the data other than the assumed one, in words: "Person 3: age Adult (assumed Teen)"."""
    t = rules.kinds[comp.kind].attrs[attr]
    return f"{comp.display}: {attr} {show(got, t, rules)} (assumed {show(assumed, t, rules)})"


def _fix_decisions(trace: Trace, model: dict[str, bool | int], taken: set[str]) -> list[tm.Term]:
    """Constraints that make a trace choose as a witness model did, wherever the same decision
    (the same key) arises."""
    out: list[tm.Term] = []
    for d in trace.decisions:
        if d.key not in taken:
            continue
        chosen = [b for k, b in d.sel.items() if model.get(f"d|{d.key}|{k}") is True]
        if chosen:
            out.append(tm.implies(d.active, tm.and_all(chosen)))
    return out
