"""Numbers as a reply writes them: `1,000`, `-3.5`, `1e3`, `2½`, `60%`, `１２３`, `三百`, `1.5万`.

`numbers_in(text)` finds every number in a text, in order, each with the span
it was read from, so a primitive can take the first, the last or any of them.
Arabic numbers may carry a sign (`-`, `−`, `+`, `负`), thousands separators in
groups of three (`12,345`), a decimal part, an exponent, a vulgar fraction
(`2½`), a percent sign (`60%` is kept apart from `60`: a percentage answers a
percentage), and a Chinese multiplier (`1.5万`, `3千`, `2亿`). Chinese
numerals are read too (`三百`, `一千二百零五`, `两万`, `三点五`, `百分之三十`);
a lone numeral character followed by another Chinese character (`一下`,
`一样`) is part of a word, not a number, unless that character is a measure
word (`三个`, `五元`). Digits glued to Latin letters
(`42abc`, `H2O`) are not a number either.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import NamedTuple

_WIDE = str.maketrans("０１２３４５６７８９．－＋％，−", "0123456789.-+%,-")
"""Full-width digits and signs, and the minus sign U+2212, as ASCII."""

_FRACTIONS = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒"

_ARABIC = re.compile(
    r"(?P<sign>[-+]|负)?"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)?"
    r"(?:(?P<dot>\.)(?P<dec>\d+))?"
    r"(?:[eE](?P<exp>[-+]?\d+))?"
    rf"(?P<frac>[{_FRACTIONS}])?"
    r"(?P<mult>[千万亿](?![零〇一二两三四五六七八九十百千]))?"
    r"(?P<pct>%)?"
)

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_MULTIPLIERS = {"千": 1000, **_CN_BIG}
_CN_CHARS = "".join([*_CN_DIGITS, *_CN_SMALL, *_CN_BIG])
_CHINESE = re.compile(
    rf"(?P<pct>百分之)?(?P<sign>负)?(?P<num>[{''.join(_CN_DIGITS)}十][{_CN_CHARS}]*"
    rf"(?:点[{''.join(_CN_DIGITS)}]+)?)"
)
_START = re.compile(rf"[-+负\d{_FRACTIONS}百{''.join(_CN_DIGITS)}十]")
_CHINESE_FIRST = frozenset(["百", "负", *_CN_DIGITS, "十"])
"""The characters a Chinese numeral (`_CHINESE`) can start with."""
_WIDE_ANY = re.compile("[０１２３４５６７８９．－＋％，−]")
"""A character `_WIDE` changes."""


def _narrow(text: str) -> str:
    """`text.translate(_WIDE)`, by replacing each wide character the text has: a Chinese
    text has its commas, but `translate` with a table pays for every other character."""
    for wide in set(_WIDE_ANY.findall(text)):
        text = text.replace(wide, chr(_WIDE[ord(wide)]))
    return text

MEASURE_WORDS = frozenset("个元块角次天人岁年月日号位件张本只条种分秒周倍米斤克吨升"
                          "折层楼家名台辆间套份杯瓶双对页章级度")
"""Words after which a lone Chinese numeral is a number (`三个`, `五元`); after other
Chinese characters it is part of a word (`一下`, `统一`)."""


class Number(NamedTuple):
    """A number read from a text, with where it stood."""

    value: float
    percent: bool
    start: int
    end: int
    text: str

    def same_kind(self, other: Number) -> bool:
        """A percentage is compared with percentages only, a plain number with plain ones."""
        return self.percent == other.percent


def numbers_in(text: str) -> list[Number]:
    """Every number in `text`, in order.

    >>> [n.value for n in numbers_in("共 1,200 元，折合1.5万日元，三个人")]
    [1200.0, 15000.0, 3.0]
    """
    if text.isascii():
        plain = _ascii_numbers(text)
        if plain is not None:
            return plain
    else:
        text = _narrow(text)
    found: list[Number] = []
    pos = 0
    search = _START.search
    while True:
        start = search(text, pos)
        if start is None:
            return found
        at = start.start()
        number = _read_at(text, at)
        if number is None:
            pos = at + 1
            continue
        found.append(number)
        pos = number.end


_ASCII_NUMBER = re.compile(
    r"[-+0-9](?<![0-9A-Za-z.][-+0-9])"
    r"(?:(?<=[0-9])(?>(?:[0-9]{0,2}(?:,[0-9]{3})+(?![0-9])|[0-9]*)"
    r"(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?%?)"
    r"|(?<=[-+])(?>(?P<int>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)?"
    r"(?:\.(?P<dec>[0-9]+))?(?:[eE][-+]?[0-9]+)?%?)(?(int)|(?(dec)|(?!))))"
    r"(?![0-9A-Za-z])"
)
"""`_START`, `_read_at` and `_ARABIC` on an ASCII text, as one pattern: a number starts at a
sign or a digit with no letter, digit or point before it, is read whole (an atomic group,
as `_ARABIC.match` reads it), has digits, and no letter or digit follows it. The pattern
starts by taking that first character, so `re` finds the starts by its fast scan for a
character set (a pattern starting with a look-around tries every position in turn, twice
the time here); a digit first is the integer's first digit, a sign first is followed by
the integer or the decimal part."""


def _ascii_numbers(text: str) -> list[Number] | None:
    """`numbers_in` an ASCII text with one scan; None when a number overflows (the reader
    then tries the next character, which this scan does not)."""
    found: list[Number] = []
    append, new = found.append, tuple.__new__  # `new`: a `Number` without a Python call
    for m in _ASCII_NUMBER.finditer(text):
        written = m.group()
        percent = written[-1] == "%"
        # `float` reads the number as `_read_at` builds it: a sign, digits without their
        # separators, a decimal part and an exponent (`-1,250.5e3`)
        value = float(written.replace(",", "")[:-1] if percent else written.replace(",", ""))
        if not math.isfinite(value):
            return None
        start, end = m.span()
        append(new(Number, (value, percent, start, end, written)))
    return found


def whole_number(text: str) -> Number | None:
    """`text` as one number, allowing white space, a currency sign and edge punctuation.

    >>> whole_number(" (42). ").value
    42.0
    >>> whole_number("5 some text") is None
    True
    """
    core = _narrow(text).strip().strip(_EDGE).strip()
    for sign in _CURRENCIES:
        core = core.removeprefix(sign)
    numbers = numbers_in(core)
    if len(numbers) != 1 or numbers[0].start != 0 or numbers[0].end != len(core):
        return None
    return numbers[0]


_EDGE = "!?:;()[]{}'\"`,.。，！？：；（）【】「」《》*_~"
_CURRENCIES = ("$", "£", "€", "¥", "￥")


def _read_at(text: str, at: int) -> Number | None:
    """The number starting at `at`, or None when what starts there is not one."""
    if at:
        prev = text[at - 1]  # glued to a Latin letter, a digit or a point before: `H2O`
        if prev.isdigit() or prev == "." or (prev.isalpha() and not _is_cjk(prev)):
            return None
    if text[at] in _CHINESE_FIRST:
        chinese = _CHINESE.match(text, at)
        if chinese is not None:
            return _chinese(text, chinese)
    arabic = _ARABIC.match(text, at)
    if arabic is None:
        return None
    sign, digits, _, dec, exp, frac, mult, pct = arabic.groups()
    if not (digits or dec or frac):
        return None
    end = arabic.end()
    if end < len(text):
        after = text[end]  # glued to a Latin letter or a digit after: `42abc`
        if after.isdigit() or (after.isalpha() and not _is_cjk(after)
                               and after not in _CN_CHARS):
            return None
    literal = f"{digits.replace(',', '') if digits else '0'}.{dec or '0'}"
    if exp:
        literal += f"e{exp}"
    value = float(literal)
    if frac:
        value += unicodedata.numeric(frac)
    if mult:
        value *= _MULTIPLIERS[mult]
    if sign == "-" or sign == "负":
        value = -value
    if not math.isfinite(value):
        return None
    return Number(value, pct is not None, at, end, text[at:end])


def _chinese(text: str, m: re.Match[str]) -> Number | None:
    body = m.group("num")
    lone = len(body) == 1 and m.group("pct") is None and m.group("sign") is None
    after = text[m.end():m.end() + 1]
    if lone and (_is_cjk(after) and after not in MEASURE_WORDS
                 or body == "十" and after == "分" and not text.startswith("分钟", m.end())):
        return None
    whole, _, decimals = body.partition("点")
    value = float(_cn_integer(whole))
    if decimals:
        value += float("0." + "".join(str(_CN_DIGITS[c]) for c in decimals))
    if m.group("sign"):
        value = -value
    return Number(value, m.group("pct") is not None, m.start(), m.end(), m.group(0))


def _cn_integer(text: str) -> int:
    """A Chinese integer: `一千二百零五` 1205, `两万` 20000, `十五` 15, `二〇二四` 2024."""
    if all(c in _CN_DIGITS for c in text):
        return int("".join(str(_CN_DIGITS[c]) for c in text))
    total = wan = section = digit = 0
    for c in text:
        if c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        elif c in _CN_SMALL:
            section += (digit or 1) * _CN_SMALL[c]
            digit = 0
        elif c == "万":
            wan = (wan + section + digit) * 10_000
            section = digit = 0
        else:
            total = (total + wan + section + digit) * 100_000_000
            wan = section = digit = 0
    return total + wan + section + digit


def _is_cjk(char: str) -> bool:
    return bool(char) and "\u4e00" <= char <= "\u9fff"
