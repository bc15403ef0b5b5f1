"""The Python examples of docs/engine.md run as written (from the repository's root), so the
documented way to use an engine or an adapter cannot drift from the code."""

from __future__ import annotations

import os
import re
import sys
import warnings
from pathlib import Path

import pytest

from rulecheck.cli import main

ROOT = Path(__file__).parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "engine.md").read_text(encoding="utf-8"), re.S)


def test_there_are_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    for module in sorted(set(re.findall(r"import (\w+)_engine", code))):
        assert main(["gen", str(ROOT / "rulesets" / f"{module}.rules"), "-o", str(tmp_path / f"{module}_engine.py")]) == 0
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "docs/engine.md", "exec"), {"__name__": "example"})
    for name in list(sys.modules):
        if name.endswith("_engine") and str(tmp_path) in (getattr(sys.modules[name], "__file__", "") or ""):
            del sys.modules[name]
    assert os.getcwd() == str(ROOT)
