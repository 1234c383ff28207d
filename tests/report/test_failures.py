"""Cases that errored and the reasons met: counted once per case, merged by addition."""

from __future__ import annotations

from typing import Any

from evaldsl.record import CaseRecord
from evaldsl.report.document import ReasonCount
from evaldsl.report.failures import ErrorTally, errored, reason_key


def record(*statuses: str, labels: dict[str, str] | None = None,
           reason: str = "the judge's answer is not JSON; raw answer: {x") -> dict[str, Any]:
    checks = {f"c{i}": {"status": s, **({"reason": reason} if s == "error" else {})}
              for i, s in enumerate(statuses)}
    return {"id": "x", "labels": labels or {}, "checks": checks}


class TestErrored:
    def test_a_case_errored_when_all_its_checks_did(self) -> None:
        """Without outcome blocks, one decided check means the case has a result."""
        assert errored(CaseRecord.of(record("error", "error")))
        assert not errored(CaseRecord.of(record("error", "failed")))
        assert not errored(CaseRecord.of(record()))

    def test_with_blocks_the_labels_decide(self) -> None:
        assert errored(CaseRecord.of(record("passed", labels={"outcome": "error"})))
        assert not errored(CaseRecord.of(record("error", labels={"outcome": "poor"})))


class TestReasons:
    def test_what_varies_from_case_to_case_is_left_out(self) -> None:
        assert reason_key("HTTP 500 (gave up after 5 attempts)") == "HTTP 500"

    def test_a_case_counts_each_reason_once_and_tallies_merge(self) -> None:
        a, b = ErrorTally(), ErrorTally()
        a.add(CaseRecord.of(record("error", "error")))
        b.add(CaseRecord.of(record("error", reason="timeout")))
        b.add(CaseRecord.of(record("passed")))
        merged = a.merge(b)
        assert merged.errored == 2
        assert merged.top() == [ReasonCount(reason="the judge's answer is not JSON", count=1),
                                ReasonCount(reason="timeout", count=1)]
