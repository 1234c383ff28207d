"""One limit on judge requests across every actor of a Ray run: a named gate actor.

Each actor has its own judge client, so each process's `Limiter` alone would
let N actors send N times the configured `concurrency` and `requests_per_minute`.
Instead the run starts one `RateGate` actor under a name; every actor's
runtime is built with a `SharedLimiter` (`default_runtime(judge_limiter=...)`,
the model layer's `RequestLimiter` protocol) that holds a permit of the gate
around each request. The gate is an async actor: a permit is a semaphore slot,
and starts are spaced `60 / requests_per_minute` seconds apart.

An actor that dies must not hold the run up. Each process that asks for permits
is a holder: it tells the gate it is alive every `HEARTBEAT` seconds, from a
thread of its own (so a busy event loop does not silence it). A holder not heard
from for `SILENCE` seconds is gone: the permits it held are given back, and the
requests it was still waiting for, which Ray goes on serving after their caller
died, give their permit back the moment they get it instead of holding it. (Before,
each such request held a permit for a whole lease: a dead actor with 8 cases in
flight under a concurrency of 2 stopped the run for 4 leases.) A permit is also a
lease, the last resort: one not given back within `lease` seconds (longer than a
request may take, its timeout plus `LEASE_MARGIN`) is taken back.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

GATE_PREFIX = "evaldsl-rate-"
LEASE_MARGIN = 10.0
"""Seconds a permit is kept beyond the request timeout before it is taken back."""
HEARTBEAT = 1.0
"""Seconds between a holder's messages that it is alive."""
SILENCE = 10.0
"""Seconds without a word from a holder after which it is gone and its permits come back."""
NO_PERMIT = 0
"""What `acquire` gives a holder that is gone: no permit is out for it."""


class RateGate:
    """The permits of one run: at most `concurrency` out, starts spaced by the rate."""

    def __init__(self, concurrency: int, requests_per_minute: float | None,
                 lease: float, silence: float = SILENCE) -> None:
        self.concurrency = max(1, concurrency)
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.lease = lease
        self.silence = silence
        self.peak = 0
        self._next_start = 0.0
        self._leases: dict[int, tuple[str, float]] = {}
        """Permits out: id to its holder and the moment it is taken back unless given back."""
        self._heard: dict[str, float] = {}
        """Each holder's last word: the moment it asked or said it is alive."""
        self._gone: set[str] = set()
        """Holders silent for longer than `silence`: their late requests get no permit."""
        self._ids = 0
        self._semaphore: asyncio.Semaphore | None = None
        self._reaper: asyncio.Task[None] | None = None

    async def acquire(self, holder: str = "") -> int:
        """Wait for a free permit, then for the rate budget; the permit's id, now out, or
        `NO_PERMIT` when the holder was found gone while it waited."""
        self._hear(holder)
        if self._semaphore is None:  # made in the actor's own loop
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._reaper = asyncio.create_task(self._reap())
        await self._semaphore.acquire()
        if holder in self._gone:  # no one is left to use or give back this permit
            self._semaphore.release()
            return NO_PERMIT
        self._ids += 1
        self._leases[self._ids] = (holder, time.monotonic() + self.lease)
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

    async def alive(self, holder: str) -> None:
        """A holder's word that its process is still there."""
        self._hear(holder)

    def _hear(self, holder: str) -> None:
        self._heard[holder] = time.monotonic()
        self._gone.discard(holder)

    async def _reap(self) -> None:
        """Once a second, take back the permits whose lease ran out and those of holders
        silent for too long."""
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            silent = {h for h, heard in self._heard.items() if now - heard > self.silence}
            for holder in silent:
                del self._heard[holder]
                self._gone.add(holder)
            for permit in [p for p, (holder, until) in self._leases.items()
                           if until < now or holder in silent]:
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
    """A `RequestLimiter` whose slots are permits of the run's gate (found by name); this
    process is their holder and says so to the gate while it lives (`Heartbeat`)."""

    def __init__(self, gate: str) -> None:
        self.gate = gate
        self._handle: Any = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        handle = self._gate()
        permit = NO_PERMIT
        while permit == NO_PERMIT:  # a holder found gone that speaks again asks again
            permit = await handle.acquire.remote(HOLDER)
        try:
            yield
        finally:
            await handle.release.remote(permit)

    def _gate(self) -> Any:
        if self._handle is None:
            import ray

            self._handle = ray.get_actor(self.gate)
            Heartbeat.start(self.gate, self._handle)
        return self._handle


HOLDER = uuid.uuid4().hex
"""This process as a holder of permits: a restarted actor is a new process, a new holder."""


class Heartbeat:
    """The thread that tells a gate, every `HEARTBEAT` seconds, that this process lives;
    one per gate and process, for as long as the process lives (a daemon thread)."""

    _started: set[str] = set()
    _lock = threading.Lock()

    @classmethod
    def start(cls, gate: str, handle: Any) -> None:
        with cls._lock:
            if gate in cls._started:
                return
            cls._started.add(gate)
        threading.Thread(target=cls._beat, args=(handle,), name=f"evaldsl-heartbeat-{gate}",
                         daemon=True).start()

    @staticmethod
    def _beat(handle: Any) -> None:
        while True:
            handle.alive.remote(HOLDER)  # not awaited: once the gate is gone, no one listens
            time.sleep(HEARTBEAT)
