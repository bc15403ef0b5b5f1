"""The examples in docs/language.md and docs/diagnostics.md are checked, so the reference cannot
drift from the implementation.

Fenced blocks are tagged by their info string:

- ```` ```rules ```` a complete ruleset that must check without errors;
  ``id=NAME`` names it so that later blocks can build on it;
- ```` ```rules with=NAME ```` declarations added to the ruleset NAME, checked together with it;
- ```` ```rules-error ```` / ```` ```rules-warning ```` a ruleset (``with=NAME`` allowed) whose first
  comment line names the one error code it must produce (for a warning: no error, and that warning);
  ``rulebook=NAME`` checks its quotes against the ```` ```rulebook id=NAME ```` block;
- ```` ```text output=NAME ```` what ``rulecheck check`` prints on stderr for the block NAME, with the
  file called ``example.rules``;
- ```` ```console ```` a ``$ rulecheck …`` command run from the project root and what it prints.

Other ``text`` blocks are prose.  Beyond the examples themselves, the tests below
check that every construct of the grammar, every statement, builtin and aggregate, every diagnostic
code and every limit is documented.
"""

from __future__ import annotations

import io
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT
from lark import Tree

from rulecheck import cli
from rulecheck.dsl import checker, ir, parser, source, walk
from rulecheck.dsl.diagnostics import CODES, render_all
from rulecheck.dsl.loader import Loaded, load_text
from rulecheck.dsl.quotes import check_quotes
from rulecheck.interpreter import semantics

LANGUAGE = ROOT / "docs" / "language.md"
DIAGNOSTICS = ROOT / "docs" / "diagnostics.md"


@dataclass
class Block:
    doc: Path
    line: int  # of the opening fence
    kind: str
    attrs: dict[str, str]
    text: str

    @property
    def ident(self) -> str:
        return f"{self.doc.stem}:{self.line}"


@dataclass
class Doc:
    blocks: list[Block] = field(default_factory=list)

    def named(self, name: str) -> Block:
        found = [b for b in self.blocks if b.attrs.get("id") == name]
        assert len(found) == 1, f"{len(found)} blocks with id={name}"
        return found[0]


FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)


def read_doc(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8")
    doc = Doc()
    for m in FENCE.finditer(text):
        words = m.group(1).split()
        kind = words[0] if words else ""
        attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        doc.blocks.append(Block(path, text[: m.start()].count("\n") + 1, kind, attrs, m.group(2)))
    return doc


DOCS = {path: read_doc(path) for path in (LANGUAGE, DIAGNOSTICS)}
BLOCKS = [b for d in DOCS.values() for b in d.blocks]
RULES = [b for b in BLOCKS if b.kind == "rules"]
FAILING = [b for b in BLOCKS if b.kind in ("rules-error", "rules-warning")]
OUTPUTS = [b for b in BLOCKS if b.kind == "text" and "output" in b.attrs]


def full_text(block: Block) -> str:
    """The block's ruleset: the blocks it builds on, then its own text."""
    base = block.attrs.get("with")
    if base is None:
        return block.text
    return full_text(DOCS[block.doc].named(base)) + "\n" + block.text


def load(block: Block) -> Loaded:
    loaded = load_text(full_text(block), "example.rules")
    book = block.attrs.get("rulebook")
    if book is not None and loaded.rules is not None:
        loaded.diagnostics.extend(check_quotes(loaded.rules, DOCS[block.doc].named(book).text))
    return loaded


def shown(loaded: Loaded) -> str:
    return render_all(loaded.diagnostics.sorted(), loaded.source)


@pytest.mark.parametrize("block", RULES, ids=[b.ident for b in RULES])
def test_example_checks(block: Block) -> None:
    loaded = load(block)
    assert loaded.ok, f"{block.ident}:\n{shown(loaded)}"


@pytest.mark.parametrize("block", FAILING, ids=[b.ident for b in FAILING])
def test_example_fails_as_documented(block: Block) -> None:
    comment = next((line for line in block.text.splitlines() if line.lstrip().startswith("#")), "")
    code = re.search(r"\b([EW]\d{4})\b", comment)
    assert code, f"{block.ident}: the first comment line must name the expected code"
    loaded = load(block)
    errors = {d.code for d in loaded.diagnostics.items if d.is_error}
    warnings = {d.code for d in loaded.diagnostics.items if not d.is_error}
    if block.kind == "rules-error":
        assert errors == {code.group(1)}, f"{block.ident}: expected only {code.group(1)}:\n{shown(loaded)}"
    else:
        assert not errors and code.group(1) in warnings, f"{block.ident}: expected {code.group(1)}:\n{shown(loaded)}"


@pytest.mark.parametrize("block", OUTPUTS, ids=[b.ident for b in OUTPUTS])
def test_shown_output(block: Block) -> None:
    loaded = load(DOCS[block.doc].named(block.attrs["output"]))
    assert shown(loaded) == block.text, f"{block.ident}: the output shown differs from:\n{shown(loaded)}"


CONSOLE = [b for b in BLOCKS if b.kind == "console"]


@pytest.mark.parametrize("block", CONSOLE, ids=[b.ident for b in CONSOLE])
def test_console_example(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    """A console block is a rulecheck command run from the project root, and what it prints."""
    command, _, expected = block.text.partition("\n")
    assert command.startswith("$ rulecheck "), f"{block.ident}: a console block starts with $ rulecheck"
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    cli.main(shlex.split(command[len("$ rulecheck ") :]), out, err)
    assert out.getvalue() + err.getvalue() == expected, f"{block.ident}: it prints\n{out.getvalue() + err.getvalue()}"


# ---- everything is documented ---------------------------------------------------------------


def grammar_constructs() -> set[str]:
    """The names of every tree node the grammar can build: one per construct."""
    out = set()
    for rule in parser._lark().rules:
        name = rule.alias or (None if rule.options.expand1 else rule.origin.name)
        if name and not name.startswith("_") and name not in ("start", "item_only"):
            out.add(str(name))
    return out


def tree_names(text: str) -> set[str]:
    tree = parser._lark().parse(text, start="start")
    return {str(t.data) for t in tree.iter_subtrees() if isinstance(t, Tree)}


def test_every_construct_has_an_example() -> None:
    used: set[str] = set()
    for block in RULES:
        if block.doc == LANGUAGE:
            used |= tree_names(full_text(block))
    missing = grammar_constructs() - used
    assert not missing, f"constructs of dsl/grammar.lark without an example in docs/language.md: {sorted(missing)}"


def _ir_of_examples() -> tuple[set[str], set[str], set[str]]:
    stmts: set[str] = set()
    builtins: set[str] = set()
    aggs: set[str] = set()
    for block in RULES:
        if block.doc != LANGUAGE:
            continue
        rules = load(block).rules
        assert rules is not None
        bodies = [rules.flow] + [p.body for p in rules.procs.values() if p.body]
        roots: list[object] = [*bodies, *(d.body for d in rules.defs.values()), *(i.expr for i in rules.invariants)]
        for d in rules.defs.values():
            roots += [d.otherwise, *(c.guard for c in d.cases or []), *(c.value for c in d.cases or [])]
        for a in rules.ambiguities.values():
            for r in a.readings:
                roots += [p.body for p in r.procs.values()] + [d.body for d in r.defs.values()]
        for body in bodies:
            stmts |= {type(s).__name__ for s in walk.walk_stmts(body)}
        for root in roots:
            if root is None:
                continue
            for e in walk.walk_exprs(root):
                if isinstance(e, ir.Builtin):
                    builtins.add(e.op)
                elif isinstance(e, ir.Agg):
                    aggs.add(e.op)
    return stmts, builtins, aggs


def test_every_statement_builtin_and_aggregate_has_an_example() -> None:
    stmts, builtins, aggs = _ir_of_examples()
    all_stmts = {c.__name__ for c in vars(ir).values() if isinstance(c, type) and issubclass(c, ir.Stmt) and c is not ir.Stmt}
    assert all_stmts - stmts == set(), "statements without an example"
    assert set(ir.BUILTINS_0 + ir.BUILTINS_1 + ir.BUILTINS_2) - builtins == set(), "builtins without an example"
    assert set(ir.AGGREGATES) - aggs == set(), "aggregates without an example"


def test_every_diagnostic_code_is_documented() -> None:
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    headings = dict(re.findall(r"^### ([EW]\d{4}): (.+)$", text, re.M))
    assert set(headings) == set(CODES), "docs/diagnostics.md and dsl/diagnostics.CODES list different codes"
    for code, title in CODES.items():
        assert headings[code] == title, f"{code}: the heading says '{headings[code]}', CODES says '{title}'"
    # every code that a rules text can produce is shown by a checked example
    shown_codes = set()
    for block in FAILING:
        comment = next(line for line in block.text.splitlines() if line.lstrip().startswith("#"))
        shown_codes |= set(re.findall(r"\b([EW]\d{4})\b", comment)[:1])
    not_from_text = {"E0001", "E0002", "E0003", "E0503", "E0701"}  # unreadable files, the command line, verify
    assert set(CODES) - not_from_text - shown_codes == set(), "codes without a checked example"


def test_limits_are_documented() -> None:
    text = LANGUAGE.read_text(encoding="utf-8")
    section = text[text.index("## Limits") :]
    section = section[: section.index("\n## ", 4)]
    for number in (source.MAX_FILE_BYTES, parser.MAX_NESTING, parser.MAX_TREE_DEPTH, parser.MAX_SYNTAX_ERRORS,
                   checker.MAX_PLAYERS, checker.MAX_COMPONENTS, checker.MAX_RANGE, checker.MAX_SUGGESTIONS,
                   semantics.STEP_BUDGET):
        assert f"{number:,}" in section, f"the limit {number:,} is not in the Limits section of docs/language.md"


def test_exit_codes_are_documented() -> None:
    text = LANGUAGE.read_text(encoding="utf-8")
    section = text[text.index("## Exit codes") :]
    for code in (cli.EXIT_OK, cli.EXIT_FINDINGS, cli.EXIT_BAD_INPUT, cli.EXIT_INTERNAL):
        assert re.search(rf"^\| {code} \|", section, re.M), f"exit code {code} is not in the table"


def test_keywords_are_listed() -> None:
    """The list of keywords in the lexical section is the grammar's."""
    text = LANGUAGE.read_text(encoding="utf-8")
    listed = set(re.search(r"<!-- keywords -->(.*?)<!-- /keywords -->", text, re.S).group(1).replace("`", " ").split())  # type: ignore[union-attr]
    words = {str(t.pattern.value) for t in parser._lark().terminals if t.pattern.type == "str" and re.fullmatch(r"[a-z]+", str(t.pattern.value))}
    assert listed == words


def test_blocks_are_tagged() -> None:
    """A rules example that is not tagged would not be checked."""
    for block in BLOCKS:
        assert block.kind in ("rules", "rules-error", "rules-warning", "rulebook", "text", "console"), f"{block.ident}: untagged block"
        if block.kind == "text" and "game" in block.text and "{" in block.text and "output" not in block.attrs:
            pytest.fail(f"{block.ident}: looks like rules; tag it rules, rules-error or rules-warning")

