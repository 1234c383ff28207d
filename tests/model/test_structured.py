"""Reading structured answers: the tolerant parse and the fast schema check."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.model.errors import Unparsed
from evaldsl.model.structured import fits, parse_object, problem, read_answer

SCHEMA = {"type": "object", "properties": {
    "polite": {"type": "object", "properties": {
        "reason": {"type": "string"}, "score": {"type": "integer", "minimum": 0, "maximum": 10}},
        "required": ["reason", "score"], "additionalProperties": False},
    "kind": {"type": "string", "enum": ["refusal", "answer"]},
    "filled": {"type": "boolean"}},
    "required": ["polite", "kind", "filled"], "additionalProperties": False}

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False) | st.sampled_from(
        ["refusal", "answer", "x"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["polite", "kind", "filled", "reason", "score", "extra"]), inner,
        max_size=4),
    max_leaves=8)


class TestParse:
    @pytest.mark.parametrize(("text", "value"), [
        ('{"a": 1}', {"a": 1}),
        ('Sure! ```json\n{"a": 1}\n```', {"a": 1}),
        ('noise {"a": {"b": [1, 2]}} trailing', {"a": {"b": [1, 2]}}),
        ('{broken {"a": 2}', {"a": 2}),
    ])
    def test_the_first_json_object_is_found(self, text: str, value: Any) -> None:
        """Prose and code fences around the object are tolerated."""
        assert parse_object(text) == value

    def test_no_object_at_all_is_unparsed(self) -> None:
        """Text without JSON cannot be read."""
        with pytest.raises(Unparsed, match="not JSON"):
            parse_object("I rate it 8 out of 10")

    def test_a_non_conforming_answer_names_the_problem(self) -> None:
        """The message points at the offending property."""
        with pytest.raises(Unparsed, match="polite/score: 11 is greater than the maximum of 10"):
            read_answer("", {"polite": {"reason": "", "score": 11}, "kind": "answer",
                             "filled": True}, SCHEMA)


class TestFastCheck:
    @given(value=JSON)
    def test_law_fast_check_agrees_with_jsonschema(self, value: Any) -> None:
        """Law: the fast path accepts exactly what the reference validator accepts."""
        reference = jsonschema.Draft202012Validator(SCHEMA).is_valid(value)
        assert fits(value, SCHEMA) is reference
        assert (problem(value, SCHEMA) is None) is reference

    def test_unknown_keywords_defer_to_the_validator(self) -> None:
        """A keyword the fast path does not know makes it step aside."""
        assert fits("abc", {"type": "string", "pattern": "^a"}) is None
        assert problem("xbc", {"type": "string", "pattern": "^a"}) is not None
