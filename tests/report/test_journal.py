"""results.jsonl: header, one line per case, and recovery from a torn last line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaldsl.errors import CaseDataError
from evaldsl.report.journal import Header, ResultsWriter, read_records, recover

HEADER = Header("repair", "ab" * 32)


def write(path: Path, n: int) -> None:
    with ResultsWriter(path, HEADER) as writer:
        for i in range(n):
            writer.write({"id": f"c{i}", "labels": {"outcome": "success"}, "note": "中文"})


class TestWriter:
    def test_header_then_one_line_per_case(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        write(path, 3)
        lines = path.read_text("utf-8").splitlines()
        assert json.loads(lines[0])["spec_hash"] == "ab" * 32
        assert [json.loads(line)["id"] for line in lines[1:]] == ["c0", "c1", "c2"]
        assert "中文" in lines[1], "UTF-8 is kept readable"

    def test_each_line_is_on_disk_before_the_next_case(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        writer = ResultsWriter(path, HEADER)
        writer.write({"id": "a"})
        assert path.read_text("utf-8").count("\n") == 2
        writer.close()


class TestRecover:
    def test_torn_last_line_is_cut_off(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        write(path, 3)
        whole = path.read_bytes()
        path.write_bytes(whole + b'{"id": "c3", "lab')
        recovered = recover(path)
        assert (recovered.records, recovered.good_bytes, recovered.torn_bytes) == \
            (3, len(whole), 17)
        assert recovered.header == HEADER
        assert [r["id"] for _, r in read_records(path)] == ["c0", "c1", "c2"]

    def test_a_complete_but_unterminated_line_counts_as_torn(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        write(path, 1)
        path.write_bytes(path.read_bytes() + b'{"id": "c1"}')
        assert recover(path).records == 1

    def test_resumed_writer_appends_after_the_good_part(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        write(path, 2)
        path.write_bytes(path.read_bytes() + b'{"id": "c2", "la')
        with ResultsWriter(path, HEADER, recover(path).good_bytes) as writer:
            writer.write({"id": "c2"})
        assert [r["id"] for _, r in read_records(path)] == ["c0", "c1", "c2"]

    def test_damage_before_the_end_is_an_error_with_its_line(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        write(path, 3)
        lines = path.read_bytes().splitlines(keepends=True)
        lines[2] = b"garbage\n"
        path.write_bytes(b"".join(lines))
        with pytest.raises(CaseDataError, match=r"r\.jsonl:3: this line is not a JSON object"):
            recover(path)
        with pytest.raises(CaseDataError, match=":3:"):
            list(read_records(path))

    def test_file_torn_inside_its_header_starts_afresh(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        path.write_bytes(b'{"format": "evaldsl-res')
        recovered = recover(path)
        assert (recovered.header, recovered.good_bytes) == (None, 0)
        with ResultsWriter(path, HEADER, recovered.good_bytes) as writer:
            writer.write({"id": "c0"})
        assert recover(path).header == HEADER


def test_a_checks_lists_are_the_lines_own_and_json_safe() -> None:
    """A check's list fields in its journal entry: words copied (the entry never shares a list
    with the result), error values and other values made JSON as anywhere else."""
    from evaldsl.record import CaseRecord, encode_line
    from evaldsl.results import check_to_dict
    from evaldsl.values import CheckResult, ErrorValue

    words, empty = ["预约", 2, 0.5, None, True], []
    result = CheckResult(True, 1.0, 1.0, {"matched": words, "missing": empty,
                                          "odd": [ErrorValue("no"), (1, 2), {3: "x"}]})
    entry = check_to_dict(result)
    assert entry["matched"] == words and entry["matched"] is not words
    assert entry["missing"] == [] and entry["missing"] is not empty
    assert entry["odd"] == [{"error": "no"}, [1, 2], {"3": "x"}]
    line = encode_line(CaseRecord(id="c1", checks={"c": entry}))
    assert b'"matched":["\xe9\xa2\x84\xe7\xba\xa6",2,0.5,null,true]' in line

