"""Simulation and verification on a Dask distributed cluster: `rulecheck simulate` and `rulecheck
verify` with `--scheduler tcp://HOST:PORT` or `--workers N` (a local cluster of N worker
processes). Dask is an optional extra: `pip install 'rulecheck[cluster]'` (docs/simulate.md and
docs/verify.md, "On a cluster").

simulate: the games are cut into the same chunks as on one machine and each chunk's tally is an
integer count keyed by the games' seeds, so the result is the same whatever the number of workers,
the order chunks end in, or which worker plays which. The plan (the engines' source text) goes to
every worker once; a worker builds the engines once per thread and keeps them for the plan's chunks.

verify: each task (a reading of an ambiguity, a check, the invariants' proofs of a player count)
is one job on the cluster, given the ruleset's text and the options; the worker repeats what the
local parent does before it would fork that task's worker (verifier/verify.py, run_one), so the
findings are those of a local run, whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rulecheck.reports import simulate as sim

if TYPE_CHECKING:
    from distributed import Client

    from rulecheck.verifier.context import Options

EXTRA = "pip install 'rulecheck[cluster]'"
CONNECT_TIMEOUT = 30  # seconds to reach a scheduler


class ClusterError(Exception):
    """A cluster that cannot be used, with a hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, or of a local cluster of ``workers`` processes
    (one thread each: the games are pure Python) that lives as long as the ``with`` block."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("a cluster needs Dask distributed, which is not installed", EXTRA) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}",
                               "start one (dask scheduler, dask worker ADDRESS) or check the address, e.g. tcp://127.0.0.1:8786") from None
        with client:
            if not client.scheduler_info().get("workers"):
                # a cluster without workers would wait for ever: wait a little for one to join
                try:
                    client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
                except (TimeoutError, OSError):
                    raise ClusterError(f"the Dask scheduler at {scheduler} has no workers",
                                       f"start one: dask worker {scheduler} --nthreads 1") from None
            yield client
        return
    assert workers is not None
    # only loopback; no dashboard (it needs bokeh), and the HTTP servers Dask starts anyway (health
    # checks) on free ports, so that a cluster already running here does not matter
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                           worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    with cluster, Client(cluster, set_as_default=False) as client:
        yield client


def runner(client: Client) -> sim.ChunkRunner:
    """Plays a plan's chunks on the client's cluster; yields each chunk's tally as it ends."""

    def run(plan: sim.Plan, parts: list[tuple[int, int, int]]) -> Iterator[tuple[int, sim.Tally]]:
        from distributed import as_completed

        key = plan_key(plan)
        shared = client.scatter(plan, broadcast=True, hash=False)
        futures = [client.submit(play_chunk, shared, key, part, key=f"rulecheck-simulate-{key[:16]}-{part[0]}-{part[1]}", pure=False)
                   for part in parts]
        try:
            with client.as_current():  # as_completed asks for the current client
                for future in as_completed(futures):
                    result: tuple[int, sim.Tally] = future.result()
                    yield result
        finally:
            client.cancel(futures)
            client.cancel([shared])

    return run


class VerifyRemote:
    """verify's tasks as jobs of the client's cluster (verifier.verify.Remote): the ruleset's text
    goes with each (a worker loads it as the command line did)."""

    def __init__(self, client: Client, name: str, text: str, options: Options) -> None:
        self.client = client
        self.args = (name, text, options)
        self.futures: set[Any] = set()
        self.ended: Any = None  # distributed.as_completed over the futures, once there is one

    def submit(self, task: tuple[str, ...], lemmas: dict[tuple[str, int, bool], bool], first: bool) -> None:
        from distributed import as_completed

        from rulecheck.verifier.verify import run_task_from_source

        future = self.client.submit(run_task_from_source, *self.args, task, lemmas, first, pure=False)
        self.futures.add(future)
        if self.ended is None:
            with self.client.as_current():  # as_completed asks for the current client
                self.ended = as_completed([future])
        else:
            self.ended.add(future)

    def next_done(self) -> Any:
        with self.client.as_current():
            future = next(self.ended)
        self.futures.discard(future)
        return future.result()  # the task's error, if it raised one, is raised here

    def cancel(self) -> None:
        if self.futures:
            self.client.cancel(list(self.futures))
        self.futures.clear()


def plan_key(plan: sim.Plan) -> str:
    h = hashlib.sha256()
    for part in (*plan.sources, repr(sorted(plan.params.items())), str(plan.players), str(plan.seed), str(plan.max_steps)):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


# ---- on a worker --------------------------------------------------------------------------------------

_LOCK = threading.Lock()
_BUILT: dict[tuple[str, int], sim.Engines] = {}  # (plan, thread) -> engines


def play_chunk(plan: sim.Plan, key: str, bounds: tuple[int, int, int]) -> tuple[int, sim.Tally]:
    """One chunk on a worker, with engines built once per plan and thread (a worker may run
    several threads; an engine's game object is not shared between them)."""
    slot = (key, threading.get_ident())
    with _LOCK:
        engines = _BUILT.get(slot)
        if engines is None:
            for old in [k for k in _BUILT if k[0] != key]:
                del _BUILT[old]  # a new plan: the engines of the last one are not needed again
            # built under the lock: load_module registers each module under a fixed name meanwhile
            engines = _BUILT[slot] = sim.build_engines(plan)
    return sim.play_chunk(plan, engines, bounds)
