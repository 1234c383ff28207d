"""`evaldsl run --workers N`: the same reports, journal, resume, errors and exit codes."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.cases.loading import read_rows
from evaldsl.errors import WorkerError
from evaldsl.report.layout import layout_of
from evaldsl.run.runner import RunOptions
from evaldsl.run.workers import run_workers
from tests.support.worker_faults import Fault, FaultySink

CASES = 300
BAD = {0: "[1, 2]", 41: "{oops", 170: '{"id": "x", "messages": "hi"}', 299: "\"text\""}
OUTPUTS = ("report.json", "report.html", "summary.md", "junit.xml", "results.jsonl")


def run_cli(kit: Any, out: Path, spec: Path, cases: Path, *flags: Any, env: Any = None,
            results: Path | None = None) -> Any:
    """`evaldsl run` with every output enabled into `out` (the journal there too, by default)."""
    out.mkdir(parents=True, exist_ok=True)
    return kit.evaldsl("run", spec, cases, "-o", out / "report.json", "--html",
                       out / "report.html", "--md", out / "summary.md", "--junit",
                       out / "junit.xml", "--results", results or out / "results.jsonl", *flags,
                       env=env)


def outputs(out: Path) -> dict[str, Any]:
    """Every output of a run, less what is about the process (the run section, JUnit time)."""
    found: dict[str, Any] = {}
    for name in OUTPUTS:
        text = (out / name).read_text("utf-8")
        if name == "report.json":
            found[name] = {k: v for k, v in json.loads(text).items() if k != "run"}
        elif name == "junit.xml":
            found[name] = re.sub(r' time="[0-9.]+"', "", text)
        else:
            found[name] = text
    return found


def children(pid: int) -> set[int]:
    """The processes `pid` started that are still alive (Linux)."""
    found: set[int] = set()
    for listing in Path(f"/proc/{pid}/task").glob("*/children"):
        found.update(map(int, listing.read_text().split()))
    return found


def gone(pids: set[int], deadline: float = 30.0) -> bool:
    """Whether every process in `pids` has exited within `deadline` seconds (a bounded poll)."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        alive = {p for p in pids if Path(f"/proc/{p}").exists()
                 and "zombie" not in _state(p)}
        if not alive:
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


def journal_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Any]:
    """The same run over 300 cases and 4 bad rows with one process and with two workers."""
    folder = tmp_path_factory.mktemp("pair")
    spec = folder / "runner.eval"
    spec.write_text(kit.SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    kit.write_cases(cases, CASES, bad=BAD)
    one = run_cli(kit, folder / "one", spec, cases, "--on-bad-row", "skip")
    two = run_cli(kit, folder / "two", spec, cases, "--on-bad-row", "skip", "--workers", "2")
    return {"folder": folder, "spec": spec, "cases": cases, "one": one, "two": two}


class TestSameAsOneProcess:
    def test_every_output_is_the_same(self, pair: dict[str, Any]) -> None:
        """report.json (but its run section), HTML, Markdown, JUnit (but its time), journal."""
        assert pair["one"].returncode == pair["two"].returncode == 0, pair["two"].stderr
        assert outputs(pair["folder"] / "two") == outputs(pair["folder"] / "one")

    def test_bad_rows_are_reported_by_file_and_line(self, pair: dict[str, Any]) -> None:
        skipped = [line for line in pair["two"].stderr.splitlines() if line.startswith("skipped")]
        assert [s.split(":")[2] for s in skipped] == ["1", "43", "173", "303"]
        assert pair["two"].stdout == pair["one"].stdout

    def test_the_run_section_says_how_many_workers(self, pair: dict[str, Any]) -> None:
        report = json.loads((pair["folder"] / "two" / "report.json").read_text("utf-8"))
        assert (report["run"]["workers"], report["run"]["evaluated_cases"]) == (2, CASES)

    def test_limit_stops_at_the_same_case(self, pair: dict[str, Any], kit: Any,
                                          tmp_path: Path) -> None:
        """`--limit` counts cases, not bad rows, in input order; no case past it is judged."""
        flags = ("--on-bad-row", "skip", "--limit", "169")
        one = run_cli(kit, tmp_path / "one", pair["spec"], pair["cases"], *flags)
        two = run_cli(kit, tmp_path / "two", pair["spec"], pair["cases"], *flags, "--workers",
                      "3")
        assert one.returncode == two.returncode == 0, two.stderr
        assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
        report = json.loads((tmp_path / "two" / "report.json").read_text("utf-8"))
        assert (report["cases"]["evaluated"], report["cases"]["bad_rows_skipped"]) == (169, 2)

    def test_a_bad_row_with_the_fail_policy_is_exit_3_after_the_cases_before_it(
            self, pair: dict[str, Any], kit: Any, tmp_path: Path) -> None:
        common = ("run", pair["spec"], pair["cases"], "--results")
        one = kit.evaldsl(*common, tmp_path / "one.jsonl")
        two = kit.evaldsl(*common, tmp_path / "two.jsonl", "--workers", "2")
        assert one.returncode == two.returncode == 3
        assert f"{pair['cases']}:1: a case must" in two.stderr and "Traceback" not in two.stderr
        assert journal_lines(tmp_path / "two.jsonl") == journal_lines(tmp_path / "one.jsonl")

    def test_a_judged_spec(self, kit: Any, tmp_path: Path, judge_server: Any) -> None:
        """Each worker has its own judge client; verdicts and cost add up the same."""
        judge_server.control(latency_ms=5)
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 200)
        env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01"}
        flags = ("--judge", judge_server.base_url, "--no-cache", "--concurrency", "8")
        one = run_cli(kit, tmp_path / "one", spec, cases, *flags, env=env)
        calls = judge_server.stats()["chat"]
        two = run_cli(kit, tmp_path / "two", spec, cases, *flags, "--workers", "2", env=env)
        assert one.returncode == two.returncode, two.stderr
        first, second = outputs(tmp_path / "one"), outputs(tmp_path / "two")
        assert second["report.json"] == first["report.json"]
        assert sorted(second["results.jsonl"].splitlines()) == \
            sorted(first["results.jsonl"].splitlines())
        assert first["report.json"]["cost"]["model_calls"] == calls > 0
        assert judge_server.stats()["chat"] == 2 * calls


class TestResume:
    def test_resume_after_sigkill_gives_the_uninterrupted_report(
            self, pair: dict[str, Any], kit: Any, tmp_path: Path) -> None:
        """The parent is killed mid-run: its workers exit, no journaled result is lost and
        none counted twice when `--resume` (with workers) finishes the run."""
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 4000)
        whole = run_cli(kit, tmp_path / "whole", pair["spec"], cases)
        assert whole.returncode == 0, whole.stderr
        results = tmp_path / "results.jsonl"
        args = ("run", pair["spec"], cases, "--results", results, "--workers", "2")
        process = kit.start_evaldsl(*args)
        workers = kill_at(process, results, 1500)
        assert gone(workers), "worker processes outlived their parent"
        journaled = journal_lines(results) - 1
        out = tmp_path / "resumed"
        done = run_cli(kit, out, pair["spec"], cases, "--workers", "2", "--resume",
                       results=results)
        assert done.returncode == 0, done.stderr
        report = json.loads((out / "report.json").read_text("utf-8"))
        assert report["run"]["resumed_cases"] == journaled
        assert report["run"]["resumed_cases"] + report["run"]["evaluated_cases"] == 4000
        expected = outputs(tmp_path / "whole")
        assert kit.without_run(report) == expected["report.json"]
        assert sorted(results.read_text("utf-8").splitlines()) == \
            sorted(expected["results.jsonl"].splitlines()), "no case lost or doubled"

    def test_repeated_ids_are_counted(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        """Two rows with one id are two cases; a journal holding one resumes the other."""
        rows = kit.write_cases(tmp_path / "one.jsonl", 6)
        rows.insert(3, rows[1])
        cases = tmp_path / "cases.jsonl"
        cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        whole = pool_run(spec_file, cases, results=tmp_path / "whole.jsonl")
        journal = tmp_path / "part.jsonl"
        lines = (tmp_path / "whole.jsonl").read_text("utf-8").splitlines(keepends=True)
        journal.write_text("".join(lines[:4]), encoding="utf-8")  # header + 3 cases
        resumed = pool_run(spec_file, cases, results=journal, resume=True)
        assert (resumed.resumed, resumed.evaluated) == (3, 4)
        assert kit.without_run(resumed.report) == kit.without_run(whole.report)


def kill_at(process: Any, results: Path, at_line: int, deadline: float = 120.0) -> set[int]:
    """SIGKILL the run once its journal holds `at_line` lines; the workers it had."""
    stop = time.monotonic() + deadline
    workers: set[int] = set()
    while time.monotonic() < stop and process.poll() is None:
        workers |= children(process.pid)
        if journal_lines(results) >= at_line:
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    process.wait(timeout=30)
    process.stderr.close()
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert workers, "the run had no worker processes"
    return workers


def pool_run(spec_file: Path, cases: Path, workers: int = 2, sinks: Any = (),
             **options: Any) -> Any:
    spec = load(spec_file)
    layout = layout_of(spec.source, "runner.eval")
    return run_workers(spec, layout, read_rows([cases]), RunOptions(**options), workers,
                       sinks=sinks)


class TestStopping:
    @pytest.fixture
    def cases(self, tmp_path: Path, kit: Any) -> Path:
        path = tmp_path / "cases.jsonl"
        kit.write_cases(path, 1200)
        return path

    def test_a_worker_that_raises_stops_the_run_with_its_exception(
            self, spec_file: Path, cases: Path, tmp_path: Path) -> None:
        results = tmp_path / "results.jsonl"
        with pytest.raises(ValueError, match="a planted fault at case-00900") as raised:
            pool_run(spec_file, cases, sinks=[FaultySink(Fault("case-00900", "raise"))],
                     results=results)
        assert any("raised in worker process" in note for note in raised.value.__notes__)
        assert multiprocessing.active_children() == []
        assert 1 < journal_lines(results) <= 901

    def test_an_exception_that_cannot_travel_arrives_in_words(
            self, spec_file: Path, cases: Path) -> None:
        with pytest.raises(WorkerError) as raised:
            pool_run(spec_file, cases, sinks=[FaultySink(Fault("case-00010", "unpicklable"))])
        assert str(raised.value) == "CaseDataError: planted.jsonl:3: a planted fault"
        assert multiprocessing.active_children() == []

    @pytest.mark.parametrize(("how", "said"), [("exit", "exit code 7"),
                                               ("kill", "killed by signal 9")])
    def test_a_worker_that_dies_stops_the_run(self, spec_file: Path, cases: Path, how: str,
                                              said: str) -> None:
        with pytest.raises(WorkerError, match=f"stopped before it finished its cases "
                                              f"\\({said}\\)"):
            pool_run(spec_file, cases, sinks=[FaultySink(Fault("case-00500", how))])
        assert multiprocessing.active_children() == []

    def test_ctrl_c_stops_every_worker_and_the_run_resumes(
            self, pair: dict[str, Any], kit: Any, tmp_path: Path) -> None:
        """SIGINT to the parent alone: exit 130, no worker left, and `--resume` finishes."""
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 4000)
        results = tmp_path / "results.jsonl"
        args = ("run", pair["spec"], cases, "--results", results, "--workers", "2")
        process = kit.start_evaldsl(*args)
        stop = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < stop and process.poll() is None:
            workers |= children(process.pid)
            if journal_lines(results) >= 800:
                os.kill(process.pid, signal.SIGINT)
                break
            time.sleep(0.002)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        assert "interrupted" in stderr and "Traceback" not in stderr
        assert workers and gone(workers)
        done = kit.evaldsl(*args, "--resume", "-o", tmp_path / "report.json")
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "report.json").read_text("utf-8"))
        assert report["cases"]["evaluated"] == 4000


class TestPosting:
    def test_a_batch_for_a_worker_that_is_gone_counts_as_out(self) -> None:
        """A worker that failed closes its pipe; posting to it must not raise a bare
        BrokenPipeError, so that the pool goes on to read that worker's own error."""
        from evaldsl.run.pool import Worker

        inbox, to_worker = multiprocessing.Pipe(duplex=False)
        inbox.close()
        worker = Worker.__new__(Worker)
        worker.to_worker, worker.out = to_worker, 0
        worker.post(None)
        assert worker.out == 1
