"""Diagnostics as the checker gives them, placed as LSP ranges with codes and severity."""

from __future__ import annotations

from evaldsl.service.positions import Position, Range
from tests.support.service_kit import URI, ZH_SPEC, at, opened


class TestDiagnostics:
    def test_a_clean_spec_has_none(self) -> None:
        assert opened().diagnostics(URI) == []

    def test_an_unknown_chinese_name_is_placed_in_utf16_units(self) -> None:
        """The range of `礼帽` (for `礼貌`) starts after `😀`'s two units on that line."""
        text = ZH_SPEC + 'metric 表情率 = rate(case.意图 == "😀" and 礼帽)\n'
        found = opened(text).diagnostics(URI)
        assert [(p.code, p.severity, p.message) for p in found] == [
            ("E101", "error", "unknown name `礼帽`")]
        start = at(text, "礼帽")
        assert found[0].range == Range(start, at(text, "礼帽", 2))
        assert start.character == len('metric 表情率 = rate(case.意图 == "😀" and ') + 1
        assert found[0].hint == "a check with a similar name exists: `礼貌`"
        assert found[0].suggestion == "礼貌"

    def test_a_warning_keeps_its_severity(self) -> None:
        found = opened(ZH_SPEC + 'check 未用 = keyword(any: ["好"])\n').diagnostics(URI)
        assert [(p.code, p.severity) for p in found] == [("W101", "warning")]

    def test_a_syntax_error_is_a_diagnostic(self) -> None:
        """Text that does not parse gives the parser's worded error, at its place."""
        text = ZH_SPEC + "metric 坏 = rate(通过\n"
        found = opened(text).diagnostics(URI)
        assert [(p.code, p.message) for p in found] == [
            ("E012", "the file ends too early: expected `)`, `,` or `:`")]
        # the parser's caret stands on the last character it read
        assert found[0].range.start == Position(text.count("\n") - 1, len("metric 坏 = rate(通"))


class TestDocuments:
    def test_a_version_is_analysed_once(self) -> None:
        """Asking twice about one version reuses its snapshot; a new version replaces it."""
        service = opened()
        first = service.documents.get(URI)
        service.diagnostics(URI)
        service.change(URI, ZH_SPEC, 1)
        assert service.documents.get(URI) is first
        service.change(URI, ZH_SPEC + "\n", 2)
        assert service.documents.get(URI) is not first

    def test_other_documents_are_not_rechecked(self) -> None:
        """An edit to one URI leaves the other's snapshot, checked facts and all, alone."""
        service = opened()
        service.open("file:///other.eval", ZH_SPEC, 1)
        other = service.documents.get("file:///other.eval")
        service.diagnostics("file:///other.eval")
        service.change(URI, ZH_SPEC + "\n", 2)
        assert service.documents.get("file:///other.eval") is other
        assert "diagnostics" in vars(other)

    def test_the_last_parsed_version_outlives_broken_text(self) -> None:
        service = opened()
        service.change(URI, ZH_SPEC + "check x = (", 2)
        last = service.documents.last_parsed(URI)
        assert last is not None and last.version == 1

    def test_a_version_nobody_asked_about_is_not_parsed_late(self) -> None:
        """Replacing a version whose facts were never wanted costs no parse of it: broken
        text parses on the slow path, and an editor types faster than it asks."""
        service = opened()
        service.change(URI, ZH_SPEC + "check x = (", 2)
        skipped = service.documents.get(URI)
        service.change(URI, ZH_SPEC + "check x = (1", 3)
        assert not skipped.parsed_already
        last = service.documents.last_parsed(URI)
        assert last is not None and last.version == 1

    def test_completion_does_not_parse_text_mid_edit(self) -> None:
        """With an earlier version parsed, completion reads it and leaves the new text be."""
        from tests.support.service_kit import at

        service = opened()
        service.diagnostics(URI)
        text = ZH_SPEC + "metric 新 = rate(意"
        service.change(URI, text, 2)
        assert [c.label for c in service.completion(URI, at(text, "rate(意", 6))] == ["意图识别"]
        assert not service.documents.get(URI).parsed_already
