"""Go to definition, find references and rename, on Chinese names."""

from __future__ import annotations

import pytest

from evaldsl.errors import RenameError
from evaldsl.service import LanguageService
from evaldsl.service.positions import Range
from tests.support.service_kit import URI, ZH_SPEC, at, opened

EXAMPLE = ZH_SPEC + """
example "一次通过" {
  case {意图: "咨询"}
  assistant "😀抱歉，已为您退款"
  given 意图识别.label = "咨询"
  given 礼貌 = 9
  expect 通过
}
"""


def name_range(text: str, needle: str, nth: int = 0, into: int = 0, size: int = 0) -> Range:
    start = at(text, needle, into, nth)
    return Range(start, at(text, needle, into + (size or len(needle) - into), nth))


def renamed(service: LanguageService, text: str, position: object, new: str) -> str:
    """The text after applying the rename's edits, last first."""
    from evaldsl.service.positions import LineIndex

    index = LineIndex(text)
    edits = service.rename(URI, position, new)  # type: ignore[arg-type]
    for edit in sorted(edits, key=lambda e: e.range.start, reverse=True):
        start, end = index.offset(edit.range.start), index.offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


class TestDefinition:
    def test_a_check_use_goes_to_its_name(self) -> None:
        found = opened().definition(URI, at(ZH_SPEC, "意图识别.passed", 1))
        assert found == [name_range(ZH_SPEC, "意图识别")]

    def test_a_case_field_goes_to_the_case_block(self) -> None:
        found = opened().definition(URI, at(ZH_SPEC, "case.意图", 5))
        assert found == [name_range(ZH_SPEC, "意图")]

    def test_a_primitive_has_no_definition_in_the_spec(self) -> None:
        assert opened().definition(URI, at(ZH_SPEC, "judge")) == []


class TestReferences:
    def test_every_use_of_a_check_with_its_definition(self) -> None:
        service = opened(EXAMPLE)
        found = service.references(URI, at(EXAMPLE, "意图识别"))
        assert found == [name_range(EXAMPLE, "意图识别", nth=k) for k in range(4)]

    def test_without_the_declaration(self) -> None:
        found = opened(EXAMPLE).references(URI, at(EXAMPLE, "门槛"), include_declaration=False)
        assert found == [name_range(EXAMPLE, "门槛", nth=1)]

    def test_a_case_field_in_reads_and_example_cases(self) -> None:
        found = opened(EXAMPLE).references(URI, at(EXAMPLE, "意图: text"))
        assert len(found) == 3


class TestRename:
    def test_a_check_everywhere_it_is_named(self) -> None:
        """Definition, uses in expressions, attribute reads and `given` pins."""
        service = opened(EXAMPLE)
        text = renamed(service, EXAMPLE, at(EXAMPLE, "意图识别"), "意图分类")
        assert "意图识别" not in text
        assert text.count("意图分类") == 4
        service.change(URI, text, 2)
        assert service.diagnostics(URI) == []

    def test_a_metric_and_the_windowed_alert_that_reads_it(self) -> None:
        text = ("check 简短 = length(max_chars: 40)\n"
                "metric 简短率 = rate(简短)\n"
                "alert 太长 when 简短率 < 90% over 1h min 30 \"回复过长\"\n")
        service = opened(text)
        assert renamed(service, text, at(text, "简短率"), "短回复率") == text.replace(
            "简短率", "短回复率")

    def test_an_alert_that_writes_its_aggregate_renames_each_name_once(self) -> None:
        """The alert's metric repeats its aggregate, yet `简短` is one use there, and the
        alert's name is the metric another alert reads."""
        text = ("check 简短 = length(max_chars: 40)\n"
                "alert 太长 when rate(简短) < 90% over 1h \"回复过长\"\n"
                "alert 一天 when 太长 < 80% over 1d \"一天\"\n")
        service = opened(text)
        assert renamed(service, text, at(text, "简短"), "短") == text.replace("简短", "短")
        assert renamed(service, text, at(text, "太长 <"), "过长") == text.replace("太长", "过长")

    def test_a_case_field_and_its_example_values(self) -> None:
        service = opened(EXAMPLE)
        text = renamed(service, EXAMPLE, at(EXAMPLE, "case.意图", 6), "用户意图")
        assert "case.用户意图" in text and "{用户意图: \"咨询\"}" in text
        service.change(URI, text, 2)
        assert service.diagnostics(URI) == []

    def test_a_name_that_exists_is_refused(self) -> None:
        with pytest.raises(RenameError, match="`礼貌` exists already"):
            opened().rename(URI, at(ZH_SPEC, "意图识别"), "礼貌")

    def test_a_non_identifier_is_refused(self) -> None:
        with pytest.raises(RenameError, match="`意图 识别` is not a name a spec can use"):
            opened().rename(URI, at(ZH_SPEC, "意图识别"), "意图 识别")
        with pytest.raises(RenameError, match="is not a name"):
            opened().rename(URI, at(ZH_SPEC, "意图识别"), "1号")

    def test_a_keyword_is_refused(self) -> None:
        with pytest.raises(RenameError, match="`and` is a word of the language"):
            opened().rename(URI, at(ZH_SPEC, "门槛"), "and")
        with pytest.raises(RenameError, match="`case` is a word of the language"):
            opened().rename(URI, at(ZH_SPEC, "门槛"), "case")

    def test_a_name_that_changes_how_the_spec_reads_is_refused(self) -> None:
        """A label named `slot` would turn the choice word of `mode: slot` into a label."""
        text = ZH_SPEC + 'check 槽 = slots(slots: {a: "b"}, mode: slot)\nmetric 槽率 = rate(槽)\n'
        with pytest.raises(RenameError, match="renaming to `slot` would change how the spec"):
            opened(text).rename(URI, at(text, "失败"), "slot")

    def test_a_primitive_cannot_be_renamed(self) -> None:
        with pytest.raises(RenameError, match="not defined in this spec"):
            opened().rename(URI, at(ZH_SPEC, "judge"), "judge2")
        assert opened().prepare_rename(URI, at(ZH_SPEC, "judge")) is None

    def test_prepare_rename_gives_the_name(self) -> None:
        found = opened().prepare_rename(URI, at(ZH_SPEC, "门槛", nth=1))
        assert found == name_range(ZH_SPEC, "门槛", nth=1)
