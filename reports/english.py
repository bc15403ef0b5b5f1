"""The formal rules rendered back into plain English, construct by construct.

A translator who has never seen the rules language compares each rendered line with the rulebook
sentence it cites, so every line carries that sentence (its ``source``) and reads as a sentence,
not as syntax.  Names the ruleset describes (``desc`` strings) are spoken through their
description; arguments are put into the description where it names them.  The output is plain
text: the templates escape it for Markdown and HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TRecord, TSet, TText, Type
from rulecheck.dsl.values import show


@dataclass(frozen=True)
class Line:
    """One rendered sentence; ``depth`` is its nesting under the step that contains it."""

    depth: int
    text: str
    source: ir.Source | None = None


@dataclass
class DataTable:
    columns: list[str]
    notes: list[str]  # per column: "" for data the rulebook gives, else "assumed" / "unspecified"
    rows: list[list[str]]


@dataclass
class Block:
    """One declaration of the ruleset: a heading, its sentences, and the rulebook text it cites."""

    anchor: str
    kind: str  # "game", "enum", "kind", "zone", "variable", "parameter", "definition", "procedure", "flow", "invariant"
    heading: str
    formal: str  # how the rules file names it, so a reader can find it there
    span: Span
    sources: list[ir.Source]
    lines: list[Line]
    table: DataTable | None = None


@dataclass
class Section:
    anchor: str
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


_VOWEL = re.compile(r"^[aeiouAEIOU]")


def article(noun: str) -> str:
    return ("an " if _VOWEL.match(noun) else "a ") + noun


def join(items: list[str], last: str = "and") -> str:
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def human(name: str) -> str:
    """An identifier read aloud: ``chip_owner`` becomes "chip owner"."""
    return name.replace("_", " ").strip()


def quoted(text: str) -> str:
    return f"“{text}”"


def anchor(*parts: str) -> str:
    """A stable HTML id; names are identifiers already, the pattern only guards the format."""
    return "-".join(re.sub(r"[^A-Za-z0-9_-]", "-", p) for p in parts)


_CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least"}
_CMP_NEG = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_ARITH = {"+": "+", "-": "−", "*": "×"}
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


class English:
    """Renders the IR of one ruleset; every expression and statement kind has a sentence form."""

    def __init__(self, rules: ir.Ruleset) -> None:
        self.rules = rules

    # ---- words for types and values -------------------------------------------------------------

    def noun_of(self, t: Type) -> str:
        """What a value of this type is called when a variable is introduced ("a player q")."""
        if isinstance(t, TPlayer):
            return "player"
        if isinstance(t, TComp):
            if t.kind is None:
                return "component"
            k = self.rules.kinds[t.kind]
            return f"{k.name} card" if k.word == "card" else k.name
        if isinstance(t, TEnum):
            e = self.rules.enums[t.name]
            return e.label or human(e.name)
        if isinstance(t, TInt):
            return "number"
        if isinstance(t, TBool):
            return "yes-or-no answer"
        if isinstance(t, TPlace):
            return "place"
        if isinstance(t, TText):
            return "text"
        if isinstance(t, TSet):
            return f"set of {self.noun_of(t.elem)}s"
        if isinstance(t, TMap):
            return f"{self.noun_of(t.elem)} per player"
        return "value"

    def type_phrase(self, t: Type) -> str:
        """What values a datum can take, for declarations ("a number from 1 to 18")."""
        if isinstance(t, TBool):
            return "yes or no"
        if isinstance(t, TInt):
            if t.lo is not None and t.hi is not None:
                return f"a number from {t.lo} to {t.hi}"
            if t.lo is not None:
                return f"a number of at least {t.lo}"
            return "a number"
        if isinstance(t, TText):
            return "a text"
        if isinstance(t, TPlayer):
            return "a player"
        if isinstance(t, TPlace):
            return "a place (where a card or piece can be)"
        if isinstance(t, TEnum):
            return "one of " + join([quoted(x) for x in self.rules.enums[t.name].labels], "or")
        if isinstance(t, TComp):
            return article(self.noun_of(t))
        if isinstance(t, TSet):
            if isinstance(t.elem, TEnum):
                return "any number of " + join([quoted(x) for x in self.rules.enums[t.elem.name].labels], "and")
            return f"a set of {self.noun_of(t.elem)}s"
        if isinstance(t, TMap):
            return f"one {self.noun_of(t.elem)} per player"
        return t.show()

    def value(self, v: ir.Value, t: Type, quote_text: bool = True) -> str:
        if isinstance(t, TText):
            return quoted(str(v)) if quote_text else str(v)
        if isinstance(t, TSet):
            assert isinstance(v, frozenset)
            if not v:
                return "none"
            return ", ".join(self.value(x, t.elem) for x in sorted(v))
        return show(v, t, self.rules)

    # ---- expressions as noun phrases --------------------------------------------------------------

    def noun(self, e: ir.Expr) -> str:
        """The expression as a noun phrase: "c's rank", "the cards p holds"."""
        if isinstance(e, ir.Const):
            return self.const(e)
        if isinstance(e, ir.Local):
            return e.name
        if isinstance(e, ir.VarRef):
            v = self.rules.vars[e.name]
            return self.indexed(v.desc or f"the {human(v.name)}", v.index, e.index)
        if isinstance(e, ir.ParamRef):
            p = self.rules.params[e.name]
            return p.desc or f"the option {quoted(human(p.name))}"
        if isinstance(e, ir.ZoneRef):
            z = self.rules.zones[e.zone]
            return self.indexed(z.desc or f"the {human(z.name)}", z.index, e.index)
        if isinstance(e, ir.PlaceOf):
            return self.zone_phrase(e.zone, e.index)
        if isinstance(e, ir.AttrRef):
            if isinstance(e.obj, (ir.Local, ir.MapGet)):
                return f"{self.noun(e.obj)}'s {human(e.attr)}"
            return f"the {human(e.attr)} of {self.noun(e.obj)}"
        if isinstance(e, ir.CallDef):
            d = self.rules.defs.get(e.name) or self._varying_def(e.name)
            return self.call(d.desc, d.name, d.formals, e.args, clause=False)
        if isinstance(e, ir.Builtin):
            return self.builtin(e)
        if isinstance(e, ir.Unary):
            if e.op == "neg":
                return f"minus {self.operand(e.operand)}"
            return f"whether {self.neg(e.operand)}"
        if isinstance(e, ir.BinOp):
            if e.op in _ARITH:
                return f"{self.operand(e.left, e.op, False)} {_ARITH[e.op]} {self.operand(e.right, e.op, True)}"
            if e.op == "/":
                return f"{self.operand(e.left, e.op, False)} divided by {self.operand(e.right, e.op, True)}, rounded down"
            if e.op == "%":
                return f"the remainder of {self.operand(e.left, e.op, False)} divided by {self.operand(e.right, e.op, True)}"
            if e.op == "union":
                return f"{self.noun(e.left)} together with {self.noun(e.right)}"
            if e.op == "diff":
                return f"those of {self.noun(e.left)} that are not in {self.noun(e.right)}"
            return f"whether {self.cond(e)}"
        if isinstance(e, ir.Cond):
            arms = self.match_arms(e)
            if arms is not None:
                subject, cases, rest = arms
                parts = [f"if it is {pat}: {val}" for pat, val in cases] + [f"otherwise: {rest}"]
                return f"according to {subject}, " + "; ".join(parts)
            return f"(if {self.cond(e.cond)}: {self.noun(e.then)}; otherwise: {self.noun(e.else_)})"
        if isinstance(e, ir.SetOf):
            if not e.items:
                return "nothing"
            return join([self.noun(i) for i in e.items])
        if isinstance(e, ir.IntRange):
            return f"the numbers {self.noun(e.lo)} to {self.noun(e.hi)}"
        if isinstance(e, ir.Agg):
            return self.agg(e)
        if isinstance(e, ir.MapGet):
            if isinstance(e.index, ir.Local):
                return f"{e.index.name}'s {self.noun(e.map)}"
            return f"the {self.noun(e.map)} of {self.noun(e.index)}"
        if isinstance(e, ir.Fail):
            return "nothing: no rule decides here"
        if isinstance(e, ir.SpaceAttr):
            if isinstance(e.obj, ir.Local):
                return f"{e.obj.name}'s {human(e.attr)}"
            return f"the {human(e.attr)} of {self.noun(e.obj)}"
        if isinstance(e, ir.RecordField):
            return f"the {human(e.field)} of entry {self.noun(e.pos)} of {self.noun(e.record)}"
        raise AssertionError(f"no English for expression {type(e).__name__}")

    def operand(self, e: ir.Expr, op: str = "", right: bool = True) -> str:
        """An operand of arithmetic, bracketed where the usual precedence would misread it."""
        text = self.noun(e)
        if isinstance(e, ir.BinOp) and e.op in _PREC:
            if not op:
                return f"({text})"
            inner, outer = _PREC[e.op], _PREC[op]
            if op in ("/", "%"):
                return f"({text})"  # "divided by" and "the remainder of" have no precedence a reader knows
            if inner < outer or (right and inner == outer and not (op in ("+", "*") and e.op == op)):
                return f"({text})"
        return text

    def const(self, e: ir.Const) -> str:
        t = e.type
        if isinstance(t, TSet) and isinstance(t.elem, TComp) and t.elem.kind is not None and isinstance(e.value, frozenset):
            every = frozenset(c.cid for c in self.rules.components_of(t.elem.kind))
            if e.value == every and every:
                return f"all {self.noun_of(t.elem)}s"
        if isinstance(t, TSet) and isinstance(t.elem, TEnum) and isinstance(e.value, frozenset):
            if len(e.value) == len(self.rules.enums[t.elem.name].values):
                return f"every {self.noun_of(t.elem)}"
        return self.value(e.value, t)

    def builtin(self, e: ir.Builtin) -> str:
        op, args = e.op, e.args
        direction = self.rules.game.order
        if op == "players":
            return "the players"
        if op == "num_players":
            return "the number of players"
        if op == "winners":
            return "the winners"
        if op == ir.IN_PLAY:
            t = e.type
            assert isinstance(t, TSet) and isinstance(t.elem, TComp)
            return f"all {self.noun_of(t.elem)}s in play"
        if op == "next":
            return f"the player after {self.noun(args[0])} ({direction})"
        if op == "prev":
            return f"the player before {self.noun(args[0])} ({direction})"
        if op == "seat":
            return f"the seat number of {self.noun(args[0])}"
        if op == "player":
            a = args[0]
            if isinstance(a, ir.Const) and isinstance(a.value, int):
                return f"Player {a.value}"
            return f"the player in seat {self.operand(a)}"
        if op == "size":
            return self.count_of(args[0])
        if op == "abs":
            return f"the absolute value of {self.noun(args[0])}"
        if op == "where":
            return f"where {self.noun(args[0])} lies"
        if op == "min":
            return f"the smaller of {self.noun(args[0])} and {self.noun(args[1])}"
        if op == "max":
            return f"the larger of {self.noun(args[0])} and {self.noun(args[1])}"
        return self.board_builtin(e)

    def board_builtin(self, e: ir.Builtin) -> str:
        """The builtins of boards and records."""
        op, args = e.op, e.args
        if op == "adjacent":
            return f"whether {self.cond(e)}"
        if op == "neighbours":
            return f"the spaces linked to {self.noun(args[0])}"
        if op == "distance":
            return f"the fewest links from {self.noun(args[0])} to {self.noun(args[1])}, passing only through {self.noun(args[2])}"
        if op == "steps":
            return (f"the spaces {self.noun(args[1])} step(s) away from {self.noun(args[0])}, each step onto one of "
                    f"{self.noun(args[2])}, directly or across one of {self.noun(args[3])}")
        if op == "length":
            return f"the number of entries in {self.noun(args[0])}"
        if op == "entries":
            return f"the positions of the entries in {self.noun(args[0])}"
        raise AssertionError(f"no English for builtin {op}")

    def count_of(self, x: ir.Expr) -> str:
        """``size(S)`` said with what is counted: "the number of Person cards in the deck"."""
        t = x.type.elem if isinstance(x.type, TSet) else x.type
        plural = f"{self.noun_of(t)}s"
        if isinstance(x, ir.Agg) and x.op == "set" and isinstance(x.elem, ir.Local) and x.elem.name == x.var:
            noun, rest = self.binder_parts(x.var, x.coll)
            filt = f" for which {self.cond(x.filt)}" if x.filt is not None else ""
            return f"the number of {noun}s {rest}{filt}"
        if isinstance(x, ir.BinOp) and x.op == "diff":
            return f"the number of {plural} in {self.noun(x.left)} that are not in {self.noun(x.right)}"
        return f"the number of {plural} in {self.noun(x)}"

    def binder_parts(self, var: str, coll: ir.Expr) -> tuple[str, str]:
        """How a bound variable is introduced, as (noun, rest): ("player", "q"),
        ("Person card", "i in the field")."""
        t = coll.type.elem if isinstance(coll.type, TSet) else coll.type
        noun = self.noun_of(t)
        if isinstance(coll, ir.Builtin) and coll.op == "players":
            return "player", var
        if isinstance(coll, ir.Const) and self.const(coll).startswith(("all ", "every ")):
            return noun, var
        return noun, f"{var} in {self.noun(coll)}"

    def binder(self, var: str, coll: ir.Expr) -> str:
        noun, rest = self.binder_parts(var, coll)
        return f"{noun} {rest}"

    def agg(self, e: ir.Agg) -> str:
        filt = f" for which {self.cond(e.filt)}" if e.filt is not None else ""
        if e.var == "_" and isinstance(e.elem, ir.Local) and e.elem.name == "_" and e.op in ("max", "min"):
            return f"the {'largest' if e.op == 'max' else 'smallest'} number in {self.noun(e.coll)}"
        bound = self.binder(e.var, e.coll)
        same = isinstance(e.elem, ir.Local) and e.elem.name == e.var
        if e.op == "set":
            if same:
                noun, rest = self.binder_parts(e.var, e.coll)
                return f"the {noun}s {rest}{filt}"
            return f"{self.noun(e.elem)} for every {bound}{filt}"
        if e.op == "count":
            noun, rest = self.binder_parts(e.var, e.coll)
            return f"the number of {noun}s {rest}{filt}"
        if e.op == "sum":
            return f"the sum of {self.operand(e.elem)} over every {bound}{filt}"
        if e.op in ("max", "min"):
            word = "largest" if e.op == "max" else "smallest"
            return f"the {word} value of {self.operand(e.elem)} over every {bound}{filt}"
        if e.op == "the":
            if same:
                return f"the only {bound}{filt}"
            return f"{self.noun(e.elem)} for the only {bound}{filt}"
        return f"whether {self.cond(e)}"

    # ---- expressions as clauses --------------------------------------------------------------------

    def cond(self, e: ir.Expr) -> str:
        """A boolean expression as a clause: "c's rank is 18"."""
        if isinstance(e, ir.Const) and isinstance(e.value, bool):
            return "always" if e.value else "never"
        if isinstance(e, ir.Unary) and e.op == "not":
            return self.neg(e.operand)
        if isinstance(e, ir.Builtin) and e.op == "adjacent":
            return f"{self.noun(e.args[0])} and {self.noun(e.args[1])} are linked"
        if isinstance(e, ir.BinOp):
            if e.op in ("and", "or"):
                parts = [self._junct(p, e.op) for p in self._flatten(e, e.op)]
                return join(parts, e.op) if len(parts) > 2 else f" {e.op} ".join(parts)
            if e.op in _CMP:
                return f"{self.noun(e.left)} {_CMP[e.op]} {self.noun(e.right)}"
            if e.op == "in":
                return self.membership(e.left, e.right, negated=False)
        if isinstance(e, ir.Agg) and e.op in ("any", "all"):
            filt = f" for which {self.cond(e.filt)}" if e.filt is not None else ""
            bound = self.binder(e.var, e.coll)
            if e.op == "any":
                return f"there is {article(bound)}{filt} such that {self.cond(e.elem)}"
            return f"for every {bound}{filt}, {self.cond(e.elem)}"
        if isinstance(e, ir.CallDef):
            d = self.rules.defs.get(e.name) or self._varying_def(e.name)
            return self.call(d.desc, d.name, d.formals, e.args, clause=True)
        if isinstance(e, ir.VarRef):
            v = self.rules.vars[e.name]
            if v.desc and v.desc.startswith("whether "):
                return self.indexed(v.desc[len("whether "):], v.index, e.index)
        if isinstance(e, ir.Cond):
            return f"(if {self.cond(e.cond)}: {self.cond(e.then)}; otherwise: {self.cond(e.else_)})"
        if isinstance(e, ir.Fail):
            return "no rule decides"
        return f"{self.noun(e)} is yes"

    def neg(self, e: ir.Expr) -> str:
        """The clause negated, said positively where English has a word for it."""
        if isinstance(e, ir.Const) and isinstance(e.value, bool):
            return "never" if e.value else "always"
        if isinstance(e, ir.Unary) and e.op == "not":
            return self.cond(e.operand)
        if isinstance(e, ir.BinOp):
            if e.op in _CMP_NEG:
                return f"{self.noun(e.left)} {_CMP[_CMP_NEG[e.op]]} {self.noun(e.right)}"
            if e.op == "in":
                return self.membership(e.left, e.right, negated=True)
        if isinstance(e, ir.Agg) and e.op in ("any", "all"):
            filt = f" for which {self.cond(e.filt)}" if e.filt is not None else ""
            bound = self.binder(e.var, e.coll)
            if e.op == "any":
                return f"there is no {bound}{filt} such that {self.cond(e.elem)}"
            return f"there is {article(bound)}{filt} such that {self.neg(e.elem)}"
        return f"it is not the case that {self.cond(e)}"

    def membership(self, item: ir.Expr, coll: ir.Expr, negated: bool) -> str:
        x = self.noun(item)
        if isinstance(coll, ir.SetOf):
            if not coll.items:
                return f"{x} is {'anything' if negated else 'nothing'}"
            return f"{x} is {'not ' if negated else ''}one of {join([self.noun(i) for i in coll.items], 'or')}"
        if isinstance(coll, ir.IntRange):
            return f"{x} is {'not ' if negated else ''}between {self.noun(coll.lo)} and {self.noun(coll.hi)}"
        return f"{x} is {'not ' if negated else ''}in {self.noun(coll)}"

    def _flatten(self, e: ir.Expr, op: str) -> list[ir.Expr]:
        if isinstance(e, ir.BinOp) and e.op == op:
            return self._flatten(e.left, op) + self._flatten(e.right, op)
        return [e]

    def _junct(self, e: ir.Expr, outer: str) -> str:
        # a nested "or" inside "and" (or the reverse) gets "either"/"both" so the grouping is heard
        if isinstance(e, ir.BinOp) and e.op in ("and", "or") and e.op != outer:
            parts = [self._junct(p, e.op) for p in self._flatten(e, e.op)]
            lead = "either " if e.op == "or" else "both "
            return "(" + lead + join(parts, e.op) + ")"
        if isinstance(e, ir.Agg) and e.op in ("any", "all"):
            # a quantifier's clause runs to the end of the sentence: bracket it to end it
            return f"({self.cond(e)})"
        return self.cond(e)

    def match_arms(self, e: ir.Cond) -> tuple[str, list[tuple[str, str]], str] | None:
        """A chain of conditionals that tests one value (what ``match`` becomes) as its arms:
        (subject, [(pattern, result)], result for every other value)."""
        arms: list[tuple[str, str]] = []
        subject: str | None = None
        cur: ir.Expr = e
        result = self.cond if isinstance(e.type, TBool) else self.noun
        while isinstance(cur, ir.Cond):
            tests = self._flatten(cur.cond, "or")
            pats: list[str] = []
            for t in tests:
                if not (isinstance(t, ir.BinOp) and t.op in ("==", "in")):
                    return None
                if t.op == "in" and not isinstance(t.right, ir.IntRange):
                    return None
                s = self.noun(t.left)
                if subject is None:
                    subject = s
                elif s != subject:
                    return None
                if t.op == "==":
                    pats.append(self.noun(t.right))
                else:
                    assert isinstance(t.right, ir.IntRange)
                    pats.append(f"{self.noun(t.right.lo)} to {self.noun(t.right.hi)}")
            arms.append((join(pats, "or"), result(cur.then)))
            cur = cur.else_
        if subject is None or (len(arms) < 2 and not isinstance(cur, ir.Fail)):
            return None
        rest = "no rule decides" if isinstance(cur, ir.Fail) else result(cur)
        return subject, arms, rest

    # ---- descriptions with their arguments -------------------------------------------------------

    def _simple(self, e: ir.Expr) -> bool:
        if isinstance(e, (ir.Local, ir.MapGet)):
            return True
        if isinstance(e, ir.Const):
            return not isinstance(e.type, TSet)
        if isinstance(e, ir.AttrRef):
            return isinstance(e.obj, ir.Local)
        if isinstance(e, ir.CallDef):
            return not e.args and not isinstance(e.type, TBool)
        return isinstance(e, ir.Builtin) and e.op == "player" and isinstance(e.args[0], ir.Const)

    def _type_words(self, t: Type | None) -> list[str]:
        """Indefinite phrases that stand for a formal of this type in a description."""
        if isinstance(t, TPlayer):
            return ["a player"]
        if isinstance(t, TComp) and t.kind is not None:
            k = self.rules.kinds[t.kind]
            return [article(k.name), article(k.name.lower()), article(k.word)]
        return []

    def fill(self, desc: str, formals: list[tuple[str, Type | None]], args: list[ir.Expr], clause: bool = False) -> str:
        """Put the arguments into a description: each formal the description names once is
        replaced by its short argument.  When that is not possible for every argument, the
        description is kept as written and the arguments are listed after it, so nothing is
        left implicit."""
        subst: dict[str, str] = {}
        unresolved = False
        for (formal, t), arg in zip(formals, args):
            phrase = self.noun(arg)
            n = _count_word(desc, formal)
            if n >= 1 and phrase == formal:
                continue
            if n == 1 and self._simple(arg):
                subst[formal] = phrase
                continue
            if n == 0 and self._simple(arg):
                hit = [w for w in self._type_words(t) if _count_word(desc, w) == 1]
                if hit:
                    subst[hit[0]] = phrase
                    continue
            unresolved = True
        if not unresolved:
            if subst:
                pattern = re.compile("|".join(rf"(?<![\w]){re.escape(k)}(?![\w])" for k in sorted(subst, key=len, reverse=True)))
                desc = pattern.sub(lambda m: subst[m.group(0)], desc)
            return desc
        phrases = [self.noun(a) for a in args]
        if len(formals) == 1:
            shown = phrases[0]
        else:
            shown = join([ph if ph == f else f"{f} = {ph}" for (f, _), ph in zip(formals, phrases)])
        if clause:
            return f"{quoted(desc)} holds for {shown}"
        return f"{desc} (for {shown})"

    def call(self, desc: str | None, name: str, formals: list[tuple[str, Type]], args: list[ir.Expr], clause: bool) -> str:
        if desc is None:
            base = human(name)
            if not args:
                return f"{quoted(base)} holds" if clause else f"the {base}"
            shown = join([self.noun(a) for a in args])
            return f"{quoted(base)} holds for {shown}" if clause else f"the {base} of {shown}"
        return self.fill(desc, [(f, t) for f, t in formals], args, clause)

    def indexed(self, desc: str, index_type: Type | None, index: ir.Expr | None) -> str:
        """A per-player (or per-card) variable or zone: "the cards a player holds" for ``hand[p]``
        becomes "the cards p holds"; where the description has no such phrase, "(for p)" follows."""
        if index is None:
            return desc
        phrase = self.noun(index)
        if self._simple(index):
            for w in self._type_words(index_type):
                hits = re.findall(rf"(?<![\w]){re.escape(w)}(?![\w])", desc)
                if len(hits) == 1:
                    return re.sub(rf"(?<![\w]){re.escape(w)}(?![\w])", lambda _m: phrase, desc)
        return f"{desc} (for {phrase})"

    def _varying_def(self, name: str) -> ir.Definition:
        for a in self.rules.ambiguities.values():
            for r in a.readings:
                if name in r.defs:
                    return r.defs[name]
        raise AssertionError(f"unknown definition {name}")

    # ---- statements -----------------------------------------------------------------------------------

    def stmts(self, body: list[ir.Stmt], depth: int) -> list[Line]:
        out: list[Line] = []
        for s in body:
            out += self.stmt(s, depth)
        return out

    def stmt(self, s: ir.Stmt, depth: int) -> list[Line]:
        src = s.source
        if isinstance(s, ir.Let):
            return [Line(depth, f"Let {quoted(s.name)} be {self.noun(s.value)}.", src)]
        if isinstance(s, ir.Assign):
            return [Line(depth, self.assign(s), src)]
        if isinstance(s, ir.Move):
            what = self.noun(s.what)
            to = self.zone_phrase(s.zone, s.index)
            if isinstance(s.what.type, TSet) and not (isinstance(s.what, ir.Agg) and s.what.op == "set"):
                return [Line(depth, f"Move all of {what} to {to}.", src)]
            return [Line(depth, f"Move {what} to {to}.", src)]
        if isinstance(s, ir.Draw):
            return [Line(depth, self.draw(s), src)]
        if isinstance(s, ir.Ask):
            return [Line(depth, self.ask(s), src)]
        if isinstance(s, ir.Reveal):
            return [Line(depth, f"Show {self.noun(s.what)} to {self.noun(s.who)}, and nobody else: they remember where each one lies "
                                "until it moves.", src)]
        if isinstance(s, ir.Choose):
            noun = "yes or no" if isinstance(s.type, TBool) else article(self.noun_of(s.type))
            secret = " in secret (the others do not see it)" if s.secret else ""
            if s.secret and s.secret_if is not None:
                secret = f" in secret when {human(s.secret_if)} is on (the others do not see it then)"
            text = f"{self.who(s.chooser)} chooses {noun}, called {s.bind}, from {self.noun(s.options)}{secret} — {quoted(s.label)}."
            return [Line(depth, text, src)]
        if isinstance(s, ir.ChooseEach):
            noun = "yes or no" if isinstance(s.type, TBool) else article(self.noun_of(s.type))
            seen = "the choices stay secret" if s.secret else "then everyone sees the choices"
            if s.secret and s.secret_if is not None:
                seen = f"the choices stay secret when {human(s.secret_if)} is on, and everyone sees them otherwise"
            who = self.binder(s.pvar, s.players)
            text = (
                f"At the same time, every {who} chooses {noun}, called {s.bind}, from {self.noun(s.options)} — "
                f"{quoted(s.label)}; {seen}."
            )
            return [Line(depth, text, src)]
        if isinstance(s, ir.If):
            out = [Line(depth, f"If {self.cond(s.cond)}:", src)]
            out += self.stmts(s.then, depth + 1)
            if len(s.else_) == 1 and isinstance(s.else_[0], ir.If) and s.else_source is None:
                nested = self.stmt(s.else_[0], depth)
                out.append(Line(depth, "Otherwise, i" + nested[0].text[1:], nested[0].source))
                out += nested[1:]
            elif s.else_:
                out.append(Line(depth, "Otherwise:", s.else_source))
                out += self.stmts(s.else_, depth + 1)
            return out
        if isinstance(s, ir.ForEach):
            order = ""
            if s.start is not None:
                order = f", in turn order ({self.rules.game.order}) starting from {self.noun(s.start)}"
            return [Line(depth, f"For every {self.binder(s.var, s.coll)}{order}:", src), *self.stmts(s.body, depth + 1)]
        if isinstance(s, ir.Repeat):
            n = self.noun(s.count)
            times = "once" if n == "1" else "twice" if n == "2" else f"{n} times"
            return [Line(depth, f"Do the following {times}:", src), *self.stmts(s.body, depth + 1)]
        if isinstance(s, ir.RepeatUntil):
            return [Line(depth, f"Repeat the following until {self.cond(s.cond)}:", src), *self.stmts(s.body, depth + 1)]
        if isinstance(s, ir.While):
            return [Line(depth, f"As long as {self.cond(s.cond)}, repeat:", src), *self.stmts(s.body, depth + 1)]
        if isinstance(s, ir.CallProc):
            p = self.rules.procs[s.name]
            if p.desc:
                text = f"Carry out {self.fill(quoted(p.desc), [(f, t) for f, t in p.formals], s.args)}."
            else:
                args = f" for {join([self.noun(a) for a in s.args])}" if s.args else ""
                text = f"Carry out {quoted(human(p.name))}{args}."
            return [Line(depth, text, src)]
        if isinstance(s, ir.End) and s.draw:
            return [Line(depth, "The game ends in a draw: nobody wins and nobody loses.", src)]
        if isinstance(s, ir.End):
            w = s.winners
            if isinstance(w, ir.SetOf) and len(w.items) == 1:
                return [Line(depth, f"The game ends. The winner: {self.noun(w.items[0])}.", src)]
            return [Line(depth, f"The game ends. The winners: {self.noun(w)}.", src)]
        if isinstance(s, ir.Say):
            said = "".join(p if isinstance(p, str) else f"⟨{self.noun(p)}⟩" for p in s.parts)
            return [Line(depth, f"Tell the table: {quoted(said)}.", src)]
        if isinstance(s, ir.Shuffle):
            return [Line(depth, f"Shuffle {self.zone_phrase(s.zone, s.index)}.", src)]
        if isinstance(s, ir.Observe):
            return [Line(depth, self.observe(s), src)]
        if isinstance(s, ir.Append):
            v = self.rules.vars[s.name]
            target = self.indexed(v.desc or f"the {human(v.name)}", v.index, s.index)
            assert isinstance(v.type, TRecord)
            fields = join([f"{human(f)} {self.noun(x)}" for (f, _), x in zip(v.type.fields, s.values)])
            return [Line(depth, f"Write a new entry in {target}: {fields}.", src)]
        raise AssertionError(f"no English for statement {type(s).__name__}")

    def ask(self, s: ir.Ask) -> str:
        """A statement with a truth obligation, said with the question and what the speaker may answer."""
        q = self.rules.questions[s.question]
        about = f" about {join([self.noun(a) for a in s.args])}" if s.args else ""
        ways = []
        for cond, word in ((s.may_truth, "truly"), (s.may_lie, "with a lie")):
            if cond is None or (isinstance(cond, ir.Const) and cond.value is False):
                continue
            ways.append(word if isinstance(cond, ir.Const) else f"{word} when {self.cond(cond)}")
        how = join(ways, "or") if ways else "in no way the rules allow"
        heard = "in secret" if s.secret else "aloud, for everyone"
        return (f"{self.who(s.chooser)} answers the question {quoted(q.desc or human(q.name))}{about}, {heard}: {how} — "
                f"the answer is called {s.bind}, {quoted(s.label)}.")

    def question(self, q: ir.Question) -> Block:
        heading = capital(q.desc) if q.desc else capital(human(q.name))
        lines = [Line(0, f"The answer ({q.answer}) is {self.type_phrase(q.answer_type)}, one of {self.noun(q.answers.body) if q.answers.body else 'nothing'}.",
                      q.answers.source)]
        if q.truth.body is not None:
            lines.append(Line(0, f"The answer is true when {self.cond(q.truth.body)}.", q.truth.source))
        if q.lie is not None and q.lie.body is not None:
            lines.append(Line(0, f"A false answer is a lie a speaker may tell only when {self.cond(q.lie.body)}.", q.lie.source))
        else:
            lines.append(Line(0, "Any false answer is a lie."))
        return Block(anchor("question", q.name), "question", heading, self.formal_sig(q.name, q.formals), q.span,
                     [q.source] if q.source else [], lines)

    def target(self, t: ir.Target) -> Block:
        heading = capital(t.desc) if t.desc else capital(human(t.name))
        lines = [Line(0, f"When deciding {quoted(t.label)}, the player wants to know {self.noun(t.expr)}.", t.source)]
        return Block(anchor("target", t.name), "target", heading, t.name, t.span, [], lines)

    def edition(self, e: ir.Edition) -> Block:
        lines = [Line(0, f"This ruleset is one edition of {quoted(e.game)}; declarations of the same name in another edition "
                         "are the same thing.", e.source)]
        for local, common, src in e.same:
            lines.append(Line(1, f"{local.show()} here is {common.show()} there.", src))
        return Block("edition", "edition", f"An edition of {e.game}", "edition", e.span, [], lines)

    def observe(self, s: ir.Observe) -> str:
        who, what = self.who(s.observer), self.noun(s.what)
        bind = f" (call it {s.bind})" if s.bind else ""
        if s.mode == "within" and s.amount > 0:
            how = f"feels {what} only roughly: the value learnt{bind} may be off by up to {s.amount} either way, at random"
        elif s.mode == "than":
            assert s.ref is not None
            how = f"learns only whether {what} is lower than, the same as or higher than {self.noun(s.ref)}{bind}"
        else:
            how = f"learns {what}{bind}"
        return f"{who} {how}; the others see that it happens, not what is learnt — {quoted(s.label)}."

    def who(self, e: ir.Expr) -> str:
        """The subject of a sentence: a bare player variable is said as "Player p"."""
        if isinstance(e, ir.Local) and isinstance(e.type, TPlayer):
            return f"Player {e.name}"
        return capital(self.noun(e))

    def zone_phrase(self, zone: str, index: ir.Expr | None) -> str:
        z = self.rules.zones[zone]
        return self.indexed(z.desc or f"the {human(z.name)}", z.index, index)

    def assign(self, s: ir.Assign) -> str:
        if s.local:
            return f"{s.name} now becomes {self.noun(s.value)}."
        v = self.rules.vars[s.name]
        target = self.indexed(v.desc or f"the {human(v.name)}", v.index, s.index)
        val = s.value
        # "x = x + n" is said as an increase, which is how a rulebook says it
        if isinstance(val, ir.BinOp) and val.op in ("+", "-") and isinstance(val.left, ir.VarRef) and val.left.name == s.name:
            same = (val.left.index is None and s.index is None) or (
                val.left.index is not None and s.index is not None and self.noun(val.left.index) == self.noun(s.index)
            )
            if same:
                return f"{'Increase' if val.op == '+' else 'Decrease'} {target} by {self.noun(val.right)}."
        if isinstance(s.type, TBool) and isinstance(val, ir.Const):
            return f"Record {quoted(target)} as {'yes' if val.value else 'no'}."
        return f"Set {target} to {self.noun(val)}."

    def draw(self, s: ir.Draw) -> str:
        src = self.zone_phrase(s.src, s.src_index)
        dst = self.zone_phrase(s.dst, s.dst_index)
        z = self.rules.zones[s.src]
        word = self.rules.kinds[z.kinds[0]].word if len(z.kinds) == 1 else "component"
        bind = f"; call it {s.bind}" if s.bind else ""
        n = self.noun(s.count)
        if not isinstance(s.count, ir.Const):
            return f"Draw {word}s at random from {src} to {dst}, one at a time, as many as {n}{bind}."
        what = f"{article(word)}" if n == "1" else f"{n} {word}s"
        return f"Draw {what} at random from {src} to {dst}, one at a time{bind}."

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

    def formal_sig(self, name: str, formals: list[tuple[str, Type]]) -> str:
        return f"{name}({', '.join(f for f, _ in formals)})" if formals else name

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


def _count_word(text: str, word: str) -> int:
    return len(re.findall(rf"(?<![\w]){re.escape(word)}(?![\w])", text))


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
