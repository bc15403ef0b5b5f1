"""How values read in logs, observations and reports.

The generated engines carry a copy of these rules (codegen/templates/runtime), and the differential
tests check that both spell every value the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from .ir import Expr, Ruleset, Stmt, Value
from .types import TBool, TComp, TEnum, TInt, TMap, TPlace, TPlayer, TRecord, TSet, TText, Type


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


def show(value: Value, typ: Type, rules: Ruleset) -> str:
    if isinstance(typ, TBool):
        return "yes" if value else "no"
    if isinstance(typ, TPlayer):
        assert isinstance(value, int)
        return player_name(value)
    if isinstance(typ, TComp):
        assert isinstance(value, int)
        return rules.components[value].display
    if isinstance(typ, TEnum):
        assert isinstance(value, int)
        return rules.enums[typ.name].labels[value]
    if isinstance(typ, TPlace):
        assert isinstance(value, int)
        return place_label(rules, value)
    if isinstance(typ, TSet):
        assert isinstance(value, frozenset)
        if not value:
            return "none"
        return ", ".join(show(v, typ.elem, rules) for v in sorted(value))
    if isinstance(typ, TMap):
        assert isinstance(value, tuple)
        return "; ".join(
            f"{player_name(i)}: {show(v, typ.elem, rules)}" for i, v in enumerate(value) if v is not None
        )
    if isinstance(typ, TRecord):
        assert isinstance(value, tuple)
        if not value:
            return "none"
        return "; ".join(", ".join(show(v, t, rules) for v, (_, t) in zip(entry, typ.fields)) for entry in value)
    if isinstance(typ, (TInt, TText)):
        return str(value)
    return str(value)


def place_table(rules: Ruleset) -> list[tuple[str, int | None]]:
    """Every place a component can be, by its number (a value of type place): each zone in the
    order the ruleset declares them, one place per index value, a zone indexed by player with a
    place for every seat the game allows, one indexed by a card type with a place per component
    id. The same numbers in every player count, and the generated engines' zone instances."""
    cached: list[tuple[str, int | None]] | None = getattr(rules, "_places", None)
    if cached is not None:
        return cached
    out: list[tuple[str, int | None]] = []
    for z in rules.zones.values():
        t = z.index
        if t is None:
            out.append((z.name, None))
        elif isinstance(t, TPlayer):
            out += [(z.name, q) for q in range(rules.game.max_players)]
        elif isinstance(t, TComp):
            out += [(z.name, c) for c in range(len(rules.components))]
        elif isinstance(t, TEnum):
            out += [(z.name, k) for k in range(len(rules.enums[t.name].values))]
        elif isinstance(t, TInt) and t.lo is not None and t.hi is not None:
            out += [(z.name, k) for k in range(t.lo, t.hi + 1)]
    object.__setattr__(rules, "_places", out)
    return out


def place_number(rules: Ruleset, zone: str, index: int | None) -> int:
    """The number of the place that is zone ``zone`` at ``index`` (place_table)."""
    numbers: dict[tuple[str, int | None], int] | None = getattr(rules, "_place_numbers", None)
    if numbers is None:
        numbers = {p: k for k, p in enumerate(place_table(rules))}
        object.__setattr__(rules, "_place_numbers", numbers)
    return numbers[(zone, None if index is None else int(index))]


def place_label(rules: Ruleset, value: int) -> str:
    """How a place reads: its zone, and the index where the zone has one (``hand[Player 2]``)."""
    table = place_table(rules)
    if not 0 <= value < len(table):
        return f"place {value}"
    zone, idx = table[value]
    z = rules.zones[zone]
    if idx is None or z.index is None:
        return zone
    return f"{zone}[{show(idx, z.index, rules)}]"


def encode_action(value: Value) -> int:
    """Decision values become OpenSpiel actions: booleans 0/1, everything else is already an int."""
    return int(value)  # type: ignore[arg-type]


def num_distinct_actions(rules: Ruleset, params: Mapping[str, Value] | None = None) -> int:
    """The size of the action space: every decision value is below it, and the last action (the
    value itself) is PASS, played by the players a simultaneous decision does not include.

    With ``params`` (the value of every parameter), a number choice whose options are written with
    parameters (``0..limit``) counts with their values; without, with the values the checker
    typed the options with (the parameters' defaults)."""
    top = max(len(rules.components), rules.game.max_players, 2)
    if places_chosen(rules):
        top = max(top, len(place_table(rules)))
    for bound in choice_bounds(rules):
        if isinstance(bound, int):
            top = max(top, bound + 1)
        else:
            value = eval_bound(bound, params) if params is not None else None
            if value is None:
                assert isinstance(bound.type, TSet) and isinstance(bound.type.elem, TInt) and bound.type.elem.hi is not None
                value = bound.type.elem.hi
            top = max(top, value + 1)
    return top + 1


def _statement_bodies(rules: Ruleset) -> list[list[Stmt]]:
    """The flow, every procedure's body and each reading's own procedures' bodies."""
    bodies = [rules.flow, *(p.body for p in rules.procs.values() if p.body)]
    for a in rules.ambiguities.values():
        for r in a.readings:
            bodies += [p.body for p in r.procs.values() if p.body]
    return bodies


def choice_bounds(rules: Ruleset) -> list[int | Expr]:
    """For every decision of the rules (every reading's too), the most options it can have: an
    int, or for a choice among numbers written with parameters the options' expression whose
    largest member bounds them (see eval_bound)."""
    from .ir import Choose, ChooseEach, Observe
    from .walk import walk_stmts

    out: list[int | Expr] = []
    for body in _statement_bodies(rules):
        for s in walk_stmts(body):
            if isinstance(s, Observe) and s.mode == "within":
                out.append(2 * s.amount)  # the chance outcomes of a perception's error
            if isinstance(s, (Choose, ChooseEach)):
                t = s.type
                if isinstance(t, TEnum):
                    out.append(len(rules.enums[t.name].values) - 1)
                elif isinstance(t, TInt) and t.hi is not None:
                    out.append(s.options if _params_in(s.options) else t.hi)
    return out


def _expression_roots(rules: Ruleset) -> list[object]:
    """Every part of the rules that holds expressions: the flow, procedures, definitions and
    questions, and each reading's own procedures and definitions."""
    roots: list[object] = list(_statement_bodies(rules))
    for d in [*rules.defs.values(), *(d for q in rules.questions.values() for d in q.parts())]:
        roots += [d.body, d.otherwise, *(c.guard for c in d.cases or []), *(c.value for c in d.cases or [])]
    for a in rules.ambiguities.values():
        for r in a.readings:
            roots += [d.body for d in r.defs.values()]
    return [r for r in roots if r is not None]


def uses_places(rules: Ruleset) -> bool:
    """Does some expression of the rules have the type place (or set of place)?"""
    cached: bool | None = getattr(rules, "_uses_places", None)
    if cached is not None:
        return cached
    from .walk import walk_exprs

    found = any(isinstance(e.type, TPlace) or (isinstance(e.type, TSet) and isinstance(e.type.elem, TPlace))
                for root in _expression_roots(rules) for e in walk_exprs(root))
    object.__setattr__(rules, "_uses_places", found)
    return found


#: A set of numbers all within 0..SMALL_NUMBERS-1 (by its type) is held as a bitmask in an engine,
#: as a set of players or components is; any other set of numbers as a frozenset.
SMALL_NUMBERS = 64


def small_numbers(t: object) -> int | None:
    """For a set of numbers whose type keeps them within 0..SMALL_NUMBERS-1, how many bits it
    needs (its largest number plus one); None for any other type."""
    if isinstance(t, TSet) and isinstance(t.elem, TInt) and t.elem.lo is not None and t.elem.hi is not None \
            and 0 <= t.elem.lo and t.elem.hi < SMALL_NUMBERS:
        return max(t.elem.hi + 1, 1)
    return None


def _reach(e: Expr, rules: Ruleset) -> tuple[int | None, int | None]:
    """The lowest and highest value a bound of a range can have, whatever the parameters' values
    (None: no limit)."""
    from .ir import Const, ParamRef, Unary

    if isinstance(e, Const) and isinstance(e.value, int):
        return e.value, e.value
    if isinstance(e, ParamRef) and e.name in rules.params:
        t = rules.params[e.name].type
        return (t.lo, t.hi) if isinstance(t, TInt) else (None, None)
    if isinstance(e, Unary) and e.op == "neg":
        lo, hi = _reach(e.operand, rules)
        return (None if hi is None else -hi), (None if lo is None else -lo)
    return None, None


def small_numbers_width(rules: Ruleset) -> int:
    """How many bits the widest set of small numbers of the rules needs: 0 where there is none,
    or where a range written with parameters could hold a number outside 0..SMALL_NUMBERS-1 with
    some parameter values (its type is given by their defaults: see small_numbers_sound)."""
    cached: int | None = getattr(rules, "_small_numbers", None)
    if cached is not None:
        return cached
    from .ir import Const, IntRange
    from .walk import walk_exprs

    exprs = [e for root in _expression_roots(rules) for e in walk_exprs(root)]
    if not _small_where_declared(rules, exprs):
        object.__setattr__(rules, "_small_numbers", 0)
        return 0
    widths = [w for w in map(small_numbers, [v.type for v in rules.vars.values()] + [e.type for e in exprs]) if w is not None]
    for e in exprs:
        if isinstance(e, IntRange) and not (isinstance(e.lo, Const) and isinstance(e.hi, Const)):
            lo, hi = _reach(e.lo, rules)[0], _reach(e.hi, rules)[1]
            if lo is None or hi is None or lo < 0 or hi >= SMALL_NUMBERS:
                widths = []
                break
            widths.append(hi + 1)
    found = max(widths, default=0)
    object.__setattr__(rules, "_small_numbers", found)
    return found


def _small_where_declared(rules: Ruleset, exprs: list[Expr]) -> bool:
    """Whether every set of numbers given to a formal, or made the value of a definition, that is
    declared a set of small numbers is one by its own type too. (A variable's declared range is
    checked by every assignment; a formal's or a result's is checked nowhere, so a negative number
    there is no error in the interpreter, and a mask cannot hold it.)"""
    from .ir import CallDef, CallProc
    from .walk import walk_stmts

    defs = [*rules.defs.values(), *(d for a in rules.ambiguities.values() for r in a.readings for d in r.defs.values())]
    for d in defs:
        if small_numbers(d.ret) is not None:
            values = [d.body, d.otherwise, *(c.value for c in d.cases or [])]
            if any(v is not None and small_numbers(v.type) is None for v in values):
                return False
    calls: list[tuple[list[tuple[str, Type]], list[Expr]]] = [
        (rules.defs[e.name].formals, e.args) for e in exprs if isinstance(e, CallDef) and e.name in rules.defs]
    calls += [(rules.procs[s.name].formals, s.args) for body in _statement_bodies(rules) for s in walk_stmts(body)
              if isinstance(s, CallProc) and s.name in rules.procs]
    return all(small_numbers(t) is None or small_numbers(arg.type) is not None
               for formals, args in calls for (_, t), arg in zip(formals, args))


def small_numbers_sound(rules: Ruleset) -> bool:
    """Whether an engine of the rules may hold its sets of small numbers as masks: every number
    its sets can hold with any parameter values is within 0..SMALL_NUMBERS-1 where the types say so."""
    return small_numbers_width(rules) > 0


def mask_width(rules: Ruleset) -> int:
    """How many members the widest set of the rules can have: components, players, enum values,
    the numbers of a set of small numbers, and the places when the rules use them."""
    widest = max([len(rules.components), rules.game.max_players, 2, *(len(e.values) for e in rules.enums.values()),
                  small_numbers_width(rules)])
    if uses_places(rules):
        widest = max(widest, len(place_table(rules)))
    return widest


def places_chosen(rules: Ruleset) -> bool:
    """Does some decision of the rules (of any reading) choose a place?"""
    from .ir import Choose, ChooseEach
    from .walk import walk_stmts

    return any(isinstance(s, (Choose, ChooseEach)) and isinstance(s.type, TPlace) for body in _statement_bodies(rules) for s in walk_stmts(body))


def _params_in(e: Expr) -> bool:
    from .ir import Agg, BinOp, IntRange, Local, ParamRef, SetOf, Unary

    if isinstance(e, ParamRef):
        return True
    if isinstance(e, IntRange):
        return _params_in(e.hi)
    if isinstance(e, Unary):
        return _params_in(e.operand)
    if isinstance(e, BinOp):
        return _params_in(e.left) or _params_in(e.right)
    if isinstance(e, SetOf):
        return any(_params_in(i) for i in e.items)
    if isinstance(e, Agg) and e.op == "set" and isinstance(e.elem, Local) and e.elem.name == e.var:
        return _params_in(e.coll)
    return False


def eval_bound(e: Expr, params: Mapping[str, Value]) -> int | None:
    """The largest member a set of numbers can have, from the parameters' values: a range's end,
    the largest item of a set written out, the bound of the set a comprehension filters, of the
    left side of a difference, the larger of a union's; None where it is not written so."""
    from .ir import Agg, BinOp, IntRange, Local, SetOf

    if isinstance(e, IntRange):
        return _number(e.hi, params)
    if isinstance(e, SetOf):
        items = [_number(i, params) for i in e.items]
        return max([i for i in items if i is not None], default=None) if all(i is not None for i in items) else None
    if isinstance(e, Agg) and e.op == "set" and isinstance(e.elem, Local) and e.elem.name == e.var:
        return eval_bound(e.coll, params)
    if isinstance(e, BinOp) and e.op == "diff":
        return eval_bound(e.left, params)
    if isinstance(e, BinOp) and e.op == "union":
        a, b = eval_bound(e.left, params), eval_bound(e.right, params)
        return None if a is None or b is None else max(a, b)
    return None


def _number(e: Expr, params: Mapping[str, Value]) -> int | None:
    """The value of a number written with constants and parameters, or None."""
    from .ir import BinOp, Const, ParamRef, Unary

    if isinstance(e, Const):
        return e.value if isinstance(e.value, int) and not isinstance(e.value, bool) else None
    if isinstance(e, ParamRef):
        v = params.get(e.name)
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(e, Unary) and e.op == "neg":
        v = _number(e.operand, params)
        return None if v is None else -v
    if isinstance(e, BinOp) and e.op in ("+", "-", "*"):
        a, b = _number(e.left, params), _number(e.right, params)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def param_spec(t: Type, rules: Ruleset) -> tuple[str, int | None, int | None]:
    """What a parameter (or an unspecified column) accepts, as (kind, low, high): "bool"; "int"
    within low..high (None: unbounded); "enum" an ordinal below high; "set" of ordinals below high.
    One rule for the interpreter, the generated engines and the command line."""
    if isinstance(t, TBool):
        return "bool", None, None
    if isinstance(t, TInt):
        return "int", t.lo, t.hi
    if isinstance(t, TEnum):
        return "enum", 0, len(rules.enums[t.name].values) - 1
    if isinstance(t, TSet) and isinstance(t.elem, TEnum):
        return "set", 0, len(rules.enums[t.elem.name].values) - 1
    return "any", None, None


def spec_problem(spec: tuple[str, int | None, int | None], value: object) -> str | None:
    """Why a value does not fit a parameter's spec (param_spec), or None when it does."""
    kind, lo, hi = spec

    def number(x: object) -> bool:
        return type(x) is int and (lo is None or x >= lo) and (hi is None or x <= hi)

    if kind == "bool":
        return None if type(value) is bool else "true or false"
    if kind == "int":
        return None if number(value) else ("a whole number" + (f" from {lo}" if lo is not None else "") + (f" to {hi}" if hi is not None else ""))
    if kind == "enum":
        return None if number(value) else f"the ordinal of a value, 0 to {hi}"
    if kind == "set":
        ok = isinstance(value, (set, frozenset, list, tuple)) and all(number(x) for x in value)
        return None if ok else f"a set of ordinals, 0 to {hi}"
    return None


def drawn_names(rules: Ruleset) -> list[str]:
    """What drawing each component is called: its name, numbered (#1, #2, …) where components
    share a name, since the outcomes of a chance node must be told apart (a game AI's action
    strings, a log a person reads)."""
    counts: dict[str, int] = {}
    for c in rules.components:
        counts[c.display] = counts.get(c.display, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for c in rules.components:
        if counts[c.display] == 1:
            out.append(c.display)
        else:
            seen[c.display] = seen.get(c.display, 0) + 1
            out.append(f"{c.display} #{seen[c.display]}")
    return out
