"""`evaldsl lsp` on a document with a syntax error, over a real stdio session: every
statement that parses still answers hover, completion, definition and rename."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed")

from lsprotocol import types as t  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from tests.cli.test_lsp import _apply, _pos  # noqa: E402
from tests.support.service_kit import ZH_SPEC  # noqa: E402

URI = "file:///tmp/半成品.eval"
BROKEN = ZH_SPEC.replace(
    "let 门槛 = 7\n",
    "let 门槛 = 7\n\ncheck 半截 = judge(criteria: \"完整\", scale:\n\nlet 新门槛 = 门槛 + 1\n")
"""A statement half typed in the middle; everything before and after it is whole."""


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


async def _open_broken(client: LanguageClient) -> list[t.Diagnostic]:
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        t.TextDocumentItem(URI, "evaldsl", 1, BROKEN)))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[URI])


@pytest.mark.asyncio(loop_scope="module")
async def test_the_syntax_error_is_still_reported(client: LanguageClient) -> None:
    found = await _open_broken(client)
    assert [d.code for d in found] == ["E011"]
    assert found[0].range.start.line == BROKEN[: BROKEN.index("let 新门槛")].count("\n")


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_statements_before_and_after_the_error(client: LanguageClient) -> None:
    await _open_broken(client)
    doc = t.TextDocumentIdentifier(URI)
    check = await client.text_document_hover_async(
        t.HoverParams(doc, _pos(BROKEN, "礼貌.value", 1)))
    assert check is not None and isinstance(check.contents, t.MarkupContent)
    assert check.contents.value.startswith("```evaldsl\ncheck 礼貌 = judge(")
    let = await client.text_document_hover_async(t.HoverParams(doc, _pos(BROKEN, "新门槛", 1)))
    assert let is not None and isinstance(let.contents, t.MarkupContent)
    assert let.contents.value.endswith("type: number")
    parameter = await client.text_document_hover_async(
        t.HoverParams(doc, _pos(BROKEN, "scale:", 1, 1)))
    assert parameter is not None and isinstance(parameter.contents, t.MarkupContent)
    assert parameter.contents.value.startswith("parameter of `judge`")


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_across_the_error(client: LanguageClient) -> None:
    await _open_broken(client)
    found = await client.text_document_definition_async(t.DefinitionParams(
        t.TextDocumentIdentifier(URI), _pos(BROKEN, "门槛 + 1", 1)))
    assert isinstance(found, list) and [d.range.start for d in found] == [_pos(BROKEN, "门槛")]


@pytest.mark.asyncio(loop_scope="module")
async def test_rename_edits_every_use_in_the_statements_that_parse(
        client: LanguageClient) -> None:
    await _open_broken(client)
    edit = await client.text_document_rename_async(t.RenameParams(
        t.TextDocumentIdentifier(URI), _pos(BROKEN, "门槛"), "阈值"))
    assert edit is not None and edit.changes is not None
    assert _apply(BROKEN, list(edit.changes[URI])) == (
        BROKEN.replace("门槛", "阈值").replace("新阈值", "新门槛"))


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_a_name_defined_after_the_error(client: LanguageClient) -> None:
    """`新门槛` was never in a version that parsed; it is offered all the same."""
    await _open_broken(client)
    end = t.Position(BROKEN.count("\n"), 0)
    typed = "metric 高 = rate(礼貌.value >= "
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(version=2, uri=URI),
        [t.TextDocumentContentChangePartial(t.Range(end, end), typed)]))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    result = await client.text_document_completion_async(t.CompletionParams(
        t.TextDocumentIdentifier(URI), t.Position(end.line, len(typed))))
    assert isinstance(result, t.CompletionList)
    assert "新门槛" in [i.label for i in result.items]
