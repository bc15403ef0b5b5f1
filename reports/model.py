"""The data of a clarification report, built from the IR and the verifier's findings.

Everything a template shows is computed here, as plain text: the templates only lay it out and
escape it.  The report reads the ruleset and the findings only, never a game's name; it prints
nothing that varies between runs (no dates, no solver times), so the same input gives the same
bytes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.quotes import all_sources, coverage, normalize
from rulecheck.verifier.findings import KINDS, SEVERITIES, Finding, Play

from . import english, english_expr, wording
from .english import language_name
from .highlight import FormalRule, formal_rules
from .questions import Question, build_questions
from .witnesses import WitnessView, witness_view

# ---- simulation results (filled by the simulate command) -------------------------------------------


@dataclass(frozen=True)
class ReadingFrequency:
    """How often one reading of an ambiguity changes the result of a random game of ``players``
    players, compared with the default reading: ``changed`` of ``games`` games, ``share`` =
    changed / games, and the confidence interval [low, high] of that share."""

    ambiguity: str
    reading: str
    games: int
    changed: int
    share: float
    low: float
    high: float
    players: int


@dataclass(frozen=True)
class SimulationResults:
    """Random play under every reading: the seed and the number of games make it reproducible."""

    seed: int
    games: int  # per player count
    players: tuple[int, ...]
    readings: tuple[ReadingFrequency, ...]
    level: float = 0.95  # the confidence level of every interval

    def for_ambiguity(self, name: str) -> list[ReadingFrequency]:
        return [r for r in self.readings if r.ambiguity == name]

    def for_reading(self, ambiguity: str, reading: str) -> list[ReadingFrequency]:
        """One reading's frequencies, one per player count (ascending)."""
        return sorted((r for r in self.readings if r.ambiguity == ambiguity and r.reading == reading), key=lambda r: r.players)


@dataclass(frozen=True)
class EditionDiff:
    """A ``rulecheck diff`` of two editions (reports/loaders.py reads it): the editions as (file,
    sha256, game), in the diff's order; the counts compared, the games searched per count and the
    seed; every difference with the file its span is in."""

    editions: tuple[tuple[str, str, str], tuple[str, str, str]]
    players: tuple[int, ...]
    games: int
    seed: int
    differences: tuple[tuple[str, Finding], ...]


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
    impacts: list[tuple[str, int]] = field(default_factory=list)  # how many questions matter how much


@dataclass
class ReadingView:
    name: str
    default: bool
    desc: str
    clarify: str | None
    outcome: str | None  # what this reading concludes in the witness game
    frequency: str | None  # how often it changes the result in random play


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
    part: str = "evidence"  # "evidence" for the questions, or "checks" of the formal model (the appendix)


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
    values: english_expr.DataTable | None
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
    questions: list[Question]  # part one: for the publisher
    findings: list[FindingView]  # the evidence for the questions (part two), then the checks of the model (appendix)
    open_questions: list[OpenQuestion]
    assumptions: list[AssumptionView]
    glossary: list[GlossaryEntry]
    rules: list[english_expr.Section]
    coverage: CoverageView | None
    #: block anchor -> its declaration in the rules file, highlighted (HTML only; given the rules text)
    formal: dict[str, FormalRule] = field(default_factory=dict)
    editions: EditionsView | None = None  # given a diff with another edition: how the two differ


@dataclass
class EditionsView:
    """The section on another edition of the game: the diff's settings, its differences counted by
    what they do, and each one (numbered after the findings, located in its own file)."""

    other: str  # the other edition's game title
    other_file: str
    how: str  # what was compared, in words
    counts: list[tuple[str, int]]  # (what the differences do, how many)
    differences: list[FindingView]


# ---- labels --------------------------------------------------------------------------------------

#: What each kind of finding asks, worded so that it is true whatever the answer (a proven
#: invariant is not "a fact that does not hold").
KIND_LABELS = {
    "ambiguity": "Ambiguity: can the readings of the rulebook give different games?",
    "incompleteness": "Completeness: is there a situation no rule settles?",
    "conflict": "Conflict: can two rules apply and disagree?",
    "non-termination": "Termination: can play go on forever?",
    "exhaustion": "Exhaustion: can a supply run out when a rule needs it?",
    "dead-rule": "Dead rule: is there a rule that never applies?",
    "sensitivity": "Sensitivity: does a result depend on data the rulebook does not give?",
    "translation": "Translation: does the wording disagree with the rule?",
    "edition-difference": "Edition difference: do two editions give different games?",
    "invariant": "Invariant: does a fact the rules should guarantee always hold?",
}

#: The kind of a declared question, as the ruleset declares it (`kind K` of an ambiguity).
DECLARED_LABELS = {
    "ambiguity": "Ambiguity: the rulebook can be read in several ways",
    "gap": "Gap: the rulebook does not say",
    "contradiction": "Contradiction: two sentences of the rulebook disagree",
    "translation": "Translation: the translation changes the rule",
}

AMBIGUITY_KINDS = {
    "ambiguity": "ambiguous wording",
    "gap": "a gap in the rulebook",
    "contradiction": "a contradiction in the rulebook",
    "translation": "a translation question",
}


def verdict(f: Finding) -> str:
    """The status in words (reports/wording.py)."""
    return wording.verdict_sentence(f)


# ---- building ------------------------------------------------------------------------------------


def build_report(
    rules: ir.Ruleset,
    findings: list[Finding],
    simulation: SimulationResults | None = None,
    rulebook: str | None = None,
    rulebook_name: str | None = None,
    rules_text: str | None = None,
    diff: EditionDiff | None = None,
) -> Report:
    """The report's data: the summary, the questions for the publisher, the findings (the evidence
    for the questions first, then the checks of the formal model), the missing data, the
    glossary, the rules in English (with, given the rules text, each declaration's formal rule),
    given the rulebook text, which of its sentences no rule cites, and given a diff with another
    edition, how the two differ."""
    evidence = sorted((f for f in findings if is_evidence(f)), key=_finding_key)
    checks = sorted((f for f in findings if not is_evidence(f)), key=_finding_key)
    ordered = evidence + checks
    views = [_finding(rules, f, n, simulation, "evidence" if n <= len(evidence) else "checks") for n, f in enumerate(ordered, start=1)]
    covered = {f.subject for f in findings}
    open_qs = [_open_question(rules, a) for a in rules.ambiguities.values() if a.name not in covered]
    assumptions = _assumptions(rules)
    questions = build_questions(rules, ordered, {id(f): v for f, v in zip(ordered, views)}, assumptions, simulation,
                                KIND_LABELS, DECLARED_LABELS)
    cov = _coverage(rules, rulebook, rulebook_name) if rulebook is not None else None
    summary = _summary(rules, ordered, open_qs, assumptions, cov, simulation)
    summary.impacts = impact_counts(questions)
    glossary = [_glossary_entry(rules, t) for t in rules.terms]
    formal = formal_rules(rules, rules_text) if rules_text is not None else {}
    editions = _editions(rules, diff, len(views)) if diff is not None else None
    return Report(rules.game.title, rules.game.language, summary, questions, views, open_qs, assumptions, glossary,
                  english.sections(rules), cov, formal, editions)


#: What an edition difference does, by verdict, most telling first (verifier/editions.py).
DIFFERENCE_WORDS = {"changes-result": "end differently (shown by a game)", "changes-moves": "allow different moves (shown by a game)",
                    "information-only": "change only what players see", "masked": "not decided", "data": "in components or printed data",
                    "counts": "in the player counts", "cosmetic": "only a name"}


def _editions(rules: ir.Ruleset, diff: EditionDiff, numbered: int) -> EditionsView:
    """The differences in the order of the diff, numbered on from the findings; each located in
    the edition file it is about (the other edition's findings point into the other file)."""
    first, second = diff.editions
    other = second if first[1] == rules.text_hash else first
    views = []
    for n, (file, f) in enumerate(diff.differences, start=numbered + 1):
        v = _finding(rules, f, n, None, "edition")
        v.location = f"{file}:{f.span.line}:{f.span.col}"
        if file != rules.name:  # another file's names are not this ruleset's rules
            v.subject_anchor = None
            v.affects = []
        editions = f.details.get("quoted_from") or []
        if len(editions) == len(v.quotes):  # whose rulebook each quote is from
            v.quotes = [dataclasses.replace(c, lang=f"{c.lang}, {ed}") for c, ed in zip(v.quotes, editions)]
        views.append(v)
    counts = Counter(f.verdict for _, f in diff.differences)
    order = [k for k in DIFFERENCE_WORDS if counts[k]] + sorted(k for k in counts if k not in DIFFERENCE_WORDS)
    how = (f"rulecheck diff at {_counts(diff.players)}, {diff.games} random games per count searched for a game that "
           f"tells the editions apart (seed {diff.seed})")
    return EditionsView(other[2], other[0], how, [(DIFFERENCE_WORDS.get(k, k or "other"), counts[k]) for k in order], views)


#: The questions' ranks (questions.IMPACT_RANK, PROBLEM_KINDS) in words, for the summary.
IMPACT_WORDS = {0: "change who wins", 1: "show a situation the rules do not settle", 2: "change the moves a player may make",
                3: "change what a player sees", 4: "break a fact the rules should guarantee", 5: "ask for missing data or wording",
                6: "not decided", 7: "not verified", 8: "proven not to matter"}


def impact_counts(questions: list[Question]) -> list[tuple[str, int]]:
    counts = Counter(q.rank[0] for q in questions)
    return [(IMPACT_WORDS[k], counts[k]) for k in sorted(counts)]


def is_evidence(f: Finding) -> bool:
    """A finding about the rulebook (a declared question, a problem a game shows, a translation),
    as opposed to a check of the formal model (what is proven absent, invariants, dead rules)."""
    return f.kind in ("ambiguity", "sensitivity", "translation", "edition-difference") or f.status == "witness"


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
    out = []
    for r in amb.readings:
        outcome = next((p.outcome for p in plays if p.readings.get(amb.name) == r.name), None)
        freqs = sim.for_reading(amb.name, r.name) if sim else []
        out.append(ReadingView(r.name, r.default, r.desc, r.clarify, outcome, _frequency(freqs, sim) if freqs and sim else None))
    return out


def _percent(x: float) -> str:
    return f"{x * 100:.1f}%"


def _frequency(freqs: list[ReadingFrequency], sim: SimulationResults) -> str:
    """How often the reading changes the result, per player count: a share that is 0 at one
    count and not at another is the rule showing only with some numbers of players."""
    parts = []
    for fr in freqs:
        if fr.changed == 0:
            parts.append(f"{fr.players} players: never in {fr.games} games (at most {_percent(fr.high)} at {sim.level * 100:g}%)")
        else:
            parts.append(f"{fr.players} players: {fr.changed} of {fr.games} games ({_percent(fr.share)}; "
                         f"{sim.level * 100:g}% interval {_percent(fr.low)} to {_percent(fr.high)})")
    return "changes the result at " + "; at ".join(parts)


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


#: The facts of a finding a report lists under "Details" (the rest are in its sentences).
SHOWN_DETAILS = ("readings", "players", "differs_in", "found_by", "data", "under")


def _details(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k, _plain(d[k])) for k in SHOWN_DETAILS if d.get(k) not in (None, "", [])]


def _finding(rules: ir.Ruleset, f: Finding, n: int, sim: SimulationResults | None, part: str = "evidence") -> FindingView:
    amb = rules.ambiguities.get(f.subject)
    plays = f.witness.plays if f.witness else []
    readings = _readings(amb, plays, sim) if amb else []
    quotes = _quotes(rules, f)
    if not quotes and amb:
        quotes = [_cited_quotes(rules, s.quotes) for s in amb.sources]
    sim_note = None
    if amb and sim and sim.for_ambiguity(amb.name):
        sim_note = f"{sim.games} random games per reading at each of {_counts(sim.players)}, seed {sim.seed}; random choices coupled between readings"
    return FindingView(
        number=n,
        anchor=f"finding-{n}",
        kind=f.kind,
        kind_label=DECLARED_LABELS[f.declared] if f.declared and f.kind == "ambiguity" else KIND_LABELS.get(f.kind, f.kind),
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
        witness=witness_view(f),
        bound=f.bound,
        details=_details(f.details),
        simulation=sim_note,
        part=part,
    )


def _counts(players: tuple[int, ...]) -> str:
    if len(players) == 1:
        return f"{players[0]} players"
    return ", ".join(str(n) for n in players[:-1]) + f" and {players[-1]} players"


def _rule_anchor(rules: ir.Ruleset, name: str) -> str | None:
    """The anchor of the block that renders a named rule in the rules section (english.sections)."""
    for prefix, table in (("def", rules.defs), ("proc", rules.procs), ("zone", rules.zones), ("var", rules.vars),
                          ("param", rules.params), ("kind", rules.kinds), ("enum", rules.enums)):
        if name in table:
            return english_expr.anchor(prefix, name)
    if any(i.name == name for i in rules.invariants):
        return english_expr.anchor("inv", name)
    return None


def _heading(rules: ir.Ruleset, name: str) -> str:
    rule = rules.defs.get(name) or rules.procs.get(name)
    desc = rule.desc if rule is not None else None
    return english_expr.capital(desc) if desc else english_expr.capital(english_expr.human(name))


def _open_question(rules: ir.Ruleset, a: ir.Ambiguity) -> OpenQuestion:
    return OpenQuestion(
        a.name, english_expr.anchor("open", a.name), AMBIGUITY_KINDS.get(a.kind, a.kind), _location(rules, a.span.line, a.span.col),
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
        what = b.label or english_expr.human(b.name)
        question = (f"What is the layout of the board ({len(b.spaces)} spaces of type '{b.name}', {what}): which spaces "
                    "there are, what each is, and which are linked? The table below shows the layout assumed for now.")
        table = english.English(rules).board(b).table
        out.append(AssumptionView(english_expr.anchor("data", b.name), p.kind, f"Board: {what}", question, p.rationale or "",
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
            cols = english_expr.join([english_expr.human(a) for a in attrs])
            plural = f"{k.name} {k.word}s"
            if kind == "assumed":
                shape = english_expr.join([_shape(en, english_expr.human(a), k.attrs[a]) for a in attrs])
                question = (f"What are the {cols} printed on each of the {len(comps)} {plural}? The table below shows the values "
                            f"assumed for now. Its shape is assumed too: each card shows {shape}. Is that how the cards are printed?")
                rows = [[c.display] + [en.value(c.attrs[a], k.attrs[a], quote_text=False) for a in attrs] for c in comps]
                table: english_expr.DataTable | None = english_expr.DataTable([k.name] + [english_expr.human(a) for a in attrs], [""] * (len(attrs) + 1), rows)
            else:
                default = en.value(p.default, k.attrs[attrs[0]]) if p.default is not None else "nothing"
                domain = english_expr.join([en.type_phrase(k.attrs[a]) for a in attrs])
                question = f"What are the {cols} of the {plural}? The rulebook does not say; each is {domain}. Engines use {default} until it is known."
                table = None
            out.append(AssumptionView(english_expr.anchor("data", k.name, *attrs), kind, f"{plural}: {cols}", question,
                                      rationale or "", _location(rules, p.span.line, p.span.col), table, _cited_source(rules, p.source)))
    for prm in rules.params.values():
        prov = prm.provenance
        if prov.kind == "given":
            continue
        what = prm.desc or english_expr.human(prm.name)
        value = en.value(prm.value, prm.type)
        if prov.kind == "assumed":
            question = f"What is {what}? The rules assume {value} for now."
        else:
            question = f"What is {what}? The rulebook does not say; it is {en.type_phrase(prm.type)}. Engines use {value} until it is known."
        out.append(AssumptionView(english_expr.anchor("data", prm.name), prov.kind, f"Game option: {what}", question,
                                  prov.rationale or "", _location(rules, prov.span.line, prov.span.col), None, _cited_source(rules, prov.source)))
    return out + _board_assumptions(rules)


def _shape(en: english.English, name: str, t: Any) -> str:
    """How many values of an attribute one component has, as a table's columns assume it."""
    from rulecheck.dsl.types import TBool, TEnum, TInt, TSet

    if isinstance(t, TSet):
        return f"any number of {name} (none, one or several, each at most once)"
    if isinstance(t, TEnum):
        return f"exactly one {name}"
    if isinstance(t, TBool):
        return f"{name} or not"
    if isinstance(t, TInt):
        return f"one {name}, {en.type_phrase(t)}"
    return f"one {name}"


def _coverage(rules: ir.Ruleset, rulebook: str, name: str | None) -> CoverageView:
    sents = coverage(rules, rulebook)
    cited = [(s.line, s.text) for s in sents if s.cited]
    uncited = [(s.line, s.text) for s in sents if not s.cited]
    percent = _percent(len(cited) / len(sents)) if sents else "0.0%"
    return CoverageView(len(sents), len(cited), percent, uncited, cited, name)


def _undecided(f: Finding) -> str:
    """Where an unknown finding is undecided and what was proven beside it: an unknown's bound is
    what was checked, so it is never shown as if it were what is undecided."""
    d = f.details
    parts = []
    left = d.get("unknown") or d.get("endless")
    if isinstance(left, str) and left:
        parts.append(f"for {left}")
    if isinstance(d.get("proven"), str) and d["proven"]:
        parts.append(f"proven for {d['proven']}")
    elif f.bound:
        parts.append(f"checked: {f.bound}")
    return f" — {'; '.join(parts)}" if parts else ""


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
    status_words = {"witness": "shown by a concrete game", "proven": "proven within the bound each one states",
                    "unknown": "unknown (not a proof)", "static": "found by reading the rules"}
    statuses = [(status_words[s], st[s]) for s in ("witness", "proven", "unknown", "static") if st[s]]
    proven = [f"{f.title}" + (f" ({f.bound})" if f.bound else "") for f in findings if f.status == "proven"]
    unknown = [f"{f.title}{_undecided(f)}" for f in findings if f.status == "unknown"]
    lang = language_name(g.language) + (f", translated from {language_name(g.original)}" if g.original else "")
    players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
    cov_text = None
    if cov is not None:
        cov_text = f"{cov.cited} of {cov.total} rulebook sentences are cited by a rule ({cov.percent}); {len(cov.uncited)} are cited by none."
    sim_text = None
    if sim is not None:
        sim_text = f"{sim.games} random games per reading at each of {_counts(sim.players)} (seed {sim.seed}), random choices coupled between readings."
    return Summary(
        title=g.title, edition=g.edition, language=lang, players=players, ruleset=rules.name, text_hash=rules.text_hash,
        findings=len(findings), severities=list(SEVERITIES), rows=rows, statuses=statuses, proven=proven, unknown=unknown,
        ambiguities=len(rules.ambiguities), unverified=len(open_qs), assumptions=len(assumptions), coverage=cov_text,
        simulation=sim_text,
    )
