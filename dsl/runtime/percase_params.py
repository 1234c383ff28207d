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

from collections.abc import Hashable
from typing import Any

LIMIT = 1024
"""Most evaluators kept per check; later new values are validated every time."""


NOT_GIVEN = ("not given",)
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


def key_of(value: Any) -> Hashable | None:
    """`freeze(value)`, or None for a value the cache cannot compare: its evaluator is then
    made for its case alone."""
    try:
        return freeze(value)
    except _Unkeyable:
        return None


class TargetCache:
    """Evaluators by the key of a check's per-case parameters: a tuple with each
    parameter's `freeze`d value, or `NOT_GIVEN`, in the order of the parameters. The
    caller builds the key as it reads the values, and the values themselves only when
    no evaluator is kept for them yet."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[Hashable, Any] = {}

    def find(self, key: tuple[Hashable, ...]) -> Any:
        """The evaluator made for an equal key, or None."""
        return self._made.get(key)

    def keep(self, key: tuple[Hashable, ...], made: Any) -> Any:
        """`made`, kept for `key` while fewer than `LIMIT` are."""
        if len(self._made) < LIMIT:
            self._made[key] = made
        return made
