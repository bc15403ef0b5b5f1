"""verifier.forking.each_forked: independent pieces of one task, each in a child forked from the
same state, their values in order up to the first that ends the list."""

from __future__ import annotations

import functools
import os

import pytest

from rulecheck.verifier import forking
from rulecheck.verifier.z3backend import WALL_STOPS

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the pieces run one after the other in-process")

SEEN: list[int] = []


def piece(i: int) -> tuple[int, list[int], int]:
    """The piece's number, what the pieces before it left in this process (nothing: each starts
    from the parent's state), and the process it ran in."""
    before = list(SEEN)
    SEEN.append(i)
    return i, before, os.getpid()


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_each_piece_starts_from_the_parents_state_and_the_values_come_in_order(jobs: int) -> None:
    out = forking.each_forked([functools.partial(piece, i) for i in range(5)], jobs, lambda v: False, "pieces")
    assert [v[0] for v in out] == [0, 1, 2, 3, 4]
    assert all(v[1] == [] for v in out)
    assert len({v[2] for v in out} | {os.getpid()}) == 6  # a child each, none of them this process
    assert SEEN == []


@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_the_list_ends_at_the_first_value_that_ends_it_whatever_the_jobs(jobs: int) -> None:
    out = forking.each_forked([functools.partial(piece, i) for i in range(6)], jobs, lambda v: v[0] == 2, "pieces")
    assert [v[0] for v in out] == [0, 1, 2]


def failing(i: int) -> int:
    if i == 1:
        raise ValueError("piece 1 fails")
    return i


def dying(i: int) -> int:
    if i == 1:
        os._exit(3)
    return i


def test_a_failing_piece_raises_its_error_here_and_a_dying_one_says_so() -> None:
    with pytest.raises(ValueError, match="piece 1 fails"):
        forking.each_forked([functools.partial(failing, i) for i in range(3)], 2, lambda v: False, "pieces")
    with pytest.raises(RuntimeError, match=r"the worker of pieces \(2 of 3\) ended without a result"):
        forking.each_forked([functools.partial(dying, i) for i in range(3)], 2, lambda v: False, "pieces")


def stopped(i: int) -> int:
    WALL_STOPS.append(f"timeout in piece {i}")
    return i


def test_the_wall_clock_stops_of_a_piece_are_counted_here() -> None:
    before = len(WALL_STOPS)
    try:
        assert forking.each_forked([functools.partial(stopped, i) for i in range(2)], 2, lambda v: False, "pieces") == [0, 1]
        assert WALL_STOPS[before:] == ["timeout in piece 0", "timeout in piece 1"]
    finally:
        del WALL_STOPS[before:]
