"""The formal rules of each declaration, highlighted for the HTML report (Pygments, with the lexer
of rulecheck/editor/lexer.py).

Pygments escapes every character of the text it highlights, so what it returns is HTML that can
be put into the autoescaped template as it is; the token classes it uses (``kd``, ``s2``, …) have
their colours in the template's stylesheet, not in Pygments' styles, so a Pygments release cannot
change the report's look, and the HTML is the same bytes for the same ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass

from pygments import format as render_tokens
from pygments.formatters import HtmlFormatter
from pygments.token import Comment, Keyword, Name, Number, String, Text, _TokenType, is_token_subtype

from rulecheck.dsl import ir
from rulecheck.editor.analysis import Symbol, declarations
from rulecheck.editor.lexer import RulesLexer

from . import english


@dataclass(frozen=True)
class FormalRule:
    html: str  # highlighted, escaped
    first: int  # its lines in the rules file
    last: int


def formal_rules(rules: ir.Ruleset, text: str) -> dict[str, FormalRule]:
    """Block anchor (reports/english.py) -> the lines of the ruleset that declare it."""
    lines = text.split("\n")
    decls: dict[tuple[str, str], Symbol] = {}
    for s in declarations(text, rules.name):
        decls.setdefault((s.kind, s.name), s)
    out: dict[str, FormalRule] = {}
    formatter = HtmlFormatter(nowrap=True)
    for sec in english.sections(rules):
        for b in sec.blocks:
            name = rules.game.title if b.kind == "game" else "flow" if b.kind == "flow" else b.formal.split("(")[0]
            sym = decls.get((b.kind, name))
            if sym is None:
                continue
            snippet = "\n".join(lines[sym.span.line - 1: sym.span.end_line]) + "\n"
            tokens = [(_shown(t), v) for t, v in RulesLexer().get_tokens(snippet)]
            out[b.anchor] = FormalRule(render_tokens(tokens, formatter), sym.span.line, sym.span.end_line)
    return out


#: The token types the report colours; the others (names, punctuation, white space) stay plain
#: text, with no element of their own, which keeps the page small.
_COLOURED = (Comment, Keyword, Name.Function, Name.Builtin, Name.Attribute, String, Number)


def _shown(t: _TokenType) -> _TokenType:
    return t if any(is_token_subtype(t, c) for c in _COLOURED) else Text
