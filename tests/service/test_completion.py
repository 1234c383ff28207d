"""Completions, mostly on text that does not parse: the spec as it is being typed."""

from __future__ import annotations

from evaldsl.service.items import Kind
from tests.support.service_kit import URI, typed


def labels(before: str, after: str = "") -> list[str]:
    service, position = typed(before, after)
    return [c.label for c in service.completion(URI, position)]


class TestCompletion:
    def test_primitives_after_the_equals_sign(self) -> None:
        """`check x = ` offers the registry, with the cost class beside each."""
        service, position = typed("check 新检查 = ju")
        found = service.completion(URI, position)
        assert [c.label for c in found] == ["judge"]
        assert found[0].kind is Kind.FUNCTION
        assert found[0].detail.startswith("model call · ")
        assert "criteria" in found[0].documentation

    def test_parameters_not_given_yet_with_types_and_defaults(self) -> None:
        """Inside the call: its parameters, those written already left out."""
        service, position = typed('check 新检查 = judge(criteria: "清楚", ')
        found = {c.label: c for c in service.completion(URI, position)}
        assert "criteria" not in found
        assert found["scale"].detail == "scale: int = 10"
        assert found["scale"].insert_text == "scale: "
        assert found["scope"].detail == "scope (default last_reply)"
        assert found["min"].kind is Kind.PROPERTY

    def test_parameters_on_a_new_line_of_the_call(self) -> None:
        assert "any" in labels("check 词 = keyword(\n  scope: replies,\n  a")

    def test_case_fields_after_case_dot(self) -> None:
        """`case.` offers the fields of `case {}`, with their declared types."""
        service, position = typed("metric 新 = rate(case.")
        found = service.completion(URI, position)
        assert [(c.label, c.detail) for c in found] == [("意图", "text"), ("回复要点", "text?")]

    def test_result_fields_after_a_check_name(self) -> None:
        """`意图识别.` offers the result fields of `classify`."""
        assert labels("metric 新 = rate(意图识别.") == ["passed", "score", "value", "label",
                                                    "margin", "agreement", "votes", "judges",
                                                    "judge_agreement", "by_judge"]

    def test_the_spec_names_in_an_expression(self) -> None:
        """Checks, lets, tables, labels and `case`, by the prefix typed."""
        assert labels("metric 新 = rate(意") == ["意图识别"]
        found = labels("metric 新 = rate(")
        assert {"礼貌", "门槛", "同义词", "通过", "失败", "case", "rate"} <= set(found)

    def test_choice_values(self) -> None:
        """A choice parameter's value is one of its words."""
        assert labels("check 槽 = slots(slots: {a: \"b\"}, mode: ") == ["slot", "step", "hybrid"]

    def test_scopes_after_scope(self) -> None:
        found = labels("check 词 = keyword(scope: la")
        assert found == ["last_reply", "last_user"]

    def test_statement_keywords_at_the_start_of_a_line(self) -> None:
        assert labels("me") == ["metric"]

    def test_a_string_or_comment_hides_brackets(self) -> None:
        """A `(` inside a string or a comment opens nothing."""
        assert labels('# 注释 (\nlet 说明 = "(" \nme') == ["metric"]

    def test_an_unknown_primitive_offers_names(self) -> None:
        """In the call of a primitive that does not exist, names are all there is."""
        assert "礼貌" in labels("check 新 = nothing_like_it(x: ")
