"""The runner through its API: streams, bad rows, limits, duplicate ids and resuming."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.api import load
from evaldsl.cases.loading import read_cases
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import CaseDataError
from evaldsl.report.layout import layout_of
from evaldsl.run.runner import RunOptions, run
from evaldsl.values import CheckResult, ErrorValue


@pytest.fixture
def spec(spec_file: Path) -> Any:
    return load(spec_file)


def judge(spec: Any, cases: Path, **options: Any) -> Any:
    items = read_cases([cases], CaseSchema.of(spec), "skip")
    return run(spec, layout_of(spec.source, "runner.eval"), items, RunOptions(**options))


def test_bad_rows_are_counted_and_good_ones_all_judged(tmp_path: Path, kit: Any,
                                                       spec: Any) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 12, bad={0: "[1, 2]", 6: "{oops"})
    result = judge(spec, cases, on_bad_row="skip")
    assert result.report.cases.evaluated == 12
    assert [(b.line, b.reason[:12]) for b in result.bad_rows] == \
        [(1, "a case must "), (8, "not valid JS")]


def test_fail_policy_raises_at_the_first_bad_row(tmp_path: Path, kit: Any, spec: Any) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 5, bad={3: "{oops"})
    with pytest.raises(CaseDataError, match=r"cases\.jsonl:4:"):
        judge(spec, cases)


def test_limit_counts_cases_not_bad_rows(tmp_path: Path, kit: Any, spec: Any) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 10, bad={1: "{oops", 2: "{oops"})
    result = judge(spec, cases, on_bad_row="skip", limit=4)
    assert result.report.cases.evaluated == 4
    assert result.report.cases.bad_rows_skipped == 2


def test_resume_counts_repeated_ids(tmp_path: Path, kit: Any, spec: Any) -> None:
    """Two rows with one id are two cases; a journal holding one of them resumes the other."""
    rows = kit.write_cases(tmp_path / "one.jsonl", 6)
    rows.insert(3, rows[1])
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    whole = judge(spec, cases, results=tmp_path / "whole.jsonl")
    journal = tmp_path / "part.jsonl"
    lines = (tmp_path / "whole.jsonl").read_text("utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:4]), encoding="utf-8")  # header + 3 cases
    resumed = judge(spec, cases, results=journal, resume=True)
    assert (resumed.resumed, resumed.evaluated) == (3, 4)
    strip = kit.without_run
    assert strip(resumed.report.to_dict()) == strip(whole.report.to_dict())
    assert resumed.report.cases.evaluated == 7


def test_resume_without_a_journal_starts_afresh(tmp_path: Path, kit: Any, spec: Any) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 3)
    result = judge(spec, cases, results=tmp_path / "new.jsonl", resume=True)
    assert (result.resumed, result.evaluated) == (0, 3)


def test_journal_line_is_the_case_result_without_its_trace(tmp_path: Path, kit: Any,
                                                           spec: Any) -> None:
    from evaldsl.results import CaseResult

    rows = kit.write_cases(tmp_path / "cases.jsonl", 20)
    for row in rows:
        result = spec.evaluate(row)
        whole = result.to_dict()
        line = result.to_dict(trace=False)
        assert line == {k: v for k, v in whole.items() if k != "trace"}
        assert CaseResult.from_dict(line).to_dict(trace=False) == line


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
    | st.builds(ErrorValue, st.text(max_size=5)),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8)


@given(st.booleans(), st.floats(0, 1), values, st.dictionaries(st.text(max_size=6), values,
                                                                max_size=4), st.text(max_size=5))
def test_law_single_pass_serialization_equals_plain_then_jsonable(
        passed: bool, score: float, value: Any, fields: dict[str, Any], reason: str) -> None:
    """Law: `check_to_dict` equals `values._plain` followed by `_jsonable`, key for key."""
    from evaldsl.results import _jsonable, check_to_dict, status

    result = CheckResult(passed, score, value, fields, reason)
    expected: dict[str, Any] = {"status": status(result)}
    expected.update({k: _jsonable(v) for k, v in result.to_dict().items()})
    expected.setdefault("reason", "")
    assert json.dumps(check_to_dict(result)) == json.dumps(expected)
