"""`json_schema`: the reply is JSON and validates against a JSON Schema.

The schema is checked once, when the spec is checked (an invalid schema is a
lint error); the validator is built once per spec, with the draft's format
checker: a `format: date` that only annotated would let `"2024-13-45"` pass
unseen. `date-time`, `time` and `uri` need the small `rfc3339-validator` and
`rfc3986-validator` packages, which are dependencies for that reason. A reply that is not JSON
fails with the parse error as its reason: the agent produced it, so it is a
verdict, not a missing value.
"""

from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import REPLY_SCOPES, Scope, Unit, evaluate_over
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.timed_match import timeout_reason
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params
from evaldsl.stdlib.schema_regex import timed_validator
from evaldsl.values import CheckResult

if TYPE_CHECKING:
    import jsonschema

_FENCE = ("```json", "```JSON", "```")


with warnings.catch_warnings():
    # The argument is called `schema` in specs; the field shadows pydantic's
    # deprecated `BaseModel.schema()`, which nothing here uses.
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class JsonSchemaParams(Params):
        schema: dict[str, Any]  # type: ignore[assignment]
        """The JSON Schema (any draft; `$schema` picks it, 2020-12 otherwise)."""
        fenced: bool = True
        """Accept a reply wrapped in a Markdown code fence (```json ... ```)."""
        max_errors: int = Field(default=5, ge=1, le=100)
        """How many validation errors `.errors` keeps."""

        @field_validator("schema")
        @classmethod
        def _valid_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
            return valid_schema(schema)


def valid_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` itself when it is a valid JSON Schema; a params error otherwise."""
    if not schema:
        return schema  # `{}` is valid in every draft, and accepts any JSON
    import jsonschema  # 0.08 s to import: only specs with a schema pay it
    from jsonschema.validators import validator_for

    try:
        validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(_("invalid JSON Schema: {error}").format(error=exc.message)) from None
    return schema


@primitive("json_schema", params=JsonSchemaParams, scopes=REPLY_SCOPES,
           default_scope="last_reply", fields={"errors": ValueType.LIST},
           cost=Cost.CHEAP, value_type=ValueType.ANY, dynamic={"schema"})
def json_schema(params: JsonSchemaParams) -> Any:
    """The reply parses as JSON and validates against `schema`.

    `.value` is the parsed JSON (none when it did not parse); `.errors` lists
    the validation errors as `path: message`. `format` is checked for `date`,
    `date-time`, `time`, `email`, `uri`, `uri-reference`, `ipv4`, `ipv6`,
    `uuid`, `regex` and the `idn-` forms; other formats are annotations.

        check 结构化 = json_schema(schema: {type: "object", required: ["订单号", "状态"]})
    """
    # `{}` accepts every JSON value: the check is then that the reply parses, and needs
    # no validator (nor the jsonschema import, a tenth of a second of every such run).
    validator = timed_validator(params.schema) if params.schema else None

    def judge(unit: Unit) -> CheckResult:
        text = unfence(unit.text) if params.fenced else unit.text.strip()
        try:
            data = json.loads(text)
        except ValueError as exc:
            return CheckResult(False, 0.0, None, {"errors": [f"not JSON: {exc}"]},
                               f"the reply is not JSON: {exc}")
        if validator is None:
            return CheckResult(True, 1.0, data, {"errors": []}, "")
        try:
            errors = [describe(e) for e in validator.iter_errors(data)][: params.max_errors]
        except TimeoutError:
            return CheckResult.error(timeout_reason())
        reason = "; ".join(errors)
        return CheckResult(not errors, 0.0 if errors else 1.0, data, {"errors": errors}, reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return evaluate_over(case, scope, judge)

    return evaluate


def unfence(text: str) -> str:
    """The body of a Markdown code fence, or the trimmed text when there is none.

    >>> unfence('```json\\n{"a": 1}\\n```')
    '{"a": 1}'
    """
    stripped = text.strip()
    for fence in _FENCE:
        if stripped.startswith(fence) and stripped.endswith("```") and len(stripped) > 6:
            return stripped[len(fence): -3].strip()
    return stripped


def describe(error: jsonschema.ValidationError) -> str:
    path = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{path}: {error.message}"
