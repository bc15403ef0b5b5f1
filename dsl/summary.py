"""What `rulecheck check` prints about a valid ruleset: what it contains, at a glance."""

from __future__ import annotations

from collections import Counter

from . import ir
from .types import TRecord
from .walk import walk_stmts


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summarize(rules: ir.Ruleset) -> str:
    g = rules.game
    lines = [f"{rules.name}: {g.title}"]
    if g.edition:
        lines.append(f"  edition      {g.edition}")
    lang = g.language + (f" (translated from {g.original})" if g.original else "")
    lines.append(f"  language     {lang}")
    players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
    lines.append(f"  players      {players}, {g.order}" + (" (assumed)" if g.players_assumed else ""))
    kinds = Counter(c.kind for c in rules.components)
    varying = Counter(c.kind for c in rules.components if c.when is not None)
    comps = ", ".join(f"{kinds[k]} {k} {rules.kinds[k].word}{'s' if kinds[k] != 1 else ''}"
                      + (f" ({varying[k]} in play only in some games)" if varying[k] else "") for k in rules.kinds if kinds[k])
    lines.append(f"  components   {comps or 'none'}")
    lines.append(f"  zones        {', '.join(z.name + ('[' + z.index.show() + ']' if z.index else '') for z in rules.zones.values())}")
    if rules.boards:
        boards = ", ".join(f"{b.name} ({_plural(len(b.spaces), 'space')}, {_plural(len(b.links), 'link')})" for b in rules.boards.values())
        lines.append(f"  boards       {boards}")
    records = [v.name for v in rules.vars.values() if isinstance(v.type, TRecord)]
    if records:
        lines.append(f"  records      {', '.join(records)}")
    cases = sum(len(d.cases or []) for d in rules.defs.values())
    stmts = sum(1 for _ in walk_stmts(rules.flow)) + sum(sum(1 for _ in walk_stmts(p.body)) for p in rules.procs.values() if p.body)
    lines.append(
        f"  rules        {_plural(len(rules.defs), 'definition')} ({_plural(cases, 'case')}), "
        f"{_plural(len(rules.procs), 'procedure')}, {_plural(stmts, 'statement')}"
    )
    by_kind = Counter(a.kind for a in rules.ambiguities.values())
    detail = ", ".join(f"{by_kind[k]} {k}" for k in ("ambiguity", "gap", "contradiction", "translation") if by_kind[k])
    lines.append(f"  ambiguities  {len(rules.ambiguities)}" + (f" ({detail})" if detail else ""))
    for a in rules.ambiguities.values():
        readings = ", ".join(r.name + ("*" if r.default else "") for r in a.readings)
        lines.append(f"    {a.name:<28} {a.kind:<13} {readings}")
    data: list[str] = []
    for k in rules.kinds.values():
        for prov in ("assumed", "unspecified"):
            cols = [a for a, p in k.provenance.items() if p.kind == prov]
            if cols:
                data.append(f"{k.name}: {', '.join(cols)} ({prov})")
    for p in rules.params.values():
        if p.provenance.kind != "given":
            data.append(f"parameter {p.name} ({p.provenance.kind})")
    if g.players_assumed:
        data.append("the player count (assumed)")
    for b in rules.boards.values():
        if b.provenance.kind != "given":
            data.append(f"board {b.name}: the layout ({b.provenance.kind})")
    lines.append(f"  assumptions  {'; '.join(data) if data else 'none: every datum is given by the rulebook'}")
    lines.append(f"  invariants   {len(rules.invariants)}: {', '.join(i.name for i in rules.invariants) or '-'}")
    if rules.questions:
        lines.append(f"  questions    {len(rules.questions)}: {', '.join(rules.questions)}")
    if rules.targets:
        lines.append(f"  targets      {len(rules.targets)}: {', '.join(t.name for t in rules.targets)}")
    if rules.edition is not None:
        mapped = len(rules.edition.same)
        lines.append(f"  edition of   \"{rules.edition.game}\" ({_plural(mapped, 'name')} mapped)")
    lines.append(f"  glossary     {_plural(len(rules.terms), 'term')}")
    if rules.outside:
        lines.append(f"  left out     {', '.join(o.name for o in rules.outside)}")
    lines.append("  (* marks the default reading)")
    return "\n".join(lines) + "\n"
