"""mypy over the package as it installs: `python tests/typecheck.py` (tests/test_lint.py runs it).

The top-level folders become subpackages of rulecheck through setuptools' package-dir mapping
(pyproject.toml), which mypy cannot follow in the source tree; so the mapped folders are copied
into one tree laid out as the wheel lays them out (build/typecheck/, kept between runs so that
mypy's cache holds), mypy checks `-p rulecheck` there, and its messages name the original files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, str]:
    """pyproject.toml's mapping of package names to folders."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def stage() -> dict[str, str]:
    """Copy every mapped folder's Python files into TREE; returns staged prefix -> original prefix."""
    back: dict[str, str] = {}
    if TREE.exists():
        shutil.rmtree(TREE)
    for name, folder in sorted(package_dirs().items()):
        target = TREE.joinpath(*name.split("."))
        # copy2 keeps modification times, so mypy's cache stays valid across runs
        shutil.copytree(ROOT / folder, target, copy_function=shutil.copy2, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "templates", "*.lark"))
        back[str(target.relative_to(TREE)) + "/"] = folder.rstrip("/") + "/"
    return back


def run() -> subprocess.CompletedProcess[str]:
    back = stage()
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                        "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "rulecheck"],
                       cwd=TREE, capture_output=True, text=True)
    out = r.stdout
    # the longest staged prefix first: rulecheck/dsl/ before rulecheck/
    for staged in sorted(back, key=len, reverse=True):
        out = "\n".join(line.replace(staged, back[staged], 1) if line.startswith(staged) else line for line in out.split("\n"))
    return subprocess.CompletedProcess(r.args, r.returncode, out, r.stderr)


if __name__ == "__main__":
    result = run()
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    sys.exit(result.returncode)
