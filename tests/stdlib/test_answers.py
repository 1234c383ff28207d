"""exact, f1 and edit_distance: Inspect's and openevals' own tests with their answers, then laws."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from evaldsl.stdlib.answer_text import normalized, tokens
from evaldsl.stdlib.answers import overlap
from evaldsl.stdlib.levenshtein import distance
from tests.stdlib.conftest import Run, dialog


def answer(text: str) -> Any:
    return dialog(("user", "?"), ("assistant", text))


class TestInspectExact:
    """Inspect's tests/scorer/test_classification.py, `exact` and `max_exact_score`."""

    @pytest.mark.parametrize(("reply", "targets", "verdict"), [
        ("foo", ["foo"], True),
        ("foo", ["foobar", "boofar", "foo"], True),
        ("foo1", ["foo"], False),
        ("(3.14)", ["3.14"], True),
        ("hello", [" hello"], True),
        ("3,000", ["3000"], True),
        ("$1,000.", ["1000"], True),
        ("don't", ["dont"], True),
        ("U.S.", ["US"], True),
    ])
    def test_verdict(self, run: Run, reply: str, targets: list[str], verdict: bool) -> None:
        assert run("exact", answer(reply), expect=targets).passed is verdict

    def test_empty_targets_are_skipped(self, run: Run) -> None:
        assert run("exact", answer("hello"), expect=["", "hello"]).passed is True
        assert run("exact", answer("hello"), expect=[""]).passed is False

    def test_fields(self, run: Run) -> None:
        r = run("exact", answer("The Eiffel Tower!"), expect=["eiffel tower"])
        assert (r.passed, r.value, r.fields["expected"]) == (True, "eiffel tower", "eiffel tower")

    def test_without_normalization(self, run: Run) -> None:
        assert run("exact", answer(" Paris "), expect="Paris", normalize=False).passed is True
        assert run("exact", answer("paris"), expect="Paris", normalize=False).passed is False


class TestInspectF1:
    """Inspect's `f1` and `max_f1_score` tests; Inspect rounds to two decimals."""

    @pytest.mark.parametrize(("reply", "targets", "stop_words", "f1"), [
        ("foo", ["foo"], [], 1.0),
        ("foo1", ["foo"], [], 0.0),
        ("Paris", ["Paris, Texas", "Paris"], [], 1.0),
        ("Paris", ["Paris, Texas"], [], 0.67),
        ("Paris", ["Paris, Texas"], ["Paris"], 0.0),
        ("Paris", ["Paris, Texas"], ["Texas"], 1.0),
        ("hello", [" hello"], [], 1.0),
        ("hello", [""], [], 0.0),
        ("hello", ["", "hello"], [], 1.0),
        ("(3.14)", ["3.14"], [], 1.0),
        ("The answer is 3.14.", ["3.14"], [], 0.5),
    ])
    def test_score(self, run: Run, reply: str, targets: list[str], stop_words: list[str],
                   f1: float) -> None:
        r = run("f1", answer(reply), expect=targets, stop_words=stop_words)
        assert round(r.score, 2) == f1
        assert r.fields["f1"] == r.score == r.value

    def test_precision_and_recall(self, run: Run) -> None:
        r = run("f1", answer("Paris"), expect="Paris, Texas")
        assert (r.fields["precision"], r.fields["recall"]) == (1.0, 0.5)
        assert r.passed is True
        assert run("f1", answer("Paris"), expect="Paris, Texas", min=0.7).passed is False

    def test_chinese_by_character(self, run: Run) -> None:
        r = run("f1", answer("北京大学"), expect="北京")
        assert (r.fields["precision"], r.fields["recall"]) == (0.5, 1.0)

    def test_repeated_tokens_count_as_squad_counts_them(self) -> None:
        assert overlap(["a1", "a1"], ["a1"]).precision == 0.5


class TestOpenevalsLevenshtein:
    """openevals' tests/test_levenshtein.py: the outputs and references as JSON texts."""

    def test_equal(self, run: Run) -> None:
        r = run("edit_distance", answer('{"a": 1, "b": 2}'), expect='{"a": 1, "b": 2}')
        assert (r.score, r.fields["distance"], r.passed) == (1.0, 0, True)

    def test_different_values(self, run: Run) -> None:
        r = run("edit_distance", answer('{"a": 1, "b": 2}'), expect='{"a": 1, "b": 3}')
        assert r.score < 1.0 and r.fields["distance"] == 1


class TestEditDistance:
    def test_thresholds(self, run: Run) -> None:
        case = answer("kitten")
        assert run("edit_distance", case, expect="sitting", max_distance=3).passed is True
        assert run("edit_distance", case, expect="sitting", max_distance=2).passed is False
        assert run("edit_distance", case, expect="sitting").passed is False
        assert run("edit_distance", case, expect="sitting", min=0.5).passed is True

    def test_one_threshold(self, run: Run) -> None:
        with pytest.raises(ValidationError, match="not both"):
            run("edit_distance", answer("x"), expect="y", min=0.5, max_distance=1)

    def test_chinese_characters_are_one_edit_each(self, run: Run) -> None:
        r = run("edit_distance", answer("北京大学"), expect="北京大楼")
        assert (r.fields["distance"], r.score) == (1, 0.75)


def table_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


WORDS = st.lists(st.sampled_from([*"ab c,.-'北京3", "The", " an ", "1,000", "(2.5)"]),
                 max_size=20).map("".join)


class TestLaws:
    @settings(max_examples=200, deadline=None)
    @given(WORDS, WORDS)
    def test_f1_is_symmetric_and_in_unit_range(self, a: str, b: str) -> None:
        one, other = overlap(tokens(a), tokens(b)), overlap(tokens(b), tokens(a))
        assert one.f1 == other.f1
        assert 0.0 <= one.f1 <= 1.0

    @settings(max_examples=200, deadline=None)
    @given(WORDS)
    def test_normalization_is_idempotent(self, text: str) -> None:
        assert normalized(normalized(text)) == normalized(text)

    @settings(max_examples=200, deadline=None)
    @given(WORDS, WORDS)
    def test_distance_is_the_table_distance(self, a: str, b: str) -> None:
        assert distance(a, b) == table_distance(a, b) == distance(b, a)
