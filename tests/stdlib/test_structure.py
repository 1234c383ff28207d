"""json_schema: parse, validate, fail with reasons."""

from __future__ import annotations

import json
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

    @pytest.mark.parametrize(("reply", "passed"), [('[1, "二"]', True), ("null", True),
                                                   ("订单已发货", False)])
    def test_the_empty_schema_accepts_any_json(self, run: Run, dialog: Dialog, reply: str,
                                               passed: bool) -> None:
        r = run("json_schema", dialog(("user", "x"), ("assistant", reply)), schema={})
        assert (r.passed, r.score) == (passed, 1.0 if passed else 0.0)

    def test_invalid_schema_is_a_params_error(self) -> None:
        from evaldsl.stdlib.structure import JsonSchemaParams

        with pytest.raises(ValidationError, match="invalid JSON Schema"):
            JsonSchemaParams(schema={"type": "对象"})

    def test_argument_is_called_schema(self) -> None:
        """The checker finds the argument under the name authors write."""
        from evaldsl.stdlib.structure import JsonSchemaParams

        assert "schema" in JsonSchemaParams.model_fields


class TestFormats:
    """`format` keywords are checked, not only read as annotations."""

    CASES = [
        ("date", "2024-03-15", "2024-13-45"),
        ("date-time", "2024-03-15T09:30:00+08:00", "2024-03-15 9点半"),
        ("time", "09:30:00+08:00", "9点半"),
        ("email", "kefu@example.com", "kefu.example.com"),
        ("uri", "https://example.com/a?b=1", "example dot com"),
        ("ipv4", "192.168.1.10", "192.168.1.300"),
        ("ipv6", "::1", "::g"),
        ("uuid", "2f1e6b9c-5d7a-4c3e-9b8a-0d1c2e3f4a5b", "2f1e6b9c"),
    ]

    @pytest.mark.parametrize(("fmt", "good", "bad"), CASES)
    def test_format_is_checked(self, run: Run, dialog: Dialog, fmt: str, good: str,
                               bad: str) -> None:
        """A value of the format passes; one that is not fails naming the format."""
        schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}

        def reply(value: str) -> Case:
            return dialog(("user", "x"), ("assistant", json.dumps({"v": value})))

        assert run("json_schema", reply(good), schema=schema).passed is True
        failed = run("json_schema", reply(bad), schema=schema)
        assert failed.passed is False
        assert failed.fields["errors"] == [f"v: '{bad}' is not a '{fmt}'"]

    def test_unknown_format_is_an_annotation(self, run: Run, dialog: Dialog) -> None:
        """A format no checker knows (`phone`) constrains nothing, as JSON Schema says."""
        schema = {"properties": {"v": {"type": "string", "format": "phone"}}}
        case = dialog(("user", "x"), ("assistant", '{"v": "anything"}'))
        assert run("json_schema", case, schema=schema).passed is True


class TestSchemaPatternsRunUnderATimeLimit:
    """A schema from case data may carry a catastrophic pattern: an error, never a hang."""

    EVIL = "^(a|aa)+$"
    TEXT = "a" * 40 + "!"

    def _timed(self, run: Run, case: Case, schema: dict[str, Any]) -> tuple[CheckResult, float]:
        import time

        start = time.monotonic()
        result = run("json_schema", case, schema=schema)
        return result, time.monotonic() - start

    def test_pattern_timeout_is_an_error_value(self, run: Run, dialog: Dialog) -> None:
        from evaldsl.primitives.timed_match import PATTERN_TIMEOUT_S

        case = dialog(("user", "x"), ("assistant", json.dumps({"code": self.TEXT})))
        schema = {"properties": {"code": {"type": "string", "pattern": self.EVIL}}}
        r, took = self._timed(run, case, schema)
        assert r.is_error and "longer than" in r.reason
        assert took < PATTERN_TIMEOUT_S + 5

    def test_pattern_properties_timeout_is_an_error_value(self, run: Run, dialog: Dialog) -> None:
        from evaldsl.primitives.timed_match import PATTERN_TIMEOUT_S

        case = dialog(("user", "x"), ("assistant", json.dumps({self.TEXT: 1})))
        schema = {"patternProperties": {self.EVIL: {"type": "string"}}}
        r, took = self._timed(run, case, schema)
        assert r.is_error and "longer than" in r.reason
        assert took < PATTERN_TIMEOUT_S + 5

    def test_timed_patterns_still_judge(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", '{"订单号": "B1", "状态": "已发货"}'))
        r = run("json_schema", case, schema=ORDER)
        assert r.passed is False and "does not match" in r.reason

    def test_regex_format_uses_the_regex_syntax(self, run: Run, dialog: Dialog) -> None:
        schema = {"type": "string", "format": "regex"}
        good = run("json_schema", dialog(("user", "x"), ("assistant", '"\\\\p{Han}+"')),
                   schema=schema)
        bad = run("json_schema", dialog(("user", "x"), ("assistant", '"(unclosed"')),
                  schema=schema)
        assert good.passed is True and bad.passed is False
