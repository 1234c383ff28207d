"""One limit on judge requests across every actor of a Ray run: a named gate actor.

Each actor has its own judge client, so each process's `Limiter` alone would
let N actors send N times the configured `concurrency` and `requests_per_minute`.
Instead the run starts one `RateGate` actor under a name; every actor's
runtime is built with a `SharedLimiter` (`default_runtime(judge_limiter=...)`,
the model layer's `RequestLimiter` protocol) that holds a permit of the gate
around each request. The gate is an async actor: a permit is a semaphore slot,
and starts are spaced `60 / requests_per_minute` seconds apart.

A permit is a lease: one not given back within `lease` seconds (longer than a
request may take, its timeout plus `LEASE_MARGIN`) is taken back, so that the
permits an actor held when it died do not stop the run.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

GATE_PREFIX = "evaldsl-rate-"
LEASE_MARGIN = 10.0
"""Seconds a permit is kept beyond the request timeout before it is taken back."""


class RateGate:
    """The permits of one run: at most `concurrency` out, starts spaced by the rate."""

    def __init__(self, concurrency: int, requests_per_minute: float | None,
                 lease: float) -> None:
        self.concurrency = max(1, concurrency)
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.lease = lease
        self.peak = 0
        self._next_start = 0.0
        self._leases: dict[int, float] = {}
        """Permits out: id to the moment it is taken back unless given back first."""
        self._ids = 0
        self._semaphore: asyncio.Semaphore | None = None
        self._reaper: asyncio.Task[None] | None = None

    async def acquire(self) -> int:
        """Wait for a free permit, then for the rate budget; the permit's id, now out."""
        if self._semaphore is None:  # made in the actor's own loop
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._reaper = asyncio.create_task(self._reap())
        await self._semaphore.acquire()
        self._ids += 1
        self._leases[self._ids] = time.monotonic() + self.lease
        self.peak = max(self.peak, len(self._leases))
        now = time.monotonic()
        start = max(now, self._next_start)
        self._next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)
        return self._ids

    async def release(self, permit: int) -> None:
        """Give a permit back (one already taken back is not given twice)."""
        if self._leases.pop(permit, None) is not None and self._semaphore is not None:
            self._semaphore.release()

    async def _reap(self) -> None:
        """Take back, once a second, the permits whose lease ran out."""
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for permit in [p for p, until in self._leases.items() if until < now]:
                await self.release(permit)

    async def most_out(self) -> int:
        """The most permits that were out at once."""
        return self.peak


def start_gate(concurrency: int, requests_per_minute: float | None, timeout: float,
               ) -> tuple[str, Any]:
    """A run's gate, started under a fresh name: the name (for the actors) and its handle;
    `timeout` is the judge's per request."""
    import ray

    name = GATE_PREFIX + uuid.uuid4().hex
    handle = ray.remote(RateGate).options(name=name, num_cpus=0).remote(
        concurrency, requests_per_minute, timeout + LEASE_MARGIN)
    return name, handle


class SharedLimiter:
    """A `RequestLimiter` whose slots are permits of the run's gate (found by name)."""

    def __init__(self, gate: str) -> None:
        self.gate = gate
        self._handle: Any = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        handle = self._gate()
        permit = await handle.acquire.remote()
        try:
            yield
        finally:
            await handle.release.remote(permit)

    def _gate(self) -> Any:
        if self._handle is None:
            import ray

            self._handle = ray.get_actor(self.gate)
        return self._handle
