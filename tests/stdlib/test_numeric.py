"""numeric: Inspect's `match(numeric=True)` tests with Inspect's verdicts, then our own."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import evaldsl
from evaldsl.primitives.tables import NormalizationTable, Tolerance
from evaldsl.stdlib.numerals import numbers_in, whole_number
from tests.stdlib.conftest import Run, dialog, run_primitive

LOCATIONS = {"end": "last", "begin": "first", "any": "any", "exact": "exact"}

# (reply, targets, Inspect's location, Inspect's verdict), from Inspect's
# tests/scorer/test_match.py, one row per assertion.
INSPECT_MATCH: list[tuple[str, list[str], str, bool]] = [
    ("28 + 32 = 60\nThis solves the problem.", ["60"], "end", True),
    ("**ANSWER: 28 + 32 = 60**\nThis solves the problem.", ["60"], "end", True),
    ("28 + 32 = 60%\nThis solves the problem.", ["60", "60%"], "any", True),
    ("28 + 32 = 60%", ["60%"], "end", True),
    ("28 + 32 = 60%", ["32"], "end", True),
    ("The answer is 25", ["5"], "end", False),
    ("the value is 110", ["10"], "end", False),
    ("50 is the answer", ["5"], "begin", False),
    ("got 25 here", ["5"], "any", False),
    ("first 7 then 25 then done", ["25"], "any", True),
    ("5", ["-5"], "end", False),
    ("the result is -5", ["-5"], "end", True),
    ("the result is -5 exactly", ["-5"], "end", True),
    ("pi is approximately 3.14", ["3.14"], "end", True),
    ("pi is approximately 33.14", ["3.14"], "end", False),
    ("the value is 1000", ["1e3"], "end", True),
    ("2.0", ["2"], "end", True),
    ("result: -5.0", ["-5"], "end", True),
    ("5 some text", ["5"], "exact", False),
    ("5abc", ["5"], "exact", False),
    ("5", ["5"], "exact", True),
    ("answer: −5", ["-5"], "end", True),
    ("the result is ½", ["0.5"], "end", True),
    ("got -½ as the result", ["-0.5"], "any", True),
    ("answer 2½", ["2.5"], "end", True),
    ("result: 三", ["3"], "end", True),
    ("the answer is １２３", ["123"], "end", True),
    ("the answer is -½ extra", ["-0.5"], "end", True),
    ("leading text then -½", ["-0.5"], "begin", True),
    ("The answer is 42!", ["42"], "end", True),
    ("The answer is 42?", ["42"], "end", True),
    ("The answer is 42:", ["42"], "end", True),
    ("The answer is (42).", ["42"], "end", True),
    ("The answer is (42)", ["42"], "end", True),
    ("The answer is [42]", ["42"], "end", True),
    ("first (7) then 25! then done", ["25"], "any", True),
    ("The answer is 42abc", ["42"], "end", False),
    ("got 7 and 11", ["25"], "any", False),
]


def answer(text: str) -> Any:
    return dialog(("user", "?"), ("assistant", text))


class TestInspectMatch:
    """Inspect's own inputs and verdicts; `.number` is the number Inspect reports as the answer."""

    @pytest.mark.parametrize(("reply", "targets", "location", "verdict"), INSPECT_MATCH)
    def test_verdict(self, run: Run, reply: str, targets: list[str], location: str,
                     verdict: bool) -> None:
        r = run("numeric", answer(reply), expect=targets, location=LOCATIONS[location])
        assert r.passed is verdict
        assert not r.is_error

    def test_any_reports_the_number_that_matched(self, run: Run) -> None:
        r = run("numeric", answer("first 7 then 25 then done"), expect="25", location="any")
        assert (r.value, r.fields["number"], r.fields["numbers"]) == (25.0, 25.0, [7.0, 25.0])


class TestChinese:
    @pytest.mark.parametrize(("reply", "expect"), [
        ("一共三百元", 300), ("预算是1.5万", 15000), ("共计一千二百零五人", 1205),
        ("两万", 20000), ("十五个", 15), ("温度三点五度", 3.5), ("增长了百分之三十", "30%"),
        ("价格：１，２００元", 1200), ("大约负五", -5), ("二〇二四年", 2024),
        ("十亿", 1_000_000_000), ("一亿二千万", 120_000_000), ("10万元", 100_000),
    ])
    def test_read(self, run: Run, reply: str, expect: Any) -> None:
        assert run("numeric", answer(reply), expect=expect).passed is True

    @pytest.mark.parametrize("text", ["我查一下", "统一处理", "十分抱歉", "万一不行", "一样"])
    def test_words_with_numerals_are_not_numbers(self, text: str) -> None:
        assert numbers_in(text) == []

    def test_chinese_target(self, run: Run) -> None:
        assert run("numeric", answer("共 300 元"), expect="三百").passed is True


class TestOptions:
    def test_last_by_default_and_first(self, run: Run) -> None:
        case = answer("先付 20 元，再付 30 元")
        assert run("numeric", case, expect=30).passed is True
        assert run("numeric", case, expect=20).passed is False
        assert run("numeric", case, expect=20, location="first").passed is True

    def test_thousands_separators(self, run: Run) -> None:
        assert run("numeric", answer("That is $1,234,567.50 in total."),
                   expect=1234567.5).passed is True

    def test_tolerance(self, run: Run) -> None:
        case = answer("about 3.1416")
        assert run("numeric", case, expect=3.14).passed is False
        assert run("numeric", case, expect=3.14, tolerance=0.01).passed is True

    def test_table_tolerance_and_units(self, run: Run) -> None:
        table = NormalizationTable("t", units=("km",), tolerance=Tolerance(absolute=0.01))
        assert run("numeric", answer("全程约 5000 m。"), expect=5, table=table).passed is True
        assert run("numeric", answer("全程 4.995 公里"), expect="5 km",
                   table=table).passed is True
        assert run("numeric", answer("全程 5000 kg"), expect=5, table=table).passed is False

    def test_no_number_is_a_fail_with_a_reason(self, run: Run) -> None:
        r = run("numeric", answer("I do not know"), expect=4)
        assert (r.passed, r.value, r.reason) == (False, None, "no number in the reply")

    def test_a_target_that_is_no_number_is_refused(self, run: Run) -> None:
        with pytest.raises(ValidationError, match="is not a number"):
            run("numeric", answer("4"), expect="four")


INTEGERS = st.integers(min_value=-10**12, max_value=10**12)


def chinese(n: int) -> str:
    """`n` (0 <= n < 10**8) in Chinese numerals, written the usual way."""
    digits = "零一二三四五六七八九"
    if n == 0:
        return "零"

    def under_10000(k: int, pad: bool) -> str:
        out, zero = "", False
        for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
            d = k // value % 10
            if d:
                if zero or (pad and not out and value < 1000 and k < 1000):
                    out += "零"
                out += digits[d] + unit
                zero = False
            elif out:
                zero = True
        return out

    high, low = divmod(n, 10_000)
    text = (under_10000(high, False) + "万") if high else ""
    if low:
        text += under_10000(low, bool(high))
    return text


class TestReadsBackWhatWasWritten:
    @settings(max_examples=200, deadline=None)
    @given(INTEGERS)
    def test_integers_with_separators(self, n: int) -> None:
        assert whole_number(f"{n:,}") is not None
        assert whole_number(f"{n:,}").value == n  # type: ignore[union-attr]

    @settings(max_examples=200, deadline=None)
    @given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
    def test_floats_as_python_writes_them(self, x: float) -> None:
        found = numbers_in(f"the answer is {x!r}.")
        assert [n.value for n in found] == [x]

    @settings(max_examples=200, deadline=None)
    @given(st.integers(min_value=0, max_value=10**8 - 1))
    def test_chinese_numerals(self, n: int) -> None:
        assert [m.value for m in numbers_in(f"共{chinese(n)}个")] == [n]


def reference_numbers(text: str) -> list[tuple[float, bool, int, int, str]]:
    """The numbers of `text` as the reader was first written: every start tried with both
    patterns, the wide characters translated by a table; the fast paths' oracle."""
    import math
    import unicodedata

    from evaldsl.stdlib import numerals as n

    text = text.translate(str.maketrans("０１２３４５６７８９．－＋％，−", "0123456789.-+%,-"))
    found: list[tuple[float, bool, int, int, str]] = []
    pos = 0

    def is_cjk(c: str) -> bool:
        return bool(c) and "\u4e00" <= c <= "\u9fff"

    def read_at(at: int) -> tuple[float, bool, int, int, str] | None:
        prev = text[at - 1] if at else ""
        if prev and (prev.isdigit() or prev == "." or (prev.isalpha() and not is_cjk(prev))):
            return None
        chinese = n._CHINESE.match(text, at)
        if chinese is not None and chinese.group("num"):
            number = n._chinese(text, chinese)
            return None if number is None else tuple(number)  # type: ignore[return-value]
        m = n._ARABIC.match(text, at)
        if m is None or not (m.group("int") or m.group("dec") or m.group("frac")):
            return None
        end = m.end()
        nxt = text[end:end + 1]
        if nxt and (nxt.isdigit() or (nxt.isalpha() and not is_cjk(nxt)
                                      and nxt not in n._CN_CHARS)):
            return None
        digits = (m.group("int") or "").replace(",", "")
        literal = f"{digits or '0'}.{m.group('dec') or '0'}"
        if m.group("exp"):
            literal += f"e{m.group('exp')}"
        value = float(literal)
        if m.group("frac"):
            value += unicodedata.numeric(m.group("frac"))
        if m.group("mult"):
            value *= n._MULTIPLIERS[m.group("mult")]
        if m.group("sign") in ("-", "负"):
            value = -value
        if not math.isfinite(value):
            return None
        return (value, bool(m.group("pct")), at, end, text[at:end])

    while True:
        start = n._START.search(text, pos)
        if start is None:
            return found
        number = read_at(start.start())
        if number is None:
            pos = start.start() + 1
            continue
        found.append(number)
        pos = number[3]


NUMBERY = st.lists(st.one_of(
    st.sampled_from([*"0123456789 ,.-+%eEx万千亿三百十两零点个一下负分钟½１２，．－＋％−", "1,000",
                     "12,34", "1e400", "9" * 320, "百分之", "H2O", "5abc", "3.14.15", "٣"]),
    st.characters(codec="utf-8", exclude_categories=("Cs",))), max_size=25).map("".join)


class TestFastPathsAgree:
    """The reader's fast paths (an ASCII text in one scan, wide characters replaced only
    where present, a Chinese numeral tried only at its first characters) read what trying
    every start with both patterns read."""

    @settings(max_examples=600, deadline=None)
    @given(NUMBERY)
    def test_numbers_as_first_read(self, text: str) -> None:
        assert [tuple(x) for x in numbers_in(text)] == reference_numbers(text)

    @settings(max_examples=600, deadline=None)
    @given(st.lists(st.sampled_from([*"0123456789 ,.-+%eExa_(", "1,000", "12,34", "1e400",
                                     "9" * 320, "H2O", "-.5", "+-3", "1,234,5", "1.5e"]),
                    max_size=14).map("".join))
    def test_ascii_numbers_as_first_read(self, text: str) -> None:
        assert [tuple(x) for x in numbers_in(text)] == reference_numbers(text)

    @pytest.mark.parametrize("text", ["-0 and +0", "-0.0e-5%, +.5", "-1,250.5e3% 1e999 -2",
                                      "x-3 (4)", "1,234,5 12,345.6", "7 first", "-7 first",
                                      "+.5", "a\n-5\n6", ".5 5. 5.5.5", "1-2+3", "--4"])
    def test_signs_and_exponents_as_first_read(self, text: str) -> None:
        got, wanted = numbers_in(text), reference_numbers(text)
        assert [tuple(x) for x in got] == wanted
        assert [math.copysign(1, n.value) for n in got] == [math.copysign(1, n[0])
                                                            for n in wanted]

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.integers(-50, 50), min_size=0, max_size=6),
           st.integers(-50, 50), st.sampled_from(["first", "last"]), st.booleans())
    def test_one_target_picks_as_several_do(self, values: list[int], target: int,
                                            location: str, percent: bool) -> None:
        mark = "%" if percent else ""
        reply = answer(" and ".join(f"{v}{mark if i % 2 else ''}" for i, v in enumerate(values))
                       or "nothing")
        one = run_primitive("numeric", reply, expect=f"{target}%", location=location)
        two = run_primitive("numeric", reply, expect=[f"{target}%", f"{target}%"],
                            location=location)
        assert (one.passed, one.value, one.fields) == (two.passed, two.value, two.fields)

    def test_checks_with_other_parameters_in_one_spec(self) -> None:
        spec = evaldsl.loads(
            'spec "s"\ntable near (tolerance: 0.5) {}\n'
            'check at_end = numeric(expect: 3)\n'
            'check at_start = numeric(expect: 3, location: first)\n'
            'check loose = numeric(expect: 2, tolerance: 1.2)\n'
            'check tabled = numeric(expect: 2.6, table: near)\n'
            'check percent = numeric(expect: "40%")\n')
        for _ in range(2):
            checks = spec.evaluate(answer("first 3, then 40% and 3.1")).checks
            assert {k: (r.passed, r.value) for k, r in checks.items()} == {
                "at_end": (False, 3.1), "at_start": (True, 3.0), "loose": (True, 3.1),
                "tabled": (True, 3.1), "percent": (True, 40.0)}
