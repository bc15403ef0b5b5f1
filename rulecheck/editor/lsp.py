"""`rulecheck lsp`: a language server for .rules files over standard input and output (pygls).

As you type: the checker's diagnostics (the codes, messages, hints and notes of `rulecheck check`).
On request: hover (a declaration's heading, its rulebook text and the rules in plain English), go
to definition, document symbols (the outline) and formatting (`rulecheck fmt`). What the server
knows of a document is in analysis.py; this module speaks the protocol and converts positions
(the checker counts characters, the client the units it negotiated: UTF-16 unless it says else).
"""

from __future__ import annotations

from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from rulecheck import __version__
from rulecheck.dsl.diagnostics import Diagnostic, Severity
from rulecheck.dsl.source import NOWHERE, Span

from .analysis import Analysis, Symbol

SOURCE = "rulecheck"

_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.NOTE: lsp.DiagnosticSeverity.Information}
_KIND = {"game": lsp.SymbolKind.Module, "enum": lsp.SymbolKind.Enum, "value": lsp.SymbolKind.EnumMember,
         "kind": lsp.SymbolKind.Class, "attribute": lsp.SymbolKind.Field, "table": lsp.SymbolKind.Struct,
         "zone": lsp.SymbolKind.Array, "variable": lsp.SymbolKind.Variable, "parameter": lsp.SymbolKind.Constant,
         "definition": lsp.SymbolKind.Function, "procedure": lsp.SymbolKind.Method, "flow": lsp.SymbolKind.Event,
         "ambiguity": lsp.SymbolKind.Interface, "reading": lsp.SymbolKind.EnumMember, "invariant": lsp.SymbolKind.Property,
         "term": lsp.SymbolKind.String}


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulecheck", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.analyses: dict[str, tuple[int | None, Analysis]] = {}
        self.shut_down = False  # the client asked for shutdown before exit

    def analysis(self, uri: str) -> tuple[TextDocument, Analysis]:
        """The document's analysis, made again when the text changed since the last one."""
        doc = self.workspace.get_text_document(uri)
        cached = self.analyses.get(uri)
        if cached is None or cached[0] != doc.version or cached[1].text != doc.source:
            cached = (doc.version, Analysis.of(doc.source, _name(uri)))
            self.analyses[uri] = cached
        return doc, cached[1]

    def publish(self, uri: str) -> None:
        doc, a = self.analysis(uri)
        items = [_diagnostic(doc, d) for d in a.diagnostics]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=doc.version))


def _name(uri: str) -> str:
    """The document as diagnostics name it: its path for a file, else the URI."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _position(doc: TextDocument, line: int, col: int) -> lsp.Position:
    # the checker's 1-based line and character column, in the client's units
    line = max(0, line - 1)
    lines = doc.lines
    if line >= len(lines):
        return lsp.Position(line=len(lines), character=0)
    return doc.position_codec.position_to_client_units(lines, lsp.Position(line=line, character=max(0, col - 1)))


def _range(doc: TextDocument, span: Span) -> lsp.Range:
    if span is NOWHERE:
        return lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
    end_line, end_col = (span.end_line, span.end_col) if (span.end_line, span.end_col) > (span.line, span.col) else (span.line, span.col + 1)
    return lsp.Range(start=_position(doc, span.line, span.col), end=_position(doc, end_line, end_col))


def _checker_position(doc: TextDocument, pos: lsp.Position) -> tuple[int, int]:
    p = doc.position_codec.position_from_client_units(doc.lines, pos)
    return p.line + 1, p.character + 1


def _diagnostic(doc: TextDocument, d: Diagnostic) -> lsp.Diagnostic:
    text = d.message
    for note in d.notes:
        text += f"\nnote: {note}"
    if d.hint:
        text += f"\nhelp: {d.hint}"
    return lsp.Diagnostic(range=_range(doc, d.span), message=text, severity=_SEVERITY[d.severity], code=d.code, source=SOURCE)


def _symbol(doc: TextDocument, s: Symbol) -> lsp.DocumentSymbol:
    whole = _range(doc, s.span)
    name = _range(doc, s.name_span)
    if not (whole.start.line, whole.start.character) <= (name.start.line, name.start.character):
        name = lsp.Range(start=whole.start, end=whole.start)  # the protocol wants the name inside the whole
    return lsp.DocumentSymbol(name=s.name, kind=_KIND[s.kind], range=whole, selection_range=name, detail=s.detail or None,
                              children=[_symbol(doc, c) for c in s.children] or None)


def build() -> RulesServer:
    server = RulesServer()

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: RulesServer, params: None) -> None:
        ls.shut_down = True

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.analyses.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesServer, params: lsp.HoverParams) -> lsp.Hover | None:
        doc, a = ls.analysis(params.text_document.uri)
        found = a.hover(*_checker_position(doc, params.position))
        if found is None:
            return None
        text, span = found
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=_range(doc, span))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        doc, a = ls.analysis(params.text_document.uri)
        spans = a.definition(*_checker_position(doc, params.position))
        return [lsp.Location(uri=params.text_document.uri, range=_range(doc, s)) for s in spans] or None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: RulesServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        doc, a = ls.analysis(params.text_document.uri)
        return [_symbol(doc, s) for s in a.symbols]

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: RulesServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        from .format import FormatError, format_text

        doc = ls.workspace.get_text_document(params.text_document.uri)
        try:
            text = format_text(doc.source, _name(params.text_document.uri))
        except FormatError:
            return None  # the diagnostics already say what does not parse
        if text == doc.source:
            return []
        end = lsp.Position(line=len(doc.lines), character=0)
        return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=text)]

    return server


def main() -> int:
    """Serve until the client says exit; then 0 if it asked for shutdown first, else 1, as the
    protocol wants (pygls's own exit code does not get out of start_io)."""
    server = build()
    server.start_io()
    return 0 if server.shut_down else 1
