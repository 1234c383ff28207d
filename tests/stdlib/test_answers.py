"""exact, f1 and edit_distance: Inspect's and openevals' own tests with their answers, then laws."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from rapidfuzz.distance import Levenshtein

import evaldsl
from evaldsl.stdlib import answer_text, answers
from evaldsl.stdlib.answer_text import normalized, tokens
from evaldsl.stdlib.answers import overlap
from tests.stdlib.conftest import Run, dialog, run_primitive
from tests.stdlib.levenshtein_oracle import distance, table_distance


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

    @pytest.mark.parametrize(("a", "b"), [
        ("abcXdef", "abcYYdef"), ("aaa", "aaaa"), ("aaaa", "aa"), ("abab", "baba"),
        ("same", "same"), ("", "abc"), ("prefix only", "prefix"), ("x suffix", "suffix"),
        ("The total is 1,250 dollars.", "Thanks, the total is 1,250 dollars for both."),
    ])
    def test_a_shared_prefix_and_suffix_cost_no_edit(self, run: Run, a: str, b: str) -> None:
        assert distance(a, b) == distance(b, a) == table_distance(a, b)
        assert run("edit_distance", answer(a), expect=b).fields["distance"] == distance(a, b)

    def test_the_closest_of_several_counts(self, run: Run) -> None:
        r = run("edit_distance", answer("kitten"), expect=["sitting", "mitten", "bitten"])
        assert (r.fields["distance"], r.passed) == (1, True)

    def test_chinese_characters_are_one_edit_each(self, run: Run) -> None:
        r = run("edit_distance", answer("北京大学"), expect="北京大楼")
        assert (r.fields["distance"], r.score) == (1, 0.75)


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


BILINGUAL = st.text(st.one_of(
    st.sampled_from([*"ab c,.-'", *"北京大学楼合计元", "😀", "𠀀", "𝔸", "\ud800"]),
    st.characters()), max_size=150)
"""English and Chinese, astral characters (an emoji, CJK extension B, a math letter), a lone
surrogate (JSON can carry one), any other character; the empty text and texts of more than 64
characters (rapidfuzz's bit vectors then take more than one machine word)."""


class TestRapidfuzzAgainstTheOracle:
    """The distance `edit_distance` reads from rapidfuzz is the pure-Python one, exactly."""

    @settings(max_examples=300, deadline=None)
    @given(BILINGUAL, BILINGUAL)
    def test_distance(self, a: str, b: str) -> None:
        assert Levenshtein.distance(a, b) == distance(a, b) == Levenshtein.distance(b, a)

    @pytest.mark.parametrize(("a", "b"), [
        ("", ""), ("", "北京"), ("😀", ""), ("😀", "😁"), ("a😀b", "ab"), ("𠀀𠀁", "𠀁𠀀"),
        ("x" * 70 + "😀", "x" * 71), ("北" * 200, "京" * 130),
    ])
    def test_edges(self, a: str, b: str) -> None:
        assert Levenshtein.distance(a, b) == distance(a, b) == table_distance(a, b)

    @settings(max_examples=100, deadline=None)
    @given(BILINGUAL.filter(lambda t: t.strip() == t), st.lists(BILINGUAL, min_size=1, max_size=3))
    def test_the_primitive_reports_the_oracle(self, reply: str, expect: list[str]) -> None:
        """`.distance` and `.similarity` as first defined: the closest answer, the first of
        equals, 1 - distance / the longer length (1 for two empty texts)."""
        wanted = [e.strip() for e in expect]
        edits = [distance(reply, e) for e in wanted]
        closest = wanted[edits.index(min(edits))]
        longest = max(len(reply), len(closest))
        similarity = 1.0 - min(edits) / longest if longest else 1.0
        r = run_primitive("edit_distance", answer(reply), expect=expect)
        assert (r.fields["distance"], r.fields["similarity"], r.score) == (
            min(edits), similarity, similarity)


def reference_tokens(text: str) -> list[str]:
    """The normalization as first written, a character at a time: the fast paths' oracle."""
    import string
    import unicodedata

    def is_punct(c: str) -> bool:
        return c in string.punctuation or unicodedata.category(c).startswith("P")

    def strip_edges(word: str) -> str:
        start, end = 0, len(word)
        while start < end and is_punct(word[start]) and not (
                word[start] in "-+" and word[start + 1:start + 2].isdigit()):
            start += 1
        while end > start and is_punct(word[end - 1]):
            end -= 1
        return word[start:end]

    def number(t: str) -> str | None:
        if not t or t[0] not in "0123456789-+." or not any(c.isdigit() for c in t):
            return None
        try:
            value = float(t)
        except ValueError:
            return None
        return repr(value) if value == value and abs(value) != float("inf") else None

    def token(word: str) -> str:
        if len(word) == 1 and not word.isdigit():
            return "" if is_punct(word) else word
        found = number(strip_edges(word).replace(",", ""))
        if found is not None:
            return found
        bare = "".join(c for c in word if not is_punct(c))
        found = number(bare)
        return found if found is not None else bare

    cjk = "\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af\uf900-\ufaff"
    out: list[str] = []
    for word in text.casefold().split():
        core = word.strip(string.punctuation)
        if core.isascii() and core.isalpha():
            if core not in ("a", "an", "the"):
                out.append(core)
            continue
        found = number(strip_edges(word).replace(",", ""))
        if found is not None:
            out.append(found)
            continue
        for part in word.split("-"):
            pieces = re.findall(f"[{cjk}]|[^{cjk}]+", part) if not part.isascii() else [part]
            for piece in pieces:
                t = piece if re.fullmatch(f"[{cjk}]", piece) else token(piece)
                if t and t not in ("a", "an", "the"):
                    out.append(t)
    return out


MIXED = st.lists(st.one_of(
    st.sampled_from([*"ab Z,.-+'\"()[]{}:;!?$%_/北京大学の한。，：！（）²١٫", "The", " an ", "ß",
                     "1,000", "(2.5)", "-3", "+4e5", "1_000", ".5", "3.", "nan", "inf", "①",
                     "\u00a0", "\u3000", "・", "゠", "x-1", "--7", "+-2", "1e999"]),
    st.characters(codec="utf-8", exclude_categories=("Cs",))), max_size=30).map("".join)


class TestFastPathsAgree:
    """The normalization's fast paths (plain words, no digits, CJK runs) give what reading
    every character did."""

    @settings(max_examples=600, deadline=None)
    @given(MIXED)
    def test_tokens_as_read_a_character_at_a_time(self, text: str) -> None:
        assert tokens(text) == reference_tokens(text)
        assert normalized(text) == " ".join(reference_tokens(text))

    @pytest.mark.parametrize("text", [
        "-5 +5 --5 -x (−3) 3,000. $1,000. (3.14) 1²3 ²5 ١٢٣ 3-4 covid-19 a-the-an",
        "您好，已经为您核对了订单中的两件商品，合计 1,250 元，含税。明细：[{\"id\": 1}]",
        "Ünïcödé «quoted» — dash… ellipsis, ‘single’ “double” ¿qué? ¡sí!",
        "カタカナ・ひらがな゠漢字，好",
    ])
    def test_examples(self, text: str) -> None:
        assert tokens(text) == reference_tokens(text)

    def test_a_word_remembered_reads_as_when_first_met(self) -> None:
        text = "The total is 1,250 dollars; 北京大学 co-op (3.14) THE total"
        first, again = tokens(text), tokens(text)
        assert first == again == reference_tokens(text)

    def test_the_memory_of_words_starts_again_when_full(self) -> None:
        text = " ".join(f"w{i}x-{i}" for i in range(answer_text.KNOWN_WORDS + 50))
        assert tokens(text) == reference_tokens(text)
        assert 0 < len(answer_text._KNOWN) <= answer_text.KNOWN_WORDS
        assert tokens("Paris, Texas") == ["paris", "texas"]

    def test_checks_with_other_stop_words_in_one_spec(self) -> None:
        spec = evaldsl.loads(
            'spec "s"\ncheck plain = f1(expect: "Paris, Texas")\n'
            'check stopped = f1(expect: "Paris, Texas", stop_words: ["Paris"])\n'
            'check other = f1(expect: "Paris, Texas", stop_words: ["Texas"])\n')
        for _ in range(2):
            checks = spec.evaluate(answer("Paris")).checks
            assert [checks[n].score for n in ("plain", "stopped", "other")] == [
                pytest.approx(2 / 3), 0.0, 1.0]

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.sampled_from("abcdefghij"), max_size=30),
           st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=12))
    def test_shared_tokens_counted_either_way(self, a: list[str], e: list[str]) -> None:
        shared = sum((Counter(a) & Counter(e)).values())
        assert answers._common_few(a, Counter(e)) == answers._common(Counter(a), Counter(e)) \
            == shared

    def test_expected_answers_long_and_short_in_one_check(self, run: Run) -> None:
        long = "one two three four five six seven eight nine ten"
        reply = answer("one two three four five six seven, and eleven")
        r = run("f1", reply, expect=[long, "eleven twelve"])
        assert (r.fields["precision"], r.fields["recall"]) == (7 / 9, 7 / 10)
        assert r.score == overlap(tokens(reply.messages[-1].content), tokens(long)).f1
        r = run("f1", reply, expect=["eleven", long])
        assert (r.fields["precision"], r.fields["recall"]) == (7 / 9, 7 / 10)

    def test_stop_words(self) -> None:
        text = "Paris, Texas is the 1st Paris"
        assert tokens(text, ["paris", "THE"]) == [
            t for t in reference_tokens(text) if t not in {"paris"}]
