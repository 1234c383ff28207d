"""Which language messages are made in: `--lang`, else `EVALDSL_LANG`, else the locale."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import evaldsl
from evaldsl.checker import check_source
from evaldsl.i18n import _, current_language, language_from_environment, normalize, set_language

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


class TestEnvironment:
    @pytest.mark.parametrize(
        ("tag", "language"),
        [
            ("zh", "zh"),
            ("zh_CN.UTF-8", "zh"),
            ("zh-Hans", "zh"),
            ("ZH_TW", "zh"),
            ("en_US.UTF-8", "en"),
            ("EN", "en"),
            ("fr_FR", None),
            ("C", None),
            ("", None),
        ],
    )
    def test_normalize(self, tag: str, language: str | None) -> None:
        assert normalize(tag) == language

    def test_evaldsl_lang_comes_before_the_locale(self) -> None:
        assert language_from_environment({"EVALDSL_LANG": "en", "LANG": "zh_CN.UTF-8"}) == "en"
        assert language_from_environment({"EVALDSL_LANG": "zh", "LANG": "en_US.UTF-8"}) == "zh"

    def test_an_unknown_evaldsl_lang_falls_back_to_the_locale(self) -> None:
        assert language_from_environment({"EVALDSL_LANG": "fr", "LANG": "zh_CN.UTF-8"}) == "zh"

    def test_the_first_locale_variable_set_decides(self) -> None:
        """POSIX order: LC_ALL, then LC_MESSAGES, then LANG."""
        env = {"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "zh_CN.UTF-8"}
        assert language_from_environment(env) == "en"
        assert language_from_environment({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}) == "zh"
        assert language_from_environment({"LANG": "zh_CN.GB18030"}) == "zh"

    def test_english_without_any_setting_or_for_another_locale(self) -> None:
        assert language_from_environment({}) == "en"
        assert language_from_environment({"LANG": "de_DE.UTF-8"}) == "en"


class TestSetLanguage:
    def test_is_public(self) -> None:
        assert evaldsl.set_language is set_language

    def test_chinese_then_english(self, chinese: None) -> None:
        assert current_language() == "zh"
        assert _("unknown name `{word}`") == "未知名称 `{word}`"
        assert set_language("en") == "en"
        assert _("unknown name `{word}`") == "unknown name `{word}`"

    def test_the_empty_message_stays_empty(self, chinese: None) -> None:
        """Not the catalogue's header, which gettext keeps under the empty msgid."""
        assert _("") == ""

    def test_an_unknown_language_is_refused(self) -> None:
        with pytest.raises(ValueError, match="unknown language 'fr'"):
            set_language("fr")
        assert current_language() == "en"

    def test_diagnostics_are_made_in_the_current_language(self, chinese: None) -> None:
        _parsed, found = check_source('spec "s"\nlet x = y\n', "x.eval")
        assert "未知名称 `y`" in [d.message for d in found]


def _codes_and_spans(language: str, text: str) -> list[tuple[str, object, str]]:
    set_language(language)
    try:
        return [(d.code, d.span, d.severity.value) for d in check_source(text, "x.eval")[1]]
    finally:
        set_language("en")


@pytest.mark.parametrize("path", sorted((CORPUS / "bad").glob("*.eval")), ids=lambda p: p.stem)
def test_codes_and_spans_are_the_same_in_both_languages(path: Path) -> None:
    """Only the words change: tools and CI scripts key on codes and positions."""
    text = path.read_text("utf-8", errors="replace")
    english, chinese = _codes_and_spans("en", text), _codes_and_spans("zh", text)
    assert english == chinese
