"""The primitives' reference in Chinese: every doc a `evaldsl primitives` or an editor
shows has its translation in the catalogue, and is shown translated under `--lang zh`."""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaldsl.cli.main import main
from evaldsl.i18n import LOCALE_DIR, set_language
from evaldsl.primitives.doctexts import doc_texts
from evaldsl.primitives.registry import Registry
from tests.support.service_kit import URI, ZH_SPEC, at, opened

REPO = Path(__file__).resolve().parents[2]
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def test_every_primitive_and_parameter_has_its_chinese_doc() -> None:
    """A primitive or a parameter added without a Chinese doc is named here."""
    catalogue = gettext.translation("evaldsl", LOCALE_DIR, languages=["zh"])
    docs = list(doc_texts(Registry.standard(), REPO))
    missing = [d.what for d in docs if catalogue.gettext(d.text) == d.text]
    assert len(docs) > 100
    assert not missing, f"no Chinese doc for: {', '.join(missing)}"


def test_the_reference_lists_each_doc_once_with_its_file() -> None:
    docs = {d.what: d for d in doc_texts(Registry.standard(), REPO)}
    assert docs["keyword"].path == "stdlib_rules/text.py"
    assert docs["keyword.all"].text == (
        "Words that must all appear; each counts once toward the score.")
    assert docs["judge.criteria"].path.startswith("stdlib_rules/")


def test_primitives_verb_in_chinese(chinese: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "zh", "primitives", "keyword"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("keyword  （免费；")
    assert "Words that must all appear" not in out
    assert "Literal presence of words" not in out
    line = next(line for line in out.splitlines() if line.strip().startswith("all ("))
    assert HAN.search(line.split("):", 1)[1]), line


def test_primitives_markdown_in_chinese(chinese: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "zh", "primitives", "--format", "markdown", "regex"]) == 0
    out = capsys.readouterr().out
    assert "A pattern must" not in out and "Letters match regardless of case" not in out


def test_hover_and_completion_in_chinese(chinese: None) -> None:
    found = opened().hover(URI, at(ZH_SPEC, "scale:", 1))
    assert found is not None
    assert "Points run from 0" not in found.markdown
    assert HAN.search(found.markdown.split("`scale: int = 10`", 1)[1])
    primitive = opened().hover(URI, at(ZH_SPEC, "keyword(", 2))
    assert primitive is not None and "Literal presence of words" not in primitive.markdown
