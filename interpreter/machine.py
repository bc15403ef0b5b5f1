"""One game in progress (Machine): the flow run as a generator that stops at every decision, over
the state and expressions of semantics.py."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Generator, MutableMapping
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TComp, TPlayer, TRecord, TSet, Type
from rulecheck.dsl.values import show

from .semantics import STEP_BUDGET, Answer, Env, Evaluator, Pending, RuleError


class _EndGame(Exception):
    def __init__(self, winners: frozenset[int], draw: bool = False) -> None:
        self.winners = winners
        self.draw = draw


class Machine(Evaluator):
    """One game in progress under one Program, player count and parameter values."""

    # ---- the game as a generator ------------------------------------------------------------

    def run(self) -> Generator[Pending, Any, None]:
        try:
            yield from self.block(self.rules.flow, ChainMap())
        except _EndGame as end:
            self.winners = end.winners
            self.draw = end.draw
            return
        raise RuleError("incomplete", "the flow ended without a result: no 'end winners' was reached", self.rules.flow[-1].span if self.rules.flow else Span(1, 1, 1, 1))

    def tick(self, span: Span) -> None:
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise RuleError("nontermination", f"{STEP_BUDGET:,} steps without a decision or an end", span)

    def snapshot(self) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...], tuple[tuple[int, ...], ...]]:
        """The whole state of the table: every variable's value, every component's place and
        what each player remembers having seen."""
        values = {k: tuple(sorted(v.items())) if isinstance(v, dict) else v for k, v in self.vars.items()}
        return values, tuple(self.loc), tuple(tuple(sorted(seen)) for seen in self.known)

    def say(self, text: str) -> None:
        if self.logging:
            self.log.append(text)

    def block(self, stmts: list[ir.Stmt], env: Env) -> Generator[Pending, Any, None]:
        env = env.new_child()  # let binds in this block; set finds the block that bound the name
        for s in stmts:
            self.tick(s.span)
            yield from self.stmt(s, env)

    def stmt(self, s: ir.Stmt, env: Env) -> Generator[Pending, Any, None]:
        if isinstance(s, ir.Let):
            env[s.name] = self.ev(s.value, env)
        elif isinstance(s, ir.Assign):
            value = self.ev(s.value, env)
            self.check_range(value, s.type, s.span, s.name)
            if s.local:
                _scope_of(env, s.name)[s.name] = value
            elif s.index is None:
                self.vars[s.name] = value
            else:
                self.vars[s.name][self.entry(s.index, env, self.rules.vars[s.name].index, s.name)] = value
        elif isinstance(s, ir.Move):
            what = self.ev(s.what, env)
            key = (s.zone, self.entry(s.index, env, self.rules.zones[s.zone].index, s.zone))
            for cid in sorted(what) if isinstance(what, frozenset) else [what]:
                self.move(cid, key)
        elif isinstance(s, ir.Draw):
            count = self.ev(s.count, env)
            src = (s.src, self.entry(s.src_index, env, self.rules.zones[s.src].index, s.src))
            dst = (s.dst, self.entry(s.dst_index, env, self.rules.zones[s.dst].index, s.dst))
            drawn = []
            for _ in range(max(0, count)):
                options = sorted(self.contents[src])
                if not options:
                    raise RuleError("exhaustion", f"cannot draw from {self.zone_label(src)}: it is empty", s.span)
                self.steps = 0  # the budget counts statements between two decisions
                cid = yield Pending("chance", s, options=options, label=ir.decision_label(s))
                self.move(cid, dst)
                drawn.append(cid)
                if s.bind is not None:
                    env[s.bind] = cid
            if self.logging and drawn:
                names = ", ".join(self.rules.components[c].display for c in drawn)
                self.say(f"{self.zone_label(dst)} gets {names} from {self.zone_label(src)}")
        elif isinstance(s, ir.Reveal):
            what = self.ev(s.what, env)
            who = self.ev(s.who, env)
            for q in who:
                self.known[q].update(what)
            if self.logging and who:
                self.say(f"{show(who, ir_set_of_players(), self.rules)} see{'s' if len(who) == 1 else ''} "
                         f"{show(what, TSet(TComp(None)), self.rules)}")
        elif isinstance(s, ir.Ask):
            asked = tuple(self.ev(a, env) for a in s.args)
            yield from self.choose(s, env, (s.question, asked))
            value = env[s.bind]
            truth = bool(self.call(ir.Question.part(s.question, "true"), [*asked, value], s.span))
            self.answers.append(Answer(s.sid, self.ev(s.chooser, env), s.question, asked, value, truth))
        elif isinstance(s, ir.Choose):
            yield from self.choose(s, env)
        elif isinstance(s, ir.ChooseEach):
            who = sorted(self.ev(s.players, env))
            per: dict[int, list[int]] = {}
            for q in who:
                inner = env.new_child({s.pvar: q})
                opts = self.ev(s.options, inner)
                if not opts:
                    raise RuleError("incomplete", f"{show(q, TPlayer(), self.rules)} must choose ({s.label}) but has no option", s.span)
                per[q] = sorted(int(v) for v in opts)
            if per:
                self.steps = 0
                joint = yield Pending("simultaneous", s, per_player=per, type=s.type, label=s.label, secret=ir.secret_in(s, self.params))
            else:
                joint = [None] * self.n
            result = tuple(self.decode(joint[q], s.type) if q in per else None for q in range(self.n))
            env[s.bind] = result
            if self.logging and per:
                shown = "; ".join(f"{show(q, TPlayer(), self.rules)} {show(result[q], s.type, self.rules)}" for q in who)
                self.say(f"{s.label}: {shown}")
        elif isinstance(s, ir.If):
            taken = bool(self.ev(s.cond, env))
            if self.covered is not None:
                self.covered.add(ir.label_if(s.sid, taken))
            yield from self.block(s.then if taken else s.else_, env)
        elif isinstance(s, ir.ForEach):
            coll = self.ev(s.coll, env)
            order = sorted(coll)
            if s.start is not None:
                order = self.turn_order(self.ev(s.start, env), coll)
            for x in order:
                yield from self.block(s.body, env.new_child({s.var: x}))
        elif isinstance(s, ir.Repeat):
            first = len(self.heads.get(s.sid, [])) if self.heads is not None else 0
            for _ in range(max(0, self.ev(s.count, env))):
                if self.heads is not None:  # (a counted loop can be a cut point of the induction too)
                    self.heads.setdefault(s.sid, []).append(self.snapshot())
                yield from self.block(s.body, env)
            if self.exits is not None:
                last = len(self.heads.get(s.sid, [])) if self.heads is not None else 0
                self.exits.setdefault(s.sid, []).append((first, last, self.snapshot()))
        elif isinstance(s, (ir.RepeatUntil, ir.While)):
            until = isinstance(s, ir.RepeatUntil)
            first = len(self.heads.get(s.sid, [])) if self.heads is not None else 0
            while bool(self.ev(s.cond, env)) != until:
                self.tick(s.span)
                if self.heads is not None:
                    self.heads.setdefault(s.sid, []).append(self.snapshot())
                yield from self.block(s.body, env)
            if self.exits is not None:
                last = len(self.heads.get(s.sid, [])) if self.heads is not None else 0
                self.exits.setdefault(s.sid, []).append((first, last, self.snapshot()))
        elif isinstance(s, ir.CallProc):
            proc = self.program.procs[s.name]
            args = [self.ev(a, env) for a in s.args]
            if s.name == self.rules.game.turn:
                self.turns += 1
            if self.covered is not None:
                self.covered.add(ir.label_proc(s.name, proc.reading))
            assert proc.body is not None
            yield from self.block(proc.body, ChainMap({n: v for (n, _), v in zip(proc.formals, args)}))
        elif isinstance(s, ir.End):
            self.trace = [] if self.logging else None
            winners = self.ev(s.winners, env)
            if self.covered is not None:
                self.covered.add(ir.label_end(s.sid))
            if self.logging and s.draw:
                self.say("The game is a draw")
            elif self.logging:
                names = show(winners, ir_set_of_players(), self.rules)
                self.say(f"Winner{'s' if len(winners) != 1 else ''}: {names}")
                # the outermost definition finishes last: list it first, each case once
                seen: set[tuple[str, str]] = set()
                for dname, case, why in reversed(self.trace or []):
                    if (dname, case) in seen:
                        continue
                    seen.add((dname, case))
                    quote = f' — "{why.text}"' if why is not None else ""
                    self.say(f"  by {dname}, case {case}{quote}")
            self.trace = None
            raise _EndGame(winners, s.draw)
        elif isinstance(s, ir.Say):
            if self.logging:
                self.say("".join(p if isinstance(p, str) else show(self.ev(p, env), p.type, self.rules) for p in s.parts))
        elif isinstance(s, ir.Shuffle):
            pass  # draws are uniformly random, so a shuffle changes nothing that can be observed
        elif isinstance(s, ir.Observe):
            yield from self.observe(s, env)
        elif isinstance(s, ir.Append):
            entry = tuple(self.ev(v, env) for v in s.values)
            t = self.rules.vars[s.name].type
            assert isinstance(t, TRecord)
            for (fname, ft), v in zip(t.fields, entry):
                self.check_range(v, ft, s.span, f"{s.name}.{fname}")
            if s.index is None:
                self.vars[s.name] = self.vars[s.name] + (entry,)
            else:
                idx = self.ev(s.index, env)
                self.vars[s.name][idx] = self.vars[s.name][idx] + (entry,)
        else:  # pragma: no cover
            raise AssertionError(f"unknown statement {type(s).__name__}")

    def choose(self, s: ir.Choose, env: Env, asked: tuple[str, tuple[Any, ...]] | None = None) -> Generator[Pending, Any, None]:
        """One player's choice (``choose``, and ``ask``, whose options are the answers allowed)."""
        options = self.ev(s.options, env)
        chooser = self.ev(s.chooser, env)
        if not options:
            raise RuleError("incomplete", f"{show(chooser, TPlayer(), self.rules)} must choose ({s.label}) but has no option", s.span)
        self.steps = 0
        pending = Pending("player", s, player=chooser, options=sorted(int(v) for v in options), type=s.type, label=s.label,
                          secret=ir.secret_in(s, self.params))
        if asked is not None:
            pending.question, pending.args = asked
        value = yield pending
        value = self.decode(value, s.type)
        env[s.bind] = value
        if self.logging:
            self.say(f"{show(chooser, TPlayer(), self.rules)} {s.label}: {show(value, s.type, self.rules)}")

    def observe(self, s: ir.Observe, env: Env) -> Generator[Pending, Any, None]:
        """A player learns a value: exactly, up to ``amount`` off (the error is a chance outcome,
        uniform over -amount..amount: the outcome k means k - amount), or only compared with
        ``ref`` (-1 lower, 0 the same, 1 higher)."""
        value = self.ev(s.what, env)
        observer = self.ev(s.observer, env)
        if s.mode == "within":
            learnt = value
            if s.amount > 0:
                self.steps = 0
                k = yield Pending("chance", s, options=list(range(2 * s.amount + 1)), label=s.label)
                learnt = value + k - s.amount
            text = f"{learnt} (within {s.amount})"
        elif s.mode == "than":
            ref = self.ev(s.ref, env) if s.ref is not None else 0
            learnt = (value > ref) - (value < ref)
            text = ("lower", "the same", "higher")[learnt + 1]
        else:
            learnt = value
            text = show(value, s.what.type, self.rules)
        self.observations += 1
        self.percepts.append((self.observations, observer, s.label, text))
        if s.bind is not None:
            env[s.bind] = learnt
        if self.logging:
            self.say(f"{show(observer, TPlayer(), self.rules)} {s.label}: {text}")

    def decode(self, value: Any, t: Type | None) -> Any:
        from rulecheck.dsl.types import TBool

        if isinstance(t, TBool):
            return bool(value)
        return value

    def move(self, cid: int, key: tuple[str, Any]) -> None:
        for seen in self.known:  # a player remembers where a component was, not where it went
            seen.discard(cid)
        old = self.loc[cid]
        self.contents[old].discard(cid)
        self.contents[key].add(cid)
        self.loc[cid] = key


def _scope_of(env: Env, name: str) -> MutableMapping[str, Any]:
    for scope in env.maps:
        if name in scope:
            return scope
    raise KeyError(name)  # pragma: no cover - the checker resolves every name


def ir_set_of_players() -> Type:
    from rulecheck.dsl.types import PLAYER, TSet

    return TSet(PLAYER)
