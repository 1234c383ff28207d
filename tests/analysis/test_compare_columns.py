"""A journal streamed into columns reads as `journal_read` reads it: same lines, same errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from evaldsl.analysis.compare_columns import COUNTED, ERRORED, OUTSIDE, STATUSES, read_columns
from evaldsl.api import loads
from evaldsl.errors import CaseDataError, JournalVersionError
from evaldsl.report.journal import Header
from evaldsl.report.journal_read import read_entries
from tests.report.test_record_shape import GOOD
from tests.support import run_kit

PLAN = loads(run_kit.SPEC).new_report().plan
HEADER = json.dumps(Header("runner", "h" * 64).to_dict())


def _case(i: int, **change: Any) -> str:
    return json.dumps({**GOOD, "id": f"c{i}", "row": f"cases.jsonl:{i}", **change})


def _journal(tmp_path: Path, *lines: str, end: str = "\n") -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return path


class TestColumns:
    def test_codes_and_values_of_each_case(self, tmp_path: Path) -> None:
        path = _journal(tmp_path, HEADER, _case(1),
                        _case(2, labels={}, checks={}, metrics={"avg_short": [0.25]}))
        got = read_columns(path, PLAN)
        assert got.ids.tolist() == [b"c1", b"c2"]
        assert got.spec_hash == "h" * 64
        labels = ("success", "partial", "failure", "error")
        assert [labels[c] for c in got.labels[:, 0]] == ["success", "error"]
        greets, fast = PLAN.checks.index("greets"), PLAN.checks.index("fast")
        assert [STATUSES[c] for c in got.checks[0, [greets, fast]]] == ["passed", "error"]
        assert {STATUSES[c] for c in got.checks[1]} == {"skipped"}
        success, fast_rate, avg = got.metrics
        assert success.state.tolist() == [COUNTED, OUTSIDE]
        assert success.values[0].tolist() == [1.0, 0.0]
        assert fast_rate.state.tolist() == [OUTSIDE, OUTSIDE]
        assert avg.state.tolist() == [ERRORED, COUNTED]
        assert avg.values[1, 0] == 0.25 and math.isnan(avg.values[0, 0])

    def test_a_line_repeated_word_for_word_is_read_once(self, tmp_path: Path) -> None:
        path = _journal(tmp_path, HEADER, _case(1), _case(2), _case(1))
        assert read_columns(path, PLAN).ids.tolist() == [b"c1", b"c2"]

    def test_a_torn_last_line_is_ignored(self, tmp_path: Path) -> None:
        path = _journal(tmp_path, HEADER, _case(1), _case(2)[:40], end="")
        assert read_columns(path, PLAN).ids.tolist() == [b"c1"]

    def test_a_journal_without_cases_has_empty_columns(self, tmp_path: Path) -> None:
        got = read_columns(_journal(tmp_path, HEADER), PLAN)
        assert len(got.ids) == 0 and got.labels.shape == (0, 1)

    def test_an_older_journal_is_refused(self, tmp_path: Path) -> None:
        old = json.dumps({**json.loads(HEADER), "version": 1})
        with pytest.raises(JournalVersionError):
            read_columns(_journal(tmp_path, old, _case(1)), PLAN)

    def test_a_mean_over_text_is_a_data_error_naming_the_line(self, tmp_path: Path) -> None:
        path = _journal(tmp_path, HEADER, _case(1), _case(2, metrics={"avg_short": ["x"]}))
        with pytest.raises(CaseDataError) as caught:
            read_columns(path, PLAN)
        assert str(caught.value) == f"{path}:3: `metrics.avg_short` has the wrong type"


BAD_JOURNALS: dict[str, list[str]] = {
    "another result for a row": [HEADER, _case(1), _case(2), _case(3, row="cases.jsonl:1")],
    "a wrong type": [HEADER, _case(1), _case(2, labels=["x"])],
    "a name the spec lacks": [HEADER, _case(1, checks={"nope": {"status": "passed"}})],
    "not JSON": [HEADER, _case(1), "{oops", _case(2)],
    "a conflict before a wrong type": [HEADER, _case(1), _case(2, row="cases.jsonl:1"),
                                       _case(3, labels=["x"])],
    "a wrong type before a conflict": [HEADER, _case(1), _case(3, labels=["x"]),
                                       _case(2, row="cases.jsonl:1")],
    "a conflict before bad JSON": [HEADER, _case(1), _case(2, row="cases.jsonl:1"), "{oops"],
    "a header further down": [HEADER, _case(1), HEADER],
    "no header, a conflict": [_case(1), _case(2, row="cases.jsonl:1")],
}


class TestSameErrorsAsJournalRead:
    @pytest.mark.parametrize("lines", BAD_JOURNALS.values(), ids=BAD_JOURNALS.keys())
    def test_the_first_problem_in_the_file_is_said_in_the_same_words(
            self, tmp_path: Path, lines: list[str]) -> None:
        path = _journal(tmp_path, *lines)
        with pytest.raises(CaseDataError) as expected:
            list(read_entries(path, PLAN))
        with pytest.raises(CaseDataError) as got:
            read_columns(path, PLAN)
        assert str(got.value) == str(expected.value)
