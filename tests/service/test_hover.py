"""Hovers over primitives, parameters and the spec's own names."""

from __future__ import annotations

from evaldsl.service.positions import Range
from tests.support.service_kit import URI, ZH_SPEC, at, opened


def hover(needle: str, into: int = 0, nth: int = 0, text: str = ZH_SPEC) -> str:
    found = opened(text).hover(URI, at(text, needle, into, nth))
    assert found is not None
    return found.markdown


class TestHover:
    def test_a_primitive_shows_its_doc_cost_and_parameters(self) -> None:
        text = hover("judge(", 2)
        assert text.startswith("**judge** (cost: model call)")
        assert "- `criteria: str (required)`" in text
        assert "result: `.passed` (bool)" in text

    def test_a_parameter_shows_its_type_default_and_meaning(self) -> None:
        text = hover("scale:", 1)
        assert text.startswith("parameter of `judge`\n\n`scale: int = 10`")

    def test_a_per_case_parameter_says_so(self) -> None:
        assert "(may be per case)" in hover("expect:")

    def test_a_check_shows_its_definition_cost_and_estimate(self) -> None:
        """Hovering a use of `意图识别` shows where it is defined and what it costs."""
        text = hover("意图识别 and", 2)
        assert text.startswith(
            "```evaldsl\ncheck 意图识别 = classify(labels: [\"咨询\", \"投诉\"], "
            "expect: case.意图)\n```")
        assert "cost: model call" in text
        assert "estimate: 1 model call per case" in text  # `意图准确率` reads it for every case

    def test_a_check_behind_a_cheap_gate_makes_at_most_one_call(self) -> None:
        assert "estimate: at most 1 model call per case" in hover("礼貌.value", 1)

    def test_a_let_shows_its_static_type(self) -> None:
        assert hover("门槛", nth=1).endswith("type: number")

    def test_a_case_field_shows_its_declared_type(self) -> None:
        assert hover("case.意图", 6) == "case field `意图`: text"

    def test_a_result_field_shows_its_type(self) -> None:
        assert hover("意图识别.passed", 6) == "result field of `意图识别`: bool"

    def test_a_label_names_its_block(self) -> None:
        assert hover("rate(通过", 5) == "label `通过` of the verdict: a condition (true/false)"

    def test_the_range_is_the_name(self) -> None:
        found = opened().hover(URI, at(ZH_SPEC, "礼貌.value", 1))
        assert found is not None
        assert found.range == Range(at(ZH_SPEC, "礼貌.value"), at(ZH_SPEC, "礼貌.value", 2))

    def test_nothing_under_the_cursor(self) -> None:
        assert opened().hover(URI, at(ZH_SPEC, "spec")) is None
