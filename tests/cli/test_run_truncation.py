"""`evaldsl run` against a judge that cuts an answer off: the report counts the cut and
its retry in every form it is written in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def test_a_cut_answer_and_its_retry_are_counted(tmp_path: Path, kit: Any,
                                                 judge_server: Any) -> None:
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 6)
    judge_server.control(script=[{"contains": "assistant", "cut": 1}])
    out = {"json": tmp_path / "report.json", "html": tmp_path / "report.html",
           "md": tmp_path / "report.md"}
    done = kit.evaldsl("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
                       "-o", out["json"], "--html", out["html"], "--md", out["md"],
                       env={"EVALDSL_JUDGE_API_KEY": "sk-test"}, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out["json"].read_text("utf-8"))
    assert (report["cost"]["truncated"], report["cost"]["truncation_retries"]) == (1, 1)
    assert report["cases"]["errored"] == 0
    assert "cut-off answers: 1 (1 asked again with a larger budget)" in done.stdout
    html = out["html"].read_text("utf-8")
    assert "answers cut off" in html and "asked again after a cut-off answer" in html
    assert "1 answer cut off at max_tokens" in out["md"].read_text("utf-8")


def test_a_run_without_cuts_says_nothing_of_them(tmp_path: Path, kit: Any,
                                                  judge_server: Any) -> None:
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 3)
    report = tmp_path / "report.json"
    done = kit.evaldsl("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
                       "-o", report, env={"EVALDSL_JUDGE_API_KEY": "sk-test"}, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(report.read_text("utf-8"))["cost"]["truncated"] == 0
    assert "cut-off" not in done.stdout
