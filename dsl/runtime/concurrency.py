"""Many cases at once: a bounded number in flight, results as they finish.

The interpreter evaluates one case; running many is the runner's business,
and the public `Spec.evaluate_many` and `Spec.run_async` share this one loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_concurrently(
    evaluate: Callable[[Any], Awaitable[T]],
    cases: Iterable[Any] | AsyncIterable[Any],
    concurrency: int,
) -> AsyncGenerator[T, None]:
    """Evaluate cases with at most `concurrency` in flight; yield results as they finish.

    Each finished task reports itself on a queue, so a completion costs the
    same whatever the width: waiting on the whole in-flight set instead
    (`asyncio.wait`) costs a callback per task in flight per completion,
    which at a width of a hundred cases is a visible share of a run's CPU.
    Leaving early cancels what is still in flight.
    """
    width = max(1, concurrency)
    finished: asyncio.Queue[asyncio.Task[T]] = asyncio.Queue()
    in_flight: set[asyncio.Task[T]] = set()
    source = _aiter(cases)
    exhausted = False
    try:
        while True:
            while not exhausted and len(in_flight) < width:
                try:
                    case = await anext(source)
                except StopAsyncIteration:
                    exhausted = True
                    break
                task = asyncio.ensure_future(evaluate(case))
                task.add_done_callback(finished.put_nowait)
                in_flight.add(task)
            if not in_flight:
                return
            task = await finished.get()
            in_flight.discard(task)
            yield task.result()
    finally:
        for task in in_flight:
            task.cancel()
        await source.aclose()


async def _aiter(cases: Iterable[Any] | AsyncIterable[Any]) -> AsyncGenerator[Any, None]:
    if isinstance(cases, AsyncIterable):
        async for case in cases:
            yield case
    else:
        for case in cases:
            yield case
