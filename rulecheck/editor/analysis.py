"""What the language server knows of one document: the checker's diagnostics, the declarations
(document symbols), where a name is declared, and a declaration's rulebook text and its English
rendering (reports/english.py) for hover. Positions are the checker's: 1-based lines, columns in
characters; rulecheck/editor/lsp.py turns them into the client's units.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lark import Token
from lark.exceptions import LarkError

from rulecheck.dsl import ast, ir
from rulecheck.dsl.diagnostics import Diagnostic, Diagnostics
from rulecheck.dsl.loader import Loaded, load_text
from rulecheck.dsl.parser import parse_source
from rulecheck.dsl.source import SourceFile, Span

if TYPE_CHECKING:  # reports imports this module (reports/highlight.py): no import back at load time
    from rulecheck.reports.english_expr import Block

#: A word as the grammar's NAME spells it. The editor's token list comes from the basic lexer, which
#: gives a reserved word its keyword's type even where the parser reads it as a name.
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Lines of English a hover shows at most (a long procedure says "…" after them).
HOVER_LINES = 24


@dataclass
class Symbol:
    name: str
    kind: str  # game, enum, value, kind, attribute, table, zone, variable, parameter, definition, procedure, flow,
    #            ambiguity, reading, invariant, term
    span: Span  # the whole declaration
    name_span: Span  # its name
    children: list[Symbol] = field(default_factory=list)
    detail: str = ""


@dataclass
class Analysis:
    text: str
    name: str
    loaded: Loaded
    tree: ast.Ruleset | None
    tokens: list[Token]
    symbols: list[Symbol]

    @classmethod
    def of(cls, text: str, name: str) -> Analysis:
        loaded = load_text(text, name)
        diags = Diagnostics()
        tree = parse_source(SourceFile(name, text), diags)
        from rulecheck.editor.format import _lexer

        tokens: list[Token] = []
        try:
            tokens.extend(_lexer().lex(text))
        except LarkError:
            pass  # a character no token starts with: the tokens up to it
        symbols = _symbols(tree, tokens) if tree is not None else []
        return cls(text, name, loaded, tree, tokens, symbols)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.loaded.diagnostics.sorted()

    # ---- positions ------------------------------------------------------------------------------

    def token_at(self, line: int, col: int) -> Token | None:
        for tok in self.tokens:
            if tok.line == line and (tok.column or 0) <= col < (tok.column or 0) + len(tok.value):
                return tok
        return None

    def declaration_at(self, line: int, col: int) -> Symbol | None:
        for s in self.symbols:
            if _contains(s.span, line, col):
                return s
        return None

    # ---- go to definition ---------------------------------------------------------------------

    def definition(self, line: int, col: int) -> list[Span]:
        """Where the name at (line, col) is declared: a local (a formal, a let, a choice, a loop's
        variable) of the declaration it is in, else the declarations of that name (a definition
        that varies by an ambiguity also has one per reading)."""
        tok = self.token_at(line, col)
        if tok is None or not self._is_name(tok):
            return []
        name = str(tok)
        enclosing = self._decl_node_at(line, col)
        if enclosing is not None:
            local = [s for n, s in _binders(enclosing) if n == name and (s.line, s.col) <= (line, col)]
            if local:
                return [max(local, key=lambda s: (s.line, s.col))]
        after_dot = self._previous(tok) == "."
        found: list[Span] = []
        for s in _walk_symbols(self.symbols):
            if s.name != name:
                continue
            if after_dot != (s.kind == "attribute"):
                continue
            found.append(s.name_span)
        return found

    def _is_name(self, tok: Token) -> bool:
        """A NAME, or a reserved word called or indexed (`turn(p)`, `at[p]`): no keyword comes
        before `(` or `[` in the grammar, so the parser reads the word as a name there."""
        if tok.type == "NAME":
            return True
        i = next((k for k, t in enumerate(self.tokens) if t is tok), None)
        return (_WORD.fullmatch(str(tok)) is not None and i is not None and i + 1 < len(self.tokens)
                and str(self.tokens[i + 1]) in ("(", "["))

    def _previous(self, tok: Token) -> str | None:
        i = next((k for k, t in enumerate(self.tokens) if t is tok), None)
        return str(self.tokens[i - 1]) if i else None

    def _decl_node_at(self, line: int, col: int) -> ast.Decl | None:
        if self.tree is None:
            return None
        for item in self.tree.items:
            if _contains(item.span, line, col):
                return item
        return None

    # ---- hover --------------------------------------------------------------------------------

    def hover(self, line: int, col: int) -> tuple[str, Span] | None:
        """Markdown about the declaration named at (line, col), or the one the position is in: its
        heading, the rulebook text it cites and the rules in plain English; with the span it is about."""
        tok = self.token_at(line, col)
        target: Symbol | None = None
        about: Span | None = None
        if tok is not None and self._is_name(tok):
            spans = self.definition(line, col)
            about = Span(line, tok.column or 1, line, (tok.column or 1) + len(tok.value))
            for s in _walk_symbols(self.symbols):
                if spans and s.name_span == spans[0] and s.kind not in ("attribute", "value", "reading"):
                    target = s
        if target is None:
            target = self.declaration_at(line, col)
            about = target.span if target is not None else None
        if target is None or about is None or self.loaded.rules is None:
            return None
        text = _card(self.loaded, target)
        return (text, about) if text else None


def declarations(text: str, name: str) -> list[Symbol]:
    """The declarations of a ruleset's text, as the outline shows them (none when it does not parse)."""
    from rulecheck.editor.format import _lexer

    tree = parse_source(SourceFile(name, text), Diagnostics())
    if tree is None:
        return []
    try:
        tokens = list(_lexer().lex(text))
    except LarkError:
        return []
    return _symbols(tree, tokens)


def _contains(span: Span, line: int, col: int) -> bool:
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


def _walk_symbols(symbols: list[Symbol]) -> list[Symbol]:
    out: list[Symbol] = []
    for s in symbols:
        out.append(s)
        out += _walk_symbols(s.children)
    return out


def _name_span(tokens: list[Token], name: str, within: Span) -> Span:
    """The first token spelling ``name`` inside ``within`` (declarations keep only their own span):
    a NAME, or a reserved word the declaration gives as its name (`var at[player]`, `procedure turn(…)`)."""
    for tok in tokens:
        line, col = tok.line or 0, tok.column or 0
        if str(tok) == name and _contains(within, line, col):
            return Span(line, col, line, col + len(name))
    return Span(within.line, within.col, within.line, within.col)


def _symbols(tree: ast.Ruleset, tokens: list[Token]) -> list[Symbol]:
    out: list[Symbol] = []
    for item in tree.items:
        sym = _symbol(item, tokens)
        if sym is not None:
            out.append(sym)
    return out


def _symbol(item: ast.Decl, tokens: list[Token]) -> Symbol | None:
    span = item.span

    def named(name: str, kind: str, detail: str = "", where: Span | None = None) -> Symbol:
        return Symbol(name, kind, span if where is None else where, _name_span(tokens, name, span if where is None else where), detail=detail)

    if isinstance(item, ast.Game):
        start = Span(span.line, span.col, span.line, span.col + len("game"))
        return Symbol(item.title, "game", span, start, detail="game")
    if isinstance(item, ast.EnumDecl):
        s = named(item.name, "enum", "enum")
        s.children = [Symbol(v.name, "value", v.span, _name_span(tokens, v.name, v.span)) for v in item.values]
        return s
    if isinstance(item, ast.KindDecl):
        s = named(item.name, "kind", item.word)
        s.children = [Symbol(a.name, "attribute", a.span, _name_span(tokens, a.name, a.span)) for a in item.attrs]
        return s
    if isinstance(item, ast.TableDecl):
        return Symbol(f"table {item.kind}", "table", span, item.kind_span, detail="table")
    if isinstance(item, ast.ZoneDecl):
        return named(item.name, "zone", f"zone, {item.visibility}")
    if isinstance(item, ast.VarDecl):
        return named(item.name, "variable", "var")
    if isinstance(item, ast.ParamDecl):
        return named(item.name, "parameter", "param")
    if isinstance(item, ast.DefineDecl):
        return Symbol(item.name, "definition", span, item.name_span, detail="define")
    if isinstance(item, ast.ProcDecl):
        return Symbol(item.name, "procedure", span, item.name_span, detail="procedure")
    if isinstance(item, ast.FlowDecl):
        return Symbol("flow", "flow", span, Span(span.line, span.col, span.line, span.col + len("flow")), detail="flow")
    if isinstance(item, ast.AmbiguityDecl):
        s = Symbol(item.name, "ambiguity", span, item.name_span, detail="ambiguity")
        for r in item.readings:
            reading = Symbol(r.name, "reading", r.span, _name_span(tokens, r.name, r.span), detail="reading (default)" if r.is_default else "reading")
            reading.children = [Symbol(d.name, "definition", d.span, d.name_span, detail="define") for d in r.defines]
            reading.children += [Symbol(p.name, "procedure", p.span, p.name_span, detail="procedure") for p in r.procs]
            s.children.append(reading)
        return s
    if isinstance(item, ast.InvariantDecl):
        return named(item.name, "invariant", "invariant")
    if isinstance(item, ast.TermDecl):
        return Symbol(item.term, "term", span, Span(span.line, span.col, span.line, span.col + len("term")), detail="term")
    return None


def _binders(node: object) -> list[tuple[str, Span]]:
    """The local names a declaration binds, with where: formals, lets, choices, loop variables."""
    out: list[tuple[str, Span]] = []

    def visit(x: object) -> None:
        if isinstance(x, ast.Formal):
            out.append((x.name, Span(x.span.line, x.span.col, x.span.line, x.span.col + len(x.name))))
        elif isinstance(x, ast.Let | ast.Choose):
            out.append((x.name, x.name_span))
        elif isinstance(x, ast.ChooseEach):
            out.extend([(x.pvar, x.pvar_span), (x.name, x.name_span)])
        elif isinstance(x, ast.ForEach | ast.Generator):
            out.append((x.var, x.var_span))
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                visit(getattr(x, f.name))
        elif isinstance(x, list | tuple):
            for y in x:
                visit(y)

    visit(node)
    return out


# ---- hover cards ---------------------------------------------------------------------------------

_BLOCK_KIND = {"enum": "enum", "kind": "kind", "zone": "zone", "variable": "variable", "parameter": "parameter",
               "definition": "definition", "procedure": "procedure", "flow": "flow", "invariant": "invariant", "game": "game"}


def _card(loaded: Loaded, target: Symbol) -> str | None:
    from rulecheck.reports import english

    rules = loaded.rules
    assert rules is not None
    kind = _BLOCK_KIND.get(target.kind)
    if kind is None:
        return None
    for sec in english.sections(rules):
        for b in sec.blocks:
            if b.kind == kind and (kind in ("game", "flow") or b.formal.split("(")[0] == target.name):
                return _markdown(b)
    return None


def _quote(q: ir.Quote) -> str:
    return f"> {_md(q.text)}" + (f" *({q.lang})*" if q.lang else "")


def _markdown(b: Block) -> str:
    out = [f"**{_md(b.heading)}** — `{b.formal}`, {b.kind}" + (f", line {b.span.line}" if b.span.line > 1 or b.kind == "game" else "")]
    quotes = [q for s in b.sources for q in s.quotes] + [q for line in b.lines if line.source for q in line.source.quotes]
    if quotes:
        out.append("")
        out.append("Rulebook:")
        out += [_quote(q) for q in quotes[:6]]
        if len(quotes) > 6:
            out.append(f"> … ({len(quotes) - 6} more)")
    if b.lines:
        out.append("")
        out.append("In plain English:")
        out += [f"{'  ' * line.depth}- {_md(line.text)}" for line in b.lines[:HOVER_LINES]]
        if len(b.lines) > HOVER_LINES:
            out.append(f"- … ({len(b.lines) - HOVER_LINES} more lines: `rulecheck report` shows them all)")
    return "\n".join(out)


def _md(text: str) -> str:
    # rules text is data: no Markdown of its own reaches the client
    return "".join("\\" + ch if ch in "\\`*_[]<>#|~&" else ch for ch in text)
