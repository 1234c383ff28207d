"""A spec written the way Chinese-speaking experts write them, and positions in it.

Positions are found by text, not counted by hand: `at(text, "礼貌.value", 3)` is the LSP
position three characters into the first `礼貌.value`, in UTF-16 code units.
"""

from __future__ import annotations

from evaldsl.service import LanguageService, Position
from evaldsl.service.positions import LineIndex

URI = "file:///specs/客服.eval"

ZH_SPEC = """spec "客服质量"

case {
  意图: text
  回复要点: text?
}

table 同义词 (casefold) {
  "退货", "退款" -> "退款"
}

let 门槛 = 7

check 意图识别 = classify(labels: ["咨询", "投诉"], expect: case.意图)
check 礼貌 = judge(criteria: "语气礼貌", scale: 10, min: 7)
check 关键词 = keyword(scope: replies, any: ["😀抱歉", "退款"], table: 同义词)

outcome {
  通过 if 关键词 and 意图识别 and 礼貌.value >= 门槛
  失败 otherwise
}

metric 通过率 = rate(通过)
metric 意图准确率 = rate(意图识别.passed)
"""
"""Checks clean with the standard library: three checks, a let, a table, case fields."""


def at(text: str, needle: str, into: int = 0, nth: int = 0) -> Position:
    """The position `into` characters into the `nth` occurrence of `needle`."""
    offset = -1
    for _i in range(nth + 1):
        offset = text.index(needle, offset + 1)
    offset += into
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return LineIndex(text).position(line, column)


def opened(text: str = ZH_SPEC, uri: str = URI) -> LanguageService:
    """A service with `text` open at `uri`, version 1."""
    service = LanguageService()
    service.open(uri, text, 1)
    return service


def typed(before: str, after: str = "") -> tuple[LanguageService, Position]:
    """The spec with `before` typed at its end (and `after` behind the cursor): a service
    that has seen the clean spec first, as an editor has, and the cursor position."""
    service = opened()
    text = ZH_SPEC + before + after
    service.change(URI, text, 2)
    return service, at(text, before, len(before), nth=text.count(before) - 1)
