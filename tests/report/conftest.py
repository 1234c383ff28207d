"""A report built from hand-written case records, so writers are tested without an interpreter."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.report.document import Cost, ReportDoc, RunInfo
from evaldsl.report.json_report import ReportBuilder, metric_entry
from evaldsl.report.layout import SpecLayout, layout_of
from evaldsl.syntax.source import Source

SPEC = """\
spec "维修 <b>预约</b> & co"
check intent = keyword(any: ["预约"])
check completion = slots(slots: {name: "姓名", phone: "电话"})
check polite = judge(criteria: "礼貌", scale: 10, min: 7)
outcome {
  success if intent.passed and completion >= 0.8
  partial if intent.passed
  failure otherwise
}
metric success_rate = rate(success)
metric avg_completion = mean(completion)
metric polite_rate = rate(polite) where intent.passed
"""

XSS = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"


def record(case_id: str, branch: int | None, intent: bool, filled: dict[str, bool],
           polite: float | None = None) -> dict[str, Any]:
    labels = ["success", "partial", "failure"]
    share = sum(filled.values()) / len(filled)
    checks: dict[str, Any] = {
        "intent": {"status": "passed" if intent else "failed", "passed": intent,
                   "score": 1.0 if intent else 0.0, "value": 1.0 if intent else 0.0,
                   "reason": "" if intent else f"missing 预约 {XSS}"},
        "completion": {"status": "passed" if share >= 0.5 else "failed", "passed": share >= 0.5,
                       "score": share, "value": share, "reason": "", "filled": filled},
    }
    skipped = []
    if polite is None:
        skipped.append("polite")
    elif polite < 0:
        checks["polite"] = {"status": "error", "passed": {"error": "judge timed out"},
                            "score": {"error": "judge timed out"},
                            "value": {"error": "judge timed out"}, "reason": "judge timed out"}
    else:
        checks["polite"] = {"status": "passed" if polite >= 0.7 else "failed",
                            "passed": polite >= 0.7, "score": polite, "value": polite * 10,
                            "reason": "tone"}
    return {
        "id": case_id,
        "labels": {"outcome": "error" if branch is None else labels[branch]},
        "branches": {"outcome": branch},
        "errors": {"outcome": "error(polite: judge timed out)"} if branch is None else {},
        "checks": checks, "skipped": skipped, "metrics": {},
        "review": {"sampled": branch == 2, "rule": 0, "priority": 50.0, "draw": 0.1,
                   "error": None},
        "trace": [f"outcome: branch {branch}"],
    }


RECORDS = [
    record("c1", 0, True, {"name": True, "phone": True}, 0.9),
    record("c2", 1, True, {"name": True, "phone": False}, 0.6),
    record("c3", 2, False, {"name": False, "phone": False}),
    record(f"c4 {XSS}", 2, False, {"name": True, "phone": False}),
    record("c5", None, True, {"name": True, "phone": True}, -1),
    record("c6", 0, True, {"name": True, "phone": True}, 0.8),
]


def case_for(case_id: str) -> Case:
    return Case.from_dict({"id": case_id, "messages": [
        {"role": "user", "content": f"我想预约维修 {XSS}"},
        {"role": "assistant", "content": "好的，请问您的姓名？", "latency_ms": 900},
    ]}, origin=f"cases.jsonl:{case_id}")


def metric(name: str, value: float | None, num: float | None, den: int, errors: int,
           where: str | None, is_rate: bool) -> SimpleNamespace:
    return SimpleNamespace(name=name, value=value, numerator=num, denominator=den, errors=errors,
                           where=where, is_rate=is_rate, error_examples=())


METRICS = [
    metric("success_rate", 2 / 5, 2, 5, 1, None, True),
    metric("avg_completion", 0.6, 3.0, 5, 1, None, False),
    metric("polite_rate", 2 / 2, 2, 2, 1, "intent.passed", True),
]


@pytest.fixture
def layout() -> SpecLayout:
    return layout_of(Source(SPEC, "specs/repair.eval"), "specs/repair.eval")


def build(layout: SpecLayout, records: list[dict[str, Any]] = RECORDS) -> ReportDoc:
    builder = ReportBuilder(layout)
    for r in records:
        builder.add(r, case_for(r["id"]))
    metrics = [metric_entry(m, layout.metrics[m.name].expression) for m in METRICS]
    cost = {"model_calls": 4, "cached": 1, "retries": 0, "model_errors": 1,
            "prompt_tokens": 1200, "completion_tokens": 80, "cache_read_failures": 0,
            "cache_write_failures": 0, "not_asked": 0, "stopped_asking": None,
            "truncated": 0, "truncation_retries": 0}
    bad = [BadRow("cases.jsonl", 7, f"not JSON {XSS}")]
    return builder.build(metrics, Cost(**cost), bad, 1, RunInfo(resumed_cases=0), "evaldsl test")


@pytest.fixture
def report(layout: SpecLayout) -> ReportDoc:
    return build(layout)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(page: Path, profile: Path) -> str:
    """The DOM of `page` after Debian's headless chromium loaded it (scripts run)."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does it)")
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", f"--user-data-dir={profile}", "--dump-dom", page.as_uri()]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="session")
def sample() -> SimpleNamespace:
    """The helpers above, for test modules (importlib mode forbids importing conftest)."""
    return SimpleNamespace(RECORDS=RECORDS, METRICS=METRICS, build=build, record=record,
                           case_for=case_for, dump_dom=dump_dom, XSS=XSS, SPEC=SPEC)
