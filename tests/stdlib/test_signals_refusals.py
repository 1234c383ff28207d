"""signals: polite refusals and negated negatives are not negative.

"No thanks" ends a task dialog politely; reading it as a negated "thanks" made
65 of the shipped lexicons' 80 negative hits on the USS dialogs.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.stdlib.signals import shipped
from tests.stdlib.conftest import dialog, run_primitive

REFUSALS = ["no thanks", "No thanks.", "No thank you.", "no, thank you", "No, that's it",
            "No thanks, that's all", "nope, that's all thanks", "No thank you, I'm good.",
            "不用了", "不用了谢谢", "不用了，谢谢", "没有了", "没有了，谢谢", "不用谢", "没事了"]
NEGATED_NEGATIVES = ["not bad", "Not bad at all.", "没问题", "不错", "没什么问题", "not terrible"]


def value(text: str) -> float:
    result = run_primitive("signals", dialog(("user", text), ("assistant", "好的")))
    assert result.value is not None
    return float(result.value)


def negatives(text: str) -> list[str]:
    result = run_primitive("signals", dialog(("user", text), ("assistant", "好的")))
    found: list[str] = result.fields["negative"]
    return found


@pytest.mark.parametrize("text", REFUSALS)
def test_a_polite_refusal_is_not_negative(text: str) -> None:
    assert negatives(text) == [] and value(text) >= 0


@pytest.mark.parametrize("text", NEGATED_NEGATIVES)
def test_a_negated_negative_is_not_negative(text: str) -> None:
    assert negatives(text) == [] and value(text) >= 0


def test_the_negator_rule_still_flips_a_positive_term() -> None:
    """`not happy`, `不是很满意` and `not very helpful` stay negative."""
    assert negatives("I'm not happy") == ["not happy"]
    assert negatives("不是很满意") == ["不是很满意"]
    assert negatives("that was not very helpful") == ["not helpful"] or negatives(
        "that was not very helpful") == ["not very helpful"]


def test_a_refusal_next_to_a_complaint_leaves_the_complaint() -> None:
    assert negatives("No thanks. This was a waste of time.") == ["waste of time"]
    assert negatives("不用了，我要投诉") == ["投诉"]


def test_a_negator_does_not_reach_into_the_next_sentence() -> None:
    """`No.` answers the agent's question; `Thanks` after it is still thanks."""
    assert negatives("No. Thanks for your help!") == []
    assert negatives("不。谢谢") == []


SHIPPED_REFUSALS = [t for lang in ("en", "zh") for t in shipped(lang)["refusals"]]
WORDS = [w for lang in ("en", "zh") for key in ("positive", "negative", "negators")
         for w in shipped(lang)[key]] + ["I", "want", "a", "table", "我", "想", "订", ".", "，"]
TEXTS = st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(text=TEXTS, refusal=st.sampled_from(SHIPPED_REFUSALS + REFUSALS), before=st.booleans())
def test_adding_a_polite_refusal_never_lowers_the_value(text: str, refusal: str,
                                                        before: bool) -> None:
    longer = f"{refusal}\n{text}" if before else f"{text}\n{refusal}"
    assert value(longer) >= value(text)
