"""Tables and components (``Tables``): the header, the provenance clauses (given, assumed,
unspecified) and the rows of a table, the cell values, the components the rows make (at most
``MAX_COMPONENTS``) and their display names.
"""

from __future__ import annotations

from itertools import product

from .. import ast, ir
from ..inplay import not_fixed
from ..source import Span
from ..types import BOOL, TBool, TEnum, TError, TInt, TSet, TText, Type
from .base import MAX_COMPONENTS, Scope, _listing, _src
from .names import Names
from .types import tshow


class Tables(Names):
    """The table of a card or piece type: its columns, the provenance of each column, its rows
    (ranges and ``*`` make several) and the components they make, with their display names."""

    def check_table(self, t: ast.TableDecl) -> None:
        kind = self.kinds.get(t.kind)
        if kind is None:
            self.d.error(
                "E0201", f"unknown card or piece type '{t.kind}'", t.kind_span,
                hint=self.suggest(t.kind, self.kinds) or f"declare it first: card {t.kind} {{ … }}",
            )
            return
        if t.start is None:
            self.d.error("E0402", f"the table of '{t.kind}' does not say where its components start", t.kind_span, hint=f"write: table {t.kind} in <zone> {{ ... }}")
        else:
            z = self.zones.get(t.start)
            if z is None:
                assert t.start_span is not None
                self.d.error("E0201", f"unknown zone '{t.start}'", t.start_span, hint=self.suggest(t.start, self.zones) or _listing("zones", self.zones))
            else:
                self.used.add(("zone", z.name))
                if z.index is not None:
                    self.d.error("E0402", f"components cannot start in '{t.start}': it is one zone per {tshow(z.index)}", t.start_span or t.span, hint="start them in a single zone such as the deck or the box")
                if t.kind not in z.kinds:
                    self.d.error("E0402", f"zone '{t.start}' does not hold {t.kind}", t.start_span or t.span, hint=f"add {t.kind} to the zone's declaration")
            kind.start_zone = t.start
        if not t.rows:
            return
        header = t.rows[0]
        cols: list[str] = []
        for cell in header:
            if cell.kind != "name":
                self.d.error("E0402", "the first row of a table names its columns", cell.span, hint="write: | rank | age | ... |")
                return
            name = str(cell.value)
            if name not in kind.attrs:
                self.d.error("E0205", f"'{t.kind}' has no attribute '{name}'", cell.span, hint=self.suggest(name, kind.attrs) or _listing("attributes", kind.attrs))
            elif name in cols:
                self.d.error("E0202", f"column '{name}' appears twice", cell.span, hint="remove the second column")
            cols.append(name)
        for a in kind.attrs:
            if a not in cols:
                self.d.error("E0402", f"the table of '{t.kind}' has no column '{a}'", header[0].span.to(header[-1].span), hint=f"add a column '{a}' to the header and a value to every row")
        # provenance of every column
        for clause in t.clauses:
            for name, span in clause.columns:
                if name not in kind.attrs:
                    self.d.error("E0205", f"'{t.kind}' has no attribute '{name}'", span, hint=self.suggest(name, kind.attrs) or _listing("attributes", kind.attrs))
                    continue
                if name in kind.provenance:
                    self.d.error("E0202", f"column '{name}' is given a provenance twice", span, hint="name each column in exactly one of given, assumed and unspecified")
                    continue
                default = None
                if clause.provenance == "unspecified" and clause.default is not None:
                    default = self.cell_value(clause.default, kind.attrs[name], t.kind, name)
                kind.provenance[name] = ir.Provenance(clause.provenance, clause.rationale, _src(clause.source), clause.span, default)
        for a in kind.attrs:
            if a not in kind.provenance:
                self.d.error(
                    "E0404", f"column '{a}' of '{t.kind}' has no provenance", t.kind_span,
                    hint=f"say where it comes from: 'given {a} source \"…\"', 'assumed {a} because \"…\"' or 'unspecified {a} default … because \"…\"'",
                )
        if self.d.has_errors:
            # rows are still checked for their own errors
            pass
        guards = t.guards or [None] * len(t.rows)
        if guards[0] is not None:
            self.d.error("E0402", "the first row of a table names its columns: it cannot have a guard", guards[0].span,
                         hint="write the guard after a row of values: | 5..6 | when long_game")
        for row, rspan, guard_expr in zip(t.rows[1:], t.row_spans[1:], guards[1:]):
            guard = self.row_guard(guard_expr) if guard_expr is not None else None
            if len(row) != len(header):
                self.d.error(
                    "E0402", f"this row has {len(row)} cell{'s' if len(row) != 1 else ''}; the header has {len(header)}", rspan,
                    hint="give every column a value, or write '?' in unspecified columns",
                )
                continue
            choices: list[list[ir.Value]] = []
            bounded: dict[int, ast.Cell] = {}  # the columns whose range runs up to a parameter
            for col, cell in zip(cols, row):
                at = kind.attrs.get(col)
                if at is None or isinstance(at, TError):  # the column or its type already has an error
                    choices.append([0])
                    continue
                prov = kind.provenance.get(col)
                if cell.kind == "unknown":
                    if prov is None or prov.kind != "unspecified":
                        self.d.error("E0402", f"'?' is only for unspecified columns; '{col}' is not", cell.span, hint=f"write the value, or declare: unspecified {col} default … because \"…\"")
                        choices.append([0])
                    else:
                        choices.append([prov.default if prov.default is not None else 0])
                    continue
                if prov is not None and prov.kind == "unspecified":
                    self.d.error("E0402", f"column '{col}' is unspecified: its cells are '?'", cell.span, hint="move the value to the clause's default, or make the column assumed")
                    choices.append([0])
                    continue
                if cell.kind == "range":
                    if not isinstance(at, TInt):
                        self.d.error("E0301", f"a range of rows needs a number column; '{col}' is {tshow(at)}", cell.span, hint="a..b makes one row per number; write one value in this column, or * for one row per enum value")
                        choices.append([0])
                    elif cell.bound is not None:
                        hi = self.range_bound(cell)
                        if hi is None:
                            choices.append([0])
                            continue
                        assert isinstance(cell.value, int)
                        numbers = list(range(cell.value, hi + 1))
                        if not numbers:
                            self.d.error("E0405", f"the range {cell.value}..{cell.bound} is empty: '{cell.bound}' is at most {hi}", cell.span,
                                         hint=f"write a lower bound of at most {hi}, or widen the type of '{cell.bound}'")
                        elif len(numbers) > MAX_COMPONENTS:
                            self.d.error("E0006", f"the range {cell.value}..{cell.bound} makes {len(numbers):,} rows; a ruleset may have at most {MAX_COMPONENTS:,} components",
                                         cell.span, hint=f"narrow the type of '{cell.bound}'")
                            return
                        else:
                            self.check_in_range(numbers, at, cell.span, col)
                        choices.append(list(numbers))
                        bounded[len(choices) - 1] = cell
                    else:
                        assert isinstance(cell.value, int) and cell.hi is not None
                        if cell.value > cell.hi:
                            self.d.error("E0405", f"the range {cell.value}..{cell.hi} is empty: this row makes no components", cell.span, hint="write the smaller bound first")
                            choices.append([])
                        elif cell.hi - cell.value >= MAX_COMPONENTS:
                            self.d.error(
                                "E0006", f"the range {cell.value}..{cell.hi} makes {cell.hi - cell.value + 1:,} rows; a ruleset may have at most {MAX_COMPONENTS:,} components",
                                cell.span, hint="check the bounds; a game with that many pieces is better described by a number in a variable",
                            )
                            return
                        else:
                            choices.append(list(range(cell.value, cell.hi + 1)))
                            self.check_in_range(list(range(cell.value, cell.hi + 1)), at, cell.span, col)
                    continue
                if cell.kind == "all":
                    if not isinstance(at, TEnum):
                        self.d.error("E0301", f"'*' stands for every value of an enum; '{col}' is {tshow(at)}", cell.span, hint="'*' makes one row per value of an enum; write one value in this column")
                        choices.append([0])
                    else:
                        choices.append(list(range(len(self.enums[at.name].values))))
                    continue
                choices.append([self.cell_value(cell, at, t.kind, col)])
            made = 1
            for ch in choices:
                made *= len(ch)
            if len(self.components) + made > MAX_COMPONENTS:
                self.d.error(
                    "E0006", f"this row makes {made:,} components, more than the {MAX_COMPONENTS:,} a ruleset may have", rspan,
                    hint="every range a..b and every '*' multiplies the rows; check the bounds",
                )
                return
            first = len(self.components)
            for combo in product(*choices):
                attrs = dict(zip(cols, combo))
                cid = len(self.components)
                when = guard
                for i, cell in bounded.items():
                    when = self.and_when(when, self.bound_condition(cell, combo[i]))  # type: ignore[arg-type]
                comp = ir.Component(cid, t.kind, attrs, "", rspan, when)
                comp.display = self.display_of(kind, comp)
                self.components.append(comp)
            if guard is not None or bounded:
                bound = None
                if bounded:
                    i, cell = next(iter(bounded.items()))
                    assert isinstance(cell.value, int) and cell.bound is not None
                    bound = (cols[i], cell.value, cell.bound)
                kind.varying.append(ir.VaryingRow(list(range(first, len(self.components))), bound, guard, rspan))

    def range_bound(self, cell: ast.Cell) -> int | None:
        """The largest value a range of rows up to a parameter can reach: the top of the
        parameter's declared range (None: a diagnostic)."""
        name, span = cell.bound, cell.bound_span or cell.span
        assert name is not None
        p = self.params.get(name)
        ints = [n for n, q in self.params.items() if isinstance(q.type, TInt) and q.type.hi is not None]
        if p is None:
            if name in self.decl_spans or name in self.enum_values or name in ("players", "num_players"):
                self.d.error("E0409", f"a range of rows can run up to a parameter only; '{name}' is not one", span,
                             hint=(f"parameters that can bound it: {', '.join(ints)}" if ints else "declare one: param num_cards: 1..13 = 4")
                             + "; a row can depend on the player count through a guard: | … | when num_players > 2")
            else:
                self.d.error("E0201", f"unknown parameter '{name}'", span,
                             hint=self.suggest(name, ints or self.params) or f"declare it: param {name}: 1..13 = 4")
            return None
        self.used.add(("param", name))
        if isinstance(p.type, TError):
            return None
        if not isinstance(p.type, TInt) or p.type.hi is None:
            what = "an int without a declared range" if isinstance(p.type, TInt) else f"of type {tshow(p.type)}"
            hint = (f"to leave the row out while '{name}' is false, guard it: | {cell.value}..… | when {name}" if isinstance(p.type, TBool)
                    else f"declare it with its range, e.g. param {name}: 1..13 = …, so the table makes a component for every value it allows")
            self.d.error("E0409", f"a range of rows can run up to a number parameter with a declared range; '{name}' is {what}", span, hint=hint)
            return None
        return p.type.hi

    def bound_condition(self, cell: ast.Cell, value: int) -> ir.Expr | None:
        """When the component of this value of a range up to a parameter is in play (None: always)."""
        assert cell.bound is not None
        p = self.params[cell.bound]
        assert isinstance(p.type, TInt)
        if p.type.lo is not None and p.type.lo >= value:
            return None
        span = cell.bound_span or cell.span
        return ir.BinOp(BOOL, span, ">=", ir.ParamRef(p.type, span, p.name), ir.Const(TInt(value, value), cell.span, value))

    @staticmethod
    def and_when(a: ir.Expr | None, b: ir.Expr | None) -> ir.Expr | None:
        if a is None or b is None:
            return a or b
        return ir.BinOp(BOOL, a.span, "and", a, b)

    def row_guard(self, e: ast.Expr) -> ir.Expr | None:
        """A row's guard: a bool expression that a game fixes (parameters, the player count)."""
        x = self.expect(e, Scope(), BOOL, "a row's guard")
        if isinstance(x.type, TError):
            return None
        bad = not_fixed(x)
        if bad is not None:
            reads = isinstance(bad, (ir.VarRef, ir.ZoneRef, ir.CallDef, ir.AttrRef, ir.Agg, ir.MapGet, ir.RecordField)) or (
                isinstance(bad, ir.Builtin) and bad.op != "players")
            what = "reads the state of the game, which changes in play" if reads else "is not a parameter, the player count or a constant"
            self.d.error("E0409", f"a row's guard must be fixed before play; this part {what}", bad.span,
                         hint="a guard may use parameters, num_players, numbers, true and false, enum values, comparisons, and, or and not")
            return None
        return x

    def check_in_range(self, values: list[int], t: TInt, span: Span, col: str) -> None:
        for v in values:
            if (t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi):
                self.d.error("E0304", f"{v} is outside {tshow(t)}, the type of '{col}'", span, hint=f"use a value within {tshow(t)}, or widen the type of '{col}'")
                return

    def cell_value(self, cell: ast.Cell, t: Type, kind: str, col: str) -> ir.Value:
        if isinstance(t, TError):
            return 0
        if isinstance(t, TInt):
            if cell.kind != "int":
                self.d.error("E0301", f"'{col}' is a number; this cell is not", cell.span, hint="write a whole number such as 3, or a range such as 1..5 for one row per number")
                return 0
            assert isinstance(cell.value, int)
            self.check_in_range([cell.value], t, cell.span, col)
            return cell.value
        if isinstance(t, TBool):
            if cell.kind != "bool":
                self.d.error("E0301", f"'{col}' is true or false; this cell is not", cell.span, hint="write true or false")
                return False
            return bool(cell.value)
        if isinstance(t, TText):
            if cell.kind != "str":
                self.d.error("E0301", f"'{col}' is a text in double quotes; this cell is not", cell.span, hint="write it in double quotes: \"…\"")
                return ""
            return str(cell.value)
        if isinstance(t, TEnum):
            if cell.kind != "name":
                self.d.error("E0301", f"'{col}' is a value of {t.name}; this cell is not", cell.span, hint="values: " + ", ".join(self.enums[t.name].values))
                return 0
            return self.enum_index(t.name, str(cell.value), cell.span)
        if isinstance(t, TSet):
            if cell.kind != "set":
                self.d.error("E0301", f"'{col}' is a set: write {{a, b}} or {{}}", cell.span, hint="write {a, b}, or {} for none")
                return frozenset()
            return frozenset(self.cell_value(c, t.elem, kind, col) for c in cell.items)  # type: ignore[misc]
        self.d.error("E0301", f"cells of type {tshow(t)} are not supported", cell.span, hint="attributes are numbers, booleans, texts, enum values or sets of enum values")
        return 0

    def display_of(self, kind: ir.Kind, comp: ir.Component) -> str:
        from ..values import show

        if not kind.display:
            return f"{kind.name} {comp.cid + 1}"

        def sub(part: str | tuple[str, Span]) -> str:
            if isinstance(part, str):
                return part
            a = part[0]
            if a not in comp.attrs or a not in kind.attrs:  # an unknown column already has an error
                return "{" + a + "}"
            t = kind.attrs[a]
            if isinstance(t, TEnum):
                return self.enums[t.name].labels[comp.attrs[a]]  # type: ignore[index]
            if isinstance(t, TSet) and isinstance(t.elem, TEnum):
                labels = self.enums[t.elem.name].labels
                return ", ".join(labels[i] for i in sorted(comp.attrs[a]))  # type: ignore[arg-type]
            if isinstance(t, TBool):
                return "yes" if comp.attrs[a] else "no"
            return str(comp.attrs[a])

        del show
        return "".join(sub(part) for part in self.displays.get(kind.name, [kind.display]))
