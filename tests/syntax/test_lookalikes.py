"""Look-alike characters and operator words, all reported in one pass."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaldsl.i18n import set_language
from evaldsl.syntax.parser import parse

SPEC = """spec "x"
check a = keyword(any: ["退款"])
check b = judge(criteria: "礼貌", scale: 10)
outcome {
  好 if a 且 b.value ≥ 7
  中 if a 或 b.value ≤ 3
  差 if 非 a 且 b.value ≠ 5
  坏 otherwise
}
"""


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def test_every_operator_look_alike_in_one_run() -> None:
    found = parse(SPEC).diagnostics
    assert [(d.span.line, d.span.col, d.hint) for d in found] == [
        (5, 10, "write `and`"), (5, 20, "write `>=`"),
        (6, 10, "write `or`"), (6, 20, "write `<=`"),
        (7, 8, "write `not`"), (7, 12, "write `and`"), (7, 22, "write `!=`")]


def test_in_the_users_language(chinese: None) -> None:
    found = parse(SPEC).diagnostics
    assert [d.hint for d in found if "≥" in d.message] == ["请写 `>=`"]
    assert all("unexpected" not in d.message for d in found)
