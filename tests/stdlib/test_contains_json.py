"""contains_json: JSON values inside prose, each option with a verdict and score by hand."""

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
    "required": ["订单号"],
    "properties": {"订单号": {"type": "string", "pattern": "^A\\d{4}$"}},
}


def reply(dialog: Dialog, text: str) -> Case:
    return dialog(("user", "x"), ("assistant", text))


class TestFinding:
    """Where a JSON value may stand in ordinary text."""

    def test_fence_after_a_sentence(self, run: Run, dialog: Dialog) -> None:
        text = '好的，结果如下：\n```json\n{"订单号": "A1234"}\n```\n还有问题请告诉我。'
        r = run("contains_json", reply(dialog, text))
        assert (r.passed, r.score, r.value) == (True, 1.0, {"订单号": "A1234"})
        assert r.fields["count"] == 1

    def test_bare_object_inside_a_sentence(self, run: Run, dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, 'The order {"订单号": "A1234"} has shipped.'))
        assert (r.passed, r.score, r.value) == (True, 1.0, {"订单号": "A1234"})

    def test_bare_array_inside_a_sentence(self, run: Run, dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, "ids are [3, 5, 8] today"))
        assert (r.passed, r.score, r.value) == (True, 1.0, [3, 5, 8])

    def test_prose_without_json_fails_with_reason(self, run: Run, dialog: Dialog) -> None:
        """A brace that opens nothing valid is prose, not JSON: a fail, not an error."""
        r = run("contains_json", reply(dialog, "use {curly} braces and [brackets"))
        assert (r.passed, r.score, r.value) == (False, 0.0, None)
        assert not r.is_error
        assert r.reason == "the reply contains no JSON object or array"
        assert r.fields["count"] == 0

    def test_inner_value_of_a_broken_one_is_found(self, run: Run, dialog: Dialog) -> None:
        """A `{` that opens nothing valid does not hide a valid object after it."""
        r = run("contains_json", reply(dialog, 'oops {"a": {"b": 1} and more'))
        assert (r.passed, r.value) == (True, {"b": 1})

    def test_nested_values_are_not_counted_twice(self, run: Run, dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, 'a {"x": [1, {"y": 2}]} then [true]'))
        assert r.fields["values"] == [{"x": [1, {"y": 2}]}, [True]]
        assert r.fields["count"] == 2

    def test_scalars_are_not_values(self, run: Run, dialog: Dialog) -> None:
        """A number or a quoted word in prose is no evidence of JSON."""
        r = run("contains_json", reply(dialog, 'it costs 42 and is "cheap"'))
        assert (r.passed, r.score) == (False, 0.0)


class TestSchema:
    def test_some_value_valid_passes(self, run: Run, dialog: Dialog) -> None:
        text = '先是 {"订单号": "B1"}，更正为 {"订单号": "A1234"}。'
        r = run("contains_json", reply(dialog, text), schema=ORDER)
        assert (r.passed, r.score, r.value) == (True, 1.0, {"订单号": "A1234"})

    def test_no_value_valid_fails_listing_errors(self, run: Run, dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, '结果 {"订单号": "B1"} 和 [1]'), schema=ORDER)
        assert (r.passed, r.score, r.value) == (False, 0.0, None)
        assert r.fields["errors"] == [
            "#1 订单号: 'B1' does not match '^A\\\\d{4}$'",
            "#2 (root): [1] is not of type 'object'",
        ]

    def test_invalid_schema_is_a_params_error(self) -> None:
        from evaldsl.stdlib.contains_json import ContainsJsonParams

        with pytest.raises(ValidationError, match="invalid JSON Schema"):
            ContainsJsonParams(schema={"type": "对象"})

    def test_catastrophic_pattern_is_an_error_value(self, run: Run, dialog: Dialog) -> None:
        text = "code: " + json.dumps({"code": "a" * 40 + "!"})
        schema = {"properties": {"code": {"type": "string", "pattern": "^(a|aa)+$"}}}
        r = run("contains_json", reply(dialog, text), schema=schema)
        assert r.is_error and "longer than" in r.reason


class TestAll:
    def test_all_valid_passes(self, run: Run, dialog: Dialog) -> None:
        text = '{"订单号": "A0001"} 与 {"订单号": "A0002"}'
        r = run("contains_json", reply(dialog, text), schema=ORDER, all=True)
        assert (r.passed, r.score) == (True, 1.0)
        assert r.value == [{"订单号": "A0001"}, {"订单号": "A0002"}]

    def test_one_invalid_fails_with_the_share_valid(self, run: Run, dialog: Dialog) -> None:
        text = '{"订单号": "A0001"}, {"订单号": "B2"}, {"订单号": "A0003"}, {"订单号": 4}'
        r = run("contains_json", reply(dialog, text), schema=ORDER, all=True)
        assert (r.passed, r.score) == (False, 0.5)
        assert r.fields["errors"] == [
            "#2 订单号: 'B2' does not match '^A\\\\d{4}$'",
            "#4 订单号: 4 is not of type 'string'",
        ]

    def test_all_without_json_fails(self, run: Run, dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, "没有数据"), all=True)
        assert (r.passed, r.score) == (False, 0.0)


class TestArrays:
    def test_arrays_false_finds_objects_only(self, run: Run, dialog: Dialog) -> None:
        """promptfoo's reading: `see [1]` is a citation, not JSON."""
        r = run("contains_json", reply(dialog, "see [1] and [2]"), arrays=False)
        assert (r.passed, r.score) == (False, 0.0)

    def test_arrays_false_still_finds_arrays_inside_objects(self, run: Run,
                                                           dialog: Dialog) -> None:
        r = run("contains_json", reply(dialog, '[0] {"ids": [1]}'), arrays=False)
        assert (r.passed, r.value) == (True, {"ids": [1]})


class TestLimits:
    def test_too_many_openings_before_a_verdict_is_an_error(self, run: Run,
                                                            dialog: Dialog) -> None:
        """Past the scanning bound the verdict is unknown: an error, never a guess."""
        from evaldsl.stdlib.json_scan import MAX_OPENINGS

        r = run("contains_json", reply(dialog, "{" * (MAX_OPENINGS + 1) + ' {"a": 1}'))
        assert r.is_error and "openings" in r.reason

    def test_a_verdict_reached_before_the_bound_stands(self, run: Run, dialog: Dialog) -> None:
        from evaldsl.stdlib.json_scan import MAX_OPENINGS

        r = run("contains_json", reply(dialog, '{"a": 1} ' + "{" * (MAX_OPENINGS + 1)))
        assert (r.passed, r.score) == (True, 1.0)

    def test_long_text_is_scanned_up_to_the_bound(self, run: Run, dialog: Dialog) -> None:
        from evaldsl.stdlib.json_scan import MAX_CHARS

        r = run("contains_json", reply(dialog, "x" * MAX_CHARS + ' {"a": 1}'))
        assert r.is_error and "characters" in r.reason

    def test_deep_nesting_is_bounded_not_a_crash(self, run: Run, dialog: Dialog) -> None:
        """Nesting past the decoder's recursion limit fails that opening, then the next."""
        r = run("contains_json", reply(dialog, "[" * 5000 + "]" * 5000))
        assert r.passed is True or "openings" in r.reason


class TestScanner:
    """The scanner alone, on plain text."""

    def test_positions_and_values(self) -> None:
        from evaldsl.stdlib.json_scan import scan_json

        found = scan_json('a {"k": 1} b [2]', arrays=True)
        assert [(v.start, v.end, v.data) for v in found.values] == [(2, 10, {"k": 1}),
                                                                   (13, 16, [2])]
        assert found.complete is True


class TestLinting:
    """The real primitive's parameters are linted at check time, with spans."""

    @staticmethod
    def found(text: str, code: str) -> list[tuple[str, int]]:
        from evaldsl.checker import check_source
        from evaldsl.primitives.registry import default_registry

        spec = f"{text}\nmetric m = rate(c)\n"
        diagnostics = check_source(spec, "t.eval", default_registry())[1]
        return [(d.message, d.span.col) for d in diagnostics if d.code == code]

    def test_bad_schema_points_into_the_map(self) -> None:
        assert self.found('check c = contains_json(schema: {type: "对象"})', "E209") == [
            ("`schema` is not a valid JSON schema: '对象' is not valid under any of the given "
             "schemas (at `type`)", 40)]

    def test_flag_needs_a_condition(self) -> None:
        assert self.found("check c = contains_json(all: [true])", "E203") == [
            ("`all` must be a condition (true/false), found a list", 30)]

    def test_misspelt_parameter(self) -> None:
        assert self.found("check c = contains_json(every: true)", "E201") == [
            ("`contains_json` has no parameter `every`", 25)]
