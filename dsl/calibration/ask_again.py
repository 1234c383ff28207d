"""A check read again over held-out cases, with the spec as proposed examples would change it:
the one loop `--shots-for` (the judge's points) and `--examples-for` (the classifier's label)
share, so both close the spec and count an erred check the same way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import aclosing
from typing import Any, TypeVar

from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

T = TypeVar("T")


async def read_check(spec: Any, cases: Sequence[Case], name: str, concurrency: int,
                     read: Callable[[CheckResult], T | None]) -> dict[str, T | None]:
    """What `read` takes from the check `name` of each case, by case id: None where the check
    erred or was not needed, so a held-out case the spec could not judge counts as unknown,
    never as a verdict. The spec is closed however the loop ends."""
    found: dict[str, T | None] = {}
    try:
        results = spec.evaluate_many(list(cases), concurrency=concurrency)
        async with aclosing(results):
            async for result in results:
                got = result.checks.get(name)
                found[result.id] = None if got is None or got.is_error else read(got)
    finally:
        await spec.aclose()
    return found
