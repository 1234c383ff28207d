"""signals: Chinese and English emotion lexicons, negation, spec words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]


class TestSignals:
    def test_positive_chinese_dialog(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "帮我查下快递"), ("assistant", "已查到"), ("user", "太好了，谢谢！"))
        r = run("signals", case)
        assert (r.passed, r.value, r.score) == (True, 1.0, 1.0)
        assert r.fields["positive"] == ["太好了", "谢谢"]

    def test_negative_chinese_dialog(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "怎么还没解决？太慢了，我要投诉"), ("assistant", "抱歉"))
        r = run("signals", case)
        assert r.passed is False and r.value == -1.0
        assert r.fields["negative"] == ["还没解决", "太慢", "投诉"]

    def test_longest_term_wins(self, run: Run, dialog: Dialog) -> None:
        """不满意 is one negative term, not a negated 满意 plus anything else."""
        r = run("signals", dialog(("user", "我对结果不满意"), ("assistant", "抱歉")))
        assert r.fields["negative"] == ["不满意"] and r.fields["positive"] == []

    def test_negation_flips_a_positive_term(self, run: Run, dialog: Dialog) -> None:
        r = run("signals", dialog(("user", "不是很满意"), ("assistant", "抱歉")))
        assert r.fields["negative"] == ["不是很满意"]

    def test_english_negation_and_whole_words(self, run: Run, dialog: Dialog) -> None:
        """`not happy` is negative; `hate` is not found inside `whatever`."""
        case = dialog(("user", "I'm not happy. Whatever."), ("assistant", "Sorry"))
        r = run("signals", case)
        assert r.fields["negative"] == ["not happy"] and r.fields["positive"] == []

    def test_mixed_value_is_balance(self, run: Run, dialog: Dialog) -> None:
        """Two positive, one negative: value 1/3, score 2/3."""
        case = dialog(("user", "太慢了"), ("assistant", "已处理"), ("user", "好的，谢谢，不错"))
        r = run("signals", case)
        assert r.value == pytest.approx(1 / 3) and r.score == pytest.approx(2 / 3)

    def test_no_signal_is_neutral_and_passes(self, run: Run, dialog: Dialog) -> None:
        r = run("signals", dialog(("user", "我想改地址"), ("assistant", "好的")))
        assert (r.passed, r.value, r.score) == (True, 0.0, 0.5)

    def test_spec_words_extend_the_lexicon(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "还要等多久啊"), ("assistant", "马上"))
        assert run("signals", case).value == 0.0
        assert run("signals", case, negative=["还要等多久"]).value == -1.0

    def test_shipped_lexicons_can_be_turned_off(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "谢谢"), ("assistant", "不客气"))
        assert run("signals", case, languages=[]).fields["positive"] == []

    def test_only_user_turns_count(self, run: Run, dialog: Dialog) -> None:
        """The assistant's apology words are not the user's emotion."""
        case = dialog(("user", "改一下时间"), ("assistant", "非常抱歉让您失望了"))
        assert run("signals", case, "dialog").value == 0.0

    def test_min_threshold(self, run: Run, dialog: Dialog) -> None:
        case = dialog(("user", "太慢了"), ("assistant", "x"), ("user", "好的谢谢，不错"))
        assert run("signals", case, min=0.5).passed is False
