"""Regenerate the committed reports of every shipped ruleset (docs/reports/), with one command:

    .venv/bin/python -m rulecheck.reports.regenerate [--only NAME]... [--render-only]

For each ``rulesets/NAME.rules`` it runs ``rulecheck verify --format json``, ``rulecheck
simulate --format json`` and, for an edition of a game with another, ``rulecheck diff --format
json`` with the options recorded in docs/reports/manifest.json, then renders NAME.html and NAME.md
with ``rulecheck report --findings ... --simulation ... --diff ... --rulebook ...``:
the committed files are exactly what those commands write.  ``--render-only`` re-renders from
the committed JSON (seconds, where verifying takes minutes).

The manifest records, per ruleset, the options used and the sha256 of the ruleset and of the
rulebook the coverage section was computed from, so tests/test_reports_committed.py can tell a
stale report from a current one.  The rulebooks are not in the repository (../shared/seeds); a
report whose rulebook is absent is not regenerated without it unless --without-rulebook says so,
because that would silently drop its coverage section.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .make import write_atomic

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "reports"
MANIFEST = OUT / "manifest.json"
RULESETS = ROOT / "rulesets"
COMMAND = ".venv/bin/python -m rulecheck.reports.regenerate"
MANIFEST_SCHEMA = "rulecheck-reports-manifest"

#: Options for a ruleset the manifest does not know yet: the commands' own defaults.
DEFAULT_VERIFY: list[str] = []
DEFAULT_SIMULATE: list[str] = ["--games", "1000", "--seed", "0"]


class RegenerateError(Exception):
    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass
class Entry:
    """One ruleset's committed report: where its inputs are and how its JSON was made."""

    name: str
    ruleset: str  # relative to the repository
    rulebook: str | None = None  # relative to the repository; may point outside it (../shared)
    rulebook_sha256: str | None = None
    verify: list[str] = field(default_factory=lambda: list(DEFAULT_VERIFY))
    simulate: list[str] | None = field(default_factory=lambda: list(DEFAULT_SIMULATE))  # None: no simulation
    pending: str | None = None  # why there is no committed report yet (the tools failed on the first try)
    #: another edition of the game and the diff's options (`rulecheck diff RULESET OTHER …`); None: no diff
    diff: list[str] | None = None

    def files(self) -> dict[str, str]:
        if self.pending is not None:
            return {}
        out = {"verify": f"{self.name}.verify.json", "html": f"{self.name}.html", "md": f"{self.name}.md"}
        if self.simulate is not None:
            out["simulate"] = f"{self.name}.simulate.json"
        if self.diff is not None:
            out["diff"] = f"{self.name}.diff.json"
        return out

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ruleset": self.ruleset, "rulebook": self.rulebook,
                "rulebook_sha256": self.rulebook_sha256, "verify": self.verify, "simulate": self.simulate,
                "pending": self.pending, "diff": self.diff, "files": self.files()}


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(path: Path = MANIFEST) -> dict[str, Entry]:
    if not path.exists():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("schema") != MANIFEST_SCHEMA:
        raise RegenerateError(f"{path} is not a {MANIFEST_SCHEMA} file")
    out = {}
    for e in doc["reports"]:
        out[e["name"]] = Entry(e["name"], e["ruleset"], e.get("rulebook"), e.get("rulebook_sha256"),
                               list(e["verify"]), None if e.get("simulate") is None else list(e["simulate"]), e.get("pending"),
                               None if e.get("diff") is None else list(e["diff"]))
    return out


def manifest_text(entries: dict[str, Entry]) -> str:
    doc = {
        "schema": MANIFEST_SCHEMA,
        "schema_version": 1,
        "regenerate": COMMAND,
        "reports": [entries[n].to_json() for n in sorted(entries)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def shipped() -> list[str]:
    return sorted(p.stem for p in RULESETS.glob("*.rules"))


# ---- the steps ---------------------------------------------------------------------------------


def _run_json(command: list[str], what: str) -> str:
    """Run a rulecheck command in a fresh process from the repository root (so the file names it
    records are the same wherever this is run from) and return its standard output."""
    proc = subprocess.run([sys.executable, "-m", "rulecheck", *command], cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        said = [line.removeprefix("rulecheck: error: ") for line in lines if line.startswith("rulecheck: error: ")] or lines[-3:]
        raise RegenerateError(f"{what} failed (exit {proc.returncode}): " + " / ".join(said))
    return proc.stdout


def has_simulate() -> bool:
    """Whether this rulecheck has the simulate command (the hook stays in the manifest either way)."""
    from rulecheck.cli import build_parser

    try:
        build_parser().parse_args(["simulate", "x.rules"])
    except Exception:  # the parser raises UsageError for an unknown command
        return False
    return True


def run_tools(e: Entry, log: Any) -> None:
    """verify, then simulate, then the diff with another edition; their JSON files are written
    only when all succeeded."""
    log(f"{e.name}: verify {shlex.join(e.verify)} …")
    start = time.monotonic()
    texts = {"verify": _run_json(["verify", e.ruleset, "--format", "json", "--fail-on", "never", *e.verify], f"verify {e.name}")}
    log(f"{e.name}: verify {shlex.join(e.verify)} took {time.monotonic() - start:.0f} s")
    if e.simulate is not None:
        start = time.monotonic()
        texts["simulate"] = _run_json(["simulate", e.ruleset, "--format", "json", *e.simulate], f"simulate {e.name}")
        log(f"{e.name}: simulate {shlex.join(e.simulate)} took {time.monotonic() - start:.0f} s")
    if e.diff is not None:
        start = time.monotonic()
        texts["diff"] = _run_json(["diff", e.ruleset, *e.diff, "--format", "json", "--fail-on", "never"], f"diff {e.name}")
        log(f"{e.name}: diff {shlex.join(e.diff)} took {time.monotonic() - start:.0f} s")
    for key, text in texts.items():
        write_atomic(OUT / e.files()[key], text)


def render(e: Entry, without_rulebook: bool) -> None:
    """NAME.html and NAME.md through `rulecheck report`, from the JSON files now in docs/reports."""
    from rulecheck.cli import main

    if e.rulebook is not None and not (ROOT / e.rulebook).exists():
        if not without_rulebook:
            raise RegenerateError(f"the rulebook {e.rulebook} is not here, and the committed report shows its coverage",
                                  "put the rulebook back (../shared/seeds), or pass --without-rulebook to drop the coverage section")
        e.rulebook = None
    e.rulebook_sha256 = sha256_file(ROOT / e.rulebook) if e.rulebook is not None else None
    for fmt in ("html", "md"):
        err = io.StringIO()
        code = main(report_args(e, str((OUT / e.files()[fmt]).relative_to(ROOT))), io.StringIO(), err)
        if code != 0:
            raise RegenerateError(f"rulecheck report failed (exit {code}): {' / '.join(err.getvalue().strip().splitlines())}",
                                  "if the ruleset changed since its JSON was made, run without --render-only")


def report_args(e: Entry, output: str) -> list[str]:
    """The `rulecheck report` command line that renders a committed report, relative to the root."""
    files = e.files()
    rel = OUT.relative_to(ROOT)
    args = ["report", e.ruleset, "-o", output, "--findings", str(rel / files["verify"])]
    if "simulate" in files:
        args += ["--simulation", str(rel / files["simulate"])]
    if "diff" in files:
        args += ["--diff", str(rel / files["diff"])]
    if e.rulebook is not None:
        args += ["--rulebook", e.rulebook]
    return args


# ---- the command -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rulecheck.reports.regenerate", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--only", action="append", metavar="NAME", help="regenerate only this ruleset, named as its file in rulesets/ without .rules (repeatable)")
    p.add_argument("--render-only", action="store_true", help="re-render the reports from the committed JSON; run nothing else")
    p.add_argument("--verify-args", metavar="ARGS", help="new verify options for the chosen rulesets, e.g. \"--players 2 --timeout 10\" (recorded)")
    p.add_argument("--simulate-args", metavar="ARGS", help="new simulate options for the chosen rulesets (recorded)")
    p.add_argument("--no-simulate", action="store_true", help="make the chosen reports without simulation (recorded)")
    p.add_argument("--diff-args", metavar="ARGS", help="another edition of the game and the diff's options, e.g. "
                   "\"rulesets/other.rules --games 200\" (recorded; \"\" for no diff)")
    p.add_argument("--rulebook", metavar="PATH", help="with one --only: the rulebook text its coverage section is computed from, "
                   "relative to the repository (recorded)")
    p.add_argument("--without-rulebook", action="store_true", help="render a report whose rulebook is absent without its coverage section")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J", help="rulesets verified at the same time (default: one per CPU)")
    args = p.parse_args(argv)
    if not RULESETS.is_dir():
        print(f"regenerate: no rulesets/ beside {ROOT / 'reports'}: run it from a source checkout", file=sys.stderr)
        return 2
    os.chdir(ROOT)  # rulecheck names files relative to the working directory; the committed ones from the root
    names = shipped()
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        print(f"regenerate: no ruleset rulesets/{unknown[0]}.rules (there are: {', '.join(names)})", file=sys.stderr)
        return 2
    if args.render_only and (args.verify_args is not None or args.simulate_args is not None or args.no_simulate or args.diff_args is not None):
        print("regenerate: --render-only runs neither verify, simulate nor diff, so it cannot record new options for them", file=sys.stderr)
        return 2
    if args.rulebook is not None and len(args.only or []) != 1:
        print("regenerate: --rulebook belongs to one ruleset: give exactly one --only NAME", file=sys.stderr)
        return 2
    chosen = args.only or names
    entries = read_manifest()
    for gone in set(entries) - set(names):
        del entries[gone]  # a ruleset no longer shipped has no report
    for n in chosen:
        e = entries.setdefault(n, Entry(n, f"rulesets/{n}.rules"))
        if not args.render_only:
            e.pending = None  # tried again now
        if args.verify_args is not None:
            e.verify = shlex.split(args.verify_args)
        if args.simulate_args is not None:
            e.simulate = shlex.split(args.simulate_args)
        if args.no_simulate:
            e.simulate = None
        if args.diff_args is not None:
            e.diff = shlex.split(args.diff_args) or None
        if args.rulebook is not None:
            e.rulebook = args.rulebook
    if not args.render_only and any(entries[n].simulate is not None for n in chosen) and not has_simulate():
        print("regenerate: this rulecheck has no simulate command: the reports are made without simulation", file=sys.stderr)
        for n in chosen:
            entries[n].simulate = None

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    start = time.monotonic()
    failed: dict[str, RegenerateError] = {}
    if not args.render_only:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {n: pool.submit(run_tools, entries[n], log) for n in chosen}
        for n, fut in futures.items():
            trouble = fut.exception()
            if isinstance(trouble, RegenerateError):
                failed[n] = trouble
            elif trouble is not None:
                raise trouble
    for n in chosen:
        if n in failed:
            continue
        e = entries[n]
        if e.pending is not None:  # only with --render-only: there is no JSON to render from
            log(f"{n}: no report yet ({e.pending}); run without --render-only")
            continue
        try:
            render(e, args.without_rulebook)
        except RegenerateError as exc:
            failed[n] = exc
            continue
        log(f"{n}: rendered {e.files()['html']} and {e.files()['md']}" + ("" if e.rulebook else " (no rulebook: no coverage section)"))
    # the manifest changes only for what was regenerated, so a failure leaves the rest as it was;
    # a ruleset that never had a report is recorded as pending, with the reason
    old = read_manifest()
    for n in chosen:
        if n not in failed:
            old[n] = entries[n]
        elif n not in old or old[n].pending is not None:
            entries[n].pending = str(failed[n])
            old[n] = entries[n]
            for leftover in OUT.glob(f"{n}.*"):  # half made: a JSON file without its report
                leftover.unlink()
    for gone in set(old) - set(names):
        del old[gone]
    write_atomic(MANIFEST, manifest_text(old))
    log(f"done in {time.monotonic() - start:.0f} s")
    for n, problem in failed.items():
        print(f"regenerate: {n}: {problem}", file=sys.stderr)
        if problem.hint:
            print(f"  = help: {problem.hint}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
