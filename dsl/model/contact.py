"""Whether a server has answered yet: what tells a misconfiguration from a passing failure.

A connection refused before any request to a server succeeded means no server
runs where the settings point, and no case will fare better, so it stops the
run as a `Misconfigured`. The same refusal after the server has answered is a
server that went away for a moment: a `TransientError`, retried, and at worst
one case's error. Only requests that reached a server are counted: one that
never left (no connection) costs nothing and is not a model call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from evaldsl.model.errors import Misconfigured, ModelError, Unreachable

T = TypeVar("T")


class Contact:
    """One server's first-contact state, shared by every request to it."""

    def __init__(self) -> None:
        self.reached = False
        """Whether any request has had an answer from the server (even an error status)."""

    async def send(self, call: Callable[[], Awaitable[T]], sent: Callable[[], None]) -> T:
        """`call()`, with `sent()` run once if the request reached the server."""
        try:
            result = await call()
        except Unreachable as exc:
            if self.reached:
                raise
            raise Misconfigured(str(exc)) from exc
        except ModelError:
            sent()
            raise
        self.reached = True
        sent()
        return result
