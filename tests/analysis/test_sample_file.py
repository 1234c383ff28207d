"""The review sample file: CSV for Excel on the way out, whatever a spreadsheet saved on the way
back."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.analysis.sample_file import (
    GB18030,
    UTF8,
    UTF8_BOM,
    decode,
    read_labels,
    write_sample,
)
from evaldsl.errors import CaseDataError

ROW = {"id": "c-1", "priority": 90, "rule": "sample 10%", "labels": {"outcome": "成功"},
       "scores": {"short": 0.5}, "dialog": [{"role": "user", "content": "你好,\n在吗"}],
       "label": "", "score": "", "note": ""}


class TestDecode:
    @pytest.mark.parametrize(("text", "codec", "encoding"), [
        ("标签", "utf-8", UTF8),
        ("标签", "utf-8-sig", UTF8_BOM),
        ("标签", "gbk", GB18030),
        ("𠀀标签", "gb18030", GB18030),
    ])
    def test_the_encodings_spreadsheets_save(self, text: str, codec: str, encoding: str) -> None:
        assert decode(text.encode(codec), "s.csv") == (text, encoding)

    def test_neither_utf8_nor_gb18030_names_the_line(self) -> None:
        with pytest.raises(CaseDataError) as caught:
            decode(b"id,label\nc-1,\xff\n", "s.csv")
        assert str(caught.value) == "s.csv:2: the file is neither UTF-8 nor GB18030 (byte 13)"
        assert caught.value.hint == ('save the file from the spreadsheet as "CSV UTF-8" and '
                                     'try again')

    def test_a_bom_before_bytes_that_are_not_utf8(self) -> None:
        with pytest.raises(CaseDataError, match="not valid UTF-8 after its BOM"):
            decode(b"\xef\xbb\xbfid\n\xca\xc7\n", "s.csv")


class TestRoundTrip:
    def test_csv_is_written_with_a_bom_and_read_back(self, tmp_path: Path) -> None:
        path = tmp_path / "s.csv"
        write_sample([ROW], path)
        assert path.read_bytes().startswith(b"\xef\xbb\xbfid,")
        sample = read_labels(path)
        assert sample.encoding == UTF8_BOM
        [row] = sample.rows
        assert row.line == 2
        assert row.values["outcome"] == "成功" and row.values["dialog"] == "user: 你好,\n在吗"

    def test_jsonl_is_plain_utf8(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        write_sample([ROW, ROW], path)
        assert path.read_bytes().startswith(b'{"id"')
        sample = read_labels(path)
        assert (sample.encoding, [r.line for r in sample.rows]) == (UTF8, [1, 2])


class TestCsvRows:
    def read(self, tmp_path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
        path = tmp_path / "s.csv"
        path.write_text(text, encoding="utf-8")
        return [(r.line, r.values) for r in read_labels(path).rows]

    def test_a_row_keeps_the_line_it_starts_on(self, tmp_path: Path) -> None:
        rows = self.read(tmp_path, 'id,note,label\r\na,"one\r\ntwo",x\r\n\r\nb,,y\r\n')
        assert rows == [(2, {"id": "a", "note": "one\r\ntwo", "label": "x"}),
                        (5, {"id": "b", "note": "", "label": "y"})]

    def test_empty_rows_and_unnamed_columns_are_ignored(self, tmp_path: Path) -> None:
        rows = self.read(tmp_path, " id , label ,\na,x,\n,,\n")
        assert rows == [(2, {"id": "a", "label": "x"})]

    def test_short_rows_are_filled_with_empty_cells(self, tmp_path: Path) -> None:
        assert self.read(tmp_path, "id,label,score\na,x\n") == [
            (2, {"id": "a", "label": "x", "score": ""})]

    def test_a_header_without_id(self, tmp_path: Path) -> None:
        with pytest.raises(CaseDataError, match=r"s.csv:1: the header has no `id` column"):
            self.read(tmp_path, "case,label\na,x\n")
