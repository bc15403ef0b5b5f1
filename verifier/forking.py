"""Work in forked child processes: a run's tasks (verify.py), and the independent pieces of one
task (``each_forked``), each started from the same state of its parent so that its answer does
not depend on what ran before it, on timing or on the number of jobs.
"""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.connection
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .z3backend import WALL_STOPS

_T = TypeVar("_T")


def forked(work: Callable[[], Any]) -> tuple[Any, int]:
    """Runs ``work`` in a forked child process: the pipe its result (or the error it raised) will
    come through, and the child's pid (see ``result``). The child ends with os._exit, so its z3
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


def result(conn: Any, pid: int, what: str) -> Any:
    """What a forked child sent (``forked``), once it has ended; its error raised here. ``what``
    names the work in the error of a child that died."""
    try:
        status, out = conn.recv()
    except EOFError:  # the child died (killed, or a crash in the solver)
        status, out = "error", RuntimeError(f"the worker of {what} ended without a result")
    finally:
        conn.close()
        os.waitpid(pid, 0)
    if status == "error":
        raise out
    return out


def stop_children(running: dict[Any, Any]) -> None:
    """Kills the children whose pipes are the keys (values: (pid, …)) and closes the pipes."""
    for conn, (pid, *_) in running.items():
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        conn.close()


def each_forked(works: Sequence[Callable[[], _T]], jobs: int, last: Callable[[_T], bool], what: str) -> list[_T]:
    """The values of ``works`` in their order, each computed in a child forked from this same
    state (up to ``jobs`` at once), up to and including the first for which ``last`` is true: the
    rest are not started, or stopped. The same values whatever the jobs and the timing, since
    no piece sees another's work; where there is no fork, one after the other here. The
    wall-clock safety net's stops in a child are counted here too (z3backend.WALL_STOPS)."""
    out: list[_T] = []
    if not hasattr(os, "fork"):
        for work in works:
            out.append(work())
            if last(out[-1]):
                break
        return out

    def counted(work: Callable[[], _T]) -> tuple[_T, list[str]]:
        before = len(WALL_STOPS)
        value = work()
        return value, WALL_STOPS[before:]

    done: dict[int, _T] = {}
    running: dict[Any, tuple[int, int]] = {}  # pipe -> (pid, index)
    started = 0
    try:
        while len(out) < len(works):
            while started < len(works) and len(running) < max(1, jobs):
                conn, pid = forked(functools.partial(counted, works[started]))
                running[conn] = (pid, started)
                started += 1
            for conn in multiprocessing.connection.wait(list(running)):
                pid, i = running.pop(conn)
                done[i], stops = result(conn, pid, f"{what} ({i + 1} of {len(works)})")
                WALL_STOPS.extend(stops)
            while len(out) in done:
                out.append(done.pop(len(out)))
                if last(out[-1]):
                    return out
    finally:
        stop_children(running)
    return out
