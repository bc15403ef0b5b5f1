"""The fuzzer: any input, any command, a clear diagnostic or success (tests/fuzzing.py).

In the normal run the three tests try 180 inputs (the quick profile: about 30 s of processor time).
The long profile is run by hand before a release, and for changes to the parser, the checker or a
back end::

    .venv/bin/python -m pytest -m fuzz --hypothesis-profile=long -p no:cacheprovider --hypothesis-show-statistics

(``tests/conftest.py`` registers it: 100,000 inputs in all, or RULECHECK_FUZZ_INPUTS; no time
limit per input but the fuzzer's own bounds; ``--hypothesis-show-statistics`` prints how many each
test tried, and RULECHECK_FUZZ_LOG=FILE appends a line per input to FILE while it runs.) A failure
is shrunk by hypothesis to a small input and printed; add it as a test where the cause is
(tests/test_fuzz_findings.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzzing import Run, exercise, fragments, grammar, mutants
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

#: The long profile (tests/conftest.py) sets max_examples to the inputs of all the tests together;
#: the quick one is hypothesis's default.
LONG = settings.default is settings.get_profile("long")


def budget(quick: int, share: float) -> settings:
    """Settings for one fuzz test: ``quick`` inputs normally, ``share`` of the long profile's."""
    n = max(quick, int(settings.default.max_examples * share)) if LONG else quick
    return settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), derandomize=not LONG,
                    print_blob=True)


#: The checks of a bounded verify: each input gets one or two of them (ambiguity and invariants
#: only for small rulesets: on a whole game they take minutes even bounded).
CHEAP_CHECKS = ["incompleteness", "conflict", "exhaustion", "non-termination", "dead-rule", "translation"]
ALL_CHECKS = [*CHEAP_CHECKS, "ambiguity", "invariant"]

pytestmark = pytest.mark.fuzz


def note(run: Run) -> None:
    """How far the input went, for --hypothesis-show-statistics."""
    last, code = run.stages[-1]
    event(f"{len(run.stages)} stages, the last {last} with exit code {code}")


def checks_for(data: bytes, draw: st.DataObject) -> list[str]:
    pool = ALL_CHECKS if len(data) < 6000 else CHEAP_CHECKS
    return draw.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True), label="verify --check")


@budget(quick=100, share=0.84)
@given(text=grammar("start"), seed=st.integers(0, 1000), data=st.data())
def test_grammar_inputs(text: str, seed: int, data: st.DataObject) -> None:
    """Whole files from the grammar: tokens in any order the grammar allows, any names."""
    raw = text.encode("utf-8", errors="surrogatepass")
    with tempfile.TemporaryDirectory() as d:
        note(exercise(raw, Path(d), checks_for(raw, data), seed))


@budget(quick=40, share=0.08)
@given(raw=fragments(), seed=st.integers(0, 1000), data=st.data())
def test_grammar_fragments_in_a_game(raw: bytes, seed: int, data: st.DataObject) -> None:
    """Declarations, statements and expressions from the grammar, in a small valid game: names and
    numbers drawn so that many of them check and reach every back end."""
    with tempfile.TemporaryDirectory() as d:
        note(exercise(raw, Path(d), checks_for(raw, data), seed))


@budget(quick=40, share=0.08)
@given(mutant=mutants(), seed=st.integers(0, 1000), data=st.data(), heavy=st.integers(0, 3))
def test_mutated_rulesets(mutant: tuple[str, bytes], seed: int, data: st.DataObject, heavy: int) -> None:
    """The committed rulesets and the project's other rules files, mutated. A whole game is a
    large input: simulate and verify run on one in four of the large ones."""
    _, raw = mutant
    small = len(raw) < 6000
    with tempfile.TemporaryDirectory() as d:
        note(exercise(raw, Path(d), checks_for(raw, data) if small or heavy == 0 else [], seed, heavy=small or heavy == 0))
