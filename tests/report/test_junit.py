"""JUnit XML: one test case per case."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from evaldsl.record import CaseRecord
from evaldsl.report.junit import case_status, write_junit


def test_one_testcase_per_case_with_failures_and_errors(tmp_path: Path, sample: Any) -> None:
    path = tmp_path / "junit.xml"
    write_junit(path, "repair", [CaseRecord.of(r) for r in sample.RECORDS], frozenset({"success"}))
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "3", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [r["id"] for r in sample.RECORDS]
    c3 = cases[2].find("failure")
    assert c3 is not None and c3.get("message") == "verdict `failure`"
    assert "intent: failed (score 0) - missing 预约 <script>" in (c3.text or "")
    error = cases[4].find("error")
    assert error is not None and "judge timed out" in (error.get("message") or "")


def test_wider_passing_set(sample: Any) -> None:
    passing = frozenset({"success", "partial"})
    assert case_status(CaseRecord.of(sample.RECORDS[1]), passing)[0] == "passed"


def test_without_a_verdict_every_check_must_pass() -> None:
    record = {"id": "x", "labels": {"level": "poor"},
              "checks": {"a": {"status": "passed"}, "b": {"status": "failed"}}}
    assert case_status(CaseRecord.of(record), frozenset()) == ("failure", "checks not passed: b")


def test_control_characters_do_not_break_the_xml(tmp_path: Path) -> None:
    record = {"id": "bad\x01id", "labels": {"outcome": "failure"}, "checks": {},
              "trace": ["\x1b[31m"]}
    path = tmp_path / "junit.xml"
    write_junit(path, "s", [CaseRecord.of(record)], frozenset({"success"}))
    assert ET.parse(path).getroot().find("testsuite/testcase").get("name") == "bad\ufffdid"


def test_scratch_file_is_removed(tmp_path: Path, sample: Any) -> None:
    records = [CaseRecord.of(r) for r in sample.RECORDS]
    write_junit(tmp_path / "junit.xml", "repair", records, frozenset({"success"}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml"]
