"""A parameter's type and default as a spec's author reads them.

`evaldsl primitives` prints them and the language service shows them in completions and
hovers; both read the params model, so neither can drift from what the checker accepts.
"""

from __future__ import annotations

import functools
import operator
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic.fields import FieldInfo


def default_text(info: FieldInfo) -> str:
    """The default as a spec would write it: texts in double quotes."""
    value = info.get_default(call_default_factory=True)
    return repr(value) if not isinstance(value, str) else f'"{value}"'


def type_text(info: FieldInfo) -> str:
    """The annotation in words a spec's author reads: `list[str] or None`, `table`."""
    text = str(_unannotated(info.annotation)).replace("typing.", "").replace("<class '", "")
    text = text.replace("'>", "").replace("evaldsl.primitives.tables.NormalizationTable", "table")
    return text.replace("evaldsl.model.checks.", "").replace(" | ", " or ")


def _unannotated(annotation: Any) -> Any:
    """`annotation` without `Annotated` metadata: validators are no part of a type's name.

    >>> _unannotated(list[Annotated[str, "a validator"]])
    list[str]
    """
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _unannotated(args[0])
    plain = tuple(_unannotated(a) for a in args)
    if plain == args:
        return annotation
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, plain)
    return origin[plain[0] if len(plain) == 1 else plain]
