"""args_match: field-by-field comparison, normalization, pairing of several calls, laws."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.cases.case import Case
from evaldsl.primitives.tables import FLAG_OPTIONS, NormalizationTable
from evaldsl.stdlib.tools.argmatch import Call, Options, canonical_text
from evaldsl.stdlib.tools.pairing import match_calls
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]
MakeCall = Callable[..., dict[str, Any]]

REGIONS = NormalizationTable.build("地区", frozenset({"nfkc", "casefold", "strip"}), "",
                                   {"华东": "east", "East China": "east"})
AMOUNTS = NormalizationTable.build("金额", frozenset({"nfkc", "strip"}), "",
                                   {"1万": "10000", "一万": "10000"})


def one(expected: dict[str, Any], actual: dict[str, Any], **options: Any) -> Any:
    return match_calls([Call("f", expected)], [Call("f", actual)], Options(**options))


class TestFields:
    def test_exact_match_is_strict_and_normalized(self) -> None:
        v = one({"city": "北京", "n": 2}, {"city": "北京", "n": 2})
        assert (v.passed, v.strict, v.mismatches) == (True, True, [])

    def test_case_difference_message(self) -> None:
        """Without a table `East` and `east` differ; the message names both."""
        v = one({"region": "east"}, {"region": "East"})
        assert v.mismatches == ["region: 'East' ≠ 'east'"]

    def test_table_reconciles_normalized_but_not_strict(self) -> None:
        v = one({"region": "east"}, {"region": " East China "}, tables={"region": REGIONS})
        assert (v.passed, v.strict) == (True, False)
        assert v.strict_mismatches == ["region: ' East China ' ≠ 'east'"]

    def test_synonym_from_chinese(self) -> None:
        assert one({"region": "east"}, {"region": "华东"}, table=REGIONS).passed

    def test_missing_field(self) -> None:
        v = one({"name": "张三", "phone": "13800000000"}, {"name": "张三"})
        assert v.mismatches == ["phone: missing"]
        assert v.score == 0.5

    def test_unexpected_field_unless_allowed(self) -> None:
        assert one({"a": 1}, {"a": 1, "b": 2}).mismatches == ["b: unexpected"]
        assert one({"a": 1}, {"a": 1, "b": 2}, allow_extra_args=True).passed

    def test_optional_field_may_be_omitted(self) -> None:
        v = one({"name": "张三", "note": "无"}, {"name": "张三"}, optional=frozenset({"note"}))
        assert v.passed and v.strict

    def test_numbers_as_numbers(self) -> None:
        """"10000" equals 10000 after normalization, never strictly."""
        v = one({"amount": 10000}, {"amount": "10000"})
        assert (v.passed, v.strict) == (True, False)
        assert v.strict_mismatches == ["amount: '10000' ≠ 10000"]

    def test_thousands_separator_and_float(self) -> None:
        assert one({"amount": 10000}, {"amount": "10,000.0"}).passed

    def test_chinese_number_through_a_table(self) -> None:
        assert one({"amount": 10000}, {"amount": "1万"}, tables={"amount": AMOUNTS}).passed
        assert not one({"amount": 10000}, {"amount": "1万"}).passed

    def test_coerce_numbers_off_keeps_types_apart(self) -> None:
        assert not one({"amount": 10000}, {"amount": "10000"}, coerce_numbers=False).passed

    def test_int_and_float_are_the_same_number(self) -> None:
        assert one({"x": 2}, {"x": 2.0}).strict

    def test_bool_is_not_a_number(self) -> None:
        assert not one({"x": 1}, {"x": True}).strict

    def test_nested_objects_name_the_path(self) -> None:
        v = one({"address": {"city": "上海", "district": "浦东"}},
                {"address": {"city": "上海", "district": "徐汇"}})
        assert v.mismatches == ["address.district: '徐汇' ≠ '浦东'"]

    def test_nested_table_by_path(self) -> None:
        v = one({"address": {"region": "east"}}, {"address": {"region": "华东"}},
                tables={"address.region": REGIONS})
        assert v.passed

    def test_lists_are_ordered_by_default(self) -> None:
        v = one({"items": ["米饭", "面条"]}, {"items": ["面条", "米饭"]})
        assert not v.passed
        assert v.mismatches == ['items: ["面条", "米饭"] ≠ ["米饭", "面条"]']

    def test_declared_set_ignores_order(self) -> None:
        v = one({"items": ["米饭", "面条"]}, {"items": ["面条", "米饭"]},
                sets=frozenset({"items"}))
        assert v.passed and v.strict

    def test_set_respects_multiplicity(self) -> None:
        assert not one({"t": ["a", "a"]}, {"t": ["a", "b"]}, all_sets=True).passed

    def test_several_acceptable_values(self) -> None:
        v = one({"city": "北京"}, {"city": "Peking"}, accept={"city": ["Beijing", "Peking"]})
        assert v.passed
        bad = one({"city": "北京"}, {"city": "天津"}, accept={"city": ["Beijing"]})
        assert bad.mismatches == ["city: '天津' ≠ '北京' | 'Beijing'"]

    def test_alternatives_style_with_omittable(self) -> None:
        """BFCL's gold: a list of acceptable values per field, "" = may be omitted."""
        gold = {"location": ["Beijing, China", "北京"], "unit": ["", "celsius"]}
        assert one(gold, {"location": "北京"}, alternatives=True).passed
        v = one(gold, {"location": "上海", "unit": "kelvin"}, alternatives=True)
        assert v.mismatches == ["location: '上海' ≠ 'Beijing, China' | '北京'",
                                "unit: 'kelvin' ≠ (left out) | 'celsius'"]

    def test_arguments_that_are_not_json(self) -> None:
        """Broken JSON from the agent is a mismatch of the call, not an error of the check."""
        from evaldsl.values import ErrorValue

        bad = ErrorValue("tool-call arguments are not JSON: Expecting ','")
        v = match_calls([Call("f", {"a": 1})], [Call("f", bad)], Options())
        assert v.mismatches == ["arguments: tool-call arguments are not JSON: Expecting ','"]


class TestPairing:
    """Pairing: same name only; most passing pairs, then most pairs, then fewest mismatches."""

    def test_order_free_pairing(self) -> None:
        expected = [Call("weather", {"city": "北京"}), Call("weather", {"city": "上海"})]
        actual = [Call("weather", {"city": "上海"}), Call("weather", {"city": "北京"})]
        v = match_calls(expected, actual, Options())
        assert v.passed and v.pairs == [(0, 1), (1, 0)]

    def test_order_matters_pairs_by_position(self) -> None:
        expected = [Call("weather", {"city": "北京"}), Call("weather", {"city": "上海"})]
        actual = [Call("weather", {"city": "上海"}), Call("weather", {"city": "北京"})]
        v = match_calls(expected, actual, Options(order_matters=True))
        assert not v.passed
        assert v.mismatches[0] == "weather#1: city: '上海' ≠ '北京'"

    def test_optimal_not_greedy(self) -> None:
        """A greedy first fit would pair call 0 with the actual call call 1 needs."""
        expected = [Call("f", {"a": 1, "b": 2}), Call("f", {"a": 1, "b": 3})]
        actual = [Call("f", {"a": 1, "b": 3}), Call("f", {"a": 1, "b": 2})]
        assert match_calls(expected, actual, Options()).passed

    def test_closest_call_explains_the_failure(self) -> None:
        """Among two wrong calls, the one with fewer mismatches is paired."""
        expected = [Call("book", {"date": "3月11日", "time": "10:00", "people": 2})]
        actual = [Call("book", {"date": "3月12日", "time": "11:00", "people": 3}),
                  Call("book", {"date": "3月11日", "time": "10:00", "people": 3})]
        v = match_calls(expected, actual, Options(allow_extra_calls=True))
        assert v.pairs == [(0, 1)] and v.mismatches == ["people: 3 ≠ 2"]

    def test_names_never_cross_pair(self) -> None:
        v = match_calls([Call("cancel", {"id": 1})], [Call("create", {"id": 1})], Options())
        assert v.mismatches == ["call `cancel`: missing", "call `create`: unexpected"]

    def test_dotted_names(self) -> None:
        v = match_calls([Call("math.factorial", {"n": 5})], [Call("math_factorial", {"n": 5})],
                        Options())
        assert v.passed
        assert not match_calls([Call("math.factorial", {"n": 5})],
                               [Call("math_factorial", {"n": 5})],
                               Options(dotted_names=False)).passed

    def test_extra_call_fails_unless_allowed(self) -> None:
        expected = [Call("f", {})]
        actual = [Call("f", {}), Call("g", {})]
        assert match_calls(expected, actual, Options()).mismatches == ["call `g`: unexpected"]
        assert match_calls(expected, actual, Options(allow_extra_calls=True)).passed

    def test_no_expected_calls(self) -> None:
        assert match_calls([], [], Options()).passed
        assert not match_calls([], [Call("f", {})], Options()).passed

    def test_many_calls_fall_back_to_greedy(self) -> None:
        """Beyond the exact limit pairing is greedy, still exact for distinct names."""
        expected = [Call(f"f{i}", {"i": i}) for i in range(15)]
        actual = list(reversed([Call(f"f{i}", {"i": i}) for i in range(15)]))
        assert match_calls(expected, actual, Options()).passed


class TestPrimitive:
    def test_reads_the_last_reply(self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        case = dialog(("user", "帮我订华东区的服务"),
                      ("assistant", "", {"tool_calls": [call("book", {"region": "East"})]}))
        r = run("args_match", case, expected={"name": "book", "args": {"region": "east"}},
                tables={"region": REGIONS})
        assert (r.passed, r.fields["strict"]) == (True, False)
        assert r.fields["strict_mismatches"] == ["region: 'East' ≠ 'east'"]

    def test_bfcl_gold_with_expect_no_call(self, run: Run, dialog: Dialog,
                                           call: MakeCall) -> None:
        case = dialog(("user", "讲个笑话"), ("assistant", "", {"tool_calls": [call("f", {})]}))
        r = run("args_match", case, expected={"calls": [], "expect_no_call": True})
        assert r.passed is False
        quiet = dialog(("user", "讲个笑话"), ("assistant", "好的……"))
        assert run("args_match", quiet, expected={"calls": [], "expect_no_call": True}).passed

    def test_function_doc_types(self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        """With `functions`, "7890" for an integer is a type mismatch even normalized."""
        doc = {"name": "get_user", "parameters": {"type": "dict", "required": ["user_id"],
                                                  "properties": {"user_id": {"type": "integer"}}}}
        case = dialog(("user", "查用户7890"),
                      ("assistant", "", {"tool_calls": [call("get_user", {"user_id": "7890"})]}))
        r = run("args_match", case, expected={"name": "get_user", "args": {"user_id": [7890]}},
                alternatives=True, functions=[doc])
        assert r.fields["mismatches"] == ["user_id: expected integer, got string '7890'"]

    def test_null_among_the_gold_values_matches_null(self, run: Run, dialog: Dialog,
                                                     call: MakeCall) -> None:
        """BFCL reads a None among the possible values as a type the model may use.

        `[None, ""]` for a string parameter: the agent's `null` is of the gold's own
        type (BFCL's "variable" rule) and equal to an acceptable value; leaving the
        argument out is allowed by the `""`; `"x"` is a wrong value.
        """
        doc = {"name": "find", "parameters": {"type": "dict", "required": ["q"], "properties": {
            "q": {"type": "string"}, "near": {"type": "string"}}}}
        gold = {"name": "find", "args": {"q": ["咖啡"], "near": [None, ""]}}

        def verdict(args: dict[str, Any]) -> CheckResult:
            case = dialog(("user", "找咖啡"),
                          ("assistant", "", {"tool_calls": [call("find", args)]}))
            return run("args_match", case, expected=gold, alternatives=True, functions=[doc])

        assert verdict({"q": "咖啡", "near": None}).passed is True
        assert verdict({"q": "咖啡"}).passed is True
        assert verdict({"q": "咖啡", "near": "x"}).fields["mismatches"] == [
            "near: 'x' ≠ null | (left out)"]

    def test_actual_given_explicitly(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", "y"))
        r = run("args_match", case, expected={"a": 1},
                actual=[{"name": "f", "arguments": '{"a": 1}'}])
        assert r.passed is True

    def test_unreadable_expected_is_an_error(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", "y"))
        assert run("args_match", case, expected="not calls").is_error


# ---------------------------------------------------------------- laws

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.text(max_size=6), st.sampled_from(["East", "east", " 华东", "1万", "10000"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
    max_leaves=8)
arguments = st.dictionaries(st.sampled_from(["region", "amount", "items", "x"]), values,
                            max_size=4)
flags = st.frozensets(st.sampled_from(FLAG_OPTIONS))
tables = st.builds(
    NormalizationTable.build, st.just("t"), flags, st.sampled_from(["", " ,./-_*^"]),
    st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=4))
option_sets = st.builds(Options, table=st.one_of(st.none(), tables),
                        all_sets=st.booleans(), coerce_numbers=st.booleans(),
                        allow_extra_args=st.booleans())


def _shuffled(value: Any, rnd: Any) -> Any:
    if isinstance(value, list):
        items = [_shuffled(v, rnd) for v in value]
        rnd.shuffle(items)
        return items
    if isinstance(value, dict):
        return {k: _shuffled(v, rnd) for k, v in value.items()}
    return value


class TestLaws:
    @settings(max_examples=300, deadline=None)
    @given(arguments, arguments, option_sets)
    def test_law_strict_pass_implies_normalized_pass(self, expected: dict[str, Any],
                                                     actual: dict[str, Any],
                                                     options: Options) -> None:
        """Law: a strict match is always a normalized match (random pairs)."""
        v = match_calls([Call("f", expected)], [Call("f", actual)], options)
        assert not v.strict or v.passed

    @settings(max_examples=200, deadline=None)
    @given(arguments, option_sets)
    def test_law_strict_pass_implies_normalized_pass_on_equal_args(
            self, expected: dict[str, Any], options: Options) -> None:
        """Law: identical arguments match strictly, hence also normalized."""
        v = match_calls([Call("f", expected)], [Call("f", expected)], options)
        assert v.strict and v.passed

    @settings(max_examples=500, deadline=None)
    @given(st.text(max_size=12), tables)
    def test_law_normalization_is_idempotent(self, text: str,
                                             table: NormalizationTable) -> None:
        """Law: normalizing a normalized text changes nothing."""
        once = canonical_text(text, table)
        assert canonical_text(once, table) == once

    @settings(max_examples=200, deadline=None)
    @given(arguments, st.randoms(use_true_random=False))
    def test_law_declared_sets_ignore_order(self, expected: dict[str, Any], rnd: Any) -> None:
        """Law: with every list declared a set, any reordering still matches strictly."""
        actual = _shuffled(expected, rnd)
        v = match_calls([Call("f", expected)], [Call("f", actual)], Options(all_sets=True))
        assert v.strict and v.passed

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from("fgh"), arguments), max_size=4),
           st.lists(st.tuples(st.sampled_from("fgh"), arguments), max_size=4),
           st.randoms(use_true_random=False))
    def test_law_pairing_ignores_the_order_of_actual_calls(
            self, expected: list[tuple[str, dict[str, Any]]],
            actual: list[tuple[str, dict[str, Any]]], rnd: Any) -> None:
        """Law: without order_matters the verdict does not depend on call order."""
        exp = [Call(n, a) for n, a in expected]
        act = [Call(n, a) for n, a in actual]
        shuffled = list(act)
        rnd.shuffle(shuffled)
        one_way = match_calls(exp, act, Options())
        other = match_calls(exp, shuffled, Options())
        assert (one_way.passed, one_way.strict) == (other.passed, other.strict)
        assert len(one_way.mismatches) == len(other.mismatches)


@pytest.mark.parametrize("text", ["East China", " 华东 ", "ＥＡＳＴ"])
def test_regions_table_normal_forms(text: str) -> None:
    assert canonical_text(text, REGIONS) == "east"
