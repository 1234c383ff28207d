"""Part files of a cluster run: written whole, read back as written, named in input order."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.cases.bad_rows import BadRow
from evaldsl.errors import CaseDataError
from evaldsl.report.journal import Header
from evaldsl.run.parts import Part, RunDirectory, part_name, read_part

LINES = b'{"id":"a","row":"c.jsonl:3"}\n{"id":"b","row":"c.jsonl:4"}\n'


def part() -> Part:
    return Part(LINES, b"\x00state\xff", (BadRow("c.jsonl", 5, "not JSON", None),), 2)


class TestPart:
    def test_a_part_reads_back_as_written(self, tmp_path: Path) -> None:
        path = tmp_path / part_name(0, 3)
        path.write_text(part().text(), encoding="utf-8")
        assert read_part(path) == part()

    def test_its_rows_are_its_cases_and_its_bad_rows(self) -> None:
        assert list(part().rows()) == ["c.jsonl:3", "c.jsonl:4", "c.jsonl:5"]

    def test_a_file_that_is_not_a_part_is_a_data_error_naming_it(self, tmp_path: Path) -> None:
        path = tmp_path / part_name(0, 1)
        path.write_text('{"id": "a"}\n', encoding="utf-8")
        with pytest.raises(CaseDataError, match="not a part file") as caught:
            read_part(path)
        assert caught.value.file == str(path)

    def test_names_sort_in_input_order(self) -> None:
        names = [part_name(1, 2), part_name(0, 1000), part_name(0, 20)]
        assert sorted(names) == [part_name(0, 20), part_name(0, 1000), part_name(1, 2)]


class TestRunDirectory:
    def test_starting_afresh_removes_earlier_parts_and_records_the_header(
            self, tmp_path: Path) -> None:
        directory = RunDirectory.beside(tmp_path / "results.jsonl")
        header = Header("s", "abc", ("c.jsonl",))
        directory.start(header)
        directory.write(part_name(0, 3), part().text())
        assert directory.done() == {"c.jsonl:3", "c.jsonl:4", "c.jsonl:5"}
        directory.start(header)
        assert directory.parts() == []
        assert directory.header() == header
        assert directory.path == tmp_path / "results.jsonl.parts"

    def test_a_directory_no_run_wrote_has_no_header(self, tmp_path: Path) -> None:
        assert RunDirectory(tmp_path / "none").header() is None
        assert RunDirectory(tmp_path / "none").parts() == []
