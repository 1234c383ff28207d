"""The agent's own secrets cut out of what it says, before anything records it.

The header or key a target is sent is the user's. An agent, or a gateway in front of it,
that repeats it in a reply must not write it into the transcripts file, the report's
dialogs, the journal or the terminal, so the driver masks it in every message the agent
adds. Only the configured values are cut (each value, and the token after a scheme word
such as `Bearer`): unlike the judges' redactor (`evaldsl.model.redact`) nothing merely
key-shaped is, because a reply that leaks some other key is what the `safety` check is
there to see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from evaldsl.model.redact import MASK, NOT_SECRET

SHORTEST = 6
"""Shorter values are not cut: masking every `abc` in a dialog would garble it, and no real
secret is that short."""


def secret_values(values: Iterable[str]) -> tuple[str, ...]:
    """The texts to cut for the configured secret values, longest first.

    >>> secret_values(["Bearer tok-123456", "not-needed", ""])
    ('Bearer tok-123456', 'tok-123456')
    """
    found: set[str] = set()
    for value in values:
        if not value or value in NOT_SECRET:
            continue
        found.add(value)
        token = value.split()[-1]
        if token != value:
            found.add(token)
    return tuple(sorted((v for v in found if len(v) >= SHORTEST), key=len, reverse=True))


def masked(messages: Sequence[dict[str, Any]], secrets: Sequence[str]) -> list[dict[str, Any]]:
    """The messages with every secret replaced by `***`, in texts and tool-call arguments."""
    if not secrets:
        return [dict(m) for m in messages]
    return [_masked(m, secrets) for m in messages]


def _masked(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    return value
