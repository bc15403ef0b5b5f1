"""simulate and verify on a Dask cluster: a real scheduler and two workers started as processes on
loopback, and a local cluster (--workers), give byte for byte the JSON of the local run (slow: a
few seconds to start the cluster)."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from rulecheck.cli import main

pytest.importorskip("distributed", reason="the cluster extra is not installed (pip install 'rulecheck[cluster]')")

pytestmark = pytest.mark.slow

DASK = Path(sys.executable).parent / "dask"
CINDERELLA = str(ROOT / "rulesets" / "cinderella.rules")
SMALL = str(ROOT / "tests" / "verify" / "bad" / "ambiguity_differs.rules")
#: a board game with invariants whose proofs (one task per player count) other tasks wait for
BOARD = str(ROOT / "tests" / "boards" / "stepping_stones.rules")


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # the worker command's nannies and their workers with it
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler on 127.0.0.1 with two single-threaded workers."""
    if not DASK.exists():
        pytest.skip("the dask command is not installed next to this Python")
    folder = tmp_path_factory.mktemp("dask")
    info = folder / "scheduler.json"
    log = (folder / "dask.log").open("wb")
    started: list[subprocess.Popen[bytes]] = []
    try:
        started.append(subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                         "--dashboard-address", "127.0.0.1:0",
                                         "--scheduler-file", str(info)], cwd=folder, stdout=log, stderr=log, start_new_session=True))
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text(encoding="utf-8").strip():
            assert time.monotonic() < deadline, "the scheduler did not start: " + (folder / "dask.log").read_text()
            assert started[0].poll() is None, "the scheduler stopped: " + (folder / "dask.log").read_text()
            time.sleep(0.2)
        address = json.loads(info.read_text(encoding="utf-8"))["address"]
        assert address.startswith("tcp://127.0.0.1:")
        started.append(subprocess.Popen([str(DASK), "worker", address, "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1",
                                         "--no-dashboard", "--local-directory", str(folder)],
                                        cwd=folder, stdout=log, stderr=log, start_new_session=True))
        from distributed import Client

        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for proc in reversed(started):
            _stop(proc)
        log.close()


def local(path: str, games: int, jobs: int) -> str:
    code, out, _ = cli(["simulate", path, "--games", str(games), "--seed", "7", "--jobs", str(jobs), "--format", "json"])
    assert code == 0
    return out


@pytest.mark.parametrize("path, games", [(CINDERELLA, 300), (SMALL, 101)])
def test_on_a_scheduler_with_two_workers_the_json_is_the_local_one(scheduler: str, path: str, games: int) -> None:
    code, out, err = cli(["simulate", path, "--games", str(games), "--seed", "7", "--scheduler", scheduler, "--format", "json"])
    assert code == 0, err
    # one local run to compare with (test_simulate checks that --jobs changes no output)
    assert out == local(path, games, 2)
    doc = json.loads(out)
    assert doc["games"] == games
    total = games * len(doc["players"])  # games at each player count the game allows
    assert re.fullmatch(rf"rulecheck: simulate \S+: {total}/{total} games in \d+ s", err.splitlines()[-1]), err


def test_both_workers_play(scheduler: str) -> None:
    """The chunks are spread: each of the two workers plays some (so the test above compares a
    result made by two workers, not by one): each built the plan's engines."""
    from distributed import Client

    from rulecheck import cluster
    from rulecheck.dsl.loader import load_path
    from rulecheck.reports import simulate as sim

    rules = load_path(CINDERELLA).rules
    assert rules is not None
    with Client(scheduler, timeout=30, set_as_default=False) as client:
        sim.simulate(rules, games=400, seed=1, players=4, jobs=1, runner=cluster.runner(client))
        built = client.run(lambda: sorted({key for key, _ in cluster._BUILT}))
    assert len(built) == 2 and all(len(keys) == 1 for keys in built.values()), built


def test_a_local_cluster_gives_the_local_result() -> None:
    code, out, err = cli(["simulate", SMALL, "--games", "60", "--seed", "7", "--workers", "2", "--format", "json"])
    assert code == 0, err
    assert out == local(SMALL, 60, 1)


def verify_local(path: str, jobs: int) -> str:
    code, out, err = cli(["verify", path, "--format", "json", "--jobs", str(jobs), "--timeout", "5"])
    assert code in (0, 1), err
    return out


@pytest.mark.parametrize("path", [SMALL, BOARD])
def test_verify_on_a_scheduler_with_two_workers_gives_the_local_json(scheduler: str, path: str) -> None:
    """Each task runs on a worker, which repeats the parent's work up to the task's starting point:
    the findings, witnesses and proofs are byte for byte those of a local run (a worker runs
    several tasks one after another, so state left by one task must not change the next). A local
    run's bytes do not depend on --jobs (tests/test_verify_determinism.py)."""
    code, out, err = cli(["verify", path, "--format", "json", "--scheduler", scheduler, "--timeout", "5"])
    assert code in (0, 1), err
    assert json.loads(out)["findings"]
    assert out == verify_local(path, 2)


def test_verify_on_a_local_cluster_gives_the_local_json() -> None:
    code, out, err = cli(["verify", SMALL, "--format", "json", "--workers", "2", "--timeout", "5"])
    assert code in (0, 1), err
    assert out == verify_local(SMALL, 1)


def test_a_verify_task_that_fails_on_a_worker_raises_its_error_where_the_run_waits(scheduler: str) -> None:
    """A task's error on a worker is raised where the run waits for it, as a forked worker's is
    (verify() then ends with it)."""
    from rulecheck import cluster
    from rulecheck.verifier.context import Options

    with cluster.connect(scheduler) as client:
        remote = cluster.VerifyRemote(client, "gone.rules", "not a ruleset", Options(jobs=1))
        remote.submit(("obligations",), {}, False)
        with pytest.raises(ValueError, match="does not load where the task runs"):
            remote.next_done()
        remote.cancel()


@pytest.mark.parametrize("command", ["simulate", "verify"])
@pytest.mark.parametrize("args, says", [
    (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "--scheduler and --workers exclude each other"),
    (["--workers", "2", "--jobs", "2"], "--jobs counts local worker processes"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--scheduler", "localhost"], "takes a Dask scheduler address"),
])
def test_cluster_options_are_checked(command: str, args: list[str], says: str) -> None:
    code, out, err = cli([command, SMALL, *(["--games", "10"] if command == "simulate" else []), *args])
    assert (code, out) == (2, "")
    assert says in err and "Traceback" not in err
