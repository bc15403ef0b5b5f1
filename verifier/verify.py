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
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from rulecheck.dsl import ir
from rulecheck.framestack import on_reserved_stack
from rulecheck.reports import wording

from . import terms as tm
from .checks.dead_rule import DeadRuleCheck
from .checks.deduction import DeductionCheck
from .checks.obligations import OTHER_READING_GAMES, ObligationCheck, merge_other_readings
from .checks.sensitivity import SensitivityCheck
from .checks.termination import TerminationCheck
from .context import Options, ReplayMismatch
from .findings import KINDS, Finding
from .induction import has_loop_to_cut, induction_lemmas
from .symvalues import Trace, Unsupported
from .z3backend import WALL_STOPS, Translator

#: The key of a task's timing that counts the questions the wall-clock safety net stopped.
WALL_STOPS_KEY = "wall-clock stops"

#: random games per reading at the smallest player count that order the readings' tasks (those
#: playing alike first); a heuristic of the schedule, never of an answer
SCHEDULE_GAMES = 64

__all__ = ["Options", "Outcome", "ReplayMismatch", "Verifier", "verify"]


#: The checks that are not per ambiguity, and the kinds of finding each gives.
TASK_KINDS = {
    "obligations": frozenset({"incompleteness", "conflict", "exhaustion"}),
    "invariants": frozenset({"invariant"}),
    "termination": frozenset({"non-termination"}),
    "dead rules": frozenset({"dead-rule"}),
    "other readings": frozenset({"incompleteness", "conflict", "exhaustion"}),
    "deductions": frozenset({"deduction"}),
}


@dataclass
class Outcome:
    rules: ir.Ruleset
    findings: list[Finding]
    players: list[int]
    readings: dict[str, str]
    checks: dict[str, float] = field(default_factory=dict)  # seconds per check (benchmarks only)
    params: dict[str, str] = field(default_factory=dict)  # parameters as given, for the output
    #: questions the wall-clock safety net stopped (not the resource limit): their "unknown" may
    #: differ on another run, and the output says so
    wall_stops: int = 0


class Verifier(SensitivityCheck, ObligationCheck, TerminationCheck, DeadRuleCheck, DeductionCheck):
    """Every check of one run, and the scheduling of their tasks over worker processes."""

    #: Where the tasks run instead of forked workers (a Dask cluster: rulecheck/cluster.py); None: here
    remote: Remote | None = None

    def run(self) -> Outcome:
        wanted = self.o.checks if self.o.checks is not None else frozenset(KINDS)
        tasks, needs, started, build = self.plan(wanted)
        results: dict[tuple[str, ...], list[Finding]] = {}
        timing: dict[str, float] = {}
        run = self.run_tasks(started, needs, build) if self.remote is None else self.run_remote(started, needs)
        for i, (task, found, spent) in enumerate(run, start=1):
            results[task] = found
            for k, secs in spent.items():
                timing[k] = timing.get(k, 0.0) + secs
            self.progress(f"{i}/{len(started)} {' '.join(task)}")
        self.wall_stops = int(timing.pop(WALL_STOPS_KEY, 0.0))
        self.timing = timing
        # task order, not completion order: the output must not depend on timing
        self.findings = [f for task in tasks for f in results[task] if f.kind in wanted]
        self.findings = merge_other_readings(self.findings, len(self.other_readings()), OTHER_READING_GAMES)
        if "translation" in wanted:
            self.timed("translation", self.check_translation)
        wording.apply(self.findings)
        order = {k: i for i, k in enumerate(_KIND_ORDER)}
        sev = {"error": 0, "warning": 1, "note": 2}
        self.findings.sort(key=lambda f: (order.get(f.kind, 99), sev[f.severity], f.span.line, f.span.col, f.subject, f.title))
        return Outcome(self.rules, self.findings, self.players, dict(self.base_readings), dict(self.timing),
                       dict(sorted(self.o.param_labels.items())), self.wall_stops)

    def plan(self, wanted: frozenset[str]) -> tuple[list[Task], dict[Task, list[Task]], list[Task], Callable[[int], list[Trace]]]:
        """The run's tasks (in the order of the output), the lemmas each waits for, the order
        they are started in, and how the shared traces of a player count are built."""
        tasks: list[Task] = []
        if wanted & {"ambiguity", "sensitivity"}:
            for amb in self.rules.ambiguities.values():
                if amb.name in self.o.readings:
                    continue
                tasks.extend(("reading", amb.name, r.name) for r in amb.readings if r.name != self.base_readings[amb.name])
        tasks += [(name,) for name, kinds in TASK_KINDS.items() if wanted & kinds and (name != "deductions" or self.rules.targets)]
        needs = self.lemma_needs(tasks)
        lemmas = sorted({dep for deps in needs.values() for dep in deps}, key=lambda t: -int(t[1]))
        # the proofs by induction over the open loops, which the invariants and the obligations
        # both start from: found once per player count, the largest first (the longest)
        users = [t for t in (("invariants",), ("obligations",)) if t in tasks]
        inductions: list[Task] = []
        if users and has_loop_to_cut(self.program(self.base_readings)):
            inductions = [("induction", str(n)) for n in sorted(self.players, reverse=True)]
            for t in users:
                needs[t] = needs.get(t, []) + inductions

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

        # the lemmas others wait for first, then the checks over every player count (the
        # longest), the readings that wait for the lemmas among them; the other readings fill in,
        # those that a few random games show playing alike first: their proofs at every player
        # count are the longest of them, and a long task started last leaves a core idle at the
        # end (the order changes no output: every task starts from the same state)
        alike = {t for t in tasks if t[0] == "reading"
                 and not self.random_apart({**self.base_readings, t[1]: t[2]}, self.players[0], SCHEDULE_GAMES)}
        started = lemmas + inductions + sorted(tasks, key=lambda t: (t[0] == "reading" and t not in needs, t[0] == "reading", t not in alike))
        return tasks, needs, started, build

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
        lemmas: dict[Task, Lemmas] = {}

        def next_ready() -> tuple[Task, Lemmas] | None:
            return _next_ready(pending, needs, lemmas)

        first = _first(tasks)
        order = self.build_order(first)
        if not hasattr(os, "fork"):
            for n in order:
                build(n)  # the checks run one after the other here: each gets a fresh z3 context
            while (ready := next_ready()) is not None:
                task, found, spent, proved = self.run_task(*ready)
                lemmas[task] = proved
                yield task, found, spent
            return
        running: dict[Any, tuple[int, Task]] = {}  # result pipe -> (worker pid, task)
        try:
            # a fresh worker for each task, forked by this thread (no pool and no helper thread,
            # whose forks could copy a lock another thread held) at a fixed point of the parent's
            # work (after the traces it may use are built, and after all of them for every task
            # but the first), even with one job: which checks ran before in a process must not
            # matter (terms are interned in creation order, and the order of their parts reaches
            # the solver), so the output depends neither on timing nor on --jobs
            for point in self.prepare(order, first, build):
                if point == "first" and first in pending:
                    assert first is not None
                    pending.remove(first)
                    running.update(self.fork_task(first, {}))
            while pending or running:
                while len(running) < jobs and (ready := next_ready()) is not None:
                    running.update(self.fork_task(*ready))
                assert running, "a task waits for one that is not run"
                finished: list[Any] = multiprocessing.connection.wait(list(running))
                for conn in finished:
                    pid, task = running.pop(conn)
                    task, found, spent, proved = _result(conn, pid, task)
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

    def build_order(self, first: Task | None) -> list[int]:
        """The player counts in the order their traces are built: the first task's first."""
        return sorted(self.players, key=lambda n: first is None or str(n) != first[1])

    def prepare(self, order: list[int], first: Task | None, build: Callable[[int], list[Trace]]) -> Iterator[str]:
        """The parent's work before the tasks, in a fixed order: "first" once the traces the
        first task needs are built (it starts there), "all" when everything every other task
        starts from is done. A task run elsewhere (run_one) repeats it to the same point, so that
        it starts from the state a forked worker would have inherited."""
        self.shared_tr = Translator()
        for n in order:
            built = build(n)
            if first is not None and first[1] == str(n):
                yield "first"
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
        yield "all"

    def run_remote(self, tasks: list[Task], needs: dict[Task, list[Task]]) -> Iterator[tuple[Task, list[Finding], dict[str, float]]]:
        """The tasks on self.remote (each started once the lemmas it needs are proven, all that
        are ready at once); yields each as it ends. Each repeats the parent's work up to its
        starting point on its own (run_one): nothing here builds a trace."""
        assert self.remote is not None
        pending = list(tasks)
        lemmas: dict[Task, Lemmas] = {}
        first = _first(tasks)
        running = 0
        try:
            while pending or running:
                while (ready := _next_ready(pending, needs, lemmas)) is not None:
                    self.remote.submit(ready[0], ready[1], ready[0] == first)
                    running += 1
                assert running, "a task waits for one that is not run"
                task, found, spent, proved = self.remote.next_done()
                running -= 1
                lemmas[task] = proved
                yield task, found, spent
        finally:
            self.remote.cancel()

    def run_one(self, task: Task, lemmas: Lemmas, first: bool) -> tuple[Task, list[Finding], dict[str, float], Lemmas]:
        """One task of this run, in a process of its own (a cluster's worker): the parent's work
        repeated up to where the task would have been forked, then the task, as a forked worker
        runs it."""
        wanted = self.o.checks if self.o.checks is not None else frozenset(KINDS)
        _, _, started, build = self.plan(wanted)
        at = _first(started)
        for point in self.prepare(self.build_order(at), at, build):
            if (point == "first") == first:
                return self.run_task(task, lemmas)
        raise AssertionError(f"the task {' '.join(task)} has no point to start at")

    def fork_task(self, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool]) -> dict[Any, tuple[int, tuple[str, ...]]]:
        """Runs one task in a forked worker (which inherits this verifier: nothing is pickled but
        the result); returns the pipe its result (or the error it raised) will come through, with
        the worker's pid and the task."""
        receive, pid = _forked(lambda: self.run_task(task, lemmas))
        return {receive: (pid, task)}

    def run_task(self, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool] | None = None) -> tuple[
            tuple[str, ...], list[Finding], dict[str, float], dict[tuple[str, int, bool], bool]]:
        """One check; also what it proves for others to use (a "lemmas" task's invariants)."""
        # the invariants' proofs translate little of the shared context's games, and z3's search
        # depends on the order its terms were made: in a context of their own the proofs for 4
        # players took 16 s instead of 23 s (measured: docs/verify.md)
        self.findings, self.timing, self.tr = [], {}, None if task[0] == "lemmas" else self.shared_tr
        self.proven_invariants.update(lemmas or {})
        before = len(WALL_STOPS)
        try:
            return self._run_task(task)
        finally:
            # the wall-clock safety net's stops travel with the timing (WALL_STOPS_KEY)
            self.timing[WALL_STOPS_KEY] = float(len(WALL_STOPS) - before)

    def _run_task(self, task: tuple[str, ...]) -> tuple[tuple[str, ...], list[Finding], dict[str, float], dict[tuple[str, int, bool], bool]]:
        if task[0] == "lemmas":
            n = int(task[1])
            any_table = bool(self.symbolic)
            self.timed(f"invariants for {n} players{', any table' if any_table else ''}", lambda: self.prove_invariants(n, any_table))
            return task, [], self.timing, {k: v for k, v in self.proven_invariants.items() if k[1] == n}
        if task[0] == "induction":
            n = int(task[1])
            self.timed(f"induction for {n} players", lambda: self.induction(n))
            return task, [], self.timing, induction_lemmas(self.inductions[n], n)
        if task[0] == "reading":
            amb = self.rules.ambiguities[task[1]]
            name = f"ambiguity {amb.name}={task[2]}"
            self.timed(name, lambda: self.check_reading(amb, self.base_readings[amb.name], task[2]))
            if self.o.sensitivity:
                self.timed(f"sensitivity {amb.name}={task[2]}", self.check_sensitivity)
        else:
            self.timed(task[0], getattr(self, "check_" + task[0].replace(" ", "_")))
        return task, self.findings, self.timing, {}

    def check_translation(self) -> None:
        from .translation import check_translations

        self.findings.extend(check_translations(self.rules))


Task = tuple[str, ...]  # ("reading", ambiguity, reading), ("lemmas", players), ("induction", players) or (check,)
Lemmas = dict[tuple[str, int, bool], bool]  # the invariants' proofs a task starts from


class Remote(Protocol):
    """Somewhere else to run tasks (rulecheck/cluster.py: a Dask cluster)."""

    def submit(self, task: Task, lemmas: Lemmas, first: bool) -> None: ...

    def next_done(self) -> tuple[Task, list[Finding], dict[str, float], Lemmas]:
        """The next task to end, waiting for one; its error raised here."""

    def cancel(self) -> None: ...


def _first(tasks: list[Task]) -> Task | None:
    """The task started while the parent builds the other counts' traces: the first lemmas."""
    return tasks[0] if tasks and tasks[0][0] == "lemmas" else None


def _next_ready(pending: list[Task], needs: dict[Task, list[Task]], lemmas: dict[Task, Lemmas]) -> tuple[Task, Lemmas] | None:
    """The first pending task whose lemmas are proven (taken off the list), with them."""
    for t in pending:
        if all(dep in lemmas for dep in needs.get(t, ())):
            pending.remove(t)
            return t, {k: v for dep in needs.get(t, ()) for k, v in lemmas[dep].items()}
    return None


def _forked(work: Callable[[], Any]) -> tuple[Any, int]:
    """Runs ``work`` in a forked child process: the pipe its result (or the error it raised) will
    come through, and the child's pid (see _result). The child ends with os._exit, so its z3
    contexts are never deleted: it needs no exit handlers (they belong to the parent)."""
    receive, send = multiprocessing.Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:  # the child
        receive.close()
        try:
            try:
                send.send(("ok", work()))
            except BaseException as err:  # every error goes to the parent, raised there
                try:
                    send.send(("error", err))
                except Exception:  # an error that does not pickle: its text
                    send.send(("error", RuntimeError(f"{type(err).__name__}: {err}")))
        finally:
            os._exit(0)
    send.close()
    return receive, pid


def _result(conn: Any, pid: int, task: Task) -> Any:
    """What a forked child sent (_forked), once it has ended; its error raised here."""
    try:
        status, out = conn.recv()
    except EOFError:  # the child died (killed, or a crash in the solver)
        status, out = "error", RuntimeError(f"the worker of the check {' '.join(task)} ended without a result")
    finally:
        conn.close()
        os.waitpid(pid, 0)
    if status == "error":
        raise out
    return out


def run_task_from_source(name: str, text: str, options: Options, task: Task, lemmas: Lemmas, first: bool) -> tuple[
        Task, list[Finding], dict[str, float], Lemmas]:
    """One task of a verify run of the ruleset ``text`` (a cluster's worker runs them one after
    another): in a child forked for it, as a local run's tasks are, where the fork exists. A
    worker's thread that deleted a task's z3 contexts itself once spun in z3's destructor for more
    than twenty minutes (a CI run); the child ends without deleting them."""
    if not hasattr(os, "fork"):
        return _task_from_source(name, text, options, task, lemmas, first)
    conn, pid = _forked(lambda: _task_from_source(name, text, options, task, lemmas, first))
    out: tuple[Task, list[Finding], dict[str, float], Lemmas] = _result(conn, pid, task)
    return out


@on_reserved_stack
def _task_from_source(name: str, text: str, options: Options, task: Task, lemmas: Lemmas, first: bool) -> tuple[
        Task, list[Finding], dict[str, float], Lemmas]:
    """The task in this process, as verify() would start it, from fresh interned terms."""
    from rulecheck.dsl.loader import load_text

    rules = load_text(text, name).rules
    if rules is None:
        raise ValueError(f"{name} does not load where the task runs")
    tm.reset()
    collecting = gc.isenabled()
    gc.disable()
    try:
        return Verifier(rules, options).run_one(task, lemmas, first)
    finally:
        tm.reset()
        if collecting:
            gc.enable()


_KIND_ORDER = (
    "ambiguity", "incompleteness", "conflict", "non-termination", "exhaustion", "dead-rule", "sensitivity",
    "translation", "edition-difference", "invariant", "deduction",
)


@on_reserved_stack
def verify(rules: ir.Ruleset, options: Options | None = None, progress: Callable[[str], None] | None = None,
           remote: Remote | None = None) -> Outcome:
    """Every check of the options on the ruleset; the tasks in forked worker processes, or on
    ``remote`` (the same output either way)."""
    tm.reset()
    # the interned terms live to the end of the run: the cyclic collector's passes over millions
    # of them cost a tenth of a run on a shipped ruleset (docs/verify.md, Speed) and free nothing, so it is
    # off for the run (and in the workers, which inherit it); what is left is collected after
    collecting = gc.isenabled()
    gc.disable()
    try:
        v = Verifier(rules, options or Options(), progress)
        v.remote = remote
        return v.run()
    finally:
        if collecting:
            gc.enable()
