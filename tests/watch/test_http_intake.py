"""`POST /sessions` under load: concurrent posts each answered with their own rows, and one
huge post of bad rows that neither blocks the watch nor floods standard error."""

from __future__ import annotations

import json
import select
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.watch_kit import Watch
from tests.watch.test_watch_cli import SPEC, session


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "watch.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture
def started() -> Iterator[list[Watch]]:
    watches: list[Watch] = []
    yield watches
    for w in watches:
        w.stop()


def body(k: int) -> tuple[bytes, int, int]:
    """Request k's body: a mix of good sessions (ids of its own) and bad rows; both counts."""
    good, bad = k % 4, (k * 7) % 5
    if good + bad == 0:
        bad = 1
    lines = [json.dumps(session(1000 * k + j)) for j in range(good)]
    lines += [f'{{"id": "bad{k}-{j}", "messages": 3}}' for j in range(bad)]
    return ("\n".join(lines) + "\n").encode(), good, bad


class TestConcurrentPosts:
    def test_each_answer_counts_its_own_rows_only(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        requests = [body(k) for k in range(120)]

        def post(k: int) -> tuple[int, Any]:
            return w.post_body(requests[k][0])

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(post, range(len(requests))))
        for (status, answer), (_, good, bad) in zip(answers, requests, strict=True):
            assert (answer["judged"], answer["duplicates"], answer["bad"]) == (good, 0, bad)
            assert len(answer["bad_rows"]) == bad
            assert status == (400 if good == 0 else 200)
        report = w.get("/report")
        assert report["sessions"] == sum(g for _, g, _ in requests)
        assert report["bad_rows"] == sum(b for _, _, b in requests)


def drain(w: Watch, quiet_s: float = 1.0) -> int:
    """Bytes waiting on the watch's standard error, read until it is quiet for `quiet_s`."""
    assert w.process.stderr is not None
    fd, total = w.process.stderr.fileno(), 0
    import os

    while select.select([fd], [], [], quiet_s)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        total += len(chunk)
    return total


class TestHugePost:
    @pytest.mark.slow
    def test_millions_of_bad_rows_neither_block_the_watch_nor_flood_stderr(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        rows = 1_500_000
        huge: dict[str, Any] = {}

        def post_huge() -> None:
            huge["answer"] = w.post_body(b"x\n" * rows)
            huge["done"] = time.monotonic()

        poster = threading.Thread(target=post_huge)
        poster.start()
        time.sleep(0.5)  # the huge body is in; its rows are being read
        answer = w.post([session(1)])
        small_done = time.monotonic()
        assert answer["judged"] == 1
        poster.join(timeout=120)
        assert not poster.is_alive()
        assert small_done < huge["done"], "the small post waited for the huge one"
        status, got = huge["answer"]
        assert (status, got["bad"], got["judged"]) == (400, rows, 0)
        assert len(got["bad_rows"]) == 20
        assert all(r.startswith("POST /sessions:") for r in got["bad_rows"])
        assert drain(w) < 20_000, "stderr must stay bounded"
        assert w.get("/report")["bad_rows"] == rows
