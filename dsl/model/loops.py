"""State that belongs to one asyncio event loop (clients, semaphores, batchers).

An `AsyncOpenAI` client's connections and an `asyncio.Semaphore` are tied
to the loop that first used them, while a runtime may outlive many loops (a
synchronous `evaluate` runs one per call). `PerLoop` keeps one value per
running loop and closes it when that loop shuts down: an async generator
started in the loop is finalised by `shutdown_asyncgens`, which
`asyncio.run` always calls, so no connection outlives its loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerLoop(Generic[T]):
    """One value per running event loop, made on first use and closed with the loop."""

    def __init__(self, make: Callable[[], T],
                 close: Callable[[T], Awaitable[None]] | None = None) -> None:
        self._make = make
        self._close = close
        self._values: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[T, AsyncGenerator[None, None] | None]] = (
            weakref.WeakKeyDictionary())

    async def get(self) -> T:
        """The value for the running loop."""
        loop = asyncio.get_running_loop()
        entry = self._values.get(loop)
        if entry is None:
            value = self._make()
            guard = _guard(self._close, value) if self._close is not None else None
            if guard is not None:
                await guard.__anext__()
            self._values[loop] = entry = (value, guard)
        return entry[0]

    def values(self) -> list[T]:
        return [value for value, _ in list(self._values.values())]

    async def close_current(self) -> None:
        """Close the running loop's value now (idempotent)."""
        entry = self._values.pop(asyncio.get_running_loop(), None)
        if entry is not None and entry[1] is not None:
            await entry[1].aclose()


async def _guard(close: Callable[[T], Awaitable[None]], value: T) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await close(value)
