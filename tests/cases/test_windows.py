"""Windows: which messages of a long scope a model check reads (pure)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope, Unit, select
from evaldsl.cases.windows import Window, windowed
from evaldsl.model.prompts import render_unit


def dialog(turns: int) -> Case:
    roles = ("user", "assistant")
    return Case.from_dict({"id": "w", "messages": [
        {"role": roles[i % 2], "content": f"m{i + 1}"} for i in range(turns)]})


def whole(turns: int) -> Unit:
    unit, = select(dialog(turns), Scope("dialog"))
    return unit


class TestWhichMessages:
    def test_the_first_and_the_last_are_kept_in_order(self) -> None:
        unit = Window(first=1, last=3).apply(whole(10))
        assert [m.content for m in unit.messages] == ["m1", "m8", "m9", "m10"]
        assert unit.numbers == (1, 8, 9, 10)
        assert unit.text == "user: m1\nassistant: m8\nuser: m9\nassistant: m10"

    def test_last_alone_keeps_the_end(self) -> None:
        unit = Window(last=2).apply(whole(5))
        assert [m.content for m in unit.messages] == ["m4", "m5"]

    def test_first_alone_keeps_the_start(self) -> None:
        unit = Window(first=2).apply(whole(5))
        assert [m.content for m in unit.messages] == ["m1", "m2"]

    def test_a_window_as_wide_as_the_dialog_leaves_it_whole(self) -> None:
        unit = whole(4)
        assert Window(first=2, last=2).apply(unit) is unit
        assert Window(first=3, last=3).apply(unit) is unit

    def test_no_window_is_the_whole_scope(self) -> None:
        unit = whole(8)
        assert windowed(unit, None) is unit

    def test_the_head_and_the_tail_never_repeat_a_message(self) -> None:
        assert Window(first=4, last=4).kept(6) == [0, 1, 2, 3, 4, 5]


class TestThePrompt:
    def test_kept_messages_keep_their_numbers_and_the_gap_is_counted(self) -> None:
        text = render_unit(Window(first=1, last=2).apply(whole(7)))
        assert text.splitlines() == ["[1] user: m1", "[... 4 messages left out ...]",
                                     "[6] assistant: m6", "[7] user: m7"]

    def test_a_gap_at_either_end_is_counted(self) -> None:
        assert render_unit(Window(last=1).apply(whole(3))).splitlines() == [
            "[... 2 messages left out ...]", "[3] user: m3"]
        assert render_unit(Window(first=1).apply(whole(3))).splitlines() == [
            "[1] user: m1", "[... 2 messages left out ...]"]


class TestTheValue:
    def test_a_window_keeps_at_least_one_message(self) -> None:
        with pytest.raises(ValidationError, match="keeps at least one message"):
            Window()

    def test_counts_are_not_negative_and_keys_are_known(self) -> None:
        with pytest.raises(ValidationError):
            Window(last=-1)
        with pytest.raises(ValidationError):
            Window(lats=3)  # type: ignore[call-arg]
