"""Two commands of the command line (rulecheck/cli.py registers them): `rulecheck deduce`, which
says what hidden worlds fit the statements heard so far, and `rulecheck diff`, which compares two
editions of one game (docs/verify.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from rulecheck import terminal

if TYPE_CHECKING:
    from rulecheck.dsl import ir


def add_commands(sub: Any) -> None:
    """The parsers of deduce and diff."""
    dd = sub.add_parser("deduce", help="which hidden worlds fit the questions and answers heard so far")
    dd.add_argument("file", metavar="FILE")
    dd.add_argument("--players", type=int, required=True, metavar="N", help="the number of players")
    dd.add_argument("--as", dest="seat", type=int, required=True, metavar="SEAT", help="the seat of the player who deduces (from 1)")
    dd.add_argument("--log", metavar="PATH", default="-", help="the questions and answers, one per line (default: standard input)")
    dd.add_argument("--reading", action="append", metavar="NAME=READING", help="fix the reading of an ambiguity (repeatable)")
    dd.add_argument("--param", action="append", metavar="NAME=VALUE", help="set a game parameter (repeatable)")
    dd.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    dd.set_defaults(func=cmd_deduce)

    df = sub.add_parser("diff", help="compare two editions of one game: every difference, with a replayed game where it changes play")
    df.add_argument("first", metavar="A.rules")
    df.add_argument("second", metavar="B.rules")
    df.add_argument("--players", type=int, action="append", metavar="N", help="compare only this player count (repeatable)")
    df.add_argument("--games", type=int, default=200, metavar="N", help="random games per player count searched for witnesses (default 200)")
    df.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the search (the same seed prints the same result)")
    df.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format (default text)")
    df.add_argument("--fail-on", choices=("error", "warning", "note", "never"), default="never",
                    help="exit 1 when a difference has this severity or a higher one (default never)")
    df.set_defaults(func=cmd_diff)


def _loaded(path: str, err: TextIO) -> ir.Ruleset | None:
    from rulecheck.cli import load_or_report

    loaded = load_or_report(path, err, quiet_warnings=True)
    return loaded.rules if loaded.ok else None


def cmd_deduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rulecheck.cli import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, UsageError, bind_program, parse_params, parse_readings

    rules = _loaded(args.file, err)
    if rules is None:
        return EXIT_BAD_INPUT
    program = bind_program(rules, parse_readings(args.reading))
    params = parse_params(args.param, rules)
    g = rules.game
    if not g.min_players <= args.players <= g.max_players:
        raise UsageError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {args.players}")
    if not 1 <= args.seat <= args.players:
        raise UsageError(f"--as takes a seat from 1 to {args.players}, not {args.seat}")
    if not rules.questions:
        raise UsageError(f"{g.title} has no questions: deduce reads statements made in answer to questions", "declare them with question … { … }")
    try:
        text = sys.stdin.read() if args.log == "-" else open(args.log, encoding="utf-8").read()
    except OSError as exc:
        raise UsageError(f"cannot read {args.log}: {exc.strerror or exc}") from None
    from rulecheck.codegen.engine import GenerationError, generate, load_module
    from rulecheck.verifier.deduction import LogError, deduce, parse_log, render_text, to_json

    try:
        module = load_module(generate(program))
    except GenerationError as exc:
        raise UsageError(f"cannot generate an engine for {args.file}: {exc}") from None
    where = "<stdin>" if args.log == "-" else args.log
    try:
        entries = parse_log(text, rules, args.players)
        result = deduce(module, rules, args.players, args.seat - 1, entries, params)
    except LogError as exc:
        terminal.write(err, f"{where}:{exc.line}: error: {exc.message}\n" + (f"  = help: {exc.hint}\n" if exc.hint else ""))
        return EXIT_BAD_INPUT
    if args.format == "json":
        out.write(json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(render_text(result))
    return EXIT_OK if result.worlds else EXIT_FINDINGS


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rulecheck.cli import EXIT_BAD_INPUT, EXIT_INTERNAL, UsageError
    from rulecheck.verifier.context import ReplayMismatch
    from rulecheck.verifier.edition_output import diff_exit_code, render_diff_text, to_diff_json, to_diff_sarif
    from rulecheck.verifier.editions import EditionError, compare

    a = _loaded(args.first, err)
    b = _loaded(args.second, err)
    if a is None or b is None:
        return EXIT_BAD_INPUT
    if args.games < 0:
        raise UsageError(f"--games must be at least 0, not {args.games}")
    try:
        result = compare(a, b, players=sorted(set(args.players)) if args.players else None, games=args.games, seed=args.seed)
    except EditionError as exc:
        raise UsageError(exc.message, exc.hint) from None
    except ReplayMismatch as exc:
        from rulecheck.cli import _err

        _err(err, f"a witness failed its replay: {exc}", "this is a bug in rulecheck: the search and the engines disagree")
        return EXIT_INTERNAL
    if args.format == "json":
        out.write(to_diff_json(result))
    elif args.format == "sarif":
        out.write(to_diff_sarif(result))
    else:
        terminal.write(out, render_diff_text(result))
    return diff_exit_code(result, args.fail_on)
