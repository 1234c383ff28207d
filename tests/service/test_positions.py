"""LSP positions (UTF-16 code units) against the parser's spans (characters)."""

from __future__ import annotations

from evaldsl.service.positions import LineIndex, Position, utf16_length
from evaldsl.syntax.source import Span


class TestLineIndex:
    def test_chinese_in_the_basic_plane_counts_one_unit_a_character(self) -> None:
        """`意图识别` is four characters and four UTF-16 units."""
        index = LineIndex("check 意图识别 = x\n")
        assert index.span_range(Span("f", 1, 7, 1, 11)).end == Position(0, 10)

    def test_characters_beyond_the_plane_count_two_units(self) -> None:
        """After `😀` and `𠮷`, a column is two units further on for each."""
        index = LineIndex('any: ["😀𠮷", 礼貌]')
        span = Span("f", 1, 13, 1, 15)  # 礼貌, 1-based characters
        assert index.span_range(span).start == Position(0, 14)
        assert index.column(Position(0, 14)) == 12

    def test_offsets_round_trip_across_lines(self) -> None:
        """Offset, position and span columns agree on every line break LSP knows."""
        text = "a\r\nb😀c\rd\ne"
        index = LineIndex(text)
        assert index.offset(Position(1, 3)) == text.index("c")
        assert index.offset(Position(2, 0)) == text.index("d")
        assert index.at_span(Position(1, 3)) == (2, 3)
        assert index.end() == Position(3, 1)

    def test_utf16_length(self) -> None:
        assert utf16_length("意图😀") == 4


class TestEncodings:
    def test_utf8_counts_bytes(self) -> None:
        """A client that agreed on UTF-8 counts three units for each Chinese character."""
        index = LineIndex("check 意图识别 = x", "utf-8")
        assert index.span_range(Span("f", 1, 7, 1, 11)).end == Position(0, 6 + 12)
        assert index.column(Position(0, 9)) == 7

    def test_utf32_counts_characters(self) -> None:
        index = LineIndex('"😀" 礼貌', "utf-32")
        assert index.position(0, 4) == Position(0, 4)

    def test_the_service_places_ranges_in_its_encoding(self) -> None:
        from evaldsl.service import LanguageService

        service = LanguageService(encoding="utf-8")
        service.open("u", "let 门槛 = 7\nmetric m = rate(门坎)\n", 1)
        [problem] = [p for p in service.diagnostics("u") if p.code == "E101"]
        assert problem.range.start == Position(1, len(b"metric m = rate("))
        assert problem.range.end == Position(1, len("metric m = rate(门坎".encode()))
