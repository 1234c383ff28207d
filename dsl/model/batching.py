"""Embeddings batched across concurrent cases (micro-batching).

Cases are evaluated concurrently and each `similarity` needs two vectors.
Rather than one request per text, texts wait here for a moment (`wait`
seconds, or until `max_batch` have gathered) and go out as one request;
identical texts share one slot, known texts come from memory or the disk
cache. A failed batch fails each of its texts, which the runtime turns into
error values.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaldsl.model.breaker import EMBEDDER, Gate
from evaldsl.model.cache import AnswerCache, cache_key
from evaldsl.model.contact import Contact
from evaldsl.model.errors import MalformedAnswer
from evaldsl.model.limits import RequestLimiter, RetryPolicy, with_retries
from evaldsl.model.loops import PerLoop
from evaldsl.model.protocols import Embedder
from evaldsl.model.tally import Tally

MEMORY = 4096
"""Vectors kept in memory (reference texts repeat across cases)."""


@dataclass
class _Pending:
    futures: dict[str, asyncio.Future[np.ndarray]] = field(default_factory=dict)
    timer: asyncio.TimerHandle | None = None
    sending: set[asyncio.Task[None]] = field(default_factory=set)
    """Batches in flight, held here because the loop keeps only weak references to tasks."""


class EmbedBatcher:
    """Collects texts from concurrent callers into few embedding requests."""

    def __init__(self, embedder: Embedder, limiter: RequestLimiter, policy: RetryPolicy,
                 tally: Tally, cache: AnswerCache | None = None, identity: str | None = None,
                 max_batch: int = 64, wait: float = 0.003, gate: Gate | None = None) -> None:
        self.embedder = embedder
        self.limiter = limiter
        self.policy = policy
        self.tally = tally
        self.cache = cache if identity is not None else None
        self.identity = identity or ""
        self.max_batch = max_batch
        self.wait = wait
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._pending: PerLoop[_Pending] = PerLoop(_Pending)
        self.contact = Contact()
        """Whether the embedder has answered yet (a refused first connection stops the run)."""
        self.gate = gate if gate is not None else Gate(what=EMBEDDER)
        """When to stop asking the embedder: its circuit breaker and the run's deadline."""

    async def vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One unit-length vector per text (raises the batch's error)."""
        pending = await self._pending.get()
        futures = [self._enqueue(pending, t) for t in texts]
        return list(await asyncio.gather(*futures))

    def _enqueue(self, pending: _Pending, text: str) -> asyncio.Future[np.ndarray]:
        loop = asyncio.get_running_loop()
        known = self._known(text)
        if known is not None:
            done: asyncio.Future[np.ndarray] = loop.create_future()
            done.set_result(known)
            return done
        future = pending.futures.get(text)
        if future is None:
            future = pending.futures[text] = loop.create_future()
            if len(pending.futures) >= self.max_batch:
                self._flush(pending)
            elif pending.timer is None:
                pending.timer = loop.call_later(self.wait, self._flush, pending)
        return future

    def _known(self, text: str) -> np.ndarray | None:
        if text in self._memory:
            self._memory.move_to_end(text)
            return self._memory[text]
        if self.cache is None:
            return None
        stored = self.cache.get(cache_key("embed", self.identity, text), _is_vector)
        if stored is None:
            return None
        self.tally.add(cached=1)
        vector = _unit(stored)
        self._remember(text, vector)
        return vector

    def _flush(self, pending: _Pending) -> None:
        if pending.timer is not None:
            pending.timer.cancel()
            pending.timer = None
        batch, pending.futures = pending.futures, {}
        if batch:
            task = asyncio.get_running_loop().create_task(self._send(batch))
            pending.sending.add(task)
            task.add_done_callback(pending.sending.discard)

    async def _send(self, batch: dict[str, asyncio.Future[np.ndarray]]) -> None:
        texts = list(batch)
        try:
            rows = await with_retries(lambda: self._request(texts), self.policy,
                                      lambda e: self.tally.add(retries=1))
            if len(rows) != len(texts):
                raise MalformedAnswer(f"asked for {len(texts)} embeddings, got {len(rows)}", "")
        except Exception as exc:  # every waiting case must learn of the failure
            for future in batch.values():
                if not future.done():
                    future.set_exception(exc)
            return
        for text, row in zip(texts, rows, strict=True):
            vector = _unit(row)
            self._remember(text, vector)
            if self.cache is not None:
                self.cache.put(cache_key("embed", self.identity, text), "embed", list(row))
            if not batch[text].done():
                batch[text].set_result(vector)

    async def _request(self, texts: list[str]) -> list[list[float]]:
        self.gate.check()
        async with self.limiter.slot():
            self.gate.check()
            return await self.gate.send(self.contact.send(
                lambda: self.embedder.embed(texts), lambda: self.tally.add(calls=1, kind="embed")))

    def _remember(self, text: str, vector: np.ndarray) -> None:
        self._memory[text] = vector
        if len(self._memory) > MEMORY:
            self._memory.popitem(last=False)


def _is_vector(value: object) -> bool:
    """Whether a cached value is what an embedder returns: a non-empty list of finite
    numbers (a damaged entry is embedded again rather than read)."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                    and math.isfinite(x) for x in value))


def _unit(row: Sequence[float]) -> np.ndarray:
    vector = np.asarray(row, dtype=np.float64)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of two unit vectors; 0 when either is zero."""
    if a.shape != b.shape:
        raise MalformedAnswer(f"embeddings of different sizes ({a.shape[0]} and {b.shape[0]})", "")
    return float(np.clip(np.dot(a, b), -1.0, 1.0))
