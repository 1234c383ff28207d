"""Values a row may spell but no journal, report or terminal can hold: the first one found.

JSON text may escape a lone UTF-16 surrogate (`"\\ud800"`) and Python's reader accepts
`NaN` and `Infinity`; YAML has `.nan` and `.inf`. None of them can be written back as
UTF-8 or as standard JSON, so a row holding one is rejected where it is read, naming
the field, rather than crashing a writer later (and again on `--resume`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from evaldsl.i18n import _

_SURROGATE = re.compile("[\ud800-\udfff]")


class Unwritable(NamedTuple):
    field: str | None
    reason: str


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate code point, which no UTF-8 writer accepts."""
    return not text.isascii() and _SURROGATE.search(text) is not None


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A `\\u` escape of a surrogate; a paired one matches too (then the walk decides)."""


class _NotFinite(ValueError):
    """Raised by the decoding hooks at the first NaN, Infinity or overflowing number."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)


_SCAN: Callable[[str, int], tuple[Any, int]] = vars(
    json.JSONDecoder(parse_float=_finite_float, parse_constant=_no_constant))["scan_once"]
"""`json.loads`' scanner with the hooks (the decoder's `scan_once`), one for every row
(`json.loads` builds one per call)."""
_SPACE: Callable[[str, int], Any] = re.compile(r"[ \t\n\r]*",
                                               re.VERBOSE | re.MULTILINE | re.DOTALL).match
"""`json.decoder.WHITESPACE.match`: what `JSONDecoder.decode` skips around the value (it
always matches, maybe nothing)."""


def _screening(text: str) -> Any:
    """`JSONDecoder.decode` of the hooked decoder, its `raw_decode` inlined (two calls less
    per row): the same value, or the same `JSONDecodeError`."""
    try:
        value, end = _SCAN(text, _SPACE(text, 0).end())
    except StopIteration as err:
        raise json.JSONDecodeError("Expecting value", text, err.value) from None
    end = _SPACE(text, end).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def screened_loads(json_text: str) -> tuple[Any, bool]:
    """`json.loads(json_text)`, and whether the value is proven free of anything
    `unwritable` names, so it need not be walked: the hooks saw every number and found
    each finite, and the text escapes no surrogate (UTF-8 text cannot hold a raw one).
    A JSONL row pays one substring search instead of a visit to every value it holds.
    Raises what `json.loads` raises."""
    if json_text.startswith("\ufeff"):
        json.loads(json_text)  # raises as `json.loads` does: a byte order mark inside a file
    try:
        value = _screening(json_text)
    except _NotFinite:
        return json.loads(json_text), False
    clear = "\\u" not in json_text or _ESCAPED_SURROGATE.search(json_text) is None
    return value, clear


def unwritable(row: Any) -> Unwritable | None:
    """The first lone surrogate or non-finite number in `row`, in document order."""
    if not _suspect(row):
        return None  # the common case, found without building a single field path
    for path, value in _walk(row):
        if isinstance(value, float) and not math.isfinite(value):
            return Unwritable(
                path, _("expected a finite number, got {value}").format(value=str(value))
            )
        if isinstance(value, str) and has_lone_surrogate(value):
            return Unwritable(path, _("text holds a lone surrogate (an unpaired `\\u` escape)"))
        if isinstance(value, _Key):
            return Unwritable(path, _("a key holds a lone surrogate (an unpaired `\\u` escape)"))
    return None


def _suspect(root: Any) -> bool:
    """Whether `row` holds anything `unwritable` would name: one cheap pass, no paths.
    Exact `str`, `dict` and `list` (nearly every value of a decoded row) are told by their
    type and an ASCII text needs no search, a third of the walk's time; other types take
    the general checks."""
    stack = [root]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            if not value.isascii() and _SURROGATE.search(value) is not None:
                return True
        elif kind is dict:
            for key, child in value.items():
                if type(key) is str:
                    if not key.isascii() and _SURROGATE.search(key) is not None:
                        return True
                elif isinstance(key, str) and has_lone_surrogate(key):
                    return True
                stack.append(child)
        elif kind is list:
            stack.extend(value)
        elif isinstance(value, str):
            if has_lone_surrogate(value):
                return True
        elif isinstance(value, float):
            if not math.isfinite(value):
                return True
        elif isinstance(value, Mapping):
            for key, child in value.items():
                if isinstance(key, str) and has_lone_surrogate(key):
                    return True
                stack.append(child)
        elif isinstance(value, list):
            stack.extend(value)
    return False


class _Key(str):
    """A mapping key found to hold a lone surrogate (the key itself cannot be printed)."""


def _walk(root: Any) -> Iterator[tuple[str | None, Any]]:
    """Every value under `root` with its field path; iterative, so depth costs no stack."""
    stack: list[tuple[str | None, Any]] = [(None, root)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, Mapping):
            children: list[tuple[str | None, Any]] = []
            for key, child in value.items():
                if isinstance(key, str) and has_lone_surrogate(key):
                    children.append((path, _Key()))
                    continue
                children.append((f"{path}.{key}" if path else str(key), child))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{path or ''}[{i}]", c) for i, c in enumerate(value)]))
