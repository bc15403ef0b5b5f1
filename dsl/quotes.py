"""Rulebook quotes: are they really in the rulebook, and which rulebook sentences does no rule cite?"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from . import ir
from .diagnostics import Diagnostic, Severity
from .walk import walk_stmts

_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "「": '"', "」": '"'})

#: Characters of the scripts written without spaces between words (kana, kanji, their
#: punctuation): a space beside one is a line break or an extraction break of the rulebook's
#: layout, not part of the text, so quotes may leave it out ("手 札 を引く" reads "手札を引く").
_UNSPACED = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_BREAK = re.compile(rf"\s+(?=[{_UNSPACED}])|(?<=[{_UNSPACED}])\s+")


def normalize(text: str) -> str:
    """Compare quotes loosely: Unicode compatibility forms, curly quotes, case and white space
    (none at all beside a kana or kanji)."""
    t = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    t = re.sub(r"\s+", " ", t).strip()
    return _BREAK.sub("", t).casefold()


def all_sources(rules: ir.Ruleset) -> Iterator[ir.Source]:
    """Every source clause of a ruleset, each once, in a stable order."""
    yield from rules.game.sources
    for e in rules.enums.values():
        if e.source:
            yield e.source
    for k in rules.kinds.values():
        if k.source:
            yield k.source
        yield from (s for s in k.attr_sources.values() if s)
        yield from (p.source for p in k.provenance.values() if p.source)
    for z in rules.zones.values():
        if z.source:
            yield z.source
    for v in rules.vars.values():
        if v.source:
            yield v.source
    for p in rules.params.values():
        if p.source:
            yield p.source
    defs: list[ir.Definition] = list(rules.defs.values())
    procs: list[ir.Procedure] = list(rules.procs.values())
    for a in rules.ambiguities.values():
        yield from a.sources
        for r in a.readings:
            defs += r.defs.values()
            procs += r.procs.values()
    for d in defs:
        if d.source:
            yield d.source
        for c in d.cases or []:
            if c.source:
                yield c.source
    bodies = [rules.flow] + [p.body for p in procs if p.body]
    if rules.flow_source:
        yield rules.flow_source
    for proc in procs:
        if proc.source:
            yield proc.source
    for body in bodies:
        for s in walk_stmts(body):
            if s.source:
                yield s.source
            if isinstance(s, ir.If) and s.else_source:
                yield s.else_source
    for inv in rules.invariants:
        if inv.source:
            yield inv.source
    for t in rules.terms:
        if t.source:
            yield t.source


def check_quotes(rules: ir.Ruleset, rulebook: str) -> list[Diagnostic]:
    """A warning for every quote in the rulebook's language that the rulebook does not contain."""
    book = normalize(rulebook)
    out: list[Diagnostic] = []
    seen: set[tuple[int, int, str]] = set()
    for src in all_sources(rules):
        for q in src.quotes:
            if q.lang is not None and q.lang != rules.game.language:
                continue
            key = (src.span.line, src.span.col, q.text)
            if key in seen:
                continue
            seen.add(key)
            if normalize(q.text) not in book:
                out.append(Diagnostic(
                    Severity.WARNING, "W0603", f"this quote is not in the rulebook: \"{_short(q.text)}\"", src.span,
                    hint="copy the sentence exactly as the rulebook prints it",
                ))
    return out


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


@dataclass
class Sentence:
    line: int
    text: str
    cited: bool


def sentences(rulebook: str) -> list[Sentence]:
    """The rulebook cut into sentences (and list items, table rows), with their line numbers."""
    out: list[Sentence] = []
    for n, line in enumerate(rulebook.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        for part in re.split(r"(?<=[.!?。！？])\s+(?=[A-Z0-9\"(•「])|\t", line):
            part = part.strip(" •")
            if len(normalize(part)) >= 3:
                out.append(Sentence(n, part, False))
    return out


def coverage(rules: ir.Ruleset, rulebook: str) -> list[Sentence]:
    """Which rulebook sentences some rule cites: a sentence counts as cited when a quote contains
    it or it contains a quote of at least a few words."""
    quotes = [normalize(q.text) for src in all_sources(rules) for q in src.quotes]
    quotes = [q for q in quotes if q]
    out = sentences(rulebook)
    for s in out:
        ns = normalize(s.text)
        s.cited = any(ns in q or (len(q) >= 12 and q in ns) for q in quotes)
    return out
