"""`evaldsl lsp` end to end: a real stdio session with the server as a subprocess."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed")

from lsprotocol import types as t  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from tests.support.service_kit import ZH_SPEC, at  # noqa: E402

URI = "file:///tmp/客服.eval"
MISSPELT = ZH_SPEC.replace("rate(意图识别.passed)", "rate(意图识.passed)")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "evaldsl", "lsp"],
    server_env={"EVALDSL_LANG": "en", "PYTHONDONTWRITEBYTECODE": "1"}))
async def client(lsp_client: LanguageClient) -> AsyncIterator[Any]:
    """One session for the module's tests, as an editor keeps one: each test opens its
    document afresh, and the server answers each open or change with one diagnostics
    notification, which the test waits for, so nothing of one test is left for the next."""
    await lsp_client.initialize_session(t.InitializeParams(capabilities=t.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def _pos(text: str, needle: str, into: int = 0, nth: int = 0) -> t.Position:
    p = at(text, needle, into, nth)
    return t.Position(p.line, p.character)


async def _open(client: LanguageClient, text: str) -> list[t.Diagnostic]:
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        t.TextDocumentItem(URI, "evaldsl", 1, text)))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[URI])


def _apply(text: str, edits: list[t.TextEdit]) -> str:
    from evaldsl.service.positions import LineIndex, Position

    index = LineIndex(text)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        start = index.offset(Position(e.range.start.line, e.range.start.character))
        end = index.offset(Position(e.range.end.line, e.range.end.character))
        text = text[:start] + e.new_text + text[end:]
    return text


@pytest.mark.asyncio(loop_scope="module")
async def test_open_then_edit_publishes_each_versions_diagnostics(client: LanguageClient) -> None:
    """A misspelt check is an error with its code and hint; fixing it by an incremental
    edit clears it."""
    found = await _open(client, MISSPELT)
    assert [(d.code, d.severity, d.message) for d in found] == [
        ("E101", t.DiagnosticSeverity.Error,
         "unknown name `意图识`\na check with a similar name exists: `意图识别`")]
    assert found[0].range.start == _pos(MISSPELT, "意图识.")
    end = _pos(MISSPELT, "意图识.", 3)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(version=2, uri=URI),
        [t.TextDocumentContentChangePartial(t.Range(end, end), "别")]))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[URI]) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_on_text_that_does_not_parse(client: LanguageClient) -> None:
    """Typing `case.` mid-statement offers the case fields."""
    await _open(client, ZH_SPEC)
    end = t.Position(ZH_SPEC.count("\n"), 0)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(version=2, uri=URI),
        [t.TextDocumentContentChangePartial(t.Range(end, end), "metric 新 = rate(case.")]))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    result = await client.text_document_completion_async(t.CompletionParams(
        t.TextDocumentIdentifier(URI), t.Position(end.line, len("metric 新 = rate(case."))))
    assert isinstance(result, t.CompletionList)
    assert [(i.label, i.kind) for i in result.items] == [
        ("意图", t.CompletionItemKind.Field), ("回复要点", t.CompletionItemKind.Field)]


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_a_parameters_doc(client: LanguageClient) -> None:
    await _open(client, ZH_SPEC)
    found = await client.text_document_hover_async(t.HoverParams(
        t.TextDocumentIdentifier(URI), _pos(ZH_SPEC, "scale:", 1)))
    assert found is not None and isinstance(found.contents, t.MarkupContent)
    assert found.contents.value.startswith("parameter of `judge`\n\n`scale: int = 10`")


@pytest.mark.asyncio(loop_scope="module")
async def test_rename_edits_every_use(client: LanguageClient) -> None:
    await _open(client, ZH_SPEC)
    edit = await client.text_document_rename_async(t.RenameParams(
        t.TextDocumentIdentifier(URI), _pos(ZH_SPEC, "门槛"), "阈值"))
    assert edit is not None and edit.changes is not None
    assert _apply(ZH_SPEC, list(edit.changes[URI])) == ZH_SPEC.replace("门槛", "阈值")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_refused_rename_is_an_error_response(client: LanguageClient) -> None:
    await _open(client, ZH_SPEC)
    with pytest.raises(Exception, match="`礼貌` exists already"):
        await client.text_document_rename_async(t.RenameParams(
            t.TextDocumentIdentifier(URI), _pos(ZH_SPEC, "门槛"), "礼貌"))


@pytest.mark.asyncio(loop_scope="module")
async def test_quick_fix_from_the_suggestion(client: LanguageClient) -> None:
    found = await _open(client, MISSPELT)
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        t.TextDocumentIdentifier(URI), found[0].range, t.CodeActionContext(found)))
    assert actions is not None
    [action] = actions
    assert isinstance(action, t.CodeAction) and action.title == "replace with `意图识别`"
    assert action.edit is not None and action.edit.changes is not None
    assert _apply(MISSPELT, list(action.edit.changes[URI])) == ZH_SPEC


@pytest.mark.asyncio(loop_scope="module")
async def test_formatting_and_inlay_hints(client: LanguageClient) -> None:
    text = ZH_SPEC.replace("let 门槛 = 7", "let   门槛=7")
    await _open(client, text)
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        t.TextDocumentIdentifier(URI), t.FormattingOptions(2, True)))
    assert edits is not None and _apply(text, list(edits)) == ZH_SPEC
    hints = await client.text_document_inlay_hint_async(t.InlayHintParams(
        t.TextDocumentIdentifier(URI), t.Range(t.Position(0, 0), t.Position(100, 0))))
    assert hints is not None
    assert [h.label for h in hints] == [
        "  1 model call per case", "  at most 1 model call per case", "  no model call"]


def _message(body: str) -> bytes:
    data = body.encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def test_the_server_exits_cleanly_when_told_to() -> None:
    """initialize, shutdown, exit: status 0 and nothing on stderr (pygls closes stdout,
    which the command line must not then flush)."""
    import subprocess

    messages = b"".join(_message(m) for m in (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}',
        '{"jsonrpc":"2.0","method":"initialized","params":{}}',
        '{"jsonrpc":"2.0","id":2,"method":"shutdown"}',
        '{"jsonrpc":"2.0","method":"exit"}'))
    done = subprocess.run([sys.executable, "-m", "evaldsl", "lsp"], input=messages,
                          capture_output=True, timeout=60)
    assert (done.returncode, done.stderr.decode()) == (0, "")
    assert b'"inlayHintProvider"' in done.stdout
