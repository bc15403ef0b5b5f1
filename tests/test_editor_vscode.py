"""The VS Code extension (editors/vscode/) with the libraries VS Code runs it with, in node.

- The grammar: loaded by vscode-textmate with the Oniguruma WASM of vscode-oniguruma, as VS Code
  loads it, tokenizes every shipped ruleset (editors/vscode/test/tokenize.js); every character gets
  the highlighting class the Pygments lexer gives it, so the two highlighters cannot drift apart.
- The client: editors/vscode/test/client.js starts `rulecheck lsp` from extension.js's own server
  options and speaks LSP to it with vscode-languageserver-protocol (vscode-languageclient's base).
- The package: @vscode/vsce packages the extension, checking the manifest as the Marketplace does.

VS Code itself is not started (no display here, and its test runner downloads VS Code from outside
the package registries). The node packages come from editors/vscode/package-lock.json (`npm ci`,
once, shared by xdist workers). Without node and npm the tests skip, except in CI (the CI
environment variable set), where they must run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from pygments.token import Comment, Keyword, Name, Number, Operator, String, _TokenType, is_token_subtype

from rulecheck.editor.lexer import BUILTINS, CONSTANTS, DECLARATIONS, KEYWORDS, TYPES, RulesLexer

pytestmark = pytest.mark.slow

VSCODE = ROOT / "editors" / "vscode"
PACKAGE = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
# node 18 is Debian 12's, what .ci/run installs there; the packages in the lock file run on it
NODE_MAJOR = 18


# ---- node, npm and the packages ------------------------------------------------------------------


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs {tool} for this test: apt-get install -y nodejs npm")
        pytest.skip(f"{tool} is not installed (apt-get install -y nodejs npm); CI runs this test")
    return path


@pytest.fixture(scope="session")
def node() -> str:
    exe = need("node")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < NODE_MAJOR:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs node {NODE_MAJOR} or later for this test, not {version}")
        pytest.skip(f"node {version} is older than {NODE_MAJOR}")
    return exe


@pytest.fixture(scope="session")
def node_modules(node: str) -> Path:
    """editors/vscode/node_modules as package-lock.json has it: `npm ci` when it was installed from
    another lock file or not at all. A file lock keeps xdist workers from installing at once."""
    npm = need("npm")
    lock = VSCODE / "package-lock.json"
    want = hashlib.sha256(lock.read_bytes()).hexdigest()
    stamp = VSCODE / "node_modules" / ".installed-from-lock"
    guard = Path(tempfile.gettempdir()) / f"rulecheck-npm-ci-{hashlib.sha256(str(VSCODE).encode()).hexdigest()[:12]}.lock"
    with guard.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not stamp.exists() or stamp.read_text(encoding="utf-8") != want:
            # --ignore-scripts: nothing used here needs one, and some would download from elsewhere
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=VSCODE,
                                  capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                pytest.fail(f"npm ci in {VSCODE} failed:\n{done.stdout}\n{done.stderr}")
            stamp.write_text(want, encoding="utf-8")
    return VSCODE / "node_modules"


def run_node(node: str, script: str, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([node, str(VSCODE / "test" / script), *args], cwd=VSCODE, input=stdin,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0, f"{script} failed ({done.returncode}):\n{done.stderr}"
    return done.stdout


# ---- the grammar, as VS Code tokenizes with it ----------------------------------------------------

#: What a piece of text is to a reader, in both highlighters. Names and punctuation are plain in
#: both: the grammar gives them no scope, the lexer Name and Punctuation.
PLAIN = "plain"


def pygments_class(t: _TokenType) -> str:
    for token, cls in ((Comment, "comment"), (String.Escape, "escape"), (String.Interpol, "interpolation"),
                       (String, "string"), (Keyword.Declaration, "declaration"), (Keyword.Constant, "constant"),
                       (Keyword.Type, "type"), (Keyword, "keyword"), (Name.Function, "declared"),
                       (Name.Builtin, "builtin"), (Name.Attribute, "attribute"), (Number, "number"),
                       (Operator, "operator")):
        if is_token_subtype(t, token):
            return cls
    return PLAIN


#: The innermost scope decides, as it does for a colour theme; keyword., storage., support. and
#: constant. scopes are the ones themes colour as words of the language.
SCOPES = (("comment.", "comment"), ("constant.character.escape.", "escape"), ("invalid.illegal.escape.", "escape"),
          ("punctuation.section.interpolation.", "interpolation"), ("string.", "string"),
          ("storage.type.declaration.", "declaration"), ("constant.language.", "constant"), ("support.type.", "type"),
          ("keyword.control.", "keyword"), ("support.function.builtin.", "builtin"), ("entity.name.function.", "declared"),
          ("entity.other.attribute-name.", "attribute"), ("constant.numeric.", "number"), ("keyword.operator.", "operator"),
          ("meta.interpolation.", PLAIN), ("source.", PLAIN))


def textmate_class(scopes: list[str]) -> str:
    innermost = scopes[-1]
    for prefix, cls in SCOPES:
        if innermost.startswith(prefix):
            return cls
    raise AssertionError(f"a scope the test does not know: {innermost}")


@dataclass
class Tokenized:
    path: Path
    text: str
    lines: list[list[tuple[str, list[str]]]]  # per line, the grammar's tokens: text, scopes


def lines_of(text: str) -> list[str]:
    # VS Code's line breaks; a final one does not start a line
    rows = re.split(r"\r\n|\r|\n", text)
    return rows[:-1] if len(rows) > 1 and rows[-1] == "" else rows


def pygments_classes(text: str) -> list[list[str]]:
    """Per line, the class of each character as the Pygments lexer sees it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    flat = [PLAIN] * len(text)
    for start, token, value in RulesLexer(stripnl=False).get_tokens_unprocessed(text):
        flat[start:start + len(value)] = [pygments_class(token)] * len(value)
    out, at = [], 0
    for row in lines_of(text):
        out.append(flat[at:at + len(row)])
        at += len(row) + 1
    return out


def textmate_classes(t: Tokenized) -> list[list[str]]:
    return [[textmate_class(scopes) for piece, scopes in line for _ in piece] for line in t.lines]


#: Every word of the lexer in the places the lexer gives it its class, one a line: a
#: declaration's word and name, a reserved word alone, called and indexed (a name then), a type,
#: a constant, a builtin called.
def words_text() -> str:
    rows = [f"{w} name_{w}" for w in DECLARATIONS]
    rows += [f"x {w} y" for w in KEYWORDS]
    rows += [f"{w}(x)" for w in KEYWORDS]
    rows += [f"{w}[x]" for w in KEYWORDS]
    rows += [f"x: {w}" for w in (*TYPES, *CONSTANTS)]
    rows += [f"{w}(x)" for w in BUILTINS]
    rows += ['game "G" {', "flow {", 'term "T" means "t"']
    return "\n".join(rows) + "\n"


#: Strings and comments that hold each other's marks, Japanese text, a string over two lines, a
#: quoted string inside braces, braces a string does not close, a comment inside braces (the
#: expression in them is parsed as any other, comments and all).
MARKS_TEXT = (
    '# a "quote" in a comment does not open a string\n'
    'define a -> text = "a # in a string is no comment" # but this is\n'
    'define b -> text = "日本語の「引用」 and {x} # still text" + "君の硬さは。"\n'
    'define c -> text = "a string\n'
    ' # over two lines"\n'
    'say "{if x then \\"yes # no comment\\" else \\"no\\"} # text"\n'
    'source "an unclosed { in a source text" @ja "日本語"\n'
    'set y = 1 # after the strings, code again\n'
    'say "{n # how many} left" # a comment again\n'
    'say "{f(\\"half typed" # a comment: the bare quote ended the string\n'
)


def committed_rulesets() -> list[Path]:
    """The shipped rulesets and every .rules example under tests/, the broken ones too: a ruleset
    half typed is what an editor shows most of the time. Not one that is not UTF-8."""
    out = []
    for p in sorted({*ROOT.glob("rulesets/*.rules"), *ROOT.glob("tests/**/*.rules")}):
        try:
            p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        out.append(p)
    return out


@pytest.fixture(scope="module")
def tokenized(node: str, node_modules: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tokenized]:
    """Every committed ruleset and the two texts above, tokenized by tokenize.js in one run."""
    tmp = tmp_path_factory.mktemp("grammar")
    (tmp / "words.rules").write_text(words_text(), encoding="utf-8")
    (tmp / "marks.rules").write_text(MARKS_TEXT, encoding="utf-8")
    paths = [*committed_rulesets(), tmp / "words.rules", tmp / "marks.rules"]
    out = json.loads(run_node(node, "tokenize.js", *map(str, paths)))
    assert out["scopeName"] == PACKAGE["contributes"]["grammars"][0]["scopeName"]
    found = {}
    for path, f in zip(paths, out["files"], strict=True):
        assert f["path"] == str(path)
        key = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
        found[key] = Tokenized(path, path.read_text(encoding="utf-8"), [[(p, s) for p, s in line] for line in f["lines"]])
    return found


def test_the_grammar_tokenizes_every_ruleset_whole(tokenized: dict[str, Tokenized]) -> None:
    """Each line's tokens are the line, in order, each under the grammar's scope: the grammar
    loaded and covered every character."""
    scope = PACKAGE["contributes"]["grammars"][0]["scopeName"]
    assert len([k for k in tokenized if k.startswith("rulesets/")]) >= 5
    for key, t in tokenized.items():
        rows = lines_of(t.text)
        assert len(t.lines) == len(rows), key
        for n, (row, tokens) in enumerate(zip(rows, t.lines, strict=True)):
            assert "".join(piece for piece, _ in tokens) == row, f"{key}:{n + 1}"
            assert all(piece or not row for piece, _ in tokens), f"{key}:{n + 1}: an empty token"
            assert all(scopes[0] == scope for _, scopes in tokens), f"{key}:{n + 1}"


def disagreements(t: Tokenized) -> Iterator[str]:
    rows = lines_of(t.text)
    for n, (row, ours, theirs) in enumerate(zip(rows, textmate_classes(t), pygments_classes(t.text), strict=True)):
        assert len(ours) == len(theirs) == len(row)
        for col, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if a != b:
                yield f"{t.path.name}:{n + 1}:{col + 1}: {row[col]!r} in {row.strip()!r}: grammar {a}, Pygments {b}"
                break  # one a line is enough to see it


def test_the_grammar_and_the_pygments_lexer_agree(tokenized: dict[str, Tokenized]) -> None:
    """Character by character, both highlighters give the same class (comment, string, escape,
    interpolation, keyword, declaration, type, constant, builtin, declared name, number, operator
    or plain) to every ruleset, so that a change to one that is not made to the other fails here."""
    found = [d for t in tokenized.values() for d in disagreements(t)]
    assert found == [], "\n".join(found[:60])


#: The scope family a theme colours each class of word by.
WORD_SCOPES = {"keyword": "keyword.control.", "declaration": "storage.type.", "type": "support.type.",
               "constant": "constant.language.", "builtin": "support.function.", "declared": "entity.name.function."}
LANGUAGE_SCOPES = ("keyword.", "storage.", "support.", "constant.")


def test_every_word_of_the_lexer_gets_its_scope(tokenized: dict[str, Tokenized]) -> None:
    """A keyword, declaration word, type, constant or builtin of the lexer has the grammar's scope
    of that family; a reserved word called, a name declared or referred to has none of them."""
    t = tokenized["words.rules"]
    rows = lines_of(t.text)
    theirs = pygments_classes(t.text)
    expected: dict[str, set[str]] = {}
    for n, (row, tokens) in enumerate(zip(rows, t.lines, strict=True)):
        at = 0
        for piece, scopes in tokens:
            for m in re.finditer(r"[A-Za-z_]+", piece):
                word, cls = m.group(), theirs[n][at + m.start()]
                expected.setdefault(row, set()).add(f"{word}={cls}")
                if cls in WORD_SCOPES:
                    assert scopes[-1].startswith(WORD_SCOPES[cls]), f"{row!r}: {word} is {cls} to Pygments, {scopes} here"
                else:
                    assert not any(s.startswith(LANGUAGE_SCOPES) for s in scopes), f"{row!r}: {word} is a name, {scopes} here"
            at += len(piece)
    # what the lexer says of each word, so that the checks above are about the right classes
    for w in DECLARATIONS:
        assert expected[f"{w} name_{w}"] == {f"{w}=declaration", f"name_{w}=declared"}
    for w in KEYWORDS:
        assert expected[f"x {w} y"] & {f"{w}=keyword", f"{w}=declaration"}, w
        assert expected[f"{w}(x)"] == expected[f"{w}[x]"] == {f"{w}=plain", "x=plain"}, w
    for w in TYPES:
        assert expected[f"x: {w}"] == {"x=plain", f"{w}=type"}
    for w in CONSTANTS:
        assert expected[f"x: {w}"] == {"x=plain", f"{w}=constant"}
    for w in BUILTINS:
        assert expected[f"{w}(x)"] == {f"{w}=builtin", "x=plain"}
    assert expected['game "G" {'] == {"game=declaration", "G=string"} and expected["flow {"] == {"flow=declaration"}


def classes_of(t: Tokenized, n: int, needle: str) -> tuple[set[str], set[str]]:
    """The classes the grammar and the lexer give the characters of ``needle`` on line n (0-based)."""
    row = lines_of(t.text)[n]
    at = row.index(needle)
    ours, theirs = textmate_classes(t)[n][at:at + len(needle)], pygments_classes(t.text)[n][at:at + len(needle)]
    return set(ours), set(theirs)


@pytest.mark.parametrize(("n", "needle", "cls"), [
    (0, '# a "quote" in a comment does not open a string', "comment"),
    (1, "define", "declaration"),
    (1, '"a # in a string is no comment"', "string"),
    (1, "# but this is", "comment"),
    (2, '"日本語の「引用」 and ', "string"),
    (2, "{", "interpolation"),
    (2, " # still text\"", "string"),
    (2, '"君の硬さは。"', "string"),
    (3, '"a string', "string"),
    (4, ' # over two lines"', "string"),
    (5, "if", "keyword"),
    (5, 'yes # no comment', "string"),
    (5, "}", "interpolation"),
    (5, " # text\"", "string"),
    (6, "@ja", "attribute"),
    (6, '"日本語"', "string"),
    (7, "set", "keyword"),
    (7, "1", "number"),
    (7, "# after the strings, code again", "comment"),
    (8, "# how many", "comment"),
    (8, "}", "interpolation"),
    (8, ' left"', "string"),
    (8, "# a comment again", "comment"),
    (9, "half typed", "string"),
    (9, "# a comment: the bare quote ended the string", "comment"),
])
def test_strings_and_comments(tokenized: dict[str, Tokenized], n: int, needle: str, cls: str) -> None:
    """A quote in a comment opens no string, a # in a string starts no comment, Japanese text is
    string, a string may span lines, an unclosed { in a string ends at its closing quote, and a
    comment inside braces ends at the closing brace."""
    ours, theirs = classes_of(tokenized["marks.rules"], n, needle)
    assert ours == {cls}, f"grammar: {needle!r} is {ours}"
    assert theirs == {cls}, f"Pygments: {needle!r} is {theirs}"


# ---- the client against `rulecheck lsp` ---------------------------------------------------------


def utf16(row: str, col: int) -> int:
    """A column in characters as LSP counts it by default (UTF-16 code units), as VS Code sends it."""
    return len(row[:col].encode("utf-16-le")) // 2


def position(text: str, needle: str, word: str | None = None) -> dict[str, int]:
    """The LSP position of ``word`` (default: the needle) on the first line holding ``needle``."""
    rows = text.split("\n")
    n = next(i for i, row in enumerate(rows) if needle in row)
    col = rows[n].index(needle) + (needle.index(word) if word else 0)
    return {"line": n, "character": utf16(rows[n], col)}


def offset(text: str, pos: dict[str, int]) -> int:
    rows = text.split("\n")
    if pos["line"] >= len(rows):
        return len(text)
    units, col = 0, 0
    row = rows[pos["line"]]
    while units < pos["character"] and col < len(row):
        units += len(row[col].encode("utf-16-le")) // 2
        col += 1
    return sum(len(r) + 1 for r in rows[:pos["line"]]) + col


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        text = text[:offset(text, e["range"]["start"])] + e["newText"] + text[offset(text, e["range"]["end"]):]
    return text


def rulecheck_command() -> list[str]:
    """`rulecheck lsp` of the Python running the tests (the venv's), as a user sets rulecheck.command."""
    exe = Path(sys.executable).parent / "rulecheck"
    assert exe.exists(), f"no rulecheck script next to {sys.executable}"
    return [str(exe), "lsp"]


def test_the_extension_client_against_the_server(node: str, node_modules: Path, tmp_path: Path) -> None:
    from rulecheck.editor.analysis import Analysis

    cinderella = (ROOT / "rulesets" / "cinderella.rules").read_text(encoding="utf-8")
    kimi = (ROOT / "rulesets" / "kimi_no_katasa.rules").read_text(encoding="utf-8")
    broken = cinderella.replace("draw 4 from deck to hand[p]", "draw 4 from deck to hnad[p]", 1)
    emoji = 'game "G" {\n  players 2..2\n}\n\nflow {\n  say "😀ぴ {nope}"\n  end winners {}\n}\n'
    messy = cinderella.replace("draw 4 from deck to hand[p]", "draw  4  from deck to hand[ p ]   ", 1)
    assert broken != cinderella and messy != cinderella
    a, e, k, m = (f"{(tmp_path / name).as_uri()}.rules" for name in ("broken", "emoji", "kimi", "messy"))
    use = position(kimi, "if in_grass[p]", "in_grass")
    steps: list[dict[str, Any]] = [
        {"open": {"uri": a, "text": broken}}, {"diagnostics": a},
        {"open": {"uri": e, "text": emoji}}, {"diagnostics": e},
        {"open": {"uri": k, "text": kimi}}, {"diagnostics": k},
        {"hover": {"uri": k, **use}}, {"definition": {"uri": k, **use}}, {"symbols": k},
        {"open": {"uri": m, "text": messy}}, {"format": m},
        {"change": {"uri": a, "text": cinderella, "version": 2}}, {"diagnostics": a},
    ]
    out = json.loads(run_node(node, "client.js", *rulecheck_command(), stdin=json.dumps({"rootUri": ROOT.as_uri(), "steps": steps})))
    results = dict(enumerate(out["results"]))

    # started as extension.js starts it: the command and its arguments, nothing appended
    assert out["spawned"] == rulecheck_command()
    caps = out["initialize"]["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["documentSymbolProvider"] and caps["documentFormattingProvider"]
    sync = caps["textDocumentSync"]
    assert (sync if isinstance(sync, int) else sync["change"]) == 1 and (isinstance(sync, int) or sync["openClose"])  # full text
    assert caps.get("positionEncoding", "utf-16") == "utf-16"  # what VS Code's client offers

    # the checker's diagnostic: its code, message and hint, on the 0-based line and UTF-16 column
    (d,) = results[1]["diagnostics"]
    where = position(broken, "hnad[p]", "hnad")
    assert d["code"] == "E0201" and d["source"] == "rulecheck" and d["severity"] == 1
    assert "hnad" in d["message"] and "help: did you mean 'hand'?" in d["message"]
    assert d["range"] == {"start": where, "end": {"line": where["line"], "character": where["character"] + 4}}
    (d,) = results[3]["diagnostics"]
    assert d["code"] == "E0201" and d["range"]["start"] == position(emoji, "nope")
    assert d["range"]["start"]["character"] == emoji.split("\n")[5].index("nope") + 1  # the emoji is two units
    assert results[5]["diagnostics"] == []

    # hover and definition on a name used in the rules: the declaration's text, and where it is
    analysis = Analysis.of(kimi, "kimi.rules")
    hover = results[6]
    expected = analysis.hover(use["line"] + 1, use["character"] + 1)
    assert expected is not None and hover["contents"] == {"kind": "markdown", "value": expected[0]}
    assert "野グソ" in hover["contents"]["value"]
    assert hover["range"]["start"] == use
    decl = position(kimi, "var in_grass[player]", "in_grass")
    assert [(x["uri"], x["range"]["start"]) for x in results[7]] == [(k, decl)]

    # the outline: the declarations in order, each selection on its name
    symbols = results[8]
    assert [s["name"] for s in symbols] == [s.name for s in analysis.symbols]
    assert {"in_grass", "active", "flow"} <= {s["name"] for s in symbols}
    rows = kimi.split("\n")
    for s in symbols:
        start, end = s["selectionRange"]["start"], s["selectionRange"]["end"]
        row = rows[start["line"]]
        selected = row[offset(row, {"line": 0, "character": start["character"]}):offset(row, {"line": 0, "character": end["character"]})]
        # a declaration's name; the game's and a term's word (their names are strings); `table Koma`'s Koma
        assert selected and selected in (s["name"].split()[-1], s["detail"]), s

    # formatting: edits that make the re-spaced copy the shipped layout again
    edits = results[10]
    assert edits and apply_edits(messy, edits) == cinderella

    # the fixed text, sent as a change: no diagnostics any more
    assert results[12]["diagnostics"] == [] and results[12]["uri"] == a

    # shutdown, then exit: the server ends by itself with 0
    assert out["exit"] == {"code": 0, "signal": None}
    assert "error" not in out["stderr"].lower(), out["stderr"]


def test_exit_without_shutdown_is_an_error(node: str, node_modules: Path) -> None:
    """The protocol's rule, and what makes the 0 above mean something: exit alone ends with 1."""
    out = json.loads(run_node(node, "client.js", *rulecheck_command(), stdin=json.dumps({"shutdown": False, "steps": []})))
    assert out["exit"] == {"code": 1, "signal": None}


# ---- extension.js, as far as it runs without VS Code ----------------------------------------------


def test_extension_js_uses_the_names_package_json_declares(node: str, node_modules: Path) -> None:
    """extension.js parses, loads in plain node (only activate needs VS Code), and reads the setting,
    its default and the language id that package.json contributes."""
    source = (VSCODE / "extension.js").read_text(encoding="utf-8")
    done = subprocess.run([node, "--check", str(VSCODE / "extension.js")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    probe = ("const e = require('./extension.js'); process.stdout.write(JSON.stringify({setting: e.SETTING, language: e.LANGUAGE,"
             " command: e.DEFAULT_COMMAND, activate: typeof e.activate, deactivate: typeof e.deactivate,"
             " server: e.serverOptions(['a', 'b', 'c']), off: e.serverOptions([]) === undefined}))")
    done = subprocess.run([node, "-e", probe], cwd=VSCODE, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ext = json.loads(done.stdout)
    assert ext["activate"] == ext["deactivate"] == "function"
    properties = PACKAGE["contributes"]["configuration"]["properties"]
    assert f"{ext['setting']}.command" in properties and properties[f"{ext['setting']}.command"]["default"] == ext["command"]
    assert [lang["id"] for lang in PACKAGE["contributes"]["languages"]] == [ext["language"]]
    assert PACKAGE["contributes"]["grammars"][0]["language"] == ext["language"]
    # an empty command turns the server off, as the setting's description says
    assert ext["server"] == {"command": "a", "args": ["b", "c"]} and ext["off"] is True
    # activate reads those: the setting through the constants, the selector by the language
    assert 'getConfiguration(SETTING).get("command", DEFAULT_COMMAND)' in source
    assert "documentSelector: [{ language: LANGUAGE }]" in source
    assert "serverOptions(vscode.workspace" in source
    # no activation events: VS Code 1.74 and later activate on the contributed language by itself
    engine = re.fullmatch(r"\^1\.(\d+)\.\d+", PACKAGE["engines"]["vscode"])
    assert PACKAGE["activationEvents"] == [] and engine is not None and int(engine.group(1)) >= 74


def test_the_client_library_starts_a_server_as_client_js_does(node_modules: Path) -> None:
    """client.js copies one rule of vscode-languageclient's: for an Executable, "--stdio" is
    appended to the arguments when the transport is stdio (why extension.js names none). Still so?"""
    main = (node_modules / "vscode-languageclient" / "lib" / "node" / "main.js").read_text(encoding="utf-8")
    assert re.search(r"if \(transport === TransportKind\.stdio\) \{\s*args\.push\('--stdio'\);", main)
    # the protocol library the test speaks with is the one the extension's client is built on
    lock = json.loads((VSCODE / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    assert "node_modules/vscode-languageclient/node_modules/vscode-languageserver-protocol" not in lock
    assert lock["node_modules/vscode-languageclient"]["dependencies"]["vscode-languageserver-protocol"] == \
        lock["node_modules/vscode-languageserver-protocol"]["version"]


# ---- the package ------------------------------------------------------------------------------------


def test_vsce_packages_the_extension(node: str, node_modules: Path, tmp_path: Path) -> None:
    """`vsce package` (the Marketplace's own checks of the manifest) makes a .vsix that holds the
    manifest, extension.js, the grammar, the language configuration and the client library
    extension.js requires, and none of the test tools."""
    vsix = tmp_path / "rulecheck-rules.vsix"
    done = subprocess.run([node, str(node_modules / "@vscode" / "vsce" / "vsce"), "package", "--allow-missing-repository",
                           "--out", str(vsix)], cwd=VSCODE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # a warning but the advice to bundle (the client library ships as node_modules) would be a prompt
    warnings = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line]
    assert all("bundle" in w for w in warnings), warnings
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    grammar = "extension/" + PACKAGE["contributes"]["grammars"][0]["path"].removeprefix("./")
    assert {"extension/package.json", "extension/extension.js", grammar, "extension/language-configuration.json",
            "extension/LICENSE.txt", "extension.vsixmanifest"} <= names
    assert manifest["name"] == PACKAGE["name"] and manifest["contributes"] == PACKAGE["contributes"]
    # what extension.js requires at run time is in the package; the test tools are not
    assert "extension/node_modules/vscode-languageclient/node.js" in names
    assert "extension/node_modules/vscode-languageserver-protocol/package.json" in names
    lock = json.loads((VSCODE / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    dev_only = [path for path, p in lock.items() if p.get("dev")]
    assert "node_modules/@vscode/vsce" in dev_only and "node_modules/vscode-textmate" in dev_only
    assert not [n for n in names if any(n.startswith(f"extension/{path}/") for path in dev_only)]
    assert not any(n.startswith("extension/test/") or n.endswith(".vsix") for n in names)
    # the extension's licence is the project's
    assert (VSCODE / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
