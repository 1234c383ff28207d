"""One limit on judge requests across every actor of a Ray run: a named gate actor.

Each actor has its own judge client, so each process's `Limiter` alone would
let N actors send N times the configured `concurrency` and `requests_per_minute`.
Instead the run starts one `RateGate` actor under a name; every actor's
runtime is built with a `SharedLimiter` (`default_runtime(judge_limiter=...)`,
the model layer's `RequestLimiter` protocol) that holds a permit of the gate
around each request. The gate is an async actor: a permit is a semaphore slot,
and starts are spaced `60 / requests_per_minute` seconds apart.

A permit held by an actor that dies is not given back: the run goes on with
one slot fewer (it is a bound, and stays one).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

GATE_PREFIX = "evaldsl-rate-"


class RateGate:
    """The permits of one run: at most `concurrency` out, starts spaced by the rate."""

    def __init__(self, concurrency: int, requests_per_minute: float | None) -> None:
        self.concurrency = max(1, concurrency)
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.out = 0
        self.peak = 0
        self._next_start = 0.0
        self._semaphore: asyncio.Semaphore | None = None

    async def acquire(self) -> None:
        """Wait for a free permit, then for the rate budget; the permit is then out."""
        if self._semaphore is None:  # made in the actor's own loop
            self._semaphore = asyncio.Semaphore(self.concurrency)
        await self._semaphore.acquire()
        self.out += 1
        self.peak = max(self.peak, self.out)
        now = time.monotonic()
        start = max(now, self._next_start)
        self._next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)

    async def release(self) -> None:
        assert self._semaphore is not None, "released before acquired"
        self.out -= 1
        self._semaphore.release()

    async def most_out(self) -> int:
        """The most permits that were out at once."""
        return self.peak


def start_gate(concurrency: int, requests_per_minute: float | None) -> tuple[str, Any]:
    """A run's gate, started under a fresh name: the name (for the actors) and its handle."""
    import ray

    name = GATE_PREFIX + uuid.uuid4().hex
    handle = ray.remote(RateGate).options(name=name, num_cpus=0).remote(
        concurrency, requests_per_minute)
    return name, handle


class SharedLimiter:
    """A `RequestLimiter` whose slots are permits of the run's gate (found by name)."""

    def __init__(self, gate: str) -> None:
        self.gate = gate
        self._handle: Any = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        handle = self._gate()
        await handle.acquire.remote()
        try:
            yield
        finally:
            await handle.release.remote()

    def _gate(self) -> Any:
        if self._handle is None:
            import ray

            self._handle = ray.get_actor(self.gate)
        return self._handle
