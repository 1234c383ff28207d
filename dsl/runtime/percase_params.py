"""Per-case parameters, validated once per distinct set of values.

A check whose arguments read the case (`regex(pattern: case.expect.regex)`)
validates its params model and calls the primitive's factory for every case:
a pydantic round trip and a new evaluator each time, though a workload repeats
the same few values over and over. Deterministic factories are pure (an
evaluator depends on its params only), so the evaluator made for one set of
values serves every case with equal values. Values are compared by type as
well as by value (`1`, `1.0` and `true` are different arguments; floats by
their `repr`, so `-0.0` is not `0.0`); a value of another kind is not kept.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

LIMIT = 1024
"""Most evaluators kept per check; later new values are validated every time."""


_NOT_GIVEN = ("not given",)
"""The key of a parameter left out for this case (an optional one the case lacks)."""


class _Unkeyable(Exception):
    """A value the cache cannot compare safely."""


def freeze(value: Any) -> Hashable:
    """A hashable key equal for two values only when they are the same argument.

    >>> freeze(["a", 1]) == freeze(["a", 1.0])
    False
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    if kind is float:
        return (kind, repr(value))
    if kind is list or kind is tuple:  # a list of words, the common one: a text as it is
        return (kind, tuple([(str, v) if type(v) is str else freeze(v) for v in value]))
    if kind is dict:
        return (kind, tuple((freeze(k), freeze(v)) for k, v in value.items()))
    raise _Unkeyable


class TargetCache:
    """Evaluators by the frozen values of a check's per-case parameters."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[Hashable, Any] = {}

    def get(self, values: dict[str, Any], names: tuple[str, ...],
            make: Callable[[dict[str, Any]], Any]) -> Any:
        """`make(values)`, or what it returned before for equal values of `names`."""
        key: list[Hashable] = []
        for name in names:
            if name not in values:
                key.append(_NOT_GIVEN)
                continue
            value = values[name]
            kind = type(value)
            if kind is str or kind is int or kind is bool or value is None:
                key.append((kind, value))  # `freeze` of a plain value, without the call
                continue
            try:
                key.append(freeze(value))
            except _Unkeyable:
                return make(values)
        found = self._made.get(frozen := tuple(key))
        if found is None:
            found = make(values)
            if len(self._made) < LIMIT:
                self._made[frozen] = found
        return found
