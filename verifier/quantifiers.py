"""The translation check, part two: do a quote's quantifier and negation agree with the formal
rule's condition, and do the counts it names agree with the rule's counts?

"If anyone did not present a NO! chip" says that *some* player did not present one; a rule that
cites it where *no* player presented one (the else branch of "some player did") formalizes another
sentence: a translation (or a formalization) to check. Quotes are read clause by clause: only the
condition of a conditional sentence (after "if", "when", "unless", 「…なら」) is compared with the
condition of the rule that cites it, and only where each side has exactly one quantifier, so that a
quote that merely mentions "all players" elsewhere raises nothing. Counts ("deal 4 cards", 「2枚」)
are compared with the count of the draw or repetition the quote annotates, when it has one.

A false finding costs a translator's trust: every reading here errs on the side of silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rulecheck.dsl import ir
from rulecheck.dsl.checker import const_value

from .findings import Finding, Quote

#: The four shapes a quantified condition takes (negation folded in: "not every" is "some not").
SOME, NONE, EVERY, SOME_NOT = "some", "none", "every", "some-not"
WORDS = {SOME: "some player does", NONE: "no player does", EVERY: "every player does", SOME_NOT: "some player does not"}
_NEGATED = {SOME: NONE, NONE: SOME, EVERY: SOME_NOT, SOME_NOT: EVERY}


@dataclass(frozen=True)
class Said:
    """A quantified condition as a quote words it."""

    shape: str
    text: str  # the clause
    lang: str


# ---- reading quotes -------------------------------------------------------------------------------

_EN_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|in case)\b(?P<clause>[^:;.?,]*)", re.I)
_EN_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bnot\s+(?:every(?:one|body)?|all)\b", re.I), SOME_NOT),
    (re.compile(r"\b(?:any(?:one|body)?|some(?:one|body)?|a\s+player)\s+(?:did|does|do|has|have|is|was|were)(?:n't|\s+not)\b", re.I), SOME_NOT),
    (re.compile(r"\b(?:no\s*one|nobody|no\s+players?|none\s+of\s+the\s+players|not\s+any(?:one|body)?)\b", re.I), NONE),
    (re.compile(r"\b(?:every(?:one|body)?|all\s+(?:the\s+)?players|each\s+player)\b", re.I), EVERY),
    (re.compile(r"\b(?:any(?:one|body)?|some(?:one|body)?|at\s+least\s+one\s+player)\b", re.I), SOME),
]
_JA_CONDITION = re.compile(r"(?P<clause>[^。、．，]*?)(?:なら(?:ば)?|たら|場合|とき|時)")
_JA_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"誰も[^。、]*?(?:ない|ず|なかった|ません)"), NONE),
    (re.compile(r"(?:全員|すべての?プレイヤー|全ての?プレイヤー)[^。、]*?(?:ない|ず|なかった|ません)"), SOME_NOT),
    (re.compile(r"(?:全員|すべての?プレイヤー|全ての?プレイヤー)"), EVERY),
    (re.compile(r"(?:誰か|いずれか|1人でも|一人でも)"), SOME),
]


def read_conditions(text: str, lang: str) -> list[Said]:
    """The quantified conditions of a quote: one per conditional clause that has exactly one
    quantifier phrase (the first pattern that matches wins, most specific first)."""
    if lang.startswith("ja"):
        clauses, patterns = [m.group("clause") for m in _JA_CONDITION.finditer(text)], _JA_PATTERNS
    else:
        clauses, patterns = [m.group("clause") for m in _EN_CONDITION.finditer(text)], _EN_PATTERNS
    out: list[Said] = []
    for clause in clauses:
        found: list[tuple[int, int, str]] = []
        for pattern, shape in patterns:
            for m in pattern.finditer(clause):
                if not any(a < m.end() and m.start() < b for a, b, _ in found):
                    found.append((m.start(), m.end(), shape))
        if len(found) == 1:
            out.append(Said(found[0][2], clause.strip(), lang))
    return out


# ---- the formal condition -------------------------------------------------------------------------


def shape_of(e: ir.Expr, lets: dict[str, ir.Expr], negated: bool = False) -> str | None:
    """The quantifier shape of a condition over players (any, all, a set of players being empty or
    not), negation folded in; None when it has no single such shape."""
    if isinstance(e, ir.Unary) and e.op == "not":
        return shape_of(e.operand, lets, not negated)
    shape: str | None = None
    if isinstance(e, ir.Agg) and e.op in ("any", "all") and _over_players(e.coll, lets):
        shape = SOME if e.op == "any" else EVERY
    elif isinstance(e, ir.BinOp) and e.op in (">", ">=", "==", "!=", "<", "<="):
        sized = _sized(e.left, lets)
        n = const_value(e.right, {})
        if sized and isinstance(n, int) and not isinstance(n, bool):
            if (e.op, n) in ((">", 0), (">=", 1), ("!=", 0)):
                shape = SOME
            elif (e.op, n) in (("==", 0), ("<", 1), ("<=", 0)):
                shape = NONE
    if shape is None:
        return None
    return _NEGATED[shape] if negated else shape


def _over_players(coll: ir.Expr, lets: dict[str, ir.Expr]) -> bool:
    if isinstance(coll, ir.Local) and coll.name in lets:
        coll = lets[coll.name]
    return getattr(coll.type, "elem", None) is not None and coll.type.elem.show() == "player"  # type: ignore[attr-defined]


def _sized(e: ir.Expr, lets: dict[str, ir.Expr]) -> bool:
    """size(S) or count(...) of a set of players."""
    if isinstance(e, ir.Builtin) and e.op in ("size", "count") and len(e.args) == 1:
        return _over_players(e.args[0], lets)
    if isinstance(e, ir.Agg) and e.op == "count":
        return _over_players(e.coll, lets)
    return False


# ---- counts ------------------------------------------------------------------------------------

_EN_COUNT = re.compile(r"(?<![\w.,/-])(?P<n>[0-9]+)\s+(?P<noun>cards?|chips?|tokens?|pieces?|tiles?|dice|rounds?|turns?|times|tricks?)\b", re.I)
_JA_COUNT = re.compile(r"(?<![0-9０-９.])(?P<n>[0-9０-９]+)\s*(?P<noun>枚|個|コ|回|巡|周|ラウンド|ターン)")
_DRAWN = ("card", "chip", "token", "piece", "tile", "dice", "枚", "個", "コ")
_REPEATED = ("round", "turn", "time", "trick", "回", "巡", "周", "ラウンド", "ターン")


def read_counts(text: str, lang: str) -> list[tuple[int, str, str]]:
    """(number, noun, phrase) for each count of things or of repetitions a quote names in digits."""
    pattern = _JA_COUNT if lang.startswith("ja") else _EN_COUNT
    out = []
    for m in pattern.finditer(text):
        n = int(m.group("n").translate(str.maketrans("０１２３４５６７８９", "0123456789")))
        out.append((n, m.group("noun").lower(), m.group(0)))
    return out


# ---- the check -------------------------------------------------------------------------------------


def _lets_before(body: list[ir.Stmt], target: ir.Stmt) -> dict[str, ir.Expr]:
    """The `let` bindings of a block (and enclosing blocks) before a statement."""
    out: dict[str, ir.Expr] = {}

    def walk(block: list[ir.Stmt]) -> bool:
        for s in block:
            if s is target:
                return True
            if isinstance(s, ir.Let):
                out[s.name] = s.value
            for child in _children(s):
                saved = dict(out)
                if walk(child):
                    return True
                out.clear()
                out.update(saved)
        return False

    walk(body)
    return out


def _children(s: ir.Stmt) -> list[list[ir.Stmt]]:
    return [v for v in vars(s).values() if isinstance(v, list) and v and isinstance(v[0], ir.Stmt)]


def _bodies(rules: ir.Ruleset) -> list[tuple[str, list[ir.Stmt]]]:
    out: list[tuple[str, list[ir.Stmt]]] = [("flow", rules.flow)]
    out += [(p.name, p.body) for p in rules.procs.values() if p.body]
    for amb in rules.ambiguities.values():
        for r in amb.readings:
            out += [(f"{p.name} (reading {r.name} of {amb.name})", p.body) for p in r.procs.values() if p.body]
    return out


def _statements(block: list[ir.Stmt]) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for s in block:
        out.append(s)
        for child in _children(s):
            out += _statements(child)
    return out


def check_conditions_and_counts(rules: ir.Ruleset) -> list[Finding]:
    """Translation findings where a quote's quantified condition, or a count it names, disagrees
    with the rule that cites it."""
    out: list[Finding] = []
    lang0 = rules.game.language
    for subject, body in _bodies(rules):
        for s in _statements(body):
            sites: list[tuple[ir.Source | None, ir.Expr | None]] = []
            if isinstance(s, ir.If):
                sites = [(s.source, s.cond), (s.else_source, ir.Unary(s.cond.type, s.cond.span, "not", s.cond) if s.else_source else None)]
            for src, cond in sites:
                if src is None or cond is None:
                    continue
                formal = shape_of(cond, _lets_before(body, s))
                if formal is None:
                    continue
                for q in src.quotes:
                    lang = q.lang or lang0
                    for said in read_conditions(q.text, lang):
                        if said.shape != formal:
                            out.append(_condition_finding(subject, src, said, formal))
            count = _count_of(s)
            if count is not None and s.source is not None:
                noun_kind = _DRAWN if isinstance(s, ir.Draw) else _REPEATED
                for q in s.source.quotes:
                    counts = [c for c in read_counts(q.text, q.lang or lang0) if c[1].startswith(noun_kind) or c[1] in noun_kind]
                    if counts and all(n != count for n, _, _ in counts):
                        out.append(_count_finding(subject, s.source, counts[0], count, s))
    return out


def _count_of(s: ir.Stmt) -> int | None:
    if isinstance(s, ir.Draw):
        n = const_value(s.count, {})
    elif isinstance(s, ir.Repeat):
        n = const_value(s.count, {})
    else:
        return None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def _condition_finding(subject: str, src: ir.Source, said: Said, formal: str) -> Finding:
    return Finding(
        kind="translation", severity="warning", status="static", subject=subject, title="", message="",
        span=src.span, quotes=[Quote(q.text, q.lang) for q in src.quotes], verdict="quantifier",
        details={"check": "quantifier", "said": said.shape, "formal": formal, "clause": said.text, "lang": said.lang},
    )


def _count_finding(subject: str, src: ir.Source, said: tuple[int, str, str], formal: int, s: ir.Stmt) -> Finding:
    n, _, phrase = said
    return Finding(
        kind="translation", severity="warning", status="static", subject=subject, title="", message="",
        span=src.span, quotes=[Quote(q.text, q.lang) for q in src.quotes], verdict="count",
        details={"check": "count", "said": n, "formal": formal, "phrase": phrase, "what": "draws" if isinstance(s, ir.Draw) else "repeats"},
    )
