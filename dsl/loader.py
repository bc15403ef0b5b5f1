"""One call from a path to a checked ruleset: read, parse, check; every problem is a diagnostic."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import ir
from .checker import check_ruleset
from .diagnostics import Diagnostics
from .parser import decode_source, parse_source, read_source
from .source import SourceFile


@dataclass
class Loaded:
    source: SourceFile | None
    rules: ir.Ruleset | None
    diagnostics: Diagnostics

    @property
    def ok(self) -> bool:
        return self.rules is not None and not self.diagnostics.has_errors


def _finish(src: SourceFile | None, diags: Diagnostics) -> Loaded:
    if src is None or diags.has_errors:
        return Loaded(src, None, diags)
    tree = parse_source(src, diags)
    if tree is None:
        return Loaded(src, None, diags)
    rules = check_ruleset(src, tree, diags)
    return Loaded(src, rules, diags)


def load_path(path: Path | str) -> Loaded:
    diags = Diagnostics()
    return _finish(read_source(Path(path), diags), diags)


def load_text(text: str, name: str = "<text>") -> Loaded:
    diags = Diagnostics()
    return _finish(decode_source(name, text.encode("utf-8"), diags), diags)


def load_bytes(data: bytes, name: str = "<bytes>") -> Loaded:
    diags = Diagnostics()
    return _finish(decode_source(name, data, diags), diags)
