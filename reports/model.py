"""The data of a clarification report, built from the IR and the verifier's findings.

Everything a template shows is computed here, as plain text: the templates only lay it out and
escape it.  The report reads the ruleset and the findings only, never a game's name; it prints
nothing that varies between runs (no dates, no solver times), so the same input gives the same
bytes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.quotes import all_sources, coverage, normalize
from rulecheck.verifier.findings import KINDS, SEVERITIES, Finding, Play

from . import english
from .english import language_name

# ---- simulation results (filled by the simulate command) -------------------------------------------


@dataclass(frozen=True)
class ReadingFrequency:
    """How often one reading of an ambiguity changes the result of a random game, compared with the
    default reading: ``changed`` of ``games`` games, ``share`` = changed / games, and the
    confidence interval [low, high] of that share."""

    ambiguity: str
    reading: str
    games: int
    changed: int
    share: float
    low: float
    high: float


@dataclass(frozen=True)
class SimulationResults:
    """Random play under every reading: the seed and the number of games make it reproducible."""

    seed: int
    games: int
    players: int
    readings: tuple[ReadingFrequency, ...]
    level: float = 0.95  # the confidence level of every interval

    def for_ambiguity(self, name: str) -> list[ReadingFrequency]:
        return [r for r in self.readings if r.ambiguity == name]


# ---- the report --------------------------------------------------------------------------------------


@dataclass
class Cited:
    """A rulebook quote: the rulebook's own wording, and its translations where the ruleset has them."""

    lang: str  # the language's name, for the reader
    code: str  # its code, for the HTML lang attribute (fonts pick CJK glyphs by it)
    text: str
    translations: list[tuple[str, str, str]] = field(default_factory=list)  # (name, code, text)


@dataclass
class CountRow:
    kind: str
    label: str
    counts: list[int]  # one per severity, in SEVERITIES order
    total: int


@dataclass
class Summary:
    title: str
    edition: str | None
    language: str
    players: str
    ruleset: str
    text_hash: str
    findings: int
    severities: list[str]
    rows: list[CountRow]
    statuses: list[tuple[str, int]]
    proven: list[str]
    unknown: list[str]
    ambiguities: int
    unverified: int
    assumptions: int
    coverage: str | None
    simulation: str | None


@dataclass
class ReadingView:
    name: str
    default: bool
    desc: str
    clarify: str | None
    outcome: str | None  # what this reading concludes in the witness game
    frequency: str | None  # how often it changes the result in random play


@dataclass
class PlayColumn:
    label: str
    outcome: str
    replayed: bool
    actions: str


@dataclass
class WitnessView:
    players: int
    setup: list[tuple[str, str]]  # (who or what, holds what)
    common: list[str]  # the moves every reading shares
    columns: list[PlayColumn]
    rows: list[list[str]]  # the moves after the readings part ways, one column per play
    divergence: str


@dataclass
class FindingView:
    number: int
    anchor: str
    kind: str
    kind_label: str
    severity: str
    status: str
    verdict: str
    title: str
    message: str
    subject: str
    subject_anchor: str | None  # where the rules section renders the subject, if it does
    affects: list[tuple[str, str]]  # (heading, anchor) of the rules whose meaning an ambiguity changes
    location: str
    quotes: list[Cited]
    readings: list[ReadingView]
    question: str | None
    witness: WitnessView | None
    bound: str | None
    details: list[tuple[str, str]]
    simulation: str | None  # the seed, games and players of the frequencies shown


@dataclass
class OpenQuestion:
    """A declared ambiguity that no finding covers: listed so that nothing is skipped silently."""

    name: str
    anchor: str
    kind: str
    location: str
    quotes: list[Cited]
    readings: list[ReadingView]
    question: str | None
    affects: list[tuple[str, str]]


@dataclass
class AssumptionView:
    anchor: str
    kind: str  # "assumed" or "unspecified"
    subject: str
    question: str
    rationale: str
    location: str
    values: english.DataTable | None
    quotes: list[Cited]


@dataclass
class GlossaryEntry:
    term: str
    translations: list[tuple[str, str, str]]  # (language name, code, text)
    meaning: str
    quotes: list[Cited]


@dataclass
class CoverageView:
    total: int
    cited: int
    percent: str
    uncited: list[tuple[int, str]]
    cited_sentences: list[tuple[int, str]]
    rulebook: str | None


@dataclass
class Report:
    title: str
    lang: str  # the code of the rulebook's language
    summary: Summary
    findings: list[FindingView]
    open_questions: list[OpenQuestion]
    assumptions: list[AssumptionView]
    glossary: list[GlossaryEntry]
    rules: list[english.Section]
    coverage: CoverageView | None


# ---- labels --------------------------------------------------------------------------------------

KIND_LABELS = {
    "ambiguity": "Ambiguity: the rulebook can be read in several ways",
    "incompleteness": "Gap: no rule says what happens",
    "conflict": "Conflict: two rules apply and disagree",
    "non-termination": "Endless play: the game can go on forever",
    "exhaustion": "Exhaustion: a supply runs out when a rule needs it",
    "dead-rule": "Dead rule: a rule that can never apply",
    "sensitivity": "Sensitivity: the result depends on data the rulebook does not give",
    "translation": "Translation: the wording disagrees with the rule",
    "edition-difference": "Edition difference: two editions give different results",
    "invariant": "Invariant: a fact the rules should guarantee does not hold",
}

AMBIGUITY_KINDS = {
    "ambiguity": "ambiguous wording",
    "gap": "a gap in the rulebook",
    "contradiction": "a contradiction in the rulebook",
    "translation": "a translation question",
}


def verdict(f: Finding) -> str:
    """The status in words; "unknown" is said to be no proof, so it is never read as one."""
    bound = f" (checked: {f.bound})" if f.bound else ""
    if f.status == "witness":
        if f.kind == "ambiguity" and f.details.get("differs_in") == "moves":
            return ("Confirmed by a concrete game: in the game below the readings offer a player different moves "
                    "at the same point (the results may still agree).")
        if f.kind == "ambiguity" and f.details.get("differs_in") == "information":
            return ("Confirmed by a concrete game: in the game below a player sees a card or piece under one reading "
                    "that the player never sees under the other (the results may still agree).")
        if f.kind == "ambiguity":
            return "Confirmed by a concrete game: the readings give different results in the game below."
        return "Confirmed by a concrete game: the game below shows it."
    if f.status == "proven":
        if f.kind == "ambiguity":
            return f"Proven harmless: no game within the bound gives different results or offers different moves under the readings{bound}."
        return f"Proven not to happen{bound}."
    if f.status == "unknown" and f.severity == "error":
        return "Unknown: rulecheck could not decide this (see the explanation above). This is not a proof either way."
    if f.status == "unknown":
        return f"Unknown: the solver stopped before deciding. This is not a proof either way{bound}."
    return "Found by reading the rules; no game is needed to show it."


# ---- building ------------------------------------------------------------------------------------


def build_report(
    rules: ir.Ruleset,
    findings: list[Finding],
    simulation: SimulationResults | None = None,
    rulebook: str | None = None,
    rulebook_name: str | None = None,
) -> Report:
    """The report's data: the summary, every finding, the assumptions as questions, the glossary,
    the rules in English and, given the rulebook text, which of its sentences no rule cites."""
    ordered = sorted(findings, key=_finding_key)
    views = [_finding(rules, f, n, simulation) for n, f in enumerate(ordered, start=1)]
    covered = {f.subject for f in findings}
    open_qs = [_open_question(rules, a) for a in rules.ambiguities.values() if a.name not in covered]
    assumptions = _assumptions(rules)
    cov = _coverage(rules, rulebook, rulebook_name) if rulebook is not None else None
    summary = _summary(rules, ordered, open_qs, assumptions, cov, simulation)
    glossary = [_glossary_entry(rules, t) for t in rules.terms]
    return Report(rules.game.title, rules.game.language, summary, views, open_qs, assumptions, glossary, english.sections(rules), cov)


def _finding_key(f: Finding) -> tuple[int, int, int, int, str, str]:
    kind = KINDS.index(f.kind) if f.kind in KINDS else len(KINDS)
    return (kind, SEVERITIES.index(f.severity), f.span.line, f.span.col, f.subject, f.title)


def _location(rules: ir.Ruleset, line: int, col: int) -> str:
    return f"{rules.name}:{line}:{col}"


def _cited_source(rules: ir.Ruleset, src: ir.Source | None) -> list[Cited]:
    if src is None:
        return []
    return [_cited_quotes(rules, src.quotes)]


def _cited_quotes(rules: ir.Ruleset, quotes: tuple[ir.Quote, ...]) -> Cited:
    first, rest = quotes[0], quotes[1:]
    code = first.lang or rules.game.language
    return Cited(language_name(code), code, first.text, [_translation(rules, q) for q in rest])


def _translation(rules: ir.Ruleset, q: ir.Quote) -> tuple[str, str, str]:
    code = q.lang or rules.game.language
    return language_name(code), code, q.text


def _quotes(rules: ir.Ruleset, f: Finding) -> list[Cited]:
    """The finding's quotes, each with the translations the ruleset gives for the same sentence."""
    by_text: dict[str, ir.Source] = {}
    for src in all_sources(rules):
        for q in src.quotes:
            by_text.setdefault(normalize(q.text), src)
    out: list[Cited] = []
    seen: set[str] = set()
    for fq in f.quotes:
        found = by_text.get(normalize(fq.text))
        if found is not None:
            cited = _cited_quotes(rules, found.quotes)
        else:
            code = fq.lang or rules.game.language
            cited = Cited(language_name(code), code, fq.text)
        key = normalize(cited.text)
        if key not in seen:
            seen.add(key)
            out.append(cited)
    return out


def _readings(amb: ir.Ambiguity, plays: list[Play], sim: SimulationResults | None) -> list[ReadingView]:
    freq = {r.reading: r for r in sim.for_ambiguity(amb.name)} if sim else {}
    out = []
    for r in amb.readings:
        outcome = next((p.outcome for p in plays if p.readings.get(amb.name) == r.name), None)
        fr = freq.get(r.name)
        out.append(ReadingView(r.name, r.default, r.desc, r.clarify, outcome, _frequency(fr, sim) if fr and sim else None))
    return out


def _percent(x: float) -> str:
    return f"{x * 100:.1f}%"


def _frequency(fr: ReadingFrequency, sim: SimulationResults) -> str:
    return (
        f"changes the result in {fr.changed} of {fr.games} games ({_percent(fr.share)}; "
        f"{sim.level * 100:g}% interval {_percent(fr.low)} to {_percent(fr.high)})"
    )


def _actions(actions: list[Any]) -> str:
    return " ".join(("[" + ",".join(str(x) for x in a) + "]") if isinstance(a, list) else str(a) for a in actions)


def _witness(f: Finding) -> WitnessView | None:
    w = f.witness
    if w is None:
        return None
    setup = []
    for line in w.setup:
        who, sep, what = line.partition(": ")
        setup.append((who, what) if sep else ("", line))
    plays = w.plays
    shared = 0
    if plays:
        shortest = min(len(p.steps) for p in plays)
        while shared < shortest and all(p.steps[shared] == plays[0].steps[shared] for p in plays):
            shared += 1
    common = plays[0].steps[:shared] if plays else []
    tail = max((len(p.steps) - shared for p in plays), default=0)
    rows = [[p.steps[shared + i] if shared + i < len(p.steps) else "" for p in plays] for i in range(tail)]
    columns = [PlayColumn(p.label, p.outcome, p.replayed, _actions(p.actions)) for p in plays]
    return WitnessView(w.players, setup, common, columns, rows, w.divergence)


def _plain(v: Any) -> str:
    """A detail value as words, deterministically (dicts by sorted key)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "none"
    if isinstance(v, (list, tuple)):
        return ", ".join(_plain(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_plain(v[k])}" for k in sorted(v, key=str))
    return str(v)


def _details(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), _plain(d[k])) for k in sorted(d, key=str)]


def _finding(rules: ir.Ruleset, f: Finding, n: int, sim: SimulationResults | None) -> FindingView:
    amb = rules.ambiguities.get(f.subject)
    plays = f.witness.plays if f.witness else []
    readings = _readings(amb, plays, sim) if amb else []
    quotes = _quotes(rules, f)
    if not quotes and amb:
        quotes = [_cited_quotes(rules, s.quotes) for s in amb.sources]
    sim_note = None
    if amb and sim and sim.for_ambiguity(amb.name):
        sim_note = f"{sim.games} random games with {sim.players} players per reading, seed {sim.seed}"
    return FindingView(
        number=n,
        anchor=f"finding-{n}",
        kind=f.kind,
        kind_label=KIND_LABELS.get(f.kind, f.kind),
        severity=f.severity,
        status=f.status,
        verdict=verdict(f),
        title=f.title,
        message=f.message,
        subject=f.subject,
        subject_anchor=_rule_anchor(rules, f.subject),
        affects=[(_heading(rules, n), a) for n in (amb.varies if amb else []) if (a := _rule_anchor(rules, n))],
        location=_location(rules, f.span.line, f.span.col),
        quotes=quotes,
        readings=readings,
        question=amb.question if amb else None,
        witness=_witness(f),
        bound=f.bound,
        details=_details(f.details),
        simulation=sim_note,
    )


def _rule_anchor(rules: ir.Ruleset, name: str) -> str | None:
    """The anchor of the block that renders a named rule in the rules section (english.sections)."""
    for prefix, table in (("def", rules.defs), ("proc", rules.procs), ("zone", rules.zones), ("var", rules.vars),
                          ("param", rules.params), ("kind", rules.kinds), ("enum", rules.enums)):
        if name in table:
            return english.anchor(prefix, name)
    if any(i.name == name for i in rules.invariants):
        return english.anchor("inv", name)
    return None


def _heading(rules: ir.Ruleset, name: str) -> str:
    rule = rules.defs.get(name) or rules.procs.get(name)
    desc = rule.desc if rule is not None else None
    return english.capital(desc) if desc else english.capital(english.human(name))


def _open_question(rules: ir.Ruleset, a: ir.Ambiguity) -> OpenQuestion:
    return OpenQuestion(
        a.name, english.anchor("open", a.name), AMBIGUITY_KINDS.get(a.kind, a.kind), _location(rules, a.span.line, a.span.col),
        [_cited_quotes(rules, s.quotes) for s in a.sources], _readings(a, [], None), a.question,
        [(_heading(rules, n), r) for n in a.varies if (r := _rule_anchor(rules, n))],
    )


def _glossary_entry(rules: ir.Ruleset, t: ir.Term) -> GlossaryEntry:
    """A glossary term; how it is read aloud first among its other spellings (a transcription of
    the rulebook's language in Latin letters)."""
    spellings = [_translation(rules, q) for q in t.translations]
    if t.reading:
        spellings.insert(0, ("Reading", f"{rules.game.language}-Latn", t.reading))
    return GlossaryEntry(t.term, spellings, t.meaning, _cited_source(rules, t.source))


def _board_assumptions(rules: ir.Ruleset) -> list[AssumptionView]:
    """A board whose layout is assumed: the question for the publisher, with the layout used."""
    out: list[AssumptionView] = []
    for b in rules.boards.values():
        p = b.provenance
        if p.kind == "given":
            continue
        what = b.label or english.human(b.name)
        question = (f"What is the layout of the board ({len(b.spaces)} spaces of type '{b.name}', {what}): which spaces "
                    "there are, what each is, and which are linked? The table below shows the layout assumed for now.")
        table = english.English(rules).board(b).table
        out.append(AssumptionView(english.anchor("data", b.name), p.kind, f"Board: {what}", question, p.rationale or "",
                                  _location(rules, p.span.line, p.span.col), table, _cited_source(rules, p.source)))
    return out


def _assumptions(rules: ir.Ruleset) -> list[AssumptionView]:
    """Data the rulebook does not give, each as a question for the publisher with what the rules use."""
    en = english.English(rules)
    out: list[AssumptionView] = []
    for k in rules.kinds.values():
        groups: dict[tuple[str, str | None, int], list[str]] = {}
        for attr, p in k.provenance.items():
            if p.kind != "given":
                groups.setdefault((p.kind, p.rationale, p.span.line), []).append(attr)
        comps = rules.components_of(k.name)
        for (kind, rationale, _), attrs in groups.items():
            p = k.provenance[attrs[0]]
            cols = english.join([english.human(a) for a in attrs])
            plural = f"{k.name} {k.word}s"
            if kind == "assumed":
                question = f"What are the {cols} printed on each of the {len(comps)} {plural}? The table below shows the values assumed for now."
                rows = [[c.display] + [en.value(c.attrs[a], k.attrs[a], quote_text=False) for a in attrs] for c in comps]
                table: english.DataTable | None = english.DataTable([k.name] + [english.human(a) for a in attrs], [""] * (len(attrs) + 1), rows)
            else:
                default = en.value(p.default, k.attrs[attrs[0]]) if p.default is not None else "nothing"
                domain = english.join([en.type_phrase(k.attrs[a]) for a in attrs])
                question = f"What are the {cols} of the {plural}? The rulebook does not say; each is {domain}. Engines use {default} until it is known."
                table = None
            out.append(AssumptionView(english.anchor("data", k.name, *attrs), kind, f"{plural}: {cols}", question,
                                      rationale or "", _location(rules, p.span.line, p.span.col), table, _cited_source(rules, p.source)))
    for prm in rules.params.values():
        prov = prm.provenance
        if prov.kind == "given":
            continue
        what = prm.desc or english.human(prm.name)
        value = en.value(prm.value, prm.type)
        if prov.kind == "assumed":
            question = f"What is {what}? The rules assume {value} for now."
        else:
            question = f"What is {what}? The rulebook does not say; it is {en.type_phrase(prm.type)}. Engines use {value} until it is known."
        out.append(AssumptionView(english.anchor("data", prm.name), prov.kind, f"Game option: {what}", question,
                                  prov.rationale or "", _location(rules, prov.span.line, prov.span.col), None, _cited_source(rules, prov.source)))
    return out + _board_assumptions(rules)


def _coverage(rules: ir.Ruleset, rulebook: str, name: str | None) -> CoverageView:
    sents = coverage(rules, rulebook)
    cited = [(s.line, s.text) for s in sents if s.cited]
    uncited = [(s.line, s.text) for s in sents if not s.cited]
    percent = _percent(len(cited) / len(sents)) if sents else "0.0%"
    return CoverageView(len(sents), len(cited), percent, uncited, cited, name)


def _summary(
    rules: ir.Ruleset,
    findings: list[Finding],
    open_qs: list[OpenQuestion],
    assumptions: list[AssumptionView],
    cov: CoverageView | None,
    sim: SimulationResults | None,
) -> Summary:
    g = rules.game
    by = Counter((f.kind, f.severity) for f in findings)
    kinds = [k for k in KINDS if any(by[(k, s)] for s in SEVERITIES)]
    kinds += sorted({f.kind for f in findings} - set(KINDS))
    rows = [CountRow(k, KIND_LABELS.get(k, k), [by[(k, s)] for s in SEVERITIES], sum(by[(k, s)] for s in SEVERITIES)) for k in kinds]
    st = Counter(f.status for f in findings)
    status_words = {"witness": "shown by a concrete game", "proven": "proven within a bound",
                    "unknown": "unknown (not a proof)", "static": "found by reading the rules"}
    statuses = [(status_words[s], st[s]) for s in ("witness", "proven", "unknown", "static") if st[s]]
    proven = [f"{f.title}" + (f" ({f.bound})" if f.bound else "") for f in findings if f.status == "proven"]
    unknown = [f"{f.title}" + (f" ({f.bound})" if f.bound else "") for f in findings if f.status == "unknown"]
    lang = language_name(g.language) + (f", translated from {language_name(g.original)}" if g.original else "")
    players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
    cov_text = None
    if cov is not None:
        cov_text = f"{cov.cited} of {cov.total} rulebook sentences are cited by a rule ({cov.percent}); {len(cov.uncited)} are cited by none."
    sim_text = None
    if sim is not None:
        sim_text = f"{sim.games} random games with {sim.players} players per reading (seed {sim.seed})."
    return Summary(
        title=g.title, edition=g.edition, language=lang, players=players, ruleset=rules.name, text_hash=rules.text_hash,
        findings=len(findings), severities=list(SEVERITIES), rows=rows, statuses=statuses, proven=proven, unknown=unknown,
        ambiguities=len(rules.ambiguities), unverified=len(open_qs), assumptions=len(assumptions), coverage=cov_text,
        simulation=sim_text,
    )
