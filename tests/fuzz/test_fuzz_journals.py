"""Damaged journals: whatever happened to results.jsonl (a kill mid-line, a flipped byte,
a line written twice, a stray or foreign line, a field of the wrong type), `--resume`
either finishes the run with every case judged exactly once, or stops with a data error
that names the journal. It never raises, and it never counts a case twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.cli.main import main
from tests.support.fuzz import fuzz
from tests.support.run_kit import SPEC, write_cases

CASES = 12


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A folder with the spec and cases, and the bytes of a complete journal of them."""
    folder = tmp_path_factory.mktemp("fuzz-journals")
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    write_cases(folder / "cases.jsonl", CASES)
    journal = folder / "complete.jsonl"
    code = main(["run", str(folder / "spec.eval"), str(folder / "cases.jsonl"), "-q",
                 "--results", str(journal), "--no-progress"])
    assert code == 0
    return folder, journal.read_bytes()


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _record(lines: list[bytes], at: int) -> dict[str, object] | None:
    """Line `at` as an object, or None when there is none (an earlier damage broke it)."""
    try:
        record = json.loads(lines[at]) if at < len(lines) else None
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with one or two kinds of damage."""
    for _ in range(draw(st.integers(1, 2))):
        lines = _lines(data)
        kind = draw(st.sampled_from(["cut", "flip", "twice", "stray", "foreign", "retype",
                                     "drop"]))
        at = draw(st.integers(1, max(1, len(lines) - 1)))
        if kind == "cut":
            data = data[: draw(st.integers(0, len(data)))]
        elif kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
        elif kind == "twice" and len(lines) > 1:
            data = b"".join(lines[: at + 1] + [lines[at]] + lines[at + 1:])
        elif kind == "stray":
            junk = draw(st.sampled_from([b"\x00\x00\x00\n", b"not json\n", b"[]\n", b"{}\n"]))
            data = b"".join(lines[:at] + [junk] + lines[at:])
        elif kind == "foreign" and (record := _record(lines, at)) is not None:
            record["id"] = "no-such-case"
            data = b"".join(lines + [json.dumps(record).encode() + b"\n"])
        elif kind == "retype" and (record := _record(lines, at)) is not None and record:
            field = draw(st.sampled_from(sorted(record)))
            record[field] = draw(st.sampled_from(["yes", 7, None, [], {"x": 1}]))
            data = b"".join(lines[:at] + [json.dumps(record).encode() + b"\n"] + lines[at + 1:])
        elif kind == "drop" and len(lines) > 1:
            data = b"".join(lines[:at] + lines[at + 1:])
    return data


@fuzz(examples=60)
@given(data=st.data())
def test_resume_over_a_damaged_journal_finishes_whole_or_says_why(
        clean: tuple[Path, bytes], capsys: pytest.CaptureFixture[str],
        data: st.DataObject) -> None:
    folder, complete = clean
    journal, report = folder / "results.jsonl", folder / "report.json"
    journal.write_bytes(data.draw(damaged(complete)))
    report.unlink(missing_ok=True)
    code = main(["run", str(folder / "spec.eval"), str(folder / "cases.jsonl"), "-q",
                 "--results", str(journal), "--resume", "-o", str(report), "--no-progress"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code in (0, 2, 3), (code, err)
    if code == 0:
        cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
        assert cases["evaluated"] == CASES, "every case once: none lost, none counted twice"
    else:
        assert str(journal) in err, err
