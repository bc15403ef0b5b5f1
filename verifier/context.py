"""The machinery the checks of `rulecheck verify` share (verifier/checks/): traces, engines,
solver sessions, witness replays, random games.
"""

from __future__ import annotations

import os
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.values import num_distinct_actions
from rulecheck.interpreter.semantics import resolve_params
from rulecheck.reports import wording

from . import terms as tm
from .conditions import (
    Condition,
    shrinking_zone,
)
from .findings import VERDICTS, Finding, Play, Quote, Witness
from .heads import Samples
from .induction import INDUCTION_LEMMA, SAMPLE_GAMES, Houdini, has_loop_to_cut, induct, kept_of
from .symbolic import SymExec
from .symvalues import DEFAULT_LOOP_BOUND, AttrSource, Trace, statements
from .witness import (
    CONTINUE_MOVES,
    FEW_MOVES,
    UNFINISHED,
    Replay,
    actions_of,
    continue_game,
    finish_short_draw,
    follow,
    make_play,
    model_of_actions,
    models_of_actions,
    one_play_position,
    position,
    random_game,
    replay_engine,
    replay_interpreter,
)
from .z3backend import Result, Session, Translator

#: Most seconds for each cheap over-approximation tried before a whole-game question (a shortcut
#: that does not settle it by then is not waited for: the whole game is asked anyway).
SHORTCUT_TIMEOUT = 10.0

#: Nodes (chance draws included) after which a random game that has not ended is dropped.
RANDOM_MAX_STEPS = 5_000
ELSEWHERE_GAMES = 8  # random games per player count and parameter value for a rule no checked game reaches
SEEN_GAMES = 3  # random games watched for a difference in what players see: it shows in most games or none

#: A loop proven to end by the zone it drains is unrolled to its last possible pass (so traces are
#: not cut inside it) when that zone holds at most this many components.
DRAIN_UNROLL = 12


class ReplayMismatch(Exception):
    """A witness the engine does not reproduce: a bug in rulecheck, never a finding."""


@dataclass
class Options:
    timeout: float = 10.0  # seconds per solver call
    readings: dict[str, str] = field(default_factory=dict)
    players: list[int] | None = None
    loop_bound: int = DEFAULT_LOOP_BOUND
    sensitivity: bool = True
    engine: bool = True
    params: dict[str, Any] = field(default_factory=dict)  # the ruleset's parameters (others at their defaults)
    param_labels: dict[str, str] = field(default_factory=dict)  # the same as the user wrote them
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)  # worker processes
    checks: frozenset[str] | None = None  # finding kinds to check (None: all)
    random_games: int = 200  # ambiguities the solver leaves open: random games tried for a witness
    guided_tries: int = 4  # random deals tried before the open search
    # seconds for each of them: in the committed rulesets a deal with a witness was settled within
    # about 5 million of z3's units (half of this); a deal without one gives up sooner
    guided_timeout: float = 2.0


class Context:
    """The machinery every check shares: the games of each player count and reading (symbolic
    traces, engines), solver sessions, and games replayed in the interpreter and the engines."""

    def __init__(self, rules: ir.Ruleset, options: Options, progress: Callable[[str], None] | None = None) -> None:
        self.rules = rules
        self.o = options
        self.progress = progress or (lambda _msg: None)
        self.base_readings = ir.bind(rules, options.readings).readings
        g = rules.game
        self.players = options.players or list(range(g.min_players, g.max_players + 1))
        self.traces: dict[tuple[int, tuple[tuple[str, str], ...], bool], Trace] = {}
        self.engines: dict[tuple[tuple[str, str], ...], types.ModuleType] = {}
        self.findings: list[Finding] = []
        self.timing: dict[str, float] = {}
        self.setups: dict[int, list[str]] = {}
        self.scores: dict[int, dict[str, list[int]]] = {}  # final score variables of each play, by seat
        # the assumed and unspecified data: (kind, attribute)
        self.symbolic = {(k.name, a) for k in rules.kinds.values() for a, p in k.provenance.items() if p.kind != "given"}
        # (how, ambiguity, reading, players) -> the readings proven to play alike whatever the data
        self.any_table: dict[tuple[str, str, str, int], bool] = {}
        self.random_tried: list[int] = []  # player counts whose random games showed no difference
        self.cut: dict[int, bool] = {}  # player count -> a game can outrun the loop bound
        self.ending: dict[int, bool] = {}  # player count -> some game ends within the loop bound
        # (players, loop bound, invariants, readings) -> trace with drained loops whole
        self.bounded: dict[tuple[int, int, bool, tuple[tuple[str, str], ...]], Trace] = {}
        self.pass_action = num_distinct_actions(rules, resolve_params(rules, self.o.params)[0]) - 1  # the action of a player who only passes
        self.models: dict[int, tuple[dict[str, bool | int], set[str]]] = {}  # id(finding) -> witness model, decisions taken
        self.tr: Translator | None = None  # the z3 context of the check running (see session)
        # the default readings' games translated once, before the workers fork: each check starts
        # from its own copy of this context (see run_tasks)
        self.shared_tr: Translator | None = None
        # (invariant, players, any table) -> proven; also the inductions' lemmas (induction.induction_lemmas)
        self.proven_invariants: dict[tuple[str, int, bool], bool] = {}
        self.solved: dict[tuple[str, int, bool], Result] = {}  # the same key -> the solver's answer, asked ahead (prove_invariants)
        self.end_proofs: dict[int, list[str]] = {}  # players -> the invariants agree_at_end's proof used
        self.where_used: dict[int, list[str]] = {}  # players -> the procedures agree_where_used ran under both readings
        # (ambiguity, reading, data free) -> the definitions and procedures the last player count's
        # proof compared: a larger count starts there, not from the narrower sets a smaller one
        # already showed to disagree
        self.where_used_from: dict[tuple[str, str, bool], tuple[frozenset[str], frozenset[str]]] = {}
        self.free_bases: dict[int, Trace] = {}  # players -> the default readings' trace with the data free
        # players -> the induction over the open loops, the head facts it proved, its solver (see InvariantCheck.induction)
        self.inductions: dict[int, Houdini | None] = {}

    # ---- plumbing ---------------------------------------------------------------------------

    def program(self, readings: dict[str, str]) -> ir.Program:
        return ir.bind(self.rules, readings)

    def trace(self, n: int, readings: dict[str, str], invariants: bool = False, attrs: AttrSource | None = None) -> Trace:
        program = self.program(readings)
        if attrs is not None:
            return SymExec(program, n, params=self.o.params, attrs=attrs, loop_bound=self.o.loop_bound, watch_invariants=invariants).run()
        # the default readings' trace watches the invariants anyway: one trace serves both
        invariants = invariants or readings == self.base_readings
        key = (n, tuple(sorted(readings.items())), invariants)
        if key not in self.traces:
            self.traces[key] = SymExec(program, n, params=self.o.params, loop_bound=self.o.loop_bound, watch_invariants=invariants).run()
        return self.traces[key]

    def trace_bounded(self, n: int, bound: int, invariants: bool = False, readings: dict[str, str] | None = None) -> Trace:
        """The default readings' (or ``readings``') game for the non-termination check: open loops cut after
        ``bound`` passes, but loops proven to end by the zone they drain unrolled to their last
        pass, so that a pass of an outer loop is whole. (The other checks keep such loops cut at
        the loop bound: the larger traces cost more witnesses to time-outs than they add proofs.)"""
        readings = self.base_readings if readings is None else readings
        key = (n, bound, invariants, tuple(sorted(readings.items())))
        if key not in self.bounded:
            program = self.program(readings)
            self.bounded[key] = SymExec(program, n, params=self.o.params, loop_bound=bound, drained=drained_loops(program),
                                        watch_invariants=invariants).run()
        return self.bounded[key]

    def engine(self, readings: dict[str, str]) -> types.ModuleType | None:
        if not self.o.engine:
            return None
        key = tuple(sorted(readings.items()))
        if key not in self.engines:
            from rulecheck.codegen.engine import generate, load_module

            name = f"rulecheck_witness_engine_{len(self.engines)}"
            self.engines[key] = load_module(generate(self.program(readings)), name)
        return self.engines[key]

    def session(self, background: list[tm.Term], timeout: float | None = None) -> Session:
        """A solver session sharing this check's z3 context: the traces' terms are translated
        once per check, not once per question."""
        if self.tr is None:
            self.tr = Translator()
        return Session(background, self.o.timeout if timeout is None else timeout, self.tr)

    def induction_session(self, background: list[tm.Term]) -> Session:
        """A session for the questions of a proof by induction (induction.py): many small ones."""
        return self.session(background, min(self.o.timeout, SHORTCUT_TIMEOUT))

    def inducted(self, readings: dict[str, str], n: int, loop: int | None = None,
                 kept: set[str] | None = None) -> tuple[Houdini | None, Samples]:
        """induction.induct for games of n players under these readings, its facts sampled from
        SAMPLE_GAMES random games (played in the generated engine)."""
        program = self.program(readings)
        engine = self.engine(readings)
        games = [random_game(program, n, seed, self.o.params, engine=engine) for seed in range(SAMPLE_GAMES)]
        return induct(program, n, self.o.params, games, self.induction_session, loop, kept)

    def induction(self, n: int) -> Houdini | None:
        """The proof by induction over the open loops of games of n players under the default
        readings (induction.induct); where an "induction" task found its facts already (its
        lemmas), the same cut game with those facts, without the search for them."""
        if n not in self.inductions:
            kept = kept_of(self.proven_invariants, n)
            made = kept is None or self.proven_invariants[(INDUCTION_LEMMA, n, False)]  # (not made: the task found none)
            # (no random games are played for a game without an open loop)
            self.inductions[n] = (self.inducted(self.base_readings, n, kept=kept)[0]
                                  if made and has_loop_to_cut(self.program(self.base_readings)) else None)
        return self.inductions[n]

    def solve(self, cond: Condition, skip: frozenset[int] = frozenset()) -> Result:
        """Cheap over-approximations first (an UNSAT there is a proof), then the whole game.
        ``skip``: the shortcuts already asked (see solve_all)."""
        quick = min(self.o.timeout, SHORTCUT_TIMEOUT)
        if cond.goal is False:
            return Result("unsat")
        for k, (background, goal) in enumerate(cond.shortcuts):
            if k in skip:
                continue
            r = self.session(background, quick).check(goal)
            if r.status == "unsat":
                return r
        session = self.session(cond.background)
        if cond.parts:
            r = session.check_each(cond.parts)
            if r.status != "unknown":
                return r
        return session.check(cond.goal)

    def solve_all(self, conds: list[Condition]) -> list[Result]:
        """``solve`` for each condition. Where several shortcuts share a background (the abstract
        state of the same statements), their goals are asked of one batch over it (each a small
        question, the background simplified once; one question of their disjunction took longer
        and settled none where one goal was possible); each goal it does not prove goes on to
        its other shortcuts and the whole game, as in ``solve``."""
        results: list[Result | None] = [Result("unsat") if c.goal is False else None for c in conds]
        asked: list[set[int]] = [set() for _ in conds]
        quick = min(self.o.timeout, SHORTCUT_TIMEOUT)
        for k in range(max((len(c.shortcuts) for c in conds), default=0)):
            shared: dict[tuple[object, ...], list[int]] = {}
            for i, c in enumerate(conds):
                if results[i] is None and k < len(c.shortcuts):
                    shared.setdefault(tm.key_of(c.shortcuts[k][0]), []).append(i)
            for idx in shared.values():
                if len(idx) < 2:
                    continue
                batch = self.session(conds[idx[0]].shortcuts[k][0], quick).batch([conds[i].shortcuts[k][1] for i in idx])
                for j, i in enumerate(idx):
                    asked[i].add(k)
                    if batch.ask(j).status == "unsat":
                        results[i] = Result("unsat")
        return [r if r is not None else self.solve(c, frozenset(a)) for r, c, a in zip(results, conds, asked)]

    def search(self, traces: list[Trace], goals: list[tuple[str, list[tm.Term], tm.Term]], n: int,
               prove: Callable[[], bool] | None = None, parting: list[Any] | None = None) -> tuple[str, Result]:
        """Look for a game where one of the goals holds (each with its background): first with the
        deal of a few random games fixed (small problems the solver settles fast; a game found so
        is as good as any), then with every deal open, which is what a proof needs. The first goal
        found wins; "unsat" only when every goal is proven impossible. ``prove``: a cheaper proof
        that no goal can hold, tried before the open deals (named "local" where it holds).
        ``parting``: a game (under the first trace's readings) that random play showed the two
        readings to part in: its deal is tried first, where the readings are known to differ."""
        goals = [g for g in goals if g[2] is not False]
        if not goals:
            return "", Result("unsat")
        sessions = [self.session(bg) for _, bg, _ in goals]
        program = self.program(traces[0].readings)
        engine = self.engine(traces[0].readings)
        stuck: set[str] = set()  # goals a fixed deal did not settle: other deals will not either
        deals: list[list[Any] | int] = [*([parting] if parting is not None else []), *range(self.o.guided_tries)]
        for deal in deals:
            game = random_game(program, n, seed=deal, params=self.o.params, engine=engine) if isinstance(deal, int) else deal
            fixed = deal_constraints(traces[0], model_of_actions(traces[0], game))
            for (name, _, goal), session in zip(goals, sessions):
                if name in stuck:
                    continue
                r = session.check(goal, *fixed, timeout_s=min(self.o.guided_timeout, self.o.timeout))
                if r.status == "sat":
                    return name, r
                if r.status == "unknown":
                    stuck.add(name)
        if prove is not None and prove():
            return "local", Result("unsat")
        unknown = None
        for (name, _, goal), session in zip(goals, sessions):
            r = session.check(goal)
            if r.status == "sat":
                return name, r
            if r.status == "unknown":
                unknown = (name, r)
        return unknown or ("", Result("unsat"))

    def timed(self, name: str, fn: Callable[[], object]) -> None:
        start = time.perf_counter()
        fn()
        self.timing[name] = self.timing.get(name, 0.0) + time.perf_counter() - start

    def span_line(self, n_list: list[int]) -> str:
        """The player counts a statement covers, and the loop bound when some trace is cut by it
        (a proof then covers the passes explored, not the games beyond them)."""
        cut = bool(n_list) and any(self.cut_by_bound(n) for n in n_list)
        return wording.players_span(n_list, self.o.loop_bound if cut else None)

    def proven_line(self, bounded: list[int], inductive: list[int]) -> str | None:
        """The player counts proven: those proven within the loop bound (span_line) and those for
        games of any length. Where no game of the bounded counts outruns the bound, their proofs
        cover games of any length too: one list."""
        if inductive and bounded and not any(self.cut_by_bound(n) for n in bounded):
            return f"{wording.players_text(sorted(inductive + bounded))}, any length"
        parts = [f"{wording.players_text(inductive)}, any length"] if inductive else []
        if bounded:
            parts.append(self.span_line(bounded))
        return "; ".join(parts) or None

    def ends_within(self, n: int) -> bool:
        """Does some game of n players end within the loop bound (proven possible)?"""
        if n not in self.ending:
            t = self.base(n)
            # a game cut at the bound runs on past the loop symbolically: that is no end
            ends = tm.and_(t.ended, tm.not_(t.truncated))
            self.ending[n] = ends is not False and (
                self.random_play_shows(t, ends) or self.session(t.constraints).check(ends).status == "sat")
        return self.ending[n]

    def cut_by_bound(self, n: int) -> bool:
        """Can a game of n players run past the loop bound (not proven impossible)?"""
        if n not in self.cut:
            self.cut[n] = self.can_be_cut(self.base(n))
        return self.cut[n]

    def can_be_cut(self, t: Trace) -> bool:
        """Can a game of the trace run past its loop bound (not proven impossible)?"""
        return t.truncated is not False and (
            self.random_play_shows(t, t.truncated) or self.session(t.constraints).check(t.truncated).status != "unsat")

    def random_play_shows(self, t: Trace, goal: tm.Term) -> bool:
        """Does one of a few random games of the trace's readings make ``goal`` true? (A cheap
        example before asking the solver for one.)"""
        value, valid = self.random_models(t)
        return bool(valid & value.mask(goal))

    def random_models(self, t: Trace, games: int = 4) -> tuple[tm.Evaluators, int]:
        """A few random games as assignments of the trace's variables, evaluated together, and
        the mask of those that satisfy the trace's constraints (as any game within its bound
        does): models the solver would accept. A goal's mask, and-ed with it, tells which of
        them make it true."""
        program = self.program(t.readings)
        engine = self.engine(t.readings)
        value = tm.Evaluators(models_of_actions(t, [random_game(program, t.players, seed=seed, params=self.o.params, engine=engine)
                                                    for seed in range(games)]))
        valid = value.full
        for c in t.constraints:
            valid &= value.mask(c)
        return value, valid

    # ---- witnesses --------------------------------------------------------------------------

    def play_of(self, trace: Trace, model: dict[str, bool | int], n: int, label: str, after: list[Any] | None = None,
                after_readings: dict[str, str] | None = None, to_the_end: bool = True) -> Play:
        """The game of a model under one reading, replayed and checked; its table set-up is kept
        for the witness. ``after``: instead of the model's game, another reading's game followed
        as far as this reading allows and then continued with random legal moves.
        ``to_the_end`` False: a model cut at the loop bound is shown as far as the model goes (what
        it shows happens within it: a state that breaks an invariant), not continued to an end."""
        program = self.program(trace.readings)
        continued = True
        if after is None:
            actions = actions_of(trace, model, n, self.pass_action)
            continued = bool(tm.evaluate(trace.truncated, model))
            if continued and not to_the_end:
                play, _ = self.play_actions(trace.readings, actions, n, label, open_ended=True)
                return play
            if continued:
                # the trace stops at the loop bound; the game goes on, with random legal moves
                actions = continue_game(program, n, actions, self.o.params)
            else:
                actions = finish_short_draw(program, n, actions, self.o.params)
        else:
            actions = follow(program, self.program(after_readings or self.base_readings), n, after, self.o.params)
        # random moves that reach no end within their limit (in a game that can go on for ever)
        # show the game as far as they go; a game of the solver's own model must end
        play, r = self.play_actions(trace.readings, actions, n, label, open_ended=continued and len(actions) >= CONTINUE_MOVES)
        expected = _model_winners(trace, model) if after is None else None
        if r.error is None and expected is not None and r.winners != expected:
            raise ReplayMismatch(f"the solver claimed winners {expected}, the game gives {r.winners} ({label})")
        return play

    def play_actions(self, readings: dict[str, str], actions: list[Any], n: int, label: str,
                     open_ended: bool = False) -> tuple[Play, Replay]:
        """A game given by its actions, replayed in the interpreter and the generated engine,
        which must agree; with the interpreter's replay. ``open_ended``: the actions may stop
        before the game ends (random moves cut at their limit)."""
        program = self.program(readings)
        r = replay_interpreter(program, n, actions, self.o.params)
        module = self.engine(readings)
        eng = replay_engine(module, n, actions, self.o.params) if module is not None else None
        play = make_play(label, readings, r, eng)
        self.setups[id(play)] = r.setup
        self.scores[id(play)] = r.scores or {}
        if not r.legal and not (open_ended and r.error == UNFINISHED):
            raise ReplayMismatch(f"the witness game is not legal in the interpreter ({label}): {r.error}")
        if module is not None and not play.replayed:
            raise ReplayMismatch(f"the generated engine does not reproduce the interpreter's game ({label}): {eng}")
        return play, r

    def found(self, kind: str, verdict: str, subject: str, span: Span, quotes: list[Quote] | None = None,
              witness: Witness | None = None, bound: str | None = None, declared: str | None = None, **facts: Any) -> Finding:
        """Record a finding: its verdict (findings.VERDICTS gives its status and severity) and the
        facts behind it; its sentences are made from both afterwards (reports/wording.py)."""
        status, severity = VERDICTS[(kind, verdict)]
        f = Finding(kind, severity, status, subject, "", "", span, list(quotes or []), witness, bound,
                    details=facts, verdict=verdict, declared=declared)
        self.findings.append(f)
        return f

    def other_readings(self) -> list[dict[str, str]]:
        """The readings one ambiguity away from those verified (ambiguities fixed with --reading
        stay fixed), in declaration order."""
        out = []
        for amb in self.rules.ambiguities.values():
            if amb.name in self.o.readings:
                continue
            for r in amb.readings:
                if r.name != self.base_readings[amb.name]:
                    out.append({**self.base_readings, amb.name: r.name})
        return out

    def readings_scope(self, others: int = 0) -> str:
        """The readings (and parameter values) a claim about the model was made under; empty for a
        ruleset with neither ambiguities nor parameters. ``others``: the claim also holds under
        that many other readings, all those one ambiguity away (:meth:`other_readings`)."""
        parts = []
        if self.rules.ambiguities:
            changed = {a: r for a, r in self.base_readings.items() if r != self.rules.ambiguities[a].default.name}
            scope = ("under the default readings" if not changed
                     else "under the readings " + ", ".join(f"{a}={r}" for a, r in sorted(changed.items())))
            if others:
                scope += f" and under each of the {others} readings one ambiguity away from them"
            parts.append(scope)
        if self.rules.params:
            given = dict(sorted(self.o.param_labels.items()))
            parts.append("with the parameters at their defaults" if not given
                         else "with " + ", ".join(f"{k}={v}" for k, v in given.items()) + " (the other parameters at their defaults)")
        return ", ".join(parts)

    def bound(self, what: str, others: int = 0) -> str:
        """A proof's bound: what it covers, and under which readings and parameter values."""
        scope = self.readings_scope(others)
        return f"{what}, {scope}" if scope else what

    def witness(self, plays: list[Play], n: int, divergence: str, at_parting: bool = False) -> Witness:
        """A witness game: its plays, and the table at the latest point they share, from which a
        person follows the few moves after it (the whole game stays in the plays, for replay);
        ``at_parting``: what the witness shows is where the plays part (other moves or views)."""
        programs = [self.program(p.readings) for p in plays]
        if len(plays) == 1:
            pos = one_play_position(programs[0], n, plays[0].actions, self.o.params)
        else:
            pos = position(programs, n, [p.actions for p in plays], self.o.params, at_parting)
        if pos is not None and pos.longest > FEW_MOVES and pos.where != "late":
            pos.note = wording.long_witness(pos.longest, pos.step, len(plays) > 1)
        return Witness(n, self.setups.get(id(plays[0]), []), plays, divergence, pos)

    # ---- checks -------------------------------------------------------------------------------
    def base(self, n: int) -> Trace:
        return self.trace(n, self.base_readings, invariants=True)

    def free_data(self) -> AttrSource:
        """The components' attributes with the assumed and unspecified ones free. One source per
        trace; the variables are named by component and attribute, so two readings' games read the
        same table."""
        _, values = resolve_params(self.rules, self.o.params)
        return AttrSource(self.rules, values, self.symbolic)

    def free_base(self, n: int) -> Trace:
        """The default readings' trace with the assumed and unspecified data free (watching the
        invariants, as the base trace does): one for the sensitivity checks and the invariants'
        proofs for every table."""
        if n not in self.free_bases:
            self.free_bases[n] = self.trace(n, self.base_readings, invariants=True, attrs=self.free_data())
        return self.free_bases[n]


def _enclosing(rules: ir.Ruleset, span: Span) -> str | None:
    """The innermost definition or procedure (a reading's version included) whose text holds the
    span, so that a title can say which rule a construct belongs to."""
    found: list[tuple[int, int, str]] = []
    versions: list[ir.Definition | ir.Procedure] = [*rules.defs.values(), *rules.procs.values()]
    for amb in rules.ambiguities.values():
        for reading in amb.readings:
            versions += [*reading.defs.values(), *reading.procs.values()]
    for v in versions:
        sp = v.span
        if (sp.line, sp.col) <= (span.line, span.col) and (span.end_line, span.end_col) <= (sp.end_line, sp.end_col):
            found.append((sp.end_line - sp.line, sp.end_col - sp.col if sp.end_line == sp.line else 0, v.name))
    return min(found)[2] if found else None


def _quotes(src: ir.Source | None) -> list[Quote]:
    if src is None:
        return []
    return [Quote(q.text, q.lang) for q in src.quotes]


def _model_winners(trace: Trace, model: dict[str, bool | int]) -> list[int] | None:
    value = tm.Evaluator(model)
    if not value(trace.ended) or value(trace.stopped):
        return None
    return [q for q, m in sorted(trace.winners.mem.items()) if value(m)]


def deal_constraints(trace: Trace, model: dict[str, bool | int]) -> list[tm.Term]:
    """The chance decisions a concrete game takes before its first player decision, fixed."""
    out: list[tm.Term] = []
    active = tm.Evaluator(model)
    for d in trace.decisions:
        if not active(d.active):
            continue
        if d.kind not in ("chance", "deal"):
            break
        out.append(tm.implies(d.active, tm.and_all(b if model.get(f"d|{d.key}|{k}") else tm.not_(b) for k, b in d.sel.items())))
    return out


def drained_loops(program: ir.Program) -> dict[int, int]:
    """Loops that end because they drain a zone (see ``shrinking_zone``), each with the most passes
    it can make: the number of components that zone can hold."""
    out: dict[int, int] = {}
    for s in statements(program):
        if isinstance(s, (ir.RepeatUntil, ir.While)):
            zone = shrinking_zone(s, program.procs)
            if zone is not None:
                kinds = program.rules.zones[zone].kinds
                most = sum(1 for c in program.rules.components if c.kind in kinds)
                if most <= DRAIN_UNROLL:
                    out[s.sid] = most
    return out
