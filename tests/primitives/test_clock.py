"""The `clock` table option: times of day in English and Chinese to `HH:MM`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.primitives.clock import normalize_clock, to_clock
from evaldsl.primitives.tables import NormalizationTable


@pytest.mark.parametrize(("text", "expected"), [
    ("4:35 PM", "16:35"), ("4:35 pm", "16:35"), ("8:05", "08:05"), ("16:35", "16:35"),
    ("2 pm", "14:00"), ('2 o"clock in the afternoon', "14:00"), ("five pm", "17:00"),
    ("half past 4 in the evening", "16:30"), ("quarter past 9 in the morning", "09:15"),
    ("quarter to 6 in the evening", "17:45"), ("evening 5:15", "17:15"),
    ("morning 10", "10:00"), ("11 at night", "23:00"), ("12 am", "00:00"),
    ("twelve pm", "12:00"), ("noon", "12:00"), ("midnight", "00:00"), ("0:41 am", "00:41"),
    ("下午两点半", "14:30"), ("上午10点", "10:00"), ("14点30分", "14:30"),
    ("晚上八点一刻", "20:15"), ("凌晨3点", "03:00"), ("中午1点", "13:00"),
    ("下午3点45分", "15:45"), ("十点", "10:00"),
])
def test_times_of_day(text: str, expected: str) -> None:
    assert to_clock(text) == expected


@pytest.mark.parametrize("text", ["5", "Room 5", "2019-03-01", "25:00", "13 pm", "预约",
                                  "half to 5 pm", "三楼"])
def test_other_text_is_left_alone(text: str) -> None:
    assert to_clock(text) is None
    assert normalize_clock(text) == text


def test_table_option_maps_wordings_together() -> None:
    table = NormalizationTable.build("时间", frozenset({"clock", "strip"}), "", {})
    assert table.same("下午四点半", "half past 4 in the evening")
    assert table.same("4:30 PM", "16:30")


@given(st.text(max_size=20))
def test_law_clock_is_idempotent(text: str) -> None:
    """Law: normalizing a normalized value changes nothing."""
    once = normalize_clock(text)
    assert normalize_clock(once) == once


@given(st.integers(0, 23), st.integers(0, 59))
def test_law_digital_times_round_trip(hour: int, minute: int) -> None:
    """Law: `H:MM` with am/pm reads back as the same 24-hour time."""
    h12 = hour % 12 or 12
    ampm = "am" if hour < 12 else "pm"
    assert to_clock(f"{h12}:{minute:02d} {ampm}") == f"{hour:02d}:{minute:02d}"
