"""Definitions, procedures and ambiguities (``Definitions``): definitions by value or by cases
(with overrides and ``otherwise``), procedures, ambiguities with their readings (each one a set of
overriding definitions and procedures, of the same signatures), ``varies by``, recursion (which
is refused) and the warnings for definitions and procedures that cite no rulebook sentence.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import ast, ir
from ..parser import MAX_TREE_DEPTH
from ..source import Span
from ..types import BOOL
from ..walk import call_sites, callees
from .base import AMBIGUITY_KINDS, LocalInfo, Scope, _listing, _src
from .names import Names
from .types import tshow


class Definitions(Names):
    """Definitions, procedures, ambiguities and their readings; recursion and citations."""

    # ---- definitions and procedures ----------------------------------------------------------------

    def check_define(self, d: ast.DefineDecl, reading: tuple[str, str] | None) -> ir.Definition:
        formals, ret = self.signature(d.formals or [], d.ret)
        scope = Scope()
        for (name, t), f in zip(formals, d.formals or []):
            scope.names[name] = LocalInfo(t, False, f.span)
        body = None
        cases = None
        otherwise = None
        if d.body is not None:
            body = self.expect(d.body, scope, ret, f"the value of '{d.name}'")
        elif d.cases is not None:
            cases = []
            names: dict[str, Span] = {}
            for c in d.cases:
                if c.name in names:
                    self.d.error("E0202", f"case '{c.name}' appears twice in '{d.name}'", c.span, hint="give each case its own name")
                names[c.name] = c.span
            for c in d.cases:
                for o, ospan in c.overrides:
                    if o not in names:
                        self.d.error(
                            "E0201", f"'{d.name}' has no case '{o}' to override", ospan,
                            hint=self.suggest(o, names) or _listing(f"cases of '{d.name}'", names),
                        )
                    elif o == c.name:
                        self.d.error("E0405", f"case '{c.name}' cannot override itself", ospan, hint="name the cases this one takes precedence over")
                guard = self.expect(c.guard, scope, BOOL, f"the condition of case '{c.name}'")
                value = self.expect(c.value, scope, ret, f"the value of case '{c.name}'")
                cases.append(ir.Case(c.name, guard, value, [o for o, _ in c.overrides], _src(c.source), c.span))
            if d.otherwise is not None:
                otherwise = self.expect(d.otherwise.value, scope, ret, f"the otherwise value of '{d.name}'")
        return ir.Definition(
            d.name, formals, ret, d.desc, body, cases, otherwise, _src(d.source), d.span,
            varies=d.varies, reading=reading,
        )

    def check_proc(self, p: ast.ProcDecl, reading: tuple[str, str] | None) -> ir.Procedure:
        formals = self.proc_sigs.get(p.name) if reading is None else self.signature(p.formals, None)[0]
        formals = formals or []
        scope = Scope()
        for (name, t), f in zip(formals, p.formals):
            scope.names[name] = LocalInfo(t, False, f.span)
        body = self.block(p.body, scope) if p.body is not None else None
        return ir.Procedure(p.name, formals, body, p.desc, _src(p.source), p.span, varies=p.varies, reading=reading)

    # ---- ambiguities and their readings ------------------------------------------------------------

    def check_ambiguity(self, a: ast.AmbiguityDecl, amb_names: set[str]) -> ir.Ambiguity | None:
        kind = a.kind or "ambiguity"
        if kind not in AMBIGUITY_KINDS:
            self.d.error(
                "E0405", f"'{kind}' is not a kind of ambiguity", a.kind_span or a.span,
                hint=self.suggest(kind, AMBIGUITY_KINDS) or "kinds: " + ", ".join(AMBIGUITY_KINDS),
            )
        if not a.sources:
            self.d.error("E0507", f"ambiguity '{a.name}' quotes nothing from the rulebook", a.name_span, hint='add: source "the sentence that can be read two ways"')
        if len(a.readings) < 2:
            self.d.error(
                "E0501", f"ambiguity '{a.name}' has {len(a.readings)} reading{'s' if len(a.readings) != 1 else ''}; it needs at least two",
                a.name_span, hint='add: reading name "what this reading says" { define … }',
            )
        defaults = [r for r in a.readings if r.is_default]
        if a.readings and len(defaults) != 1:
            self.d.error(
                "E0504", f"ambiguity '{a.name}' has {len(defaults)} default readings; it needs exactly one",
                (defaults[1].span if len(defaults) > 1 else a.name_span),
                hint="mark the reading engines use by default with 'default' after its name",
            )
        readings: list[ir.Reading] = []
        seen: set[str] = set()
        for r in a.readings:
            if r.name in seen:
                self.d.error("E0202", f"reading '{r.name}' appears twice in '{a.name}'", r.span, hint="give each reading its own name")
                continue
            seen.add(r.name)
            defs: dict[str, ir.Definition] = {}
            procs: dict[str, ir.Procedure] = {}
            for d in r.defines:
                base = self.def_decls.get(d.name)
                if base is None:
                    self.d.error(
                        "E0502", f"reading '{r.name}' overrides '{d.name}', which is not a definition", d.name_span,
                        hint=self.suggest(d.name, self.def_decls) or f"declare it at the top level first: define {d.name}(…) -> type varies by {a.name}",
                    )
                    continue
                if d.varies is not None:
                    self.d.error("E0405", "a reading gives a body, not 'varies by'", d.varies_span or d.span, hint="give the body this reading has, e.g. define name(…) -> type = …")
                    continue
                over = self.check_define(d, (a.name, r.name))
                bsig = self.def_sigs[d.name]
                if [t for _, t in over.formals] != [t for _, t in bsig[0]] or over.ret != bsig[1]:
                    self.d.error(
                        "E0505", f"this '{d.name}' does not match the definition it replaces", d.name_span,
                        hint=f"the definition at line {base.span.line} takes ({', '.join(tshow(t) for _, t in bsig[0])}) -> {tshow(bsig[1])}",
                    )
                if d.name in defs:
                    self.d.error("E0202", f"reading '{r.name}' defines '{d.name}' twice", d.name_span, hint="remove one of them")
                defs[d.name] = over
            for p in r.procs:
                pbase = self.proc_decls.get(p.name)
                if pbase is None:
                    self.d.error(
                        "E0502", f"reading '{r.name}' overrides '{p.name}', which is not a procedure", p.name_span,
                        hint=self.suggest(p.name, self.proc_decls) or f"declare it at the top level first: procedure {p.name}(…) varies by {a.name}",
                    )
                    continue
                if p.varies is not None:
                    self.d.error("E0405", "a reading gives a body, not 'varies by'", p.varies_span or p.span, hint="give the body this reading has: procedure name(…) { … }")
                    continue
                pover = self.check_proc(p, (a.name, r.name))
                if [t for _, t in pover.formals] != [t for _, t in self.proc_sigs[p.name]]:
                    self.d.error(
                        "E0505", f"this '{p.name}' does not match the procedure it replaces", p.name_span,
                        hint=f"the procedure at line {pbase.span.line} takes ({', '.join(tshow(t) for _, t in self.proc_sigs[p.name])})",
                    )
                procs[p.name] = pover
            readings.append(ir.Reading(r.name, r.is_default, r.desc, r.clarify, defs, procs, r.span))
        if len(readings) < 2 or len([r for r in readings if r.default]) != 1:
            return None
        return ir.Ambiguity(a.name, kind, [s for s in (_src(s) for s in a.sources) if s], a.question, readings, a.span)

    def check_varies(
        self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity], declared: set[str],
    ) -> None:
        overridden_by: dict[str, str] = {}
        for a in ambs.values():
            for name in a.varies:
                if name in overridden_by and overridden_by[name] != a.name:
                    span = (defs[name].span if name in defs else procs[name].span) if (name in defs or name in procs) else a.span
                    self.d.error(
                        "E0405", f"'{name}' is varied by two ambiguities, '{overridden_by[name]}' and '{a.name}'", span,
                        hint="split it into two definitions, one per question",
                    )
                overridden_by.setdefault(name, a.name)
        for decl_name, var_amb, span, where in [
            *((n, d.varies, d.span, "definition") for n, d in defs.items() if d.varies),
            *((n, p.varies, p.span, "procedure") for n, p in procs.items() if p.varies),
        ]:
            amb = ambs.get(var_amb or "")
            dd = self.def_decls.get(decl_name)
            pd = self.proc_decls.get(decl_name)
            vspan = (dd.varies_span if dd else pd.varies_span if pd else None) or span
            if amb is None:
                if var_amb not in declared:  # a declared but broken ambiguity has its own errors
                    self.d.error(
                        "E0201", f"unknown ambiguity '{var_amb}'", vspan,
                        hint=self.suggest(var_amb or "", declared) or f"declare it: ambiguity {var_amb} {{ source \"…\" reading … }}",
                    )
                continue
            for r in amb.readings:
                if decl_name not in r.defs and decl_name not in r.procs:
                    self.d.error(
                        "E0506", f"reading '{r.name}' of '{amb.name}' does not define '{decl_name}'", r.span,
                        hint=f"the {where} '{decl_name}' varies by '{amb.name}', so every reading must give it",
                    )
            if overridden_by.get(decl_name) not in (None, amb.name):
                self.d.error("E0405", f"'{decl_name}' varies by '{amb.name}' but is overridden by '{overridden_by[decl_name]}'", vspan, hint="only the ambiguity named after 'varies by' may give it readings")

    # ---- whole-ruleset checks ----------------------------------------------------------------------

    def check_recursion(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure], ambs: dict[str, ir.Ambiguity]) -> None:
        graph: dict[str, set[str]] = {}
        variants: list[ir.Definition | ir.Procedure] = [*defs.values(), *procs.values()]
        for a in ambs.values():
            for r in a.readings:
                variants.extend(r.defs.values())
                variants.extend(r.procs.values())
        for v in variants:
            graph.setdefault(v.name, set()).update(callees(v))
        state: dict[str, int] = {}
        reported: set[str] = set()

        # depth first, without recursion (a chain of thousands of definitions is a valid file)
        for root in sorted(graph):
            if state.get(root) is not None:
                continue
            path: list[str] = [root]
            on_path: dict[str, int] = {root: 0}
            todo: list[Iterator[str]] = [iter(sorted(graph.get(root, ())))]
            state[root] = 1
            while todo:
                n = path[-1]
                m = next(todo[-1], None)
                if m is None:
                    state[n] = 2
                    todo.pop()
                    del on_path[path.pop()]
                    continue
                if state.get(m) == 1:
                    cycle = [*path[on_path[m]:], m] if m in on_path else [n, m]
                    if m not in reported:
                        reported.add(m)
                        decl = self.def_decls.get(m) or self.proc_decls.get(m)
                        span = decl.name_span if decl is not None else Span.point(1, 1)
                        self.d.error("E0206", f"'{m}' calls itself: " + " -> ".join(cycle), span, hint="rules are evaluated without recursion; use a for each loop or an aggregate")
                elif state.get(m) is None:
                    state[m] = 1
                    on_path[m] = len(path)
                    path.append(m)
                    todo.append(iter(sorted(graph.get(m, ()))))
        self.check_call_depth(variants, reported)

    def check_call_depth(self, variants: list[ir.Definition | ir.Procedure], cyclic: set[str]) -> None:
        """Every back end evaluates a call inside its caller's evaluation (the interpreter's tree
        walk, the engine's functions, the verifier's unrolling), so the depth of a declaration's
        syntax counts through the calls it makes: at most MAX_TREE_DEPTH levels, as in one
        declaration (a chain of a thousand definitions exhausted Python's stack)."""
        sites: dict[str, list[tuple[int, list[tuple[int, str]]]]] = {}
        for v in variants:
            roots: list[object] = [v.body, v.otherwise, *[x for c in v.cases or [] for x in (c.guard, c.value)]] \
                if isinstance(v, ir.Definition) else [v.body]
            sites.setdefault(v.name, []).append(call_sites(roots))
        total: dict[str, int] = {}
        for name in sorted(sites):  # callees first, without recursion (no cycles: reported above)
            stack = [name]
            while stack:
                n = stack[-1]
                if n in total:
                    stack.pop()
                    continue
                todo = [c for _, calls in sites.get(n, []) for _, c in calls if c not in total and c in sites and c not in cyclic]
                if todo and n not in cyclic:
                    stack.extend(todo)
                    continue
                total[n] = max((max([own, *(d + total.get(c, 0) for d, c in calls)]) for own, calls in sites.get(n, [])), default=0)
                stack.pop()
        if not total:
            return
        name, deepest = max(sorted(total.items()), key=lambda kv: kv[1])
        decl = self.def_decls.get(name) or self.proc_decls.get(name)
        if deepest > MAX_TREE_DEPTH and decl is not None:
            self.d.error("E0004", f"nested too deeply through calls: '{name}' and the definitions and procedures it calls make "
                         f"{deepest:,} levels of syntax inside one another, more than {MAX_TREE_DEPTH}", decl.name_span,
                         hint="each call counts the depth of the body it calls; compute inner parts once with let, or fold "
                         "a chain of definitions into fewer")

    def check_sources(self, defs: dict[str, ir.Definition], procs: dict[str, ir.Procedure]) -> None:
        for d in defs.values():
            if d.varies:
                continue
            if d.source is None and not any(c.source for c in d.cases or []):
                self.d.warning("W0602", f"definition '{d.name}' cites no rulebook sentence", d.span, hint='add: source "the sentence it formalizes"')
        for p in procs.values():
            if p.varies:
                continue
            if p.source is None:
                self.d.warning("W0602", f"procedure '{p.name}' cites no rulebook sentence", p.span, hint='add: source "the sentence it formalizes"')
