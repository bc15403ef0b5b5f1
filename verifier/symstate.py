"""The symbolic execution's state (SymState): its attributes, where components are and how they move,
failures and reached rules, and the other reading's state where two readings are compared."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.inplay import out_of_play
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TPlace, TPlayer, TRecord, Type
from rulecheck.dsl.values import place_number
from rulecheck.dsl.walk import walk_stmts

from . import terms as tm
from .symvalues import (
    DEFAULT_LOOP_BOUND,
    FD,
    AbstractCheck,
    AttrSource,
    Decision,
    Obligation,
    Reach,
    SymRecord,
    SymSet,
    Unsupported,
    Value,
    as_fd,
    as_int,
    const_value,
    differing,
    merge_counts,
    ordinals,
    select,
    texts_of,
)
from .terms import Term


class SymState:
    """The state of a symbolic execution (see SymExec in symbolic.py, which builds on it)."""

    def __init__(
        self,
        program: ir.Program,
        n: int,
        params: dict[str, Any] | None = None,
        attrs: AttrSource | None = None,
        loop_bound: int = DEFAULT_LOOP_BOUND,
        watch_invariants: bool = True,
        drained: dict[int, int] | None = None,
        shadow: dict[str, ir.Definition] | None = None,
        compare: frozenset[str] = frozenset(),
        displaced: dict[str, ir.Procedure] | None = None,
        compare_ends: bool = False,
        compare_procs: frozenset[str] = frozenset(),
    ) -> None:
        from rulecheck.interpreter.semantics import resolve_params

        self.p = program
        self.rules = program.rules
        self.n = n
        values, attr_values = resolve_params(self.rules, params)
        self.params = values
        # parameters are concrete in a run, so the components out of play are known: in no zone,
        # and no zone or variable has an entry for them (as in the interpreter)
        self.out = out_of_play(self.rules, values, n)
        self.attrs = attrs or AttrSource(self.rules, attr_values)
        self.loop_bound = loop_bound
        self.drained = drained or {}  # loop sid -> most passes, for loops proven to end
        # Other versions of some definitions (``shadow``). A call of a definition in ``compare``
        # (those definitions and some of their callers) from outside that set is evaluated twice
        # in the same state, once with the other versions, and a "diverge" obligation records
        # where the two values can disagree.
        self.shadow = shadow or {}
        self.compare = compare
        self.mode = 0  # 0: plain; 1: inside a compared call (no nested comparing); 2: the other versions
        # Procedures run under both versions of ``shadow`` at each call from outside a compared
        # call, side by side from the same state (see product.py); their decisions' selectors are
        # named with ``sel_prefix``, which the other versions' run changes.
        self.compare_procs = compare_procs
        self.sel_prefix = "d"
        # Other versions of some procedures (``displaced``), which may leave components elsewhere.
        # Both versions run at each call; a component they leave in different places gets its
        # other location in ``alt_loc`` (the other reading's state is this one with those
        # locations), and from then on every expression a statement evaluates is evaluated in
        # both states: a "diverge" obligation records where the two values can differ. Where
        # none can, the two readings play every game alike.
        self.displaced = displaced or {}
        for proc in [*self.displaced.values(), *(program.procs[name] for name in self.displaced)]:
            if proc.body is None or any(isinstance(x, (ir.Assign, ir.Choose, ir.ChooseEach, ir.Draw, ir.End, ir.CallProc))
                                        for x in walk_stmts(proc.body)):
                raise Unsupported(f"a version of '{proc.name}' that sets variables, makes choices or calls procedures")
        self.alt_loc: dict[int, dict[int, Term]] = {}
        self.moves: dict[int, tuple[Term, set[int]]] | None = None  # per component: when and where it moves
        self.no_compare = 0  # >0: inside an evaluation already compared, a say, or a displaced procedure
        self.watch_invariants = watch_invariants
        # compare the winners of each end of the game under both versions (``shadow``), over an
        # abstract state of it: see end_comparison
        self.compare_ends = compare_ends
        self.zone_ids: dict[tuple[str, Any], int] = {}
        self.zone_domains: dict[str, list[int] | None] = {}
        for z in self.rules.zones.values():
            dom = None if z.index is None else self.domain(z.index)
            self.zone_domains[z.name] = dom
            for idx in [None] if dom is None else dom:
                self.zone_ids[(z.name, idx)] = len(self.zone_ids)
        # a place (type place) is numbered as in values.place_table, whatever the player count
        self.zid_place: dict[int, int] = {zid: place_number(self.rules, zone, idx) for (zone, idx), zid in self.zone_ids.items()}
        self.zone_kinds: dict[str, list[int]] = {
            z.name: [c.cid for c in self.rules.components if c.kind in z.kinds and c.cid not in self.out] for z in self.rules.zones.values()
        }
        self.loc: list[dict[int, Term]] = []
        self.counts: dict[int, Term] = dict.fromkeys(range(len(self.zone_ids)), 0)
        for comp in self.rules.components:
            if comp.cid in self.out:
                self.loc.append({})
                continue
            start = self.zone_ids[(self.rules.kinds[comp.kind].start_zone, None)]
            self.loc.append({start: True})
            self.counts[start] = tm.add(self.counts[start], 1)
        self.vars: dict[str, Any] = {}
        for v in self.rules.vars.values():
            init = SymRecord(()) if isinstance(v.type, TRecord) else const_value(v.init)
            self.vars[v.name] = init if v.index is None else {i: init for i in self.domain(v.index)}
        self.adjacency = {b.name: [set(b.neighbours(k)) for k in range(len(b.spaces))] for b in self.rules.boards.values()}
        self.ended: Term = False
        self.drawn: Term = False  # the game ended in a draw (`end draw`)
        self.stopped: Term = False
        # the definitions' cache is keyed by what each one reads: the components' locations, the
        # variables it names, the winners; each has a version of its own (``fresh`` numbers), so a
        # move does not evaluate again a definition of variables alone, nor an assignment one of
        # other variables or of zones
        self.fresh = itertools.count(1)
        self.loc_ver = 0
        self.var_ver: dict[str, int] = dict.fromkeys(self.rules.vars, 0)
        self.win_ver = 0
        self.def_reads: dict[str, tuple[bool, tuple[str, ...], bool]] = {}
        self.winners = SymSet({q: False for q in range(n)})
        self.decisions: list[Decision] = []
        self.constraints: list[Term] = list(self.attrs.constraints)
        self.data_known = len(self.attrs.constraints)  # the data's domains made before this run
        self.obligations: list[Obligation] = []
        self.reach: dict[str, Reach] = {}
        self.errs: list[Term] | None = None  # errors raised while evaluating the current statement
        self.path: list[str] = []
        self.texts = texts_of(program) | {v for v in self.params.values() if isinstance(v, str)}  # every text a value can be
        self.ordinals: dict[int, str] = ordinals(self.rules.flow)
        for proc in [*program.procs.values(), *(displaced or {}).values()]:
            if proc.body:
                self.ordinals.update(ordinals(proc.body))
        self.version = 0
        self.def_cache: dict[tuple[Any, ...], tuple[Value, list[tuple[Obligation, Term]], list[tuple[Reach, Term]]]] = {}
        self.nodes = 0
        self.invariant_violations: list[tuple[ir.Invariant, Term]] = []
        self.loop_heads: dict[int, list[dict[str, Any]]] = {}
        self.truncated: Term = False
        # a zone's count kept as a term through every move (not the count of its members once
        # a move makes it unknown): see induction.py
        self.exact_counts = False
        self.struct: Term = True
        self.site = 0
        self.abstract: list[AbstractCheck] = []
        self.abstract_states = 0
        self.invariant_abstract: list[tuple[ir.Invariant, list[Term], Term]] = []
        self.invariant_version: dict[str, int] = {}  # the state version last checked abstractly

    @property
    def winners(self) -> SymSet:
        return self._winners

    @winners.setter
    def winners(self, w: SymSet) -> None:
        self._winners = w
        self.win_ver = next(self.fresh)

    # ---- domains and zones ------------------------------------------------------------------

    def domain(self, t: Type) -> list[int]:
        if isinstance(t, TPlayer):
            return list(range(self.n))
        if isinstance(t, TComp):
            return [c.cid for c in self.rules.components_of(t.kind) if c.cid not in self.out]
        if isinstance(t, TEnum):
            return list(range(len(self.rules.enums[t.name].values)))
        if isinstance(t, TBool):
            return [0, 1]
        if isinstance(t, TPlace):
            return sorted(self.zid_place.values())
        if isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            return list(range(t.lo, t.hi + 1))
        raise Unsupported(f"values of type {t.show()} as members of a set or as choices (verify keeps one boolean per possible value, and {t.show()} has no bounds)", hint="give the numbers a range, e.g. set of 1..10")

    def place_of(self, zid: Value) -> Value:
        """The place (values.place_table) of a zone instance: an int, or an FD over places."""
        if isinstance(zid, (bool, int)):
            return self.zid_place[int(zid)]
        assert isinstance(zid, FD)
        return FD({self.zid_place[z]: c for z, c in sorted(zid.mem.items())})

    def where(self, comp: Value) -> Value:
        """``where(c)``: the place of a component (an FD over the places it can be in)."""
        if isinstance(comp, (bool, int)):
            return FD({self.zid_place[z]: c for z, c in sorted(self.loc[int(comp)].items())})
        f = as_fd(comp, [c.cid for c in self.rules.components])
        return select({k: self.where(k) for k in f.mem}, f)

    def zone_id(self, zone: str, idx: Value | None) -> Value:
        """The zone instance: an int, or an FD over instances when the index is symbolic."""
        dom = self.zone_domains[zone]
        if dom is None:
            return self.zone_ids[(zone, None)]
        assert idx is not None
        if isinstance(idx, (bool, int)):
            return self.zone_ids[(zone, int(idx))]
        f = as_fd(idx, dom)
        return FD({self.zone_ids[(zone, k)]: c for k, c in f.mem.items() if (zone, k) in self.zone_ids})

    def in_zone(self, cid: int, zid: Value) -> Term:
        loc = self.loc[cid]
        if isinstance(zid, int):
            return loc.get(zid, False)
        assert isinstance(zid, FD)
        return tm.or_all(tm.and_(c, loc[z]) for z, c in zid.mem.items() if z in loc)

    def zone_members(self, zone: str, idx: Value | None) -> SymSet:
        zid = self.zone_id(zone, idx)
        mem = {c: self.in_zone(c, zid) for c in self.zone_kinds[zone]}
        if isinstance(zid, int):
            return SymSet(mem, zid, self.loc_ver, True)
        return SymSet(mem)

    def zone_count(self, zone: str, idx: Value | None) -> Term:
        zid = self.zone_id(zone, idx)
        if isinstance(zid, int) and zid in self.counts:
            return self.counts[zid]
        if isinstance(zid, FD) and all(z in self.counts for z in zid.mem):
            return as_int(merge_counts(zid, self.counts))
        return self.zone_members(zone, idx).size()

    def move(self, cid: int, dst: Value, cond: Term, count: bool = True, one: dict[int, tuple[list[Term], list[Term]]] | None = None) -> None:
        """Move one component under a condition, keeping every zone's count exact (a caller that
        knows the counts better updates them itself and passes count=False; one that moves one
        of several components gets, in ``one``, the conditions under which it came to or left
        each zone)."""
        if cond is False:
            return
        dsts = {dst: True} if isinstance(dst, int) else dict(dst.mem)
        cur = self.loc[cid]
        if self.moves is not None:
            when, where = self.moves.get(cid, (False, set()))
            self.moves[cid] = (tm.or_(when, cond), where | set(dsts))
        if cid in self.alt_loc and not self.no_compare:  # the same move in the other state
            alt = self.alt_loc[cid]
            moved = {z: tm.or_(tm.and_(cond, dsts.get(z, False)), tm.and_(tm.not_(cond), alt.get(z, False))) for z in sorted(set(alt) | set(dsts))}
            self.alt_loc[cid] = {z: c for z, c in moved.items() if c is not False}
        new: dict[int, Term] = {}
        for z in sorted(set(cur) | set(dsts)):
            here = cur.get(z, False)
            arrive = tm.and_(cond, dsts.get(z, False))
            new[z] = tm.or_(arrive, tm.and_(tm.not_(cond), here))
            if not count or z not in self.counts:
                continue
            came = tm.and_(arrive, tm.not_(here))
            left = tm.and_(cond, here, tm.not_(dsts.get(z, False)))
            if one is not None:
                one.setdefault(z, ([], []))
                one[z][0].append(came)
                one[z][1].append(left)
            elif came is not False or left is not False:
                if self.exact_counts:
                    self.counts[z] = tm.sub(tm.add(self.counts[z], tm.bool_to_int(came)), tm.bool_to_int(left))
                else:
                    # a zone whose count stops being a number is counted by its members instead
                    del self.counts[z]
        self.loc[cid] = {z: c for z, c in new.items() if c is not False}

    # ---- guards, errors, reach ------------------------------------------------------------

    def live(self, g: Term) -> Term:
        # a game cut at the loop bound has left the model: what follows the cut loop would run
        # from a state the game never reaches there, so nothing after it is live (its decisions
        # are no moves to compare, its failures no findings)
        return tm.and_(g, tm.not_(self.ended), tm.not_(self.stopped), tm.not_(self.truncated))

    def fail(self, kind: str, span: Span, subject: str, message: str, cond: Term, part: str = "") -> None:
        if cond is False:
            return
        self.obligations.append(Obligation(kind, span, subject, message, cond, self.site, part))
        if self.errs is not None:
            self.errs.append(cond)
        else:
            self.stopped = tm.or_(self.stopped, cond)

    def reached(self, label: str, span: Span, subject: str, what: str, cond: Term) -> None:
        r = self.reach.get(label)
        if r is None:
            r = self.reach[label] = Reach(label, span, subject, what)
        r.add(cond)

    def settle(self) -> Term:
        """Errors of the statement just evaluated stop the game where they happen; returns the
        condition under which none happened."""
        errs = tm.or_all(self.errs or [])
        if errs is not False:
            self.stopped = tm.or_(self.stopped, errs)
        self.errs = None
        return tm.not_(errs)

    def known_move(self, what: Value, dst: Value) -> tuple[int, Term] | None:
        """(source zone, number moved) when a move's effect on counts is known without the
        solver: one component chosen from a zone, or a zone's whole contents, unmoved since."""
        if not isinstance(dst, int) or dst not in self.counts:
            return None
        origin = getattr(what, "origin", None)
        if origin is None or what.ver != self.loc_ver or origin not in self.counts or origin == dst:
            return None
        if isinstance(what, FD):
            return origin, 1
        if isinstance(what, SymSet) and what.whole:
            return origin, self.counts[origin]
        return None

    def comp_domain(self, t: Type) -> list[int]:
        kind = t.kind if isinstance(t, TComp) else None
        return [c.cid for c in self.rules.components_of(kind) if c.cid not in self.out]

    def key(self, s: ir.Stmt, extra: str = "") -> str:
        return "/".join([*self.path, self.ordinals[s.sid]]) + extra

    def snapshot(self, live: Term) -> dict[str, Any]:
        """The state at a loop head, to find a round that returns to where it started."""
        return {
            "live": live,
            "loc": [dict(x) for x in self.loc],
            "vars": {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.vars.items()},
        }

    def diverge(self, span: Span, cond: Term) -> None:
        """Where the two readings' states give a statement different values (never an error of
        the game: the game goes on)."""
        if cond is not False:
            self.obligations.append(Obligation("diverge", span, "state", "the two readings' states disagree here", cond, self.site))

    def other_state(self) -> tuple[list[dict[int, Term]], dict[int, Term]]:
        """The other reading's locations, and the zone counts that hold there too (not those of
        the zones whose members differ)."""
        differ = {z for c, alt in self.alt_loc.items() for z in differing(alt, self.loc[c])}
        return [self.alt_loc.get(c, here) for c, here in enumerate(self.loc)], {z: v for z, v in self.counts.items() if z not in differ}

    def in_other(self, evaluate: Callable[[], Value]) -> tuple[Value, Term]:
        """``evaluate()`` in the other reading's state (see ``displaced``): its value, and the
        condition under which it fails."""
        saved = (self.loc, self.counts, self.errs, self.obligations, self.reach, self.loc_ver)
        self.loc, self.counts = self.other_state()
        # calls are cached per state: the other state follows from this one (never nested)
        self.loc_ver = -1 - self.loc_ver
        self.errs, self.obligations, self.reach = [], [], {}
        self.no_compare += 1
        try:
            value = evaluate()
            failed = tm.or_all([*self.errs, *(o.cond for o in self.obligations)])
        finally:
            self.loc, self.counts, self.errs, self.obligations, self.reach, self.loc_ver = saved
            self.no_compare -= 1
        return value, failed
