"""How hard the model layer pushes a server: concurrency, request rate, retries.

One `Limiter` per endpoint bounds requests in flight (a semaphore) and
spaces request starts to honour a requests-per-minute budget. `with_retries`
retries transient failures (429, 5xx, timeouts) with exponential backoff and
full jitter, honouring a server's `Retry-After`; the last failure is raised
for the runtime to turn into an error value. asyncio primitives belong to one
event loop, so a limiter keeps its state per running loop.
"""

from __future__ import annotations

import asyncio
import random
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from evaldsl.model.errors import RateLimited, TransientError

T = TypeVar("T")
MAX_DELAY = 30.0
"""No single wait between attempts is longer than this (seconds)."""


class RequestLimiter(Protocol):
    """What the model layer asks of a limiter: one slot held around each request.

    `Limiter` bounds the requests of one process; an engine that judges in many
    processes brings one that asks a gate they share (`evaldsl.run.rate_actor`), so
    that the endpoint's limits hold for the whole run, not for each process.
    """

    def slot(self) -> AbstractAsyncContextManager[None]:
        """Held while one request is out; entering it waits for room and the rate budget."""
        ...


@dataclass
class _LoopState:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0
    in_flight: int = 0
    peak: int = 0


class Limiter:
    """At most `concurrency` requests in flight and `requests_per_minute` starts a minute."""

    def __init__(self, concurrency: int, requests_per_minute: float | None = None) -> None:
        self.concurrency = max(1, concurrency)
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary())

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            state = self._states[loop] = _LoopState(asyncio.Semaphore(self.concurrency))
        return state

    @property
    def peak(self) -> int:
        """The most requests that were in flight at once (over every loop)."""
        return max((s.peak for s in self._states.values()), default=0)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one request slot; waits for the rate budget before starting."""
        state = self._state()
        async with state.semaphore:
            await self._pace(state)
            state.in_flight += 1
            state.peak = max(state.peak, state.in_flight)
            try:
                yield
            finally:
                state.in_flight -= 1

    async def _pace(self, state: _LoopState) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        start = max(now, state.next_start)
        state.next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    backoff: float = 0.5
    """Base delay (seconds): attempt n waits up to backoff * 2**n, full jitter."""

    def delay(self, attempt: int, error: TransientError) -> float:
        if isinstance(error, RateLimited) and error.retry_after is not None:
            return min(MAX_DELAY, error.retry_after)
        return random.uniform(0, min(MAX_DELAY, self.backoff * 2 ** attempt))


async def with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy,
                       on_retry: Callable[[TransientError], None] | None = None) -> T:
    """`call()`, retried on `TransientError` up to `policy.max_retries` times."""
    attempt = 0
    while True:
        try:
            return await call()
        except TransientError as error:
            if attempt >= policy.max_retries:
                error.attempts = attempt + 1
                raise
            if on_retry is not None:
                on_retry(error)
            await asyncio.sleep(policy.delay(attempt, error))
            attempt += 1
