"""The translation check: do the numbers a rule's quotes name agree with the formal rule, and do the
language editions of one rule agree with each other?

A rule may cite its rulebook sentence in several languages (``source "more than 5 present cards you
got" @ja "プレゼント5コ以上"``).  A reader per language finds comparative and quantity wording in each
quote ("more than 5", 5コ以上, "just 4") and the operator it means; the comparisons of the IR that
the quote annotates are collected the same way.  Both are compared as *where they draw the line*:
on integers ``x > 4``, ``x >= 5`` and ``x < 5`` all split the numbers between 4 and 5, so wording in a
negated context ("if nobody has more than 5") still pairs with its formal rule.  A finding is made
only for a near miss (the same number read strictly by one side and inclusively by the other, or
"exactly" against "or more"), never merely because two numbers differ: a false finding costs a
translator's trust.

This module reads text and the IR; it has no solver code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.checker import const_value
from rulecheck.dsl.quotes import normalize
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TInt
from rulecheck.dsl.walk import walk_stmts
from rulecheck.reports import wording

from .findings import Finding, Quote

# ---- phrases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Phrase:
    """A comparison of a quantity with a number, as worded in a quote."""

    lang: str  # the reader that found it: "en", "ja"
    op: str  # ">", ">=", "<", "<=", "==", "!="
    number: int
    start: int  # the phrase is text[start:end] of the quote
    end: int
    text: str


_NEGATE = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!=", "!=": "=="}
_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}

_DIGITS = "0-9０-９"
_FULLWIDTH = str.maketrans("０１２３４５６７８９", "0123456789")


def _int(digits: str) -> int:
    return int(digits.translate(_FULLWIDTH).replace(",", ""))


def _drop_overlaps(found: list[Phrase]) -> list[Phrase]:
    out: list[Phrase] = []
    for p in sorted(found, key=lambda p: (p.start, -(p.end - p.start))):
        if not out or p.start >= out[-1].end:
            out.append(p)
    return out


# -- English --

_EN_NUM = rf"[{_DIGITS}]+(?:,[{_DIGITS}]{{3}})*(?![{_DIGITS}])"
# After the number: a decimal, a list ("2,4,6"), a percentage, a fraction, a clock time, an ordinal or
# a range ("2-3 players") is not an integer threshold.
_EN_BAD_AFTER = re.compile(rf"[.,．，][{_DIGITS}]|[%％]|/[{_DIGITS}]|:[{_DIGITS}]|(?:st|nd|rd|th)\b|\s*[-–~～〜][\s]*[{_DIGITS}]", re.I)

_EN_PREFIX: list[tuple[str, str]] = [
    (r"more\s+than", ">"),
    (r"greater\s+than", ">"),
    (r"exceed(?:s|ed|ing)?", ">"),
    (r"over", ">"),
    (r"at\s+least", ">="),
    (r"a\s+minimum\s+of", ">="),
    (r"less\s+than", "<"),
    (r"fewer\s+than", "<"),
    (r"under", "<"),
    (r"at\s+most", "<="),
    (r"a\s+maximum\s+of", "<="),
    (r"up\s+to", "<="),
    (r"within", "<="),
    (r"exactly", "=="),
    (r"just", "=="),
]
_EN_PREFIX_RE = re.compile(
    r"(?<![\w-])(?:(?P<neg>no|not|never)\s+)?(?P<w>" + "|".join(f"(?:{w})" for w, _ in _EN_PREFIX) + rf")\s+(?P<num>{_EN_NUM})",
    re.I,
)
_EN_SUFFIX: list[tuple[str, str]] = [
    (r"or\s+more", ">="), (r"or\s+greater", ">="), (r"or\s+above", ">="), (r"or\s+over", ">="),
    (r"and\s+over", ">="), (r"and\s+up", ">="), (r"and\s+above", ">="), (r"and\s+more", ">="),
    (r"or\s+less", "<="), (r"or\s+fewer", "<="), (r"or\s+below", "<="), (r"or\s+under", "<="),
    (r"and\s+under", "<="), (r"and\s+below", "<="),
]
# "5 or more", "3 players or more": up to three plain words between the number and "or more".
_EN_SUFFIX_RE = re.compile(
    rf"(?<![\w.,/-])(?P<num>{_EN_NUM})(?P<mid>(?:\s+[A-Za-z][A-Za-z'-]*){{0,3}}?)\s+(?P<w>"
    + "|".join(f"(?:{w})" for w, _ in _EN_SUFFIX) + r")(?![\w-])",
    re.I,
)
# Words between the number and "or more" that make it something else ("5 more or less": about 5).
_EN_MID_STOP = {"more", "less", "fewer", "than", "or", "and", "not", "no", "times"}
# "turn over 2 cards", "hand over 2 chips": over/under right after these words is a phrasal verb,
# not "more than" / "less than".
_EN_PHRASAL = {
    "turn", "turns", "turned", "turning", "flip", "flips", "flipped", "flipping", "hand", "hands", "handed",
    "handing", "pass", "passes", "passed", "passing", "take", "takes", "took", "taken", "taking", "give",
    "gives", "gave", "given", "giving", "carry", "carries", "carried", "carrying", "roll", "rolls", "rolled",
    "rolling", "start", "starts", "started", "it", "them", "from", "left",
}
# "place the token under 3 cards": after these verbs, a few words back, over/under is a place.
_EN_PLACE = {
    "put", "puts", "putting", "place", "places", "placed", "placing", "lay", "lays", "laid", "laying", "lie",
    "lies", "lying", "slide", "slides", "slid", "sliding", "tuck", "tucks", "tucked", "tucking", "hide", "hides",
    "hid", "hidden", "hiding", "stack", "stacks", "stacked", "stacking", "move", "moves", "moved", "moving",
    "go", "goes", "went", "gone", "going", "come", "comes", "came", "coming", "spread", "spreads", "fall",
    "falls", "fell", "fallen", "jump", "jumps", "jumped", "jumping", "leap", "leaps", "leapt", "fly", "flies",
    "flew",
}
# "over 3 rounds" is a duration ("during"), not "more than 3 rounds".
_EN_DURATION = re.compile(r"\s+(?:turns?|rounds?|minutes?|hours?|seconds?|games?|years?|days?|weeks?|moves?|tricks?)\b", re.I)
# "just 2 more cards" means "only 2 more", not "exactly 2".
_EN_JUST_STOP = re.compile(r"\s+(?:more|less|fewer|extra|additional|other|others|times)\b", re.I)
_CLAUSE_BEFORE = re.compile(r"[^.;:!?,()\n]*$")


def _en_op(word: str, table: list[tuple[str, str]]) -> str:
    for pattern, op in table:
        if re.fullmatch(pattern, word, re.I):
            return op
    raise AssertionError(word)  # pragma: no cover - the regex only matches listed words


def read_english(text: str) -> list[Phrase]:
    """Comparative and quantity wording in English, with the number it applies to.

    Numbers must be written in digits: number words are too often not counts ("more than one way
    to read it", "no one", "one of them")."""
    found: list[Phrase] = []
    for m in _EN_PREFIX_RE.finditer(text):
        if _EN_BAD_AFTER.match(text, m.end()):
            continue
        word = re.sub(r"\s+", " ", m.group("w").lower())
        op = _en_op(word, _EN_PREFIX)
        clause = _CLAUSE_BEFORE.search(text, 0, m.start())
        recent = re.findall(r"[a-z']+", clause.group(0).lower())[-4:] if clause else []
        if word in ("over", "under") and ((recent and recent[-1] in _EN_PHRASAL) or any(w in _EN_PLACE for w in recent)):
            continue  # "place the token under 3 cards": the verb may stand a few words before
        if word == "over" and _EN_DURATION.match(text, m.end()):
            continue
        if word == "just" and _EN_JUST_STOP.match(text, m.end()):
            continue
        if m.group("neg"):
            op = _NEGATE[op]
        found.append(Phrase("en", op, _int(m.group("num")), m.start(), m.end(), m.group(0)))
    for m in _EN_SUFFIX_RE.finditer(text):
        if _EN_BAD_AFTER.match(text, m.end("num")):
            continue
        mid = m.group("mid").lower().split()
        if any(w in _EN_MID_STOP for w in mid):
            continue
        op = _en_op(re.sub(r"\s+", " ", m.group("w").lower()), _EN_SUFFIX)
        found.append(Phrase("en", op, _int(m.group("num")), m.start(), m.end(), m.group(0)))
    found += read_plus_minus(text, "en")
    return _drop_overlaps(found)


_PLUS_MINUS_RE = re.compile(rf"(?:±|\+/?-)\s*(?P<num>[{_DIGITS}]+)(?![{_DIGITS}.．])")


def read_plus_minus(text: str, lang: str) -> list[Phrase]:
    """"±N", a difference of at most N either way, in any language: a difference compared with
    N (``abs(a - b) <= N``)."""
    return [Phrase(lang, "<=", _int(m.group("num")), m.start(), m.end(), m.group(0)) for m in _PLUS_MINUS_RE.finditer(text)]


# -- Japanese --

_KANJI_DIGIT = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_KANJI_UNIT = {"十": 10, "百": 100, "千": 1000}
_KANJI_CHARS = "".join(_KANJI_DIGIT) + "".join(_KANJI_UNIT)


def kanji_number(s: str) -> int | None:
    """A simple kanji numeral (五, 十二, 二十五, 百, 一〇), or None.  A lone 〇 is a placeholder
    ("ぴったり〇Point": "exactly ○ points"), not zero."""
    if not s or any(ch not in _KANJI_CHARS for ch in s):
        return None
    if not any(ch in _KANJI_UNIT for ch in s):
        if s == "〇":
            return None
        return int("".join(str(_KANJI_DIGIT[ch]) for ch in s))
    total = 0
    digit: int | None = None
    last_unit = 10_000
    for ch in s:
        if ch in _KANJI_DIGIT:
            if digit is not None or _KANJI_DIGIT[ch] == 0:
                return None  # 二三十, 十〇: not a simple numeral
            digit = _KANJI_DIGIT[ch]
        else:
            unit = _KANJI_UNIT[ch]
            if unit >= last_unit:
                return None  # units must descend: 百二十, never 十百
            total += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
    return total + (digit or 0)


_JA_NUM = rf"(?P<num>[{_DIGITS}]+|[{_KANJI_CHARS}]+)"
# Counters between a number and the comparison word (5コ以上, 3枚以下, 10 歳以上, 25Point).  Ordinal
# counters (番目, 枚目, 位) and clock times (時) are deliberately absent: they are not quantities.
_JA_COUNTER = (
    r"(?:[ァ-ヺ][ァ-ヺー]{0,5}|種類|箇所|か所|ヶ所|カ所|時間|"
    r"[個枚点人名回度つ本匹羽頭組色種歩手周巡戦勝敗局歳才分秒日年件段列行台冊粒]|(?i:points?|pts?|p))"
)
_JA_EXACT = r"ちょうど|ぴったり|丁度|ピッタリ"
_JA_AFTER: list[tuple[str, str]] = [
    (r"以上", ">="),
    (r"以下", "<="),
    (r"未満", "<"),
    (r"以内", "<="),
    (r"を?\s*[超越]え(?:(?P<neg>ない|ず|ません)|る|たら|た|て|れば)?", ">"),
    (r"超(?!え)", ">"),
    (r"を\s*上回(?:(?P<neg2>らない|らず)|る|った|って)?", ">"),
    (r"を\s*下回(?:(?P<neg3>らない|らず)|る|った|って)?", "<"),
    (r"より\s*(?:多|大き)(?:い|く)?", ">"),
    (r"より\s*(?:少な|小さ)(?:い|く)?", "<"),
    (_JA_EXACT, "=="),
]
_JA_AFTER_RE = re.compile(
    rf"(?<![{_DIGITS}{_KANJI_CHARS}.．]){_JA_NUM}\s*(?:{_JA_COUNTER})?\s*(?P<w>"
    + "|".join(f"(?:{w})" for w, _ in _JA_AFTER) + ")"
)
_JA_BEFORE_RE = re.compile(
    rf"(?P<w>{_JA_EXACT})\s*{_JA_NUM}(?![{_DIGITS}{_KANJI_CHARS}])(?:\s*{_JA_COUNTER})?"
)
_CJK = re.compile(r"[\u3400-\u9fff]")
# Ideographs that may stand right before a kanji numeral in a quantity: 合計十点, 各三枚.
_JA_NUM_PREFIX_OK = {"計", "各"}


def _ja_number(text: str, m: re.Match[str]) -> int | None:
    s = m.group("num")
    start = m.start("num")
    prev = text[start - 1] if start > 0 else ""
    if prev and prev in "第～〜~-–−":
        return None  # 第3: an ordinal; 2～5: a range
    if re.fullmatch(rf"[{_DIGITS}]+", s):
        if re.match(rf"[.．,，][{_DIGITS}]", text[m.end("num"):]):
            return None  # a decimal or a list
        return _int(s)
    # A kanji numeral inside a word (統一, 唯一) is not a number; 十分 is "enough".
    if _CJK.match(prev) and prev not in _JA_NUM_PREFIX_OK:
        return None
    if s == "十" and text[m.end("num"):].lstrip().startswith("分"):
        return None
    return kanji_number(s)


def read_japanese(text: str) -> list[Phrase]:
    """Comparative and quantity wording in Japanese (以上, 以下, 未満, 超/を超える, ちょうど,
    ぴったり, 以内) with the number before it (after it for ちょうど/ぴったり).

    A comparison word with no number right before it is not read: 「以上です」 ("that is all"),
    以下の ("the following")."""
    found: list[Phrase] = []
    for m in _JA_AFTER_RE.finditer(text):
        n = _ja_number(text, m)
        if n is None:
            continue
        word = m.group("w")
        op = next(op for pattern, op in _JA_AFTER if re.fullmatch(pattern, word))
        if any(g in m.groupdict() and m.group(g) for g in ("neg", "neg2", "neg3")):
            op = _NEGATE[op]  # を超えない: "not more than"
        found.append(Phrase("ja", op, n, m.start(), m.end(), m.group(0)))
    for m in _JA_BEFORE_RE.finditer(text):
        n = _ja_number(text, m)
        if n is None:
            continue
        rest = text[m.end():]
        if rest.startswith("時") and not rest.startswith("時間"):
            continue  # ちょうど5時: a clock time
        found.append(Phrase("ja", "==", n, m.start(), m.end(), m.group(0)))
    found += read_plus_minus(text, "ja")
    return _drop_overlaps(found)


READERS: dict[str, Callable[[str], list[Phrase]]] = {"en": read_english, "ja": read_japanese}
LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}


def read_phrases(text: str, lang: str | None = None) -> list[Phrase]:
    """The phrases of one text, by the reader of ``lang``, or by every reader when it is None.

    The check reads each quote with every reader because rulebooks mix languages (an English rule
    that quotes the Japanese card text it explains); a phrase's language is its reader's."""
    if lang is not None:
        reader = READERS.get(lang.split("-")[0].lower())
        return reader(text) if reader else []
    out = [p for reader in READERS.values() for p in reader(text)]
    return sorted(out, key=lambda p: (p.start, p.end, p.lang))


# ---- claims: where a comparison draws the line ---------------------------------------------------


def _holds(op: str, n: int, v: int) -> bool:
    return {">": v > n, ">=": v >= n, "<": v < n, "<=": v <= n, "==": v == n, "!=": v != n}[op]


def _is_point(op: str) -> bool:
    return op in ("==", "!=")


def _cut(op: str, n: int) -> int:
    """The first integer on the upper side of the line a comparison draws."""
    return n + 1 if op in (">", "<=") else n


def same_line(a: tuple[str, int], b: tuple[str, int], lo: int | None = None, hi: int | None = None) -> bool:
    """Do two comparisons split the integers of [lo, hi] into the same two parts (either way round)?

    ``x > 4``, ``x >= 5`` and ``x < 5`` do; on 2..4 players ``n == 4`` and ``n >= 4`` do too.  Both
    sides are constant between the values next to their numbers, so testing those values and the
    bounds decides it."""
    tests = {v for _, n in (a, b) for v in (n - 1, n, n + 1)} | {x for x in (lo, hi) if x is not None}
    tests = {v for v in tests if (lo is None or v >= lo) and (hi is None or v <= hi)}
    if not tests:
        return False
    same = [_holds(*a, v) == _holds(*b, v) for v in sorted(tests)]
    return all(same) or not any(same)


def near_miss(a: tuple[str, int], b: tuple[str, int]) -> bool:
    """Do two comparisons look like one threshold read two ways?  The line moved by one with the
    number kept ("more than 5" against 5以上), or "exactly N" against "N or more".  Different
    numbers, and "N or more" against a formal ``== N`` (match arms list values one by one), are not
    evidence of a translation slip."""
    (op_a, n_a), (op_b, n_b) = a, b
    if not _is_point(op_a) and not _is_point(op_b):
        return abs(_cut(op_a, n_a) - _cut(op_b, n_b)) == 1 and abs(n_a - n_b) <= 1
    if _is_point(op_a) and not _is_point(op_b):
        return n_a == n_b
    return False


def meaning(op: str, n: int) -> str:
    """A comparison in plain words, for a translator: '6 or more (> 5)'."""
    words = {
        ">": f"{n + 1} or more", ">=": f"{n} or more", "<": f"{n - 1} or fewer", "<=": f"{n} or fewer",
        "==": f"exactly {n}", "!=": f"anything but {n}",
    }[op]
    return f"{words} ({op} {n})"


@dataclass(frozen=True)
class FormalClaim:
    """A comparison of the IR with a constant number, the constant on the right."""

    op: str
    number: int
    span: Span
    shown: str
    lo: int | None  # the range of the compared expression's type
    hi: int | None
    #: False for a comparison inside a definition that cites its own quote: it may show that the
    #: quote agrees, but a near miss there is that definition's business, not this quote's.
    direct: bool = True


# ---- which IR each source annotates --------------------------------------------------------------


@dataclass
class Site:
    """A source and the IR it annotates: what the formal rule of its quotes is."""

    subject: str
    source: ir.Source
    roots: list[object] = field(default_factory=list)
    whole: bool = False  # walk nested sourced statements too (an ambiguity's readings)


def _def_roots(d: ir.Definition, own_cases_only: bool) -> list[object]:
    """A definition's expressions; with ``own_cases_only``, cases that cite their own quote are left
    to it."""
    roots: list[object] = [d.body, d.otherwise]
    for c in d.cases or []:
        if not (own_cases_only and c.source is not None):
            roots += [c.guard, c.value]
    return roots


def _stmt_roots(s: ir.Stmt) -> list[object]:
    """A statement's expressions and nested statements; an ``else`` with its own quote is left to it."""
    return [
        v for k, v in vars(s).items()
        if isinstance(v, (ir.Expr, list)) and not (k == "else_" and isinstance(s, ir.If) and s.else_source is not None)
    ]


def sites(rules: ir.Ruleset) -> list[Site]:
    """Every source of the ruleset (the ones ``dsl.quotes.all_sources`` lists), each once, with the
    IR it annotates.  Sources of data (enums, kinds, zones, variables, parameters, glossary terms)
    annotate no comparison; their language editions are still compared with each other."""
    out: list[Site] = []
    seen: set[int] = set()

    def add(subject: str, src: ir.Source | None, roots: list[object] | None = None, whole: bool = False) -> None:
        if src is not None and id(src) not in seen:
            seen.add(id(src))
            out.append(Site(subject, src, roots or [], whole))

    for gs in rules.game.sources:
        add("game", gs)
    for e in rules.enums.values():
        add(e.name, e.source)
    for k in rules.kinds.values():
        add(k.name, k.source)
        for attr, asrc in k.attr_sources.items():
            add(f"{k.name}.{attr}", asrc)
        for attr, prov in k.provenance.items():
            add(f"{k.name}.{attr}", prov.source)
    for z in rules.zones.values():
        add(z.name, z.source)
    for v in rules.vars.values():
        add(v.name, v.source)
    for par in rules.params.values():
        add(par.name, par.source)
    defs: list[tuple[str, ir.Definition]] = [(d.name, d) for d in rules.defs.values()]
    procs: list[tuple[str, ir.Procedure]] = [(p.name, p) for p in rules.procs.values()]
    for amb in rules.ambiguities.values():
        roots: list[object] = []
        for r in amb.readings:
            for d in r.defs.values():
                roots += _def_roots(d, own_cases_only=False)
            roots += [p.body for p in r.procs.values() if p.body]
        for asrc in amb.sources:
            add(amb.name, asrc, roots, whole=True)
        for r in amb.readings:
            defs += [(f"{d.name} (reading {r.name} of {amb.name})", d) for d in r.defs.values()]
            procs += [(f"{p.name} (reading {r.name} of {amb.name})", p) for p in r.procs.values()]
    for name, d in defs:
        add(name, d.source, _def_roots(d, own_cases_only=True))
        for c in d.cases or []:
            add(f"{name}, case {c.name}", c.source, [c.guard, c.value])
    add("flow", rules.flow_source, [rules.flow])
    bodies: list[tuple[str, list[ir.Stmt]]] = [("flow", rules.flow)]
    for name, proc in procs:
        add(name, proc.source, [proc.body] if proc.body else [])
        if proc.body:
            bodies.append((name, proc.body))
    for name, body in bodies:
        for st in walk_stmts(body):
            add(name, st.source, _stmt_roots(st))
            if isinstance(st, ir.If):
                add(name, st.else_source, [st.cond, st.else_])
    for inv in rules.invariants:
        add(inv.name, inv.source, [inv.expr])
    for t in rules.terms:
        add(t.term, t.source)
    return out


Env = dict[str, int]


def _const(x: ir.Expr, given: dict[str, ir.ParamInfo], env: Env) -> int | None:
    if not isinstance(x.type, TInt):
        return None  # enum values and components are numbered too, but they are not quantities
    if isinstance(x, ir.Local):
        return env.get(x.name)
    v = const_value(x, given)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _bound(x: ir.Expr, env: Env) -> bool:
    return isinstance(x, ir.Local) and x.name in env


def _claims_of(e: ir.Expr, given: dict[str, ir.ParamInfo], env: Env, direct: bool) -> list[FormalClaim]:
    if not isinstance(e, ir.BinOp):
        return []
    if e.op in _FLIP:
        lv, rv = _const(e.left, given, env), _const(e.right, given, env)
        if rv is not None and lv is None and isinstance(e.left.type, TInt):
            op, n, other = e.op, rv, e.left
        elif lv is not None and rv is None and isinstance(e.right.type, TInt):
            op, n, other = _FLIP[e.op], lv, e.right  # 5 <= x is x >= 5
        else:
            return []
        t = other.type
        assert isinstance(t, TInt)
        # A constant passed by this rule (passes(score[p], 50)) is this rule's number.
        d = direct or _bound(e.left, env) or _bound(e.right, env)
        return [FormalClaim(op, n, e.span, f"{op} {n}", t.lo, t.hi, d)]
    if e.op == "in" and isinstance(e.right, ir.IntRange) and isinstance(e.left.type, TInt) and _const(e.left, given, env) is None:
        lo, hi = _const(e.right.lo, given, env), _const(e.right.hi, given, env)
        if lo is None or hi is None:
            return []
        t = e.left.type
        shown = f"in {lo}..{hi}"
        d = direct or _bound(e.right.lo, env) or _bound(e.right.hi, env)
        if lo == hi:
            return [FormalClaim("==", lo, e.span, shown, t.lo, t.hi, d)]
        return [FormalClaim(">=", lo, e.span, shown, t.lo, t.hi, d), FormalClaim("<=", hi, e.span, shown, t.lo, t.hi, d)]
    return []


#: How many (definition, constant arguments) pairs one source may visit: calls are followed to read
#: ``passes(score[p], 50)`` as ``score[p] > 50``, and this keeps a deep call graph cheap.
MAX_CALLS = 500


def formal_claims(rules: ir.Ruleset, site: Site) -> list[FormalClaim]:
    """The comparisons with a constant number in the IR a source annotates, including the
    definitions it uses (their meaning is part of the rule; a constant argument is the constant of a
    comparison with the parameter), but not nested statements that cite a quote of their own."""
    given = {n: p for n, p in rules.params.items() if p.provenance.kind == "given"}
    versions: dict[str, list[ir.Definition]] = {}
    for d in rules.defs.values():
        versions.setdefault(d.name, []).append(d)
    for a in rules.ambiguities.values():
        for r in a.readings:
            for d in r.defs.values():
                versions.setdefault(d.name, []).append(d)
    out: list[FormalClaim] = []
    visited: set[tuple[int, tuple[tuple[str, int], ...], bool]] = set()
    stack: list[tuple[object, Env, bool]] = [(r, {}, True) for r in site.roots]
    while stack:
        n, env, direct = stack.pop()
        if isinstance(n, list):
            stack.extend((x, env, direct) for x in n)
        elif isinstance(n, ir.Stmt):
            if site.whole:
                stack.extend((v, env, direct) for v in vars(n).values() if isinstance(v, (ir.Expr, list)))
            elif n.source is None:
                stack.extend((v, env, direct) for v in _stmt_roots(n))
        elif isinstance(n, ir.Expr):
            out += _claims_of(n, given, env, direct)
            if isinstance(n, ir.CallDef):
                for d in versions.get(n.name, []):
                    bound: Env = {}
                    for (name, _), arg in zip(d.formals, n.args):
                        k = _const(arg, given, env)
                        if k is not None:
                            bound[name] = k
                    key = (id(d), tuple(sorted(bound.items())), direct)
                    if key not in visited and len(visited) < MAX_CALLS:
                        visited.add(key)
                        own = direct and d.source is None
                        stack += [(d.body, bound, own), (d.otherwise, bound, own)]
                        for case in d.cases or []:
                            mine = own and case.source is None
                            stack += [(case.guard, bound, mine), (case.value, bound, mine)]
            if isinstance(n, ir.Agg):
                inner = {k: v for k, v in env.items() if k != n.var}  # the generator's variable hides a parameter
                stack += [(n.coll, env, direct), (n.elem, inner, direct), (n.filt, inner, direct)]
            else:
                stack.extend((v, env, direct) for v in vars(n).values() if isinstance(v, (ir.Expr, list)))
    # The same comparison reached both ways counts as this rule's own.
    uniq: dict[tuple[int, int, int, int, str, int], FormalClaim] = {}
    for c in out:
        key2 = (c.span.line, c.span.col, c.span.end_line, c.span.end_col, c.op, c.number)
        if key2 not in uniq or (c.direct and not uniq[key2].direct):
            uniq[key2] = c
    return [uniq[k] for k in sorted(uniq)]


# ---- the check -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Read:
    """A phrase of one quote of a site."""

    quote: int
    phrase: Phrase

    @property
    def claim(self) -> tuple[str, int]:
        return (self.phrase.op, self.phrase.number)


def _agrees(r: _Read, f: FormalClaim) -> bool:
    return same_line(r.claim, (f.op, f.number), f.lo, f.hi)


_CLAUSE_END = set("。．.!?！？;；:：,，、\n\"“”「」『』()（）[]【】")


def _excerpt(text: str, p: Phrase, limit: int = 50) -> str:
    """The clause around a phrase: what a translator looks for in the rulebook."""
    a = p.start
    while a > 0 and text[a - 1] not in _CLAUSE_END and p.start - a < limit:
        a -= 1
    b = p.end
    while b < len(text) and text[b] not in _CLAUSE_END and b - p.end < limit:
        b += 1
    head = "…" if a > 0 and text[a - 1] not in _CLAUSE_END else ""
    tail = "…" if b < len(text) and text[b] not in _CLAUSE_END else ""
    return head + text[a:b].strip() + tail


def _quoted(lang: str, s: str) -> str:
    return f"「{s}」" if lang == "ja" else f"'{s}'"








def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _check_site(rules: ir.Ruleset, site: Site) -> list[Finding]:
    quotes = site.source.quotes
    reads = [_Read(i, p) for i, q in enumerate(quotes) for p in read_phrases(q.text)]
    if not reads:
        return []
    formal = formal_claims(rules, site)

    def edition_has(quote: int, lang: str, claim: tuple[str, int]) -> bool:
        return any(same_line(o.claim, claim) for o in reads if o.quote == quote and o.phrase.lang == lang)

    supported = {r: any(_agrees(r, f) for f in formal) for r in reads}
    odd: set[_Read] = set()
    for r in reads:
        if supported[r]:
            continue
        if any(f.direct and near_miss(r.claim, (f.op, f.number)) for f in formal):
            odd.add(r)
            continue
        # Another language edition of the same rule words the same threshold the other way.
        for o in reads:
            if o.phrase.lang != r.phrase.lang and (near_miss(r.claim, o.claim) or near_miss(o.claim, r.claim)) \
                    and not edition_has(o.quote, o.phrase.lang, r.claim):
                odd.add(r)
    if not odd:
        return []

    # Group what talks about the same threshold, so one finding tells the whole story.
    nodes: list[_Read | FormalClaim] = [*reads, *formal]
    parent = list(range(len(nodes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            b = nodes[j]
            if isinstance(a, _Read) and isinstance(b, _Read):
                linked = same_line(a.claim, b.claim) or near_miss(a.claim, b.claim) or near_miss(b.claim, a.claim)
            elif isinstance(a, _Read) and isinstance(b, FormalClaim):
                linked = _agrees(a, b) or (b.direct and near_miss(a.claim, (b.op, b.number)))
            else:
                linked = False
            if linked:
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(nodes)):
        groups.setdefault(find(i), []).append(i)

    out: list[Finding] = []
    for members in groups.values():
        group_reads = [nodes[i] for i in members if isinstance(nodes[i], _Read)]
        group_formal = [nodes[i] for i in members if isinstance(nodes[i], FormalClaim)]
        rs: list[_Read] = [r for r in group_reads if isinstance(r, _Read)]
        fs: list[FormalClaim] = [f for f in group_formal if isinstance(f, FormalClaim)]
        if not any(r in odd for r in rs):
            continue
        out.append(_finding(site, rs, fs, supported, odd))
    return out


def _finding(site: Site, rs: list[_Read], fs: list[FormalClaim], supported: dict[_Read, bool], odd: set[_Read]) -> Finding:
    """A threshold finding: the facts its sentences are made from (reports/wording.py)."""
    quotes = site.source.quotes
    rs = sorted(rs, key=lambda r: (r.quote, r.phrase.start, r.phrase.lang))
    fs = sorted(fs, key=lambda f: (f.span.line, f.span.col, f.op, f.number))
    others = [r for r in rs if not supported[r]]
    details = {
        "phrases": [
            {
                "quote": r.quote, "lang": r.phrase.lang, "text": r.phrase.text, "start": r.phrase.start, "end": r.phrase.end,
                "op": r.phrase.op, "number": r.phrase.number, "means": meaning(r.phrase.op, r.phrase.number),
                "agrees_with_rule": supported[r], "excerpt": _excerpt(quotes[r.quote].text, r.phrase), "flagged": r in odd,
                # with no formal comparison, the editions are told apart by where they draw the line
                "side": 0 if not fs and others and same_line(r.claim, others[0].claim) else 1,
            }
            for r in rs
        ],
        "formal": [
            {"op": f.op, "number": f.number, "shown": f.shown, "means": meaning(f.op, f.number), "line": f.span.line, "col": f.span.col}
            for f in fs
        ],
    }
    return Finding(
        kind="translation", severity="warning", status="static", subject=site.subject, title="", message="",
        span=site.source.span, quotes=[Quote(q.text, q.lang) for q in quotes], details=details, verdict="threshold",
    )


def check_translations(rules: ir.Ruleset) -> list[Finding]:
    """Findings where a quote's comparison wording disagrees with the formal rule it annotates, or
    where two language editions of one rule word the same threshold differently."""
    declared: dict[str, list[str]] = {}
    for amb in rules.ambiguities.values():
        for src in amb.sources:
            for q in src.quotes:
                names = declared.setdefault(normalize(q.text), [])
                if amb.name not in names:
                    names.append(amb.name)
    out: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    # Rules before ambiguities: a sentence both cite is reported at the rule, naming the ambiguity.
    for site in sorted(sites(rules), key=lambda s: s.whole):
        for f in _check_site(rules, site):
            # A sentence cited by several rules with no number in their IR: say it once.
            said = tuple((p["lang"], p["text"], p["op"], p["number"]) for p in f.details["phrases"])
            key: tuple[object, ...] = (said, tuple((q.lang, q.text) for q in f.quotes)) if not f.details["formal"] else (id(site),)
            if key in seen:
                continue
            seen.add(key)
            names = _unique([n for q in f.quotes for n in declared.get(normalize(q.text), [])])
            if names:
                f.details["ambiguities"] = names
            out.append(f)
    # quantifiers, negation and counts: each finding names the ambiguity that already asks it
    from .quantifiers import check_conditions_and_counts

    for f in check_conditions_and_counts(rules):
        names = _unique([n for q in f.quotes for n in declared.get(normalize(q.text), [])])
        if names:
            f.details["ambiguities"] = names
        out.append(f)
    wording.apply(out)
    return sorted(out, key=lambda f: (f.span.line, f.span.col, f.subject, f.title))


__all__ = [
    "LANGUAGE_NAMES",
    "READERS",
    "FormalClaim",
    "Phrase",
    "Site",
    "check_translations",
    "formal_claims",
    "kanji_number",
    "meaning",
    "near_miss",
    "read_english",
    "read_japanese",
    "read_phrases",
    "same_line",
    "sites",
]
