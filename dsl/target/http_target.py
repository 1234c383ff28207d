"""The `http` target: a plain HTTP JSON endpoint, one request per user turn.

The request body is the configured `request` template (a JSON value) with placeholders
filled in: a string that is exactly `"{history}"` becomes the conversation so far (a list
of chat messages), and `{message}`, `{session}` and `{case_id}` are substituted inside any
string. The reply text is read at `reply_path` and the tool calls the agent made, when it
reports them, at `tool_calls_path` (dotted paths; a number indexes a list). Header values
come from environment variables (`headers_env`) and are cut out of anything the server says
before it can reach a result.

The client is aiohttp's: it is installed with evaldsl already (the `openai[aiohttp]`
dependency, the judges' transport), and one `ClientSession` per event loop keeps
connections open across turns and conversations.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import aiohttp

from evaldsl.i18n import _
from evaldsl.model.errors import Misconfigured, ModelError, PermanentError, TransientError
from evaldsl.model.loops import PerLoop
from evaldsl.model.redact import Redactor
from evaldsl.target.base import Conversation, Message
from evaldsl.target.config import TargetConfig
from evaldsl.target.paths import PathMissing, at_path

DETAIL_LIMIT = 200
"""How much of an error answer's body a reason quotes."""
MAX_REPLY_BYTES = 16 * 1024 * 1024
"""The default of `max_reply_bytes`: an answer longer than this is that turn's failure."""
DETAIL_BYTES = 64 * 1024
"""How much of an error answer is read: its reason quotes only the start."""
_CHUNK = 64 * 1024
PLACEHOLDER = re.compile(r"\{(message|session|case_id)\}")


class HttpTarget:
    """An agent behind an HTTP JSON endpoint."""

    def __init__(self, config: TargetConfig, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.config = config
        self.url = str(config.get("url"))
        self.method = str(config.get("method", "POST")).upper()
        self.template = config.get("request", {"message": "{message}", "session": "{session}",
                                               "history": "{history}"})
        self.headers = {name: env.get(var, "") for name, var in
                        (config.get("headers_env") or {}).items()}
        self.max_bytes = int(config.get("max_reply_bytes", MAX_REPLY_BYTES))
        self.redactor = Redactor(self.headers.values())
        self.secrets = tuple(self.headers.values())
        """What the driver cuts out of the agent's messages (`evaldsl.target.secrets`)."""
        self._sessions: PerLoop[aiohttp.ClientSession] = PerLoop(self._session, _close)

    def _session(self) -> aiohttp.ClientSession:
        timeout = aiohttp.ClientTimeout(total=self.config.timeout)
        return aiohttp.ClientSession(timeout=timeout, headers=self.headers)

    async def respond(self, conversation: Conversation) -> Sequence[Message]:
        session = await self._sessions.get()
        body = fill(self.template, conversation)
        try:
            async with session.request(self.method, self.url, json=body) as response:
                status = response.status
                raw = await (capped(response, self.max_bytes) if status < 400
                             else response.content.read(DETAIL_BYTES))
                text = decoded(raw, response.charset)
        except TimeoutError as exc:
            raise TransientError(_("the agent did not answer within {timeout:g} s").format(
                timeout=self.config.timeout)) from exc
        except aiohttp.ClientError as exc:
            raise TransientError(_("the connection to the agent failed: {kind}").format(
                kind=type(exc).__name__)) from exc
        return [self._reply(status, text)]

    def _reply(self, status: int, text: str) -> Message:
        """The assistant message of an answer, or the model error it amounts to."""
        if status >= 400:
            detail = self.redactor.text(text)[:DETAIL_LIMIT]
            raise refusal(status)(_("the agent answered HTTP {status}: {detail}").format(
                status=status, detail=detail))
        try:
            data = json.loads(text)
            reply = at_path(data, str(self.config.get("reply_path")))
            calls = self._calls(data)
        except (ValueError, PathMissing) as exc:
            raise PermanentError(_("the agent's answer is malformed: {reason}").format(
                reason=self.redactor.text(str(exc))[:DETAIL_LIMIT])) from exc
        if not isinstance(reply, str):
            raise PermanentError(_("the agent's answer is malformed: the reply at `{path}` is "
                                   "not text").format(path=self.config.get("reply_path")))
        message: Message = {"role": "assistant", "content": reply}
        if calls:
            message["tool_calls"] = calls
        return message

    def _calls(self, data: Any) -> list[dict[str, Any]]:
        path = self.config.get("tool_calls_path")
        if path is None:
            return []
        try:
            calls = at_path(data, str(path))
        except PathMissing:
            return []
        if not isinstance(calls, list):
            raise PathMissing(_("the tool calls at `{path}` are not a list").format(path=path))
        return [as_openai_call(call, i) for i, call in enumerate(calls)]

    async def aclose(self) -> None:
        await self._sessions.close_current()


async def capped(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """The answer's body, read in chunks, never more than `limit` bytes of it held: a longer
    one is a `PermanentError`, and the connection is closed with the rest unread."""
    length = response.content_length
    if length is not None and length > limit and not response.headers.get("Content-Encoding"):
        raise _too_long(limit)
    body = bytearray()
    async for chunk in response.content.iter_chunked(_CHUNK):
        body += chunk
        if len(body) > limit:
            raise _too_long(limit)
    return bytes(body)


def _too_long(limit: int) -> PermanentError:
    return PermanentError(_("the agent's answer is larger than {limit} bytes "
                            "(`max_reply_bytes`)").format(limit=f"{limit:,}"))


def decoded(raw: bytes, declared: str | None) -> str:
    """An answer's text: its bytes decoded by the charset its `Content-Type` declares, else
    (none declared, an unknown one, or bytes it does not decode) as UTF-8; a byte-order mark
    is dropped. Bytes neither decodes are a `PermanentError` naming the first bad byte: that
    conversation fails, and the run goes on.

    >>> decoded("空调".encode("gbk"), "GBK"), decoded(b"\\xef\\xbb\\xbf{}", "utf-8")
    ('空调', '{}')
    """
    problem: UnicodeDecodeError | None = None
    for encoding in (declared, "utf-8"):
        if not encoding:
            continue
        try:
            return raw.decode(encoding).removeprefix("\ufeff")
        except LookupError:
            continue
        except UnicodeDecodeError as exc:
            problem = problem or exc
    assert problem is not None, "UTF-8 is always tried"
    where = {"byte": f"0x{raw[problem.start]:02x}", "offset": problem.start}
    if declared and declared.lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise PermanentError(_("the agent's answer decodes neither as its declared charset "
                               "`{charset}` nor as UTF-8 (byte {byte} at offset {offset})"
                               ).format(charset=declared, **where))
    raise PermanentError(_("the agent's answer does not decode as UTF-8 (byte {byte} at offset "
                           "{offset}) and declares no other charset").format(**where))


def refusal(status: int) -> type[ModelError]:
    """The model error an HTTP error status is: worth a retry, a refusal of this turn, or a
    refusal of the settings (a rejected header), which no conversation gets past and which
    stops the run, as a judge's refused key does."""
    if status >= 500 or status in (408, 429):
        return TransientError
    return Misconfigured if status in (401, 403) else PermanentError


def as_openai_call(call: Any, index: int) -> dict[str, Any]:
    """A call the agent reported (`{name, arguments}`, or already in the chat format)."""
    if not isinstance(call, Mapping):
        raise PathMissing(_("tool call {index} is not an object").format(index=index))
    function = call.get("function", call)
    arguments = function.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": str(call.get("id") or f"call_{index}"), "type": "function",
            "function": {"name": str(function.get("name", "")), "arguments": arguments}}


def fill(template: Any, conversation: Conversation) -> Any:
    """The request body for a turn: `template` with its placeholders filled in.

    >>> c = Conversation("c1", "s-9", [{"role": "user", "content": "hi"}])
    >>> fill({"q": "{message}", "who": "{case_id}/{session}", "h": "{history}"}, c)
    {'q': 'hi', 'who': 'c1/s-9', 'h': [{'role': 'user', 'content': 'hi'}]}

    Placeholders are replaced in one pass: a user's message that spells `{session}` is sent
    as written.
    """
    if isinstance(template, str):
        if template == "{history}":
            return conversation.history
        values = {"message": conversation.message, "session": conversation.session,
                  "case_id": conversation.case_id}
        return PLACEHOLDER.sub(lambda found: values[found.group(1)], template)
    if isinstance(template, Mapping):
        return {key: fill(value, conversation) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, conversation) for value in template]
    return template


async def _close(session: aiohttp.ClientSession) -> None:
    await session.close()
    await asyncio.sleep(0)
