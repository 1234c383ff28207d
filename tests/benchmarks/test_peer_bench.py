"""The peer benchmark's evaldsl side reproduces the harness's verdict contract.

The harness (../shared/bench) computes ground truth with benchlib.py; these
tests evaluate the shipped benchmark specs on a generated workload through the
public API and compare every check with that ground truth: the deterministic
variant in-process, the similarity check against the harness's own mock
embedding server (a real process on 127.0.0.1, as in the benchmark).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import evaldsl
from evaldsl.model.settings import Settings

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "benchmarks" / "peer_specs"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("peer_bench", REPO / "benchmarks/peer_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peer_bench = _load_script()


@pytest.fixture(scope="module")
def bench() -> Path:
    """The shared peer harness beside the checkout, or a skip saying why."""
    found = REPO.parent / "shared" / "bench"
    if not (found / "benchlib.py").is_file():
        pytest.skip("the peer harness (../shared/bench) is not present beside this checkout")
    return found


@pytest.fixture(scope="module")
def benchlib(bench: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchlib", bench / "benchlib.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def workload(bench: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """120 generated cases (seed 11): every failure kind of the generator occurs."""
    out = tmp_path_factory.mktemp("workload") / "workload.jsonl"
    subprocess.run([sys.executable, str(bench / "gen_workload.py"), "-n", "120", "--seed", "11",
                    "-o", str(out)], check=True, capture_output=True, timeout=60)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def as_case(row: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    source, target = tmp_path / "row.jsonl", tmp_path / "case.jsonl"
    source.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    peer_bench.to_cases(source, target)
    return dict(json.loads(target.read_text(encoding="utf-8")))


class TestGlue:
    def test_turns_become_openai_messages(self, tmp_path: Path) -> None:
        row = {"id": "case-1", "lang": "zh", "topic": "refund", "meta": {}, "truth": {},
               "turns": [{"role": "user", "content": "退款", "latency_ms": 0}],
               "expect": {"regex": "x"}}
        assert as_case(row, tmp_path) == {
            "id": "case-1", "messages": row["turns"], "topic": "refund", "lang": "zh",
            "expect": {"regex": "x"}}

    def test_a_result_line_becomes_the_verdict_contract(self) -> None:
        result = {"id": "c", "labels": {"outcome": "fail"},
                  "checks": {"keywords": {"passed": True}, "regex": {"passed": False},
                             "polite": {"passed": True}}}
        assert peer_bench.to_verdict(result) == {
            "id": "c", "pass": False, "checks": {"keywords": True, "regex": False}}

    def test_the_results_header_is_not_a_case(self, tmp_path: Path) -> None:
        results = tmp_path / "results.jsonl"
        results.write_text(
            '{"format": "evaldsl-results", "version": 1, "spec_hash": "ab"}\n'
            '{"id": "c", "labels": {"outcome": "pass"}, "checks": {"json": {"passed": true}}}\n',
            encoding="utf-8")
        assert peer_bench.verdicts_of(results) == [
            {"id": "c", "pass": True, "checks": {"json": True}}]

    def test_an_errored_check_is_reported_not_guessed(self) -> None:
        result = {"id": "c", "labels": {"outcome": "error"},
                  "checks": {"rubric": {"passed": {"error": "timeout"}, "reason": "timeout"}}}
        assert peer_bench.to_verdict(result) == {
            "id": "c", "pass": False, "checks": {}, "error": "rubric: timeout"}


def test_law_the_det_spec_agrees_with_the_ground_truth(
    workload: list[dict[str, Any]], benchlib: ModuleType, tmp_path: Path
) -> None:
    """Law: every deterministic check and the verdict equal benchlib's, case by case."""
    spec = evaldsl.load(SPECS / "bench_det.eval")
    disagreements = []
    for row in workload:
        result = spec.evaluate(as_case(row, tmp_path))
        truth = benchlib.ground_truth(row)
        got = {name: r.passed for name, r in result.checks.items()}
        want = {k: truth[k] for k in benchlib.DETERMINISTIC_CHECKS if k in truth}
        verdict = result.labels["outcome"] == "pass"
        if got != want or verdict != benchlib.expected_pass(truth, "det"):
            disagreements.append((row["id"], got, want))
    assert disagreements == []
    assert {r["truth"]["keywords"] for r in workload} == {True, False}


@pytest.fixture(scope="module")
def mock_url(bench: Path) -> Iterator[str]:
    """The harness's mock OpenAI server on a free loopback port, without latency."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(bench / "mock_openai.py"), "--host", "127.0.0.1", "--port",
         str(port), "--latency-ms", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_law_similarity_agrees_with_the_ground_truth_on_the_mock_embedder(
    workload: list[dict[str, Any]], benchlib: ModuleType, mock_url: str, tmp_path: Path
) -> None:
    """Law: the judge variant's similarity verdicts equal benchlib's with the same embeddings."""
    settings = Settings.load(env={
        "EVALDSL_JUDGE_BASE_URL": mock_url, "EVALDSL_JUDGE_MODEL": "mock-judge",
        "EVALDSL_JUDGE_API_KEY": "sk-mock", "EVALDSL_EMBED_BASE_URL": mock_url,
        "EVALDSL_EMBED_MODEL": "mock-embed", "EVALDSL_EMBED_API_KEY": "sk-mock",
        "EVALDSL_NO_CACHE": "1"})
    spec = evaldsl.load(SPECS / "bench_judge.eval", settings=settings)
    disagreements = []
    for row in workload[:40]:
        result = spec.evaluate(as_case(row, tmp_path))
        if result.checks["similarity"].passed is not benchlib.ground_truth(row)["similarity"]:
            disagreements.append((row["id"], result.checks["similarity"].value))
        assert isinstance(result.checks["rubric"].passed, bool), result.checks["rubric"]
    assert disagreements == []
