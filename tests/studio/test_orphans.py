"""A kill -9 of the studio takes its child run with it: the child no longer calls the judge."""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import openai_server
from tests.support.run_kit import MODEL_SPEC
from tests.support.studio_server import studio_process

GONE_S = 15.0


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Running: neither gone nor a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def post(url: str, body: object, token: str) -> dict[str, object]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {
        "Content-Type": "application/json", "X-Evaldsl-Token": token})
    with urllib.request.urlopen(request, timeout=30) as answer:
        result: dict[str, object] = json.loads(answer.read())
        return result


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_kill_9_of_the_studio_ends_its_child_run(tmp_path: Path) -> None:
    judge = openai_server.start()
    try:
        judge.control(latency_ms=1000)
        spec, cases = tmp_path / "judged.eval", tmp_path / "cases.jsonl"
        spec.write_text(MODEL_SPEC, encoding="utf-8")
        rows = ({"id": f"c{i}", "messages": [
            {"role": "user", "content": f"hello, case {i}"},
            {"role": "assistant", "content": "What is your name?"}]} for i in range(2000))
        cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        env = {"EVALDSL_JUDGE_BASE_URL": judge.base_url, "EVALDSL_JUDGE_MODEL": "m",
               "EVALDSL_JUDGE_API_KEY": "test-key", "EVALDSL_CACHE_DIR": str(tmp_path / "cache")}
        with studio_process(spec, tmp_path / "runs", env) as (base, process):
            with urllib.request.urlopen(base + "/", timeout=30) as answer:
                page = answer.read().decode()
            found = re.search(r'<meta name="evaldsl-token" content="([^"]+)">', page)
            assert found is not None
            post(base + "/api/run", {"kind": "cases", "cases": str(cases)}, found.group(1))
            deadline = time.monotonic() + 60
            while not judge.stats()["chat"]:
                assert time.monotonic() < deadline, "the child run never called the judge"
                time.sleep(0.1)
            (child,) = children(process.pid)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
            deadline = time.monotonic() + GONE_S
            try:
                while alive(child):
                    assert time.monotonic() < deadline, f"the child run {child} outlived it"
                    time.sleep(0.1)
            finally:
                if alive(child):
                    os.kill(child, signal.SIGKILL)
        calls = judge.stats()["chat"]
        time.sleep(1.0)
        assert judge.stats()["chat"] == calls  # nobody calls the judge any more
    finally:
        judge.stop()
