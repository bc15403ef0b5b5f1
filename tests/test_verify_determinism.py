"""verify's answers depend on the input and the options only: the same bytes with one job or two,
and with the machine busy (two processes spinning beside it). Every solver question is bounded by
z3's resource count, not by the clock; the wall clock is a safety net, and when it stops a question
the run says so (Outcome.wall_stops, a warning on stderr, wall_clock_stops in the JSON)."""

from __future__ import annotations

import io
import multiprocessing
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from conftest import ROOT

from rulecheck.cli import main
from rulecheck.verifier import z3backend
from rulecheck.verifier.output import to_json, wall_stop_warning

RULESETS = [ROOT / "tests" / "verify" / "bad" / name for name in ("ambiguity_differs.rules", "given_back.rules", "missing_tiebreak.rules")]
# open loops: their inductions are tasks of their own, whose facts the invariants and obligations use
RULESETS += [ROOT / "tests" / "verify" / "termination" / "passing_rounds.rules", ROOT / "tests" / "verify" / "induction" / "tally.rules"]


def _spin(until: float) -> None:
    while time.time() < until:
        pass


@contextmanager
def busy(processes: int = 2) -> Iterator[None]:
    """The machine kept busy: processes that spin for as long as the block runs."""
    ctx = multiprocessing.get_context("spawn")
    spinners = [ctx.Process(target=_spin, args=(time.time() + 600,), daemon=True) for _ in range(processes)]
    for p in spinners:
        p.start()
    try:
        yield
    finally:
        for p in spinners:
            p.terminate()
            p.join()


def verify_json(path: str, jobs: int) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", path, "--format", "json", "--jobs", str(jobs), "--fail-on", "never"], out, err)
    assert code == 0, err.getvalue()
    assert "safety net" not in err.getvalue()  # nothing here comes near its limit
    return out.getvalue()


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_the_same_bytes_with_one_job_two_jobs_and_a_busy_machine(path: object) -> None:
    alone = verify_json(str(path), 1)
    assert verify_json(str(path), 2) == alone
    with busy():
        assert verify_json(str(path), 2) == alone


def test_a_stop_by_the_wall_clock_is_said() -> None:
    class Timed:
        def reason_unknown(self) -> str:
            return "timeout"

    class Counted:
        def reason_unknown(self) -> str:
            return "max. resource limit exceeded"

    session = z3backend.Session([], 1.0)
    before = len(z3backend.WALL_STOPS)
    assert session._result(Counted(), "unknown").status == "unknown" and len(z3backend.WALL_STOPS) == before
    assert session._result(Timed(), "unknown").status == "unknown" and len(z3backend.WALL_STOPS) == before + 1
    from rulecheck.dsl.loader import load_path
    from rulecheck.verifier.verify import Outcome

    rules = load_path(RULESETS[0]).rules
    assert rules is not None
    doc = to_json(Outcome(rules, [], [2], {}, wall_stops=3))
    assert '"wall_clock_stops": 3' in doc and "wall_clock_stops" not in to_json(Outcome(rules, [], [2], {}))
    assert "3 solver questions" in wall_stop_warning(3) and "may differ on another run" in wall_stop_warning(3)
