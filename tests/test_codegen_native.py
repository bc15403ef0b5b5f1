"""rulecheck gen --native: the engine compiled with mypyc plays the interpreter's games.

One compile (of the kitchen sink, which uses every construct of the language) through the command
line, as a user runs it; the compiled module is then imported from the folder it was written to
and compared with the interpreter step by step, as the pure engine is in
test_codegen_differential.py. Needs a C compiler and Python's headers (.ci/run installs them).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import run_cli
from test_codegen_differential import KITCHEN_PARAMS, KITCHEN_SINK, TEXTS, play_both
from test_codegen_engine import assert_lists_masks

from rulecheck.codegen import native


def _import_from(folder: Path, name: str) -> ModuleType:
    """``import name`` with only ``folder`` on the path, as a user's script would."""
    spec = importlib.machinery.PathFinder.find_spec(name, [str(folder)])
    assert spec is not None and spec.loader is not None and spec.origin is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the kitchen sink with sixty tokens: its sets of components pass a machine word (62 bits), which a
#: compiled engine computes on otherwise
WIDE_SINK = KITCHEN_SINK.replace('given id source "Six tokens."\n  | id   |\n  | 1..6 |',
                                 'given id source "Six tokens."\n  | id    |\n  | 1..60 |').replace("id: 1..6", "id: 1..60")
assert WIDE_SINK.count("1..60") == 2
TEXTS["kitchen_sink_wide"] = (WIDE_SINK, "kitchen_sink.rules")


@pytest.mark.slow
def test_native_engine_plays_the_interpreters_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if native.toolchain_missing() is not None:
        pytest.skip(f"cannot compile here: {native.toolchain_missing()}")
    # the C compiler without optimizations (mypyc's own switch, which gen leaves alone): the same
    # compiled code paths, about half the test's time (91 -> 47 s on 2 cores)
    monkeypatch.setenv("MYPYC_OPT_LEVEL", "0")
    rules = tmp_path / "kitchen_sink.rules"
    rules.write_text(WIDE_SINK, encoding="utf-8")
    code, out, err = run_cli("gen", str(rules), "-o", str(tmp_path / "sink_engine.py"), "--native")
    assert code == 0, err
    compiled = [p for p in tmp_path.iterdir() if p.name.startswith("sink_engine.") and p.suffix != ".py"]
    assert len(compiled) == 1, sorted(p.name for p in tmp_path.iterdir())
    assert f"wrote {compiled[0]}" in out
    mod = _import_from(tmp_path, "sink_engine")
    # the import found the extension module, not the .py beside it, and its classes are native
    assert mod.__file__ == str(compiled[0])
    assert type(mod.State.clone).__name__ != "function"
    # compiled, a mask's members are listed 62 bits at a time: the lists the byte tables give
    assert mod._COMPILED
    assert_lists_masks(mod)
    ends: dict[str, int] = {}
    for k, params in enumerate(KITCHEN_PARAMS):
        for n in (2, 3, 4):
            for g in range(6):
                end = play_both("kitchen_sink_wide", {"giving": "left"}, n, seed=1000 * k + 10 * n + g, params=params,
                                info_states=g % 3 == 0, module=mod)
                ends[end] = ends.get(end, 0) + 1
    assert ends.get("end", 0) > 10 and len(ends) >= 3, ends
    # a plain script, without rulecheck on its path, runs it too
    script = ("import sys; sys.path.insert(0, '.')\n"
              "import random, sink_engine as m\n"
              "assert not m.__file__.endswith('.py'), m.__file__\n"
              "s = m.load_game({'players': 3}).new_initial_state(); rng = random.Random(7)\n"
              "while not s.is_terminal():\n"
              "    if s.is_simultaneous_node(): s.apply_actions([rng.choice(s.legal_actions(q)) for q in range(3)])\n"
              "    else: s.apply_action(rng.choice(s.legal_actions()))\n"
              "print(len(s.history()))\n")
    run = subprocess.run([sys.executable, "-I", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # generating the plain engine again beside it warns that import would still load the old one
    code, _, err = run_cli("gen", str(rules), "-o", str(tmp_path / "sink_engine.py"))
    assert code == 0
    assert f"warning: {compiled[0]} is a compiled engine written before; import sink_engine loads it" in err


@pytest.mark.parametrize("args, message", [
    (["--native"], "--native writes a compiled module beside the engine's file"),
    (["--native", "-o", "-"], "--native writes a compiled module beside the engine's file"),
    (["--native", "-o", "OUT/my-engine.py"], "'my-engine.py' is not the file of an importable module"),
    (["--native", "-o", "OUT/engine.txt"], "'engine.txt' is not the file of an importable module"),
    (["--native", "--adapter", "openspiel", "-o", "OUT/eng.py"], "--native compiles the engine alone"),
])
def test_native_refuses_what_it_cannot_compile(tmp_path: Path, args: list[str], message: str) -> None:
    code, out, err = run_cli("gen", "tests/rulesets/kuhn_poker.rules", *[a.replace("OUT", str(tmp_path)) for a in args])
    assert code == 2, (out, err)
    assert message in err and "help:" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_missing_toolchain_is_named_with_a_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mypyc" else real(name, *a))
    code, _, err = run_cli("gen", "tests/rulesets/kuhn_poker.rules", "-o", str(tmp_path / "kuhn.py"), "--native")
    assert code == 2
    assert "cannot compile the engine: mypyc is not installed" in err
    assert "pip install 'rulecheck[native]'" in err
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(native.shutil, "which", lambda cmd: None)
    monkeypatch.setattr(importlib.util, "find_spec", real)
    missing = native.toolchain_missing()
    assert missing is not None and "no C compiler" in str(missing) and "apt-get install gcc" in missing.hint
