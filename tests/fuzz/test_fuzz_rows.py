"""Hostile case rows between good ones: the loader names each bad row by file and line,
the run skips it (`--on-bad-row skip`) and judges every good row, and every report is
standard JSON. Nothing raises, nothing is lost.

The hostile lines are what broke the loader before: invalid UTF-8, lone surrogates,
NaN and Infinity, deep nesting (in the row and in tool-call arguments), huge numbers,
wrong types, and plain binary noise.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import read_cases
from evaldsl.cli.main import main
from tests.support.fuzz import fuzz
from tests.support.run_kit import SPEC, case_row


def _call(arguments: str) -> str:
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "f", "arguments": arguments}}]}
    return json.dumps({"id": "tool", "messages": [{"role": "user", "content": "hi"}, message]})


HOSTILE = [
    '{"id": "s", "messages": [{"role": "user", "content": "\\ud800"}]}',
    '{"id": "\\udfff", "messages": []}',
    '{"id": "n", "messages": [{"role": "assistant", "content": "x", "latency_ms": NaN}]}',
    '{"id": "i", "messages": [{"role": "assistant", "content": "x", "latency_ms": Infinity}]}',
    '{"id": "big", "messages": [], "n": 1' + "0" * 400 + "}",
    '{"id": "deep", "messages": [], "x": ' + "[" * 5000 + "]" * 5000 + "}",
    _call("[" * 2000 + "]" * 2000),
    _call('{"a": "\\ud800"}'),
    _call("{not json"),
    '{"id": 7, "messages": "no"}',
    '{"messages": [{"role": "robot", "content": 1}]}',
    "[1, 2, 3]",
    '"just a string"',
    "null",
    '{"id": "x", "messages": [',
]
noise = st.binary(min_size=1, max_size=80).map(lambda b: b.replace(b"\n", b" "))
hostile_line = st.one_of(st.sampled_from(HOSTILE).map(str.encode), noise).filter(
    lambda raw: bool(raw.decode("utf-8", "replace").strip()))
layouts = st.lists(st.one_of(st.just(None), hostile_line), min_size=1, max_size=25)
"""None is a good row; the rest are hostile lines, in any order."""


def write_layout(path: Path, layout: list[bytes | None]) -> tuple[list[str], int]:
    """The file, the ids of its good rows in order, and its number of non-blank lines."""
    rnd = random.Random(len(layout))
    good: list[str] = []
    lines: list[bytes] = []
    for i, item in enumerate(layout):
        if item is None:
            row = case_row(i, rnd)
            good.append(row["id"])
            lines.append(json.dumps(row, ensure_ascii=False).encode("utf-8"))
        else:
            lines.append(item)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return good, len(lines)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz-rows")
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    return folder


def strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"non-standard JSON constant {constant}")
    return json.loads(text, parse_constant=refuse)


@fuzz(examples=300)
@given(layout=layouts)
def test_every_row_is_a_case_or_a_bad_row_named_by_its_line(work: Path,
                                                            layout: list[bytes | None]) -> None:
    path = work / "cases.jsonl"
    good, lines = write_layout(path, layout)
    items = list(read_cases([path], on_bad_row="skip"))
    assert len(items) == lines
    ids = [item.id for item in items if isinstance(item, Case)]
    assert [i for i in ids if i in good] == good, "every good row, once, in order"
    for number, item in enumerate(items, 1):
        if isinstance(item, BadRow):
            assert (item.file, item.line) == (str(path), number)
            assert str(item.error()).startswith(f"{path}:{number}:")


@fuzz(examples=80)
@given(layout=layouts)
def test_a_run_over_hostile_rows_judges_every_good_row(
        work: Path, capsys: pytest.CaptureFixture[str], layout: list[bytes | None]) -> None:
    cases, report, journal = work / "run.jsonl", work / "report.json", work / "results.jsonl"
    good, lines = write_layout(cases, layout)
    code = main(["run", str(work / "spec.eval"), str(cases), "--on-bad-row", "skip", "-q",
                 "-o", str(report), "--results", str(journal), "--overwrite", "--no-progress"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 0, err
    written = strict_json(report.read_text(encoding="utf-8"))
    assert isinstance(written, dict)
    counted = written["cases"]
    assert counted["evaluated"] + counted["bad_rows_skipped"] == lines
    assert counted["evaluated"] >= len(good)
    recorded = [strict_json(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    judged = [r["id"] for r in recorded[1:] if isinstance(r, dict)]
    assert [i for i in judged if i in good] == good
