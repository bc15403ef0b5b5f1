"""`rulecheck lsp` spoken to over stdio by a language client (pygls'), as an editor does: the
checker's diagnostics as the text changes, hover, go to definition, document symbols, formatting."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

CINDERELLA = ROOT / "rulesets" / "cinderella.rules"
URI = CINDERELLA.as_uri()
TEXT = CINDERELLA.read_text(encoding="utf-8")
LINES = TEXT.split("\n")


def where(needle: str, word: str | None = None) -> lsp.Position:
    """The 0-based position of ``word`` (default: the needle) on the first line holding ``needle``."""
    n = next(i for i, line in enumerate(LINES) if needle in line)
    return lsp.Position(line=n, character=LINES[n].index(needle) + (needle.index(word) if word else 0))


class Session:
    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.diagnostics: dict[str, asyncio.Queue[lsp.PublishDiagnosticsParams]] = {}

    def queue(self, uri: str) -> asyncio.Queue[lsp.PublishDiagnosticsParams]:
        return self.diagnostics.setdefault(uri, asyncio.Queue())

    async def next_diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        return list((await asyncio.wait_for(self.queue(uri).get(), timeout=60)).diagnostics)

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="rulecheck-rules", version=version, text=text)))

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


def run(body: Callable[[Session], Awaitable[None]], encodings: list[str] | None = None) -> lsp.InitializeResult:
    """Start the server as a user's editor does (`rulecheck lsp`), run ``body``, shut it down."""

    async def main() -> lsp.InitializeResult:
        client = LanguageClient("pytest", "1")
        session = Session(client)

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            session.queue(params.uri).put_nowait(params)

        await client.start_io(sys.executable, "-m", "rulecheck", "lsp")
        caps = lsp.ClientCapabilities(general=lsp.GeneralClientCapabilities(position_encodings=encodings) if encodings else None)
        result = await asyncio.wait_for(client.initialize_async(lsp.InitializeParams(capabilities=caps, root_uri=ROOT.as_uri())), 60)
        client.initialized(lsp.InitializedParams())
        try:
            await body(session)
        finally:
            await asyncio.wait_for(client.shutdown_async(None), 30)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 30)
        return result

    return asyncio.run(main())


def test_capabilities() -> None:
    async def nothing(_: Session) -> None:
        pass

    result = run(nothing)
    caps = result.capabilities
    assert caps.hover_provider and caps.definition_provider and caps.document_symbol_provider and caps.document_formatting_provider
    assert result.server_info is not None and result.server_info.name == "rulecheck"


def test_diagnostics_as_you_type() -> None:
    async def body(s: Session) -> None:
        s.open(URI, TEXT)
        assert await s.next_diagnostics(URI) == []  # the shipped ruleset checks
        broken = TEXT.replace("draw 4 from deck to hand[p]", "draw 4 from deck to hnad[p]", 1)
        assert broken != TEXT
        s.change(URI, broken, 2)
        (d,) = await s.next_diagnostics(URI)
        # the checker's code, message and hint, at the checker's place
        assert d.code == "E0201" and d.source == "rulecheck" and d.severity == lsp.DiagnosticSeverity.Error
        assert "hnad" in d.message and "help: did you mean 'hand'?" in d.message
        line = next(i for i, t in enumerate(broken.split("\n")) if "hnad[p]" in t)
        col = broken.split("\n")[line].index("hnad")
        assert (d.range.start.line, d.range.start.character) == (line, col)
        s.change(URI, TEXT.replace('game "Too Many', 'game "Too Many', 1) + "\nflow {\n", 3)
        assert any(x.code in ("E0103", "E0102") for x in await s.next_diagnostics(URI))
        s.change(URI, TEXT, 4)
        assert await s.next_diagnostics(URI) == []

    run(body)


def test_hover_shows_the_quote_and_the_english() -> None:
    async def body(s: Session) -> None:
        s.open(URI, TEXT)
        await s.next_diagnostics(URI)
        pos = where("define excludes(info: Person", "excludes")
        h = await s.client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=URI), position=pos))
        assert h is not None and isinstance(h.contents, lsp.MarkupContent) and h.contents.kind == lsp.MarkupKind.Markdown
        text = h.contents.value
        assert "**Information info rules card c out**" in text
        assert "Rulebook:" in text and "Cinderella-candidates" in text  # its source quote
        assert "In plain English:" in text and "Depending on info's rank:" in text  # reports/english.py's rendering
        # a reference shows the declaration it names
        use = where("any(excludes(i, c)", "excludes")
        h2 = await s.client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=URI), position=use))
        assert h2 is not None and isinstance(h2.contents, lsp.MarkupContent) and h2.contents.value == text

    run(body)


def test_go_to_definition() -> None:
    async def body(s: Session) -> None:
        s.open(URI, TEXT)
        await s.next_diagnostics(URI)

        async def definition(pos: lsp.Position) -> list[tuple[int, int]]:
            got = await s.client.text_document_definition_async(
                lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=URI), position=pos))
            assert isinstance(got, list) and all(isinstance(x, lsp.Location) and x.uri == URI for x in got), got
            return [(x.range.start.line, x.range.start.character) for x in got if isinstance(x, lsp.Location)]

        decl = where("define excludes(info: Person", "excludes")
        assert await definition(where("any(excludes(i, c)", "excludes")) == [(decl.line, decl.character)]
        zone = where("zone hand[player]", "hand")
        assert await definition(where("draw 4 from deck to hand[p]", "hand")) == [(zone.line, zone.character)]
        # an attribute after a dot: the kind's attribute
        attr = where("  drink: Drink", "drink")
        assert await definition(where("c.drink == wine", "drink")) == [(attr.line, attr.character)]
        # a formal of the definition the name is in
        formal = where("define excludes(info: Person", "info")
        assert await definition(where("match info.rank", "info")) == [(formal.line, formal.character)]

    run(body)


def test_document_symbols() -> None:
    async def body(s: Session) -> None:
        s.open(URI, TEXT)
        await s.next_diagnostics(URI)
        got = await s.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
        assert got and all(isinstance(x, lsp.DocumentSymbol) for x in got)
        symbols: dict[str, Any] = {x.name: x for x in got if isinstance(x, lsp.DocumentSymbol)}
        assert symbols["Too Many Cinderellas"].kind == lsp.SymbolKind.Module
        assert symbols["excludes"].kind == lsp.SymbolKind.Function and symbols["flow"].kind == lsp.SymbolKind.Event
        age = symbols["Age"]
        assert age.kind == lsp.SymbolKind.Enum and [c.name for c in age.children] == ["senior", "adult", "teen", "young"]
        person = symbols["Person"]
        assert "rank" in [c.name for c in person.children]
        amb = symbols["inversion_presentation"]
        assert amb.kind == lsp.SymbolKind.Interface and {c.name for c in amb.children} == {"inverted", "printed"}
        for x in symbols.values():
            r, sel = x.range, x.selection_range
            assert (r.start.line, r.start.character) <= (sel.start.line, sel.start.character)
            assert (sel.end.line, sel.end.character) <= (r.end.line, r.end.character)
        # every top-level declaration, in order
        assert [x.range.start.line for x in got if isinstance(x, lsp.DocumentSymbol)] == sorted(
            x.range.start.line for x in got if isinstance(x, lsp.DocumentSymbol))

    run(body)


def test_formatting_and_utf16_positions(tmp_path: Path) -> None:
    """A position after an emoji counts UTF-16 units, the protocol's default: the emoji is one
    character for the checker and two units for the client."""
    text = 'game "G" {\n  players 2..2\n}\n\nflow {\nsay "😀ぴ {nope}"  \n  end winners {}\n}\n'
    uri = (tmp_path / "g.rules").as_uri()

    async def body(s: Session) -> None:
        s.open(uri, text)
        (d,) = await s.next_diagnostics(uri)
        line = text.split("\n")[5]
        assert d.code == "E0201" and d.range.start.line == 5
        assert d.range.start.character == line.index("nope") + 1  # the emoji's second unit
        assert d.range.end.character == line.index("nope") + 1 + len("nope")
        edits = await s.client.text_document_formatting_async(lsp.DocumentFormattingParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
        assert edits and len(edits) == 1
        assert edits[0].new_text == 'game "G" {\n  players 2..2\n}\n\nflow {\n  say "😀ぴ {nope}"\n  end winners {}\n}\n'

    run(body)


@pytest.mark.parametrize("encoding", ["utf-32", "utf-16"])
def test_the_position_encoding_is_negotiated(encoding: str) -> None:
    async def nothing(_: Session) -> None:
        pass

    result = run(nothing, [encoding])
    assert result.capabilities.position_encoding == encoding


def test_hover_text_from_the_ruleset_is_not_markdown() -> None:
    """Text from a .rules file is data: a description cannot become Markdown or HTML in the editor."""
    from rulecheck.editor.analysis import Analysis

    text = 'game "G" {\n  players 2..2\n}\ndefine d -> int "<img src=x> **bold** [link](y)" = 1\n  source "`code` <b>"\nflow {\n  end winners {}\n}\n'
    a = Analysis.of(text, "g.rules")
    found = a.hover(4, 8)
    assert found is not None
    md = found[0]
    assert "\\<img src=x\\>" in md and "\\*\\*bold\\*\\*" in md and "\\[link\\](y)" in md and "\\`code\\` \\<b\\>" in md
    assert "<img" not in md.replace("\\<img", "")


def test_a_reserved_word_that_names_a_declaration() -> None:
    """`var at[player]`, `procedure turn(…)`: the parser reads these words as names where no keyword
    can stand (before `(` or `[`), while the tokens the editor keeps are the basic lexer's, which
    call them keywords. The outline selects the name; definition and hover find the declaration."""
    from rulecheck.editor.analysis import Analysis

    text = ('game "G" {\n  players 2..2\n  turn turn\n}\nvar at[player]: int = 0 "where"\n'
            'procedure turn(p: player) {\n  set at[p] = 1\n}\nflow {\n  turn(player(1))\n  end winners {}\n}\n')
    a = Analysis.of(text, "g.rules")
    spans = {s.name: s.name_span for s in a.symbols}
    assert (spans["at"].line, spans["at"].col, spans["at"].end_col) == (5, 5, 7)
    assert (spans["turn"].line, spans["turn"].col, spans["turn"].end_col) == (6, 11, 15)
    assert a.definition(7, 7) == [spans["at"]]  # set at[p]
    assert a.definition(10, 3) == [spans["turn"]]  # turn(player(1))
    found = a.hover(7, 7)
    assert found is not None and "`at`, variable" in found[0]
    assert a.definition(3, 3) == []  # the keyword `turn` of the game declaration is no name


def lsp_exit_code(*, shutdown: bool) -> int:
    """`rulecheck lsp` told initialize, [shutdown,] exit over stdin in one go: its exit code."""

    def message(body: dict[str, object]) -> bytes:
        data = json.dumps(body).encode()
        return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)

    stream = message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    stream += message({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    if shutdown:
        stream += message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    stream += message({"jsonrpc": "2.0", "method": "exit"})
    done = subprocess.run([sys.executable, "-m", "rulecheck", "lsp"], input=stream, capture_output=True, timeout=60)
    assert b"error" not in done.stderr, done.stderr
    return done.returncode


def test_the_exit_code_follows_the_protocol() -> None:
    """0 when the client asked for shutdown before exit, else 1; and no complaint on stderr about
    the standard output the server closed (it used to end with rulecheck's internal error, 3)."""
    assert lsp_exit_code(shutdown=True) == 0
    assert lsp_exit_code(shutdown=False) == 1
