"""The `http` target: a plain HTTP JSON endpoint, one request per user turn.

The request body is the configured `request` template (a JSON value) with placeholders
filled in: a string that is exactly `"{history}"` becomes the conversation so far (a list
of chat messages), and `{message}`, `{session}` and `{case_id}` are substituted inside any
string. The reply text is read at `reply_path` and the tool calls the agent made, when it
reports them, at `tool_calls_path` (dotted paths; a number indexes a list). Header values
come from environment variables (`headers_env`) and are cut out of anything the server says
before it can reach a result, and they are sent to the configured origin only: redirects
are followed here, not by the client, and one to another host is refused unless
`redirect_hosts` allows it, which is then asked without them. An answer is read in chunks
under `max_reply_bytes` and decoded by its declared charset, then as UTF-8.

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
from urllib.parse import urljoin, urlsplit

import aiohttp

from evaldsl.agents.base import Conversation, Message
from evaldsl.agents.config import TargetConfig
from evaldsl.agents.paths import at_path
from evaldsl.errors import PathMissing
from evaldsl.i18n import _
from evaldsl.model.errors import Misconfigured, ModelError, PermanentError, TransientError
from evaldsl.model.keys import host_of
from evaldsl.model.loops import PerLoop
from evaldsl.model.redact import Redactor

DETAIL_LIMIT = 200
"""How much of an error answer's body a reason quotes."""
MAX_REPLY_BYTES = 16 * 1024 * 1024
"""The default of `max_reply_bytes`: an answer longer than this is that turn's failure."""
DETAIL_BYTES = 64 * 1024
"""How much of an error answer is read: its reason quotes only the start."""
_CHUNK = 64 * 1024
MAX_REDIRECTS = 10
REDIRECTS = frozenset({301, 302, 303, 307, 308})
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
        self.origin = origin(self.url)
        """Where the headers may go: the configured URL's scheme and `host:port`."""
        self.redirect_hosts = frozenset(str(h).lower() for h in config.get("redirect_hosts", ()))
        """Other hosts (`host`, any port; or `host:port`) a redirect may lead to, asked
        without the headers."""
        self.redactor = Redactor(self.headers.values())
        self.secrets = tuple(self.headers.values())
        """What the driver cuts out of the agent's messages (`evaldsl.agents.secrets`)."""
        self._sessions: PerLoop[aiohttp.ClientSession] = PerLoop(self._session, _close)

    def _session(self) -> aiohttp.ClientSession:
        timeout = aiohttp.ClientTimeout(total=self.config.timeout)
        return aiohttp.ClientSession(timeout=timeout)

    async def respond(self, conversation: Conversation) -> Sequence[Message]:
        session = await self._sessions.get()
        body = fill(self.template, conversation)
        try:
            status, text = await self._exchange(session, body)
        except TimeoutError as exc:
            raise TransientError(_("the agent did not answer within {timeout:g} s").format(
                timeout=self.config.timeout)) from exc
        except aiohttp.ClientError as exc:
            raise TransientError(_("the connection to the agent failed: {kind}").format(
                kind=type(exc).__name__)) from exc
        return [self._reply(status, text)]

    async def _exchange(self, session: aiohttp.ClientSession, body: Any) -> tuple[int, str]:
        """The final answer's status and text. Redirects are followed by hand: the target's
        headers go only to its own origin (scheme, host and port), and a redirect to any
        other is refused unless `redirect_hosts` allows its host, which is then asked
        without them."""
        url, method, payload = self.url, self.method, body
        for _hop in range(MAX_REDIRECTS + 1):
            headers = self.headers if origin(url) == self.origin else {}
            async with session.request(method, url, json=payload, headers=headers,
                                       allow_redirects=False) as response:
                status = response.status
                location = response.headers.get("Location")
                if status in REDIRECTS and location:
                    url = self._redirect(url, location)
                    if status == 303 or (status in (301, 302) and method == "POST"):
                        method, payload = "GET", None
                    continue
                raw = await (capped(response, self.max_bytes) if status < 400
                             else response.content.read(DETAIL_BYTES))
                return status, decoded(raw, response.charset)
        raise PermanentError(_("the agent redirected more than {count} times").format(
            count=MAX_REDIRECTS))

    def _redirect(self, url: str, location: str) -> str:
        """Where a redirect leads, if it may be followed; else the `PermanentError` saying
        why not."""
        try:
            target = urljoin(url, location)
            scheme = urlsplit(target).scheme.lower()
        except ValueError as exc:
            raise PermanentError(_("the agent redirected to a malformed address")) from exc
        if origin(target) == self.origin:
            return target
        host = host_of(target)
        allowed = scheme in ("http", "https") and (
            host in self.redirect_hosts or host.rpartition(":")[0] in self.redirect_hosts)
        if not allowed:
            raise PermanentError(_("the agent redirected to {host}, another host than {own}: "
                                   "not followed (allow the host in `redirect_hosts`)").format(
                host=host, own=self.origin[1]))
        return target

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


def origin(url: str) -> tuple[str, str]:
    """A URL's scheme and `host:port`: two URLs share headers only when these are equal.

    >>> origin("http://127.0.0.1:8000/a") == origin("HTTP://127.0.0.1:8001/b")
    False
    >>> origin("http://Agent.example/a") == origin("http://agent.example:80/b")
    True
    """
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        scheme = ""
    return scheme, host_of(url)


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
