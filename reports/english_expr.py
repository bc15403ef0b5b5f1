"""Expressions of the rules language in plain English (ExpressionEnglish): types and values as words,
expressions as noun phrases and as clauses, descriptions with their arguments; and the small
pieces every part of the rendering shares (see english.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TSet, TText, Type
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



def _count_word(text: str, word: str) -> int:
    return len(re.findall(rf"(?<![\w]){re.escape(word)}(?![\w])", text))

class ExpressionEnglish:
    """Renders the expressions of one ruleset: every kind of expression has a noun-phrase or clause form."""

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

    def zone_phrase(self, zone: str, index: ir.Expr | None) -> str:
        z = self.rules.zones[zone]
        return self.indexed(z.desc or f"the {human(z.name)}", z.index, index)
