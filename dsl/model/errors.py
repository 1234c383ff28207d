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
