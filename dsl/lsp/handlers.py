"""The language server of `evaldsl lsp`: `evaldsl.service` carried over LSP by pygls.

Each handler turns the protocol's parameters into a service query and the service's
plain values into lsprotocol types; nothing is decided here. Documents are synced
incrementally (pygls applies the edits) and each open or change publishes the new
version's diagnostics. The only module that imports pygls.
"""

from __future__ import annotations

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from evaldsl.errors import FramingError, RenameError
from evaldsl.lsp.framing import Framing
from evaldsl.service import LanguageService, Position, Range
from evaldsl.service.items import Completion, InlayHint, Kind, Problem, TextEdit

SOURCE = "evaldsl"

_KINDS = {
    Kind.FUNCTION: t.CompletionItemKind.Function, Kind.PROPERTY: t.CompletionItemKind.Property,
    Kind.FIELD: t.CompletionItemKind.Field, Kind.VARIABLE: t.CompletionItemKind.Variable,
    Kind.ENUM_MEMBER: t.CompletionItemKind.EnumMember, Kind.KEYWORD: t.CompletionItemKind.Keyword,
}
_SEVERITIES = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning}


class EvaldslServer(LanguageServer):
    """A pygls server holding one `LanguageService`."""

    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            own = version("evaldsl")
        except PackageNotFoundError:
            own = "0"
        super().__init__("evaldsl", own)
        self.service = LanguageService()

    def sync(self, uri: str, version: int | None) -> None:
        """Hand the service the document's text and publish its diagnostics."""
        document = self.workspace.get_text_document(uri)
        self.service.documents.encoding = _encoding(self)
        self.service.change(uri, document.source, version or 0)
        self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
            uri, [diagnostic(p) for p in self.service.diagnostics(uri)], version))


def _encoding(server: LanguageServer) -> str:
    chosen = server.server_capabilities.position_encoding
    return str(chosen.value if isinstance(chosen, t.PositionEncodingKind) else chosen or
               "utf-16")


server = EvaldslServer()


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: EvaldslServer, params: t.DidOpenTextDocumentParams) -> None:
    ls.sync(params.text_document.uri, params.text_document.version)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: EvaldslServer, params: t.DidChangeTextDocumentParams) -> None:
    ls.sync(params.text_document.uri, params.text_document.version)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: EvaldslServer, params: t.DidCloseTextDocumentParams) -> None:
    ls.service.close(params.text_document.uri)
    ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(params.text_document.uri, []))


@server.feature(t.TEXT_DOCUMENT_COMPLETION,
                t.CompletionOptions(trigger_characters=[".", ":", "(", ",", " "]))
def completion(ls: EvaldslServer, params: t.CompletionParams) -> t.CompletionList:
    found = ls.service.completion(params.text_document.uri, _position(params.position))
    return t.CompletionList(is_incomplete=False, items=[_completion(c) for c in found])


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: EvaldslServer, params: t.HoverParams) -> t.Hover | None:
    found = ls.service.hover(params.text_document.uri, _position(params.position))
    if found is None:
        return None
    return t.Hover(t.MarkupContent(t.MarkupKind.Markdown, found.markdown), _range(found.range))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: EvaldslServer, params: t.DefinitionParams) -> list[t.Location]:
    uri = params.text_document.uri
    return [t.Location(uri, _range(r))
            for r in ls.service.definition(uri, _position(params.position))]


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
def references(ls: EvaldslServer, params: t.ReferenceParams) -> list[t.Location]:
    uri = params.text_document.uri
    found = ls.service.references(uri, _position(params.position),
                                  params.context.include_declaration)
    return [t.Location(uri, _range(r)) for r in found]


@server.feature(t.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: EvaldslServer, params: t.PrepareRenameParams) -> t.Range | None:
    found = ls.service.prepare_rename(params.text_document.uri, _position(params.position))
    return _range(found) if found is not None else None


@server.feature(t.TEXT_DOCUMENT_RENAME)
def rename(ls: EvaldslServer, params: t.RenameParams) -> t.WorkspaceEdit:
    uri = params.text_document.uri
    try:
        edits = ls.service.rename(uri, _position(params.position), params.new_name)
    except RenameError as exc:
        from pygls.exceptions import JsonRpcInvalidParams

        raise JsonRpcInvalidParams(str(exc)) from exc
    return t.WorkspaceEdit(changes={uri: [_edit(e) for e in edits]})


@server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
def code_action(ls: EvaldslServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    fixes = ls.service.code_actions(uri, _service_range(params.range))
    return [t.CodeAction(f.title, kind=t.CodeActionKind.QuickFix,
                         diagnostics=[diagnostic(f.problem)], is_preferred=True,
                         edit=t.WorkspaceEdit(changes={uri: [_edit(f.edit)]})) for f in fixes]


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: EvaldslServer, params: t.DocumentFormattingParams) -> list[t.TextEdit]:
    return [_edit(e) for e in ls.service.formatting(params.text_document.uri)]


@server.feature(t.TEXT_DOCUMENT_INLAY_HINT)
def inlay_hint(ls: EvaldslServer, params: t.InlayHintParams) -> list[t.InlayHint]:
    found = ls.service.inlay_hints(params.text_document.uri, _service_range(params.range))
    return [_inlay(h) for h in found]


def serve() -> str | None:
    """Answer one editor on stdin and stdout until it shuts the server down; why the
    session broke off, when the editor's bytes lost their framing (`lsp_framing`)."""
    import asyncio
    import sys
    import threading

    from pygls.io_ import StdoutWriter

    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        return asyncio.run(_read_messages(Framing(sys.stdin.fileno())))
    except (KeyboardInterrupt, SystemExit, BrokenPipeError):
        return None
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


async def _read_messages(framing: Framing) -> str | None:
    """pygls's loop, with the reading done by `Framing` in a daemon thread (one blocked on
    an idle editor never holds the exit up): a wrong length is recovered from or named,
    never waited on."""
    import asyncio
    import json
    import threading

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[bytes | None, str | None]] = asyncio.Queue()

    def read() -> None:
        while True:
            try:
                body = framing.message()
            except FramingError as exc:
                loop.call_soon_threadsafe(queue.put_nowait, (None, str(exc)))
                return
            loop.call_soon_threadsafe(queue.put_nowait, (body, None))
            if body is None:
                return

    threading.Thread(target=read, name="lsp-stdin", daemon=True).start()
    stop = server._stop_event
    while stop is None or not stop.is_set():
        body, broken = await queue.get()
        if body is None:
            return broken
        try:  # as pygls's own loop: a message it cannot handle is reported, the rest go on
            message = json.loads(body, object_hook=server.protocol.structure_message)
            server.protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001
            server.report_server_error(exc, JsonRpcException)
    return None


def diagnostic(problem: Problem) -> t.Diagnostic:
    """A problem as LSP's diagnostic; the hint goes under the message, as `check` shows it."""
    message = f"{problem.message}\n{problem.hint}" if problem.hint else problem.message
    return t.Diagnostic(_range(problem.range), message, severity=_SEVERITIES[problem.severity],
                        code=problem.code, source=SOURCE,
                        data={"suggestion": problem.suggestion} if problem.suggestion else None)


def _completion(c: Completion) -> t.CompletionItem:
    docs = t.MarkupContent(t.MarkupKind.Markdown, c.documentation) if c.documentation else None
    return t.CompletionItem(c.label, kind=_KINDS[c.kind], detail=c.detail or None,
                            documentation=docs, insert_text=c.insert_text or None)


def _inlay(hint: InlayHint) -> t.InlayHint:
    return t.InlayHint(t.Position(hint.position.line, hint.position.character), hint.label,
                       padding_left=True)


def _edit(edit: TextEdit) -> t.TextEdit:
    return t.TextEdit(_range(edit.range), edit.new_text)


def _position(p: t.Position) -> Position:
    return Position(p.line, p.character)


def _service_range(r: t.Range) -> Range:
    return Range(_position(r.start), _position(r.end))


def _range(r: Range) -> t.Range:
    return t.Range(t.Position(r.start.line, r.start.character),
                   t.Position(r.end.line, r.end.character))
