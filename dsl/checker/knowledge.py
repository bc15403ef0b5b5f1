"""Who knows what and what is said (``Knowledge``): places (``where(c)``, ``place(Z)``), reveals to
some players, questions with their answer domains and lie rules, statements with a truth
obligation (``ask``), and the targets a player wants to know when deciding.
"""

from __future__ import annotations

from .. import ast, ir
from ..types import BOOL, ERROR, PLACE, PLAYER, TComp, TError, TMap, TPlayer, TSet, Type, is_choosable
from .base import LocalInfo, Scope, _listing, _src
from .names import Names
from .types import tshow, zone_elem

#: The parts of a question (ir.Question.part): what the code generator names them, too.
QUESTION_PARTS = ("answers", "true", "lie")


class Knowledge(Names):
    """Places, reveals, questions and asks, targets."""

    # ---- places ----------------------------------------------------------------------------

    def place_call(self, e: ast.Call, scope: Scope) -> ir.Expr | None:
        if e.name not in ("where", "place") or e.name in self.def_sigs or scope.lookup(e.name) is not None:
            return None
        if len(e.args) != 1:
            for a in e.args:
                self.expr(a, scope)
            hint = "where(c) is the place of component c" if e.name == "where" else "place(hand[p]) is the place that zone hand[p] is"
            return self.err("E0204", f"'{e.name}' takes one argument, not {len(e.args)}", e.name_span, hint=hint)
        arg = e.args[0]
        if e.name == "where":
            x = self.expr(arg, scope)
            if not isinstance(x.type, (TComp, TError)):
                return self.err("E0301", f"'where' gives the place of a card or piece, not of {tshow(x.type)}", arg.span,
                                hint="write where(c) for a component c, e.g. where(the(c for c in Card if …))")
            return ir.Builtin(PLACE, e.span, "where", [x])
        zone = arg.obj.name if isinstance(arg, ast.Index) and isinstance(arg.obj, ast.Name) else arg.name if isinstance(arg, ast.Name) else None
        if zone is None or scope.lookup(zone) is not None:
            self.expr(arg, scope)
            return self.err("E0301", "'place' takes a zone, e.g. place(centre) or place(hand[p])", arg.span, hint=_listing("zones", self.zones))
        if zone not in self.zones:
            name_span = arg.obj.span if isinstance(arg, ast.Index) else arg.span
            return self.err("E0201", f"unknown zone '{zone}'", name_span, hint=self.suggest(zone, self.zones) or _listing("zones", self.zones))
        info = self.zones[zone]
        self.used.add(("zone", zone))
        index: ir.Expr | None = None
        if isinstance(arg, ast.Index):
            if info.index is None:
                return self.err("E0303", f"zone '{zone}' is a single zone; it takes no index", arg.index.span, hint=f"write place({zone})")
            index = self.expect(arg.index, scope, info.index, f"the index of '{zone}'")
        elif info.index is not None:
            return self.err("E0303", f"zone '{zone}' is one zone per {tshow(info.index)}; say which", arg.span, hint=f"write place({zone}[…])")
        return ir.PlaceOf(PLACE, e.span, zone, index)

    # ---- statements ------------------------------------------------------------------------

    def knowledge_stmt(self, s: ast.Stmt, scope: Scope) -> ir.Stmt | None:
        if isinstance(s, ast.Reveal):
            return self.reveal_stmt(s, scope)
        assert isinstance(s, ast.Ask)
        return self.ask_stmt(s, scope)

    def reveal_stmt(self, s: ast.Reveal, scope: Scope) -> ir.Reveal:
        what = self.expr(s.what, scope)
        if isinstance(what.type, TComp):
            what = ir.SetOf(TSet(what.type), what.span, [what])
        elif not (isinstance(what.type, TError) or (isinstance(what.type, TSet) and isinstance(what.type.elem, (TComp, TError)))):
            what = self.err("E0301", f"only cards and pieces can be revealed, not {tshow(what.type)}", s.what.span,
                            hint="reveal a zone, a component or a set of them, e.g. reveal hand[p] to {q}")
        who = self.expr(s.who, scope)
        if isinstance(who.type, TPlayer):
            who = ir.SetOf(TSet(PLAYER), who.span, [who])
        elif not (isinstance(who.type, TError) or (isinstance(who.type, TSet) and isinstance(who.type.elem, (TPlayer, TError)))):
            who = self.err("E0301", f"a reveal is to players, not to {tshow(who.type)}", s.who.span,
                           hint="reveal … to a player or a set of players, e.g. to {q for q in players if q != p}")
        return ir.Reveal(s.span, _src(s.source), what, who)

    def ask_stmt(self, s: ast.Ask, scope: Scope) -> ir.Stmt | None:
        sig = self.question_sigs.get(s.question)
        if sig is None:
            self.d.error("E0201", f"unknown question '{s.question}'", s.question_span,
                         hint=self.suggest(s.question, self.question_sigs) or f"declare it: question {s.question}(…) {{ answer a: … from …  true when … }}")
            for a in [*s.args, s.speaker, *(x for x in (s.truth, s.lie) if x is not None)]:
                self.expr(a, scope)
            return None
        self.used.add(("question", s.question))
        formals, answer_t = sig
        args = self.args(s.question, formals, s.args, scope, s.question_span, "question")
        speaker = self.expect(s.speaker, scope, PLAYER, "who answers")
        if s.truth is None and s.lie is None:
            self.d.error("E0405", "an answer must be allowed to be true, a lie, or either", s.span,
                         hint="add 'truth when CONDITION' (the speaker may tell the truth) and/or 'lie when CONDITION' (may lie)")
        may_truth = self.expect(s.truth, scope, BOOL, "when the speaker may tell the truth") if s.truth is not None else ir.Const(BOOL, s.span, False)
        may_lie = self.expect(s.lie, scope, BOOL, "when the speaker may lie") if s.lie is not None else ir.Const(BOOL, s.span, False)
        self.bind_local(scope, s.name, answer_t, s.name_span)
        options = self.legal_answers(s, args, answer_t, may_truth, may_lie)
        label = s.label or s.name
        return ir.Ask(s.span, _src(s.source), s.name, options, speaker, label, s.secret, answer_t, None,
                      question=s.question, args=args, may_truth=may_truth, may_lie=may_lie, truths=self.true_answers(s, args, answer_t))

    def true_answers(self, s: ast.Ask, args: list[ir.Expr], answer_t: Type) -> ir.Expr:
        """{a for a in answers(args) if true(args, a)}: the answers that are true now."""
        sp = s.span
        var = "answer#"
        a = ir.Local(answer_t, sp, var)
        truth = ir.CallDef(BOOL, sp, ir.Question.part(s.question, "true"), [*args, a])
        domain = ir.CallDef(TSet(answer_t), sp, ir.Question.part(s.question, "answers"), list(args))
        return ir.Agg(TSet(answer_t), sp, "set", var, domain, a, truth)

    def legal_answers(self, s: ast.Ask, args: list[ir.Expr], answer_t: Type, may_truth: ir.Expr, may_lie: ir.Expr) -> ir.Expr:
        """The answers the obligation allows: {a for a in answers(args) if (T and true(args, a)) or
        (L and not true(args, a) and lie(args, a))}. The answer's name cannot be written in a ruleset."""
        sp = s.span
        var = "answer#"
        a = ir.Local(answer_t, sp, var)
        truth = ir.CallDef(BOOL, sp, ir.Question.part(s.question, "true"), [*args, a])
        false = ir.Unary(BOOL, sp, "not", truth)
        decl = self.question_decls[s.question]
        lie: ir.Expr = false
        if decl.lie is not None:
            lie = ir.BinOp(BOOL, sp, "and", false, ir.CallDef(BOOL, sp, ir.Question.part(s.question, "lie"), [*args, a]))
        filt = ir.BinOp(BOOL, sp, "or", ir.BinOp(BOOL, sp, "and", may_truth, truth), ir.BinOp(BOOL, sp, "and", may_lie, lie))
        domain = ir.CallDef(TSet(answer_t), sp, ir.Question.part(s.question, "answers"), list(args))
        return ir.Agg(TSet(answer_t), sp, "set", var, domain, a, filt)

    # ---- questions -------------------------------------------------------------------------

    def collect_question(self, q: ast.QuestionDecl) -> None:
        if not self.declare(q.name, q.name_span, "question"):
            return
        formals, _ = self.signature(q.formals or [], None)
        answer_t: Type = ERROR
        if q.answer is not None:
            answer_t = self.resolve_type(q.answer[2])
            if not isinstance(answer_t, TError) and not is_choosable(answer_t):
                self.d.error("E0301", f"an answer cannot be {tshow(answer_t)}: the speaker chooses it", q.answer[2].span,
                             hint="answers are players, places, cards or pieces, enum values, booleans or ranges of non-negative numbers")
                answer_t = ERROR
        self.question_decls[q.name] = q
        self.question_sigs[q.name] = (formals, answer_t)

    def check_question(self, q: ast.QuestionDecl) -> ir.Question | None:
        formals, answer_t = self.question_sigs[q.name]
        for tag, span in q.extra:
            what = {"answer": "answer", "truth": "true when", "lie": "lie must"}[tag]
            self.d.error("E0202", f"question '{q.name}' has a second '{what}' clause", span, hint="keep one of them")
        scope = Scope()
        for (name, t), f in zip(formals, q.formals or []):
            scope.names[name] = LocalInfo(t, False, f.span)
        if q.answer is None or q.truth is None:
            missing = "'answer NAME: TYPE from SET'" if q.answer is None else "'true when CONDITION'"
            self.d.error("E0405", f"question '{q.name}' needs {missing}", q.name_span,
                         hint="a question says its answers (answer a: player from players) and when an answer is true (true when …)")
            return None
        name, name_span, _, domain_ast, answer_src = q.answer
        domain = self.expect(domain_ast, scope, TSet(answer_t), f"the answers of '{q.name}'")
        inner = Scope(scope)
        self.bind_local(inner, name, answer_t, name_span)
        truth = self.expect(q.truth[0], inner, BOOL, f"when an answer to '{q.name}' is true")
        lie = self.expect(q.lie[0], inner, BOOL, f"what a lie in answer to '{q.name}' must be") if q.lie is not None else None
        src = _src(q.source)

        def part(which: str, fs: list[tuple[str, Type]], ret: Type, body: ir.Expr, source: ir.Source | None) -> ir.Definition:
            return ir.Definition(ir.Question.part(q.name, which), fs, ret, q.desc, body, None, None, source or src, q.span)

        with_answer = [*formals, (name, answer_t)]
        return ir.Question(
            q.name, formals, q.desc, name, answer_t,
            part("answers", formals, TSet(answer_t), domain, _src(answer_src)),
            part("true", with_answer, BOOL, truth, _src(q.truth[1])),
            part("lie", with_answer, BOOL, lie, _src(q.lie[1])) if q.lie is not None and lie is not None else None,
            src, q.span,
        )

    def check_question_names(self, targets: list[ast.TargetDecl]) -> None:
        """A question's parts are spelled ``question_part`` in generated code, a target's value
        ``target_name``: no declaration may already have that spelling."""
        spellings = {f"{q}_{which}": f"part '{which}' of question '{q}'" for q in self.question_decls for which in QUESTION_PARTS}
        spellings.update({f"target_{t.name}": f"the value of target '{t.name}'" for t in targets})
        for spelled, what in spellings.items():
            if spelled in self.decl_spans:
                self.d.error("E0202", f"'{spelled}' is the name the code generator gives {what}",
                             self.decl_spans[spelled], hint="rename the declaration")

    # ---- targets ---------------------------------------------------------------------------

    def check_target(self, t: ast.TargetDecl, labels: set[str]) -> ir.Target:
        e = self.expr(t.expr, Scope())
        if isinstance(e.type, TMap):
            e = self.err("E0301", "a target is one value; a per-player choice is not", t.expr.span, hint="name one player's choice")
        if t.label not in labels:
            self.d.error("E0201", f"no decision is labelled \"{t.label}\"", t.label_span,
                         hint=self.suggest(t.label, labels) or _listing("decision labels", labels))
        return ir.Target(t.name, t.desc, t.label, e, _src(t.source), t.span)

    def unused_questions(self) -> None:
        for name, q in self.question_decls.items():
            if ("question", name) not in self.used:
                self.d.warning("W0601", f"question '{name}' is never asked", q.span, hint=f"ask it: ask {name}(…) by p as answer truth when …")
            if q.source is None and q.answer is not None and q.answer[4] is None and (q.truth is None or q.truth[1] is None):
                self.d.warning("W0602", f"question '{name}' cites no rulebook sentence", q.span, hint='add: source "the question as the rulebook lists it"')


def decision_labels(rules_flow: list[ir.Stmt], procs: list[ir.Procedure]) -> set[str]:
    """The labels of every choice of the flow and the procedures (targets name one of them)."""
    from ..walk import walk_stmts

    out: set[str] = set()
    for body in [rules_flow, *(p.body for p in procs if p.body)]:
        for s in walk_stmts(body):
            if isinstance(s, (ir.Choose, ir.ChooseEach)):
                out.add(s.label)
    return out


__all__ = ["QUESTION_PARTS", "Knowledge", "decision_labels", "zone_elem"]
