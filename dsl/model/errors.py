"""Why a model call failed, as exceptions inside the model layer.

They never reach the interpreter: the runtime turns the last one into the
check's error value. The split that matters is whether trying again can help.

    ModelError                 (evaldsl.errors.EvaldslError)
     +-- TransientError        worth a retry: 429, 5xx, timeouts, lost connections
     |    +-- RateLimited      429; `retry_after` when the server said
     +-- PermanentError        a retry would fail the same way (401, 404, bad request)
     +-- MalformedAnswer       the answer does not parse or fit the schema; keeps `raw`

Messages never contain a key or an endpoint URL: they end up in traces.
"""

from __future__ import annotations

from evaldsl.errors import EvaldslError


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


class PermanentError(ModelError):
    """A failure that a retry would repeat (authentication, unknown model, bad request)."""


class MalformedAnswer(ModelError):
    """The model answered, but not with JSON that fits the schema."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


RAW_LIMIT = 2000
"""How much of a malformed answer a trace keeps."""


def excerpt(raw: str, limit: int = RAW_LIMIT) -> str:
    """`raw` cut to `limit` characters, marked when cut."""
    return raw if len(raw) <= limit else raw[:limit] + f"... ({len(raw) - limit} more characters)"
