"""Reading structured answers: a tolerant JSON parse and a schema check.

Servers that honour `json_schema` answer with exactly the object asked for;
others wrap it in prose or code fences, or drift from the schema. The parse
takes the first JSON object in the text; validation says in plain words what
does not fit, which is what the one repair request quotes back to the model.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema


class Unparsed(ValueError):
    """The text holds no JSON object that fits; the message says why."""


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


def problem(value: Any, schema: dict[str, Any]) -> str | None:
    """What makes `value` not fit `schema`, in one line; None when it fits."""
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def read_answer(text: str, parsed: Any, schema: dict[str, Any] | None) -> Any:
    """The answer's value if it fits `schema`; `Unparsed` otherwise."""
    if schema is None:
        return parsed if parsed is not None else text
    value = parsed if parsed is not None else parse_object(text)
    found = problem(value, schema)
    if found is not None:
        raise Unparsed(f"the reply does not match the schema ({found})")
    return value
