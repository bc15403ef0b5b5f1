"""The formal rules rendered back into plain English, construct by construct.

A translator who has never seen the rules language compares each rendered line with the rulebook
sentence it cites, so every line carries that sentence (its ``source``) and reads as a sentence,
not as syntax.  Names the ruleset describes (``desc`` strings) are spoken through their
description; arguments are put into the description where it names them.  The output is plain
text: the templates escape it for Markdown and HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TRecord

from .english_expr import (
    Block,
    DataTable,
    Line,
    Section,
    anchor,
    capital,
    human,
    join,
    quoted,
)
from .english_stmt import StatementEnglish


class English(StatementEnglish):
    """Renders the IR of one ruleset; every expression and statement kind has a sentence form (in
    english_expr.py and english_stmt.py), and every declaration its block here."""

    # ---- declarations --------------------------------------------------------------------------------

    def definition_lines(self, d: ir.Definition, depth: int) -> list[Line]:
        is_bool = isinstance(d.ret, TBool)

        def result(x: ir.Expr) -> str:
            if is_bool and isinstance(x, ir.Const):
                return "yes, always" if x.value else "no, always"
            return f"yes exactly when {self.cond(x)}" if is_bool else self.noun(x)

        out: list[Line] = []
        if d.body is not None:
            if isinstance(d.body, ir.Cond):
                arms = self.match_arms(d.body)
                if arms is not None:
                    subject, cases, rest = arms
                    out.append(Line(depth, f"Depending on {subject}:", d.source))
                    out += [Line(depth + 1, f"{capital(pat)}: {val}.") for pat, val in cases]
                    out.append(Line(depth + 1, f"Any other value: {rest}."))
                    return out
                # a conditional value reads best as one line per branch
                cur: ir.Expr = d.body
                first = True
                while isinstance(cur, ir.Cond):
                    lead = "If" if first else "Otherwise, if"
                    out.append(Line(depth, f"{lead} {self.cond(cur.cond)}: {result(cur.then)}.", d.source if first else None))
                    cur, first = cur.else_, False
                out.append(Line(depth, f"Otherwise: {result(cur)}."))
                return out
            return [Line(depth, f"{capital(result(d.body)) if is_bool else 'It is ' + result(d.body)}.", d.source)]
        names = {c.name for c in d.cases or []}
        for c in d.cases or []:
            value = result(c.value)
            over = [o for o in c.overrides if o in names]
            if over:
                which = join([quoted(o) for o in over])
                text = f"Except when {self.cond(c.guard)} (case {quoted(c.name)}, which overrides {which}): {value}."
            elif isinstance(c.guard, ir.Const) and c.guard.value is True:
                text = f"Normally (case {quoted(c.name)}): {value}."
            else:
                text = f"When {self.cond(c.guard)} (case {quoted(c.name)}): {value}."
            out.append(Line(depth, text, c.source))
        if d.otherwise is not None:
            out.append(Line(depth, f"Otherwise: {result(d.otherwise)}.", None))
        else:
            out.append(Line(depth, "When no case applies, no rule decides.", None))
        return out

    def varies_lines(self, amb_name: str, name: str, proc: bool, depth: int) -> list[Line]:
        a = self.rules.ambiguities[amb_name]
        out = [Line(depth, f"The rulebook can be read in {len(a.readings)} ways here (open question {quoted(amb_name)}):")]
        for r in a.readings:
            default = ", the default" if r.default else ""
            out.append(Line(depth + 1, f"Reading {quoted(r.name)}{default}: {r.desc}"))
            if proc and name in r.procs:
                out += self.stmts(r.procs[name].body or [], depth + 2) or [Line(depth + 2, "Nothing happens.")]
            elif not proc and name in r.defs:
                out += self.definition_lines(r.defs[name], depth + 2)
        return out

    def definition(self, d: ir.Definition) -> Block:
        heading = capital(d.desc) if d.desc else capital(human(d.name))
        if d.varies:
            lines = self.varies_lines(d.varies, d.name, False, 0)
        else:
            lines = self.definition_lines(d, 0)
        # a definition by cases cites its rulebook text on the heading; otherwise its one line does
        cited = [d.source] if d.source and d.cases is not None else []
        return Block(anchor("def", d.name), "definition", heading, self.formal_sig(d.name, d.formals), d.span, cited, lines)

    def procedure(self, p: ir.Procedure) -> Block:
        heading = capital(p.desc) if p.desc else capital(human(p.name))
        if p.varies:
            lines = self.varies_lines(p.varies, p.name, True, 0)
        else:
            lines = self.stmts(p.body or [], 0) or [Line(0, "Nothing happens.")]
        return Block(anchor("proc", p.name), "procedure", heading, self.formal_sig(p.name, p.formals), p.span,
                     [p.source] if p.source else [], lines)

    def game(self) -> Block:
        g = self.rules.game
        players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
        lines = [Line(0, f"For {players} players; play passes {g.order}.")]
        if g.players_assumed:
            lines.append(Line(0, f"Assumed, because the rulebook does not say how many play: {players} players. Why: {g.players_assumed}"))
        if g.edition:
            lines.append(Line(0, f"Formalized from: {g.edition}."))
        lang = language_name(g.language)
        if g.original:
            lang += f", translated from {language_name(g.original)}"
        lines.append(Line(0, f"Rulebook language: {lang}."))
        lines += [Line(0, "Cited for the game as a whole:", s) for s in g.sources]
        return Block("game", "game", g.title, "game", Span(1, 1, 1, 1), [], lines)

    def enum(self, e: ir.EnumInfo) -> Block:
        heading = capital(e.label) if e.label else capital(human(e.name))
        lines = [Line(0, "One of " + join([quoted(x) for x in e.labels], "or") + ".", e.source)]
        return Block(anchor("enum", e.name), "enum", heading, e.name, Span(1, 1, 1, 1), [], lines)

    def kind(self, k: ir.Kind) -> Block:
        comps = self.rules.components_of(k.name)
        plural = f"{k.name} {k.word}s"
        most = "at most " if k.varying else ""  # some are out of play in some games
        lines = [Line(0, f"There {'is' if len(comps) == 1 else 'are'} {most}{len(comps)} {plural}; "
                         f"at the start they are in {self.zone_phrase(k.start_zone, None)}.", k.source)]
        if k.display:
            lines.append(Line(0, f"Each is named {quoted(k.display)}" + (f", for example {quoted(comps[0].display)}." if comps else ".")))
        lines += self.in_play_lines(k, comps)
        for attr, t in k.attrs.items():
            lines.append(Line(0, f"{capital(human(attr))}: {self.type_phrase(t)}.", k.attr_sources.get(attr)))
        groups: dict[tuple[str, str | None, int], list[str]] = {}
        provs: dict[tuple[str, str | None, int], ir.Provenance] = {}
        for attr, p in k.provenance.items():
            key = (p.kind, p.rationale, p.span.line)
            groups.setdefault(key, []).append(attr)
            provs[key] = p
        for key, attrs in groups.items():
            p = provs[key]
            cols = join([human(a) for a in attrs])
            if p.kind == "given":
                lines.append(Line(0, f"The rulebook gives the {cols} of every {k.word}.", p.source))
            elif p.kind == "assumed":
                lines.append(Line(0, f"Assumed, because the rulebook does not give them: the {cols}. Why: {p.rationale}", p.source))
            else:
                default = self.value(p.default, k.attrs[attrs[0]]) if p.default is not None else "nothing"
                lines.append(Line(0, f"Not given by the rulebook, and not assumed: the {cols}; engines use {default}. Why: {p.rationale}", p.source))
        return Block(anchor("kind", k.name), "kind", plural, k.name, k.span, [], lines, self.component_table(k))

    def in_play_lines(self, k: ir.Kind, comps: list[ir.Component]) -> list[Line]:
        """Which components are in play in which games: one sentence per table row that depends
        on parameters (a range up to a parameter, a guard)."""
        lines = []
        for row in k.varying:
            group = [self.rules.components[c] for c in row.cids]
            if not group:
                continue
            names = quoted(group[0].display) if len(group) == 1 else f"{quoted(group[0].display)} to {quoted(group[-1].display)}"
            when = f" only when {self.cond(row.guard)}" if row.guard is not None else ""
            if row.bound is not None:
                col, lo, param = row.bound
                p = self.rules.params[param]
                what = f"{quoted(human(param))}" + (f" ({p.desc})" if p.desc else "")
                text = (f"Of {names}, those whose {human(col)} is {lo} to {what} are in play{when}; "
                        "the others are out of the game: in no zone, and no rule reaches them.")
            else:
                one = len(group) == 1
                text = (f"{capital(names)} {'is' if one else 'are'} in play{when}; in other games {'it is' if one else 'they are'} "
                        f"out of the game: in no zone, and no rule reaches {'it' if one else 'them'}.")
            lines.append(Line(0, text, None))
        return lines

    def component_table(self, k: ir.Kind) -> DataTable | None:
        comps = self.rules.components_of(k.name)
        if not comps:
            return None
        attrs = list(k.attrs)
        notes = [""] + [k.provenance[a].kind if a in k.provenance and k.provenance[a].kind != "given" else "" for a in attrs]
        rows = []
        for c in comps:
            row = [c.display]
            for a in attrs:
                row.append(self.value(c.attrs[a], k.attrs[a], quote_text=False) if a in c.attrs else "?")
            if k.varying:  # when each is in play (out of the game otherwise)
                row.append("always" if c.when is None else self.cond(c.when))
            rows.append(row)
        extra = ["in play"] if k.varying else []
        return DataTable([k.name] + [human(a) for a in attrs] + extra, notes + [""] * len(extra), rows)

    def zone(self, z: ir.ZoneInfo) -> Block:
        heading = capital(z.desc) if z.desc else capital(human(z.name))
        holds = join([f"{self.noun_of(TComp(k))}s" for k in z.kinds])
        each = f", one for each {self.noun_of(z.index)}" if z.index is not None else ""
        says = {
            "public": "Everyone can see what is in it.",
            "owner": "Only its owner can see what is in it; the others see how many there are.",
            "hidden": "Nobody can see what is in it; everyone sees how many there are.",
        }
        seen = self.when_param(z.vis_if, says.get(z.visibility, z.visibility), lambda vis: says.get(vis, vis))
        lines = [Line(0, f"A place that holds {holds}{each}.", z.source), Line(0, seen)]
        return Block(anchor("zone", z.name), "zone", heading, z.name, z.span, [], lines)

    def board(self, b: ir.BoardInfo) -> Block:
        heading = capital(b.label) if b.label else capital(human(b.name))
        lines = [Line(0, f"A board of {len(b.spaces)} spaces joined by {len(b.links)} links.", b.source)]
        p = b.provenance
        if p.kind == "assumed":
            lines.append(Line(0, f"Assumed, because the rulebook does not give the layout: the spaces and their links. Why: {p.rationale}", p.source))
        else:
            lines.append(Line(0, "The rulebook gives the layout.", p.source))
        labels = self.rules.enums[b.name].labels
        rows = [[labels[k]] + [self.value(b.values[k][a], t, quote_text=False) for a, t in b.attrs.items()]
                + [", ".join(labels[x] for x in b.neighbours(k)) or "none"] for k in range(len(b.spaces))]
        note = p.kind if p.kind != "given" else ""
        table = DataTable(["space", *[human(a) for a in b.attrs], "linked to"], [note] * (len(b.attrs) + 2), rows)
        return Block(anchor("board", b.name), "board", heading, b.name, b.span, [], lines, table)

    def record(self, v: ir.VarInfo) -> Block:
        assert isinstance(v.type, TRecord)
        heading = capital(v.desc) if v.desc else capital(human(v.name))
        each = f", one for each {self.noun_of(v.index)}" if v.index is not None else ""
        fields = join([f"{human(f)} ({self.type_phrase(t)})" for f, t in v.type.fields])
        seen = {
            "public": "Everyone can read it.",
            "owner": "Only the player it belongs to can read it.",
            "hidden": "Nobody reads it during play.",
        }.get(v.visibility, v.visibility)
        lines = [Line(0, f"A record kept during play{each}: entries are only added, each with {fields}; at the start it is empty.", v.source),
                 Line(0, seen)]
        return Block(anchor("var", v.name), "record", heading, v.name, v.span, [], lines)

    def outside(self, o: ir.Outside) -> Block:
        lines = [Line(0, f"Left out of the formal game: {o.what}.", o.source), Line(0, f"Why: {o.reason}")]
        return Block(anchor("outside", o.name), "outside", capital(o.what), o.name, o.span, [], lines)

    def variable(self, v: ir.VarInfo) -> Block:
        if isinstance(v.type, TRecord):
            return self.record(v)
        heading = capital(v.desc) if v.desc else capital(human(v.name))
        each = f", one for each {self.noun_of(v.index)}" if v.index is not None else ""
        init = "empty" if v.init == frozenset() else self.value(v.init, v.type)
        lines = [Line(0, f"The game remembers {self.type_phrase(v.type)}{each}; at the start it is {init}.", v.source)]
        says = {
            "public": "Everyone knows it.",
            "owner": "Only the player it belongs to knows it.",
            "hidden": "Nobody knows it during play.",
        }
        lines.append(Line(0, self.when_param(v.vis_if, says.get(v.visibility, v.visibility), lambda vis: says.get(vis, vis))))
        if v.score:
            lines.append(Line(0, "It is the player's score."))
        return Block(anchor("var", v.name), "variable", heading, v.name, v.span, [], lines)

    def when_param(self, vis_if: tuple[str, str] | None, first: str, say: Callable[[str], str]) -> str:
        """A sentence about visibility, for both values of the parameter it depends on."""
        if vis_if is None:
            return first
        param, otherwise = vis_if
        return f"When {human(param)} is on: {first} Otherwise: {say(otherwise)}"

    def parameter(self, p: ir.ParamInfo) -> Block:
        heading = capital(p.desc) if p.desc else capital(human(p.name))
        value = self.value(p.value, p.type)
        lines = [Line(0, f"A game option: {self.type_phrase(p.type)}; the rules use {value}.", p.source)]
        prov = p.provenance
        if prov.kind == "assumed":
            lines.append(Line(0, f"Assumed, because the rulebook does not give it. Why: {prov.rationale}", prov.source))
        elif prov.kind == "unspecified":
            lines.append(Line(0, f"Not given by the rulebook, and not assumed; engines use {value}. Why: {prov.rationale}", prov.source))
        return Block(anchor("param", p.name), "parameter", heading, p.name, p.span, [], lines)

    def invariant(self, inv: ir.Invariant) -> Block:
        heading = capital(inv.desc) if inv.desc else capital(human(inv.name))
        when = "At the end of the game" if inv.at_end else "At every moment of the game"
        lines = [Line(0, f"{when}, {self.cond(inv.expr)}.", inv.source)]
        return Block(anchor("inv", inv.name), "invariant", heading, inv.name, inv.span, [], lines)

    def flow(self) -> Block:
        lines = self.stmts(self.rules.flow, 0)
        return Block("flow", "flow", "The course of the game", "flow", Span(1, 1, 1, 1),
                     [self.rules.flow_source] if self.rules.flow_source else [], lines)


_LANGUAGES = {
    "en": "English", "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "fr": "French", "de": "German",
    "es": "Spanish", "it": "Italian", "pt": "Portuguese", "nl": "Dutch", "pl": "Polish", "ru": "Russian",
}


def language_name(code: str | None) -> str:
    if code is None:
        return "the rulebook's language"
    return _LANGUAGES.get(code, code)


def sections(rules: ir.Ruleset) -> list[Section]:
    """The whole ruleset in English, in the order a reader meets the game."""
    en = English(rules)
    out = [Section("rules-game", "The game", "What is being played, and from which rulebook.", [en.game()])]
    comp = Section("rules-components", "Components", "The cards and pieces, what is printed on them, and which data the rulebook gives.")
    comp.blocks += [en.enum(e) for e in rules.enums.values() if e.name not in rules.boards]
    comp.blocks += [en.kind(k) for k in rules.kinds.values()]
    comp.blocks += [en.board(b) for b in rules.boards.values()]
    out.append(comp)
    out.append(Section("rules-zones", "Where things are", "The places a card or piece can be, and who may look at them.",
                       [en.zone(z) for z in rules.zones.values()]))
    if rules.vars:
        out.append(Section("rules-state", "What the game keeps track of", "Facts the rules remember during play.",
                           [en.variable(v) for v in rules.vars.values()]))
    if rules.params:
        out.append(Section("rules-options", "Game options", "Values chosen before play.",
                           [en.parameter(p) for p in rules.params.values()]))
    # definitions and procedures in the order of the rules file, which follows the rulebook's topics
    decls: list[tuple[int, Block]] = [(d.span.line, en.definition(d)) for d in rules.defs.values()]
    decls += [(p.span.line, en.procedure(p)) for p in rules.procs.values()]
    decls.sort(key=lambda x: x[0])
    out.append(Section("rules-rules", "Rules", "What each term of the rules means, and each step of play; where the rulebook "
                       "can be read in several ways, every reading is given.", [b for _, b in decls]))
    if rules.questions:
        out.append(Section("rules-questions", "Questions", "What may be asked, what can be answered, when an answer is true and "
                           "what counts as a lie.", [en.question(q) for q in rules.questions.values()]))
    out.append(Section("rules-flow", "The course of the game", "The game from setup to the decision.", [en.flow()]))
    if rules.targets:
        out.append(Section("rules-targets", "What players want to know", "The values a player tries to deduce before a decision.",
                           [en.target(t) for t in rules.targets]))
    if rules.edition is not None:
        out.append(Section("rules-edition", "Editions", "Which game this is an edition of, and the names that differ between editions.",
                           [en.edition(rules.edition)]))
    if rules.invariants:
        out.append(Section("rules-invariants", "What must always hold", "Facts that the rules imply and the verifier checks in "
                           "every reachable situation.", [en.invariant(i) for i in rules.invariants]))
    if rules.outside:
        out.append(Section("rules-outside", "Left out of the formal game", "Parts of the real game the rules file does not "
                           "formalize, each with the reason.", [en.outside(o) for o in rules.outside]))
    return out


def to_text(secs: Iterable[Section]) -> str:
    """The rendering as plain text: each line with the rulebook text it cites underneath."""
    out: list[str] = []
    for sec in secs:
        out.append(f"== {sec.title} ==")
        out.append("")
        for b in sec.blocks:
            out.append(f"{b.heading}  [{b.formal}]")
            for s in b.sources:
                out += _cite_lines(s, "  ")
            for line in b.lines:
                pad = "  " * (line.depth + 1)
                out.append(f"{pad}- {line.text}")
                if line.source:
                    out += _cite_lines(line.source, pad + "    ")
            if b.table:
                out.append("  | " + " | ".join(c + (f" ({n})" if n else "") for c, n in zip(b.table.columns, b.table.notes)) + " |")
                out += ["  | " + " | ".join(r) + " |" for r in b.table.rows]
            out.append("")
    return "\n".join(out)


def _cite_lines(src: ir.Source, pad: str) -> list[str]:
    return [f"{pad}> {'' if q.lang is None else '[' + q.lang + '] '}{q.text}" for q in src.quotes]
