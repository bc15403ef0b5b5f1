"""`rulecheck gen FILE --adapter openspiel|pettingzoo`: a module that needs no adapter code, used as a
new user would, in fresh Python processes (and clean under ruff and mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rulecheck.cli import main

ROOT = Path(__file__).parent.parent


def _python(tmp_path: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.mark.slow
def test_gen_openspiel_adapter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gen", str(ROOT / "tests" / "rulesets" / "kuhn_poker.rules"), "--adapter", "openspiel", "-o", str(tmp_path / "kuhn.py")]) == 0
    assert "with the openspiel adapter" in capsys.readouterr().out
    _python(tmp_path, (
        "import pickle, pyspiel, kuhn\n"
        "game = pyspiel.load_game(kuhn.GAME_NAME)\n"
        "pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)\n"
        "s = game.new_initial_state(); s.apply_action(2); s.apply_action(0); s.apply_action(1)\n"
        "open('state.pickle', 'wb').write(pickle.dumps(s))\n"
    ))
    # another process unpickles the state once it has imported the module
    out = _python(tmp_path, (
        "import pickle, kuhn\n"
        "s = pickle.loads(open('state.pickle', 'rb').read())\n"
        "print(s.history(), s.current_player(), s.information_state_string(1).splitlines()[-1])\n"
    ))
    assert out.splitlines()[0].startswith("[2, 0, 1] 1 ")


@pytest.mark.slow
def test_gen_pettingzoo_adapter(tmp_path: Path) -> None:
    assert main(["gen", str(ROOT / "tests" / "rulesets" / "goofspiel.rules"), "--adapter", "pettingzoo", "-o", str(tmp_path / "goof.py")]) == 0
    out = _python(tmp_path, (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from pettingzoo.test import api_test, parallel_api_test\n"
        "import goof\n"
        "api_test(goof.env(), num_cycles=100)\n"
        "parallel_api_test(goof.parallel_env(), num_cycles=100)\n"
    ))
    assert "Passed API test" in out and "Passed Parallel API test" in out


@pytest.mark.slow
def test_modules_with_adapters_pass_ruff_and_mypy(tmp_path: Path) -> None:
    for kind in ("openspiel", "pettingzoo"):
        assert main(["gen", str(ROOT / "tests" / "rulesets" / "liars_dice.rules"), "--adapter", kind, "-o", str(tmp_path / f"liars_{kind}.py")]) == 0
    files = [str(p) for p in sorted(tmp_path.glob("*.py"))]
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), *files],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # rulecheck as the wheel lays it out (tests/typecheck.py stages it: mypy cannot follow the
    # package-dir mapping in the source tree)
    from typecheck import TREE, stage

    stage()
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), *files],
                       capture_output=True, text=True, cwd=TREE)
    assert r.returncode == 0, r.stdout + r.stderr


def test_unknown_adapter_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gen", str(ROOT / "tests" / "rulesets" / "kuhn_poker.rules"), "--adapter", "gym", "-o", str(tmp_path / "x.py")]) == 2
    assert "invalid choice: 'gym'" in capsys.readouterr().err
    assert not (tmp_path / "x.py").exists()
