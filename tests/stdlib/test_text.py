"""keyword, regex and length on Chinese and English replies."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import ValidationError

from evaldsl.cases.case import Case
from evaldsl.checker import check_source
from evaldsl.diagnostics import render
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]


@pytest.fixture(name="reply")
def reply_fixture(dialog: Dialog) -> Case:
    return dialog(("user", "我想预约明天上午的维修"),
                  ("assistant", "好的，已为您预约明天上午九点的上门维修，工单号 WX202401。"))


def _checked(text: str) -> tuple[str, list[str]]:
    """`text` checked against the standard library: the first error rendered, every message."""
    result, found = check_source(f"{text}\nmetric m = rate(k)\n", "t.eval")
    errors = [d for d in found if d.severity == "error"]
    return render(errors[0], result.source) if errors else "", [d.message for d in errors]


class TestEmptyKeywords:
    def test_empty_word_is_an_error_at_the_word(self) -> None:
        """`""` matches every reply: an error at the word itself, not a silent pass."""
        assert _checked('check k = keyword(all: ["预约", ""])')[0] == (
            "t.eval:1:31: error[E204]: `all.1`: a keyword is empty or only spaces\n"
            '1 | check k = keyword(all: ["预约", ""])\n'
            "  |                                 ^^\n"
            "hint: `all`: words that must all appear; each counts once toward the score"
        )

    def test_whitespace_word_in_any_and_none(self) -> None:
        """A word of spaces is just as empty, in every list."""
        assert _checked('check k = keyword(any: ["  "], none: ["\\t"])')[1] == [
            "`any.0`: a keyword is empty or only spaces",
            "`none.0`: a keyword is empty or only spaces"]


class TestKeyword:
    def test_an_empty_word_is_rejected(self, run: Run, reply: Case) -> None:
        """`""` is in every text: a per-case list holding it is refused, not a silent pass."""
        with pytest.raises(ValidationError, match="a keyword is empty or only spaces"):
            run("keyword", reply, all=["预约"], none=[" "])

    def test_all_present_passes_with_full_score(self, run: Run, reply: Case) -> None:
        """Every `all` word found: passed, score 1."""
        r = run("keyword", reply, all=["预约", "工单号"])
        assert (r.passed, r.score, r.fields["missing"]) == (True, 1.0, [])

    def test_score_is_matched_over_required(self, run: Run, reply: Case) -> None:
        """Two of four required words (the `any` group counts once) give 0.5."""
        r = run("keyword", reply, all=["预约", "地址", "电话"], any=["工单号", "单号"])
        assert r.score == pytest.approx(0.5)
        assert r.passed is False
        assert r.fields["missing"] == ["地址", "电话"]

    def test_min_ratio_lowers_the_bar(self, run: Run, reply: Case) -> None:
        """With min_ratio 0.5 two of four is enough."""
        r = run("keyword", reply, all=["预约", "地址", "电话", "上午"], min_ratio=0.5)
        assert r.passed is True and r.score == pytest.approx(0.5)

    def test_none_word_fails_whatever_the_score(self, run: Run, reply: Case) -> None:
        """A forbidden word fails the check even at score 1."""
        r = run("keyword", reply, all=["预约"], none=["不知道", "维修"])
        assert r.passed is False and r.score == 1.0
        assert r.fields["forbidden"] == ["维修"]
        assert r.reason == "forbidden `维修`"

    def test_table_synonyms_count_as_the_word(self, run: Run, dialog: Dialog) -> None:
        """A table mapping 约好 -> 预约 lets 约好 satisfy `预约`."""
        table = NormalizationTable.build("同义", frozenset({"nfkc", "casefold"}), "",
                                         {"约好": "预约"})
        case = dialog(("user", "hi"), ("assistant", "已经帮您约好了"))
        assert run("keyword", case, all=["预约"], table=table).passed is True
        assert run("keyword", case, all=["预约"]).passed is False

    def test_nfkc_table_matches_full_width_text(self, run: Run, dialog: Dialog) -> None:
        """Full-width ＷＸ matches wx once NFKC and casefold apply."""
        table = NormalizationTable.build("t", frozenset({"nfkc", "casefold"}), "", {})
        case = dialog(("user", "hi"), ("assistant", "工单号ＷＸ２０２４"))
        assert run("keyword", case, all=["wx2024"], table=table).passed is True

    def test_each_reply_scores_the_share_of_replies(self, run: Run, dialog: Dialog) -> None:
        """Over each_reply the score is the share of replies that pass."""
        case = dialog(("user", "你好"), ("assistant", "您好，请问有什么可以帮您？"),
                      ("user", "退货"), ("assistant", "好的"))
        r = run("keyword", case, "each_reply", any=["您"])
        assert (r.passed, r.score) == (False, 0.5)

    def test_needs_something_to_look_for(self) -> None:
        """No all/any/none is a params error the checker reports."""
        from evaldsl.stdlib.text import KeywordParams

        with pytest.raises(ValidationError, match="give at least one"):
            KeywordParams()

    def test_min_ratio_range_is_checked(self) -> None:
        """min_ratio above 1 is out of range."""
        from evaldsl.stdlib.text import KeywordParams

        with pytest.raises(ValidationError, match="less than or equal to 1"):
            KeywordParams(all=["a"], min_ratio=1.5)

    def test_no_reply_is_an_error_not_a_fail(self, run: Run, dialog: Dialog) -> None:
        """A dialog without an assistant reply cannot be judged."""
        r = run("keyword", dialog(("user", "在吗")), all=["您好"])
        assert r.is_error


class TestRegex:
    def test_match_is_the_value(self, run: Run, reply: Case) -> None:
        r = run("regex", reply, pattern=r"WX\d{6}")
        assert (r.passed, r.value, r.fields["match"]) == (True, "WX202401", "WX202401")

    def test_must_not_match(self, run: Run, reply: Case) -> None:
        """must_match false fails when the pattern occurs, and says what matched."""
        r = run("regex", reply, pattern="维修", must_match=False)
        assert r.passed is False and r.reason == "matched `维修`"

    def test_ignore_case(self, run: Run, reply: Case) -> None:
        assert run("regex", reply, pattern="wx2024", ignore_case=True).passed is True
        assert run("regex", reply, pattern="wx2024").passed is False

    def test_invalid_pattern_is_a_params_error(self) -> None:
        from evaldsl.stdlib.text import RegexParams

        with pytest.raises(ValidationError, match="invalid regular expression"):
            RegexParams(pattern="(未闭合")

    def test_catastrophic_backtracking_is_an_error_value(self, run: Run, dialog: Dialog) -> None:
        """(a|aa)+$ on a long non-matching text times out: an error, not a fail."""
        case = dialog(("user", "x"), ("assistant", "a" * 80 + "!"))
        r = run("regex", case, pattern=r"(a|aa)+$", timeout_ms=20)
        assert r.is_error
        assert "longer than 20 ms" in r.reason


class TestLength:
    def test_counts_chinese_characters_one_each(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", "  您好，已预约。 "))
        r = run("length", case, max_chars=7)
        assert (r.passed, r.value) == (True, 7)

    def test_too_long_fails_with_reason(self, run: Run, reply: Case) -> None:
        r = run("length", reply, max_chars=10)
        assert r.passed is False
        assert r.reason.endswith("outside 0..10")

    def test_too_short(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "x"), ("assistant", "好"))
        assert run("length", case, min_chars=2).passed is False

    def test_each_reply_value_is_the_longest(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "a"), ("assistant", "一二三"), ("user", "b"), ("assistant", "一二"))
        r = run("length", case, "each_reply", max_chars=2)
        assert (r.passed, r.score, r.value) == (False, 0.5, 3)

    def test_min_above_max_is_a_params_error(self) -> None:
        from evaldsl.stdlib.text import LengthParams

        with pytest.raises(ValidationError, match="larger than"):
            LengthParams(min_chars=10, max_chars=5)
