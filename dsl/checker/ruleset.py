"""The checker of a whole ruleset (``Checker``, ``check_ruleset``): the order in which the parts
run (declarations first, so that every use can see every declaration; then tables, definitions,
procedures, the flow, ambiguities, invariants; then the whole-ruleset checks) and the IR it
builds.
"""

from __future__ import annotations

import hashlib

from .. import ast, ir
from ..diagnostics import Diagnostics
from ..source import NOWHERE, SourceFile, Span
from ..types import BOOL
from ..walk import number_statements
from .base import Scope, _src
from .boards import Boards
from .definitions import Definitions
from .editions import Editions
from .expressions import Expressions
from .flow import Flow
from .knowledge import Knowledge, decision_labels
from .tables import Tables


class Checker(Definitions, Boards, Tables, Editions, Knowledge, Flow, Expressions):
    """The whole checker: ``check`` runs the parts over a ruleset in order."""

    def check(self, tree: ast.Ruleset) -> ir.Ruleset | None:
        items = tree.items
        if not items:
            self.d.error(
                "E0005", "the file declares nothing", NOWHERE,
                hint='a ruleset starts with: game "Title" { players 2..4 }',
            )
            return None
        games = [i for i in items if isinstance(i, ast.Game)]
        flows = [i for i in items if isinstance(i, ast.FlowDecl)]
        if not games:
            self.d.error("E0401", "no game declaration", NOWHERE, hint='add: game "Title" { players 2..4 }')
        for g in games[1:]:
            self.d.error("E0401", "a second game declaration", g.span, hint=f"the first is at line {games[0].span.line}")
        if games:
            self.game = self.check_game(games[0])
        if not flows:
            self.d.error("E0403", "no flow: the game never starts", NOWHERE, hint="add: flow { … } with the steps of the game")
        for f in flows[1:]:
            self.d.error("E0403", "a second flow", f.span, hint=f"the first is at line {flows[0].span.line}")

        for i in items:
            if isinstance(i, ast.EnumDecl):
                self.collect_enum(i)
        for i in items:
            if isinstance(i, ast.BoardDecl):
                self.collect_board_name(i)
        for i in items:
            if isinstance(i, ast.KindDecl):
                self.collect_kind_name(i)
        for i in items:
            if isinstance(i, ast.KindDecl):
                self.collect_kind(i)
        for i in items:
            if isinstance(i, ast.ZoneDecl):
                self.collect_zone(i)
        for i in items:
            if isinstance(i, ast.ParamDecl):
                self.collect_param(i)
        for i in items:
            if isinstance(i, ast.VarDecl):
                self.collect_var(i)
            elif isinstance(i, ast.RecordDecl):
                self.collect_record(i)
        boards: dict[str, ir.BoardInfo] = {}
        for i in items:
            if isinstance(i, ast.BoardDecl):
                board = self.check_board(i)
                if board is not None:
                    boards[board.name] = board
        outside = [o for o in (self.collect_outside(i) for i in items if isinstance(i, ast.OutsideDecl)) if o is not None]
        self.check_visibility_params(items)
        for i in items:
            if isinstance(i, ast.DefineDecl):
                if self.declare(i.name, i.name_span, "definition"):
                    self.def_decls[i.name] = i
                    self.def_sigs[i.name] = self.signature(i.formals or [], i.ret)
            elif isinstance(i, ast.ProcDecl):
                if self.declare(i.name, i.name_span, "procedure"):
                    self.proc_decls[i.name] = i
                    self.proc_sigs[i.name] = self.signature(i.formals, None)[0]
            elif isinstance(i, ast.QuestionDecl):
                self.collect_question(i)
        amb_decls = [i for i in items if isinstance(i, ast.AmbiguityDecl)]
        amb_names: set[str] = set()
        for a in amb_decls:
            if self.declare(a.name, a.name_span, "ambiguity"):
                amb_names.add(a.name)
        self.check_enum_value_collisions()
        tables = [i for i in items if isinstance(i, ast.TableDecl)]
        seen_tables: dict[str, ast.TableDecl] = {}
        for t in tables:
            if t.kind in seen_tables:
                self.d.error("E0202", f"a second table for '{t.kind}'", t.kind_span, hint=f"the first is at line {seen_tables[t.kind].span.line}")
                continue
            seen_tables[t.kind] = t
            self.check_table(t)
        for k in self.kinds.values():
            if k.name not in seen_tables:
                self.d.warning("W0601", f"{k.word} type '{k.name}' has no table, so the game has no such components", k.span, hint=f"add: table {k.name} in <zone> {{ ... }}")
        for i in items:
            # a second declaration of the same name was refused; its value is not checked against the first
            if isinstance(i, ast.VarDecl) and i.name in self.vars and self.vars[i.name].span == i.span:
                self.check_var_init(i)
            elif isinstance(i, ast.RecordDecl):
                self.check_record_defaults(i)

        if self.game is not None and self.game.returns == "score":
            scores = [v for v in self.vars.values() if v.score]
            if len(scores) != 1:
                self.d.error("E0405", f"'returns score' needs exactly one score variable, and the ruleset has {len(scores)}",
                             games[0].returns_span or games[0].span,
                             hint="mark the one variable that is each player's return with score: var points[player]: int = 0 score")
        defs: dict[str, ir.Definition] = {}
        for name, decl in self.def_decls.items():
            defs[name] = self.check_define(decl, None)
        questions: dict[str, ir.Question] = {}
        for name, qdecl in self.question_decls.items():
            question = self.check_question(qdecl)
            if question is not None:
                questions[name] = question
        self.check_question_names([i for i in items if isinstance(i, ast.TargetDecl)])
        procs: dict[str, ir.Procedure] = {}
        for name, pdecl in self.proc_decls.items():
            procs[name] = self.check_proc(pdecl, None)
        if self.game is not None and self.game.turn is not None and self.game.turn not in self.proc_sigs:
            turn = self.game.turn
            self.d.error("E0201", f"'turn {turn}' names no procedure", games[0].turn_span or games[0].span,
                         hint=self.suggest(turn, self.proc_sigs) or f"name the procedure each turn calls, e.g. turn {turn} with procedure {turn}(p: player) {{ … }}")
        flow: list[ir.Stmt] = []
        flow_source = None
        if flows:
            flow = self.block(flows[0].body, Scope())
            flow_source = _src(flows[0].source)
        ambiguities: dict[str, ir.Ambiguity] = {}
        for a in amb_decls:
            if a.name in amb_names:
                amb = self.check_ambiguity(a, amb_names)
                if amb is not None:
                    ambiguities[a.name] = amb
        self.check_varies(defs, procs, ambiguities, amb_names)
        invariants: list[ir.Invariant] = []
        inv_names: dict[str, Span] = {}
        for i in items:
            if isinstance(i, ast.InvariantDecl):
                if i.name in inv_names:
                    self.d.error("E0202", f"invariant '{i.name}' is declared twice", i.span, hint=f"the first is at line {inv_names[i.name].line}")
                inv_names[i.name] = i.span
                self.allow_winners = i.at_end
                e = self.expect(i.expr, Scope(), BOOL, "an invariant")
                self.allow_winners = False
                invariants.append(ir.Invariant(i.name, i.desc, i.at_end, e, _src(i.source), i.span))
        labels = decision_labels(flow, [*procs.values(), *(p for a in ambiguities.values() for r in a.readings for p in r.procs.values())])
        targets: list[ir.Target] = []
        target_names: dict[str, Span] = {}
        for i in items:
            if isinstance(i, ast.TargetDecl):
                if i.name in target_names:
                    self.d.error("E0202", f"target '{i.name}' is declared twice", i.name_span, hint=f"the first is at line {target_names[i.name].line}")
                    continue
                target_names[i.name] = i.span
                targets.append(self.check_target(i, labels))
        edition = self.check_edition([i for i in items if isinstance(i, ast.EditionDecl)])
        self.unused_questions()
        terms = [
            ir.Term(t.term, [ir.Quote(q.lang, q.text) for q in t.translations], t.meaning, _src(t.source), t.span, t.reading)
            for t in items if isinstance(t, ast.TermDecl)
        ]
        self.check_recursion(defs, procs, ambiguities)
        self.check_unused(defs, procs, ambiguities, invariants)
        self.check_sources(defs, procs)
        if self.d.has_errors or self.game is None:
            return None
        rules = ir.Ruleset(
            name=self.src.name,
            text_hash=hashlib.sha256(self.src.text.encode("utf-8")).hexdigest(),
            game=self.game,
            enums=self.enums,
            kinds=self.kinds,
            components=self.components,
            zones=self.zones,
            vars=self.vars,
            params=self.params,
            defs=defs,
            procs=procs,
            flow=flow,
            flow_source=flow_source,
            ambiguities=ambiguities,
            invariants=invariants,
            terms=terms,
            questions=questions,
            targets=targets,
            edition=edition,
            boards=boards,
            outside=outside,
        )
        number_statements(rules)
        return rules


def check_ruleset(src: SourceFile, tree: ast.Ruleset, diags: Diagnostics) -> ir.Ruleset | None:
    return Checker(src, diags).check(tree)
