"""ruff and mypy are part of the test suite, so the README's one test command covers them."""

from __future__ import annotations

import subprocess
import sys

import typecheck
from conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_clean() -> None:
    r = _run("ruff", "check", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_clean() -> None:
    # mypy -p rulecheck over the package laid out as it installs (tests/typecheck.py says why)
    r = typecheck.run()
    assert r.returncode == 0, r.stdout + r.stderr
