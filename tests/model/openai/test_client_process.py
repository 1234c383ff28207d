"""The judge's client process: frames, secrets, event loops, and a child that dies."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.model.openai.client_process import frame, unframe
from evaldsl.model.openai.judge import OpenAIJudge

KEY = "sk-test-secret-123"


def client_process_of(runtime: Any) -> Any:
    judge: OpenAIJudge = runtime.judge
    process = judge.client_process
    assert process is not None, "the judge did not make a client process"
    return process


HEADERS = st.dictionaries(st.sampled_from(["id", "path", "ready", "kind"]),
                          st.integers(0, 99) | st.text(max_size=8))


@given(st.lists(st.tuples(HEADERS, st.binary(max_size=40)), max_size=6), st.data())
def test_frames_read_back_whole_however_the_bytes_are_cut(
        frames: list[tuple[dict[str, Any], bytes]], data: st.DataObject) -> None:
    """A pipe hands bytes over in any chunks; the reader sees each frame once, intact."""
    stream = b"".join(frame(h, p) for h, p in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    buffer, seen = bytearray(), []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        buffer += stream[start:end]
        while (taken := unframe(buffer)) is not None:
            header, payload, used = taken
            del buffer[:used]
            seen.append(({k: v for k, v in header.items() if k != "size"}, payload))
    assert seen == frames and not buffer


@pytest.mark.parametrize("runtime_for", ["on"], indirect=True)
class TestTheChild:
    def test_verdicts_come_back_through_it_and_the_key_is_not_in_its_argv_or_env(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any) -> None:
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        result = asyncio.run(runtime.resolve(make_dialog("q", "a"), [request]))[0]
        assert not result.is_error and 0 <= result.value <= 10
        pid = client_process_of(runtime).pid
        for part in ("cmdline", "environ"):
            assert KEY.encode() not in Path(f"/proc/{pid}/{part}").read_bytes()

    def test_one_child_serves_one_event_loop_after_another(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """A synchronous evaluate runs a loop per call: the child carries on across them."""
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        pids = set()
        for i in range(3):
            result = asyncio.run(runtime.resolve(make_dialog("q", f"a{i}"), [request]))[0]
            assert not result.is_error
            pids.add(client_process_of(runtime).pid)
        assert len(pids) == 1 and openai_server.stats()["chat"] == 3

    def test_a_loop_still_open_keeps_it_and_another_loop_goes_in_process(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any) -> None:
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        owner = asyncio.new_event_loop()
        try:
            first = owner.run_until_complete(runtime.resolve(make_dialog("q", "a"), [request]))
            process = client_process_of(runtime)

            async def elsewhere() -> Any:
                assert not process.usable()
                return await runtime.resolve(make_dialog("q", "b"), [request])

            second = asyncio.run(elsewhere())
            assert not first[0].is_error and not second[0].is_error
            assert process.broken is None
        finally:
            owner.run_until_complete(runtime.aclose())
            owner.close()

    def test_a_child_killed_mid_run_costs_a_retry_not_a_verdict(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """What was in flight fails as transient, is retried in-process, and answers."""
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        openai_server.control(latency_ms=300)

        async def main() -> list[Any]:
            judge: OpenAIJudge = runtime.judge
            await judge.ready()
            process = client_process_of(runtime)
            cases = [make_dialog("q", f"a{i}", case_id=str(i)) for i in range(4)]
            running = [asyncio.ensure_future(runtime.resolve(c, [request])) for c in cases]
            await asyncio.sleep(0.1)
            assert process.pid is not None
            os.kill(process.pid, signal.SIGKILL)
            return [r[0] for r in await asyncio.gather(*running)]

        results = asyncio.run(main())
        assert [r.is_error for r in results] == [False] * 4
        assert runtime.stats().retries == 4
        assert "stopped" in (client_process_of(runtime).broken or "")

    @pytest.mark.parametrize("executable", ["/nonexistent/python", "/bin/false"],
                             ids=["cannot-start", "exits-at-once"])
    def test_a_child_that_cannot_start_leaves_the_judge_in_process(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            monkeypatch: pytest.MonkeyPatch, executable: str) -> None:
        from evaldsl.model.openai import client_process

        monkeypatch.setattr(client_process.sys, "executable", executable)
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        result = asyncio.run(runtime.resolve(make_dialog("q", "a"), [request]))[0]
        assert not result.is_error
        assert client_process_of(runtime).broken is not None

    def test_closing_the_judge_stops_the_child(self, runtime_for: Any, requests_of: Any,
                                               make_dialog: Any) -> None:
        runtime = runtime_for(cache=False)
        request = requests_of("polite", "judge", criteria="x")
        asyncio.run(runtime.resolve(make_dialog("q", "a"), [request]))
        pid = client_process_of(runtime).pid
        runtime.close()
        assert not Path(f"/proc/{pid}").exists() or b"zombie" in _status(pid)


def _status(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/status").read_bytes().lower()
    except OSError:
        return b"zombie"
