"""JSON Schema validators whose patterns run under the shared time limit.

`jsonschema` matches `pattern`, `patternProperties` and the `regex` format
with Python's `re`, which has no timeout; a schema taken from case data could
hang a run. The validators built here swap those three for the `regex`
package with `PATTERN_TIMEOUT_S`, so a catastrophic pattern raises
`TimeoutError` and `json_schema` reports an error value.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import regex

from evaldsl.primitives.timed_match import timed_search


def timed_validator(schema: dict[str, Any]) -> Any:
    """A validator for `schema`'s draft, with timed patterns and the draft's format checker."""
    from jsonschema.validators import extend, validator_for

    kind = validator_for(schema)
    timed = extend(kind, {"pattern": _pattern, "patternProperties": _pattern_properties})
    checker = copy.deepcopy(kind.FORMAT_CHECKER)
    checker.checks("regex", raises=regex.error)(_compiles)
    return timed(schema, format_checker=checker)


def _compiles(instance: object) -> bool:
    """The `regex` format: the string compiles in the syntax the checks themselves use."""
    if isinstance(instance, str):
        regex.compile(instance)
    return True


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not timed_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, properties: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if timed_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)
