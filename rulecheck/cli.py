"""The rulecheck command line.

Exit codes (docs/cli.md): 0 success; 1 the command ran and found problems (verify findings at or
above --fail-on, a played game stopped by a gap in the rules, check --strict warnings);
2 bad input or usage (unreadable or invalid ruleset, unknown reading); 3 an internal error, which
is a bug in rulecheck (reported without a traceback unless RULECHECK_DEBUG=1).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NoReturn, TextIO

from rulecheck import __version__, terminal
from rulecheck.dsl import ir
from rulecheck.dsl.diagnostics import Severity, render_all
from rulecheck.dsl.loader import Loaded, load_path
from rulecheck.dsl.safetext import inert, json_inert
from rulecheck.dsl.source import NOWHERE
from rulecheck.framestack import on_reserved_stack

if TYPE_CHECKING:
    from rulecheck.verifier.findings import Finding
    from rulecheck.verifier.verify import Options

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3

DEFAULT_TIMEOUT = 10.0  # seconds per solver call of verify (and of report when it verifies)


#: The kinds of finding `verify --check` selects (verifier/findings.py KINDS without the
#: edition comparison, which verify does not run).
CHECK_KINDS = ("ambiguity", "incompleteness", "conflict", "non-termination", "exhaustion", "dead-rule", "sensitivity",
               "translation", "invariant", "deduction")


class UsageError(Exception):
    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class BadInput(Exception):
    """Input already explained by diagnostics: print them, exit 2."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


#: The numbers an option takes: (least, most, whether the least is excluded, an example). Every
#: option's number is finite and within these bounds, or the command stops with exit code 2.
NUMBER_OPTIONS: dict[str, tuple[float, float, bool, str]] = {
    "timeout": (0, 86_400, True, "10"),
    "level": (0, 0.999999, True, "0.95"),
    "max_steps": (1, 10_000_000, False, "10000"),
    "loop_bound": (1, 100, False, "3"),
    "games": (1, 10_000_000, False, "1000"),
    "jobs": (1, 256, False, "2"),
    "workers": (1, 256, False, "2"),
    "random_games": (0, 100_000, False, "200"),
}


def check_numbers(args: argparse.Namespace) -> None:
    """Refuse a number outside its option's bounds (NUMBER_OPTIONS): nan, inf, a negative count."""
    for name, (lo, hi, open_lo, example) in NUMBER_OPTIONS.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if not (math.isfinite(value) and (lo < value if open_lo else lo <= value) and value <= hi):
            option = "--" + name.replace("_", "-")
            low = f"more than {lo:g}" if open_lo else f"at least {lo:,}"
            if name == "level":
                raise UsageError(f"--level is a confidence level between 0 and 1, at most {hi:g}, not {value}", f"e.g. {option} {example}")
            raise UsageError(f"{option} must be {low} and at most {hi:,}, not {value}", f"e.g. {option} {example}")


def _err(out: TextIO, message: str, hint: str | None = None, level: str = "error") -> None:
    terminal.write(out, inert(f"rulecheck: {level}: {message}\n" + (f"  = help: {hint}\n" if hint else "")))


# ---- loading with diagnostics -------------------------------------------------------------------


def load_or_report(path: str, err: TextIO, rulebook: str | None = None, quiet_warnings: bool = False) -> Loaded:
    loaded = load_path(path)
    diags = loaded.diagnostics
    if loaded.rules is not None and rulebook is not None:
        from rulecheck.dsl.quotes import check_quotes

        diags.extend(check_quotes(loaded.rules, _read_rulebook(rulebook)))
    items = diags.sorted()
    if quiet_warnings:
        items = [d for d in items if d.is_error]
    if items:
        terminal.write(err, render_all(items, loaded.source))
    return loaded


def _read_rulebook(path: str) -> str:
    from rulecheck.dsl.files import MAX_RULEBOOK_BYTES
    from rulecheck.reports.make import InputError, read_input

    try:
        return read_input(path, "rulebook", MAX_RULEBOOK_BYTES)
    except InputError as exc:
        raise UsageError(exc.message, exc.hint) from None


def parse_readings(items: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--reading takes NAME=READING, not '{item}'", "e.g. --reading inversion_presentation=printed")
        name, reading = item.split("=", 1)
        out[name.strip()] = reading.strip()
    return out


def parse_params(items: Sequence[str] | None, rules: ir.Ruleset) -> dict[str, ir.Value]:
    from rulecheck.dsl.types import TBool, TEnum, TInt

    out: dict[str, ir.Value] = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--param takes NAME=VALUE, not '{item}'")
        name, raw = (x.strip() for x in item.split("=", 1))
        p = rules.params.get(name)
        kind, _, attr = name.partition(".")
        column = rules.kinds[kind].provenance.get(attr) if kind in rules.kinds else None
        if p is None and column is not None and column.kind == "unspecified":
            # an unspecified table column: one value for every component of the kind
            t = rules.kinds[kind].attrs[attr]
            if not isinstance(t, TInt):
                raise UsageError(f"'{name}' is not a number column; set it from Python with load_game(params)")
            v = _param_int(raw, f"'{name}'")
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                raise UsageError(f"'{name}' must be within {t.show()}")
            out[name] = v
            continue
        if p is None:
            from rulecheck.dsl.diagnostics import did_you_mean

            columns = [f"{k.name}.{a}" for k in rules.kinds.values() for a, pr in k.provenance.items() if pr.kind == "unspecified"]
            names = [*rules.params, *columns]
            raise UsageError(f"no parameter named '{name}'", did_you_mean(name, names) or f"parameters: {', '.join(names) or 'none'}")
        t = p.type
        if isinstance(t, TBool):
            if raw not in ("true", "false"):
                raise UsageError(f"parameter '{name}' is true or false, not '{raw}'")
            out[name] = raw == "true"
        elif isinstance(t, TInt):
            v = _param_int(raw, f"parameter '{name}'")
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                raise UsageError(f"parameter '{name}' must be within {t.show()}")
            out[name] = v
        elif isinstance(t, TEnum):
            values = rules.enums[t.name].values
            if raw not in values:
                raise UsageError(f"parameter '{name}' is one of {', '.join(values)}, not '{raw}'")
            out[name] = values.index(raw)
    return out


def _param_int(raw: str, what: str) -> int:
    """A number given with --param: decimal, within the integer limit (dsl/types.py)."""
    from rulecheck.dsl.types import MAX_INT

    negative = raw.startswith("-")
    digits = raw[1:] if raw[:1] in ("-", "+") else raw
    if not (digits.isascii() and digits.isdecimal()):
        raise UsageError(f"{what} is a number, not '{raw[:40]}'")
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(MAX_INT)) or int(digits) > MAX_INT:
        raise UsageError(f"{what} must be within the integer limit ±{MAX_INT:,}", f"numbers of a game lie within -{MAX_INT:,}..{MAX_INT:,}")
    return -int(digits) if negative else int(digits)


def bind_program(rules: ir.Ruleset, readings: dict[str, str]) -> ir.Program:
    """The program under the chosen readings; a reading that names no ambiguity is E0503."""
    try:
        return ir.bind(rules, readings)
    except ir.ReadingError as exc:
        from rulecheck.dsl.diagnostics import Diagnostic

        d = Diagnostic(Severity.ERROR, "E0503", exc.message, hint=exc.hint, file=rules.name)
        raise BadInput(render_all([d], None)) from None


# ---- output files -------------------------------------------------------------------------------


def refuse_overwriting(output: str | None, inputs: list[tuple[str, str | None]]) -> None:
    """Exit 2 when an output path names one of the command's input files."""
    from rulecheck.dsl.files import FileProblem, refuse_overwriting_inputs

    if output is None or output == "-":
        return
    try:
        refuse_overwriting_inputs(output, inputs)
    except FileProblem as exc:
        raise UsageError(exc.message, exc.hint) from None


def write_file(path: str, text: str) -> None:
    """Write an output file whole (rulecheck/outputs.py), or exit 2 saying why it cannot be."""
    from rulecheck.outputs import write_output

    try:
        write_output(path, text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


# ---- commands ---------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = load_or_report(args.file, err, args.rulebook)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    assert loaded.rules is not None
    from rulecheck.dsl.summary import summarize

    out.write(inert(summarize(loaded.rules)))
    warnings = [d for d in loaded.diagnostics.items if d.severity is Severity.WARNING]
    if args.strict and warnings:
        return EXIT_FINDINGS
    return EXIT_OK


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = load_or_report(args.file, err, quiet_warnings=True)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    rules = loaded.rules
    assert rules is not None
    program = bind_program(rules, parse_readings(args.reading))
    params = parse_params(args.param, rules)
    g = rules.game
    players = args.players if args.players is not None else g.min_players
    if not g.min_players <= players <= g.max_players:
        raise UsageError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
    from rulecheck.interpreter.play import play_random

    result = play_random(program, players, args.seed, params, max_steps=args.max_steps)
    out.write(inert(result.text))
    return EXIT_OK if result.finished else EXIT_FINDINGS


def cmd_gen(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    refuse_overwriting(args.output, [("ruleset", args.file)])
    loaded = load_or_report(args.file, err, quiet_warnings=True)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    rules = loaded.rules
    assert rules is not None
    program = bind_program(rules, parse_readings(args.reading))
    g = rules.game
    players = args.players_default if args.players_default is not None else g.min_players
    if not g.min_players <= players <= g.max_players:
        raise UsageError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
    from rulecheck.codegen.engine import GenerationError, adapter_source, generate

    try:
        text = generate(program, players_default=players)
        if args.adapter:
            text += adapter_source(args.adapter)
    except GenerationError as exc:
        _err(err, f"cannot generate an engine for {args.file}: {exc}", "this is a limit of the code generator, not an error in the ruleset")
        return EXIT_FINDINGS
    native = _compile_native(args, text) if args.native else None
    if args.output is None or args.output == "-":
        out.write(text)
        return EXIT_OK
    write_file(args.output, text)
    changed = sum(1 for a, r in program.readings.items() if r != rules.ambiguities[a].default.name)
    with_adapter = f", with the {args.adapter} adapter" if args.adapter else ""
    out.write(inert(f"wrote {args.output}: an engine for {g.title}{with_adapter}, {len(program.readings)} readings fixed ({changed} not the default)\n"))
    if native is not None:
        out.write(inert(f"wrote {native}: the engine compiled with mypyc (import {Path(args.output).stem} loads it instead of the .py)\n"))
    else:
        from rulecheck.codegen.native import extension_modules

        for stale in extension_modules(Path(args.output).parent, Path(args.output).stem):
            _err(err, f"{stale} is a compiled engine written before; import {Path(args.output).stem} loads it, not {args.output}",
                 "delete it, or run gen with --native again to compile this one", level="warning")
    return EXIT_OK


def _compile_native(args: argparse.Namespace, text: str) -> Path:
    """gen --native: the engine compiled beside the output (before anything is written)."""
    from rulecheck.codegen.native import NativeError, compile_native

    if args.output is None or args.output == "-":
        raise UsageError("--native writes a compiled module beside the engine's file: give it one", "e.g. -o my_engine.py")
    py = Path(args.output)
    if py.suffix != ".py" or not py.stem.isidentifier():
        raise UsageError(f"--native: '{py.name}' is not the file of an importable module", "name it like my_engine.py")
    if args.adapter:
        raise UsageError("--native compiles the engine alone, without an adapter",
                         "compile it, then give the module to the adapter: openspiel.load(module) or pettingzoo.env(module)")
    try:
        return compile_native(text, py.stem, py.parent)
    except NativeError as exc:
        raise UsageError(f"cannot compile the engine: {exc}", exc.hint) from None


def _verify_limits(args: argparse.Namespace, rules: ir.Ruleset) -> tuple[list[int] | None, float]:
    """--players (None: every count the game allows) and --timeout of verify and report, checked."""
    g = rules.game
    players = sorted(set(args.players)) if args.players else None
    bad = [p for p in players or [] if not g.min_players <= p <= g.max_players]
    if bad:
        raise UsageError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {bad[0]}")
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds", "e.g. --timeout 10")
    return players, timeout


def _no_engine(err: TextIO, file: str, exc: Exception) -> int:
    """verify replays every witness in a generated engine: a ruleset the code generator cannot
    spell (loops nested deeper than Python allows) cannot be verified either."""
    _err(err, f"cannot generate an engine for {file}: {exc}",
         "verify replays every witness in a generated engine; this is a limit of the code generator, not an error in the ruleset")
    return EXIT_FINDINGS


@contextlib.contextmanager
def beyond_the_verifier(loaded: Loaded | None) -> Iterator[None]:
    """A construct of the ruleset the verifier cannot encode (verifier/symbolic.py, Unsupported)
    is a diagnostic at its span (E0701): the ruleset is fine, but verify cannot follow it."""
    from rulecheck.dsl.diagnostics import Diagnostic
    from rulecheck.verifier.symvalues import Unsupported

    try:
        yield
    except Unsupported as exc:
        source = loaded.source if loaded is not None else None
        d = Diagnostic(Severity.ERROR, "E0701", f"verify cannot reason about {exc.what}", exc.span or NOWHERE,
                       hint=exc.hint or "see the limits in docs/verify.md")
        d.notes.append("check, play, gen and simulate work with this ruleset; only verify cannot follow it")
        raise BadInput(render_all([d], source)) from None


def param_labels(items: Sequence[str] | None) -> dict[str, str]:
    """--param NAME=VALUE as the user wrote them, for the output."""
    return {k.strip(): v.strip() for k, _, v in (i.partition("=") for i in items or [])}


def verify_options(args: argparse.Namespace, rules: ir.Ruleset) -> Options:
    """The options of ``rulecheck verify``'s arguments, checked (benchmarks/verify.py reads the
    committed reports' arguments through it too)."""
    from rulecheck.verifier.verify import Options

    readings = parse_readings(args.reading)
    bind_program(rules, readings)  # reports an unknown reading as E0503
    players, timeout = _verify_limits(args, rules)
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}", "e.g. --jobs 2")
    if args.random_games < 0:
        raise UsageError(f"--random-games must be at least 0, not {args.random_games}", "0 turns random play off")
    return Options(timeout=timeout, readings=readings, players=players, loop_bound=args.loop_bound,
                   sensitivity=not args.no_sensitivity, jobs=jobs, checks=frozenset(args.check) if args.check else None,
                   params=parse_params(args.param, rules), param_labels=param_labels(args.param),
                   random_games=args.random_games)


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = load_or_report(args.file, err, quiet_warnings=True)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    rules = loaded.rules
    assert rules is not None
    options = verify_options(args, rules)
    cluster = _cluster_args(args)
    from rulecheck.codegen.engine import GenerationError
    from rulecheck.verifier.output import exit_code, render_text, to_json, to_sarif, wall_stop_warning
    from rulecheck.verifier.verify import ReplayMismatch, verify

    try:
        with contextlib.ExitStack() as stack:
            remote = None
            if cluster is not None:
                from rulecheck import cluster as dask_cluster

                assert loaded.source is not None
                try:
                    client = stack.enter_context(dask_cluster.connect(*cluster))
                except dask_cluster.ClusterError as exc:
                    raise UsageError(exc.message, exc.hint) from None
                remote = dask_cluster.VerifyRemote(client, loaded.source.name, loaded.source.text, options)
            stack.enter_context(beyond_the_verifier(loaded))
            progress = stack.enter_context(_VerifyProgress(err, f"verify {rules.name}"))
            outcome = verify(rules, options, progress, remote)
    except ReplayMismatch as exc:
        _err(err, f"a witness failed its replay: {exc}", "this is a bug in rulecheck: the solver and the engines disagree")
        return EXIT_INTERNAL
    except GenerationError as exc:
        return _no_engine(err, args.file, exc)
    if outcome.wall_stops:
        err.write("rulecheck: " + wall_stop_warning(outcome.wall_stops) + "\n")
    if args.format == "json":
        out.write(json_inert(to_json(outcome)))
    elif args.format == "sarif":
        out.write(json_inert(to_sarif(outcome)))
    else:
        terminal.write(out, inert(render_text(outcome, loaded.source, verbose=args.verbose)))
    return exit_code(outcome, args.fail_on)


def cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    loaded = load_or_report(args.file, err, quiet_warnings=True)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    rules = loaded.rules
    assert rules is not None
    readings = parse_readings(args.reading)
    bind_program(rules, readings)  # reports an unknown reading as E0503
    params = parse_params(args.param, rules)
    g = rules.game
    players = sorted(set(args.players)) if args.players else list(range(g.min_players, g.max_players + 1))
    for n in players:
        if not g.min_players <= n <= g.max_players:
            raise UsageError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {n}", f"e.g. --players {g.max_players}")
    cluster = _cluster_args(args)
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    for name, value, example in (("--games", args.games, 1000), ("--jobs", jobs, 2), ("--max-steps", args.max_steps, 10_000)):
        if value < 1:
            raise UsageError(f"{name} must be at least 1, not {value}", f"e.g. {name} {example}")
    if not 0 < args.level < 1:
        raise UsageError(f"--level is a confidence level between 0 and 1, not {args.level:g}", "e.g. --level 0.95")
    from rulecheck.codegen.engine import GenerationError
    from rulecheck.reports import simulate as sim

    note = "" if args.players else ": every count the game allows; --players to choose"
    labels = param_labels(args.param)
    try:
        with contextlib.ExitStack() as stack:
            runner = None
            if cluster is not None:
                from rulecheck import cluster as dask_cluster

                try:
                    runner = dask_cluster.runner(stack.enter_context(dask_cluster.connect(*cluster)))
                except dask_cluster.ClusterError as exc:
                    raise UsageError(exc.message, exc.hint) from None
            bar = stack.enter_context(terminal.Reporter(err, f"simulate {rules.name}", args.games * len(players), "games"))
            result = sim.simulate(rules, games=args.games, seed=args.seed, players=players, jobs=jobs, fixed=readings, params=params,
                                  param_labels=labels, level=args.level, max_steps=args.max_steps, players_note=note,
                                  progress=bar.update, runner=runner)
    except GenerationError as exc:
        _err(err, f"cannot generate an engine for {args.file}: {exc}", "this is a limit of the code generator, not an error in the ruleset")
        return EXIT_FINDINGS
    out.write(json_inert(sim.to_json(result)) if args.format == "json" else inert(sim.render_text(result)))
    return EXIT_OK


def _cluster_args(args: argparse.Namespace) -> tuple[str | None, int | None] | None:
    """(--scheduler, --workers) when the work goes to a Dask cluster, else None; checked."""
    if args.scheduler is None and args.workers is None:
        return None
    if args.scheduler is not None and args.workers is not None:
        raise UsageError("--scheduler and --workers exclude each other",
                         "--scheduler for a running cluster, --workers N to start a local one")
    if args.jobs is not None:
        raise UsageError("--jobs counts local worker processes; on a cluster the workers are the cluster's", "drop --jobs")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}", "e.g. --workers 2")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise UsageError(f"--scheduler takes a Dask scheduler address, not '{args.scheduler}'", "e.g. --scheduler tcp://127.0.0.1:8786")
    return args.scheduler, args.workers


class _VerifyProgress:
    """verify's progress, told as its checks end: the verifier reports "i/n task" after each."""

    STEP = re.compile(r"(\d+)/(\d+)\s*(.*)")

    def __init__(self, err: TextIO, action: str) -> None:
        self.err, self.action = err, action
        self.reporter: terminal.Reporter | None = None

    def __enter__(self) -> Callable[[str], None]:
        # the number of checks is known when the first ends; until then "started"
        self.reporter = terminal.Reporter(self.err, self.action, None, "checks")
        return self

    def __call__(self, step: str) -> None:
        m = self.STEP.fullmatch(step)
        if m is not None and self.reporter is not None:
            self.reporter.update(int(m.group(1)), m.group(3), total=int(m.group(2)))

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.reporter is not None:
            self.reporter.close(finished=kind is None)


def cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rulecheck.reports.make import InputError, diff_file, findings_file, report_format, report_text, simulation_file

    fmt = report_format(args.output)
    if fmt is None:
        raise UsageError(f"cannot tell the report format from '{args.output}'", "name the output NAME.html, NAME.md or NAME.csv (the questions only)")
    if args.questions:
        if fmt == "html":
            raise UsageError("--questions writes the questions for the publisher alone, as Markdown or CSV", "name the output NAME.md or NAME.csv")
        fmt = "csv" if fmt == "csv" else "questions-md"
    folder = Path(args.output).parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {args.output}: there is no directory {folder}", f"create it first (mkdir -p {folder})")
    refuse_overwriting(args.output, [("ruleset", args.file), ("rulebook", args.rulebook), ("findings file", args.findings),
                                     ("simulation file", args.simulation), ("diff file", args.diff)])
    if args.findings is not None and (args.reading or args.players or args.timeout is not None):
        raise UsageError("--reading, --players and --timeout say how to verify; with --findings the verification is already done",
                         "drop them, or drop --findings to verify now")
    loaded = load_or_report(args.file, err, quiet_warnings=True)
    if not loaded.ok:
        return EXIT_BAD_INPUT
    rules = loaded.rules
    assert rules is not None
    rulebook = _read_rulebook(args.rulebook) if args.rulebook else None
    from rulecheck.codegen.engine import GenerationError

    try:
        simulation = simulation_file(args.simulation, rules, args.file) if args.simulation is not None else None
        diff = diff_file(args.diff, rules, args.file) if args.diff is not None else None
        with beyond_the_verifier(loaded):
            findings = findings_file(args.findings, rules, args.file) if args.findings is not None else _verify_for_report(args, rules, err)
    except InputError as exc:
        raise UsageError(exc.message, exc.hint) from None
    except GenerationError as exc:
        return _no_engine(err, args.file, exc)
    if findings is None:
        return EXIT_INTERNAL
    text = report_text(rules, findings, fmt, simulation, rulebook, Path(args.rulebook).name if args.rulebook else None,
                       loaded.source.text if loaded.source is not None else None, diff)
    write_file(args.output, text)
    what = "the questions for the publisher" if fmt in ("csv", "questions-md") else "a clarification report"
    out.write(inert(f"wrote {args.output}: {what} on {rules.game.title}, from {len(findings)} findings\n"))
    return EXIT_OK


def _verify_for_report(args: argparse.Namespace, rules: ir.Ruleset, err: TextIO) -> list[Finding] | None:
    """Run the verifier for ``rulecheck report``; None when a witness failed its replay (a bug)."""
    from rulecheck.reports.loaders import load_findings_json
    from rulecheck.verifier.output import to_json
    from rulecheck.verifier.verify import Options, ReplayMismatch, verify

    readings = parse_readings(args.reading)
    bind_program(rules, readings)  # reports an unknown reading as E0503
    players, timeout = _verify_limits(args, rules)
    try:
        with _VerifyProgress(err, f"verify {rules.name}") as progress:
            outcome = verify(rules, Options(timeout=timeout, readings=readings, players=players), progress)
    except ReplayMismatch as exc:
        _err(err, f"a witness failed its replay: {exc}", "this is a bug in rulecheck: the solver and the engines disagree")
        return None
    if outcome.wall_stops:
        from rulecheck.verifier.output import wall_stop_warning

        err.write("rulecheck: " + wall_stop_warning(outcome.wall_stops) + "\n")
    # through the JSON, so that this report is the one made later from `verify --format json`
    return load_findings_json(to_json(outcome))[1]


def cmd_fmt(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Lay rulesets out canonically (rulecheck/editor/format.py): in place, or say which are not."""
    import difflib

    from rulecheck.dsl.diagnostics import Diagnostics
    from rulecheck.dsl.parser import decode_source, read_source
    from rulecheck.dsl.source import MAX_FILE_BYTES
    from rulecheck.editor.format import FormatError, format_text
    from rulecheck.reports.make import write_atomic

    bad = unformatted = 0
    for path in args.files:
        diags = Diagnostics()
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)  # one byte more than the limit refuses it
            src = decode_source("<stdin>", data, diags)
            original = data.decode("utf-8", errors="replace")
        else:
            src = read_source(Path(path), diags)
            original = _read_bounded(Path(path)) if src is not None else ""
        if src is None or diags.has_errors:
            terminal.write(err, render_all(diags.sorted(), src))
            bad += 1
            continue
        try:
            text = format_text(src.text, src.name)
        except FormatError as exc:
            terminal.write(err, render_all(exc.diagnostics, exc.source))
            bad += 1
            continue
        if path == "-" and not args.check:
            out.write(text)
            continue
        if text == original:
            continue
        unformatted += 1
        if args.check:
            err.write(inert(f"rulecheck: {src.name} is not formatted (rulecheck fmt {src.name} formats it)\n"))
            if args.diff:
                out.writelines(difflib.unified_diff(original.splitlines(keepends=True), text.splitlines(keepends=True),
                                                    fromfile=src.name, tofile=f"{src.name} (formatted)"))
            continue
        try:
            write_atomic(path, text)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        err.write(inert(f"rulecheck: formatted {src.name}\n"))
    if bad:
        return EXIT_BAD_INPUT
    return EXIT_FINDINGS if args.check and unformatted else EXIT_OK


def _read_bounded(path: Path) -> str:
    """A rules file's text as it is (line ends and all), read no further than the size limit."""
    from rulecheck.dsl.source import MAX_FILE_BYTES

    with path.open("rb") as fh:
        return fh.read(MAX_FILE_BYTES + 1).decode("utf-8", errors="replace")


def cmd_lsp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The language server, over standard input and output until the client says exit."""
    from rulecheck.editor.lsp import main as serve

    return serve()


# ---- parser -----------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message, f"see '{self.prog} --help'")


def _cluster_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("on a Dask cluster (pip install 'rulecheck[cluster]'); the result does not depend on it")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on the Dask cluster of this scheduler")
    g.add_argument("--workers", type=int, metavar="N", help="run on a local Dask cluster of N worker processes")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rulecheck",
        description="Formalize tabletop game rulebooks: check a ruleset, play it, generate an engine, verify it, report on it.",
        epilog="Exit codes: 0 success, 1 problems found (for verify: a finding at or above --fail-on, by default an error), "
               "2 bad input or usage, 3 internal error.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("check", help="parse and check a ruleset; say what it contains")
    c.add_argument("file", metavar="FILE", help="a .rules file")
    c.add_argument("--rulebook", metavar="PATH", help="the rulebook text: warn about quotes it does not contain")
    c.add_argument("--strict", action="store_true", help="exit 1 when there are warnings")
    c.set_defaults(func=cmd_check)

    pl = sub.add_parser("play", help="play one game between random players and print what happens")
    pl.add_argument("file", metavar="FILE")
    pl.add_argument("--players", type=int, metavar="N", help="number of players (default: the fewest the game allows)")
    pl.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (the same seed plays the same game)")
    pl.add_argument("--reading", action="append", metavar="NAME=READING", help="choose a reading of an ambiguity (repeatable)")
    pl.add_argument("--param", action="append", metavar="NAME=VALUE", help="set a game parameter (repeatable)")
    pl.add_argument("--max-steps", type=int, default=10_000, metavar="N", help="stop after N decisions (default 10000)")
    pl.set_defaults(func=cmd_play)

    v = sub.add_parser("verify", help="find where the rules are ambiguous, incomplete or contradictory, with witnesses and proofs")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format (default text)")
    v.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=f"time limit of each solver call (default {DEFAULT_TIMEOUT:g})")
    v.add_argument("--reading", action="append", metavar="NAME=READING", help="fix the reading of an ambiguity (repeatable)")
    v.add_argument("--players", type=int, action="append", metavar="N", help="verify only this player count (repeatable)")
    v.add_argument("--fail-on", choices=("error", "warning", "note", "never"), default="error",
                   help="exit 1 when a finding has this severity or a higher one (default error)")
    v.add_argument("--loop-bound", type=int, default=3, metavar="K", help="passes through an open-ended loop to explore (default 3)")
    v.add_argument("--random-games", type=int, default=200, metavar="N",
                   help="random games tried for an ambiguity the solver leaves open or cannot follow to the end (default 200; 0: none)")
    v.add_argument("--no-sensitivity", action="store_true", help="skip the checks against other values of the assumed data")
    v.add_argument("--param", action="append", metavar="NAME=VALUE", help="set a parameter of the ruleset (repeatable), as for play")
    v.add_argument("--check", action="append", metavar="KIND", choices=CHECK_KINDS,
                   help="run only the checks that give this kind of finding (repeatable): " + ", ".join(CHECK_KINDS))
    v.add_argument("--jobs", type=int, default=None, metavar="J", help="checks run at once in worker processes (default: the machine's cores)")
    v.add_argument("--verbose", action="store_true", help="list every proven check")
    _cluster_options(v)
    v.set_defaults(func=cmd_verify)

    rp = sub.add_parser("report", help="write a clarification report for translators (.html or .md)")
    rp.add_argument("file", metavar="FILE")
    rp.add_argument("-o", "--output", required=True, metavar="OUT", help="the report file: NAME.html or NAME.md")
    rp.add_argument("--rulebook", metavar="PATH", help="the rulebook text: add which of its sentences no rule cites")
    rp.add_argument("--findings", metavar="VERIFY.json", help="use this `rulecheck verify --format json` output instead of verifying now")
    rp.add_argument("--simulation", metavar="SIM.json", help="add how often each reading changes the result (`rulecheck simulate --format json` output)")
    rp.add_argument("--diff", metavar="DIFF.json", help="add how this edition differs from another (`rulecheck diff FILE OTHER.rules --format json` output)")
    rp.add_argument("--reading", action="append", metavar="NAME=READING", help="when verifying now: fix the reading of an ambiguity (repeatable)")
    rp.add_argument("--players", type=int, action="append", metavar="N", help="when verifying now: verify only this player count (repeatable)")
    rp.add_argument("--timeout", type=float, metavar="SECONDS", help=f"when verifying now: time limit of each solver call (default {DEFAULT_TIMEOUT:g})")
    rp.add_argument("--questions", action="store_true", help="write only the questions for the publisher (NAME.md; NAME.csv always does)")
    rp.set_defaults(func=cmd_report)

    gn = sub.add_parser("gen", help="generate a standalone Python game engine for a ruleset")
    gn.add_argument("file", metavar="FILE")
    gn.add_argument("-o", "--output", metavar="PATH", help="write the engine module here (default: standard output)")
    gn.add_argument("--reading", action="append", metavar="NAME=READING", help="the reading of an ambiguity the engine plays (repeatable; the default readings otherwise)")
    gn.add_argument("--players-default", type=int, metavar="N", help="player count when load_game() is not given one (default: the fewest the game allows)")
    gn.add_argument("--adapter", choices=("openspiel", "pettingzoo"), help="append an adapter: importing the module registers its OpenSpiel game, or gives its PettingZoo environments (needs rulecheck[openspiel] or rulecheck[pettingzoo])")
    gn.add_argument("--native", action="store_true", help="also compile the engine with mypyc into a C extension module beside the output, which import then loads (needs rulecheck[native], a C compiler and Python's headers)")
    gn.set_defaults(func=cmd_gen)
    sm = sub.add_parser("simulate", help="random games under every reading: win rates, lengths, how often each reading changes the result")
    sm.add_argument("file", metavar="FILE")
    sm.add_argument("--games", type=int, default=1000, metavar="N", help="games to play under each reading (default 1000)")
    sm.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (the same seed prints the same result)")
    sm.add_argument("--players", type=int, action="append", metavar="N", help="a player count to play (repeatable; default: every count the game allows)")
    sm.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: one per CPU); the result does not depend on it")
    sm.add_argument("--reading", action="append", metavar="NAME=READING", help="fix the reading of an ambiguity and leave it out of the comparison (repeatable)")
    sm.add_argument("--param", action="append", metavar="NAME=VALUE", help="set a game parameter (repeatable)")
    sm.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    sm.add_argument("--level", type=float, default=0.95, metavar="L", help="confidence level of the intervals (default 0.95)")
    sm.add_argument("--max-steps", type=int, default=10_000, metavar="N", help="cut a game after N steps, chance draws included (default 10000)")
    _cluster_options(sm)
    sm.set_defaults(func=cmd_simulate)

    fm = sub.add_parser("fmt", help="lay rulesets out in the one canonical layout (in place; --check only says)")
    fm.add_argument("files", nargs="+", metavar="FILE", help="a .rules file; - reads standard input and writes standard output")
    fm.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is not formatted")
    fm.add_argument("--diff", action="store_true", help="with --check: print what formatting would change, as a unified diff")
    fm.set_defaults(func=cmd_fmt)

    ls = sub.add_parser("lsp", help="a language server for editors, over standard input and output (docs/editor.md)")
    ls.set_defaults(func=cmd_lsp)

    from rulecheck.cli_analysis import add_commands

    add_commands(sub)
    return p


class _Discard(io.StringIO):
    """Where messages go when standard error is closed: the exit code still tells the outcome."""

    def write(self, s: str) -> int:
        return len(s)


#: Errors of writing the output that are no bug of rulecheck: a closed or full output.
_WRITE_ERRORS = frozenset({errno.EBADF, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS})


def _encodable(*streams: TextIO) -> None:
    """Text the streams' encoding cannot hold (a ruleset's Japanese on a Latin-1 terminal) is
    written as escapes, not an error."""
    for stream in streams:
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="backslashreplace")


def _quiet_stdout() -> None:
    """Point standard output at the null device, so that Python's flush at exit does not fail
    again on what could not be written."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@on_reserved_stack
def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    err = err or sys.stderr or _Discard()  # sys.stderr is None when the process started with it closed
    if out is None and sys.stdout is None:
        _err(err, "standard output is closed", "run rulecheck with its standard output open (a file, a pipe or /dev/null)")
        return EXIT_BAD_INPUT
    out = out or sys.stdout
    _encodable(out, err)
    parser = build_parser()
    try:
        try:
            # --help and --version print to stdout (here: ``out``) and exit 0
            with contextlib.redirect_stdout(out):
                args = parser.parse_args(argv)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        if not getattr(args, "command", None):
            # a usage error like any other: the help on stderr, so stdout stays empty
            parser.print_help(err)
            return EXIT_BAD_INPUT
        check_numbers(args)
        code: int = args.func(args, out, err)
        if not out.closed:  # the language server closes standard output when the client says exit
            out.flush()
        return code
    except UsageError as exc:
        _err(err, exc.message, exc.hint)
        return EXIT_BAD_INPUT
    except BadInput as exc:
        terminal.write(err, exc.text)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err.write("rulecheck: interrupted\n")
        return 130
    except BrokenPipeError:
        if out is sys.stdout:
            _quiet_stdout()
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _WRITE_ERRORS:
            return _internal(err, exc)
        if out is sys.stdout:
            _quiet_stdout()
        _err(err, f"cannot write the output: {exc.strerror or exc}", "check the output's file or device (a full disk, a closed descriptor)")
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug: say so plainly, keep the traceback for those who ask
        return _internal(err, exc)


def _internal(err: TextIO, exc: Exception) -> int:
    if os.environ.get("RULECHECK_DEBUG"):
        raise exc
    _err(err, f"internal error: {type(exc).__name__}: {exc}", "this is a bug in rulecheck; run again with RULECHECK_DEBUG=1 for details")
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
