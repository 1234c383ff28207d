"""Times of day in words -> 24-hour `HH:MM`, the `clock` option of normalization tables.

Service calls carry `16:30` where people say `half past 4 in the evening`,
`4:30 pm` or `下午四点半`. A table with the `clock` option turns every value
that is wholly a time of day into `HH:MM` before its mapping applies; any
other value is left as it was. English and Chinese wordings are understood:

>>> [to_clock(t) for t in ["4:35 PM", "half past 4 in the evening", "下午两点半", "8:05"]]
['16:35', '16:30', '14:30', '08:05']
>>> to_clock("Room 5") is None
True
"""

from __future__ import annotations

import re

_EN_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9, "十": 10}
_HOUR = r"(?P<hour>\d{1,2}|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True)) + r")"
_PARTS_EN = {"morning": "am", "afternoon": "pm", "evening": "pm", "night": "night",
             "tonight": "pm"}
_EN = re.compile(
    r"^(?:(?P<pre>morning|afternoon|evening|night)\s+)?"
    r"(?:(?P<frac>half|quarter)\s+(?P<rel>past|to)\s+)?"
    rf"{_HOUR}(?::(?P<min>\d{{2}}))?"
    r"(?:\s*o['\"]?\s?clock)?"
    r"(?:\s*(?P<ampm>a\.?m\.?|p\.?m\.?)"
    r"|\s+(?:in the\s+)?(?P<post>morning|afternoon|evening|night|tonight)|\s+at night)?$")
_ZH = re.compile(
    r"^(?P<part>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间)?"
    r"(?P<hour>\d{1,2}|[零一二两三四五六七八九十]{1,3})[点點时時]"
    r"(?:(?P<half>半)|(?P<q>[一三])刻|(?P<min>\d{1,2}|[零一二三四五六七八九十]{1,3})分?)?(?:钟)?$")
_DIGITAL = re.compile(r"^(\d{1,2}):(\d{2})$")


def to_clock(text: str) -> str | None:
    """`HH:MM` when the whole text is a time of day, else None."""
    value = " ".join(text.strip().lower().split())
    if value in ("noon", "midday", "中午12点", "正午"):
        return "12:00"
    if value in ("midnight", "半夜12点", "午夜"):
        return "00:00"
    for parse in (_digital, _english, _chinese):
        found = parse(value)
        if found is not None:
            return found
    return None


def normalize_clock(text: str) -> str:
    """The `clock` table option: a time of day becomes `HH:MM`, other text is unchanged."""
    return to_clock(text) or text


def _format(hour: int, minute: int) -> str | None:
    if 0 <= hour <= 24 and 0 <= minute < 60:
        return f"{hour % 24:02d}:{minute:02d}" if hour < 24 or minute == 0 else None
    return None


def _digital(value: str) -> str | None:
    found = _DIGITAL.match(value)
    return _format(int(found[1]), int(found[2])) if found else None


def _english(value: str) -> str | None:
    found = _EN.match(value)
    if not found:
        return None
    word = found["hour"]
    hour = _EN_NUMBERS[word] if word in _EN_NUMBERS else int(word)
    minute = int(found["min"]) if found["min"] else 0
    if found["frac"]:
        minute = 30 if found["frac"] == "half" else 15
        if found["rel"] == "to":
            if found["frac"] == "half":
                return None
            hour, minute = hour - 1, 45
    marker = _marker(found)
    if (marker is None and not found["min"]) or (marker is not None and hour > 12):
        return None
    return _format(_twenty_four(hour, marker), minute)


def _marker(found: re.Match[str]) -> str | None:
    if found["ampm"]:
        return "am" if found["ampm"].startswith("a") else "pm"
    part = found["post"] or found["pre"] or ("night" if found.string.endswith("at night")
                                             else None)
    return _PARTS_EN.get(part) if part else None


def _twenty_four(hour: int, marker: str | None) -> int:
    if marker == "am":
        return 0 if hour == 12 else hour
    if marker == "pm":
        return hour + 12 if hour < 12 else hour
    if marker == "night":
        return hour + 12 if 6 <= hour < 12 else (0 if hour == 12 else hour)
    return hour


def _chinese(value: str) -> str | None:
    found = _ZH.match(value.replace(" ", ""))
    if not found:
        return None
    hour = _zh_number(found["hour"])
    minute = 30 if found["half"] else (15 * int(_zh_number(found["q"]) or 0) if found["q"]
                                       else (_zh_number(found["min"]) if found["min"] else 0))
    if hour is None or minute is None:
        return None
    part = found["part"]
    if part in ("下午", "傍晚", "晚上", "夜里", "夜间") and hour < 12:
        hour += 12
    elif part == "中午" and hour < 11:
        hour += 12
    elif part == "凌晨" and hour == 12:
        hour = 0
    return _format(hour, minute)


def _zh_number(text: str | None) -> int | None:
    """Digits or Chinese numerals up to 59 (`十二`, `二十五`, `两`)."""
    if not text:
        return None
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 0) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0)
                                                                  if ones else 0)
    if len(text) == 1:
        return _ZH_DIGITS.get(text)
    return None
