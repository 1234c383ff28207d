"""Reading a primitive's params model: which static types each parameter accepts.

The params model is the only declaration of a primitive's arguments, so the
checker derives everything from its annotations: what a per-case (dynamic)
argument may evaluate to, and which arguments name normalization tables.
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from evaldsl.i18n import _
from evaldsl.primitives.registry import Primitive
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.primitives.valuetypes import ValueType as T

_SIMPLE: dict[Any, T] = {
    str: T.TEXT, bool: T.BOOL, int: T.NUMBER, float: T.NUMBER, NormalizationTable: T.TABLE,
}
_SEQUENCES = (list, tuple, set, frozenset, Sequence)
_MAPPINGS = (dict, Mapping)


def accepted_types(annotation: Any) -> frozenset[T] | None:
    """The value types a parameter accepts, or None when it accepts anything."""
    if annotation is Any or annotation is None:
        return None
    origin = get_origin(annotation)
    if origin is Annotated:
        return accepted_types(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return _union(get_args(annotation))
    if origin is Literal:
        return frozenset(_SIMPLE.get(type(v), T.ANY) for v in get_args(annotation))
    base = origin or annotation
    if base in _SIMPLE:
        return frozenset({_SIMPLE[base]})
    if isinstance(base, type):
        return _class_types(base)
    return None


def _union(members: tuple[Any, ...]) -> frozenset[T] | None:
    out: set[T] = set()
    for member in members:
        if member is type(None):
            continue
        found = accepted_types(member)
        if found is None:
            return None
        out |= found
    return frozenset(out)


def _class_types(base: type) -> frozenset[T] | None:
    if issubclass(base, BaseModel) or issubclass(base, _MAPPINGS):
        return frozenset({T.MAP})
    if issubclass(base, (str, bytes)):
        return frozenset({T.TEXT})
    if issubclass(base, _SEQUENCES):
        return frozenset({T.LIST})
    return None


def mentions_table(annotation: Any) -> bool:
    """Whether a parameter holds normalization tables (directly or in a list or map)."""
    try:
        return _mentions_table(annotation)
    except TypeError:  # an unhashable annotation: answer without the cache
        return _mentions_table.__wrapped__(annotation)


@lru_cache(maxsize=1024)
def _mentions_table(annotation: Any) -> bool:
    if annotation is NormalizationTable:
        return True
    return any(mentions_table(a) for a in get_args(annotation))


def accepts(wanted: frozenset[T] | None, found: T) -> bool:
    """Whether a value of static type `found` fits a parameter accepting `wanted`.

    A bare check name fits a condition or a number; `ANY` fits everything.
    """
    if wanted is None or found is T.ANY or T.ANY in wanted:
        return True
    if found is T.CHECK:
        return bool(wanted & {T.BOOL, T.NUMBER})
    return found in wanted


def describe(wanted: frozenset[T]) -> str:
    """`a text or a list`: accepted types in words."""
    words = sorted(str(t) for t in wanted)
    if len(words) == 1:
        return words[0]
    return _("{items} or {last}").format(items=_(", ").join(words[:-1]), last=words[-1])


def param_fields(primitive: Primitive) -> dict[str, FieldInfo]:
    """A primitive's parameters by the name a spec writes (the alias, when one is set)."""
    return param_fields_of(primitive.params)


@lru_cache(maxsize=256)
def param_fields_of(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """`param_fields` by params model."""
    return {(info.alias or name): info for name, info in model.model_fields.items()}
