"""Reading structured answers: a tolerant JSON parse and a schema check.

Servers that honour `json_schema` answer with exactly the object asked for;
others wrap it in prose or code fences, or drift from the schema. The parse
takes the first JSON object in the text; validation says in plain words what
does not fit, which is what the one repair request quotes back to the model.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from evaldsl.model.errors import Unparsed

if TYPE_CHECKING:
    import jsonschema


def parse_object(text: str) -> Any:
    """The JSON value in `text`: the whole text, else its first `{...}` object.

    >>> parse_object('Sure! ```json\\n{"a": 1}\\n```')
    {'a': 1}
    """
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(stripped, start)
            return value
        except ValueError:
            start = stripped.find("{", start + 1)
    raise Unparsed("the reply is not JSON")


_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool,
                          "integer": int, "number": (int, float)}


def fits(value: Any, schema: dict[str, Any]) -> bool | None:
    """Whether `value` fits `schema`, for the keywords the checks use; None if others appear.

    A fast path: validating every answer with a general validator costs more
    CPU than the request itself at high concurrency.
    """
    if not _KNOWN.issuperset(schema):
        return None
    kind = schema.get("type")
    if kind is not None and not _is(value, kind):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if ("minimum" in schema and value < schema["minimum"]) or (
            "maximum" in schema and value > schema["maximum"]):
        return False
    if isinstance(value, (str, list)) and len(value) > schema.get(
            "maxLength" if isinstance(value, str) else "maxItems", len(value)):
        return False
    if kind != "object":
        return True
    props = schema.get("properties", {})
    if any(k not in value for k in schema.get("required", ())):
        return False
    if schema.get("additionalProperties") is False and any(k not in props for k in value):
        return False
    verdicts = [fits(value[k], sub) for k, sub in props.items() if k in value]
    return None if None in verdicts else all(verdicts)


_KNOWN = frozenset({"type", "properties", "required", "additionalProperties", "enum", "minimum",
                    "maximum", "maxLength", "maxItems", "description"})


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    expected = _TYPES.get(kind)
    return expected is not None and isinstance(value, expected)


def problem(value: Any, schema: dict[str, Any]) -> str | None:
    """What makes `value` not fit `schema`, in one line; None when it fits."""
    if fits(value, schema) is True:
        return None
    from jsonschema.exceptions import best_match

    validator = _validator(json.dumps(schema, sort_keys=True))
    error = best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> jsonschema.Draft202012Validator:
    """Validators by schema text: a spec asks the same few schemas over and over."""
    import jsonschema  # 0.08 s to import: only model checks with a schema pay it

    return jsonschema.Draft202012Validator(json.loads(schema_json))


def read_answer(text: str, parsed: Any, schema: dict[str, Any] | None) -> Any:
    """The answer's value if it fits `schema`; `Unparsed` otherwise."""
    if schema is None:
        return parsed if parsed is not None else text
    value = parsed if parsed is not None else parse_object(text)
    found = problem(value, schema)
    if found is not None:
        raise Unparsed(f"the reply does not match the schema ({found})")
    return value
