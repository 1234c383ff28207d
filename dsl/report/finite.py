"""Standard JSON only: a non-finite number (NaN, an infinity) is written as null.

Python's `json` writes `NaN` and `Infinity` by default, which most JSON readers refuse.
Rows holding them are rejected when read (`evaldsl.cases.unwritable`), but a computation
(a mean of nothing, a ratio over zero) can still make one; a report or journal line
then says null, "no number", instead of becoming unreadable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any


def encode_finite(encode: Callable[[Any], str], value: Any) -> str:
    """`encode(value)` with an encoder built with `allow_nan=False`; when that refuses,
    the value again with every non-finite number as None (the common case pays nothing)."""
    try:
        return encode(value)
    except ValueError:
        return encode(nulled(value))


def nulled(value: Any) -> Any:
    """`value` with every non-finite float, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: nulled(child) for key, child in value.items()}
    if isinstance(value, (list, tuple)):
        return [nulled(child) for child in value]
    return value
