"""A row that is not JSON says why in the user's language, once, with a hint for the
full-width punctuation a Chinese input method types."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.loading import read_cases
from evaldsl.i18n import set_language


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def _bad(path: Path, text: str) -> list[str]:
    path.write_text(text, encoding="utf-8")
    return [str(r) for r in read_cases([str(path)], on_bad_row="skip") if isinstance(r, BadRow)]


def test_an_unterminated_text_is_said_once(tmp_path: Path) -> None:
    [reason] = _bad(tmp_path / "c.jsonl", '{"id": "1}\n')
    assert " at at " not in reason and "starting at at" not in reason
    assert "not valid JSON" in reason and "column" in reason


def test_a_full_width_colon_gets_a_hint(tmp_path: Path) -> None:
    [reason] = _bad(tmp_path / "c.jsonl", '{"id"： "2", "messages": []}\n')
    assert "`：`" in reason and "`:`" in reason


def test_a_full_width_comma_in_a_json_file_gets_a_hint(tmp_path: Path) -> None:
    [reason] = _bad(tmp_path / "c.json", '[{"id": "2"， "messages": []}]')
    assert "`，`" in reason and "`,`" in reason


def test_in_chinese(tmp_path: Path, chinese: None) -> None:
    [reason] = _bad(tmp_path / "c.jsonl", '{"id"： "2", "messages": []}\n')
    assert "Expecting" not in reason and "expecting" not in reason
    assert "不是有效的 JSON" in reason
