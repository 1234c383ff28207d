"""`evaldsl run --engine ray`: the reports of a local run, one judge limit, no result lost.

Ray is started once for the module on 127.0.0.1 (2 CPUs, no dashboard); each run is the
command in a subprocess that joins it with `--address`, as on a cluster.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.run.test_workers import outputs, run_cli

ray = pytest.importorskip("ray")
from evaldsl.run import ray_engine  # noqa: E402

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
BAD = {0: "[1, 2]", 41: "{oops", 299: "\"text\""}
JUDGE_ENV = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01",
             "EVALDSL_JUDGE_CONCURRENCY": "2", "EVALDSL_JUDGE_TIMEOUT": "5"}
"""A judge concurrency of 2 for the whole run; a short timeout, so that the permits a
killed actor held are taken back soon (their lease is the timeout and 10 s)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray for the module's runs, set up as a run sets up the Ray it starts: its
    address."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING,
             _node_ip_address="127.0.0.1",
             log_to_driver=False, _system_config=ray_engine.LOCAL_SYSTEM_CONFIG)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()


def on_ray(cluster: str, *flags: Any) -> tuple[str, ...]:
    return ("--engine", "ray", "--address", cluster, "--actors", "2", *map(str, flags))


def report_of(out: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((out / "report.json").read_text("utf-8"))
    return report


def test_a_shipped_spec_reports_as_one_process(kit: Any, tmp_path: Path, cluster: str,
                                               ) -> None:
    """specs/bfcl.eval over its examples: report.json equal but for the run section."""
    spec, cases = REPO / "specs" / "bfcl.eval", REPO / "examples" / "bfcl.jsonl"
    local = run_cli(kit, tmp_path / "local", spec, cases)
    spread = run_cli(kit, tmp_path / "ray", spec, cases, *on_ray(cluster))
    assert (spread.returncode, local.returncode) == (0, 0), spread.stderr
    assert outputs(tmp_path / "ray") == outputs(tmp_path / "local")
    assert report_of(tmp_path / "ray")["run"]["workers"] == 2


def test_every_output_as_one_process_over_many_batches(kit: Any, tmp_path: Path,
                                                       spec_file: Path, cluster: str) -> None:
    """2,500 rows (3 batches) with bad rows skipped: every report, JUnit and the journal in
    input order, bad rows named by file and line."""
    assert ray_engine.BATCH_ROWS == 1000
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 2500, bad=BAD)
    local = run_cli(kit, tmp_path / "local", spec_file, cases, "--on-bad-row", "skip")
    spread = run_cli(kit, tmp_path / "ray", spec_file, cases, "--on-bad-row", "skip",
                     *on_ray(cluster))
    assert spread.returncode == local.returncode == 0, spread.stderr
    assert outputs(tmp_path / "ray") == outputs(tmp_path / "local")
    parts = sorted((tmp_path / "ray" / "results.jsonl.parts").glob("part-*.jsonl"))
    assert len(parts) == 3
    assert skipped(spread.stderr) == skipped(local.stderr) != []


def test_a_case_file_named_by_a_uri_reports_as_the_local_file(kit: Any, tmp_path: Path,
                                                               spec_file: Path,
                                                               cluster: str) -> None:
    """`file:///...` goes through pyarrow's filesystems as `s3://` would: the same outputs
    as the path itself (read in one process; a Ray run over a path is that process's run,
    `test_every_output_as_one_process_over_many_batches`), the input named as given."""
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 300, bad={41: "{oops"})
    uri = cases.resolve().as_uri()
    local = run_cli(kit, tmp_path / "local", spec_file, cases, "--on-bad-row", "skip")
    remote = run_cli(kit, tmp_path / "remote", spec_file, uri, "--on-bad-row", "skip",
                     *on_ray(cluster))
    assert remote.returncode == local.returncode == 0, remote.stderr
    report, expected = report_of(tmp_path / "remote"), report_of(tmp_path / "local")
    assert report["checks"] == expected["checks"] and report["metrics"] == expected["metrics"]
    assert [line.replace(uri, str(cases)) for line in skipped(remote.stderr)] == skipped(
        local.stderr) != []
    assert uri in remote.stderr


def test_an_unreadable_uri_is_a_bad_row_naming_it(kit: Any, tmp_path: Path, spec_file: Path,
                                                  cluster: str) -> None:
    uri = (tmp_path / "missing.jsonl").as_uri()
    done = run_cli(kit, tmp_path / "out", spec_file, uri, *on_ray(cluster))
    assert done.returncode == 3
    assert f"{uri}:0: cannot read the file" in done.stderr and "Traceback" not in done.stderr


def skipped(stderr: str) -> list[str]:
    """The `skipped: FILE:LINE: reason` lines a run printed."""
    return [line for line in stderr.splitlines() if line.startswith("skipped:")]


def test_a_bad_row_stops_the_run_with_its_file_and_line(kit: Any, tmp_path: Path,
                                                        spec_file: Path, cluster: str) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 50, bad={41: "{oops"})
    local = run_cli(kit, tmp_path / "local", spec_file, cases)
    spread = run_cli(kit, tmp_path / "ray", spec_file, cases, *on_ray(cluster))
    assert spread.returncode == local.returncode == 3
    assert spread.stderr.splitlines()[-1] == local.stderr.splitlines()[-1]
    assert str(cases) in local.stderr


def test_resume_judges_only_the_rows_no_part_holds(kit: Any, tmp_path: Path, spec_file: Path,
                                                   cluster: str) -> None:
    """A run cut short (a part lost, the journal not yet assembled) is finished by
    `--resume`: only the lost part's rows are judged, and the outputs are the whole run's."""
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 2500)
    first = run_cli(kit, tmp_path / "ray", spec_file, cases, *on_ray(cluster))
    assert first.returncode == 0, first.stderr
    whole = outputs(tmp_path / "ray")
    parts = sorted((tmp_path / "ray" / "results.jsonl.parts").glob("part-*.jsonl"))
    lost = len(parts[1].read_text("utf-8").splitlines()) - 1
    parts[1].unlink()
    (tmp_path / "ray" / "results.jsonl").write_bytes(b"")
    again = run_cli(kit, tmp_path / "ray", spec_file, cases, "--resume", *on_ray(cluster))
    assert again.returncode == 0, again.stderr
    assert outputs(tmp_path / "ray") == whole
    run = report_of(tmp_path / "ray")["run"]
    assert (run["evaluated_cases"], run["resumed_cases"]) == (lost, 2500 - lost)


def test_a_journal_of_another_run_is_refused(kit: Any, tmp_path: Path, spec_file: Path,
                                              cluster: str) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 5)
    assert run_cli(kit, tmp_path / "out", spec_file, cases).returncode == 0
    again = run_cli(kit, tmp_path / "out", spec_file, cases, *on_ray(cluster))
    assert again.returncode == 2
    assert "already holds the results of a run" in again.stderr


class TestJudged:
    def test_the_model_cost_is_reported_journaled_and_printed(self, kit: Any, tmp_path: Path,
                                                               judge_server: Any,
                                                               cluster: str) -> None:
        """The run's cost (model calls, tokens, cache hits) in report.json, as the journal's
        last line and on the summary's cost line, as a local run has it."""
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 40)
        flags = ("--judge", judge_server.base_url, "--no-cache")
        env = {**JUDGE_ENV, "EVALDSL_LANG": "en"}
        out = tmp_path / "ray"
        out.mkdir()
        spread = kit.evaldsl("run", spec, cases, "-o", out / "report.json", "--results",
                             out / "results.jsonl", *flags, *on_ray(cluster), env=env)
        assert spread.returncode == 0, spread.stderr
        local = kit.evaldsl("run", spec, cases, "-o", tmp_path / "local.json", *flags, env=env)
        assert local.returncode == 0, local.stderr
        cost = report_of(out)["cost"]
        assert cost == json.loads((tmp_path / "local.json").read_text("utf-8"))["cost"]
        assert cost["model_calls"] > 0 and cost["prompt_tokens"] > 0
        last = json.loads((out / "results.jsonl").read_text("utf-8").splitlines()[-1])
        assert last["cost"] == cost
        line = f"cost: {cost['model_calls']} model calls"
        assert line in spread.stdout and line in local.stdout

    def test_one_limit_holds_across_the_actors(self, kit: Any, tmp_path: Path,
                                               judge_server: Any, cluster: str) -> None:
        """Two actors, each with up to 16 cases in flight, a judge concurrency of 2: the
        server never sees more than 2 requests at once, and the verdicts are a local run's."""
        judge_server.control(latency_ms=30)
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 300)
        flags = ("--judge", judge_server.base_url, "--no-cache", "--concurrency", "16")
        spread = run_cli(kit, tmp_path / "ray", spec, cases, *flags, *on_ray(cluster),
                         env=JUDGE_ENV)
        assert spread.returncode == 0, spread.stderr
        assert 0 < judge_server.stats()["peak_in_flight"] <= 2
        judge_server.control(latency_ms=0)  # the local run is the verdicts' reference only
        local = run_cli(kit, tmp_path / "local", spec, cases, *flags, env=JUDGE_ENV)
        assert local.returncode == 0, local.stderr
        spread_out, local_out = outputs(tmp_path / "ray"), outputs(tmp_path / "local")
        for name in ("report.json", "report.html", "summary.md"):
            assert spread_out[name] == local_out[name]
        # a local judged run journals cases as they finish, a Ray run in input order
        assert sorted(spread_out["results.jsonl"].splitlines()) == \
            sorted(local_out["results.jsonl"].splitlines())

    def test_an_actor_killed_mid_run_loses_and_doubles_nothing(
            self, kit: Any, tmp_path: Path, judge_server: Any, cluster: str) -> None:
        """SIGKILL to an actor once the first part is written: Ray restarts it and runs its
        batch again, the permits it held are taken back, and the outputs (model cost
        included) are those of a run not killed."""
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 1000)
        flags = ("--judge", judge_server.base_url, "--no-cache", "--concurrency", "8",
                 *on_ray(cluster))
        calm = run_cli(kit, tmp_path / "calm", spec, cases, *flags, env=JUDGE_ENV)
        assert calm.returncode == 0, calm.stderr
        judge_server.control(latency_ms=20)  # the killed run lasts long enough to kill into
        killed: list[int] = []
        watcher = threading.Thread(target=kill_an_actor_after_a_part,
                                   args=(tmp_path / "hit" / "results.jsonl.parts", killed))
        watcher.start()
        hit = run_cli(kit, tmp_path / "hit", spec, cases, *flags, env=JUDGE_ENV)
        watcher.join()
        assert hit.returncode == 0, hit.stderr
        assert killed, "no actor was running to be killed"
        assert outputs(tmp_path / "hit") == outputs(tmp_path / "calm")

    def test_an_actor_killed_while_its_cases_wait_for_permits_holds_up_nothing(
            self, kit: Any, tmp_path: Path, judge_server: Any, cluster: str) -> None:
        """SIGKILL to an actor mid-batch, its cases waiting on the gate for the run's 2
        permits: the permits it held and the ones it was waiting for come back within
        seconds, not a lease each (the judge timeout of 120 s and 10 s), so the run ends
        well inside one lease; its outputs are a local run's, every case once."""
        judge_server.control(latency_ms=40)
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 400)
        env = {**JUDGE_ENV, "EVALDSL_JUDGE_TIMEOUT": "120"}
        flags = ("--judge", judge_server.base_url, "--no-cache", "--concurrency", "8")
        killed: list[float] = []
        watcher = threading.Thread(target=kill_an_actor_mid_batch, args=(judge_server, killed))
        watcher.start()
        hit = run_cli(kit, tmp_path / "hit", spec, cases, *flags, *on_ray(cluster), env=env)
        ended = time.monotonic()
        watcher.join()
        assert hit.returncode == 0, hit.stderr
        assert killed, "no actor was judging to be killed"
        assert ended - killed[0] < 60, f"the run went on {ended - killed[0]:.0f} s after the kill"
        judge_server.control(latency_ms=0)  # the local run is the outputs' reference only
        local = run_cli(kit, tmp_path / "local", spec, cases, *flags, env=env)
        assert local.returncode == 0, local.stderr
        hit_out, local_out = outputs(tmp_path / "hit"), outputs(tmp_path / "local")
        for name in ("report.json", "report.html", "summary.md"):
            assert hit_out[name] == local_out[name]
        assert sorted(hit_out["results.jsonl"].splitlines()) == \
            sorted(local_out["results.jsonl"].splitlines())


def kill_an_actor_mid_batch(server: Any, killed: list[float], bound: float = 120.0) -> None:
    """SIGKILL one judging actor once the judge has answered 40 requests (the first batches
    half judged, each actor with cases in flight and more waiting for a permit); the
    moment of the kill in `killed` (bounded)."""
    stop = time.monotonic() + bound
    while time.monotonic() < stop:
        if server.stats()["chat"] >= 40:
            actors = judging_actors()
            if actors:
                os.kill(actors[0], 9)
                killed.append(time.monotonic())
                return
        time.sleep(0.05)


def kill_an_actor_after_a_part(parts: Path, killed: list[int], bound: float = 120.0) -> None:
    """SIGKILL one judging actor of this test's Ray once `parts` holds a finished part and
    an actor is still at work (bounded)."""
    stop = time.monotonic() + bound
    while time.monotonic() < stop:
        if parts.is_dir() and any(parts.glob("part-*.jsonl")):
            actors = judging_actors()
            if actors:
                os.kill(actors[0], 9)
                killed.append(actors[0])
                return
        time.sleep(0.02)


def judging_actors() -> list[int]:
    """The pids of the `BatchJudge` actors among this process's descendants (Ray's workers
    are children of the raylet it started), never another process on the machine."""
    found, todo = [], [os.getpid()]
    while todo:
        pid = todo.pop()
        for listing in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                todo.extend(map(int, listing.read_text().split()))
            except OSError:
                continue
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"BatchJudge" in title:
            found.append(pid)
    return found


def test_without_a_journal_the_parts_go_to_a_temporary_directory_removed_after(
        kit: Any, tmp_path: Path, spec_file: Path, cluster: str) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 20)
    before = set(Path(tempfile.gettempdir()).glob("evaldsl-ray-*"))
    local = kit.evaldsl("run", spec_file, cases, "-o", tmp_path / "local.json")
    spread = kit.evaldsl("run", spec_file, cases, "-o", tmp_path / "ray.json", *on_ray(cluster))
    assert spread.returncode == local.returncode == 0, spread.stderr
    report, expected = (json.loads((tmp_path / f"{n}.json").read_text("utf-8"))
                        for n in ("ray", "local"))
    assert kit.without_run(report) == kit.without_run(expected)
    assert set(Path(tempfile.gettempdir()).glob("evaldsl-ray-*")) == before
