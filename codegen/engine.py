"""`rulecheck gen`: render one standalone engine module for a Program.

The compiler (compiler.py) spells the rules as Python fragments; this module gathers the tables an
engine needs (component names, zone and variable layout, decision points) and renders them with
the templates in templates/.  Every constant goes through the ``pyrepr`` filter.
"""

from __future__ import annotations

import functools
import sys
import types
from pathlib import Path
from typing import Any

import jinja2

from rulecheck.dsl import ir
from rulecheck.dsl.checker import MAX_RANGE
from rulecheck.dsl.inplay import COMPARISONS, LOGICAL
from rulecheck.dsl.types import MAX_INT, TBool, TComp, TEnum, TInt, TPlace, TPlayer, TRecord, TSet, Type
from rulecheck.dsl.values import choice_bounds, drawn_names, mask_width, num_distinct_actions, param_spec, place_table, places_chosen, show
from rulecheck.dsl.walk import walk_stmts
from rulecheck.interpreter.semantics import STEP_BUDGET

from .bounds import length_bound
from .compiler import Compiler
from .layout import GenerationError, Layout, rep_of
from .literals import comment_text, ident, pyrepr, typed_table

__all__ = ["ADAPTERS", "GenerationError", "adapter_source", "environment", "generate", "load_module"]

#: what `rulecheck gen --adapter` can append to an engine
ADAPTERS = ("openspiel", "pettingzoo")

_VISIBILITY = {"public": 0, "hidden": 1, "owner": 2}


@functools.cache
def environment() -> jinja2.Environment:
    """The one configured jinja Environment of the code generator (one per process: its
    templates are compiled once, not once per engine; verify generates one for each reading)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=False,  # the output is Python; literals are escaped by pyrepr, not as HTML
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pyrepr"] = pyrepr
    env.filters["comment"] = comment_text
    return env


def generate(program: ir.Program, players_default: int | None = None) -> str:
    """The source of a standalone engine for ``program`` (readings are fixed by the program)."""
    rules = program.rules
    g = rules.game
    players = g.min_players if players_default is None else players_default
    if not g.min_players <= players <= g.max_players:
        raise GenerationError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
    c = Compiler(program)
    defs = [c.compile_def(program.defs[name]) for name in c.called]
    flow = c.compile_flow()
    layout = c.layout
    zones = zone_table(rules, layout)
    variables = var_table(c, rules, layout)
    points = [
        {
            "kind": {"chance": -1, "player": 0, "simultaneous": -2}[p.kind],
            "label": p.label,
            "secret": p.secret,
            "secret_if": None if p.secret_if is None else list(rules.params).index(p.secret_if),
            "comp": isinstance(p.type, TComp),
            "show": c.show_fn(p.type) if p.type is not None else "None",
            "line": p.span.line,
            "offset": c.observe_points.get(k, -1),
        }
        for k, p in enumerate(c.points, start=1)
    ]
    unspecified = []
    for kind, attr in c.unspecified:
        t = rules.kinds[kind].attrs[attr]
        cells = [c.value_literal(comp.attrs[attr], t) if comp.kind == kind else "None" for comp in rules.components]
        unspecified.append({"name": f"{kind}.{attr}", "ids": tuple(layout.kind_ids[kind]), "cells": cells, "mask": rep_of(t) == "mask",
                            "spec": param_spec(t, rules)})
    # the tables above may add show functions and constants, so they are read last
    shows = [{"name": name, "body": body} for body, name in c.shows.items()]
    consts = [{"name": name, "type": t, "literal": typed} for literal, name in c.consts.items() for t, typed in [typed_table(literal)]]
    changed = {a: r for a, r in sorted(program.readings.items())}
    context: dict[str, Any] = {
        "ruleset_file": Path(rules.name).name,
        "text_hash": rules.text_hash,
        "readings": changed,
        "non_default": {a: r for a, r in changed.items() if r != rules.ambiguities[a].default.name},
        "title": g.title,
        "min_players": g.min_players,
        "max_players": g.max_players,
        "default_players": players,
        "num_actions": num_distinct_actions(rules),
        "actions_base": actions_base(rules),
        "action_bounds": action_bounds(rules),
        "step_budget": STEP_BUDGET,
        "max_int": MAX_INT,
        "max_range": MAX_RANGE,
        "displays": [comp.display for comp in rules.components],
        # only where components share a name: otherwise a draw is called by the name itself
        "drawn": (drawn if (drawn := drawn_names(rules)) != [comp.display for comp in rules.components] else None),
        "kind_of": tuple(list(rules.kinds).index(comp.kind) for comp in rules.components),
        "nzones": layout.nzones,
        "mask_bytes": mask_bytes(rules),
        "chance_lists": chance_lists(rules, c.chance_zones, c.observe_points),
        "start_loc": tuple(layout.zone_base[rules.kinds[comp.kind].start_zone] for comp in rules.components),
        "out_if": out_conditions(rules),
        "kind_masks": tuple(sum(1 << comp.cid for comp in rules.components_of(k)) for k in rules.kinds),
        "zone_comp": tuple(z["index"] if z["comp"] else -1 for z in zones),
        "var_comp": tuple(v["index"] if v["comp"] else -1 for v in variables),
        "zones": zones,
        "zone_labels": tuple(zone_labels(rules, layout)),
        "variables": variables,
        "var_init": var_init(c, rules, layout),
        "nslots": c.slot_max,
        "ngroups": len(c.groups),
        "stale": tuple(c.stale_table()),
        "params": [{"name": n, "value": p.value, "spec": param_spec(p.type, rules)} for n, p in rules.params.items()],
        "unspecified": unspecified,
        "consts": consts,
        "shows": shows,
        "points": points,
        "defs": defs,
        "flow": flow,
        "fast": c.fast,
        "memos": list(c.memos.values()),
        # the runtime of boards, records and observations only where the rules have them
        "has_board": bool(rules.boards),
        "has_records": any(isinstance(v.type, TRecord) for v in rules.vars.values()),
        "has_observe": any(isinstance(s, ir.Observe) for body in bodies(program) for s in walk_stmts(body)),
        "returns": ir.RETURNS[g.returns],
        "score_slots": score_slots(rules, layout),
        "length_bound": length_bound(program),
        "targets": [target_entry(c, t) for t in rules.targets],
    }
    return environment().get_template("engine.py.jinja").render(**context)


def target_entry(c: Compiler, t: ir.Target) -> dict[str, Any]:
    """How the engine gives a target's value: its definition's function, or the value computed now."""
    name = t.part(t.name)
    mask = rep_of(t.expr.type) == "mask"
    if name in c.def_tables:
        return {"name": t.name, "fn": f"lambda S: {c.def_tables[name]}", "mask": mask}
    if name in c.var_tables:
        return {"name": t.name, "fn": f"lambda S: {c.var_table_code(name, 'S.v')}", "mask": mask}
    return {"name": t.name, "fn": f"D_{ident(name)}", "mask": mask}


def bodies(program: ir.Program) -> list[list[ir.Stmt]]:
    """The flow and every procedure body the program can run."""
    return [program.rules.flow, *(p.body for p in program.procs.values() if p.body)]
def adapter_source(kind: str) -> str:
    """The lines `rulecheck gen --adapter KIND` appends to an engine: importing the module then
    registers its OpenSpiel game (GAME_NAME, openspiel_game()) or gives its PettingZoo
    environments (env(), parallel_env()); those lines, not the engine, import rulecheck."""
    if kind not in ADAPTERS:
        raise ValueError(f"no adapter named '{kind}'")
    return environment().get_template("engine_adapter.py.jinja").render(kind=kind)


def mask_bytes(rules: ir.Ruleset) -> int:
    """How many bytes the widest set of the rules needs (components, players, enum values)."""
    return (mask_width(rules) + 7) // 8


def chance_lists(rules: ir.Ruleset, zones: dict[int, str], observed: dict[int, int] | None = None) -> list[tuple[tuple[int, ...], str]]:
    """How legal_actions lists chance outcomes: for the chance points (grouped), the members of
    the mask read from the bytes where the components of the zone drawn from can be (for a
    perception's error, the first bytes); the group with the most points last."""
    by_bytes: dict[tuple[int, int], list[int]] = {}
    for point, zone in zones.items():
        ids = [c.cid for c in rules.components if c.kind in rules.zones[zone].kinds] or [0]
        by_bytes.setdefault((min(ids) // 8, max(ids) // 8), []).append(point)
    for point, amount in (observed or {}).items():
        by_bytes.setdefault((0, (2 * amount) // 8), []).append(point)
    if not by_bytes:
        by_bytes[(0, 0)] = []
    groups = sorted(by_bytes.items(), key=lambda kv: (len(kv[1]), kv[0]))
    return [(tuple(points), members_expr("m", *span)) for span, points in groups]


def members_expr(m: str, first: int, last: int) -> str:
    """A list of the members of bitmask ``m`` in ascending order, read byte by byte from byte
    ``first`` to byte ``last`` (the others are zero)."""
    parts = [f"*_BYTES{j}[{m}{f' >> {8 * j}' if j else ''}{' & 255' if j < last else ''}]" for j in range(first, last + 1)]
    return "[" + ", ".join(parts) + "]"


def index_label(rules: ir.Ruleset, name: str, t: Type | None, idx: int | None) -> str:
    if t is None or idx is None:
        return name
    return f"{name}[{show(idx, t, rules)}]"


def instances(rules: ir.Ruleset, layout: Layout, t: Type | None) -> list[tuple[int | None, int]]:
    """(index value, seat) for every instance of an indexed thing, in the interpreter's order; the
    seat is the player index for player-indexed things (instances past the player count are
    skipped at run time), -1 otherwise."""
    if t is None:
        return [(None, -1)]
    if isinstance(t, TPlayer):
        return [(q, q) for q in range(layout.maxp)]
    dom = layout.domain(t)
    assert dom is not None
    return [(v, -1) for v in dom]


def zone_table(rules: ir.Ruleset, layout: Layout) -> list[dict[str, Any]]:
    out = []
    for z in rules.zones.values():
        for idx, seat in instances(rules, layout, z.index):
            inst = layout.zone_base[z.name] + (layout.offset(z.index, idx) if z.index is not None and idx is not None else 0)
            out.append({
                "inst": inst, "label": index_label(rules, z.name, z.index, idx), "seat": seat,
                "vis": _VISIBILITY[z.visibility], "zone": z.name, "index": idx,
                "ids": tuple(comp.cid for comp in rules.components if comp.kind in z.kinds),
                "vis_if": _vis_if(rules, z.vis_if),
                "comp": isinstance(z.index, TComp),
            })
    return out


def zone_labels(rules: ir.Ruleset, layout: Layout) -> list[str]:
    """The label of every zone instance by its number (for 'cannot draw from …')."""
    labels = [""] * layout.nzones
    for z in rules.zones.values():
        base = layout.zone_base[z.name]
        for k in range(layout.size(z.index)):
            idx = None if z.index is None else k + (z.index.lo or 0) if isinstance(z.index, TInt) else k
            labels[base + k] = index_label(rules, z.name, z.index, idx)
    return labels


def var_table(c: Compiler, rules: ir.Ruleset, layout: Layout) -> list[dict[str, Any]]:
    out = []
    for v in rules.vars.values():
        for idx, seat in instances(rules, layout, v.index):
            slot = layout.var_base[v.name] + (layout.offset(v.index, idx) if v.index is not None and idx is not None else 0)
            out.append({
                "slot": slot, "label": index_label(rules, v.name, v.index, idx), "seat": seat,
                "vis": _VISIBILITY[v.visibility], "indexed": v.index is not None,
                "init": c.value_literal(v.init, v.type), "show": c.show_fn(v.type),
                "var": v.name, "index": idx, "mask": rep_of(v.type) == "mask",
                "enc": tensor_encoding(rules, v.type),
                "vis_if": _vis_if(rules, v.vis_if),
                "comp": isinstance(v.index, TComp),
            })
    return out


def score_slots(rules: ir.Ruleset, layout: Layout) -> tuple[int, ...]:
    """Where each seat's score is, for a game whose returns are the scores (``returns score``)."""
    if rules.game.returns != "score":
        return ()
    (v,) = [v for v in rules.vars.values() if v.score]
    return tuple(layout.var_base[v.name] + layout.offset(v.index, q) for q in range(rules.game.max_players)) if v.index else ()
def actions_base(rules: ir.Ruleset) -> int:
    """The part of NUM_DISTINCT_ACTIONS - 1 that no parameter changes."""
    fixed = [b for b in choice_bounds(rules) if isinstance(b, int)]
    if places_chosen(rules):
        fixed.append(len(place_table(rules)) - 1)
    return max([len(rules.components), rules.game.max_players, 2, *(b + 1 for b in fixed)])


def action_bounds(rules: ir.Ruleset) -> list[str]:
    """Python for the largest option of each number choice written with parameters, in terms of
    the parameter values P (as rulecheck.dsl.values.eval_bound computes it)."""
    names = list(rules.params)
    out = []
    for b in choice_bounds(rules):
        if isinstance(b, int):
            continue
        code = _bound_code(b, names)
        if code is None:
            assert isinstance(b.type, TSet) and isinstance(b.type.elem, TInt) and b.type.elem.hi is not None
            code = str(b.type.elem.hi)
        out.append(code)
    return out


def _bound_code(e: ir.Expr, names: list[str]) -> str | None:
    if isinstance(e, ir.IntRange):
        return _number_code(e.hi, names)
    if isinstance(e, ir.SetOf):
        items = [_number_code(i, names) for i in e.items]
        if not items or any(i is None for i in items):
            return None
        return str(items[0]) if len(items) == 1 else "max(" + ", ".join(str(i) for i in items) + ")"
    if isinstance(e, ir.Agg) and e.op == "set" and isinstance(e.elem, ir.Local) and e.elem.name == e.var:
        return _bound_code(e.coll, names)
    if isinstance(e, ir.BinOp) and e.op == "diff":
        return _bound_code(e.left, names)
    if isinstance(e, ir.BinOp) and e.op == "union":
        a, b = _bound_code(e.left, names), _bound_code(e.right, names)
        return None if a is None or b is None else f"max({a}, {b})"
    return None


def _number_code(e: ir.Expr, names: list[str]) -> str | None:
    if isinstance(e, ir.Const):
        return repr(e.value) if isinstance(e.value, int) and not isinstance(e.value, bool) else None
    if isinstance(e, ir.ParamRef):
        return f"P[{names.index(e.name)}]"
    if isinstance(e, ir.Unary) and e.op == "neg":
        x = _number_code(e.operand, names)
        return None if x is None else f"(-{x})"
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        a, b = _number_code(e.left, names), _number_code(e.right, names)
        return None if a is None or b is None else f"({a} {e.op} {b})"
    return None


def out_conditions(rules: ir.Ruleset) -> list[dict[str, Any]]:
    """The components in play only in some games, grouped by the condition (as Python over the
    parameters P and the player count n) under which they are: {"code", "mask"} each."""
    names = list(rules.params)
    masks: dict[str, int] = {}
    for comp in rules.components:
        if comp.when is not None:
            code = guard_code(comp.when, names)
            masks[code] = masks.get(code, 0) | 1 << comp.cid
    return [{"code": code, "mask": mask} for code, mask in masks.items()]


def guard_code(e: ir.Expr, names: list[str]) -> str:
    """A component's condition of play in Python: the operators dsl/inplay.py allows, over the
    parameter values P and the player count n."""
    if isinstance(e, ir.Const):
        assert type(e.value) in (bool, int)
        return repr(e.value)
    if isinstance(e, ir.ParamRef):
        return f"P[{names.index(e.name)}]"
    if isinstance(e, ir.Builtin):
        assert e.op == "num_players"
        return "n"
    if isinstance(e, ir.Unary):
        operand = guard_code(e.operand, names)
        return f"(not {operand})" if e.op == "not" else f"(-{operand})"
    assert isinstance(e, ir.BinOp) and e.op in COMPARISONS + LOGICAL
    return f"({guard_code(e.left, names)} {e.op} {guard_code(e.right, names)})"


def _vis_if(rules: ir.Ruleset, vis_if: tuple[str, str] | None) -> tuple[int, int] | None:
    """`V when P else W` as (P's position among the parameters, W's visibility number)."""
    if vis_if is None:
        return None
    return list(rules.params).index(vis_if[0]), _VISIBILITY[vis_if[1]]


def tensor_encoding(rules: ir.Ruleset, t: Type) -> tuple[int, tuple[int, ...], bool]:
    """How a variable's value reaches an observation tensor: (0: one number; 1: one of these
    values, one-hot; 2: a set of these values, one bit each; 3: not at all, a text or a set of
    unbounded numbers), the values, and whether they are seats (kept below the player count)."""
    if isinstance(t, (TBool, TInt)):
        return 0, (), False
    if isinstance(t, TSet):
        values = _values(rules, t.elem)
        return (2, values, isinstance(t.elem, TPlayer)) if values is not None else (3, (), False)
    values = _values(rules, t)
    return (1, values, isinstance(t, TPlayer)) if values is not None else (3, (), False)


def _values(rules: ir.Ruleset, t: Type) -> tuple[int, ...] | None:
    """Every value of a finite type, as the engine holds them (None: not finite, or a text)."""
    if isinstance(t, TPlayer):
        return tuple(range(rules.game.max_players))
    if isinstance(t, TComp):
        return tuple(c.cid for c in rules.components if t.kind is None or c.kind == t.kind)
    if isinstance(t, TEnum):
        return tuple(range(len(rules.enums[t.name].values)))
    if isinstance(t, TBool):
        return (0, 1)
    if isinstance(t, TPlace):
        return tuple(range(len(place_table(rules))))
    if isinstance(t, TInt) and t.lo is not None and t.hi is not None and t.hi - t.lo < 4096:
        return tuple(range(t.lo, t.hi + 1))
    return None


def var_init(c: Compiler, rules: ir.Ruleset, layout: Layout) -> list[str]:
    cells = ["None"] * layout.nvars
    for v in rules.vars.values():
        base = layout.var_base[v.name]
        for k in range(layout.size(v.index)):
            cells[base + k] = c.value_literal(v.init, v.type)
    return cells


def load_module(source: str, name: str = "rulecheck_engine") -> types.ModuleType:
    """Import generated source as a module without writing a file (tests, benchmarks, replay).

    The module is registered in sys.modules while it runs, as an import would do, and removed
    again afterwards so engines of different programs never collide."""
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    code = compile(source, module.__file__, "exec")
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    finally:
        del sys.modules[name]
    return module
