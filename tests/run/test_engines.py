"""`Runner`: the library's one entry point does what `evaldsl run` does, on every engine.

The shipped specs over their example cases, each run four ways: through the API in one
process and in two worker processes, and through the command line the same two ways. Every
output is the same bytes, less what is about the process (the report's `run` section,
JUnit's times).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.errors import OptionsError
from evaldsl.model.resolve import resolve_settings
from evaldsl.report.outputs import ReportFiles
from evaldsl.run.engines import Runner

REPO = Path(__file__).resolve().parents[2]
RULES_ONLY = ("bfcl", "hospital_registration", "quality_monitoring", "sgd_service_calls",
              "tool_agent")
"""The shipped specs without model checks, each with its example cases."""
JUDGED = "repair_booking"
"""A shipped spec with model checks, judged by the project's test server."""
OUTPUTS = ("report.json", "report.html", "summary.md", "junit.xml", "results.jsonl")


def _files(out: Path) -> ReportFiles:
    return ReportFiles(out / "report.json", out / "report.html", out / "summary.md",
                       out / "junit.xml")


def _cli_flags(out: Path) -> list[str | Path]:
    return ["-o", out / "report.json", "--html", out / "report.html", "--md",
            out / "summary.md", "--junit", out / "junit.xml", "--results",
            out / "results.jsonl", "-q"]


def outputs(out: Path) -> dict[str, str]:
    """Every output's text, less what is about the process."""
    found = {}
    for name in OUTPUTS:
        text = (out / name).read_text("utf-8")
        if name == "report.json":
            report = json.loads(text)
            assert set(report["run"]) >= {"elapsed_seconds", "workers"}
            report.pop("run")
            text = json.dumps(report, ensure_ascii=False, indent=2)
        elif name == "junit.xml":
            text = re.sub(r' time="[0-9.]+"', "", text)
        found[name] = text
    return found


def _journal_cases(text: str) -> list[str]:
    """A journal's lines less its header."""
    return text.splitlines()[1:]


def _api(spec_path: Path, cases: Path, out: Path, **options: Any) -> dict[str, Any]:
    spec = load(spec_path)
    result = Runner(results=out / "results.jsonl", outputs=_files(out), **options).run(
        spec, [cases])
    return result.report.to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("name", RULES_ONLY)
def test_a_shipped_spec_reports_the_same_on_every_engine_and_through_the_cli(
        name: str, tmp_path: Path, kit: Any) -> None:
    spec, cases = REPO / "specs" / f"{name}.eval", REPO / "examples" / f"{name}.jsonl"
    one = _api(spec, cases, tmp_path / "api1")
    two = _api(spec, cases, tmp_path / "api2", workers=2)
    assert (one["run"]["workers"], two["run"]["workers"]) == (1, 2)
    for label, flags in (("cli1", []), ("cli2", ["--workers", "2"])):
        done = kit.evaldsl("run", spec, cases, *_cli_flags(tmp_path / label), *flags)
        assert done.returncode in (0, 1), done.stderr
    expected = outputs(tmp_path / "api1")
    assert one["cases"]["evaluated"] > 0
    for label in ("api2", "cli1", "cli2"):
        got = outputs(tmp_path / label)
        for file in OUTPUTS:
            assert got[file] == expected[file], (label, file)


@pytest.mark.slow
def test_a_judged_spec_reports_the_same_in_one_process_and_two(tmp_path: Path,
                                                                judge_server: Any,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                ) -> None:
    """The judge's answers and the model cost (calls, tokens) add up the same way."""
    monkeypatch.setenv("EVALDSL_JUDGE_API_KEY", "sk-test")
    spec, cases = REPO / "specs" / f"{JUDGED}.eval", REPO / "examples" / f"{JUDGED}.jsonl"
    settings = resolve_settings(judge=judge_server.base_url, no_cache=True)
    one = _api(spec, cases, tmp_path / "one", settings=settings)
    two = _api(spec, cases, tmp_path / "two", settings=settings, workers=2)
    assert one["cost"]["model_calls"] == two["cost"]["model_calls"] > 0
    first, second = outputs(tmp_path / "one"), outputs(tmp_path / "two")
    assert first["report.json"] == second["report.json"]
    assert sorted(_journal_cases(first["results.jsonl"])) == \
        sorted(_journal_cases(second["results.jsonl"]))


def test_a_runner_in_this_process_returns_the_report_and_writes_its_files(
        tmp_path: Path) -> None:
    spec = load(REPO / "specs" / "bfcl.eval")
    out = tmp_path / "out"
    result = Runner(results=out / "results.jsonl",
                    outputs=ReportFiles(json=out / "report.json")).run(
        spec, [REPO / "examples" / "bfcl.jsonl"])
    written = json.loads((out / "report.json").read_text("utf-8"))
    assert written["cases"] == result.report.to_dict()["cases"]
    assert result.report.cases.evaluated == 6 == result.evaluated
    again = Runner(results=out / "results.jsonl", resume=True).run(
        spec, [REPO / "examples" / "bfcl.jsonl"])
    assert (again.resumed, again.evaluated) == (6, 0)
    assert {k: v for k, v in again.report.to_dict().items() if k != "run"} == \
        {k: v for k, v in result.report.to_dict().items() if k != "run"}


@pytest.mark.parametrize(("options", "message"), [
    ({"resume": True}, "--resume needs --results"),
    ({"workers": 2, "deadline": 1.0}, "--deadline works with one process only"),
    ({"actors": 2}, "--actors needs --engine ray"),
    ({"engine": "ray", "limit": 3}, "--limit does not work with --engine ray"),
    ({"seed": 3}, "--seed is the seed of --sample"),
    ({"outputs": ReportFiles(junit=Path("-"))}, "--junit cannot write to stdout")])
def test_options_that_do_not_go_together_are_refused_before_any_work(
        options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        Runner(**options).check()


def test_a_field_map_is_refused_with_workers(tmp_path: Path) -> None:
    spec = load(REPO / "specs" / "bfcl.eval")
    with pytest.raises(OptionsError, match="--map reads rows in this process only"):
        Runner(workers=2, field_map=tmp_path / "map.toml").run(
            spec, [REPO / "examples" / "bfcl.jsonl"])


@pytest.mark.slow
def test_the_api_page_does_what_the_command_does(tmp_path: Path, kit: Any) -> None:
    """docs/api.md's `Runner` block, run as a reader would from a checkout, writes the files
    `evaldsl run --workers 2` writes."""
    import subprocess
    import sys

    page = (REPO / "docs" / "api.md").read_text("utf-8")
    blocks = re.findall(r"^```python run-from-repo\n(.*?)^```", page, flags=re.S | re.M)
    assert len(blocks) == 1
    for folder in ("specs", "examples"):
        (tmp_path / folder).symlink_to(REPO / folder)
    done = subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("6 cases, 2 workers")
    cli_dir = tmp_path / "from-cli"
    cli_dir.mkdir()
    for folder in ("specs", "examples"):
        (cli_dir / folder).symlink_to(REPO / folder)
    command = subprocess.run(
        [sys.executable, "-m", "evaldsl", "run", "specs/bfcl.eval", "examples/bfcl.jsonl",
         "--workers", "2", "--results", "results.jsonl", "-o", "report.json", "--html",
         "report.html", "--fail-under", "accuracy=50%", "-q"],
        cwd=cli_dir, capture_output=True, text=True, timeout=300)
    assert command.returncode in (0, 1), command.stderr
    api_report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    cli_report = json.loads((cli_dir / "report.json").read_text("utf-8"))
    assert kit.without_run(api_report) == kit.without_run(cli_report)
    assert (tmp_path / "report.html").read_text("utf-8") == \
        (cli_dir / "report.html").read_text("utf-8")
    assert (tmp_path / "results.jsonl").read_text("utf-8") == \
        (cli_dir / "results.jsonl").read_text("utf-8")
    assert done.stdout.splitlines()[1:] == [line for line in command.stderr.splitlines()
                      if line.startswith("fail-under")]
