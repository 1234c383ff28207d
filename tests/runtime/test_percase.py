"""Per-case parameters: keys that tell arguments apart, evaluators made once per value."""

from __future__ import annotations

from typing import Any

import pytest

import evaldsl
from evaldsl.runtime import percase_params as percase
from evaldsl.runtime.percase_params import TargetCache, freeze, key_of

SPEC = """\
spec "per case"

case {
  expect: map
}

check pattern = regex(pattern: case.expect.pattern)

outcome {
  pass if pattern
  fail otherwise
}
"""


class TestFreeze:
    @pytest.mark.parametrize(("a", "b"), [(1, 1.0), (1, True), (0.0, -0.0), (["a"], ("a",)),
                                          ({"k": 1}, {"k": 1.0}), (None, 0)])
    def test_different_arguments_have_different_keys(self, a: Any, b: Any) -> None:
        """Values equal in Python but not as arguments do not share an evaluator."""
        assert freeze(a) != freeze(b)

    def test_equal_nested_values_share_a_key(self) -> None:
        """Lists and maps of the same values make the same key."""
        assert freeze({"k": [1, "a"]}) == freeze({"k": [1, "a"]})

    def test_other_kinds_are_not_keyed(self) -> None:
        """A value the cache cannot compare has no key: its evaluator is made every time."""
        assert key_of({"k": object()}) is None
        assert key_of({"k": [1]}) == freeze({"k": [1]})


class TestTargetCache:
    def test_equal_keys_find_what_was_kept(self) -> None:
        """The second case with the same values reuses the first one's evaluator."""
        cache = TargetCache()
        made = cache.keep((freeze("a"),), object())
        assert cache.find((freeze("a"),)) is made
        assert cache.find((freeze("b"),)) is None

    def test_past_the_limit_nothing_more_is_kept(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A workload of endless distinct values does not grow the cache without bound."""
        monkeypatch.setattr(percase, "LIMIT", 1)
        cache = TargetCache()
        cache.keep((freeze("a"),), object())
        cache.keep((freeze("b"),), object())
        assert cache.find((freeze("b"),)) is None


class TestPerCaseChecks:
    def _case(self, id: str, pattern: str) -> dict[str, Any]:
        return {"id": id, "messages": [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": "code 123"}],
                "expect": {"pattern": pattern}}

    def test_each_case_is_judged_by_its_own_value(self) -> None:
        """Cases alternating between two patterns each get their own verdict."""
        spec = evaldsl.loads(SPEC)
        verdicts = [spec.evaluate(self._case(f"c{i}", p)).labels["outcome"]
                    for i, p in enumerate([r"\d{3}", "zzz", r"\d{3}", "zzz"])]
        assert verdicts == ["pass", "fail", "pass", "fail"]

    def test_an_invalid_value_is_an_error_result_per_case(self) -> None:
        """A pattern that does not compile makes each such case's check an error of its own."""
        spec = evaldsl.loads(SPEC)
        first, second = (spec.evaluate(self._case(f"c{i}", "(")).checks["pattern"]
                         for i in range(2))
        assert first.is_error and second.is_error and first is not second
        assert first.reason == second.reason


    def test_a_value_without_a_key_is_judged_for_its_case(self) -> None:
        """A value the cache cannot key (a frozenset given in memory) is validated for the
        case alone: each case still gets the verdict of its own words."""
        spec = evaldsl.loads(ANY_WORDS_SPEC)
        verdicts = [spec.evaluate({**self._case(f"c{i}", "x"), "words": frozenset(w)})
                    .labels["outcome"] for i, w in enumerate([{"code"}, {"zzz"}, {"code"}])]
        assert verdicts == ["pass", "fail", "pass"]


ANY_WORDS_SPEC = """\
spec "words per case"

case {
  words: any
}

check words = keyword(all: case.words)

outcome {
  pass if words
  fail otherwise
}
"""

OPTIONAL_SPEC = """\
spec "optional per case"

case {
  schema: map?
}

check has_json = contains_json(schema: case.schema)

outcome {
  pass if has_json
  fail otherwise
}
"""


class TestOptionalFromTheCase:
    """An optional parameter read from a case field the case lacks, or holds `null`: not given."""

    @staticmethod
    def _case(reply: str, **fields: Any) -> dict[str, Any]:
        return {"id": "c", "messages": [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": reply}], **fields}

    @pytest.mark.parametrize("fields", [{}, {"schema": None}], ids=["missing", "null"])
    def test_absent_value_means_the_default(self, fields: dict[str, Any]) -> None:
        spec = evaldsl.loads(OPTIONAL_SPEC)
        found = spec.evaluate(self._case('here: {"a": 1}', **fields)).checks["has_json"]
        assert (found.passed, found.value) == (True, {"a": 1})
        missed = spec.evaluate(self._case("no json", **fields)).checks["has_json"]
        assert missed.passed is False and not missed.is_error

    def test_a_given_value_still_applies(self) -> None:
        spec = evaldsl.loads(OPTIONAL_SPEC)
        case = self._case('here: {"a": 1}', schema={"type": "object", "required": ["b"]})
        assert spec.evaluate(case).checks["has_json"].passed is False

    def test_a_required_parameter_from_an_absent_field_is_still_an_error(self) -> None:
        """`pattern` has no default: a case without it cannot be judged."""
        spec = evaldsl.loads(SPEC)
        result = spec.evaluate(self._case("code 123", expect={})).checks["pattern"]
        assert result.is_error
