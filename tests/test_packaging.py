"""The wheel as a user gets it: built from this tree, installed in a fresh virtual environment, run
from another directory on a ruleset that lives there (slow: `pytest -m "not slow"` skips it); and every
module of the package imports when it is the first one imported."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

RULESET = ROOT / "tests" / "verify" / "good" / "ambiguity_differs.rules"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_wheel_installs_and_verifies_elsewhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    r = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(ROOT)], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = dist.glob("rulecheck-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    for needed in ("rulecheck/py.typed", "rulecheck/dsl/grammar.lark", "rulecheck/codegen/templates/engine.py.jinja",
                   "rulecheck/reports/templates/report.html.j2", "rulecheck/verifier/verify.py", f"{info}/licenses/LICENSE"):
        assert needed in names or needed.replace("/licenses/", "/") in names, f"{needed} is not in the wheel"
    # every package of the source tree is in the wheel, subpackages included
    for init in ROOT.glob("*/**/__init__.py"):
        rel = init.relative_to(ROOT)
        if rel.parts[0] in ("tests", "benchmarks", "build", ".venv"):
            continue
        inside = rel.as_posix() if rel.parts[0] == "rulecheck" else f"rulecheck/{rel.as_posix()}"
        assert inside in names, f"{rel} is not in the wheel as {inside}"

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    py = env / "bin" / "python"
    r = _run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(RULESET, elsewhere / "game.rules")
    r = _run([str(env / "bin" / "rulecheck"), "verify", "game.rules", "--check", "non-termination", "--format", "json"], elsewhere)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["ruleset"]["file"] == "game.rules"
    assert [(f["kind"], f["status"]) for f in doc["findings"]] == [("non-termination", "proven")]
    # the installed copy ran, not this tree
    r = _run([str(py), "-c", "import rulecheck.dsl.parser as p; print(p.__file__)"], elsewhere)
    assert r.returncode == 0 and str(env) in r.stdout, r.stdout + r.stderr


def test_every_module_imports_first() -> None:
    """A circular import shows only when its module is the first imported: import each one first
    (the package's modules forgotten before each), in one fresh interpreter."""
    script = """
import importlib, pkgutil, sys
import rulecheck
names = sorted(m.name for m in pkgutil.walk_packages(rulecheck.__path__, "rulecheck.") if not m.name.endswith("__main__"))
for sub in ("dsl", "interpreter", "codegen", "verifier", "reports", "editor"):
    pkg = importlib.import_module("rulecheck." + sub)
    names += sorted(m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."))
for name in sorted(set(names)):
    for loaded in [m for m in sys.modules if m == "rulecheck" or m.startswith("rulecheck.")]:
        del sys.modules[loaded]
    importlib.import_module(name)
print(len(set(names)))
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) > 40
