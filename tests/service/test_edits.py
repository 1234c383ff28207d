"""Quick fixes from the checker's suggestions, formatting, and inlay hints."""

from __future__ import annotations

from evaldsl.service.items import TextEdit
from evaldsl.service.positions import LineIndex, Position, Range
from tests.support.service_kit import URI, ZH_SPEC, at, opened

EVERYWHERE = Range(Position(0, 0), Position(10_000, 0))


def applied(text: str, edits: list[TextEdit]) -> str:
    index = LineIndex(text)
    for edit in sorted(edits, key=lambda e: e.range.start, reverse=True):
        text = text[: index.offset(edit.range.start)] + edit.new_text + text[
            index.offset(edit.range.end):]
    return text


class TestQuickFixes:
    def test_a_misspelt_check_is_replaced_by_the_suggestion(self) -> None:
        text = ZH_SPEC.replace("rate(意图识别.passed)", "rate(意图识.passed)")
        service = opened(text)
        fixes = service.code_actions(URI, Range(at(text, "意图识."), at(text, "意图识.")))
        assert [f.title for f in fixes] == ["replace with `意图识别`"]
        assert fixes[0].problem.code == "E101"
        service.change(URI, applied(text, [fixes[0].edit]), 2)
        assert service.diagnostics(URI) == []

    def test_every_suggestion_of_a_spec_is_one_fix(self) -> None:
        """A misspelt primitive, parameter, case field and scope, each fixed in place,
        on a line whose `😀` takes two UTF-16 units."""
        text = ZH_SPEC + (
            'check 表情 = keywrd(anny: ["😀"], scope: replie)\n'
            "metric 表情率 = rate(表情) where case.意图s == \"投诉\"\n")
        service = opened(text)
        fixes = service.code_actions(URI, EVERYWHERE)
        assert sorted(f.edit.new_text for f in fixes) == ["keyword", "replies", "意图"]
        service.change(URI, applied(text, [f.edit for f in fixes]), 2)
        fixes = service.code_actions(URI, EVERYWHERE)  # a known primitive's parameters
        assert [f.edit.new_text for f in fixes] == ["any"]
        service.change(URI, applied(service.documents.get(URI).text, [f.edit for f in fixes]), 3)
        assert service.diagnostics(URI) == []

    def test_only_problems_touching_the_range(self) -> None:
        text = ZH_SPEC.replace("rate(意图识别.passed)", "rate(意图识.passed)")
        assert opened(text).code_actions(URI, Range(Position(0, 0), Position(0, 3))) == []


class TestFormatting:
    def test_the_canonical_layout_in_one_edit(self) -> None:
        text = ZH_SPEC.replace("let 门槛 = 7", "let   门槛=7")
        edits = opened(text).formatting(URI)
        assert applied(text, edits) == ZH_SPEC

    def test_a_canonical_spec_needs_no_edit(self) -> None:
        assert opened().formatting(URI) == []

    def test_text_that_does_not_parse_is_left_alone(self) -> None:
        assert opened(ZH_SPEC + "check x = (").formatting(URI) == []


class TestInlayHints:
    def test_model_calls_per_case_after_each_check(self) -> None:
        """At the end of each check, the estimate `explain` makes for it."""
        hints = opened().inlay_hints(URI, EVERYWHERE)
        ends = [at(ZH_SPEC, needle, 1) for needle in (")\ncheck 礼貌", ")\ncheck 关键词",
                                                       ")\n\noutcome")]
        assert [(h.position, h.label) for h in hints] == [
            (ends[0], "  1 model call per case"),
            (ends[1], "  at most 1 model call per case"),
            (ends[2], "  no model call"),
        ]

    def test_only_within_the_range(self) -> None:
        first_line = Range(Position(0, 0), Position(1, 0))
        assert opened().inlay_hints(URI, first_line) == []

    def test_a_spec_with_errors_shows_none(self) -> None:
        assert opened(ZH_SPEC + "metric 坏 = rate(无此名)\n").inlay_hints(URI, EVERYWHERE) == []
