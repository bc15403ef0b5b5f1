"""Boards, records, observations and what the formal game leaves out (``Boards``): a board's
spaces (an enum of the same name), their attributes and links; the builtins that read a board
(``adjacent``, ``neighbours``, ``distance``, ``steps``) and a space's attributes; records (a
variable that only grows, read with ``size``, ``entries`` and ``R[i].field``) and ``append``;
``observe``; and ``outside`` declarations.
"""

from __future__ import annotations

from .. import ast, ir
from ..source import Span
from ..types import BOOL, ERROR, INT, PLAYER, TBool, TComp, TEnum, TError, TInt, TPlayer, TRecord, TSet, TText, Type, fits
from .base import Scope, _listing, _src
from .tables import Tables
from .types import const_value, tshow, type_hint


class Boards(Tables):
    """Declarations and uses of boards and records, observations, and ``outside``."""

    # ---- boards ------------------------------------------------------------------------------------

    def collect_board_name(self, b: ast.BoardDecl) -> None:
        """The board's name and spaces, as an enum, so that types and cells can name them."""
        if not self.declare(b.name, b.name_span, "board"):
            return
        names: list[str] = []
        labels: list[str] = []
        header = b.rows[0] if b.rows else []
        label_col = next((i for i, c in enumerate(header) if c.kind == "name" and c.value == "label"), None)
        for row in b.rows[1:]:
            if not row or row[0].kind != "name":
                continue  # reported by check_board
            name = str(row[0].value)
            if name in names:
                self.d.error("E0202", f"board '{b.name}' lists space '{name}' twice", row[0].span, hint="give every space its own name")
                continue
            names.append(name)
            label = row[label_col] if label_col is not None and label_col < len(row) else None
            labels.append(str(label.value) if label is not None and label.kind == "str" else name)
            self.enum_values.setdefault(name, []).append((b.name, len(names) - 1))
        self.enums[b.name] = ir.EnumInfo(b.name, b.label, names, labels, _src(b.source))
        self.board_names.add(b.name)
        self.boards_ast[b.name] = b

    def check_board(self, b: ast.BoardDecl) -> ir.BoardInfo | None:
        enum = self.enums.get(b.name)
        if enum is None or self.decl_spans.get(b.name) != b.name_span:
            return None
        attrs: dict[str, Type] = {}
        for a in b.attrs:
            if a.name in attrs or a.name in ("space", "label"):
                self.d.error("E0202", f"attribute '{a.name}' is declared twice in board '{b.name}'", a.span,
                             hint="'space' and 'label' are the columns every board has; give the attribute another name")
                continue
            t = self.resolve_type(a.type)
            if isinstance(t, (TComp, TPlayer)) or (isinstance(t, TSet) and isinstance(t.elem, (TComp, TPlayer))):
                self.d.error("E0301", f"attribute '{a.name}' cannot be of type {tshow(t)}", a.type.span,
                             hint="attributes of spaces are numbers, booleans, texts, enum values (spaces too) or sets of enum values")
                t = ERROR
            attrs[a.name] = t
            self.board_attr_types[(b.name, a.name)] = t
        prov = self.board_provenance(b)
        values: list[dict[str, ir.Value]] = [{} for _ in enum.values]
        header = b.rows[0] if b.rows else []
        cols: list[str] = []
        for i, cell in enumerate(header):
            name = str(cell.value) if cell.kind == "name" else ""
            if cell.kind != "name" or (i == 0 and name != "space"):
                self.d.error("E0406", "the first row of a board names its columns, 'space' first", cell.span,
                             hint="write: | space | label | kind | … | (label and the attributes are optional)")
                return None
            if i > 0 and name != "label" and name not in attrs:
                self.d.error("E0205", f"board '{b.name}' has no attribute '{name}'", cell.span,
                             hint=self.suggest(name, attrs) or f"declare it in the board: {name}: type")
            elif name in cols:
                self.d.error("E0202", f"column '{name}' appears twice", cell.span, hint="remove the second column")
            cols.append(name)
        for name in attrs:
            if name not in cols:
                self.d.error("E0406", f"the board '{b.name}' has no column '{name}'", header[0].span.to(header[-1].span) if header else b.span,
                             hint=f"add a column '{name}' to the first row and a value to every space")
        for row, rspan in zip(b.rows[1:], b.row_spans[1:]):
            if len(row) != len(header):
                self.d.error("E0406", f"this row has {len(row)} cell{'s' if len(row) != 1 else ''}; the first row has {len(header)}", rspan,
                             hint="give every column a value")
                continue
            if row[0].kind != "name":
                self.d.error("E0406", "a board's row starts with the name of its space", row[0].span, hint="write: | s1 | … |")
                continue
            space = str(row[0].value)
            if space not in enum.values:
                continue  # a duplicate, already reported
            k = enum.values.index(space)
            for col, cell in zip(cols[1:], row[1:]):
                if col == "label":
                    if cell.kind != "str":
                        self.d.error("E0301", "a space's label is a text in double quotes", cell.span, hint='write: "the castle"')
                    continue
                at = attrs.get(col)
                if at is None or isinstance(at, TError):
                    continue
                if cell.kind in ("range", "all", "unknown"):
                    self.d.error("E0406", "a board's row is one space: write one value in each cell", cell.span,
                                 hint="ranges, * and ? make several rows in tables of cards, not in boards")
                    continue
                values[k][col] = self.cell_value(cell, at, b.name, col)
        links = self.board_links(b, enum)
        return ir.BoardInfo(b.name, b.label, list(enum.values), attrs, values, links, prov, _src(b.source), b.span)

    def board_provenance(self, b: ast.BoardDecl) -> ir.Provenance:
        if not b.clauses:
            self.d.error(
                "E0404", f"the layout of board '{b.name}' has no provenance", b.name_span,
                hint="say where it comes from: 'given source \"…\"' (the rulebook gives it) or 'assumed because \"…\"'",
            )
            return ir.Provenance("given", None, None, b.span)
        for extra in b.clauses[1:]:
            self.d.error("E0202", f"the layout of board '{b.name}' is given a provenance twice", extra[3],
                         hint="a board's layout is either given or assumed, once")
        kind, rationale, source, span = b.clauses[0]
        return ir.Provenance(kind, rationale, _src(source), span)

    def board_links(self, b: ast.BoardDecl, enum: ir.EnumInfo) -> list[tuple[int, int]]:
        links: list[tuple[int, int]] = []
        seen: dict[tuple[int, int], Span] = {}
        for link in b.links:
            ids: list[int | None] = []
            for name, span in link.names:
                if name not in enum.values:
                    self.d.error("E0201", f"board '{b.name}' has no space '{name}'", span,
                                 hint=self.suggest(name, enum.values) or _listing("spaces", enum.values))
                    ids.append(None)
                else:
                    ids.append(enum.values.index(name))
            for (x, (_, sx)), (y, (_, sy)) in zip(zip(ids, link.names), zip(ids[1:], link.names[1:])):
                if x is None or y is None:
                    continue
                if x == y:
                    self.d.error("E0406", f"space '{enum.values[x]}' is linked to itself", sx.to(sy), hint="a link joins two different spaces")
                    continue
                key = (min(x, y), max(x, y))
                if key in seen:
                    self.d.warning("W0601", f"the link {enum.values[x]} - {enum.values[y]} is listed twice", sx.to(sy),
                                   hint=f"the first is at line {seen[key].line}; links go both ways")
                    continue
                seen[key] = sx.to(sy)
                links.append(key)
        return sorted(links)

    def board_of(self, t: Type) -> str | None:
        return t.name if isinstance(t, TEnum) and t.name in self.board_names else None

    def space_attr(self, obj: ir.Expr, e: ast.Attr) -> ir.Expr:
        assert isinstance(obj.type, TEnum)
        board = self.boards_ast[obj.type.name]
        attrs = {a.name: a for a in board.attrs}
        if e.name not in attrs:
            return self.err("E0205", f"spaces of '{board.name}' have no attribute '{e.name}'", e.name_span,
                            hint=self.suggest(e.name, attrs) or _listing("attributes", attrs))
        self.used.add(("enum", board.name))
        return ir.SpaceAttr(self.board_attr_types.get((board.name, e.name), ERROR), e.span, obj, board.name, e.name)

    def board_call(self, e: ast.Call, scope: Scope) -> ir.Expr:
        """adjacent(a, b), neighbours(a), distance(a, b, via), steps(a, n, stop, via)."""
        n = e.name
        arity = {"adjacent": 2, "neighbours": 1, "distance": 3, "steps": 4}[n]
        use = {
            "adjacent": "adjacent(a, b): whether spaces a and b are linked",
            "neighbours": "neighbours(a): the spaces linked to a",
            "distance": "distance(a, b, via): the fewest links from a to b, every space passed on the way in via",
            "steps": "steps(a, n, stop, via): the spaces n steps from a, each step onto a space of stop, directly or across one space of via",
        }[n]
        if len(e.args) != arity:
            for a in e.args:
                self.expr(a, scope)
            return self.err("E0204", f"'{n}' takes {arity} argument{'s' if arity != 1 else ''}, not {len(e.args)}", e.name_span, hint=use)
        first = self.expr(e.args[0], scope)
        if isinstance(first.type, TError):
            for a in e.args[1:]:
                self.expr(a, scope)
            return first
        board = self.board_of(first.type)
        if board is None:
            for a in e.args[1:]:
                self.expr(a, scope)
            return self.err("E0301", f"'{n}' needs a space of a board, but this is {tshow(first.type)}", e.args[0].span,
                            hint=use if self.board_names else "declare the board first: board Space { … }")
        space: Type = TEnum(board)
        spaces = TSet(space)
        args = [first]
        if n == "adjacent":
            args.append(self.expect(e.args[1], scope, space, f"the second argument of '{n}'"))
            return ir.Builtin(BOOL, e.span, n, args)
        if n == "neighbours":
            return ir.Builtin(spaces, e.span, n, args)
        if n == "distance":
            args.append(self.expect(e.args[1], scope, space, f"the second argument of '{n}'"))
            args.append(self.expect(e.args[2], scope, spaces, "the spaces a path may pass through"))
            return ir.Builtin(TInt(0, max(0, len(self.enums[board].values) - 1)), e.span, n, args)
        args.append(self.expect(e.args[1], scope, INT, "the number of steps"))
        args.append(self.expect(e.args[2], scope, spaces, "the spaces a step may end on"))
        args.append(self.expect(e.args[3], scope, spaces, "the spaces a step may cross"))
        return ir.Builtin(spaces, e.span, n, args)

    # ---- records -----------------------------------------------------------------------------------

    def collect_record(self, r: ast.RecordDecl) -> None:
        if not self.declare(r.name, r.span, "record"):
            return
        index = self.resolve_index_type(r.index)
        fields: list[tuple[str, Type]] = []
        for f in r.fields:
            if any(name == f.name for name, _ in fields):
                self.d.error("E0202", f"field '{f.name}' is declared twice in record '{r.name}'", f.span, hint="give every field its own name")
                continue
            t = self.resolve_type(f.type)
            if not isinstance(t, (TBool, TInt, TEnum, TText, TPlayer, TError)):
                self.d.error("E0301", f"field '{f.name}' cannot be of type {tshow(t)}", f.type.span,
                             hint="fields of a record are booleans, numbers, texts, players or enum values")
                t = ERROR
            fields.append((f.name, t))
        if r.visibility == "owner" and not isinstance(index, TPlayer):
            self.d.error("E0405", f"record '{r.name}' is visible to its owner, but it is not indexed by player", r.span,
                         hint=f"declare it as record {r.name}[player] {{ … }} owner")
        t = TRecord(r.name, tuple(fields))
        self.vars[r.name] = ir.VarInfo(r.name, index, t, (), False, r.visibility, r.desc, _src(r.source), r.span)
        self.record_decls[r.name] = r

    def check_record_defaults(self, r: ast.RecordDecl) -> None:
        info = self.vars.get(r.name)
        if info is None or info.span != r.span or not isinstance(info.type, TRecord):
            return
        for f in r.fields:
            t = info.type.field(f.name)
            if f.default is not None and t is not None:
                self.record_defaults[(r.name, f.name)] = self.expect(f.default, Scope(), t, f"the default of field '{f.name}'")
                if const_value(self.record_defaults[(r.name, f.name)], self.params) is None:
                    self.d.error("E0302", f"the default of field '{f.name}' must be a constant", f.default.span,
                                 hint="use literals, enum values and parameters")

    def record_misuse(self, name: str, span: Span) -> ir.Expr:
        return self.err("E0408", f"record '{name}' is read only through size(…), entries(…) and …[i].field", span,
                        hint=f"size({name}[…]) is how many entries it has; {name}[…][i].field the field of entry i (from 1)")

    def record_ref(self, e: ast.Expr, scope: Scope) -> ir.Expr | None:
        """``R`` or ``R[i]`` when it names a record (None otherwise); the record's VarRef."""
        base = e.obj if isinstance(e, ast.Index) else e
        if not isinstance(base, ast.Name) or scope.lookup(base.name) is not None:
            return None
        v = self.vars.get(base.name)
        if v is None or not isinstance(v.type, TRecord):
            return None
        saved, self.record_ok = self.record_ok, True
        try:
            return self.expr(e, scope)
        finally:
            self.record_ok = saved

    def record_call(self, e: ast.Call, scope: Scope) -> ir.Expr | None:
        """size(R) and entries(R) of a record; None when the argument is not a record."""
        if len(e.args) != 1:
            return None
        rec = self.record_ref(e.args[0], scope)
        if rec is None:
            return None
        if isinstance(rec.type, TError):
            return rec
        if e.name == "entries":
            return ir.Builtin(TSet(TInt(1, None)), e.span, "entries", [rec])
        return ir.Builtin(TInt(0, None), e.span, "length", [rec])

    def record_field(self, e: ast.Attr, scope: Scope) -> ir.Expr | None:
        """``R[i].field`` or ``R[p][i].field``; None when ``e`` reads no record."""
        if not isinstance(e.obj, ast.Index):
            return None
        rec = self.record_ref(e.obj.obj, scope)
        if rec is None:
            return None
        pos = self.expect(e.obj.index, scope, INT, "the position of an entry (from 1)")
        if isinstance(rec.type, TError):
            return rec
        assert isinstance(rec.type, TRecord)
        t = rec.type.field(e.name)
        if t is None:
            return self.err("E0205", f"entries of record '{rec.type.name}' have no field '{e.name}'", e.name_span,
                            hint=self.suggest(e.name, [f for f, _ in rec.type.fields]) or _listing("fields", [f for f, _ in rec.type.fields]))
        return ir.RecordField(t, e.span, rec, pos, e.name)

    def append_stmt(self, s: ast.Append, scope: Scope) -> ir.Stmt | None:
        info = self.vars.get(s.target.name)
        if info is None or not isinstance(info.type, TRecord):
            what = "a variable" if info is not None else "not declared"
            self.d.error("E0408", f"'{s.target.name}' is {what}, not a record: only records take append", s.target.name_span,
                         hint=self.suggest(s.target.name, [n for n, v in self.vars.items() if isinstance(v.type, TRecord)])
                         or "declare it: record NAME[player] { field: type, … } owner")
            for _, _, x in s.fields:
                self.expr(x, scope)
            return None
        rec = info.type
        index = None
        if info.index is None and s.target.index is not None:
            self.d.error("E0303", f"record '{info.name}' is a single record; it takes no index", s.target.index.span, hint=f"write {info.name} without […]")
        elif info.index is not None and s.target.index is None:
            self.d.error("E0303", f"record '{info.name}' is one record per {tshow(info.index)}; say which", s.target.name_span, hint=f"write {info.name}[…]")
        elif info.index is not None and s.target.index is not None:
            index = self.expect(s.target.index, scope, info.index, f"the index of '{info.name}'")
        given: dict[str, ir.Expr] = {}
        for name, span, x in s.fields:
            t = rec.field(name)
            if t is None:
                self.d.error("E0205", f"entries of record '{info.name}' have no field '{name}'", span,
                             hint=self.suggest(name, [f for f, _ in rec.fields]) or _listing("fields", [f for f, _ in rec.fields]))
                self.expr(x, scope)
                continue
            if name in given:
                self.d.error("E0202", f"field '{name}' is given twice", span, hint="give each field once")
                continue
            value = self.expect(x, scope, t, f"field '{name}'")
            self.check_const_range(value, t, x.span, name)
            given[name] = value
        values: list[ir.Expr] = []
        for name, t in rec.fields:
            if name in given:
                values.append(given[name])
            elif (info.name, name) in self.record_defaults:
                values.append(self.record_defaults[(info.name, name)])
            else:
                self.d.error("E0408", f"this entry gives no field '{name}', which has no default", s.span,
                             hint=f"write {name}: … in the braces, or give the field a default: {name}: {tshow(t)} = …")
                values.append(ir.Const(ERROR, s.span, 0))
        return ir.Append(s.span, _src(s.source), info.name, index, values)

    # ---- observations ------------------------------------------------------------------------------

    def observe_stmt(self, s: ast.Observe, scope: Scope) -> ir.Stmt:
        what = self.expr(s.what, scope)
        observer = self.expect(s.observer, scope, PLAYER, "who observes")
        amount = 0
        ref = None
        t = what.type
        if isinstance(t, TRecord) or not isinstance(t, (TBool, TInt, TEnum, TComp, TPlayer, TText, TSet, TError)):
            self.d.error("E0407", f"{tshow(t)} values cannot be observed", s.what.span, hint="observe a number, an enum value, a card, a player or a set")
        if s.mode in ("within", "than") and not fits(INT, t):
            self.d.error("E0407", f"'{s.mode}' observes a number, but this is {tshow(t)}", s.what.span, hint=type_hint(INT, t))
        if s.mode == "within":
            assert s.amount is not None
            x = self.expect(s.amount, scope, INT, "how far off the perception can be")
            # a number written in the rules: a parameter can change from game to game
            k = x.value if isinstance(x, ir.Const) else None
            if not isinstance(k, int) or isinstance(k, bool) or k < 0 or k > 16:
                if not isinstance(x.type, TError):
                    self.d.error("E0407", "'within' needs a number from 0 to 16 written in the rules", s.amount.span,
                                 hint="write within 1 for a perception up to one off; branch on a parameter with if for other precisions")
            else:
                amount = k
        elif s.mode == "than":
            assert s.ref is not None
            ref = self.expect(s.ref, scope, INT, "what the value is compared with")
        if s.bind is not None:
            assert s.bind_span is not None
            lo_hi: Type = t
            if s.mode == "within":
                lo_hi = TInt(t.lo - amount, t.hi + amount) if isinstance(t, TInt) and t.lo is not None and t.hi is not None else INT
            elif s.mode == "than":
                lo_hi = TInt(-1, 1)
            self.bind_local(scope, s.bind, lo_hi, s.bind_span)
        label = s.label or ("observes " + self.src.snippet(s.what.span))
        return ir.Observe(s.span, _src(s.source), what, observer, s.bind, s.mode, amount, ref, label)

    # ---- what the formal game leaves out -------------------------------------------------------------

    def collect_outside(self, o: ast.OutsideDecl) -> ir.Outside | None:
        if not self.declare(o.name, o.name_span, "out-of-scope declaration"):
            return None
        if not o.reason.strip():
            self.d.error("E0405", f"'{o.name}' says what is left out but not why", o.span, hint='write the reason after because: "…"')
        return ir.Outside(o.name, o.what, o.reason, _src(o.source), o.span)


__all__ = ["Boards"]
