"""The statements of the rules language in plain English (StatementEnglish; see english.py)."""

from __future__ import annotations

from rulecheck.dsl import ir
from rulecheck.dsl.types import TBool, TPlayer, TRecord, TSet, Type

from .english_expr import (
    Block,
    ExpressionEnglish,
    Line,
    anchor,
    article,
    capital,
    human,
    join,
    quoted,
)


class StatementEnglish(ExpressionEnglish):
    """Renders the statements of the flow and of procedures, each as a sentence."""

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

    def formal_sig(self, name: str, formals: list[tuple[str, Type]]) -> str:
        return f"{name}({', '.join(f for f, _ in formals)})" if formals else name
