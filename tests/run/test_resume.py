"""`evaldsl run --resume` after a SIGKILL at a random point ends with the uninterrupted report."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

CASES = 5000


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def kill_when(process: Any, results: Path, at_line: int, deadline: float = 120.0) -> None:
    """SIGKILL the run once its journal holds `at_line` lines (a bounded poll)."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop and process.poll() is None:
        if lines(results) >= at_line:
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    process.wait(timeout=30)
    if process.stderr is not None:
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"


def results_set(path: Path) -> list[str]:
    """The journal's case lines, sorted (completion order may differ)."""
    return sorted(path.read_text("utf-8").splitlines()[1:])


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("whole")
    spec = folder / "runner.eval"
    spec.write_text(kit.SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    kit.write_cases(cases, CASES)
    done = kit.evaldsl("run", spec, cases, "-o", folder / "report.json", "--results",
                       folder / "results.jsonl", "--junit", folder / "junit.xml")
    assert done.returncode == 0, done.stderr
    return {"folder": folder, "spec": spec, "cases": cases,
            "report": json.loads((folder / "report.json").read_text("utf-8")),
            "results": results_set(folder / "results.jsonl"),
            "junit": (folder / "junit.xml").read_text("utf-8")}


@pytest.mark.parametrize("seed", [1, 2])
def test_resume_after_sigkill_gives_the_uninterrupted_report(
        uninterrupted: dict[str, Any], tmp_path: Path, kit: Any, seed: int) -> None:
    rnd = random.Random(seed)
    at_line = rnd.randint(2, CASES - 500)
    results = tmp_path / "results.jsonl"
    args = ("run", uninterrupted["spec"], uninterrupted["cases"], "--results", results)
    kill_when(kit.start_evaldsl(*args), results, at_line)
    if rnd.random() < 0.5:
        whole = results.read_bytes()
        results.write_bytes(whole[: len(whole) - rnd.randint(1, 40)])  # torn mid-line
    journaled = lines(results)
    done = kit.evaldsl(*args, "--resume", "-o", tmp_path / "report.json", "--junit",
                       tmp_path / "junit.xml")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert kit.without_run(report) == kit.without_run(uninterrupted["report"]), \
        f"seed {seed}: killed at line {at_line}"
    assert report["run"]["resumed_cases"] >= journaled - 2
    assert report["run"]["resumed_cases"] + report["run"]["evaluated_cases"] == CASES
    assert results_set(results) == uninterrupted["results"], "no case lost or doubled"


def test_resume_with_model_checks_and_concurrency(tmp_path: Path, kit: Any,
                                                  judge_server: Any) -> None:
    """The async path: a judged spec at concurrency 4, killed, resumed, same report."""
    judge_server.reset()
    judge_server.control(latency_ms=5)
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 200)
    env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01"}
    common = ("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
              "--concurrency", "4")
    whole = kit.evaldsl(*common, "-o", tmp_path / "whole.json", env=env)
    assert whole.returncode == 0, whole.stderr
    results = tmp_path / "results.jsonl"
    kill_when(kit.start_evaldsl(*common, "--results", results, env=env), results,
              random.Random(4).randint(20, 160))
    done = kit.evaldsl(*common, "--results", results, "--resume", "-o",
                       tmp_path / "resumed.json", env=env)
    assert done.returncode == 0, done.stderr
    expected = json.loads((tmp_path / "whole.json").read_text("utf-8"))
    resumed = json.loads((tmp_path / "resumed.json").read_text("utf-8"))
    expected.pop("cost"), resumed.pop("cost")
    assert kit.without_run(resumed) == kit.without_run(expected)
    assert expected["checks"][1]["name"] == "polite" and expected["checks"][1]["evaluated"] > 0


def test_resume_refuses_a_journal_of_another_spec(tmp_path: Path, kit: Any,
                                                  spec_file: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 20)
    results = tmp_path / "results.jsonl"
    assert kit.evaldsl("run", spec_file, cases, "--results", results).returncode == 0
    spec_file.write_text(kit.SPEC.replace("max_chars: 60", "max_chars: 61"), encoding="utf-8")
    done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume")
    assert done.returncode == 2
    assert "holds results of another spec" in done.stderr


def test_resume_needs_results(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 3)
    done = kit.evaldsl("run", spec_file, cases, "--resume")
    assert done.returncode == 2 and "--resume needs --results" in done.stderr


def test_resume_after_sigkill_with_repeated_ids_judges_every_row_once(
        tmp_path: Path, kit: Any, spec_file: Path) -> None:
    """Ids repeat (each 50 rows apart, with other dialogs): killed mid-run and resumed, the
    report is the uninterrupted one and the journal holds every row exactly once."""
    count = 5000
    rows = kit.write_cases(tmp_path / "unique.jsonl", count)
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({**row, "id": f"dup-{i % 50}"}) + "\n"
                             for i, row in enumerate(rows)), encoding="utf-8")
    whole = kit.evaldsl("run", spec_file, cases, "-o", tmp_path / "whole.json", timeout=120)
    assert whole.returncode == 0, whole.stderr
    results = tmp_path / "results.jsonl"
    args = ("run", spec_file, cases, "--results", results)
    kill_when(kit.start_evaldsl(*args), results, random.Random(7).randint(200, count - 1500),
              deadline=60)
    done = kit.evaldsl(*args, "--resume", "-o", tmp_path / "resumed.json", timeout=120)
    assert done.returncode == 0, done.stderr
    resumed = json.loads((tmp_path / "resumed.json").read_text("utf-8"))
    expected = json.loads((tmp_path / "whole.json").read_text("utf-8"))
    assert kit.without_run(resumed) == kit.without_run(expected)
    judged = [json.loads(line)["row"] for line in results.read_text("utf-8").splitlines()[1:]]
    assert sorted(judged) == sorted(f"{cases}:{n}" for n in range(1, count + 1))
