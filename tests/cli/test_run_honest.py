"""`evaldsl run` never fails silently: check-only specs, misconfigured judges, error reasons,
all-error runs and the cost of requests never sent."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.run_kit import REPO

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


KEY = "sk-test-never-shown-0123456789"


def bare_env(**extra: str) -> dict[str, str]:
    """The environment without any judge or embedder setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    return {**env, "EVALDSL_NO_CACHE": "1", **extra}


def evaldsl(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m evaldsl ARGS` with exactly `env` (the kit's runner adds to the caller's)."""
    return subprocess.run([sys.executable, "-m", "evaldsl", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=REPO)


@pytest.fixture
def judged(tmp_path: Path, kit: Any) -> tuple[Path, Path, Path]:
    """A spec whose only check is a judge, 12 cases, and where the report goes."""
    spec = tmp_path / "judged.eval"
    spec.write_text(JUDGED_ONLY, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 12)
    return spec, cases, tmp_path / "report.json"


class TestMisconfiguredJudge:
    def test_no_key_stops_the_run_with_exit_2(self, judged: Any) -> None:
        spec, cases, report = judged
        done = evaldsl("run", spec, cases, "-o", report, env=bare_env())
        assert done.returncode == 2, done.stderr
        assert "no judge is configured" in done.stderr
        assert not report.exists()

    def test_connection_refused_stops_the_run_with_exit_2(self, judged: Any) -> None:
        spec, cases, report = judged
        url = f"http://127.0.0.1:{free_port()}/v1"
        started = time.monotonic()
        done = evaldsl("run", spec, cases, "-o", report, "--judge", url, env=bare_env())
        assert done.returncode == 2, done.stderr
        port = url.split(":")[2].split("/")[0]
        assert f"cannot connect to the judge server at 127.0.0.1:{port}" in done.stderr
        assert url not in done.stderr
        assert time.monotonic() - started < 60

    def test_an_unknown_model_stops_the_run_with_exit_2(self, judged: Any,
                                                        judge_server: Any) -> None:
        spec, cases, report = judged
        judge_server.control(faults=[{"kind": "404", "count": 1000}])
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       "--judge-model", "no-such-model", env=bare_env())
        assert done.returncode == 2, done.stderr
        assert "HTTP 404" in done.stderr and "no-such-model" in done.stderr

    def test_a_refused_key_stops_the_run_and_is_never_shown(self, judged: Any,
                                                            judge_server: Any) -> None:
        spec, cases, report = judged
        judge_server.control(faults=[{"kind": "401", "count": 1000}])
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       env=bare_env(OPENAI_API_KEY=KEY))
        assert done.returncode == 2, done.stderr
        assert "HTTP 401" in done.stderr
        assert KEY not in done.stderr + done.stdout
        assert not report.exists()

    def test_a_url_on_the_command_line_needs_no_key(self, judged: Any,
                                                    judge_server: Any) -> None:
        spec, cases, report = judged
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       env=bare_env())
        assert done.returncode == 0, done.stderr
        checks = json.loads(report.read_text("utf-8"))["checks"]
        assert checks[0]["errors"] == 0 and checks[0]["evaluated"] == 12


class TestTransientFailures:
    def test_a_malformed_answer_stays_one_cases_error(self, judged: Any,
                                                      judge_server: Any) -> None:
        spec, cases, report = judged
        judge_server.control(faults=[{"kind": "malformed", "count": 2}])
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       "--concurrency", "1", env=bare_env())
        assert done.returncode == 0, done.stderr
        checks = json.loads(report.read_text("utf-8"))["checks"]
        assert checks[0]["errors"] == 1 and checks[0]["evaluated"] == 12

    def test_the_summary_counts_the_error_reasons(self, judged: Any,
                                                  judge_server: Any) -> None:
        spec, cases, report = judged
        judge_server.control(faults=[{"kind": "malformed", "count": 4}])
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       "--concurrency", "1", env=bare_env())
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stdout.splitlines() if x.startswith("errors: "))
        assert line.startswith("errors: 2 × ")
        assert "does not parse" in line or "not JSON" in line or "JSON" in line

    def test_a_run_where_every_case_errored_exits_4(self, judged: Any,
                                                    judge_server: Any) -> None:
        spec, cases, report = judged
        judge_server.control(faults=[{"kind": "malformed", "count": 1000}])
        done = evaldsl("run", spec, cases, "-o", report, "--judge", judge_server.base_url,
                       env=bare_env())
        assert done.returncode == 4, done.stderr
        assert "every case" in done.stderr
        assert report.exists()


class TestCost:
    def test_requests_never_sent_are_not_counted(self, judged: Any) -> None:
        spec, cases, report = judged
        url = f"http://127.0.0.1:{free_port()}/v1"
        done = evaldsl("run", spec, cases, "-o", report, "--judge", url, env=bare_env())
        assert done.returncode == 2
        assert "cost:" not in done.stdout
