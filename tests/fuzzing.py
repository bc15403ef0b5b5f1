"""The fuzzer's parts (tests/test_fuzz.py runs them): where inputs come from, how they are
changed, and the pipeline every input goes through.

Inputs are made three ways: from the grammar itself (``hypothesis.extra.lark.from_lark`` on
dsl/grammar.lark), as fragments of the grammar (a statement, a declaration, an expression)
spliced into a small valid game, and by mutating the committed rulesets and the other rules
files of the project (lines and tokens deleted, duplicated and swapped, extreme numbers, unicode,
NUL, BOM, CR LF and CR line ends, very long lines, deep nesting, invalid UTF-8).

Every input goes through ``check`` and the language server (the editor's view of it, in
process: diagnostics, symbols, hover and go to definition, formatting, an edit), then ``play``, ``gen`` with the engine imported and played
beside the interpreter, ``simulate`` and a bounded ``verify``. The only allowed outcomes are
success or a diagnostic (exit code 0, 1 or 2, and no "internal error" or traceback); every output
for a terminal must be inert (no control character of the ruleset's); each command must end
within its bound; and the input file must be byte for byte what it was.
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from rulecheck.cli import main  # noqa: E402
from rulecheck.dsl import ir, parser  # noqa: E402
from rulecheck.dsl.loader import load_bytes  # noqa: E402
from rulecheck.dsl.types import MAX_INT  # noqa: E402

#: Seconds of processor time a command may take before it counts as a hang (generous: a mutated
#: ruleset of 40 KB is a whole game; an endless loop exceeds any bound). See time_bound.
BOUNDS = {"lsp": 60.0, "check": 60.0, "fmt": 60.0, "play": 60.0, "gen": 120.0, "engine": 60.0, "simulate": 180.0, "verify": 300.0}

#: What a terminal acts on (see dsl/safetext.py): no output made for one may hold it.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


#: Failures whose cause is known and tracked by an xfail test of tests/test_fuzz_findings.py:
#: an input that meets one counts as "known" (an event in the statistics) and the fuzzer goes on,
#: so that a long run is not stopped by what is already being fixed. Remove an entry with its test.
KNOWN: dict[str, re.Pattern[str]] = {}


class Known(Exception):
    """An input that meets a known failure (KNOWN)."""


class Hang(BaseException):
    """A command ran past its bound (a BaseException: the command line catches Exception)."""


class Bad(AssertionError):
    """An outcome the fuzzer does not allow."""


def wall_factor() -> float:
    """How many times the processor-time bound the clock allows: four, or forty for a run given a
    lower priority (``nice``), which a busy machine can starve for minutes (a long run beside other
    work: a 23 s engine stage once took more than 240 s of the clock under nice 19)."""
    return 4.0 if os.nice(0) <= 0 else 40.0


@contextmanager
def time_bound(seconds: float, what: str) -> Iterator[None]:
    """``seconds`` of this process's processor time (a loaded machine does not make a hang of a
    slow command), and wall_factor() times as many of the clock's (a worker process, a blocked read)."""
    factor = wall_factor()

    def fire(signum: int, frame: Any) -> None:
        clock = "processor time" if signum == signal.SIGPROF else "time on the clock"
        raise Hang(f"{what} ran for more than {seconds * (1 if signum == signal.SIGPROF else factor):g} s of {clock}")

    old = signal.signal(signal.SIGALRM, fire), signal.signal(signal.SIGPROF, fire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, factor * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old[0])
        signal.signal(signal.SIGPROF, old[1])


# ---- seeds --------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def seeds() -> dict[str, bytes]:
    """The rules files of the project, by name: the committed rulesets, the verifier's test games,
    the broken inputs, and the complete examples of the documentation."""
    out: dict[str, bytes] = {}
    for folder in ("rulesets", "tests/verify/good", "tests/verify/bad", "tests/bad", "tests/bad/cli"):
        for p in sorted((ROOT / folder).glob("*.rules")):
            data = p.read_bytes()
            if len(data) < 200_000:
                out[f"{folder}/{p.name}"] = data
    fence = re.compile(r"^```rules( id=\w+)?\n(.*?)^```\s*$", re.M | re.S)
    for doc in ("language", "diagnostics", "verify", "engine", "reports", "simulate"):
        path = ROOT / "docs" / f"{doc}.md"
        if path.exists():
            for i, m in enumerate(fence.finditer(path.read_text(encoding="utf-8"))):
                out[f"docs/{doc}.md#{i}"] = m.group(2).encode("utf-8")
    return out


#: The small game that grammar fragments are spliced into: every kind of declaration, so that
#: names drawn from NAMES often mean something.
SKELETON = '''game "Fuzz" {
  players 2..3
  source "A small game."
}

enum Suit "suit" { hearts "H", spades "S" }

card Card "{rank}{suit}" {
  rank: 1..3
  suit: Suit
}

zone deck: Card hidden
zone hand[player]: Card owner
zone pile: Card public

table Card in deck {
  given rank, suit source "Six cards."
  | rank | suit |
  | 1..3 | *    |
}

var x: int = 0 "a number"
var flag: bool = false "a flag"
var best[player]: 0..9 = 0 score
var word: text = "w" "a text"
param bonus: int = 1 "a bonus"

define f(p: player) -> int "a player's total" = sum(c.rank for c in hand[p])
  source "the total"
define g(n: int) -> bool = n > 2
  source "more than two"

procedure turn(p: player) source "A turn." {
  draw 1 from deck to hand[p]
}

@ITEMS@

flow {
  shuffle deck
  for each p in players {
    turn(p)
  }
@STATEMENTS@
  end winners {p for p in players if f(p) == max(f(q) for q in players)}
}
'''

NAMES = ["x", "flag", "best", "word", "bonus", "f", "g", "turn", "deck", "hand", "pile", "Card", "Suit", "hearts", "spades",
         "rank", "suit", "p", "q", "c", "k", "players", "player", "num_players", "seat", "size", "max", "min", "sum",
         "count", "any", "all", "the", "abs", "next", "prev", "winners", "int", "a", "b", "Fuzz", "deck2", "x_1"]
NUMBERS = ["0", "1", "2", "3", "5", "9", "10", "16", "17", "100", "10000", "10001", str(MAX_INT - 1), str(MAX_INT),
           str(MAX_INT + 1), str(2**32), str(10**20), "9" * 4400, "0" * 50 + "1"]
STRINGS = ['""', '"plain"', '"{x}"', '"{{x}}"', '"\\{x\\}"', '"{"', '"}"', '"\\q"', '"\\"q\\""', '"\x1b[2J\x1b]0;t\x07"',
           '"\u202eevil\u202c"', '"<script>alert(1)</script> [l](http://e.example/) `t` |a|"', '"{size(deck)}"',
           '"line\nbreak"', '"' + "long " * 400 + '"', '"\\n\\t\\\\"', '"{p}"', '"日本語 以上"', '"{\\"q\\"}"']


def lark_terminals() -> dict[str, st.SearchStrategy[str]]:
    """Names, numbers and strings from pools that mean something in SKELETON (and extremes);
    every word followed by a space, since the grammar puts no white space between tokens."""
    words: dict[str, st.SearchStrategy[str]] = {
        t.name: st.just(str(t.pattern.value) + " ")
        for t in parser._lark().terminals if t.pattern.type == "str" and str(t.pattern.value).isalpha()
    }
    return {
        **words,
        "NAME": (st.sampled_from(NAMES) | st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,8}\Z")).map(lambda s: s + " "),
        "INT": (st.sampled_from(NUMBERS) | st.from_regex(r"\A[0-9]{1,6}\Z")).map(lambda s: s + " "),
        "STRING": st.sampled_from(STRINGS),
        "LANGTAG": st.sampled_from(["@ja", "@en", "@zh-hant"]).map(lambda s: s + " "),
    }


def grammar(start: str) -> st.SearchStrategy[str]:
    return from_lark(parser._lark(), start=start, explicit=lark_terminals(), alphabet=st.characters(codec="utf-8"))


# Expressions and statements of the grammar's shapes, drawn directly: from_lark draws an
# expression one precedence level at a time (or, and, not, comparison, range, sum, product, unary,
# postfix, atom), and gives up on most of them as too deep (measured: 10 s per expression).
_OPERATORS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]
_CALLS = ["size", "abs", "max", "min", "seat", "player", "next", "prev", "f", "g", "num_players", "players", "winners"]
_AGGREGATES = ["sum", "count", "max", "min", "any", "all", "the"]
_LOCALS = ["p", "q", "c", "k", "v"]


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(_OPERATORS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"-({e})"),
        inner.map(lambda e: f"(not {e})"),
        st.tuples(st.sampled_from(_CALLS), st.lists(inner, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(st.sampled_from(_AGGREGATES), inner, st.sampled_from(_LOCALS), inner, st.none() | inner).map(
            lambda t: f"{t[0]}({t[1]} for {t[2]} in {t[3]}{'' if t[4] is None else ' if ' + t[4]})"),
        st.tuples(inner, st.sampled_from(_LOCALS), inner).map(lambda t: f"{{{t[0]} for {t[1]} in {t[2]}}}"),
        st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.lists(inner, max_size=3).map(lambda xs: "{" + ", ".join(xs) + "}"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}..{t[1]}"),
        st.tuples(inner, st.sampled_from(["rank", "suit", "x"])).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, inner, inner).map(lambda t: f"match {t[0]} {{ 1 | 2 => {t[1]}  3..5 => {t[2]}  else => {t[1]} }}"),
    )


expressions = st.recursive(
    st.sampled_from(NAMES) | st.sampled_from([*NUMBERS[:-2], "1", "2"]) | st.sampled_from(STRINGS) | st.sampled_from(["true", "false"]),
    _extend, max_leaves=8)


# typed expressions, so that many drawn statements check and reach the back ends
_INTS = ["x", "bonus", "1", "2", "3", "0", str(MAX_INT), "65536", "size(deck)", "size(hand[player(1)])", "seat(player(1))",
         "num_players", "f(player(1))", "best[player(1)]", "sum(c.rank for c in deck)", "count(c for c in pile)"]
ints = st.recursive(st.sampled_from(_INTS), lambda i: st.one_of(
    st.tuples(i, st.sampled_from(["+", "-", "*", "/", "%"]), i).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    i.map(lambda e: f"-({e})"), i.map(lambda e: f"abs({e})"), st.tuples(i, i).map(lambda t: f"max({t[0]}, {t[1]})"),
    st.tuples(st.sampled_from(["sum", "max", "min"]), i).map(lambda t: f"{t[0]}({t[1]} + c.rank for c in deck)"),
    st.tuples(st.sampled_from(["flag", "true", "g(x)", "x > 3"]), i, i).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
), max_leaves=6)
bools = st.one_of(st.sampled_from(["flag", "true", "false", "g(x)"]),
                  st.tuples(ints, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), ints).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
                  ints.map(lambda i: f"{i} in 1..5"), ints.map(lambda i: f"any(c.rank == {i} for c in deck)"))
sets = st.sampled_from(["players", "deck", "hand[player(1)]", "pile", "{player(1)}", "{p for p in players if f(p) > 1}", "1..3",
                        "{1, 2, 65536}", "Suit", "Card"])


def _statements(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    e, v = expressions, st.sampled_from(_LOCALS)
    typed = st.one_of(
        ints.map(lambda x: f"set x = {x}"), bools.map(lambda x: f"set flag = {x}"),
        st.tuples(ints, inner).map(lambda t: f"repeat {t[0]} times {{ {t[1]} }}"),
        st.tuples(bools, inner).map(lambda t: f"if {t[0]} {{ {t[1]} }}"),
        st.tuples(bools, inner).map(lambda t: f"while {t[0]} {{ set x = x + 1 {t[1]} }}"),
        st.tuples(sets, inner).map(lambda t: f"for each v in {t[0]} {{ {t[1]} }}"),
        ints.map(lambda i: f'say "x is {{x}}, {{{i}}} \\{{braces\\}}"'),
        ints.map(lambda i: f"draw {i} from deck to pile"),
        sets.map(lambda s: f"choose k from {s} by player(1)"),
        st.tuples(ints, ints).map(lambda t: f"set best[player(1)] = {t[0]} % 10"),
    )
    block = st.lists(inner, max_size=2).map(lambda xs: "{ " + " ".join(xs) + " }")
    return typed | typed | st.one_of(
        e.map(lambda x: f"set x = {x}"), st.tuples(e, e).map(lambda t: f"set best[{t[0]}] = {t[1]}"),
        st.tuples(v, e).map(lambda t: f"let {t[0]} = {t[1]}"), e.map(lambda x: f"set word = {x}"),
        st.tuples(e, block, block).map(lambda t: f"if {t[0]} {t[1]} else {t[2]}"),
        st.tuples(v, e, block).map(lambda t: f"for each {t[0]} in {t[1]} {t[2]}"),
        st.tuples(e, block).map(lambda t: f"repeat {t[0]} times {t[1]}"),
        st.tuples(e, block).map(lambda t: f"repeat until {t[0]} {t[1]}"),
        st.tuples(e, block).map(lambda t: f"while {t[0]} {t[1]}"),
        st.tuples(st.sampled_from(STRINGS), e).map(lambda t: f'say "{t[0][1:-1]} {{{t[1]}}}"'),
        st.tuples(e, e).map(lambda t: f"draw {t[0]} from deck to hand[{t[1]}]"),
        st.tuples(e, v).map(lambda t: f"draw from deck to pile as {t[1]}"),
        st.tuples(e, e).map(lambda t: f"move {t[0]} to hand[{t[1]}]"),
        st.tuples(v, e, e).map(lambda t: f"choose {t[0]} from {t[1]} by {t[2]} label \"pick\""),
        st.tuples(e, v, e).map(lambda t: f"choose each q in {t[0]}: {t[1]} from {t[2]} secret"),
        e.map(lambda x: f"end winners {x}"), st.just("shuffle deck"), e.map(lambda x: f"turn({x})"),
    )


statements = st.recursive(st.just("shuffle deck"), _statements, max_leaves=4)


@st.composite
def fragments(draw: st.DrawFn) -> bytes:
    """The skeleton with generated declarations (from the grammar) and statements in it."""
    items = draw(st.lists(grammar("item"), max_size=1)) if draw(st.integers(0, 2)) == 0 else []
    stmts = draw(st.lists(statements, min_size=1, max_size=3))
    text = SKELETON.replace("@ITEMS@", "\n\n".join(items)).replace("@STATEMENTS@", "\n".join("  " + s for s in stmts))
    return text.encode("utf-8", errors="surrogatepass")


# ---- mutations ---------------------------------------------------------------------------------

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|->|=>|[=!<>]=|\S', re.S)
EXTREMES = [b"0", b"-1", str(MAX_INT).encode(), str(MAX_INT + 1).encode(), b"4294967296", b"9" * 4400, b"99999999999999999999"]
INSERTS = ["\x00", "\ufeff", "\u202e", "\x1b[2J", "é", "日本", "\U0001f600", "\r", "\r\n", "\t", "{", "}", "(", ")", "\"", "\\", "#",
           "@", ";", "\u00a0", "\u2028"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(data: bytes, op: str, rnd: random.Random) -> bytes:
    """One mutation of the bytes of a rules file."""
    lines = _lines(data)
    n = len(lines)
    if op == "delete line" and n > 1:
        i = rnd.randrange(n)
        k = rnd.choice([1, 1, 1, 2, 5])
        return b"\n".join(lines[:i] + lines[i + k:])
    if op == "duplicate line":
        i = rnd.randrange(n)
        return b"\n".join(lines[: i + 1] + [lines[i]] * rnd.choice([1, 1, 2, 50]) + lines[i + 1:])
    if op == "swap lines" and n > 1:
        i, j = rnd.randrange(n), rnd.randrange(n)
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    tokens = list(_TOKEN.finditer(data))
    if op in ("delete token", "duplicate token", "swap tokens", "number", "name") and tokens:
        t = rnd.choice(tokens)
        a, b = t.span()
        if op == "delete token":
            return data[:a] + data[b:]
        if op == "duplicate token":
            return data[:b] + b" " + t.group() + data[b:]
        if op == "swap tokens":
            u = rnd.choice(tokens)
            (x, y), (c, d) = sorted([t.span(), u.span()])
            if y > c:
                return data
            return data[:x] + data[c:d] + data[y:c] + data[x:y] + data[d:]
        if op == "number":
            numbers = [m for m in tokens if m.group().isdigit()] or [t]
            m = rnd.choice(numbers)
            return data[: m.start()] + rnd.choice(EXTREMES) + data[m.end():]
        if op == "name":
            names = [m for m in tokens if re.fullmatch(rb"[A-Za-z_]\w*", m.group())]
            if names:
                m, other = rnd.choice(names), rnd.choice(names)
                return data[: m.start()] + other.group() + data[m.end():]
    if op == "insert":
        i = rnd.randrange(len(data) + 1)
        return data[:i] + rnd.choice(INSERTS).encode("utf-8") * rnd.choice([1, 1, 3, 100]) + data[i:]
    if op == "invalid utf-8":
        i = rnd.randrange(len(data) + 1)
        return data[:i] + rnd.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]) + data[i:]
    if op == "bom":
        return b"\xef\xbb\xbf" + data
    if op == "crlf":
        return data.replace(b"\n", b"\r\n")
    if op == "cr":
        return data.replace(b"\n", b"\r")
    if op == "long line":
        i = rnd.randrange(n)
        lines[i] = lines[i] + b" " + b"x" * rnd.choice([200, 5000, 100_000])
        return b"\n".join(lines)
    if op == "deep nesting" and tokens:
        numbers = [m for m in tokens if m.group().isdigit()]
        if numbers:
            m = rnd.choice(numbers)
            depth = rnd.choice([10, 63, 64, 65, 300])
            return data[: m.start()] + b"(" * depth + m.group() + b")" * depth + data[m.end():]
        return data
    if op == "deep blocks":
        depth = rnd.choice([20, 65, 200])
        inner = b"if true { " * depth + b"say \"deep\"" + b" }" * depth
        return data.replace(b"flow {", b"flow {\n  " + inner + b"\n", 1)
    if op == "truncate":
        return data[: rnd.randrange(len(data) + 1)]
    return data


OPS = ["delete line", "duplicate line", "swap lines", "delete token", "duplicate token", "swap tokens", "number", "name",
       "insert", "invalid utf-8", "bom", "crlf", "cr", "long line", "deep nesting", "deep blocks", "truncate"]


@st.composite
def mutants(draw: st.DrawFn) -> tuple[str, bytes]:
    committed = sorted(n for n in seeds() if n.startswith("rulesets/"))
    others = st.sampled_from(sorted(seeds()))
    # the committed rulesets one time in five: each is a whole game, slower to go through
    name = draw(st.one_of(st.sampled_from(committed), others, others, others, others))
    data = seeds()[name]
    ops = draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=4))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    for op in ops:
        data = mutate(data, op, rnd)
    return f"{name}: {', '.join(ops)}", data[: 1024 * 1024 + 10]


# ---- the pipeline --------------------------------------------------------------------------------


@dataclass
class Run:
    """What one input gave: the commands run and their exit codes."""

    stages: list[tuple[str, int]]


def command(stage: str, args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with time_bound(BOUNDS[stage], f"rulecheck {' '.join(a[:60] for a in args)}"):
        code = main(args, out, err)
    o, e = out.getvalue(), err.getvalue()
    for name, pattern in KNOWN.items():
        if code == 3 and pattern.search(e):
            raise Known(name)
    if code not in (0, 1, 2) or "internal error" in e or "Traceback" in o + e:
        raise Bad(f"rulecheck {' '.join(args)}: exit code {code}\n{e[-3000:]}")
    if UNSAFE.search(e) or UNSAFE.search(o):
        raise Bad(f"rulecheck {' '.join(args)}: a control character reaches the terminal: {UNSAFE.search(e + o)!r}")
    return code, o, e


def exercise(data: bytes, folder: Path, verify_checks: list[str], seed: int = 0, heavy: bool = True) -> Run:
    """check (and fmt --check) → play → gen + import → simulate → bounded verify, each as allowed; the input file
    unchanged after them all. With RULECHECK_FUZZ_LOG set, one line per input is appended to
    that file (the stages reached, the seconds taken), to follow a long run, and an input that
    fails is kept beside it (LOG.failures/N.rules, with N.txt: the checks, the seed and what went
    wrong) before hypothesis shrinks it, which for a hang can take longer than the run."""
    start = time.monotonic()
    run = Run([])
    log = os.environ.get("RULECHECK_FUZZ_LOG")
    try:
        _exercise(data, folder, verify_checks, seed, heavy, run)
    except Known as known:
        run.stages.append((f"known failure ({known})", 3))
    except BaseException as failure:
        if log:
            keep_failure(Path(log), data, verify_checks, seed, heavy, failure)
        raise
    finally:
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{time.monotonic() - start:.2f}\t{len(data)}\t{' '.join(f'{s}:{c}' for s, c in run.stages)}\n")
    return run


def keep_failure(log: Path, data: bytes, verify_checks: list[str], seed: int, heavy: bool, failure: BaseException) -> None:
    """The failing input and what went wrong, numbered in the order met, beside the log."""
    folder = log.with_name(log.name + ".failures")
    folder.mkdir(exist_ok=True)
    n = len(list(folder.glob("*.rules"))) + 1
    (folder / f"{n}.rules").write_bytes(data)
    (folder / f"{n}.txt").write_text(f"verify checks: {verify_checks}\nseed: {seed}\nheavy: {heavy}\n"
                                     f"{type(failure).__name__}: {str(failure)[-4000:]}\n", encoding="utf-8")


def _exercise(data: bytes, folder: Path, verify_checks: list[str], seed: int, heavy: bool, run: Run) -> None:
    path = folder / "fuzz.rules"
    path.write_bytes(data)
    try:
        code, _, _ = command("check", ["check", str(path)])
        run.stages.append(("check", code))
        with time_bound(BOUNDS["lsp"], "the language server"):
            editor(data.decode("utf-8", errors="replace"), seed)
        run.stages.append(("lsp", 0))
        fmt, _, _ = command("fmt", ["fmt", "--check", str(path)])  # says, never writes
        if code == 2:
            return
        if fmt == 2:
            raise Bad("check accepts the ruleset and fmt refuses it")
        loaded = load_bytes(data, str(path))
        rules = loaded.rules
        assert rules is not None, "check passed but the ruleset does not load"
        lo = rules.game.min_players
        code, _, _ = command("play", ["play", str(path), "--seed", str(seed), "--max-steps", "300"])
        run.stages.append(("play", code))
        engine = folder / "engine.py"
        code, _, _ = command("gen", ["gen", str(path), "-o", str(engine)])
        run.stages.append(("gen", code))
        if code == 0:
            with time_bound(BOUNDS["engine"], "the generated engine"):
                play_engine(engine, ir.bind(rules, {}), lo, seed)
        if heavy:
            code, _, _ = command("simulate", ["simulate", str(path), "--games", "2", "--jobs", "1", "--max-steps", "200",
                                              "--players", str(lo), "--seed", str(seed)])
            run.stages.append(("simulate", code))
        if verify_checks:
            args = ["verify", str(path), "--jobs", "1", "--timeout", "0.3", "--players", str(lo), "--random-games", "2",
                    "--no-sensitivity", "--loop-bound", "1"]
            for c in verify_checks:
                args += ["--check", c]
            code, _, _ = command("verify", args)
            run.stages.append(("verify", code))
    finally:
        if path.read_bytes() != data:
            raise Bad("the input file changed")


def editor(text: str, seed: int, positions: int = 24) -> None:
    """The language server on the text, its features called in process as pygls calls them for
    an editor: the document opened (diagnostics), its symbols, hover and go to definition at
    ``positions`` places (past the end of a line and of the text too), formatting, then an edit
    that cuts the text in half. Every answer must convert to the protocol's JSON with no position
    below zero; an exception is a failure (the server would answer the editor with an error)."""
    from lsprotocol import converters
    from lsprotocol import types as lsp
    from pygls.workspace import Workspace

    from rulecheck.editor.lsp import build

    server = build()
    server.protocol._workspace = Workspace(None)
    published: list[Any] = []
    server.text_document_publish_diagnostics = published.append  # type: ignore[method-assign]
    features = server.protocol.fm.features
    uri = "file:///fuzz/fuzz.rules"
    doc = lsp.TextDocumentIdentifier(uri=uri)
    convert = converters.get_converter()
    rng = random.Random(seed)

    def answer(result: Any) -> None:
        def walk(x: Any) -> None:
            if isinstance(x, dict):
                for k, v in x.items():
                    if k in ("line", "character") and not (isinstance(v, int) and v >= 0):
                        raise Bad(f"the language server answers a position with {k} {v!r}")
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(convert.unstructure(result))

    item = lsp.TextDocumentItem(uri=uri, language_id="rulecheck-rules", version=1, text=text)
    server.workspace.put_text_document(item)
    features[lsp.TEXT_DOCUMENT_DID_OPEN](lsp.DidOpenTextDocumentParams(text_document=item))
    answer(published)
    answer(features[lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL](lsp.DocumentSymbolParams(text_document=doc)))
    lines = text.split("\n")
    for _ in range(positions):
        line = rng.randrange(len(lines) + 2)
        width = len(lines[line]) if line < len(lines) else 0
        at = lsp.Position(line=line, character=rng.randrange(width + 3))
        answer(features[lsp.TEXT_DOCUMENT_HOVER](lsp.HoverParams(text_document=doc, position=at)))
        answer(features[lsp.TEXT_DOCUMENT_DEFINITION](lsp.DefinitionParams(text_document=doc, position=at)))
    options = lsp.FormattingOptions(tab_size=2, insert_spaces=True)
    answer(features[lsp.TEXT_DOCUMENT_FORMATTING](lsp.DocumentFormattingParams(text_document=doc, options=options)))
    half = text[: len(text) // 2]
    server.workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="rulecheck-rules", version=2, text=half))
    change = lsp.DidChangeTextDocumentParams(text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                                             content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=half)])
    features[lsp.TEXT_DOCUMENT_DID_CHANGE](change)
    answer(published)


def play_engine(engine: Path, program: ir.Program, players: int, seed: int, max_steps: int = 300) -> None:
    """Import the generated engine and play one random game on it and on the interpreter side by
    side: the same legal actions, the same end or the same rule error."""
    from rulecheck.codegen.engine import load_module
    from rulecheck.interpreter.semantics import RuleError
    from rulecheck.interpreter.state import Game

    mod = load_module(engine.read_text(encoding="utf-8"), f"fuzz_engine_{seed}")
    rng = random.Random(seed)

    def start() -> tuple[Any, Any]:
        a: Any = None
        b: Any = None
        try:
            a = Game(program, players).new_initial_state()
        except RuleError as err:
            a = (err.kind, err.message, err.span.line, err.span.col)
        try:
            b = mod.load_game({"players": players}).new_initial_state()
        except mod.RuleError as err:
            b = (err.kind, err.message, err.line, err.column)
        return a, b

    i, e = start()
    if isinstance(i, tuple) or isinstance(e, tuple):
        if i != e:
            raise Bad(f"the engine and the interpreter start differently: {i!r} / {e!r}")
        return
    for _ in range(max_steps):
        if i.is_terminal() or e.is_terminal():
            if i.is_terminal() != e.is_terminal() or i.returns() != e.returns():
                raise Bad(f"the engine and the interpreter end differently: {i.returns()} / {e.returns()}")
            return
        n = players
        if i.is_simultaneous_node():
            joint = [rng.choice(i.legal_actions(q)) for q in range(n)]
            if [i.legal_actions(q) for q in range(n)] != [e.legal_actions(q) for q in range(n)]:
                raise Bad("the engine and the interpreter offer different actions")
            moves: list[Any] = [("apply_actions", joint)]
        else:
            if i.legal_actions() != e.legal_actions() or i.current_player() != e.current_player():
                raise Bad(f"the engine and the interpreter offer different actions: {i.legal_actions()} / {e.legal_actions()}")
            moves = [("apply_action", rng.choice(i.legal_actions()))]
        name, arg = moves[0]
        got: list[Any] = []
        for state, error in ((i, RuleError), (e, mod.RuleError)):
            try:
                getattr(state, name)(arg)
                got.append(None)
            except error as err:  # type: ignore[misc]
                line, col = (err.span.line, err.span.col) if isinstance(err, RuleError) else (err.line, err.column)
                got.append((err.kind, err.message, line, col))
        if got[0] != got[1]:
            raise Bad(f"the engine and the interpreter stop differently: {got[0]!r} / {got[1]!r}")
        if got[0] is not None:
            return
