"""Checking stays linear in the size of the ruleset, and a file of thousands of errors prints a
bounded report.

An enum of 32,000 values took 17 s to check (a list lookup per value), and a file of bad escapes
77 s and 173 MB of diagnostics (each escape's position found by counting the lines before it,
and every diagnostic printed). Speed itself is measured in benchmarks/checking.py (tests do not
time things); here: the diagnostics are capped as documented (MAX_DIAGNOSTICS), what the cap
leaves out is counted and said, and the positions and the duplicates found are still right.
"""

from __future__ import annotations

import pytest

from rulecheck.dsl.diagnostics import MAX_DIAGNOSTICS, Diagnostics, render_all
from rulecheck.dsl.loader import load_text

HEAD = 'game "Many" {\n  players 2..4\n}\n\nflow {\n  end winners players\n}\n'


def test_a_file_of_bad_escapes_reports_the_first_ones_and_counts_the_rest() -> None:
    lines = 3000
    text = HEAD + 'define d -> text = "' + ("\\q" * 20 + "\n") * lines + '"\n  source "x"\n'
    loaded = load_text(text, "escapes.rules")
    diags = loaded.diagnostics.sorted()
    assert loaded.diagnostics.has_errors and loaded.rules is None
    assert len(diags) == MAX_DIAGNOSTICS and {d.code for d in diags} == {"E0105"}
    assert f"it found {lines * 20 - MAX_DIAGNOSTICS:,} more" in diags[-1].notes[-1]
    # the positions of escapes on later lines of the string are right
    assert (diags[0].span.line, diags[0].span.col) == (8, 21)
    assert (diags[20].span.line, diags[20].span.col) == (9, 1)
    assert (diags[21].span.line, diags[21].span.col) == (9, 3)
    shown = render_all(diags, loaded.source)
    assert len(shown) < 100_000


def test_the_cap_never_hides_that_there_are_errors() -> None:
    """Warnings beyond the cap do not crowd out an error, and a capped file never passes."""
    d = Diagnostics()
    for i in range(MAX_DIAGNOSTICS * 3):
        d.warning("W0601", f"w{i}")
    assert not d.has_errors
    d.error("E0201", "the one error")
    assert d.has_errors and any(x.code == "E0201" for x in d.sorted())
    for i in range(MAX_DIAGNOSTICS * 3):
        d.error("E0201", f"e{i}")
    assert d.has_errors and d.count() == MAX_DIAGNOSTICS * 6 + 1
    assert sum(1 for x in d.sorted() if x.is_error) == MAX_DIAGNOSTICS
    # sorting again does not add the note again
    assert d.sorted()[-1].notes == d.sorted()[-1].notes


@pytest.mark.parametrize("size", [1000, 32_000])
def test_a_large_enum_checks_and_its_duplicates_are_found(size: int) -> None:
    values = ", ".join(f"v{i}" for i in range(size))
    text = HEAD + f"enum Big {{ {values}, v7, v{size - 1} }}\nvar x: Big = v{size - 1} \"the value\"\n"
    loaded = load_text(text, "enum.rules")
    errors = [d for d in loaded.diagnostics.sorted() if d.is_error]
    assert [d.code for d in errors] == ["E0202", "E0202"]
    assert "'v7' twice" in errors[0].message and f"'v{size - 1}' twice" in errors[1].message
