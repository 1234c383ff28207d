"""Function docs as type rules for tool-call arguments, the way BFCL enforces them.

BFCL's checker rejects a call whose argument has the wrong Python type even
when the value looks right (`"5"` for an `integer`), accepts an integer where
a `float` is declared, checks the item type of arrays one level deep, and
treats a value of the gold answer's own type as acceptable (a "variable").
Docs come in BFCL's form (`{"name", "parameters": {"properties", "required"}}`)
or OpenAI's (`{"type": "function", "function": {...}}`); JSON Schema type
names (`number`, `object`) are understood beside BFCL's (`float`, `dict`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaldsl.i18n import _


class Missing(str):
    """A mismatch message about an argument left out: `.missing`, apart from `.mismatches`."""

    __slots__ = ()

    def prefixed(self, prefix: str) -> Missing:
        return Missing(prefix + self)


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "any": (str,), "integer": (int,), "float": (float,),
    "number": (float, int), "boolean": (bool,), "array": (list,), "tuple": (list,),
    "dict": (dict,), "object": (dict,), "null": (type(None),),
}
_NESTED = ("array", "tuple")


class FunctionDocs:
    """Function docs by name, with the type rules of their parameters."""

    def __init__(self, docs: Iterable[Any], dotted_names: bool = True) -> None:
        self._docs: dict[str, Mapping[str, Any]] = {}
        for doc in docs:
            if isinstance(doc, Mapping):
                inner = doc.get("function", doc)
                if isinstance(inner, Mapping) and isinstance(inner.get("name"), str):
                    self._docs[inner["name"]] = inner
        self.dotted = dotted_names

    def find(self, name: str) -> Mapping[str, Any] | None:
        doc = self._docs.get(name)
        if doc is None and self.dotted:
            doc = next((d for n, d in self._docs.items() if n.replace(".", "_") == name), None)
        return doc

    def problems(self, name: str, expected: Mapping[str, Any],
                 actual: Mapping[str, Any]) -> list[str]:
        """`field: ...` messages for missing required, unknown and mistyped arguments."""
        doc = self.find(name)
        if doc is None:
            return []
        params = doc.get("parameters") or {}
        properties: Mapping[str, Any] = params.get("properties") or {}
        out: list[str] = [Missing(_("{name}: missing (required)").format(name=p))
                          for p in params.get("required") or () if p not in actual]
        for key, value in actual.items():
            if key not in properties:
                out.append(
                    _("{key}: unexpected (not a parameter of `{name}`)").format(key=key, name=name)
                )
                continue
            problem = type_problem(properties[key], value, expected.get(key))
            if problem:
                out.append(f"{key}: {problem}")
        return out


def type_problem(schema: Mapping[str, Any], value: Any, expected: Any) -> str | None:
    """Why `value` does not fit the declared type, or None when it does."""
    declared = schema.get("type")
    if not isinstance(declared, str) or declared not in _TYPES:
        return None
    answers = expected if isinstance(expected, list) else [expected]
    if not _fits(declared, value) and not _same_as_answer(value, answers):
        return _("expected {declared}, got {kind} {value}").format(
            declared=declared, kind=_type_name(value), value=_short(value)
        )
    if declared in _NESTED and isinstance(value, list):
        items = schema.get("items")
        item_type = items.get("type") if isinstance(items, Mapping) else None
        if isinstance(item_type, str) and item_type in _TYPES \
                and not _items_fit(item_type, value, answers):
            return _("expected {declared} of {items}, got {value}").format(
                declared=declared, items=item_type, value=_short(value)
            )
    return None


def _fits(declared: str, value: Any) -> bool:
    if declared == "float" and type(value) is int:
        return True
    return type(value) in _TYPES[declared]


_NO_ANSWER: Any = object()
"""What `_same_as_answer` finds when every answer is `""`: distinct from a gold `None`."""


def _same_as_answer(value: Any, answers: list[Any]) -> bool:
    """BFCL's "variable" rule: the first non-empty gold answer has this value's type.

    A gold `None` is such an answer (its type is `NoneType`, as in BFCL), so the
    search needs a sentinel of its own rather than `None` for "nothing found".
    """
    first = next((a for a in answers if a != ""), _NO_ANSWER)
    return first is not _NO_ANSWER and type(value) is type(first)


def _items_fit(item_type: str, value: list[Any], answers: list[Any]) -> bool:
    for answer in answers:
        if not isinstance(answer, list):
            return True
        if all(type(v) in _TYPES[item_type] or _same_as_answer(v, answer) for v in value):
            return True
    return False


def _type_name(value: Any) -> str:
    names = {str: "string", bool: "boolean", int: "integer", float: "float", list: "array",
             dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
