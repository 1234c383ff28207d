"""A primitive's docstring and its parameters' docs in the user's language.

The docs are written once, in English, where they belong: the factory's docstring
and each params field's attribute docstring (`fielddocs`). That English text is the
gettext msgid, as for every other message: `scripts/catalogue.py` reads the standard
library's registry and adds each text to the catalogue beside the messages it
extracts from `_()` calls, so a Chinese doc is one `msgstr` like any other, and
`--check` fails while one is missing. A plugin's docs have no catalogue entry and
are shown as written.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from evaldsl.i18n import _
from evaldsl.primitives.fielddocs import field_description
from evaldsl.primitives.registry import Primitive, Registry


def primitive_doc(primitive: Primitive) -> str:
    """The primitive's docstring, cleaned, in the current language."""
    return _(english_doc(primitive))


def english_doc(primitive: Primitive) -> str:
    return inspect.cleandoc(primitive.doc)


def parameter_doc(model: type[BaseModel], name: str, info: FieldInfo) -> str:
    """Field `name`'s description (attribute name, not alias), in the current language."""
    return _(field_description(model, name, info))


class DocText(NamedTuple):
    """One English doc text and where it is written, as the catalogue lists it."""

    text: str
    path: str
    """The source file, relative to the repository (`stdlib_rules/text.py`)."""
    what: str
    """`keyword` for a primitive's docstring, `keyword.all` for a parameter's."""


def doc_texts(registry: Registry, root: Path) -> Iterator[DocText]:
    """Every non-empty doc of `registry`'s primitives and their parameters."""
    for primitive in registry:
        path = _relative(inspect.getsourcefile(primitive.factory), root)
        if primitive.doc:
            yield DocText(english_doc(primitive), path, primitive.name)
        for name, info in primitive.params.model_fields.items():
            text = field_description(primitive.params, name, info)
            if text:
                where = _relative(_defining_file(primitive.params, name), root)
                yield DocText(text, where, f"{primitive.name}.{name}")


def _defining_file(model: type[BaseModel], name: str) -> str | None:
    """The file of the nearest class in `model`'s bases that annotates `name`."""
    for cls in model.__mro__:
        if name in vars(cls).get("__annotations__", {}):
            return inspect.getsourcefile(cls)
    return inspect.getsourcefile(model)


def _relative(path: str | None, root: Path) -> str:
    if path is None:
        return "?"
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return Path(path).name
