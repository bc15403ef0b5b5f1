"""A Pygments lexer for the rules language (.rules files): `pygmentize -l rules FILE`.

Registered as a Pygments plugin (the ``pygments.lexers`` entry point in pyproject.toml). The HTML
reports highlight the formal rules with it (reports/render.py). The keyword list is the grammar's
(dsl/grammar.lark); tests/test_editor_lexer.py checks that the two agree, so a new keyword cannot
be missed here.
"""

from __future__ import annotations

from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

#: Words that open a declaration, followed by the name they declare.
DECLARATIONS = ("enum", "card", "piece", "table", "zone", "var", "param", "define", "procedure", "ambiguity", "reading",
                "invariant", "case", "target", "question", "board", "record")
#: Every other reserved word of the grammar.
KEYWORDS = ("game", "flow", "term", "edition", "language", "original", "players", "order", "source", "given", "assumed",
            "unspecified", "default", "because", "in", "public", "owner", "hidden", "score", "varies", "by", "overrides",
            "otherwise", "let", "set", "move", "to", "draw", "from", "as", "choose", "each", "if", "then", "else", "for",
            "repeat", "times", "until", "while", "end", "winners", "say", "shuffle", "label", "secret", "kind", "question",
            "clarify", "always", "at", "means", "of", "match", "clockwise", "counterclockwise", "and", "or", "not", "returns", "when",
            "reveal", "ask", "truth", "lie", "answer", "must", "same", "link", "observe", "within", "than", "outside", "append", "turn")
TYPES = ("bool", "int", "text", "player", "place")
CONSTANTS = ("true", "false")
#: The builtin functions and aggregates (dsl/ir.py): names, not reserved words.
BUILTINS = ("num_players", "next", "prev", "seat", "size", "abs", "min", "max", "any", "all", "count", "sum", "the", "where",
            "adjacent", "neighbours", "distance", "steps", "length", "entries")

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
#: Between a word and the name it declares: on the same line. A name on the next line is not the
#: one declared (`kind ambiguity`, then `source …` in an ambiguity), and the TextMate grammar,
#: which matches a line at a time, could not see it either.
_BLANK = r"[ \t]+"


class RulesLexer(RegexLexer):
    """The rules language of rulecheck: games formalized from their rulebooks."""

    name = "rulecheck rules"
    aliases: ClassVar[list[str]] = ["rules", "rulecheck"]
    filenames: ClassVar[list[str]] = ["*.rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-rulecheck-rules"]

    tokens: ClassVar[dict[str, list]] = {  # type: ignore[type-arg]
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"@[a-z][a-z-]*", Name.Attribute),  # a translation's language tag
            # a word the grammar reserves elsewhere names a procedure, a definition or a variable where
            # it is called or indexed (`turn(p)`, `at[p]`): no keyword comes before ( or [
            (words(KEYWORDS, prefix=r"\b", suffix=r"(?=[(\[])"), Name),
            (rf"(game)({_BLANK})(?=\")", bygroups(Keyword.Declaration, Whitespace)),
            (rf"(term)({_BLANK})(?=\")", bygroups(Keyword.Declaration, Whitespace)),
            (r"(flow)\b", Keyword.Declaration),
            (rf"({'|'.join(DECLARATIONS)})\b({_BLANK})({_NAME})", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(TYPES, suffix=r"\b"), Keyword.Type),
            (rf"(turn)\b({_BLANK})({_NAME})", bygroups(Keyword, Whitespace, Name)),  # `turn NAME`: NAME is a procedure
            (words(KEYWORDS, suffix=r"\b"), Keyword),
            (words(BUILTINS, suffix=r"\b(?=\s*\()"), Name.Builtin),
            (r"[0-9]+", Number.Integer),
            (r"\.\.|=>|->|==|!=|<=|>=|[<>=+\-*/%]", Operator),
            (r"[{}()\[\]|,:.?]", Punctuation),
            (_NAME, Name),
            (r".", Text),
        ],
        "string": [
            (r'\\["\\nt{}]', String.Escape),
            (r"\\.", String.Escape),  # not a valid escape: the checker says so (E0105)
            (r"\{", String.Interpol, "interpolation"),
            (r'"', String.Double, "#pop"),
            (r'[^"\\{]+', String.Double),
        ],
        # A bare " ends the string wherever it is, as the parser's STRING token says, even inside
        # the braces or a quoted string in them, so that braces typed half way do not turn the rest of
        # the file into a string.
        "interpolation": [
            (r"\}", String.Interpol, "#pop"),
            (r'"', String.Double, "#pop:2"),
            (r'\\"', String.Double, "quoted"),  # inside the braces, \" is a string's quote mark
            (r'#[^}"\n]*', Comment.Single),  # up to the brace or the quote that ends the braces
            include("root"),
        ],
        "quoted": [
            (r'\\"', String.Double, "#pop"),
            (r'"', String.Double, "#pop:3"),
            (r"\\.", String.Escape),
            (r'[^\\"]+', String.Double),
        ],
    }
