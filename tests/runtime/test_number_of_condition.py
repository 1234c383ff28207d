"""`number(c)`: a condition as 0 or 1 inside an expression, errors kept three-valued.

An expert summed 18 slots as `0/1` by hand in every case; `number(...)` says it
once, and the checker reports misuse with file:line:col.
"""

from __future__ import annotations

import pytest

import evaldsl
from evaldsl.checker import check_source
from evaldsl.values import is_error

SPEC = """\
spec "numbers"
case {
  a: any
  filled: map
}
check short = length(scope: last_reply, max_chars: 5)
check polite = keyword(scope: last_reply, any: ["谢谢"])
let both = number(short) + number(polite)
let shown = number(case.filled.phone) + number(case.filled.city) + number("x" in case.a)
outcome {
  full if both == 2
  half if both >= 1
  none otherwise
}
metric mean_both = mean(both)
metric mean_shown = mean(number(polite) * 2)
metric shown_avg = mean(shown)
"""


def case(reply: str, a: object = "x", filled: object = None) -> dict[str, object]:
    return {"id": "c", "a": a, "filled": filled or {"phone": True, "city": False},
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": reply}]}


@pytest.fixture(scope="module")
def spec() -> evaldsl.Spec:
    return evaldsl.loads(SPEC)


def test_the_spec_checks_clean() -> None:
    _, found = check_source(SPEC, "numbers.eval")
    assert [d.code for d in found] == []


def test_a_condition_counts_one_when_it_holds(spec: evaldsl.Spec) -> None:
    assert spec.evaluate(case("谢谢")).lets["both"] == 2
    assert spec.evaluate(case("谢谢")).labels["outcome"] == "full"
    assert spec.evaluate(case("好的好的好的，谢谢")).lets["both"] == 1
    assert spec.evaluate(case("好的好的好的好的")).lets["both"] == 0


def test_map_entries_and_membership_count(spec: evaldsl.Spec) -> None:
    assert spec.evaluate(case("谢谢")).lets["shown"] == 2
    assert spec.evaluate(case("谢谢", a="y", filled={"phone": False, "city": False})
                         ).lets["shown"] == 0


def test_an_error_condition_gives_an_error_number(spec: evaldsl.Spec) -> None:
    """A map entry that is not true/false is an error, and so is the sum."""
    result = spec.evaluate(case("谢谢", filled={"phone": "yes", "city": True}))
    shown = result.lets["shown"]
    assert is_error(shown) and "expected a condition" in shown.reason
    assert result.lets["both"] == 2


def test_a_metric_averages_it(spec: evaldsl.Spec) -> None:
    report = spec.run([case("谢谢"), case("好的好的好的好的")]).to_dict()
    metrics = {name: m["value"] for name, m in report["metrics"].items()}
    assert metrics == {"mean_both": 1.0, "mean_shown": 1.0, "shown_avg": 2.0}


@pytest.mark.parametrize(("line", "code", "col", "words"), [
    ('let x = number(3)\n', "E307", 16, "a condition"),
    ('let x = number(short, polite)\n', "E307", 9, "one"),
    ('let x = number(c: short)\n', "E307", 16, "no argument"),
    ('let x = numbr(short)\n', "E110", 9, "number"),
    ('metric m = number(short)\n', "E305", 19, "aggregate"),
])
def test_misuse_is_reported_where_it_is(line: str, code: str, col: int, words: str) -> None:
    text = SPEC + line
    _, found = check_source(text, "numbers.eval")
    ours = [d for d in found if d.span.line == text.count("\n") and d.code[0] == "E"]
    assert [d.code for d in ours] == [code], [(d.code, d.message, d.span.line) for d in found]
    assert ours[0].span.col == col
    assert words in ours[0].message + (ours[0].hint or "")
