"""`evaldsl run` never fails silently: check-only specs, misconfigured judges, error reasons,
all-error runs and the cost of requests never sent."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

CHECK_ONLY = """\
spec "checks only"
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check asks_name = keyword(scope: replies, any: ["name", "姓名"])
"""

JUDGED_ONLY = """\
spec "judged only"
check polite = judge(criteria: "polite and helpful", scale: 10, min: 5)
outcome {
  good if polite
  poor otherwise
}
metric polite_rate = rate(polite)
"""


def free_port() -> int:
    """A port nobody listens on: bound, read and released at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def no_key_env() -> dict[str, str]:
    return {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "EVALDSL_NO_CACHE": "1"}


@pytest.fixture(scope="module")
def check_only_run(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> Any:
    """A check-only spec run over 20 cases with every output enabled."""
    tmp = tmp_path_factory.mktemp("check_only")
    spec = tmp / "checks.eval"
    spec.write_text(CHECK_ONLY, encoding="utf-8")
    cases = tmp / "cases.jsonl"
    rows = kit.write_cases(cases, 20)
    done = kit.evaldsl("run", spec, cases, "-o", tmp / "report.json",
                       "--html", tmp / "report.html", "--md", tmp / "summary.md",
                       "--junit", tmp / "junit.xml")
    return done, tmp, rows


class TestCheckOnlySpec:
    def test_every_check_is_computed_in_the_report(self, check_only_run: Any) -> None:
        done, tmp, rows = check_only_run
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp / "report.json").read_text("utf-8"))
        checks = {c["name"]: c for c in report["checks"]}
        greeting = sum(("hello" in r["messages"][0]["content"]
                        or "你好" in r["messages"][0]["content"]) for r in rows)
        assert checks["greets"]["evaluated"] == 20
        assert checks["greets"]["passed"] == greeting
        assert checks["asks_name"]["evaluated"] == 20

    def test_the_summary_and_the_documents_show_the_pass_rates(self, check_only_run: Any) -> None:
        done, tmp, _ = check_only_run
        assert "checks: greets " in done.stdout
        assert "asks_name" in done.stdout
        assert "greets" in (tmp / "summary.md").read_text("utf-8")
        assert "asks_name" in (tmp / "report.html").read_text("utf-8")

    def test_junit_fails_each_case_whose_checks_failed(self, check_only_run: Any) -> None:
        done, tmp, rows = check_only_run
        suite = ET.parse(tmp / "junit.xml").getroot().find("testsuite")
        assert suite is not None
        failing = {r["id"] for r in rows
                   if not any(w in r["messages"][0]["content"] for w in ("hello", "你好"))}
        failed = {t.get("name") for t in suite.iter("testcase")
                  if t.find("failure") is not None}
        assert failing and failing <= failed
        message = next(t.find("failure") for t in suite.iter("testcase")
                       if t.get("name") in failing)
        assert message is not None and "greets" in (message.get("message") or "")
