"""Deep Python call stacks without CPython's frame-chunk thrashing.

CPython 3.11 and 3.12 (and 3.13 before its fix of gh-142183) keep the frames of Python calls in
chunks of 16 KiB, and free a chunk as soon as the frame at its start returns: a computation whose
call depth keeps crossing a chunk's edge, as the verifier's recursive symbolic execution and term
building do, maps and unmaps memory at every crossing (a call measured 12 µs instead of 0.16 µs
there; a whole verify of a shipped ruleset made 1.4 million such pairs).  A call whose frame
asks for more than half a chunk of a larger size gets a chunk of its own of that size, and the
frames of the calls beneath it fit in what is left of it, so nothing beneath it crosses an edge
until it is half a megabyte deep.  ``on_reserved_stack`` runs a function so."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from types import FunctionType
from typing import ParamSpec, TypeVar, cast

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: slots of the reserving frame: 520 KiB, so its chunk is 1 MiB (chunks double from 16 KiB until
#: the frame fits) and about 500 KiB are left for the frames beneath it (thousands of calls)
RESERVED_SLOTS = 66_560

_inside = threading.local()


def _call(fn: Callable[[], object]) -> object:
    return fn()


# the same code, declaring an evaluation stack it never uses: only its frame's size changes
_reserving = cast(Callable[[Callable[[], object]], object],
                  FunctionType(_call.__code__.replace(co_stacksize=RESERVED_SLOTS), {}, "_reserving"))


def on_reserved_stack(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` run beneath a frame that reserves a large chunk of the frame stack (once per thread:
    a call inside another runs directly)."""

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if getattr(_inside, "active", False):
            return fn(*args, **kwargs)
        _inside.active = True
        try:
            return cast(_R, _reserving(lambda: fn(*args, **kwargs)))
        finally:
            _inside.active = False

    return run
