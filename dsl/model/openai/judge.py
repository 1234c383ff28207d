"""The default judge: any OpenAI-compatible chat endpoint, through the `openai` client.

Structured answers use the standard `response_format` `json_schema` where
the server supports it. Some servers do not: llama.cpp's Python server
answers it with HTTP 500 but accepts `{"type": "json_object", "schema": ...}`,
others only plain `json_object`. The first request that is refused walks
down that list once, and the first form that works is remembered for the
judge's lifetime. The prompt always shows the answer's shape too, so even
free text can be parsed and checked against the schema. Retries are the
runtime's business: the client's own are off (`max_retries=0`) so every
attempt is counted. Requests are sent from the evaluating process; when its
core is not enough, `evaldsl run --workers N` gives each worker its own judge.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import importlib.util
import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import openai

from evaldsl.errors import ConfigError
from evaldsl.i18n import N_, _
from evaldsl.model.context_window import estimate_tokens, from_server, is_context_refusal
from evaldsl.model.endpoint import Endpoint, endpoint_identity
from evaldsl.model.errors import (
    ContextExceeded,
    MalformedAnswer,
    Misconfigured,
    ModelError,
    PermanentError,
    RateLimited,
    TransientError,
    Unparsed,
    Unreachable,
)
from evaldsl.model.loops import PerLoop
from evaldsl.model.protocols import JudgeAnswer, JudgeRequest
from evaldsl.model.redact import Redactor
from evaldsl.model.structured import parse_object

FORMATS = ("json_schema", "json_object_schema", "json_object", "none")
"""Ways to ask for structured output, most to least strict."""
DOWNGRADE_STATUSES = frozenset({400, 404, 415, 422, 500, 501})
MISCONFIGURED_STATUSES = frozenset({401, 403, 404})
"""Refusals of the settings, not of one case: a bad key, no access, an unknown model."""
PATH = "/chat/completions"
"""Sent with the client's `post` as JSON bytes and read as text: the typed `create`
wrapper's parameter transform and response models, and `post`'s own copy and encoding of
a `body` dict, cost more CPU per call (2.9 ms, then 0.9 ms, against 0.7 ms measured) than
a judge at 32 requests in flight can afford; the client's endpoint, auth, timeouts and
errors are the same (and its default headers already say `application/json`)."""


class OpenAIJudge:
    """A `Judge` over the official `openai` client (async, and sync via `complete_sync`)."""

    def __init__(self, endpoint: Endpoint, base_url: Callable[[], str | None] | None = None,
                 identity: str | None = None, prepare: Callable[[], object] | None = None
                 ) -> None:
        """`base_url` (default: the endpoint's) is asked when a client is made; `prepare`
        runs once, in a worker thread, before the first request (starting a local server)."""
        self.endpoint = endpoint
        self.model = endpoint.model
        self.cache_identity = identity or endpoint_identity(endpoint)
        """What the cache keys answers by: provider, model and endpoint URL (hashed)."""
        self.shown_identity = identity or endpoint_identity(endpoint, shown=True)
        """The judge as `run` names the source of cached answers: the URL's host and port
        only."""
        self.context_tokens = endpoint.context
        """The context window, when known: the runtime checks a prompt against it first."""
        self._base_url = base_url or (lambda: endpoint.base_url)
        self._format = 0
        self._confirmed = False
        self._strikes = 0
        self._lock = threading.Lock()
        self._clients: PerLoop[openai.AsyncOpenAI] = PerLoop(self._async_client, _aclose)
        self._sync: openai.OpenAI | None = None
        self._prepare = prepare
        self._variants: dict[str, OpenAIJudge] = {}

    @property
    def response_format(self) -> str:
        """The structured-output form this judge currently uses."""
        return FORMATS[self._format]

    def _options(self) -> dict[str, Any]:
        return {"base_url": self._base_url(), "api_key": self.endpoint.api_key,
                "timeout": self.endpoint.timeout, "max_retries": 0}

    def _async_client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(**self._options(), http_client=async_http_client())
        except openai.OpenAIError as exc:
            raise ConfigError(no_client_message()) from exc

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        """One chat completion; `TransientError`, `PermanentError` on failure."""
        await self.ready()
        client = await self._clients.get()
        form: int | None = self._format
        while form is not None:
            try:
                reply = await client.post(PATH, content=encode(self.arguments(request, form)),
                                          cast_to=str)
            except openai.OpenAIError as exc:
                form = self._next_form(exc, form, request)
                continue
            self._settle(form)
            return answer_of(reply)
        raise AssertionError("unreachable")

    async def ready(self) -> None:
        """Finish what a first request would otherwise wait for (starting a local server),
        so that the runtime's limits apply to requests the server sees."""
        if self._prepare is not None:
            await asyncio.to_thread(self._prepared)

    def _prepared(self) -> None:
        with self._lock:
            if self._prepare is not None:
                self._prepare()
                self._prepare = None

    def with_model(self, model: str) -> OpenAIJudge:
        """The same endpoint with another model (a check's `model:` override)."""
        with self._lock:
            if model not in self._variants:
                self._variants[model] = OpenAIJudge(
                    replace(self.endpoint, model=model), self._base_url,
                    f"{self.endpoint.provider}:{model}", self._prepare)
            return self._variants[model]

    def complete_sync(self, request: JudgeRequest) -> JudgeAnswer:
        """`complete` for callers without an event loop (the sync `openai` client)."""
        if self._prepare is not None:
            self._prepared()
        with self._lock:
            if self._sync is None:
                try:
                    self._sync = openai.OpenAI(**self._options())
                except openai.OpenAIError as exc:
                    raise ConfigError(no_client_message()) from exc
        form: int | None = self._format
        while form is not None:
            try:
                reply = self._sync.post(PATH, content=encode(self.arguments(request, form)),
                                        cast_to=str)
            except openai.OpenAIError as exc:
                form = self._next_form(exc, form, request)
                continue
            self._settle(form)
            return answer_of(reply)
        raise AssertionError("unreachable")

    def arguments(self, request: JudgeRequest, form: int) -> dict[str, Any]:
        """The JSON body of the chat completion request for `request`."""
        args: dict[str, Any] = {"model": self.model, "messages": list(request.messages),
                                "temperature": request.temperature}
        if request.max_tokens is not None:
            args["max_tokens"] = request.max_tokens
        if request.seed is not None:
            args["seed"] = request.seed
        if request.schema is not None and FORMATS[form] != "none":
            args["response_format"] = _response_format(request, FORMATS[form])
        return args

    def _next_form(self, exc: openai.OpenAIError, form: int, request: JudgeRequest) -> int:
        """The form to try after `exc`; `exc`, translated, when there is none left. A
        refusal of a prompt beyond the context window is neither a format the server does
        not take nor worth a retry: it is `ContextExceeded`, with the server's counts."""
        refused = context_refusal(exc, request)
        if refused is not None:
            raise refused from exc
        following = self._fallback(status_of(exc), form, request)
        if following is None:
            raise translate(exc, N_("judge"), self.endpoint.timeout,
                            self.endpoint.api_key, self._base_url()) from exc
        return following

    def _fallback(self, status: int | None, form: int, request: JudgeRequest) -> int | None:
        """The form to try next when the server refused `form` with `status`, or None.

        Until one form has worked, a clear rejection (400, 404, 415, 422) moves
        on at once; a server error must repeat before it counts as a rejection,
        so one transient 500 does not cost the strict form.
        """
        if self._confirmed or request.schema is None or status not in DOWNGRADE_STATUSES:
            return None
        with self._lock:
            self._strikes += 1
            if status >= 500 and self._strikes < 2:
                return None
        last = len(FORMATS) - 1 if status < 500 else len(FORMATS) - 2
        return form + 1 if form < last else None

    def _settle(self, form: int) -> None:
        with self._lock:
            self._format = form
            self._confirmed = True

    def close(self) -> None:
        """Close the sync client (async clients close with their event loop)."""
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        for variant in self._variants.values():
            variant.close()

    async def aclose(self) -> None:
        """Close the running loop's client now."""
        await self._clients.close_current()
        for variant in self._variants.values():
            await variant.aclose()


def context_refusal(exc: openai.OpenAIError, request: JudgeRequest) -> ContextExceeded | None:
    """`exc` read as a refusal of a prompt beyond the server's context window, or None."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 413, 422):
        return None
    message = _detail(exc)
    if not is_context_refusal(getattr(exc, "code", None), message):
        return None
    return from_server(message, estimate_tokens(request.messages), request.max_tokens or 0)


def _response_format(request: JudgeRequest, form: str) -> dict[str, Any]:
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {
            "name": request.schema_name, "schema": request.schema, "strict": True}}
    if form == "json_object_schema":
        return {"type": "json_object", "schema": request.schema}
    return {"type": "json_object"}


def encode(body: dict[str, Any]) -> bytes:
    """A request body as the UTF-8 JSON that is sent."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def answer_of(body: str) -> JudgeAnswer:
    """A `JudgeAnswer` from a chat completion's JSON text; a cut-off answer is malformed."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise MalformedAnswer("the server's reply is not a chat completion", body) from exc
    try:
        parsed = parse_object(text) if choice.get("finish_reason") != "length" else None
    except Unparsed:
        parsed = None
    usage = data.get("usage") or {}
    return JudgeAnswer(text, parsed, str(data.get("model") or ""),
                       int(usage.get("prompt_tokens") or 0),
                       int(usage.get("completion_tokens") or 0),
                       truncated=choice.get("finish_reason") == "length")


def _never_connected(exc: Exception) -> bool:
    """Whether a timeout is really a failed connect (the aiohttp transport reports a refused
    connection as a connect timeout)."""
    return type(exc.__cause__).__name__ in ("ConnectTimeout", "ConnectError")


def status_of(exc: Exception) -> int | None:
    """The HTTP status an `openai` exception carries, if the server answered at all."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def translate(exc: Exception, what: str, timeout: float, key: str | None = None,
              url: str | None = None) -> ModelError:
    """An `openai` exception as a model error whose message names no key (`key`, and
    anything shaped like one, is cut out of what the server said) and of the server's `url`
    only its host and port. `what` is an `N_` word, translated here."""
    what = _(what)
    if isinstance(exc, openai.APITimeoutError) and not _never_connected(exc):
        return TransientError(_("the {what} did not answer within {timeout:g} s").format(
            what=what, timeout=timeout))
    if isinstance(exc, openai.APIConnectionError):
        address = host_and_port(url)
        if address is None:
            return Unreachable(_("cannot connect to the {what} server").format(what=what))
        return Unreachable(_("cannot connect to the {what} server at {address}").format(
            what=what, address=address))
    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, what, key)
    return PermanentError(_("the {what} call failed: {kind}").format(
        what=what, kind=type(exc).__name__))


def _status_error(exc: openai.APIStatusError, what: str, key: str | None) -> ModelError:
    """The model error for an HTTP error status, by whether a retry or the settings help."""
    status = exc.status_code
    detail = Redactor([key]).text(_detail(exc))
    if status == 429:
        return RateLimited(_("the {what} server is rate limiting (HTTP 429){detail}").format(
            what=what, detail=detail), _retry_after(exc))
    if status in (408, 409) or status >= 500:
        return TransientError(_("the {what} server failed (HTTP {status}){detail}").format(
            what=what, status=status, detail=detail))
    refused = Misconfigured if status in MISCONFIGURED_STATUSES else PermanentError
    return refused(_("the {what} server refused the request (HTTP {status}){detail}").format(
        what=what, status=status, detail=detail))


def host_and_port(url: str | None) -> str | None:
    """`host:port` of a server's URL: where it is, without the path, query or credentials a
    gateway's URL may carry a token in. None when the URL is not given or not readable."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if host is None:
        return None
    return f"{host}:{port}" if port is not None else host


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        message = body["error"].get("message")
    return f": {str(message)[:200]}" if message else ""


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        return float(exc.response.headers.get("retry-after", ""))
    except ValueError:
        return None


@functools.lru_cache(maxsize=1)
def ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: building one costs ~70 ms, and a synchronous
    `evaluate` makes a new client per event loop."""
    transport: Any
    try:
        transport = importlib.import_module("httpx2")
    except ImportError:
        transport = importlib.import_module("httpx")
    make = getattr(transport, "create_ssl_context", None)
    return make() if make is not None else ssl.create_default_context()


def async_http_client() -> Any:
    """The `openai` client's HTTP client: its aiohttp transport when installed.

    The openai package recommends aiohttp for concurrency; here it halves the client
    CPU per request, which is what bounds a run at high concurrency. Without the
    `openai[aiohttp]` extra the default httpx client is used. Both share `ssl_context()`.
    """
    if importlib.util.find_spec("aiohttp") is not None:
        return openai.DefaultAioHttpClient(verify=ssl_context())
    return openai.DefaultAsyncHttpxClient(verify=ssl_context())


def no_client_message() -> str:
    """What to set when the `openai` client finds no key: the usual first stumble."""
    return _(
        "no judge is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another "
        "OpenAI-compatible server), or use the local judge (`judge = \"local\"` in "
        "evaldsl.toml or EVALDSL_JUDGE=local)"
    )


async def _aclose(client: openai.AsyncOpenAI) -> None:
    await client.close()
