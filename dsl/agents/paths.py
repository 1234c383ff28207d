"""Dotted paths into a JSON answer (`data.reply`, `choices.0.message.content`)."""

from __future__ import annotations

from typing import Any

from evaldsl.errors import PathMissing
from evaldsl.i18n import _


def at_path(data: Any, path: str) -> Any:
    """The value at a dotted path; a number indexes a list.

    >>> at_path({"a": [{"b": "x"}]}, "a.0.b")
    'x'
    """
    value = data
    for step in path.split(".") if path else ():
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            raise PathMissing(_("nothing at `{path}`").format(path=path))
    return value
