"""`rulecheck gen --native`: a generated engine compiled to a C extension module with mypyc.

The generated module is plain Python whose every function and class is typed (it passes
``mypy --strict``), which is what mypyc, mypy's compiler, turns into C: the same code, its classes
native, its calls direct, its integers unboxed where they fit in a machine word.  The extension
module is written beside the ``.py`` and is what ``import NAME`` then loads (Python prefers an
extension module to source of the same name).  It needs mypy (which ships mypyc: ``pip install
'rulecheck[native]'``), a C compiler and Python's headers (on Debian ``apt-get install gcc
python3-dev``); it runs for about 10 to 30 seconds per engine.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import types
from pathlib import Path

__all__ = ["NativeError", "compile_native", "extension_modules", "load_native"]


class NativeError(Exception):
    """The engine could not be compiled: what is missing or what failed, and a hint."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def extension_modules(folder: Path, name: str) -> list[Path]:
    """The extension modules of the module ``name`` in ``folder`` (what import prefers to its .py)."""
    return sorted(p for p in folder.glob(f"{name}.*")
                  if p.is_file() and any(p.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES))


def toolchain_missing() -> NativeError | None:
    """What compiling needs and this machine lacks (None: nothing)."""
    if importlib.util.find_spec("mypyc") is None:
        return NativeError("mypyc is not installed", "pip install 'rulecheck[native]' (mypy ships mypyc)")
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return NativeError(f"Python's C headers are missing (no Python.h in {include})",
                           "on Debian or Ubuntu: apt-get install python3-dev")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return NativeError(f"no C compiler: '{cc}' is not on the PATH", "on Debian or Ubuntu: apt-get install gcc")
    return None


def compile_native(source: str, name: str, directory: Path) -> Path:
    """Compile the engine ``source`` as the module ``name`` into ``directory``: the path of the
    extension module written there."""
    missing = toolchain_missing()
    if missing is not None:
        raise missing
    with tempfile.TemporaryDirectory(prefix="rulecheck-native-") as tmp:
        work = Path(tmp)
        (work / f"{name}.py").write_text(source, encoding="utf-8")
        # mypy's cache and the build files stay in the scratch directory
        env = {**os.environ, "MYPY_CACHE_DIR": str(work / ".mypy_cache")}
        r = subprocess.run([sys.executable, "-m", "mypyc", f"{name}.py"], cwd=work, env=env, capture_output=True, text=True)
        built = extension_modules(work, name)
        if r.returncode != 0 or len(built) != 1:
            tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-12:])
            raise NativeError(f"mypyc could not compile the engine:\n{tail}",
                              "the generated module should always compile; please report this with the ruleset")
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / built[0].name
        # written whole or not at all: a half-copied module would crash the import that finds it
        partial = directory / f".{built[0].name}.partial"
        shutil.copyfile(built[0], partial)
        partial.replace(target)
    return target


def load_native(source: str, name: str = "rulecheck_engine", cache: Path | None = None) -> types.ModuleType:
    """The engine ``source`` compiled and imported (tests, benchmarks), as ``load_module`` does
    with the source itself; compiled once per source text into ``cache`` (default: a folder of the
    system's temporary directory), since compiling takes far longer than a test."""
    digest = hashlib.sha256(f"{name}\0{sys.version}\0{source}".encode()).hexdigest()[:20]
    folder = (cache or Path(tempfile.gettempdir()) / "rulecheck-native") / digest
    found = extension_modules(folder, name)
    path = found[0] if found else compile_native(source, name, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module
