"""Broken inputs and their diagnostics, held as golden files.

Every ``tests/bad/NAME.rules`` is checked with ``rulecheck check`` and what it prints on stderr,
with its exit code, is compared with ``tests/bad/NAME.expected``.  ``tests/bad/cli/NAME.args`` holds
a whole command line (run from the project root) with ``tests/bad/cli/NAME.expected``.  Inputs too
big to commit are generated here.  ``pytest --update`` rewrites the expected files.
"""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest
from conftest import ROOT

from rulecheck.cli import main
from rulecheck.dsl.diagnostics import CODES
from rulecheck.dsl.source import MAX_FILE_BYTES

BAD = ROOT / "tests" / "bad"
RULES = sorted(BAD.glob("*.rules"))
COMMANDS = sorted((BAD / "cli").glob("*.args"))

#: The first line of every diagnostic: where, how bad, which code, what.
HEAD = re.compile(r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+):(?P<col>\d+))?: (?P<sev>error|warning)\[(?P<code>[EW]\d{4})\]: \S.*$")
SUMMARY = re.compile(r"^(\d+) errors?, (\d+) warnings?$")


def run(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """Run the command line in this process, as the installed ``rulecheck`` script does."""
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def transcript(args: list[str], code: int, err: str) -> str:
    return f"$ rulecheck {shlex.join(args)}\n{err}[exit code {code}]\n"


PROGRESS = re.compile(r"rulecheck: (verify|simulate) [^\n]*: (started|[^\n]* to go)\n")


def check_shape(code: int, out: str, err: str) -> list[str]:
    """What every bad input must give: no traceback, exit code 2 for errors, and diagnostics in
    the documented form, each with a hint.  Returns the codes reported."""
    assert "Traceback" not in err + out and "internal error" not in err, err
    assert code in (0, 1, 2), code
    # a long command's progress lines (rulecheck/terminal.py) come first on stderr
    while PROGRESS.match(err):
        err = err.split("\n", 1)[1]
    if not err.startswith("rulecheck: error:"):  # a usage error has no diagnostics
        blocks = err.rstrip("\n").split("\n\n")
        summary = SUMMARY.match(blocks[-1])
        assert summary, f"no summary line at the end:\n{err}"
        codes = []
        for block in blocks[:-1]:
            lines = block.split("\n")
            head = HEAD.match(lines[0])
            assert head, f"not a diagnostic head: {lines[0]!r}"
            assert head["code"] in CODES, f"{head['code']} is not in dsl/diagnostics.CODES"
            assert any(line.lstrip().startswith("= help: ") for line in lines[1:]), f"no hint:\n{block}"
            if head["line"] is not None:  # a position comes with the source line and a caret
                assert len(lines) >= 4 and lines[3].lstrip(" ").startswith("|") and "^" in lines[3], block
            codes.append(head["code"])
        errors = sum(1 for c in codes if c.startswith("E"))
        assert int(summary.group(1)) == errors and int(summary.group(2)) == len(codes) - errors
        assert code == (2 if errors else 0), f"exit code {code} with {errors} errors"
        if errors:
            assert out == "", "nothing on stdout when the check fails"
        return codes
    assert code == 2
    return []


@pytest.mark.parametrize("path", RULES, ids=[p.stem for p in RULES])
def test_bad_input(path: Path, golden, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    args = ["check", path.relative_to(ROOT).as_posix()]
    code, out, err = run(args, ROOT, monkeypatch)
    check_shape(code, out, err)
    golden(path.with_suffix(".expected"), transcript(args, code, err))


@pytest.mark.parametrize("path", COMMANDS, ids=[p.stem for p in COMMANDS])
def test_bad_command(path: Path, golden, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    args = shlex.split(path.read_text(encoding="utf-8"))
    code, out, err = run(args, ROOT, monkeypatch)
    check_shape(code, out, err)
    golden(path.with_suffix(".expected"), transcript(args, code, err))


def test_file_over_the_size_limit(golden, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """One byte over 1 MiB of otherwise valid rules is refused before parsing."""
    head = b'game "Large" {\n  players 2..4\n}\n\nflow {\n  end winners players\n}\n'
    filler = b"# " + b"x" * 77 + b"\n"
    data = head + filler * ((MAX_FILE_BYTES - len(head)) // len(filler) + 1)
    data = data[: MAX_FILE_BYTES + 1]
    (tmp_path / "too_large.rules").write_bytes(data)
    (tmp_path / "at_the_limit.rules").write_bytes(data[:MAX_FILE_BYTES])
    args = ["check", "too_large.rules"]
    code, out, err = run(args, tmp_path, monkeypatch)
    assert check_shape(code, out, err) == ["E0003"]
    golden(BAD / "too_large.expected", transcript(args, code, err))
    # exactly at the limit the file is read and checked as usual
    code, out, err = run(["check", "at_the_limit.rules"], tmp_path, monkeypatch)
    assert code == 0 and "Large" in out, err


def test_every_code_has_a_bad_input() -> None:
    """Between them, the expected files show every diagnostic code."""
    shown = set()
    for expected in [*BAD.glob("*.expected"), *(BAD / "cli").glob("*.expected")]:
        shown |= set(re.findall(r"(?:error|warning)\[([EW]\d{4})\]", expected.read_text(encoding="utf-8")))
    assert set(CODES) - shown == set()


def test_unknown_reading_has_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(["play", "rulesets/cinderella.rules", "--reading", "nosuch=x"], ROOT, monkeypatch)
    assert code == 2 and "[E0503]" in err


def test_expected_files_have_inputs() -> None:
    """No expected file is left behind when an input is renamed or removed."""
    inputs = {p.stem for p in RULES} | {"too_large"}
    assert {p.stem for p in BAD.glob("*.expected")} == inputs
    assert {p.stem for p in (BAD / "cli").glob("*.expected")} == {p.stem for p in COMMANDS}


HEAD_RULES = 'game "Many" {\n  players 2..4\n}\n\nflow {\n  end winners players\n}\n'


def test_syntax_errors_stop_after_the_limit() -> None:
    """A file of a thousand broken declarations reports the first MAX_SYNTAX_ERRORS, and says so."""
    from rulecheck.dsl.loader import load_text
    from rulecheck.dsl.parser import MAX_SYNTAX_ERRORS

    text = HEAD_RULES + "".join(f"define d{i} -> int = 1 +* 2\n" for i in range(1000))
    diags = load_text(text).diagnostics.sorted()
    assert [d.code for d in diags] == ["E0102"] * MAX_SYNTAX_ERRORS
    assert diags[0].span.line == 8 and diags[-1].span.line == 7 + MAX_SYNTAX_ERRORS
    assert "stops after" in diags[-1].notes[-1]


def test_suggestions_stop_after_the_limit() -> None:
    """Every unknown name is reported; only the first MAX_SUGGESTIONS get a 'did you mean'."""
    from rulecheck.dsl.checker import MAX_SUGGESTIONS
    from rulecheck.dsl.loader import load_text

    n = MAX_SUGGESTIONS + 50
    text = HEAD_RULES + "".join(f"define value{i} -> int = valeu{i}\n  source \"v\"\n" for i in range(n))
    diags = [d for d in load_text(text).diagnostics.sorted() if d.code == "E0201"]
    assert len(diags) == n
    suggested = [d for d in diags if d.hint and d.hint.startswith("did you mean")]
    assert len(suggested) == MAX_SUGGESTIONS
    assert suggested[0].hint == "did you mean 'value0'?"
