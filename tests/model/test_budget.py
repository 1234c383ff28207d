"""Answer budgets: the most tokens an answer fitting its schema can take."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from evaldsl.cases.case import Message
from evaldsl.cases.scopes import Unit
from evaldsl.model.budget import ANSWER_SLACK, answer_tokens
from evaldsl.model.checks import ChatTask
from evaldsl.model.prompts import build_request, repair_request
from evaldsl.stdlib.judging import JudgeCheck, JudgeParams

SCORE = {"type": "integer", "minimum": 0, "maximum": 10}
UNIT = Unit((Message("user", "空调坏了"), Message("assistant", "请留下地址")), "请留下地址")


class TestTheRule:
    def test_an_integer_takes_the_digits_of_its_wider_bound(self) -> None:
        assert answer_tokens(SCORE) == 2 + 2 + ANSWER_SLACK
        assert answer_tokens({"type": "integer", "minimum": -1000, "maximum": 5}) == (
            2 + 5 + ANSWER_SLACK)

    def test_text_costs_three_tokens_a_character(self) -> None:
        assert answer_tokens({"type": "string", "maxLength": 10}) == 2 + 2 + 30 + ANSWER_SLACK

    def test_an_enum_takes_its_longest_value(self) -> None:
        """ASCII labels by their characters, Chinese ones as text."""
        assert answer_tokens({"enum": ["a", "abcd"]}) == 2 + 6 + ANSWER_SLACK
        assert answer_tokens({"enum": ["报修"]}) == 2 + 2 + 6 + ANSWER_SLACK

    def test_unbounded_text_or_lists_leave_the_answer_unbounded(self) -> None:
        assert answer_tokens({"type": "string"}) is None
        assert answer_tokens({"type": "array", "items": SCORE}) is None
        assert answer_tokens({"type": "object", "properties": {
            "a": SCORE, "b": {"type": "string"}}}) is None

    def test_an_array_counts_each_item_and_its_comma(self) -> None:
        assert answer_tokens({"type": "array", "items": SCORE, "maxItems": 3}) == (
            2 + 2 + 3 * (4 + 1) + ANSWER_SLACK)


TEXT = st.text(st.characters(codec="utf-8", max_codepoint=0xFFFF,
                             exclude_categories=("Cc", "Cs"), exclude_characters='"\\'),
               max_size=40)


@st.composite
def schema_and_answer(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """An object schema of bounded fields and an answer that fits it."""
    names = draw(st.lists(st.text("abcdefgh", min_size=1, max_size=8), min_size=1,
                          max_size=5, unique=True))
    properties: dict[str, Any] = {}
    answer: dict[str, Any] = {}
    for name in names:
        limit = draw(st.integers(1, 1000))
        kind = draw(st.sampled_from(["integer", "string", "boolean"]))
        if kind == "integer":
            properties[name] = {"type": "integer", "minimum": -limit, "maximum": limit}
            answer[name] = draw(st.integers(-limit, limit))
        elif kind == "string":
            properties[name] = {"type": "string", "maxLength": limit}
            answer[name] = draw(TEXT.filter(lambda t, n=limit: len(t) <= n))
        else:
            properties[name] = {"type": "boolean"}
            answer[name] = draw(st.booleans())
    return {"type": "object", "properties": properties}, answer


@given(schema_and_answer())
def test_no_fitting_answer_takes_more_bytes_than_its_budget(case: Any) -> None:
    """At one token per UTF-8 byte (the worst a byte-level tokenizer does), any answer
    that fits the schema, spaced as a grammar allows, stays within the budget."""
    schema, answer = case
    spaced = json.dumps(answer, ensure_ascii=False, indent=0).replace('":', '": ')
    budget = answer_tokens(schema)
    assert budget is not None
    assert len(spaced.encode("utf-8")) <= budget


class TestTheRequest:
    def test_a_request_asks_for_its_answer_s_budget(self) -> None:
        """`max_tokens` is the budget of the fused answer's schema, and a repair keeps it."""
        task = JudgeCheck().plan(JudgeParams(criteria="礼貌"), UNIT).task
        assert task is not None
        request = build_request(UNIT, [("polite", task), ("clear", task)])
        assert request.schema is not None
        assert request.max_tokens == answer_tokens(request.schema)
        assert request.max_tokens is not None and request.max_tokens > 2 * 3 * 120
        assert repair_request(request, "{", "cut").max_tokens == request.max_tokens

    def test_an_unbounded_schema_leaves_the_cap_to_the_server(self) -> None:
        request = build_request(UNIT, [("free", ChatTask("q", {"type": "string"}))])
        assert request.max_tokens is None
