"""`rulecheck verify`: every check of the brief's section 4 on one ruleset.

For each player count the game allows, the ruleset is executed symbolically (symbolic.py), the
checks are phrased as conditions (conditions.py) and decided by z3 (z3backend.py). Every witness is
replayed through the reference interpreter, which tells the game, and through the generated engine
of each reading, which must reach the same outcome; a disagreement makes the check fail loudly.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rulecheck.codegen.playout import game_seed, play
from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TEnum, TInt
from rulecheck.dsl.values import num_distinct_actions, player_name
from rulecheck.dsl.walk import callees, walk_exprs, walk_stmts
from rulecheck.interpreter.semantics import resolve_params

from . import terms as tm
from .conditions import (
    Condition,
    counters,
    invariant_conditions,
    lasso,
    lasso_at,
    moves_condition,
    moves_differ,
    obligation_condition,
    obligation_groups,
    outcome_differs,
    repeat_pass,
    shrinking_zone,
)
from .findings import KINDS, Finding, Play, Quote, Witness
from .symbolic import DEFAULT_LOOP_BOUND, AttrSource, SymExec, Trace, Unsupported, statements
from .witness import (
    CONTINUE_MOVES,
    UNFINISHED,
    Replay,
    actions_of,
    continue_game,
    first_difference,
    first_seen_difference,
    first_state_difference,
    make_play,
    model_of_actions,
    observe_engine,
    random_game,
    replay_engine,
    replay_interpreter,
)
from .z3backend import Result, Session, Translator

#: Obligation kinds of the symbolic executor and the finding kind they become.
OBLIGATION_KINDS = {"incomplete": "incompleteness", "conflict": "conflict", "exhaustion": "exhaustion", "range": "exhaustion"}


#: The checks that are not per ambiguity, and the kinds of finding each gives.
TASK_KINDS = {
    "obligations": frozenset({"incompleteness", "conflict", "exhaustion"}),
    "invariants": frozenset({"invariant"}),
    "termination": frozenset({"non-termination"}),
    "dead rules": frozenset({"dead-rule"}),
}


#: Sensitivity findings by status: a witness is a table with which the finding does not hold.
SENSITIVITY_TITLES = {"proven": "holds whatever", "witness": "depends on", "unknown": "not decided whether it depends on"}

#: Random tables of the unspecified data a random-play witness is replayed with (besides each
#: column's ends), to see whether the difference depends on the data.
SENSITIVITY_TABLES = 20

#: Most seconds for each cheap over-approximation tried before a whole-game question (a shortcut
#: that does not settle it by then is not waited for: the whole game is asked anyway).
SHORTCUT_TIMEOUT = 10.0
#: the most questions a proof at the end of the game asks (Verifier.agree_at_end): one per pair of
#: winners and a few more at each end the trace reaches; 6 players at 2 ends take 68
END_QUESTIONS = 80


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


@dataclass
class Outcome:
    rules: ir.Ruleset
    findings: list[Finding]
    players: list[int]
    readings: dict[str, str]
    checks: dict[str, float] = field(default_factory=dict)  # seconds per check (benchmarks only)
    params: dict[str, str] = field(default_factory=dict)  # parameters as given, for the output


class Verifier:
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
        self.bounded: dict[tuple[int, int, bool], Trace] = {}  # (players, loop bound, invariants) -> trace with drained loops whole
        self.pass_action = num_distinct_actions(rules) - 1  # the action of a player who only passes
        self.models: dict[int, tuple[dict[str, bool | int], set[str]]] = {}  # id(finding) -> witness model, decisions taken
        self.tr: Translator | None = None  # the z3 context of the check running (see session)
        # the default readings' games translated once, before the workers fork: each check starts
        # from its own copy of this context (see run_tasks)
        self.shared_tr: Translator | None = None
        self.proven_invariants: dict[tuple[str, int, bool], bool] = {}  # (invariant, players, any table) -> proven
        self.solved: dict[tuple[str, int, bool], Result] = {}  # the same key -> the solver's answer, asked ahead (prove_invariants)
        self.end_proofs: dict[int, list[str]] = {}  # players -> the invariants agree_at_end's proof used
        self.free_bases: dict[int, Trace] = {}  # players -> the default readings' trace with the data free

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

    def trace_bounded(self, n: int, bound: int, invariants: bool = False) -> Trace:
        """The default readings' game for the non-termination check: open loops cut after
        ``bound`` passes, but loops proven to end by the zone they drain unrolled to their last
        pass, so that a pass of an outer loop is whole. (The other checks keep such loops cut at
        the loop bound: the larger traces cost more witnesses to time-outs than they add proofs.)"""
        key = (n, bound, invariants)
        if key not in self.bounded:
            program = self.program(self.base_readings)
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

    def search(self, traces: list[Trace], goals: list[tuple[str, list[tm.Term], tm.Term]], n: int) -> tuple[str, Result]:
        """Look for a game where one of the goals holds (each with its background): first with the
        deal of a few random games fixed (small problems the solver settles fast; a game found so
        is as good as any), then with every deal open, which is what a proof needs. The first goal
        found wins; "unsat" only when every goal is proven impossible."""
        goals = [g for g in goals if g[2] is not False]
        if not goals:
            return "", Result("unsat")
        sessions = [self.session(bg) for _, bg, _ in goals]
        program = self.program(traces[0].readings)
        stuck: set[str] = set()  # goals a fixed deal did not settle: other deals will not either
        for k in range(self.o.guided_tries):
            fixed = deal_constraints(traces[0], model_of_actions(traces[0], random_game(program, n, seed=k, params=self.o.params)))
            for (name, _, goal), session in zip(goals, sessions):
                if name in stuck:
                    continue
                r = session.check(goal, *fixed, timeout_s=min(self.o.guided_timeout, self.o.timeout))
                if r.status == "sat":
                    return name, r
                if r.status == "unknown":
                    stuck.add(name)
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
        text = players_text(n_list)
        if n_list and any(self.cut_by_bound(n) for n in n_list):
            text += f" (up to {self.o.loop_bound} passes of each open loop)"
        return text

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
        value = tm.Evaluators([model_of_actions(t, random_game(program, t.players, seed=seed, params=self.o.params))
                               for seed in range(games)])
        valid = value.full
        for c in t.constraints:
            valid &= value.mask(c)
        return value, valid

    # ---- witnesses --------------------------------------------------------------------------

    def play_of(self, trace: Trace, model: dict[str, bool | int], n: int, label: str, after: list[Any] | None = None) -> Play:
        """The game of a model under one reading, replayed and checked; its table set-up is kept
        for the witness. ``after``: instead of the model's game, another reading's game followed
        as far as this reading allows and then continued with random legal moves."""
        program = self.program(trace.readings)
        continued = True
        if after is None:
            actions = actions_of(trace, model, n, self.pass_action)
            continued = bool(tm.evaluate(trace.truncated, model))
            if continued:
                # the trace stops at the loop bound; the game goes on, with random legal moves
                actions = continue_game(program, n, actions, self.o.params)
        else:
            actions = continue_game(program, n, after, self.o.params)
        # random moves that reach no end within their limit (in a game that can go on for ever)
        # show the game as far as they go; a game of the solver's own model must end
        play, r = self.play_actions(trace.readings, actions, n, label, open_ended=continued and len(actions) >= CONTINUE_MOVES)
        expected = _model_winners(trace, model) if after is None else None
        if r.error is None and expected is not None and r.winners != expected:
            raise ReplayMismatch(f"the solver claimed winners {expected}, the game gives {r.winners} ({label})")
        return play

    def play_actions(self, readings: dict[str, str], actions: list[Any], n: int, label: str, open_ended: bool = False) -> tuple[Play, Replay]:
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

    def random_witness(self, alt: dict[str, str], n: int, labels: tuple[str, str], names: tuple[str, str]) -> tuple[Play, Play, str] | None:
        """Games played at random on the two readings' engines, one random stream per game shared
        by both (the same choices until the rules part): the first whose results differ, replayed
        and checked like any witness, with the results and where the two games first part. For differences the solver cannot reach: games longer than
        its loop bound, or problems it does not settle in time. Deterministic: fixed seeds."""
        ma, mb = self.engine(self.base_readings), self.engine(alt)
        if ma is None or mb is None or self.o.random_games <= 0:
            return None
        ga = ma.load_game({"players": n, **self.o.params})
        gb = mb.load_game({"players": n, **self.o.params})
        for g in range(self.o.random_games):
            seed = game_seed(0, g)
            acts_a: list[Any] = []
            acts_b: list[Any] = []
            oa, _ = play(ga, ma.RuleError, seed, RANDOM_MAX_STEPS, acts_a)
            ob, _ = play(gb, mb.RuleError, seed, RANDOM_MAX_STEPS, acts_b)
            if isinstance(oa, str) or isinstance(ob, str) or oa == ob:
                continue
            pa, ra = self.play_actions(self.base_readings, acts_a, n, labels[0])
            pb, rb = self.play_actions(alt, acts_b, n, labels[1])
            if ra.error is None and rb.error is None and None not in (ra.winners, rb.winners) and ra.winners != rb.winners:
                div = f"{pa.outcome} under '{names[0]}'; {pb.outcome} under '{names[1]}'"
                where = first_state_difference(self.program(self.base_readings), self.program(alt), n, (acts_a, acts_b), names, self.o.params)
                return pa, pb, div + (f"; the games first part {where}" if where else "")
        self.random_tried.append(n)
        return None

    def witness(self, plays: list[Play], n: int, divergence: str) -> Witness:
        return Witness(n, self.setups.get(id(plays[0]), []), plays, divergence)

    # ---- checks -------------------------------------------------------------------------------

    def run(self) -> Outcome:
        wanted = self.o.checks if self.o.checks is not None else frozenset(KINDS)
        tasks: list[tuple[str, ...]] = []
        if wanted & {"ambiguity", "sensitivity"}:
            for amb in self.rules.ambiguities.values():
                if amb.name in self.o.readings:
                    continue
                tasks.extend(("reading", amb.name, r.name) for r in amb.readings if r.name != self.base_readings[amb.name])
        tasks += [(name,) for name, kinds in TASK_KINDS.items() if wanted & kinds]
        needs = self.lemma_needs(tasks)
        lemmas = sorted({dep for deps in needs.values() for dep in deps}, key=lambda t: -int(t[1]))
        def build(n: int) -> list[Trace]:
            # the default readings' traces: forked workers inherit them; with the data free too
            # where the sensitivity checks or the invariants' proofs for every table start from it
            built = [self.base(n)]
            if self.symbolic and ((self.o.sensitivity and "sensitivity" in wanted) or lemmas):
                try:
                    built.append(self.free_base(n))
                except Unsupported:
                    pass
            return built

        results: dict[tuple[str, ...], list[Finding]] = {}
        timing: dict[str, float] = {}
        # the lemmas others wait for first, then the checks over every player count (the
        # longest), the readings that wait for the lemmas among them; the other readings fill in
        started = lemmas + sorted(tasks, key=lambda t: (t[0] == "reading" and t not in needs, t[0] == "reading"))
        for i, (task, found, spent) in enumerate(self.run_tasks(started, needs, build), start=1):
            results[task] = found
            for k, secs in spent.items():
                timing[k] = timing.get(k, 0.0) + secs
            self.progress(f"{i}/{len(started)} {' '.join(task)}")
        self.timing = timing
        # task order, not completion order: the output must not depend on timing
        self.findings = [f for task in tasks for f in results[task] if f.kind in wanted]
        if "translation" in wanted:
            self.timed("translation", self.check_translation)
        order = {k: i for i, k in enumerate(_KIND_ORDER)}
        sev = {"error": 0, "warning": 1, "note": 2}
        self.findings.sort(key=lambda f: (order.get(f.kind, 99), sev[f.severity], f.span.line, f.span.col, f.subject, f.title))
        return Outcome(self.rules, self.findings, self.players, dict(self.base_readings), dict(self.timing), dict(sorted(self.o.param_labels.items())))

    def lemma_needs(self, tasks: list[tuple[str, ...]]) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
        """The tasks that wait for the invariants' proofs for each player count (the "lemmas"
        tasks): the readings an end-of-game proof may settle, which use the invariants as facts,
        and, where those proofs are made with the assumed data free, the invariant check, which
        a proof for every table settles for the assumed one. Proven once each, in a worker of their
        own, so that no check's answer depends on which other checks ran before it."""
        if not self.rules.invariants:
            return {}
        ends = [t for t in tasks if t[0] == "reading" and self.end_proof_candidate(self.rules.ambiguities[t[1]], t[2])]
        if not ends:
            return {}
        lemmas: list[tuple[str, ...]] = [("lemmas", str(n)) for n in self.players]
        users = ends + ([("invariants",)] if self.symbolic and ("invariants",) in tasks else [])
        return {t: lemmas for t in users}

    def run_tasks(self, tasks: list[tuple[str, ...]], needs: dict[tuple[str, ...], list[tuple[str, ...]]],
                  build: Callable[[int], list[Trace]]) -> Iterator[tuple[tuple[str, ...], list[Finding], dict[str, float]]]:
        """Builds the shared traces of each player count (``build``) and runs the tasks, each
        once the tasks it needs are done, the first ready in the list's order whenever a worker is
        free; yields each as it ends. The first task, when it is the invariants' proofs for one
        player count (the lemmas, the longest task), starts as soon as that count's traces are
        built, while the parent builds the others (with one job too, so that the point where its
        worker is forked, and so its output, does not depend on --jobs). The parent also
        translates the default readings' games to one z3 context, which every later task starts
        from (its own copy, inherited at the fork)."""
        jobs = max(1, min(self.o.jobs, len(tasks)))
        pending = list(tasks)
        lemmas: dict[tuple[str, ...], dict[tuple[str, int, bool], bool]] = {}

        def next_ready() -> tuple[tuple[str, ...], dict[tuple[str, int, bool], bool]] | None:
            for t in pending:
                if all(dep in lemmas for dep in needs.get(t, ())):
                    pending.remove(t)
                    return t, {k: v for dep in needs.get(t, ()) for k, v in lemmas[dep].items()}
            return None

        first = pending[0] if pending and pending[0][0] == "lemmas" else None
        order = sorted(self.players, key=lambda n: first is None or str(n) != first[1])
        if not hasattr(os, "fork"):
            for n in order:
                build(n)  # the checks run one after the other here: each gets a fresh z3 context
            while (ready := next_ready()) is not None:
                task, found, spent, proved = self.run_task(*ready)
                lemmas[task] = proved
                yield task, found, spent
            return
        running: dict[Any, tuple[int, tuple[str, ...]]] = {}  # result pipe -> (worker pid, task)
        try:
            # a fresh worker for each task, forked by this thread (no pool and no helper thread,
            # whose forks could copy a lock another thread held) at a fixed point of the parent's
            # work (after the traces it may use are built, and after all of them for every task
            # but the first), even with one job: which checks ran before in a process must not
            # matter (terms are interned in creation order, and the order of their parts reaches
            # the solver), so the output depends neither on timing nor on --jobs
            self.shared_tr = Translator()
            for n in order:
                built = build(n)
                if first is not None and first[1] == str(n) and first in pending:
                    pending.remove(first)
                    running.update(self.fork_task(first, {}))
                # the rules of these games are the background of almost every other check's
                # questions (the invariants' proofs start afresh: see run_task)
                for t in built:
                    for c in t.constraints:
                        self.shared_tr(c)
                # and whether its games end within the loop bound, or run past it: almost every
                # check asks (a few random games, the solver where they do not show it)
                self.tr = self.shared_tr
                self.ends_within(n)
                self.cut_by_bound(n)
                self.tr = None
            # and the default readings' engine replays every witness
            self.engine(self.base_readings)
            while pending or running:
                while len(running) < jobs and (ready := next_ready()) is not None:
                    running.update(self.fork_task(*ready))
                assert running, "a task waits for one that is not run"
                finished: list[Any] = multiprocessing.connection.wait(list(running))
                for conn in finished:
                    pid, task = running.pop(conn)
                    try:
                        status, out = conn.recv()
                    except EOFError:  # the worker died (killed, or a crash in the solver)
                        status, out = "error", RuntimeError(f"the worker of the check {' '.join(task)} ended without a result")
                    conn.close()
                    os.waitpid(pid, 0)
                    if status == "error":
                        raise out
                    task, found, spent, proved = out
                    lemmas[task] = proved
                    yield task, found, spent
        finally:
            for conn, (pid, _) in running.items():
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except OSError:
                    pass
                conn.close()
            self.shared_tr = None

    def fork_task(self, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool]) -> dict[Any, tuple[int, tuple[str, ...]]]:
        """Runs one task in a forked worker (which inherits this verifier: nothing is pickled but
        the result); returns the pipe its result (or the error it raised) will come through, with
        the worker's pid and the task."""
        receive, send = multiprocessing.Pipe(duplex=False)
        pid = os.fork()
        if pid == 0:  # the worker
            receive.close()
            try:
                try:
                    send.send(("ok", self.run_task(task, lemmas)))
                except BaseException as err:  # every error goes to the parent, raised there
                    try:
                        send.send(("error", err))
                    except Exception:  # an error that does not pickle: its text
                        send.send(("error", RuntimeError(f"{type(err).__name__}: {err}")))
            finally:
                os._exit(0)  # no exit handlers: they belong to the parent
        send.close()
        return {receive: (pid, task)}

    def run_task(self, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool] | None = None) -> tuple[
            tuple[str, ...], list[Finding], dict[str, float], dict[tuple[str, int, bool], bool]]:
        """One check; also what it proves for others to use (a "lemmas" task's invariants)."""
        # the invariants' proofs translate little of the shared context's games, and z3's search
        # depends on the order its terms were made: in a context of their own the proofs for 4
        # players took 16 s instead of 23 s (measured: docs/verify.md)
        self.findings, self.timing, self.tr = [], {}, None if task[0] == "lemmas" else self.shared_tr
        self.proven_invariants.update(lemmas or {})
        if task[0] == "lemmas":
            n = int(task[1])
            any_table = bool(self.symbolic)
            self.timed(f"invariants for {n} players{', any table' if any_table else ''}", lambda: self.prove_invariants(n, any_table))
            return task, [], self.timing, {k: v for k, v in self.proven_invariants.items() if k[1] == n}
        if task[0] == "reading":
            amb = self.rules.ambiguities[task[1]]
            name = f"ambiguity {amb.name}={task[2]}"
            self.timed(name, lambda: self.check_reading(amb, self.base_readings[amb.name], task[2]))
            if self.o.sensitivity:
                self.timed(f"sensitivity {amb.name}={task[2]}", self.check_sensitivity)
        else:
            self.timed(task[0], getattr(self, "check_" + task[0].replace(" ", "_")))
        return task, self.findings, self.timing, {}

    def base(self, n: int) -> Trace:
        return self.trace(n, self.base_readings, invariants=True)

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
            if entry["witness"] is not None:
                n, play = entry["witness"]
                self.findings.append(Finding(
                    kind, "error", "witness", grp.subject, f"{what}: it happens",
                    f"A game of {n} players reaches this point and no rule settles it: {grp.message}.",
                    grp.span, witness=self.witness([play], n, f"the rules stop: {grp.message}"),
                ))
            elif entry["unconfirmed"]:
                self.findings.append(Finding(
                    kind, "error", "unknown", grp.subject, f"{what}: not decided (the verifier's model is too coarse here)",
                    f"For {self.span_line(entry['unconfirmed'])} the solver described a game that reaches this point, but "
                    "replayed in the interpreter and the engine that game plays on without stopping here: the symbolic "
                    "model over-approximates this part of the rules. This is a limit of rulecheck, not a finding; "
                    "please report it." + (f" Proven for {self.span_line(entry['proven'])}." if entry["proven"] else ""),
                    grp.span, bound=self.span_line(entry["proven"]) if entry["proven"] else None,
                ))
            elif entry["unknown"]:
                self.findings.append(Finding(
                    kind, "warning", "unknown", grp.subject, f"{what}: not decided in time",
                    f"The solver ran out of time for {self.span_line(entry['unknown'])}; "
                    + (f"proven for {self.span_line(entry['proven'])}." if entry["proven"] else "nothing is proven."),
                    grp.span, bound=self.span_line(entry["proven"]) if entry["proven"] else None,
                ))
            else:
                self.findings.append(Finding(
                    kind, "note", "proven", grp.subject, f"{what}: never happens",
                    f"No game of {self.span_line(entry['proven'])} reaches this situation: {grp.message}.",
                    grp.span, bound=f"every game of {self.span_line(entry['proven'])}",
                ))

    def holds_in_every_state(self, inv: ir.Invariant) -> bool:
        """An invariant that holds over every state at all (for one of the final state: at each
        end of the flow, with the winners it gives there): true however long the game, with no
        loop bound."""
        for n in self.players:
            try:
                mine = SymExec(self.program(self.base_readings), n, params=self.o.params, watch_invariants=False).whole_state_checks(inv)
            except Unsupported:
                return False
            if mine is None:
                return False
            lemmas = [x for lm, _ in mine for x in lm]
            if self.session(lemmas, min(self.o.timeout, SHORTCUT_TIMEOUT)).check(tm.or_all(bad for _, bad in mine)).status != "unsat":
                return False
        return True

    def invariant_on_whole_passes(self, inv: ir.Invariant, n: int) -> tuple[Result, Trace]:
        """An invariant of the final state, where no game of the cut trace ends, asked again of
        the trace whose zone-draining loops are unrolled whole (a round's every trick): there
        games end within the bound. (An invariant the cut trace leaves unknown is not: the larger
        trace settles it later still.) The whole goal only: the abstract shortcuts were tried
        already. A proof counts only if some game of that trace is shown to end."""
        t = self.trace_bounded(n, self.o.loop_bound, invariants=True)
        cond = invariant_conditions(t).get(inv.name)
        r = self.session(cond.background).check(cond.goal) if cond is not None else Result("unsat")
        if r.status == "unsat" and inv.at_end and not self.random_play_shows(t, tm.and_(t.ended, tm.not_(t.truncated))):
            return Result("unknown"), t
        return r, t

    def invariant_result(self, inv: ir.Invariant, n: int, drained: bool, any_table: bool = False) -> tuple[Result, Trace, bool]:
        """Can a game of n players break the invariant (``any_table``: with any values of the
        assumed and unspecified data)? Also whether it was decided on the trace whose drained
        loops are whole (see invariant_on_whole_passes)."""
        if not any_table:
            t = self.base(n)
            if self.proven_invariants.get((inv.name, n, True)):
                return Result("unsat"), t, False  # proven for every table, so for this one
        else:
            t = self.free_base(n)
        cond = invariant_conditions(t).get(inv.name)
        if cond is None:
            return Result("unsat"), t, False
        r = self.solved.get((inv.name, n, any_table)) or self.solve(cond)
        if not any_table and drained and inv.at_end and r.status == "unsat" and not self.ends_within(n):
            r2, t2 = self.invariant_on_whole_passes(inv, n)
            if r2.status != "unknown":
                return r2, t2, True
        return r, t, False

    def invariant_proven(self, name: str, n: int, any_table: bool = False) -> bool:
        """The invariant holds in every game of n players, as check_invariants would report it
        (for one of the final state: some game ends within the bound); ``any_table``: with every
        value of the assumed and unspecified data."""
        key = (name, n, any_table)
        if key not in self.proven_invariants:
            inv = next(i for i in self.rules.invariants if i.name == name)
            r, _, on_whole = self.invariant_result(inv, n, bool(drained_loops(self.program(self.base_readings))), any_table)
            self.proven_invariants[key] = r.status == "unsat" and (not inv.at_end or on_whole or self.ends_within(n))
        return self.proven_invariants[key]

    def prove_invariants(self, n: int, any_table: bool) -> None:
        """invariant_proven for every invariant, their questions asked together (see solve_all:
        the invariants of the final state share the abstract states of the game's ends)."""
        t = self.free_base(n) if any_table else self.base(n)
        conds = invariant_conditions(t)
        names = [inv.name for inv in self.rules.invariants if inv.name in conds]
        for name, r in zip(names, self.solve_all([conds[name] for name in names])):
            self.solved[(name, n, any_table)] = r
        for inv in self.rules.invariants:
            self.invariant_proven(inv.name, n, any_table)

    def check_invariants(self) -> None:
        drained = bool(drained_loops(self.program(self.base_readings)))
        for inv in self.rules.invariants:
            proven: list[int] = []
            unknown: list[int] = []
            found = None
            if self.holds_in_every_state(inv):
                every = players_text(self.players)
                why = ("it follows from the winners each end of the game gives, whatever the state of the table there" if inv.at_end
                       else "no state of the table breaks it, wherever the components are (each in one place) and whatever "
                            "the variables hold")
                self.findings.append(Finding(
                    "invariant", "note", "proven", inv.name, f"invariant '{inv.name}' holds",
                    f"{inv.desc or inv.name}: true in every {'final ' if inv.at_end else ''}state of every game of {every}, "
                    f"however long: {why}.",
                    inv.span, _quotes(inv.source), bound=f"every game of {every}, any length",
                ))
                continue
            whole: set[int] = set()  # decided on the trace whose drained loops are whole, where games end
            for n in self.players:
                r, t, on_whole = self.invariant_result(inv, n, drained)
                if on_whole:
                    whole.add(n)
                if r.status == "sat":
                    assert r.model is not None
                    found = (n, self.play_of(t, r.model, n, "the game"))
                    break
                (proven if r.status == "unsat" else unknown).append(n)
            desc = inv.desc or inv.name
            quotes = _quotes(inv.source)
            # a final state no game reaches within the bound proves nothing about final states
            endless = [n for n in proven if inv.at_end and n not in whole and not self.ends_within(n)]
            if found is None and endless:
                self.findings.append(Finding(
                    "invariant", "warning", "unknown", inv.name, f"invariant '{inv.name}': not decided (no game ends within the bound)",
                    f"{desc}: no game of {self.span_line(endless)} reaches its end within the bound, so no final state was checked"
                    + (f"; the solver ran out of time for {self.span_line(unknown)}" if unknown else "") + ".",
                    inv.span, quotes,
                ))
                continue
            if found is not None:
                n, play = found
                self.findings.append(Finding(
                    "invariant", "error", "witness", inv.name, f"invariant '{inv.name}' can be broken",
                    f"A game of {n} players breaks: {desc}.", inv.span, quotes,
                    witness=self.witness([play], n, f"'{inv.name}' does not hold"),
                ))
            elif unknown:
                self.findings.append(Finding(
                    "invariant", "warning", "unknown", inv.name, f"invariant '{inv.name}': not decided in time",
                    f"{desc}: the solver ran out of time for {self.span_line(unknown)}.", inv.span, quotes,
                    bound=self.span_line(proven) if proven else None,
                ))
            else:
                self.findings.append(Finding(
                    "invariant", "note", "proven", inv.name, f"invariant '{inv.name}' holds",
                    f"{desc}: true in every {'final ' if inv.at_end else ''}state of every game of {self.span_line(proven)}.",
                    inv.span, quotes, bound=f"every game of {self.span_line(proven)}",
                ))

    def check_termination(self) -> None:
        loops = [s for s in statements(self.program(self.base_readings)) if isinstance(s, (ir.RepeatUntil, ir.While))]
        if not loops:
            longest = max(sum(1 for d in self.base(n).decisions) for n in self.players)
            self.findings.append(Finding(
                "non-termination", "note", "proven", "flow", "every game ends",
                f"The flow has no open-ended loop: every repetition is counted, so every game of "
                f"{self.span_line(self.players)} ends, after at most {longest} decisions (chance draws and choices).",
                self.rules.flow[0].span if self.rules.flow else Span(1, 1, 1, 1),
                bound=f"every game of {self.span_line(self.players)}",
            ))
            return
        for loop in loops:
            self.check_loop(loop)

    def check_loop(self, loop: ir.RepeatUntil | ir.While) -> None:
        zone = shrinking_zone(loop, self.program(self.base_readings).procs)
        if zone is not None:
            self.findings.append(Finding(
                "non-termination", "note", "proven", "loop", "this loop always ends",
                f"Every pass through this loop draws from '{zone}', nothing in it puts anything back into "
                f"'{zone}', and the loop goes on only while '{zone}' holds something: it ends after at most "
                f"as many passes as '{zone}' has components, in every game, however long.",
                loop.span, _quotes(loop.source), bound="every game (any number of passes)",
            ))
            return
        sound_lasso = not any(isinstance(s, ir.Assign) and s.local for s in walk_stmts(loop.body))
        counting = counters(self.program(self.base_readings), resolve_params(self.rules, self.o.params)[0])
        found = None
        proven: list[int] = []
        unknown: list[int] = []
        for n in self.players:
            t = self.trace_bounded(n, self.o.loop_bound)
            session = self.session(t.constraints)
            if sound_lasso:
                # first the small problems: games of k passes whose last pass is played exactly as
                # the one before it and ends where it began (k = 2, 3, …); then any two passes of
                # the full trace with any play between them
                for k in range(2, self.o.loop_bound + 1):
                    tk = self.trace_bounded(n, k)
                    if loop.sid not in tk.loop_heads:
                        break
                    r = (session if tk is t else self.session(tk.constraints)).check(
                        lasso_at(tk, loop.sid, k - 1, k, counting), *repeat_pass(tk, loop.sid, k - 1))
                    if r.status == "sat":
                        assert r.model is not None
                        found = (n, tk, r.model)
                        break
                if found is None:
                    r = session.check(lasso(t, loop.sid, counting))
                    if r.status == "sat":
                        assert r.model is not None
                        found = (n, t, r.model)
                if found:
                    break
            r = session.check(t.truncated)
            (proven if r.status == "unsat" else unknown).append(n)
        src = _quotes(loop.source)
        if found is not None:
            n, t, model = found
            play = self._cycle_play(t, model, n)
            counted = [f"'{v}'" for v in sorted(counting)]
            apart = (f" (apart from {', '.join(counted)}, which only {'counts' if len(counted) == 1 else 'count'} "
                     "up and is already past every number the rules compare it with)") if counted else ""
            self.findings.append(Finding(
                "non-termination", "error", "witness", "loop", "play can go on for ever",
                f"In a game of {n} players, a pass through this loop can end in exactly the state it began "
                f"in{apart}, with the loop going on; repeating the same moves, the game never ends.",
                loop.span, src, witness=self.witness([play], n, "the state repeats: the loop never ends"),
            ))
        elif unknown:
            self.findings.append(Finding(
                "non-termination", "warning", "unknown", "loop", "no end proven for this loop",
                f"No repeating state was found within {self.o.loop_bound} passes, and the loop can run longer "
                f"than that for {self.span_line(unknown)}: whether every game ends is not decided.",
                loop.span, src, bound=f"{self.o.loop_bound} passes",
            ))
        else:
            self.findings.append(Finding(
                "non-termination", "note", "proven", "loop", "this loop always ends",
                f"Within {self.o.loop_bound} passes the loop always ends, for every game of {self.span_line(proven)}.",
                loop.span, src, bound=f"{self.o.loop_bound} passes of the loop",
            ))

    def _cycle_play(self, t: Trace, model: dict[str, bool | int], n: int) -> Play:
        actions = actions_of(t, model, n, self.pass_action)
        r = replay_interpreter(self.program(t.readings), n, actions, self.o.params)
        return Play("the game", dict(sorted(t.readings.items())), actions, r.log, "the state repeats", None, False)

    def check_dead_rules(self) -> None:
        labels: dict[str, Any] = {}
        covered: set[str] = set()
        undecided: set[str] = set()  # the solver ran out of time for some player count
        cut: list[int] = []  # player counts whose games can outrun every trace explored
        drained = drained_loops(self.program(self.base_readings))
        for n in self.players:
            # the base trace, then (for what it does not reach) the trace with the loops that
            # drain a zone unrolled whole: what follows such a loop is cut off in the first
            traces = [self.base(n)] + ([self.trace_bounded(n, self.o.loop_bound)] if drained else [])
            open_here: set[str] = set()  # out of time in the last trace that asked
            for t in traces:
                pending = [lab for lab, rch in sorted(t.reach.items()) if lab not in covered]
                for lab in pending:
                    labels.setdefault(lab, t.reach[lab])
                open_here -= set(pending)
                self.cover(t, pending, covered, open_here)
            undecided |= open_here
            if self.can_be_cut(traces[-1]) if drained else self.cut_by_bound(n):
                cut.append(n)
        # a rule no game checked reaches may apply with another player count or parameter value:
        # then it is not dead
        covered |= self.reached_elsewhere({lab for lab in labels if lab not in covered and not lab.startswith("loop")})
        quotes = _rule_quotes(self.program(self.base_readings))
        for lab, rch in sorted(labels.items(), key=lambda kv: (kv[1].span.line, kv[1].span.col, kv[0])):
            if lab in covered or lab.startswith("loop"):
                continue
            where = _enclosing(self.rules, rch.span) if rch.subject in ("if", "end") else None
            what = f"{rch.what} in '{where}'" if where else rch.what
            if lab in undecided or cut:
                # not reached in the games explored, but those are not all the games
                why = "the solver ran out of time" if lab in undecided else f"games of {self.span_line(cut)} run past the loop bound"
                self.findings.append(Finding(
                    "dead-rule", "note", "unknown", rch.subject, f"{what}: not reached within the bound",
                    f"No game of {self.span_line(self.players)} that was explored reaches {what}, but {why}: "
                    "whether it can ever apply is not decided.",
                    rch.span, quotes.get(lab, []),
                ))
                continue
            self.findings.append(Finding(
                "dead-rule", "warning", "proven", rch.subject, f"{what} never applies",
                f"In no game of {self.span_line(self.players)} does {what} apply.",
                rch.span, quotes.get(lab, []), bound=f"every game of {self.span_line(self.players)}",
            ))

    def reached_elsewhere(self, labels: set[str]) -> set[str]:
        """Which of the rules a few random games reach (in the interpreter, which records every
        rule that applies) with each player count the game allows, and with each other value of
        the parameters not set with --param (one at a time)."""
        if not labels or self.o.random_games <= 0:
            return set()
        g = self.rules.game
        counts = range(g.min_players, g.max_players + 1)
        configs: list[dict[str, Any]] = [{}]
        for name, p in sorted(self.rules.params.items()):
            if name in self.o.params:
                continue
            if isinstance(p.type, TBool):
                configs.append({name: not p.value})
            elif isinstance(p.type, TEnum):
                configs += [{name: i} for i in range(len(self.rules.enums[p.type.name].values)) if i != p.value]
        program = self.program(self.base_readings)
        found: set[str] = set()
        for extra in configs:
            for n in counts:
                for k in range(ELSEWHERE_GAMES):
                    covered: set[str] = set()
                    random_game(program, n, seed=game_seed(0, k), params={**self.o.params, **extra}, covered=covered)
                    found |= covered & labels
                    if found == labels:
                        return found
        return found

    def cover(self, t: Trace, pending: list[str], covered: set[str], undecided: set[str]) -> None:
        """Which of the pending rules some game of the trace reaches; one game that reaches a rule
        usually reaches many, so each model is evaluated on all of them: first those of a few
        random games (the rules every game goes through, without the solver), then the solver's."""
        games, valid = self.random_models(t, games=16)
        covered.update(lab for lab in pending if valid & games.mask(t.reach[lab].cond))
        pending[:] = [p for p in pending if p not in covered]
        # one solver for the trace, each rule's reach asked of it in turn
        batch = self.session(t.constraints).batch([t.reach[lab].cond for lab in pending])
        index = {lab: i for i, lab in enumerate(pending)}
        while pending:
            lab = pending.pop(0)
            if lab in covered:
                continue
            r = batch.ask(index[lab])
            if r.status == "unknown":
                undecided.add(lab)
            if r.status != "sat":
                continue
            assert r.model is not None
            value = tm.Evaluator(r.model)
            for other in [*pending, lab]:
                if value(t.reach[other].cond):
                    covered.add(other)
            pending[:] = [p for p in pending if p not in covered]

    def check_ambiguities(self) -> None:
        for amb in self.rules.ambiguities.values():
            if amb.name in self.o.readings:
                continue
            base_reading = self.base_readings[amb.name]
            for reading in amb.readings:
                if reading.name == base_reading:
                    continue
                self.check_reading(amb, base_reading, reading.name)

    def check_reading(self, amb: ir.Ambiguity, base: str, other: str) -> None:
        alt = dict(self.base_readings)
        alt[amb.name] = other
        proven: list[int] = []
        unknown: list[int] = []
        quotes = _ambiguity_quotes(amb)
        label_a = f"reading {base} (default)" if base == amb.default.name else f"reading {base}"
        label_b = f"reading {other}"
        locally: list[int] = []
        at_end: list[int] = []
        self.random_tried = []
        moved = _moved_only(amb, base, other)
        for n in self.players:
            # readings that change only where procedures leave components: a local proof first,
            # which costs little next to comparing two whole games; with the assumed data free
            # first, which proves the sensitivity finding too
            if moved and (self.alike_any_table(moved, alt, amb.name, n) or self.same_after_moves(moved, alt, n)):
                locally.append(n)
                proven.append(n)
                continue
            # readings that change only the winners: a proof over the end of the game alone
            if not moved and (self.end_any_table(amb, alt, n) or self.agree_at_end(amb, alt, n)):
                at_end.append(n)
                proven.append(n)
                continue
            ta = self.trace(n, self.base_readings)
            tb = self.trace(n, alt)
            both = ta.constraints + tb.constraints
            background, moves = moves_condition(ta, tb)
            kind_of, r = self.search([ta, tb], [("outcome", both, outcome_differs(ta, tb)), ("moves", background, moves)], n)
            found_by, where = "", None
            if r.status == "sat":
                assert r.model is not None
                pa = self.play_of(ta, r.model, n, label_a)
                if kind_of == "outcome":
                    pb = self.play_of(tb, r.model, n, label_b)
                else:
                    pb = self.play_of(tb, r.model, n, label_b, after=pa.actions)
                    where = first_difference(self.program(ta.readings), self.program(tb.readings), n, pa.actions, (base, other), self.o.params)
                    if where is None:
                        # the solver's claim does not replay: the symbolic model over-approximates
                        # here. Said loudly, as rulecheck's own limit, never as a finding.
                        self.findings.append(Finding(
                            "ambiguity", "error", "unknown", amb.name,
                            f"{amb.name}: not decided (the verifier's model is too coarse here) ({base} / {other})",
                            f"For {n} players the solver described a game in which '{base}' and '{other}' offer different "
                            "moves, but replayed in the interpreter that game shows no difference: the symbolic model "
                            "over-approximates this part of the rules. This is a limit of rulecheck, not a finding; "
                            "please report it.",
                            amb.span, quotes, details={"ambiguity": amb.name, "readings": [base, other]},
                        ))
                        return
            elif r.status == "unknown" or self.cut_by_bound(n):
                # beyond the solver's reach (time, or games longer than its bound): random games
                got = self.random_witness(alt, n, (label_a, label_b), (base, other))
                if got is not None:
                    (pa, pb, div), kind_of, found_by = got, "outcome", "random play"
            if r.status == "sat" or found_by:
                if kind_of == "outcome":
                    what = "the readings give different results"
                    if not found_by:
                        div = f"{pa.outcome} under '{base}'; {pb.outcome} under '{other}'"
                        if pa.outcome == pb.outcome:  # the same winners: the scores differ
                            div = f"{pa.outcome} under both, but " + "; ".join(
                                f"'{name}' is {_by_seat(got)} under '{base}', {_by_seat(self.scores[id(pb)][name])} under '{other}'"
                                for name, got in self.scores[id(pa)].items() if got != self.scores[id(pb)].get(name))
                else:
                    assert where is not None
                    what, div = "the readings allow different moves", where
                finding = self.ambiguity_witness(amb, (base, other), n, kind_of, what, div, (pa, pb), found_by)
                if r.model is not None and not found_by:
                    value = tm.Evaluator(r.model)
                    active = {d.key for t in (ta, tb) for d in t.decisions if value(d.active)}
                    self.models[id(finding)] = (r.model, active)
                return
            if r.status == "unknown" and self.agree_where_used(amb, alt, n):
                locally.append(n)
            (proven if r.status == "unsat" or n in locally else unknown).append(n)
        # results are compared only in games that end: where none ends within the bound, "the
        # same in every game" covers the opening of the game alone, and is not a proof
        endless = [n for n in proven if not self.ends_within(n)]
        settled = [n for n in proven if n not in endless]
        checked = (f" The solver checked {self.span_line(self.players)}"
                   + (f": no game of {self.span_line(settled)} shows a difference." if settled else ", without an answer."))
        # the question is whether the readings ever differ: random games of the player counts
        # the solver did not take show it too, and cost little next to a solver question
        g = self.rules.game
        for n in [k for k in range(g.min_players, g.max_players + 1) if k not in self.players]:
            got = self.random_witness(alt, n, (label_a, label_b), (base, other))
            if got is not None:
                pa, pb, div = got
                self.ambiguity_witness(amb, (base, other), n, "outcome", "the readings give different results", div, (pa, pb),
                                       "random play", checked)
                return
        seen = self.seen_witness(alt, self.players[0], (label_a, label_b), (base, other))
        if seen is not None:
            pa, pb, div = seen
            if unknown or endless:
                same = " Whether they also change results or moves was not decided."
            else:
                same = f" In every game of {self.span_line(proven)} they give the same winners and scores and offer the same choices."
            self.ambiguity_witness(amb, (base, other), self.players[0], "information", "the readings show players different things",
                                   div, (pa, pb), "random play", same)
            return
        if endless:
            self.findings.append(Finding(
                "ambiguity", "warning", "unknown", amb.name, f"{amb.name}: not decided (no game ends within the bound) ({base} / {other})",
                f"No game of {self.span_line(endless)} reaches its end within the bound, so the readings' results were not compared; "
                f"within the bound the readings '{base}' and '{other}' offer the same choices"
                + (f", and the solver ran out of time for {self.span_line(unknown)}" if unknown else "") + ".",
                amb.span, quotes, details={"ambiguity": amb.name, "readings": [base, other]},
            ))
            return
        if unknown:
            self.findings.append(Finding(
                "ambiguity", "warning", "unknown", amb.name, f"{amb.name}: not decided in time ({base} / {other})",
                f"The solver ran out of time for {self.span_line(unknown)}; no game where '{base}' and '{other}' differ was found"
                + (f", and none exists for {self.span_line(proven)}." if proven else ".")
                + (f" Random play showed none either: {self.o.random_games} games for each player count "
                   f"({players_text(sorted(set(self.random_tried)))}), the same choices under both readings until the rules part."
                   if self.random_tried else ""),
                amb.span, quotes, bound=self.span_line(proven) if proven else None,
                details={"ambiguity": amb.name, "readings": [base, other]},
            ))
            return
        names = ", ".join(repr(x) for x in sorted({*(amb.reading(base) or amb.default).defs, *(amb.reading(other) or amb.default).defs}))
        where = "" if locally == proven else f" (for {self.span_line(locally)})"
        how = ""
        if locally and moved:
            how = (f" Where the game calls {', '.join(repr(x) for x in moved)}, the two versions may leave components in "
                   f"different places, but no rule the game applies afterwards tells the two tables apart{where}, so every "
                   "game goes exactly the same way.")
        elif locally:
            how = f" Where the game uses {names}, both versions give the same value{where}, so every game goes exactly the same way."
        if at_end:
            used = sorted({name for k in at_end for name in self.end_proofs[k]})
            how += (f" {'The game' if at_end == proven else f'For {self.span_line(at_end)}, the game'} uses {names} only "
                    "to name its winners, and both versions name the same ones at every end of the game, "
                    + (f"in every position where {'the invariant' if len(used) == 1 else 'the invariants'} {', '.join(repr(x) for x in used)} "
                       f"{'holds' if len(used) == 1 else 'hold'} (proven: see the invariant findings)" if used else
                       "in every position of the components") + ".")

        self.findings.append(Finding(
            "ambiguity", "note", "proven", amb.name, f"{amb.name}: harmless ({base} / {other})",
            f"Proven harmless: in every game of {self.span_line(proven)} the readings '{base}' and '{other}' "
            "give the same winners and scores and offer the same choices." + how,
            amb.span, quotes, bound=f"every game of {self.span_line(proven)}",
            details={"ambiguity": amb.name, "readings": [base, other]},
        ))

    def ambiguity_witness(self, amb: ir.Ambiguity, readings: tuple[str, str], n: int, kind_of: str, what: str, div: str,
                          plays: tuple[Play, Play], found_by: str, more: str = "") -> Finding:
        details: dict[str, Any] = {"ambiguity": amb.name, "readings": list(readings), "differs_in": kind_of, "players": n}
        if found_by:
            details["found_by"] = found_by
        finding = Finding(
            "ambiguity", "warning", "witness", amb.name, f"{amb.name}: {what} ({readings[0]} / {readings[1]})",
            f"{amb.question or 'The readings differ.'} A game of {n} players{f', found by {found_by},' if found_by else ''} "
            f"shows it: {div}.{more}",
            amb.span, _ambiguity_quotes(amb), witness=self.witness(list(plays), n, div), details=details,
        )
        self.findings.append(finding)
        return finding

    def seen_witness(self, alt: dict[str, str], n: int, labels: tuple[str, str], names: tuple[str, str]) -> tuple[Play, Play, str] | None:
        """A few random games played alike under both readings, watched for a point where a
        player sees other components' faces under one reading than under the other (what goes
        face up, and when). Replayed in both engines, whose view of the table must match the
        interpreter's there."""
        if self.o.random_games <= 0:
            return None
        program_a, program_b = self.program(self.base_readings), self.program(alt)
        for g in range(SEEN_GAMES):
            actions = random_game(program_a, n, seed=game_seed(0, g), params=self.o.params)
            diff = first_seen_difference(program_a, program_b, n, actions, names, self.o.params)
            if diff is None:
                continue
            for readings, view in ((self.base_readings, diff.observations[0]), (alt, diff.observations[1])):
                module = self.engine(readings)
                if module is not None and observe_engine(module, n, actions[:diff.step], diff.player, self.o.params) != view:
                    raise ReplayMismatch(f"the generated engine shows {player_name(diff.player)} another table than the interpreter "
                                         f"after decision {diff.step}")
            pa, _ = self.play_actions(self.base_readings, actions, n, labels[0])
            pb, _ = self.play_actions(alt, continue_game(program_b, n, actions, self.o.params), n, labels[1])
            return pa, pb, diff.text
        return None

    def agree_where_used(self, amb: ir.Ambiguity, alt: dict[str, str], n: int) -> bool:
        """A proof local to the rules that change: when two readings differ only in definitions,
        evaluate the other reading's version beside this one's wherever a game of n players uses
        them, in the same state. If the two can never disagree, both readings play every game
        alike. Where the changed definitions themselves disagree, their callers may not (two
        versions of a tie-break can pick different cards yet the same player), so the comparison
        moves out one caller at a time. Small problems next to comparing two whole games; readings
        that change a procedure are left to the whole-game search."""
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(alt[amb.name])
        if ra is None or rb is None or ra.procs or rb.procs:
            return False
        other = self.program(alt)
        program = self.program(self.base_readings)
        changed = sorted({*ra.defs, *rb.defs})
        shadow = {name: other.defs[name] for name in changed}
        callers: dict[str, set[str]] = {}
        for d in program.defs.values():
            for c in callees(d):
                callers.setdefault(c, set()).add(d.name)
        compare = frozenset(changed)
        while True:
            t = SymExec(program, n, params=self.o.params, loop_bound=self.o.loop_bound, shadow=shadow, compare=compare,
                        watch_invariants=False).run()
            goal = tm.or_all(o.cond for o in t.obligations if o.kind == "diverge")
            status = self.session(t.constraints).check(goal).status
            if status == "unsat":
                return True
            if status == "unknown":  # a wider comparison is a larger problem still
                return False
            wider = compare | {c for name in compare for c in callers.get(name, ())}
            if wider == compare:
                return False
            compare = wider

    def agree_at_end(self, amb: ir.Ambiguity, alt: dict[str, str], n: int, any_table: bool = False) -> bool:
        """A proof local to the end of the game, for readings that change only definitions the
        game uses nowhere but in its winners: both versions of the winners are evaluated over an
        abstract state of each end (each component in one place, the counts known there),
        constrained by the ruleset's invariants. One question per pair of winners, and one per
        version naming nobody or failing alone (see SymExec.end_comparison): each far smaller
        than the whole comparison. An invariant a proof used must itself be proven for n players
        (by the invariant check's own question); where one is not, nothing is claimed.
        ``any_table``: with the assumed and unspecified data free, the invariants proven for every
        table too."""
        if not self.end_proof_candidate(amb, alt[amb.name]):
            return False
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(alt[amb.name])
        assert ra is not None and rb is not None
        program = self.program(self.base_readings)
        changed = {*ra.defs, *rb.defs}
        other = self.program(alt)
        t = SymExec(program, n, params=self.o.params, attrs=self.free_data() if any_table else None, loop_bound=self.o.loop_bound,
                    shadow={name: other.defs[name] for name in changed}, watch_invariants=False, compare_ends=True).run()
        if sum(o.kind == "diverge" for check in t.abstract for o in check.obligations) > END_QUESTIONS:
            return False  # many ends reached many ways: the whole-game search is the smaller problem
        needed: set[str] = set()
        for check in t.abstract:
            # an invariant holds at the end of a game that ends: where this reading's winners
            # fail, the game stops there and the invariant says nothing
            facts = {name: tm.or_(check.failed, ok) for name, ok in check.facts.items()}
            goals = [o.cond for o in check.obligations if o.kind == "diverge"]
            batch = self.session(check.lemmas).batch(goals, facts)
            for i in range(len(goals)):
                r, used = batch.ask_using(i)
                if r.status != "unsat":
                    return False
                needed.update(used)
        if not all(self.invariant_proven(name, n, any_table) for name in sorted(needed)):
            return False
        self.end_proofs[n] = sorted(needed)
        return True

    def end_proof_candidate(self, amb: ir.Ambiguity, other: str) -> bool:
        """The reading changes only definitions that the game uses nowhere but in its winners
        (see agree_at_end)."""
        ra, rb = amb.reading(self.base_readings[amb.name]), amb.reading(other)
        if ra is None or rb is None or ra.procs or rb.procs:
            return False
        return not ({*ra.defs, *rb.defs} & _used_in_play(self.program(self.base_readings)))

    def end_any_table(self, amb: ir.Ambiguity, alt: dict[str, str], n: int) -> bool:
        """agree_at_end with the assumed and unspecified data free: asked once, for the
        ambiguity check and its sensitivity."""
        return self.proof_any_table(("end", amb.name, alt[amb.name], n), lambda: self.agree_at_end(amb, alt, n, any_table=True))

    def proof_any_table(self, key: tuple[str, str, str, int], prove: Callable[[], bool]) -> bool:
        """A local proof with the assumed and unspecified data free, asked once per check (the
        ambiguity check and its sensitivity both use it); none where no data is assumed."""
        if key not in self.any_table:
            self.any_table[key] = bool(self.symbolic) and prove()
        return self.any_table[key]

    def same_after_moves(self, names: list[str], alt: dict[str, str], n: int, attrs: AttrSource | None = None) -> bool:
        """A proof local to the procedures that change, when they differ only in where they leave
        components: one game is played with both versions of them (see SymExec's ``displaced``),
        and from their first call on, every value a rule computes is computed in both readings'
        states. If no value can differ, no move and no result can: the readings play every game
        alike, whatever the components left elsewhere."""
        other = self.program(alt)
        try:
            t = SymExec(self.program(self.base_readings), n, params=self.o.params, attrs=attrs, loop_bound=self.o.loop_bound,
                        displaced={name: other.procs[name] for name in names}, watch_invariants=False).run()
        except Unsupported:
            return False
        # one question per rule that may see the difference
        goals: dict[tuple[int, int], list[tm.Term]] = {}
        for o in t.obligations:
            if o.kind == "diverge":
                goals.setdefault((o.span.line, o.span.col), []).append(o.cond)
        return self.session(t.constraints).check_each([tm.or_all(goals[k]) for k in sorted(goals)]).status == "unsat"

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
            status, message = res
            self.findings.append(Finding(
                "sensitivity", "note", status, amb.name, f"{amb.name}: {SENSITIVITY_TITLES[status]} the assumed data",
                message + f" (assumed or unspecified: {', '.join(names)}).", amb.span,
                details={"ambiguity": amb.name, "readings": [base, other], "data": names},
            ))

    def alike_any_table(self, moved: list[str], alt: dict[str, str], amb: str, n: int) -> bool:
        """same_after_moves with the assumed and unspecified data free: asked once, for the
        ambiguity check and its sensitivity."""
        return self.proof_any_table(("moves", amb, alt[amb], n), lambda: self.same_after_moves(moved, alt, n, self.free_data()))

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

    def _attr_traces(self, n: int, alt: dict[str, str]) -> tuple[Trace, Trace]:
        return self.free_base(n), self.trace(n, alt, attrs=self.free_data())

    def sensitivity_of_witness(self, n: int, alt: dict[str, str], f: Finding) -> tuple[str, str] | None:
        try:
            ta, tb = self._attr_traces(n, alt)
        except Unsupported:
            return None
        assert f.witness is not None
        differs = outcome_differs(ta, tb) if f.details.get("differs_in") == "outcome" else moves_differ(ta, tb)
        # the same choices wherever the same decision arises, but any table: can the difference vanish?
        model, taken = self.models[id(f)]
        fixed = _fix_decisions(ta, model, taken) + _fix_decisions(tb, model, taken)
        r = self.session(ta.constraints + tb.constraints + fixed).check(tm.not_(differs))
        if r.status == "unsat":
            return "proven", "The witness game shows the difference with every possible table of the assumed data"
        if r.status == "sat":
            return "witness", "The witness game shows the difference only with some tables: with other values of the assumed data the same game does not"
        return "unknown", "Whether the witness depends on the assumed data was not decided in time"

    def sensitivity_by_replay(self, alt: dict[str, str], f: Finding) -> tuple[str, str] | None:
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
        for table in tables:
            params = {**self.o.params, **table}
            ra = replay_interpreter(program_a, n, pa.actions, params)
            rb = replay_interpreter(program_b, n, pb.actions, params)
            if not (ra.legal and rb.legal) or ra.error or rb.error or None in (ra.winners, rb.winners):
                continue  # with these values the game goes otherwise: it says nothing
            tried += 1
            if ra.winners == rb.winners:
                return "witness", (f"The witness game shows the difference only with some tables: with {_describe_table(self.rules, table)} "
                                   f"the same game gives the same winners under both readings")
        others = "" if tried == len(tables) else "; with the others the game goes otherwise, so they say nothing"
        return "unknown", (f"The witness game shows the difference with every table of {names} with which it can be replayed "
                           f"({tried} of the {len(tables)} tried: each column at the ends of its domain, then random tables{others}); "
                           "that is no proof for every table")

    def sensitivity_of_proof(self, amb: ir.Ambiguity, alt: dict[str, str]) -> tuple[str, str] | None:
        moved = _moved_only(amb, self.base_readings[amb.name], alt[amb.name])
        for n in self.players:
            if (self.alike_any_table(moved, alt, amb.name, n) if moved else self.end_any_table(amb, alt, n)):
                continue
            try:
                ta, tb = self._attr_traces(n, alt)
            except Unsupported:
                return None
            both = ta.constraints + tb.constraints
            r = self.session(both).check(tm.or_(outcome_differs(ta, tb), moves_differ(ta, tb)))
            if r.status == "sat":
                return "witness", f"Harmless only with the assumed values: with other values of the assumed data a game of {n} players tells the readings apart"
            if r.status == "unknown":
                return "unknown", "Whether the proof needs the assumed values was not decided in time"
        return "proven", "Harmless whatever the values of the assumed data"

    def check_translation(self) -> None:
        from .translation import check_translations

        self.findings.extend(check_translations(self.rules))


_KIND_ORDER = (
    "ambiguity", "incompleteness", "conflict", "non-termination", "exhaustion", "dead-rule", "sensitivity",
    "translation", "edition-difference", "invariant",
)


def players_text(n_list: list[int]) -> str:
    if not n_list:
        return "no player count"
    if len(n_list) == 1:
        return f"{n_list[0]} players"
    if n_list == list(range(n_list[0], n_list[-1] + 1)):
        return f"{n_list[0]} to {n_list[-1]} players"
    return ", ".join(map(str, n_list)) + " players"


def _describe_table(rules: ir.Ruleset, table: dict[str, Any]) -> str:
    parts = []
    for column, value in table.items():
        if isinstance(value, dict):
            kind = column.split(".")[0]
            names = {c.cid: c.display for c in rules.components_of(kind)}
            parts.append(f"{column}: " + ", ".join(f"{names[cid]} = {v}" for cid, v in sorted(value.items())))
        else:
            parts.append(f"every {column} = {value}")
    return "; ".join(parts)


#: Subjects of obligations that name a construct of the language, not a rule of the game.
GENERIC_SUBJECTS = frozenset({"the", "choice", "match", "min", "max", "player"})


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


def _obligation_what(kind: str, subject: str, part: str = "", where: str | None = None) -> str:
    if subject in GENERIC_SUBJECTS and where is not None:
        subject = f"{subject}' in '{where}"
    if kind == "conflict":
        # a definition can have several pairs of cases: the title names the pair
        return f"'{subject}': {part or 'two cases'} disagree"
    if kind in ("exhaustion", "range"):
        return f"'{subject}' runs out"
    return f"'{subject}': no rule decides"


def _quotes(src: ir.Source | None) -> list[Quote]:
    if src is None:
        return []
    return [Quote(q.text, q.lang) for q in src.quotes]


def _rule_quotes(program: ir.Program) -> dict[str, list[Quote]]:
    """The rulebook quotes of each rule a dead-rule finding can name, by its reach label."""
    out: dict[str, list[Quote]] = {}
    for s in statements(program):
        if isinstance(s, ir.If):
            out[ir.label_if(s.sid, True)] = _quotes(s.source)
            out[ir.label_if(s.sid, False)] = _quotes(s.else_source or s.source)
        elif isinstance(s, ir.End):
            out[ir.label_end(s.sid)] = _quotes(s.source)
    for proc in program.procs.values():
        out[ir.label_proc(proc.name, proc.reading)] = _quotes(proc.source)
    for d in program.defs.values():
        for c in d.cases or []:
            out[ir.label_case(d.name, c.name, d.reading)] = _quotes(c.source or d.source)
    return out


def _by_seat(values: list[int]) -> str:
    return ", ".join(f"{player_name(q)} {v}" for q, v in enumerate(values))


def _used_in_play(program: ir.Program) -> set[str]:
    """The definitions a game's moves can depend on: every one a statement other than an end
    of the game uses, directly or through other definitions. (A say only logs.)"""
    roots: set[str] = set()
    for s in statements(program):
        if isinstance(s, (ir.End, ir.Say)):
            continue
        for f in vars(s).values():
            exprs = [f] if isinstance(f, ir.Expr) else [x for x in f if isinstance(x, ir.Expr)] if isinstance(f, list) else []
            for e in exprs:
                roots.update(x.name for x in walk_exprs(e) if isinstance(x, ir.CallDef))
    used, todo = set(roots), list(roots)
    while todo:
        for c in callees(program.defs[todo.pop()]):
            if c in program.defs and c not in used:
                used.add(c)
                todo.append(c)
    return used


def _moved_only(amb: ir.Ambiguity, base: str, other: str) -> list[str]:
    """The procedures two readings change, when they change nothing else (see same_after_moves)."""
    ra, rb = amb.reading(base), amb.reading(other)
    return sorted({*ra.procs, *rb.procs}) if ra and rb and not ra.defs and not rb.defs else []


def _ambiguity_quotes(amb: ir.Ambiguity) -> list[Quote]:
    return [q for src in amb.sources for q in _quotes(src)]


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


#: Nodes (chance draws included) after which a random game that has not ended is dropped.
RANDOM_MAX_STEPS = 5_000
ELSEWHERE_GAMES = 8  # random games per player count and parameter value for a rule no checked game reaches
SEEN_GAMES = 3  # random games watched for a difference in what players see: it shows in most games or none

#: A loop proven to end by the zone it drains is unrolled to its last possible pass (so traces are
#: not cut inside it) when that zone holds at most this many components.
DRAIN_UNROLL = 12


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


def verify(rules: ir.Ruleset, options: Options | None = None, progress: Callable[[str], None] | None = None) -> Outcome:
    tm.reset()
    # the interned terms live to the end of the run: the cyclic collector's passes over millions
    # of them cost a tenth of a Cinderella run (docs/verify.md, Speed) and free nothing, so it is
    # off for the run (and in the workers, which inherit it); what is left is collected after
    collecting = gc.isenabled()
    gc.disable()
    try:
        return Verifier(rules, options or Options(), progress).run()
    finally:
        if collecting:
            gc.enable()
