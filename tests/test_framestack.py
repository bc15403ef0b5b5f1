"""rulecheck.framestack: deep call stacks without mapping memory at every call (CPython's frame
chunks). The effect is counted in page faults, which a fresh chunk of frames costs on its first
use: a count, not a time."""

from __future__ import annotations

import sys

import pytest

from rulecheck.framestack import on_reserved_stack

resource = pytest.importorskip("resource")

CALLS = 400


def _down(d: int) -> int:
    return _down(d - 1) if d else 0


def _faults_at(base: int) -> int:
    """Page faults of CALLS shallow calls made ``base`` frames deeper than the caller."""
    if base:
        return _faults_at(base - 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(CALLS):
        _down(3)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _worst_depth() -> int:
    """The most page faults at any of 260 depths: more than two chunks of frames."""
    return max(_faults_at(base) for base in range(260))


def test_calls_beneath_the_reserving_frame_map_no_memory() -> None:
    plain = _worst_depth()
    if plain < CALLS // 2:
        pytest.skip(f"Python {sys.version.split()[0]} does not free a chunk of frames at every return (gh-142183 fixed)")
    assert on_reserved_stack(_worst_depth)() < CALLS // 4, plain


def test_a_reserved_call_is_the_call() -> None:
    @on_reserved_stack
    def add(a: int, b: int = 1) -> int:
        """Adds."""
        return a + b

    @on_reserved_stack
    def fail() -> None:
        raise KeyError("x")

    assert add(2, b=3) == 5 and add.__name__ == "add" and add.__doc__ == "Adds."
    with pytest.raises(KeyError):
        fail()
    # inside another reserved call it runs directly, and the reserve is given back after an error
    assert on_reserved_stack(lambda: add(1))() == 2
    assert add(1) == 2
