"""json_schema: parse, validate, fail with reasons."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]

ORDER: dict[str, Any] = {
    "type": "object",
    "required": ["订单号", "状态"],
    "properties": {"订单号": {"type": "string", "pattern": "^A\\d{4}$"},
                   "状态": {"enum": ["已发货", "待发货", "已签收"]}},
}


class TestJsonSchema:
    def test_valid_reply_passes_and_value_is_the_data(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", '{"订单号": "A1234", "状态": "已发货"}'))
        r = run("json_schema", case, schema=ORDER)
        assert r.passed is True and r.value == {"订单号": "A1234", "状态": "已发货"}

    def test_code_fence_is_accepted(self, run: Run, dialog: Dialog) -> None:
        reply = '```json\n{"订单号": "A1234", "状态": "待发货"}\n```'
        assert run("json_schema", dialog(("user", "x"), ("assistant", reply)),
                   schema=ORDER).passed is True

    def test_code_fence_refused_when_fenced_false(self, run: Run, dialog: Dialog) -> None:
        reply = '```json\n{"订单号": "A1234", "状态": "待发货"}\n```'
        r = run("json_schema", dialog(("user", "x"), ("assistant", reply)), schema=ORDER,
                fenced=False)
        assert r.passed is False

    def test_validation_errors_are_listed_with_paths(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", '{"订单号": "B1", "状态": "丢失"}'))
        r = run("json_schema", case, schema=ORDER)
        assert r.passed is False
        assert sorted(r.fields["errors"]) == [
            "状态: '丢失' is not one of ['已发货', '待发货', '已签收']",
            "订单号: 'B1' does not match '^A\\\\d{4}$'",
        ]

    def test_non_json_reply_fails_with_reason(self, run: Run, dialog: Dialog) -> None:
        """Not JSON is the agent's fault: a fail with the reason, not an error."""
        r = run("json_schema", dialog(("user", "x"), ("assistant", "订单已发货")), schema=ORDER)
        assert r.passed is False and not r.is_error
        assert r.reason.startswith("the reply is not JSON")
        assert r.value is None

    def test_invalid_schema_is_a_params_error(self) -> None:
        from evaldsl.stdlib.structure import JsonSchemaParams

        with pytest.raises(ValidationError, match="invalid JSON Schema"):
            JsonSchemaParams(schema={"type": "对象"})

    def test_argument_is_called_schema(self) -> None:
        """The checker finds the argument under the name authors write."""
        from evaldsl.stdlib.structure import JsonSchemaParams

        assert "schema" in JsonSchemaParams.model_fields
