"""IR to Python: the expressions, the definitions and the flow of a generated engine.

The compiler reads only the IR (``rulecheck.dsl.ir.Program``) and writes fragments of Python that
the templates put together.  Its choices, all of them about speed, none about any one game:

* **Values.** Sets of players, components, enum values and booleans are int bitmasks (bit ``v`` set
  when ``v`` is a member); sets of numbers are frozensets, since numbers can be negative or large.
  Zones are one bitmask per zone instance plus a location per component.
* **Definitions** become plain functions, small ones are spelled in place, and a definition of
  cases that overrides order completely is a plain conditional.  A definition without arguments is
  remembered until something it reads changes, since expressions cannot change the state.  A
  definition or a test that depends on no state (only on its arguments, of finite types or of
  known ranges) is computed when the engine is generated: a table, or a bitmask per value of the
  other locals; one on other numbers is remembered per arguments in a dict.
* **Procedures** are inlined at every call (the checker forbids recursion).
* **The flow** is a set of functions, each running until the next decision or the end: ``_r0``
  from the start, ``_rK`` from decision point K, resuming just after it.  The state keeps the
  point it waits at, and locals that must survive a decision live in a slot list ``L``, so clone
  and serialize copy a few flat lists.  A resume function holds the rest of its block and then
  what follows (the next round of a loop, the statements after a procedure call or an ``if``);
  continuations that are long are shared functions ``_kN``.  A draw of several components is
  made by ``apply_action`` itself until the last one.
* **Evaluation order and errors** follow ``interpreter/semantics.py`` exactly: operands left to
  right, short-circuit ``and``/``or``/``if``/``any``/``all``, the same ``RuleError`` kinds, messages
  and statement positions, and the same step budget.  An expression is rearranged (a test moved
  before a loop, members skipped, an operand evaluated early) only where analysis shows that no
  part of it can fail, so the same errors happen at the same place.

The parts, one file each: ``layout.py`` (representations and records), ``base.py`` (shared
state, writing code), ``tables.py`` (definitions, constants, values computed now, bounds),
``expressions.py`` and ``aggregates.py`` (the ``x_*`` visitors), ``statements.py`` and
``decisions.py`` (the ``s_*`` visitors), ``patterns.py`` (shapes of IR expressions) and
``lines.py`` (passes over finished lines); ``Compiler`` here ties them together.
"""

from __future__ import annotations

import re

from rulecheck.dsl import ir
from rulecheck.dsl.source import Span
from rulecheck.dsl.types import TBool, TComp, TEnum, TMap, TPlace, TPlayer, TRecord, TSet, Type
from rulecheck.interpreter.semantics import STEP_BUDGET

from .aggregates import Aggregates
from .boards import Boards
from .decisions import Decisions
from .expressions import Expressions
from .layout import SIMPLE, BlockRec, Cont, Fn, Loc, Scope, at, py_type, rep_of, zero_of
from .lines import code_only, code_size, fill_empty_blocks, hoist_annotations, map_code, mark_unread, mirror_slots, reuse_lookups
from .literals import ident, pyrepr
from .statements import Statements

#: A continuation of the flow this short (lines of code) is spelled in place, not called.
INLINE_CONT = 40
_STATE_LIST = {"Z": "z", "V": "v", "L": "L", "loc": "loc", "C": "C"}


class Compiler(Statements, Decisions, Expressions, Aggregates, Boards):
    """The whole compiler: ``compile_def`` for each definition the flow calls and ``compile_flow``
    for the flow; ``engine.py`` reads the rest of what it needs from the parts' state."""

    # ---- definitions -------------------------------------------------------------------------------

    def compile_def(self, d: ir.Definition) -> list[str]:
        self.fn = Fn(1)
        self.scope = Scope()
        params = ["S: State"]
        for name, t in d.formals:
            py = self.fn.fresh(f"a_{ident(name)}_")
            self.scope.names[name] = Loc(py, t, rep_of(t))
            params.append(f"{py}: {py_type(t)}")
        if self.needs_call_site(d):
            params.append("_at: tuple[int, int]")
        rt = py_type(d.ret)
        rep = rep_of(d.ret)
        expr = self.bodies[d.name]
        if expr is not None:
            res = self.ex(expr, rep)
            self.emit(f"_r: {rt} = {res}")
        else:
            self.compile_cases(d, rt, rep)
        body = self.fn.lines
        head = [f"def D_{ident(d.name)}({', '.join(params)}) -> {rt}:"]
        tail = []
        if d.name in self.cached:
            # no arguments: the value changes only when what it reads does (see changed()); it is
            # remembered here, and every call site looks for it before calling
            g, key = self.cache_slot[d.name]
            tail = [f"    S.C[{g}][{key}] = _r"]
        head += self.prologue()
        return mark_unread(head + reuse_lookups(body) + tail + ["    return _r"])

    def compile_cases(self, d: ir.Definition, rt: str, rep: str | None) -> None:
        cases = d.cases or []
        # all guards first, in order, as the interpreter does
        guards = [self.materialize(self.ex(c.guard)) for c in cases]
        guard_var = []
        for g in guards:
            if SIMPLE.match(g) and g not in ("True", "False"):
                guard_var.append(g)
            else:
                t = self.fn.fresh("g")
                self.emit(f"{t} = {g}")
                guard_var.append(t)
        wins = []
        for i, c in enumerate(cases):
            over = [guard_var[j] for j, o in enumerate(cases) if c.name in o.overrides]
            if over:
                w = self.fn.fresh("w")
                self.emit(f"{w} = {guard_var[i]} and not ({' or '.join(over)})")
                wins.append(w)
            else:
                wins.append(guard_var[i])
        k = self.fn.fresh("k")
        self.emit(f"{k} = 0")
        self.emit(f"_r: {rt} = {zero_of(d.ret)}")
        vals = []
        for i, c in enumerate(cases):
            v = self.fn.fresh("v")
            vals.append(v)
            self.emit(f"if {wins[i]}:")
            with self.indented():
                code = self.ex(c.value, rep)
                self.emit(f"{v}: {rt} = {code}")
                self.emit(f"if not {k}:")
                self.emit(f"    _r = {v}")
                self.emit(f"{k} += 1")
        self.emit(f"if not {k}:")
        with self.indented():
            if d.otherwise is not None:
                code = self.ex(d.otherwise, rep)
                self.emit(f"_r = {code}")
            else:
                msg = f"no case of '{d.name}' applies"
                self.emit(f"_raise('incomplete', {pyrepr(msg)}, *_at)")
        if len(cases) > 1:
            # several cases apply: they must agree (the first one's value is _r)
            differ = " or ".join(f"({wins[i]} and {vals[i]} != _r)" for i in range(1, len(cases)))
            self.emit(f"elif {k} > 1 and ({differ}):")
            items = ", ".join(f"({wins[i]}, {pyrepr(c.name)}, {vals[i]} if {wins[i]} else None, ({at(c.span)}))" for i, c in enumerate(cases))
            self.emit(f"    _agree({pyrepr(d.name)}, [{items}])")

    def prologue(self) -> list[str]:
        out = []
        if "C" in self.fn.uses:
            out.append("    C = S.C")
        if "Z" in self.fn.uses:
            out.append("    Z = S.z")
        if "V" in self.fn.uses:
            out.append("    V = S.v")
        if "loc" in self.fn.uses:
            out.append("    loc = S.loc")
        if "n" in self.fn.uses:
            out.append("    n = S.n")
        return out

    # ---- showing values (observations, action strings, messages) -----------------------------------

    def show(self, t: Type | None, x: str) -> str:
        """An expression giving the text ``dsl/values.show`` gives for value ``x`` of type ``t``."""
        if isinstance(t, TBool):
            return f"('yes' if {x} else 'no')"
        if isinstance(t, TPlayer):
            return f"_pname({x})"
        if isinstance(t, TComp):
            return f"_DISP[{x}]"
        if isinstance(t, TPlace):
            return f"_ZLABEL[{x}]"  # a place is a zone instance
        if isinstance(t, TEnum):
            labels = self.const(pyrepr(tuple(self.rules.enums[t.name].labels)))
            return f"{labels}[{x}]"
        if isinstance(t, TSet):
            if rep_of(t) == "fs":
                return f"(', '.join([{self.show(t.elem, 'e')} for e in sorted({x})]) if {x} else 'none')"
            return f"(', '.join([{self.show(t.elem, 'e')} for e in _BITS[{x}]]) if {x} else 'none')"
        if isinstance(t, TMap):
            return f"'; '.join([_pname(i) + ': ' + {self.show(t.elem, 'e')} for i, e in enumerate({x}) if e is not None])"
        if isinstance(t, TRecord):
            fields = " + ', ' + ".join(self.show(ft, f"r[{k}]") for k, (_, ft) in enumerate(t.fields)) or "''"
            return f"('; '.join([{fields} for r in {x}]) if {x} else 'none')"
        return f"str({x})"

    def show_fn(self, t: Type | None) -> str:
        """A named function showing values of type ``t`` (one per distinct type)."""
        body = self.show(t, "x")
        name = self.shows.get(body)
        if name is None:
            name = f"_show{len(self.shows)}"
            self.shows[body] = name
        return name

    # ---- the flow ----------------------------------------------------------------------------------

    def compile_flow(self) -> list[list[str]]:
        """The flow as Python functions, each running until the next decision or the end.

        ``_r0`` runs the flow from its start and ``_rK`` resumes it at decision point K, so a state
        needs only the number of the point it waits at: nothing is re-entered or skipped.  A
        resume function holds the rest of the decision's block and then what follows the block: the
        next round of the enclosing loop, or the statements after the enclosing construct.  Those
        continuations are spelled in place when they are short and are shared functions ``_kN``
        otherwise.  Locals that live across a decision are in the slot list ``L``; anything else a
        continuation needs is computed inside it."""
        # every statement counts toward the step budget, but when even the whole flow cannot
        # execute that many statements the count can never exceed it
        self.bounded = self.statement_bound(self.rules.flow) <= STEP_BUDGET
        self.fn = Fn(0)
        self.scope = Scope()
        flow = self.rules.flow
        span = flow[-1].span if flow else Span(1, 1, 1, 1)
        self.end_line = f"_raise('incomplete', \"the flow ended without a result: no 'end winners' was reached\", {at(span)})"
        with self.capture_rel():
            top = self.block(flow, tail=None)
        fns = [self.function("_r0", "S: State, a: Any", self.after(top, -1), resume=True)]
        fast: list[str] = []
        for p in range(1, len(self.points) + 1):
            lines, rec, i = self.resumes[p]
            # one number, except at a simultaneous decision (a tuple): typed, a compiled engine
            # computes with the action itself rather than through Python's generic operators
            params = "S: State, a: Any" if self.points[p - 1].kind == "simultaneous" else "S: State, a: int"
            if p not in self.loop_draws:
                fns.append(self.function(f"_r{p}", params, lines + self.after(rec, i), resume=True))
                continue
            # a draw repeated at the same point: apply_action makes it itself, and calls _aK for
            # what follows the last one
            fns.append(self.function(f"_a{p}", "S: State", self.after(rec, i), resume=True))
            fns.append(self.function(f"_r{p}", params, [*lines, f"_a{p}(S)"], resume=True))
            fast.append(f"{'if' if not fast else 'elif'} pc == {p}:")
            fast.extend("    " + x for x in self.inline_body([*lines, f"_a{p}(S)"]))
        self.fast = hoist_annotations(fast)
        done: set[int] = set()
        while len(done) < len(self.cont_names):
            for cont, name in list(self.cont_names.items()):
                if id(cont) not in done:
                    done.add(id(cont))
                    fns.append(self.function(name, "S: State" + ("" if self.bounded else ", st: int"), self.cont_body(cont), resume=False))
        return fns

    def function(self, name: str, params: str, body: list[str], resume: bool) -> list[str]:
        """One function of the flow: the state's lists it uses are loaded first."""
        lines = mirror_slots(reuse_lookups(hoist_annotations(fill_empty_blocks(["    " + x for x in body]))))
        text = code_only(lines)
        used = [v for v in ("Z", "V", "L", "loc", "C") if re.search(rf"\b{v}\[", text)]
        head = [f"def {name}({params}) -> None:"]
        if len(used) >= 3:
            # S.k holds the state's lists (zones, variables, slots, locations, caches) in one tuple
            head.append("    " + ", ".join(v if v in used else "_" for v in ("Z", "V", "L", "loc", "C")) + " = S.k")
        else:
            head += [f"    {v} = S.{_STATE_LIST[v]}" for v in used]
        if re.search(r"\bn\b", text):
            head.append("    n = S.n")
        if resume and not self.bounded and re.search(r"\bst\b", text):
            # the step budget counts statements between two decisions, so it starts afresh here
            head.append("    st = _STEP_BUDGET + 1")
        return mark_unread(head + lines)

    def inline_body(self, body: list[str]) -> list[str]:
        """Code of the flow spelled inside State.apply_action (``self`` and ``action``)."""
        lines = mirror_slots(reuse_lookups(fill_empty_blocks(["    " + x for x in body])))
        text = code_only(lines)
        head = [f"{v} = self.{_STATE_LIST[v]}" for v in ("Z", "V", "L", "loc", "C") if re.search(rf"\b{v}\[", text)]
        if re.search(r"\bn\b", text):
            head.append("n = self.n")
        names = {"S": "self", "a": "action"}
        return head + [map_code(x[4:], lambda c: re.sub(r"\b[Sa]\b", lambda m: names[m.group(0)], c)) for x in lines]

    def after(self, rec: BlockRec, i: int) -> list[str]:
        """Code for the statements after the i-th of a block, then for what follows the block."""
        out: list[str] = []
        for piece in rec.pieces[i + 1:]:
            out.extend(piece.lines)
            if not piece.falls:
                return out
        if rec.tail is None:
            return [*out, self.end_line]
        body = self.cont_body(rec.tail)
        if code_size(body) <= INLINE_CONT:
            return out + body
        name = self.cont_names.get(rec.tail)
        if name is None:
            name = self.cont_names[rec.tail] = f"_k{len(self.cont_names) + 1}"
        return [*out, f"{name}(S{'' if self.bounded else ', st'})"]

    def cont_body(self, cont: Cont) -> list[str]:
        got = self.cont_memo.get(cont)
        if got is None:
            got = cont.advance + cont.loop + self.after(cont.rec, cont.index)
            self.cont_memo[cont] = got
        return got
