"""Expression semantics: coercion, errors, percentages, texts, labels, case fields."""

from __future__ import annotations

from typing import Any

import pytest

import evaldsl
from tests.support import interpreter_kit as kit


def verdict(condition: str, *, lets: str = "", **probes: Any) -> str | None:
    """The verdict label of `yes if CONDITION` for one case with the given probes."""
    text = f"""
case {{ tier: text?  amount: number?  tags: list?  raw: any?  flag: bool? }}
check a = probe(key: "a")
check b = probe(key: "b", min: 0.8)
{lets}
outcome {{
  yes if {condition}
  no otherwise
}}
"""
    spec = evaldsl.loads(text, registry=kit.make_kit().registry)
    fields = probes.pop("fields", {})
    return spec.evaluate({**kit.case("c", **probes), **fields}).label


class TestBareCheckCoercion:
    def test_a_bare_check_is_passed_in_a_condition(self) -> None:
        assert verdict("a", a=0.6) == "yes"
        assert verdict("b", b=0.6) == "no"

    def test_a_bare_check_is_its_score_in_a_number(self) -> None:
        assert verdict("b >= 0.6", b=0.6) == "yes"
        assert verdict("a + b > 1.5", a=0.9, b=0.7) == "yes"

    def test_a_let_holding_a_bare_check_is_coerced_where_it_is_used(self) -> None:
        assert verdict("x and x >= 0.25", lets="let x = b", b=0.3) == "no"
        assert verdict("x >= 0.25", lets="let x = b", b=0.3) == "yes"

    def test_compared_with_a_declared_field_it_takes_the_fields_kind(self) -> None:
        """`a == case.amount` (a number) is the score, `a == case.flag` the passed flag.

        The checker's types decide, as for literals; the runtime used to read
        the declared fields as untyped and compared the check's `.value`.
        """
        assert verdict("a == case.amount", a=0.6, fields={"amount": 0.6}) == "yes"
        assert verdict("a == case.flag", a=0.6, fields={"flag": True}) == "yes"
        assert verdict("a == case.raw", a=0.6, fields={"raw": 6.0}) == "yes"

    def test_fields_of_a_check(self) -> None:
        assert verdict("a.value == 6", a=0.6) == "yes"
        assert verdict("a.passed and not b.passed", a=0.6, b=0.6) == "yes"


class TestErrors:
    @pytest.mark.parametrize("condition", ["a + 1 > 1.5", "a >= 0.2", "-a < -0.5", "a * 2 == 0"])
    def test_arithmetic_and_comparison_propagate_errors(self, condition: str) -> None:
        assert verdict(condition, a="error") == "error"

    def test_division_by_zero_is_an_error(self) -> None:
        assert verdict("1 / (a - a) > 0", a=0.5) == "error"

    def test_an_absent_case_field_is_an_error(self) -> None:
        assert verdict('case.tier == "gold"') == "error"
        assert verdict('case.tier == "gold"', fields={"tier": "gold"}) == "yes"

    def test_comparing_a_text_with_a_number_is_an_error_at_run_time(self) -> None:
        """A field of type `any` reaches the comparison as a text (a `number` field holding
        text is refused before, as a bad row)."""
        assert verdict("case.raw > 3", fields={"raw": "many"}) == "error"


class TestValues:
    def test_percentages_are_fractions(self) -> None:
        assert verdict("a >= 50%", a=0.5) == "yes"
        assert verdict("a >= 51%", a=0.5) == "no"

    def test_membership_in_lists_maps_and_texts(self) -> None:
        assert verdict('"vip" in case.tags', fields={"tags": ["vip", "new"]}) == "yes"
        assert verdict('"vi" in case.tier', fields={"tier": "vip"}) == "yes"
        assert verdict('"x" not in case.tags', fields={"tags": []}) == "yes"
        assert verdict('case.tier in ["a", "b"]', fields={"tier": "c"}) == "no"

    def test_equality_never_confuses_true_with_one(self) -> None:
        assert verdict("case.raw == true", fields={"raw": 1}) == "no"
        assert verdict("case.raw == 1.0", fields={"raw": 1}) == "yes"

    def test_constant_lets_fold_and_maps_index(self) -> None:
        lets = 'let limits = {gold: 0.9, basic: 0.5}\nlet bar = limits["gold"] - 10%'
        assert verdict("a >= bar", lets=lets, a=0.8) == "yes"
        assert verdict("a >= limits.basic", lets=lets, a=0.4) == "no"


class TestLabels:
    SPEC = """
check s = probe(key: "s")
outcome level {
  excellent if s >= 0.8
  fine if s >= 0.5
  poor otherwise
}
outcome {
  pass if level == "excellent" or fine
  fail otherwise
}
"""

    @pytest.mark.parametrize(("score", "label"), [(0.9, "pass"), (0.6, "pass"), (0.1, "fail"),
                                                  ("error", "error")])
    def test_labels_read_as_conditions_and_block_names_as_text(self, score: Any,
                                                                label: str) -> None:
        spec = evaldsl.loads(self.SPEC, registry=kit.make_kit().registry)
        assert spec.evaluate(kit.case("c", s=score)).label == label


class TestCaseMapKey:
    """`case.field.key` is read in one closure when the field holds a map; every other case
    reads as `get_attr` reads it."""

    def test_the_key_of_a_map_and_what_is_not_one(self) -> None:
        assert verdict("case.raw.k == 2", fields={"raw": {"k": 2}}) == "yes"
        assert verdict("case.raw.k == 2", fields={"raw": {"k": 3}}) == "no"
        for raw in ({"j": 2}, 7, "text", [1], None):
            fields = {} if raw is None else {"raw": raw}
            assert verdict("case.raw.k == 2", fields=fields) == "error"
            assert verdict("case.raw.k == 2 or true", fields=fields) == "yes"

    def test_the_reasons_are_those_of_any_attribute(self) -> None:
        text = """
case { raw: any? }
check a = probe(key: "a")
outcome {
  yes if case.raw.k == 2
  no otherwise
}
"""
        spec = evaldsl.loads(text, registry=kit.make_kit().registry)
        errors = [spec.evaluate({**kit.case("c"), **fields}).errors["outcome"]
                  for fields in ({"raw": {"j": 2}}, {"raw": 7}, {})]
        assert "the map has no key `k`" in errors[0]
        assert "'k' is not a field of int" in errors[1]
        assert "the case has no field `raw`" in errors[2]
