"""Two editions of one game, side by side: how their names correspond, and every declaration whose
meaning differs between them (`rulecheck diff`; the witnesses are searched by checks/edition.py).

Both rulesets declare ``edition of "GAME"``; a name means the same in both when its *common* name
(ir.Edition.common) is the same. A declaration is compared in a canonical form of its IR, under
the default readings: names replaced by their common names, component ids by their common
displays, enum ordinals by their values' common names, spans, statement numbers, descriptions
and the texts of ``say`` left out (no rule reads them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rulecheck.dsl import ir
from rulecheck.dsl.inplay import condition_text
from rulecheck.dsl.types import TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TSet, TText, Type
from rulecheck.dsl.values import place_table, show
from rulecheck.dsl.walk import walk_exprs, walk_stmts


class EditionError(Exception):
    """Two rulesets that cannot be compared: what is wrong and what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class Side:
    """One edition: its rules under the default readings, and the common name of everything."""

    def __init__(self, rules: ir.Ruleset) -> None:
        if rules.edition is None:
            raise EditionError(f"{rules.name} does not say which game it is an edition of", 'declare it: edition of "GAME" { … }')
        self.rules = rules
        self.edition = rules.edition
        self.program = ir.bind(rules)

    def common(self, name: str) -> str:
        return self.edition.common("name", name)

    def value_name(self, enum: str, ordinal: int) -> str:
        return self.edition.common("value", enum, self.rules.enums[enum].values[ordinal])

    def display(self, cid: int) -> str:
        return self.edition.common("text", self.rules.components[cid].display)

    def text(self, value: str) -> str:
        """A text: a component's display is its common display (rules may compare names)."""
        return self.edition.common("text", value)

    def place(self, number: int) -> tuple[str, Any]:
        zone, idx = place_table(self.rules)[number]
        t = self.rules.zones[zone].index
        return self.common(zone), self.index_value(idx, t)

    def index_value(self, idx: Any, t: Type | None) -> Any:
        if idx is None or t is None:
            return idx
        if isinstance(t, TComp):
            return self.display(idx)
        if isinstance(t, TEnum):
            return self.value_name(t.name, idx)
        return idx

    # ---- canonical forms -------------------------------------------------------------------------

    def typ(self, t: Type | None) -> Any:
        if t is None:
            return None
        if isinstance(t, TEnum):
            return ("enum", self.common(t.name))
        if isinstance(t, TComp):
            return ("comp", self.common(t.kind) if t.kind else None)
        if isinstance(t, TSet):
            return ("set", self.typ(t.elem))
        if isinstance(t, TMap):
            return ("map", self.typ(t.elem))
        if isinstance(t, TInt):
            return ("int",)  # ranges are one type: their bounds are data, compared where declared
        return (type(t).__name__,)

    def value(self, v: Any, t: Type | None) -> Any:
        if isinstance(t, TSet) and isinstance(v, frozenset):
            return ("set", tuple(sorted(repr(self.value(x, t.elem)) for x in v)))
        if isinstance(t, TComp) and isinstance(v, int) and not isinstance(v, bool):
            return ("comp", self.display(v))
        if isinstance(t, TEnum) and isinstance(v, int) and not isinstance(v, bool):
            return ("enum", self.value_name(t.name, v))
        if isinstance(t, TPlace) and isinstance(v, int):
            return ("place", self.place(v))
        if isinstance(t, TText) and isinstance(v, str):
            return ("text", self.text(v))
        return v

    def expr(self, e: ir.Expr | None, env: dict[str, Any] | None = None) -> Any:
        """The canonical form of an expression. A definition given by one expression is inlined,
        its parameters replaced by the forms of the arguments, so that rules written with other
        helper definitions compare equal when they say the same."""
        if e is None:
            return None
        env = env or {}
        if isinstance(e, ir.Const):
            return ("const", self.value(e.value, e.type))
        if isinstance(e, ir.Local):
            return env.get(e.name, ("local", e.name))

        def ex(x: ir.Expr | None) -> Any:
            return self.expr(x, env)

        if isinstance(e, ir.VarRef):
            return ("var", self.common(e.name), ex(e.index))
        if isinstance(e, ir.ParamRef):
            return ("param", self.common(e.name))
        if isinstance(e, ir.ZoneRef):
            return ("zone", self.common(e.zone), ex(e.index))
        if isinstance(e, ir.PlaceOf):
            return ("place", self.common(e.zone), ex(e.index))
        if isinstance(e, ir.AttrRef):
            return ("attr", ex(e.obj), self.common(e.kind), e.attr)
        if isinstance(e, ir.CallDef):
            d = self.program.defs[e.name]
            args = [ex(a) for a in e.args]
            if d.body is not None:
                return self.expr(d.body, {f: a for (f, _), a in zip(d.formals, args)})
            return ("call", self.callee(e.name), tuple(args))
        if isinstance(e, ir.Builtin):
            if e.op == ir.IN_PLAY:  # the components of a kind in play: which kind matters
                assert isinstance(e.type, TSet) and isinstance(e.type.elem, TComp)
                return ("in_play", self.common(str(e.type.elem.kind)))
            return ("builtin", e.op, tuple(ex(a) for a in e.args))
        if isinstance(e, ir.Unary):
            return ("unary", e.op, ex(e.operand))
        if isinstance(e, ir.BinOp):
            return ("binop", e.op, ex(e.left), ex(e.right))
        if isinstance(e, ir.Cond):
            return ("cond", ex(e.cond), ex(e.then), ex(e.else_))
        if isinstance(e, ir.SetOf):
            return ("setof", tuple(ex(i) for i in e.items))
        if isinstance(e, ir.IntRange):
            return ("range", ex(e.lo), ex(e.hi))
        if isinstance(e, ir.Agg):
            # the aggregate's variable, named by its depth (so its name does not matter), hides a parameter
            depth = int(env.get("#depth", 0))
            inner = {**env, e.var: ("bound", depth), "#depth": depth + 1}
            return ("agg", e.op, depth, ex(e.coll), self.expr(e.elem, inner), self.expr(e.filt, inner))
        if isinstance(e, ir.MapGet):
            return ("mapget", ex(e.map), ex(e.index))
        if isinstance(e, ir.Fail):
            return ("fail", e.kind)
        raise AssertionError(type(e).__name__)  # pragma: no cover

    def callee(self, name: str) -> str:
        """A definition's common name; a question's part or a target's value by its owner's."""
        owner, dot, part = name.partition(".")
        return f"{self.common(owner)}.{part}" if dot else self.common(name)

    def stmt(self, s: ir.Stmt) -> Any:
        if isinstance(s, ir.Say):
            return ("say",)  # what the log says is no rule
        head: tuple[Any, ...] = (type(s).__name__,)
        if isinstance(s, ir.Let):
            return (*head, s.name, self.expr(s.value))
        if isinstance(s, ir.Assign):
            return (*head, s.name if s.local else self.common(s.name), s.local, self.expr(s.index), self.expr(s.value))
        if isinstance(s, ir.Move):
            return (*head, self.expr(s.what), self.common(s.zone), self.expr(s.index))
        if isinstance(s, ir.Draw):
            return (*head, self.expr(s.count), self.common(s.src), self.expr(s.src_index), self.common(s.dst), self.expr(s.dst_index), s.bind)
        if isinstance(s, ir.Ask):
            return (*head, self.callee(s.question), tuple(self.expr(a) for a in s.args), self.expr(s.chooser), s.bind,
                    self.expr(s.may_truth), self.expr(s.may_lie), s.label, s.secret)
        if isinstance(s, ir.Choose):
            return (*head, s.bind, self.expr(s.options), self.expr(s.chooser), s.label, s.secret, self.typ(s.type))
        if isinstance(s, ir.ChooseEach):
            return (*head, s.bind, s.pvar, self.expr(s.players), self.expr(s.options), s.label, s.secret, self.typ(s.type))
        if isinstance(s, ir.If):
            return (*head, self.expr(s.cond), self.block(s.then), self.block(s.else_))
        if isinstance(s, ir.ForEach):
            return (*head, s.var, self.expr(s.coll), self.expr(s.start), self.block(s.body))
        if isinstance(s, ir.Repeat):
            return (*head, self.expr(s.count), self.block(s.body))
        if isinstance(s, (ir.RepeatUntil, ir.While)):
            return (*head, self.expr(s.cond), self.block(s.body))
        if isinstance(s, ir.CallProc):
            return (*head, self.common(s.name), tuple(self.expr(a) for a in s.args))
        if isinstance(s, ir.End):
            return (*head, self.expr(s.winners), s.draw)
        if isinstance(s, ir.Shuffle):
            return (*head, self.common(s.zone), self.expr(s.index))
        if isinstance(s, ir.Reveal):
            return (*head, self.expr(s.what), self.expr(s.who))
        raise AssertionError(type(s).__name__)  # pragma: no cover

    def block(self, body: list[ir.Stmt]) -> tuple[Any, ...]:
        return tuple(x for x in (self.stmt(s) for s in body) if x != ("say",))

    def definition(self, d: ir.Definition) -> Any:
        return (tuple((f, self.typ(t)) for f, t in d.formals), self.typ(d.ret), self.expr(d.body),
                tuple((c.name, self.expr(c.guard), self.expr(c.value), tuple(c.overrides)) for c in d.cases or []),
                self.expr(d.otherwise))

    def procedure(self, p: ir.Procedure) -> Any:
        return (tuple((f, self.typ(t)) for f, t in p.formals), self.block(p.body or []))


# ---- the units compared ---------------------------------------------------------------------------

#: The parts of a game a difference is in (the issue's and the reports' words).
AREAS = ("components", "setup", "flow", "scoring", "end")


@dataclass
class Unit:
    """One thing compared: a declaration, or a datum of one (a component's attribute)."""

    key: str  # e.g. "proc score_round", "component Ace of Spades", "game players"
    area: str
    what: str  # how the finding names it
    form: Any  # the canonical form (None: the edition does not have it)
    sources: list[ir.Source] = field(default_factory=list)
    span: Any = None
    decl: str | None = None  # the declaration (definition or procedure) it is, by common name
    detail: str = ""  # the value shown in the finding, where it is short


def units(side: Side) -> dict[str, Unit]:
    """Everything of one edition that is compared, by key."""
    rules, prog = side.rules, side.program
    out: dict[str, Unit] = {}

    def add(u: Unit) -> None:
        out[u.key] = u

    g = rules.game
    add(Unit("game players", "components", "the player counts", (g.min_players, g.max_players), list(g.sources[:1]), None, None,
             f"{g.min_players} to {g.max_players}" + (" (assumed)" if g.players_assumed else "")))
    add(Unit("game order", "flow", "the turn order", g.order, [], None, None, g.order))
    add(Unit("game returns", "end", "what a game returns", g.returns, [], None, None, g.returns))
    for k in rules.kinds.values():
        attrs = tuple(sorted((a, side.typ(t)) for a, t in k.attrs.items()))
        comps = rules.components_of(k.name)
        add(Unit(f"kind {side.common(k.name)}", "components", f"the {k.name} {k.word}s and what is printed on them",
                 (attrs, len(comps)), [s for s in [k.source, *k.attr_sources.values()] if s][:2], k.span, None,
                 f"{len(comps)}, with {', '.join(sorted(k.attrs))}"))
        for c in comps:
            # compared on the attributes both editions print (the kind's finding says which differ)
            vals = {a: repr(side.value(c.attrs[a], k.attrs[a])) for a in k.attrs if a in c.attrs}
            if c.when is not None:  # in play only in some games: the condition is part of the component
                vals[" in play"] = condition_text(c.when, rules, side.common)
            srcs = [p.source for p in k.provenance.values() if p.source is not None][:1]
            add(Unit(f"component {side.display(c.cid)}", "components", f"the component {side.display(c.cid)}", vals, srcs, c.span, None,
                     "; ".join(f"{a} {show(c.attrs[a], k.attrs[a], rules)}" for a in k.attrs if a in c.attrs)))
    for e in rules.enums.values():
        add(Unit(f"enum {side.common(e.name)}", "components", f"the values of {e.name}",
                 tuple(sorted(side.edition.common("value", e.name, v) for v in e.values)), [s for s in [e.source] if s],
                 e.source.span if e.source else None, None, ", ".join(e.labels)))
    for e in rules.enums.values():
        add(Unit(f"names of {side.common(e.name)}", "components", f"what the values of {e.name} are called",
                 tuple(sorted((side.edition.common("value", e.name, v), label) for v, label in zip(e.values, e.labels))),
                 [s for s in [e.source] if s], e.source.span if e.source else None, None, ", ".join(e.labels)))
    for c in rules.components:
        add(Unit(f"name of {side.display(c.cid)}", "components", f"what {side.display(c.cid)} is called", c.display,
                 _renamed_sources(side, c.display), c.span, None, c.display))
    for z in rules.zones.values():
        add(Unit(f"zone {side.common(z.name)}", "components", f"the zone {z.name}",
                 (side.typ(z.index), tuple(sorted(side.common(k) for k in z.kinds)), z.visibility, z.vis_if),
                 [s for s in [z.source] if s], z.span, None, z.visibility))
    for v in rules.vars.values():
        add(Unit(f"var {side.common(v.name)}", "components", f"the variable {v.name}",
                 (side.typ(v.index), side.typ(v.type), repr(side.value(v.init, v.type)), v.score, v.visibility,
                  (v.type.lo, v.type.hi) if isinstance(v.type, TInt) else None),
                 [s for s in [v.source] if s], v.span, None, f"{v.type.show()} = {v.init!r}" if not isinstance(v.init, frozenset) else v.type.show()))
    for p in rules.params.values():
        add(Unit(f"param {side.common(p.name)}", "components", f"the parameter {p.name}", (side.typ(p.type), repr(p.value)),
                 [s for s in [p.source] if s], p.span, None, repr(p.value)))
    areas = classify(side)
    for name, d in prog.defs.items():
        if "." in name or d.body is not None:
            # a question's part or a target's value is compared with it; a definition by one
            # expression is compared where it is used (inlined there)
            continue
        add(Unit(f"def {side.common(name)}", areas.get(name, "flow"), f"the definition {name}", side.definition(d),
                 _def_sources(d) or _varies_sources(rules, rules.defs.get(name)), d.span, side.common(name)))
    for name, proc in prog.procs.items():
        # what a procedure shows to whom is compared apart: a reveal changes no move and no result
        add(Unit(f"proc {side.common(name)}", areas.get(name, "flow"), f"the procedure {name}", _strip_reveals(side.procedure(proc)),
                 _proc_sources(proc) or _varies_sources(rules, rules.procs.get(name)), proc.span, side.common(name)))
        reveals = [st for st in walk_stmts(proc.body or []) if isinstance(st, ir.Reveal)]
        add(Unit(f"reveals of {side.common(name)}", areas.get(name, "flow"), f"who is shown what in {name}",
                 tuple(side.stmt(st) for st in reveals),
                 [st.source for st in reveals if st.source][:1] or _varies_sources(rules, rules.procs.get(name)),
                 reveals[0].span if reveals else proc.span, None,
                 f"{len(reveals)} reveal{'s' if len(reveals) != 1 else ''}"))
    for q in rules.questions.values():
        lie = side.definition(q.lie) if q.lie is not None else None
        if lie is not None and lie[2] == ("const", True):
            lie = None  # "a lie must be anything": every false answer, as without the clause
        form = (tuple((f, side.typ(t)) for f, t in q.formals), side.typ(q.answer_type), q.answer,
                side.definition(q.answers), side.definition(q.truth), lie)
        add(Unit(f"question {side.common(q.name)}", "flow", f"the question {q.name}", form,
                 [s for s in [q.source] if s], q.span, side.common(q.name)))
    for t in rules.targets:
        add(Unit(f"target {side.common(t.name)}", "flow", f"the target {t.name}", (t.label, side.expr(t.expr)),
                 [s for s in [t.source] if s], t.span, side.common(t.name)))
    add(Unit("flow", "flow", "the flow of the game", _strip_reveals(side.block(rules.flow)), [s for s in [rules.flow_source] if s], None, "flow"))
    return out


def first_difference(side_a: Side, side_b: Side, pa: ir.Procedure | None, pb: ir.Procedure | None) -> tuple[ir.Stmt | None, ir.Stmt | None]:
    """The first statements (in order, inner blocks entered) where two procedures' bodies differ."""
    def flat(side: Side, p: ir.Procedure | None) -> list[tuple[Any, ir.Stmt]]:
        out: list[tuple[Any, ir.Stmt]] = []
        for st in walk_stmts(p.body or [] if p is not None else []):
            if isinstance(st, ir.Say):
                continue
            form = side.stmt(st)
            # a compound statement by its head: its blocks are compared statement by statement
            head = {ir.If: 2, ir.ForEach: 4, ir.Repeat: 2, ir.RepeatUntil: 2, ir.While: 2}.get(type(st))
            out.append((form[:head] if head else form, st))
        return out

    fa, fb = flat(side_a, pa), flat(side_b, pb)
    for (xa, sa), (xb, sb) in zip(fa, fb):
        if xa != xb:
            return sa, sb
    k = min(len(fa), len(fb))
    return (fa[k][1] if k < len(fa) else None), (fb[k][1] if k < len(fb) else None)


def _renamed_sources(side: Side, display: str) -> list[ir.Source]:
    """The source of the edition mapping that renames a component, if one does."""
    ed = side.rules.edition
    if ed is None:
        return []
    return [src for local, _, src in ed.same if local.kind == "text" and local.name == display and src is not None][:1]


def _varies_sources(rules: ir.Ruleset, decl: ir.Definition | ir.Procedure | None) -> list[ir.Source]:
    """For a declaration without a source of its own: its own declaration's, or else that of the
    ambiguity whose readings give it (a reading's text is the ruleset's, not the rulebook's)."""
    if decl is None:
        return []
    if decl.source is not None:
        return [decl.source]
    amb = rules.ambiguities.get(decl.varies) if decl.varies else None
    return list(amb.sources[:2]) if amb is not None else []


def _def_sources(d: ir.Definition) -> list[ir.Source]:
    return [s for s in [d.source, *(c.source for c in d.cases or [])] if s is not None][:2]


def _proc_sources(p: ir.Procedure) -> list[ir.Source]:
    out = [p.source] if p.source else []
    for s in walk_stmts(p.body or []):
        if s.source is not None and len(out) < 2:
            out.append(s.source)
    return out


def classify(side: Side) -> dict[str, str]:
    """The area of each definition and procedure: "end" (it ends the game, or decides when or
    who wins), "scoring" (it changes a score), "setup" (chance deals cards there), "flow"."""
    prog = side.program
    scores = {v.name for v in side.rules.vars.values() if v.score}
    out: dict[str, str] = {}
    ending: set[str] = set()
    for s in walk_stmts(side.rules.flow):
        if isinstance(s, (ir.RepeatUntil, ir.While, ir.End, ir.Repeat)):
            e = s.winners if isinstance(s, ir.End) else s.count if isinstance(s, ir.Repeat) else s.cond
            ending |= {x.name for x in walk_exprs(e) if isinstance(x, ir.CallDef)}
    todo = list(ending)
    while todo:
        d = prog.defs.get(todo.pop())
        if d is None:
            continue
        for x in walk_exprs([d.body, d.otherwise, *(c.guard for c in d.cases or []), *(c.value for c in d.cases or [])]):
            if isinstance(x, ir.CallDef) and x.name not in ending:
                ending.add(x.name)
                todo.append(x.name)
    for name in ending:
        out[name] = "end"
    for name, p in prog.procs.items():
        body = list(walk_stmts(p.body or []))
        if any(isinstance(s, ir.End) for s in body):
            out[name] = "end"
        elif any(isinstance(s, ir.Assign) and not s.local and s.name in scores for s in body):
            out[name] = "scoring"
        elif any(isinstance(s, ir.Draw) for s in body):
            out[name] = "setup"
    direct = {name for name, area in out.items() if area == "scoring"}
    for name, p in prog.procs.items():
        # a procedure that gives points through another one scores too (one call away)
        if name not in out and any(isinstance(s, ir.CallProc) and s.name in direct for s in walk_stmts(p.body or [])):
            out[name] = "scoring"
    for name, p in prog.procs.items():
        body = list(walk_stmts(p.body or []))
        if out.get(name) == "scoring":
            for s in body:
                for x in walk_exprs(s):
                    if isinstance(x, ir.CallDef) and x.name not in out:
                        out[x.name] = "scoring"
    return out


@dataclass
class Difference:
    """One unit that differs between the editions (a finding of kind edition-difference)."""

    key: str
    area: str
    what: str
    a: Unit | None
    b: Unit | None
    cosmetic: bool = False  # only names, descriptions or log texts differ
    information: bool = False  # only reveals differ: what players see, never a move or a result

    @property
    def decl(self) -> str | None:
        u = self.a or self.b
        return u.decl if u is not None else None


def differences(a: Side, b: Side) -> list[Difference]:
    """Every unit whose canonical form differs between the editions (or that one of them lacks),
    in area order, then in the order of the first edition's file."""
    ua, ub = units(a), units(b)
    out: list[Difference] = []
    for key in sorted(set(ua) | set(ub), key=lambda k: _order(k, ua, ub)):
        x, y = ua.get(key), ub.get(key)
        if x is not None and y is not None and _same(key, x.form, y.form):
            continue
        u = x or y
        assert u is not None
        if key.startswith("reveals of ") and not (x and x.form) and not (y and y.form):
            continue  # neither edition's version shows anything
        d = Difference(key, u.area, u.what, x, y, cosmetic=key.startswith(("names of ", "name of ")),
                       information=key.startswith("reveals of "))
        out.append(d)
    return out


def _same(key: str, fa: Any, fb: Any) -> bool:
    if key.startswith("component ") and isinstance(fa, dict) and isinstance(fb, dict):
        common = set(fa) & set(fb)
        return all(fa[k] == fb[k] for k in common)
    return bool(fa == fb)


def _order(key: str, ua: dict[str, Unit], ub: dict[str, Unit]) -> tuple[int, int, int, str]:
    u = ua.get(key) or ub.get(key)
    assert u is not None
    line = u.span.line if u.span is not None else 0
    return (AREAS.index(u.area), 0 if key in ua else 1, line, key)


def _strip_reveals(form: Any) -> Any:
    if isinstance(form, tuple):
        return tuple(_strip_reveals(x) for x in form if not (isinstance(x, tuple) and x and x[0] == "Reveal"))
    return form


def common_players(a: Side, b: Side, players: list[int] | None) -> list[int]:
    lo = max(a.rules.game.min_players, b.rules.game.min_players)
    hi = min(a.rules.game.max_players, b.rules.game.max_players)
    both = list(range(lo, hi + 1))
    if players is None:
        return both
    bad = [n for n in players if n not in both]
    if bad:
        raise EditionError(f"both editions are played by {lo} to {hi} players, not {bad[0]}")
    return players


def check_same_game(a: ir.Ruleset, b: ir.Ruleset) -> None:
    for r in (a, b):
        if r.edition is None:
            raise EditionError(f"{r.name} does not say which game it is an edition of", 'declare it: edition of "GAME" { … }')
    assert a.edition is not None and b.edition is not None
    if a.edition.game != b.edition.game:
        raise EditionError(f"{a.name} is an edition of \"{a.edition.game}\" and {b.name} of \"{b.edition.game}\": not one game")


def labels_of(side: Side) -> dict[str, set[str]]:
    """For each decision label (chance: "draw from ZONE" by the zone's common name), the common
    names of the procedures and definitions that decide its options."""
    out: dict[str, set[str]] = {}
    bodies = [("flow", side.rules.flow), *((name, p.body or []) for name, p in side.program.procs.items())]
    for owner, body in bodies:
        for s in walk_stmts(body):
            label = decision_key(side, s)
            if label is None:
                continue
            decls = out.setdefault(label, set())
            decls.add(side.common(owner) if owner != "flow" else "flow")
            for x in walk_exprs(s):
                if isinstance(x, ir.CallDef):
                    decls.add(side.callee(x.name).partition(".")[0])
    return out


def decision_key(side: Side, s: ir.Stmt) -> str | None:
    if isinstance(s, (ir.Choose, ir.ChooseEach)):
        return s.label
    if isinstance(s, ir.Draw):
        return f"draw from {side.common(s.src)}"
    return None


def writers(side: Side) -> dict[str, set[str]]:
    """For each variable and zone (by common name), the procedures that change it, and the
    definitions their changes read."""
    out: dict[str, set[str]] = {}
    for name, p in side.program.procs.items():
        for s in walk_stmts(p.body or []):
            targets: list[str] = []
            if isinstance(s, ir.Assign) and not s.local:
                targets = [f"var {side.common(s.name)}"]
            elif isinstance(s, ir.Move):
                targets = [f"zone {side.common(s.zone)}"]
            elif isinstance(s, ir.Draw):
                targets = [f"zone {side.common(s.src)}", f"zone {side.common(s.dst)}"]
            for t in targets:
                decls = out.setdefault(t, set())
                decls.add(side.common(name))
                decls |= {side.callee(x.name).partition(".")[0] for x in walk_exprs(s) if isinstance(x, ir.CallDef)}
    # and the procedures that call a writer (a rule that gives points through a helper procedure)
    callers: dict[str, set[str]] = {}
    for name, p in side.program.procs.items():
        for s in walk_stmts(p.body or []):
            if isinstance(s, ir.CallProc):
                callers.setdefault(side.common(s.name), set()).add(side.common(name))
    for decls in out.values():
        for d in list(decls):
            decls |= callers.get(d, set())
    return out


__all__ = ["AREAS", "Difference", "EditionError", "Side", "TBool", "TPlayer", "Unit", "check_same_game", "common_players",
           "differences", "labels_of", "units", "writers"]


@dataclass
class EditionOutcome:
    """What `rulecheck diff` found: the two editions, the player counts compared, the findings."""

    a: ir.Ruleset
    b: ir.Ruleset
    players: list[int]
    games: int
    seed: int
    findings: list[Any]


def compare(a: ir.Ruleset, b: ir.Ruleset, players: list[int] | None = None, games: int = 200, seed: int = 0) -> EditionOutcome:
    """Every difference between two editions of one game, each with its verdict (checks/edition.py)."""
    from .checks.edition import EditionCheck

    check = EditionCheck(a, b, players, games, seed)
    findings = check.run()
    from rulecheck.reports import wording

    for f in findings:
        f.title, f.message = wording.edition_words(f)
    return EditionOutcome(a, b, check.players, games, seed, findings)

