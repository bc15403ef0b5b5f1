"""The command line as people expect it: --version, usage errors, progress on stderr, colours."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from rulecheck import __version__, terminal
from rulecheck.cli import main

SMALL = str(ROOT / "tests" / "verify" / "good" / "ambiguity_differs.rules")
BAD = str(ROOT / "tests" / "bad" / "unknown_names.rules")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_version() -> None:
    assert cli(["--version"]) == (0, f"rulecheck {__version__}\n", "")
    r = subprocess.run([sys.executable, "-m", "rulecheck", "--version"], capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, f"rulecheck {__version__}\n")


def test_no_command_is_a_usage_error_on_stderr() -> None:
    code, out, err = cli([])
    assert (code, out) == (2, "")
    assert err.startswith("usage: rulecheck") and "simulate" in err and "report" in err


def test_help_goes_to_stdout() -> None:
    code, out, err = cli(["verify", "--help"])
    assert (code, err) == (0, "")
    assert out.startswith("usage: rulecheck verify")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_lines_every_few_seconds_when_not_a_terminal() -> None:
    err, clock = io.StringIO(), Clock()
    with terminal.Reporter(err, "simulate g.rules", 1000, "games", clock=clock) as r:
        for done in range(25, 1001, 25):
            clock.now += 0.5  # 50 games/s
            r.update(done)
    lines = err.getvalue().splitlines()
    assert lines[0] == "rulecheck: simulate g.rules: 1000 games to go"
    # 40 updates half a second apart: a line every 5 seconds, none at the end but the summary
    assert lines[1] == "rulecheck: simulate g.rules: 250/1000 games (25%), 50 games/s, about 15 s left"
    assert len(lines) == 1 + 3 + 1
    assert lines[-1] == "rulecheck: simulate g.rules: 1000/1000 games in 20 s"
    assert "\r" not in err.getvalue() and "\x1b" not in err.getvalue()


def test_progress_bar_on_a_terminal_is_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    err, clock = Tty(), Clock()
    r = terminal.Reporter(err, "verify g.rules", 4, "checks", clock=clock)
    clock.now += 2
    r.update(1, "reading x=y")
    drawn = err.getvalue()
    assert "verify g.rules" in drawn and "1/4" in drawn and "reading x=y" in drawn and "checks/s" in drawn
    r.close()
    tail = err.getvalue()[len(drawn):]
    # transient: the bar's line is erased (ESC [ 2 K) before the closing line
    assert "\x1b[2K" in tail
    assert tail.endswith("rulecheck: verify g.rules: 1/4 checks in 2 s\n")


def test_colours_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = "g.rules:3:5: error[E0201]: unknown name 'hnad'\n  |\n3 | x\n  | ^\n  = help: did you mean 'hand'?\n"
    tty = Tty()
    terminal.write(tty, text)
    assert "\x1b[" in tty.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", tty.getvalue()) == text
    pipe = io.StringIO()
    terminal.write(pipe, text)
    assert pipe.getvalue() == text
    monkeypatch.setenv("NO_COLOR", "1")
    tty = Tty()
    terminal.write(tty, text)
    assert tty.getvalue() == text
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    tty = Tty()
    terminal.write(tty, text)
    assert tty.getvalue() == text


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_verify_tells_its_progress_on_stderr_in_every_format(fmt: str) -> None:
    code, out, err = cli(["verify", SMALL, "--format", fmt, "--jobs", "1"])
    assert code == 0
    lines = err.splitlines()
    name = "tests/verify/good/ambiguity_differs.rules"  # the ruleset's name: relative to the working directory
    assert lines[0] == f"rulecheck: verify {name}: started"
    assert re.fullmatch(rf"rulecheck: verify {name}: (\d+) checks to go", lines[1]), lines[1]
    assert re.fullmatch(rf"rulecheck: verify {name}: (\d+)/\1 checks in \d+ s", lines[-1]), lines[-1]
    assert "rulecheck:" not in out
    if fmt != "text":
        json.loads(out)


def test_diagnostics_are_plain_in_a_pipe() -> None:
    r = subprocess.run([sys.executable, "-m", "rulecheck", "check", BAD], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color"})
    assert r.returncode == 2
    assert "error[" in r.stderr and "\x1b" not in r.stderr
