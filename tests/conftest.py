"""Shared test configuration: ``pytest --update`` rewrites every golden file instead of comparing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# The fuzzer's long profile (tests/test_fuzz.py): pytest -m fuzz --hypothesis-profile=long; the
# inputs of all its tests together, about RULECHECK_FUZZ_INPUTS (default 100,000)
settings.register_profile("long", max_examples=int(os.environ.get("RULECHECK_FUZZ_INPUTS", "100000")), deadline=None,
                          suppress_health_check=list(HealthCheck))
SEEDS = ROOT.parent / "shared" / "seeds"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update", action="store_true", help="rewrite golden files with the current output")


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """golden(path, text): compare text with the file, or write it under --update."""
    update = request.config.getoption("--update")

    def check(path: Path, actual: str) -> None:
        if update or not path.exists():
            if not update:
                pytest.fail(f"golden file {path.relative_to(ROOT)} is missing; run pytest --update and review the diff")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        expected = path.read_text(encoding="utf-8")
        if expected != actual:
            import difflib

            diff = "".join(difflib.unified_diff(
                expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                fromfile=str(path.relative_to(ROOT)), tofile="actual",
            ))
            pytest.fail(f"output differs from {path.relative_to(ROOT)} (run pytest --update to accept):\n{diff}")

    return check


def run_cli(*args: str) -> tuple[int, str, str]:
    """rulecheck in this process, from the checkout's root: the exit code main returns, stdout, stderr."""
    import io

    from rulecheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(list(args), out, err)
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def seed_text(name: str) -> str:
    """A rulebook from ../shared/seeds, or skip the test when it is not there."""
    path = SEEDS / name
    if not path.exists():
        pytest.skip(f"rulebook {name} is not available at {SEEDS}")
    return path.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output in tests is what a pipe gets: a FORCE_COLOR of the caller's must not colour it."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
