"""Parameter descriptions read from a params model's attribute docstrings, when asked.

A params model documents each parameter with the string below its annotation.
pydantic can copy those strings into each field's `description` as it builds
the model (`use_attribute_docstrings`), but that reads and parses the class's
source for every model at import, about 20 ms a process for descriptions only
diagnostics, `evaldsl primitives` and the docs show. Reading them here, the
first time one is wanted, leaves a `check` or `run` that needs none with
nothing to pay. The reading follows pydantic's: a string statement right
after an annotated name, cleaned with `inspect.cleandoc`; a field's explicit
`description` wins; a subclass's docstring wins over its base's.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import lru_cache
from itertools import pairwise

from pydantic import BaseModel
from pydantic.fields import FieldInfo


def field_description(model: type[BaseModel], name: str, info: FieldInfo) -> str:
    """The description of field `name` (the attribute's name, not its alias) of `model`."""
    if info.description is not None:
        return info.description
    return attribute_docstrings(model).get(name, "")


@lru_cache(maxsize=256)
def attribute_docstrings(model: type) -> dict[str, str]:
    """Attribute docstrings of `model` and its bases, the nearest class's first."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if cls is not BaseModel and issubclass(cls, BaseModel):
            found.update(_own_docstrings(cls))
    return found


def _own_docstrings(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    if source.startswith((" ", "\t")):
        source = f"def dedent_workaround():\n{source}"
    node = ast.parse(source).body[0]
    if isinstance(node, ast.FunctionDef):
        node = node.body[0]
    if not isinstance(node, ast.ClassDef):
        return {}
    return _docstrings_of(node.body)


def _docstrings_of(body: list[ast.stmt]) -> dict[str, str]:
    """Each `name: type` statement's docstring, the string statement right after it."""
    docs: dict[str, str] = {}
    for before, after in pairwise(body):
        if (isinstance(before, ast.AnnAssign) and isinstance(before.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[before.target.id] = inspect.cleandoc(after.value.value)
    return docs


def class_docstrings(cls: type) -> dict[str, str]:
    """Attribute docstrings of one class of any kind (a dataclass too), its bases ignored."""
    return _own_docstrings(cls)
