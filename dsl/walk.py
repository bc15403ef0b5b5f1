"""Walking the IR: every expression or statement inside a node (``walk_exprs``, ``walk_stmts``),
the definitions and procedures one calls (``callees``), and the numbering of statements in text
order (``number_statements``).  Used by the checker and by every back end."""

from __future__ import annotations

from collections.abc import Iterator

from . import ir


def walk_exprs(node: object) -> Iterator[ir.Expr]:
    """Every expression inside an IR expression, statement or list of statements."""
    stack: list[object] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if isinstance(n, ir.Expr):
            yield n
        if isinstance(n, (ir.Expr, ir.Stmt)):
            for f in vars(n).values():
                if isinstance(f, (ir.Expr, ir.Stmt, list)):
                    stack.append(f)


def walk_stmts(stmts: list[ir.Stmt]) -> Iterator[ir.Stmt]:
    stack: list[ir.Stmt] = list(reversed(stmts))
    while stack:
        s = stack.pop()
        yield s
        for f in ("then", "else_", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                stack.extend(reversed(sub))


def callees(v: ir.Definition | ir.Procedure) -> set[str]:
    out: set[str] = set()
    roots: list[object] = []
    if isinstance(v, ir.Definition):
        roots = [v.body, v.otherwise, *(c.guard for c in v.cases or []), *(c.value for c in v.cases or [])]
    elif v.body is not None:
        roots = [v.body]
        for s in walk_stmts(v.body):
            if isinstance(s, ir.CallProc):
                out.add(s.name)
    for r in roots:
        if r is None:
            continue
        for e in walk_exprs(r):
            if isinstance(e, ir.CallDef):
                out.add(e.name)
    return out


def number_statements(rules: ir.Ruleset) -> None:
    """Give every statement a number in text order (flow, procedures, then reading overrides)."""
    blocks: list[list[ir.Stmt]] = [rules.flow]
    blocks += [p.body for p in rules.procs.values() if p.body]
    for a in rules.ambiguities.values():
        for r in a.readings:
            blocks += [p.body for p in r.procs.values() if p.body]
    all_stmts = [s for b in blocks for s in walk_stmts(b)]
    all_stmts.sort(key=lambda s: (s.span.line, s.span.col, s.span.end_line, s.span.end_col))
    for n, s in enumerate(all_stmts, start=1):
        s.sid = n


def call_sites(roots: list[object]) -> tuple[int, list[tuple[int, str]]]:
    """How deep the IR under ``roots`` nests (each expression and statement a level, a block's
    statements one below it), and each call of a definition or procedure in it with the depth it
    is at; without recursion."""
    deepest = 0
    calls: list[tuple[int, str]] = []
    stack: list[tuple[object, int]] = [(r, 1) for r in roots if r is not None]
    while stack:
        n, d = stack.pop()
        if isinstance(n, list):
            stack.extend((x, d) for x in n)
            continue
        if not isinstance(n, (ir.Expr, ir.Stmt)):
            continue
        deepest = max(deepest, d)
        if isinstance(n, (ir.CallDef, ir.CallProc)):
            calls.append((d, n.name))
        for f in vars(n).values():
            if isinstance(f, (ir.Expr, ir.Stmt, list)):
                stack.append((f, d + 1))
    return deepest, calls
