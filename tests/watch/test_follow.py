"""Followed files as log shippers follow them, on real files: rotation by rename, copy and
truncate, rewrite in place, a longer replacement; bounded reads; an unfinished last line
read once; every line exactly once."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaldsl.cases.bad_rows import BadRow
from evaldsl.watch.follow import Follower
from tests.support.watch_kit import Watch, wait_for
from tests.watch.test_watch_cli import SPEC, session


def lines(first: int, count: int, pad: int = 0) -> str:
    """Sessions `first` .. `first + count - 1` as JSON lines, each padded by `pad` bytes."""
    out = []
    for i in range(first, first + count):
        row = session(i)
        row["note"] = "x" * pad
        out.append(json.dumps(row) + "\n")
    return "".join(out)


def ids(rows: list[Any]) -> list[str]:
    return [json.loads(r.data)["id"] for r in rows if r.data.strip()]


@pytest.fixture
def follower(tmp_path: Path) -> Iterator[Follower]:
    f = Follower(tmp_path / "sessions.jsonl", linger_s=0.0)
    yield f
    f.close()


def drain(f: Follower) -> list[Any]:
    """Poll until a poll gives nothing."""
    rows: list[Any] = []
    while got := f.poll():
        rows += got
    return rows


def expected(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]


class TestRotation:
    def test_rename_keeps_what_was_appended_before_and_after_the_rename(
            self, tmp_path: Path, follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        rows = drain(follower)
        with path.open("a") as writer:
            writer.write(lines(31, 5))  # after the last poll, before the rotation
            path.rename(tmp_path / "sessions.jsonl.1")
            writer.write(lines(36, 5))  # the writer has not reopened yet
        path.write_text(lines(41, 30))
        rows += drain(follower)
        assert sorted(ids(rows), key=lambda s: int(s[1:])) == expected(70)
        assert len(ids(rows)) == 70

    def test_copy_and_truncate(self, tmp_path: Path, follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        rows = drain(follower)
        shutil.copy(path, tmp_path / "sessions.jsonl.1")
        with path.open("r+") as writer:
            writer.truncate(0)
        rows += drain(follower)
        with path.open("a") as writer:
            writer.write(lines(31, 30, pad=50))  # longer than the old file by the next poll
        rows += drain(follower)
        assert ids(rows) == expected(60)

    def test_rewrite_in_place_longer_than_before(self, tmp_path: Path,
                                                 follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        rows = drain(follower)
        path.write_text(lines(31, 30, pad=10))  # truncated and rewritten between two polls
        rows += drain(follower)
        assert ids(rows) == expected(60)

    def test_rewrite_in_place_that_starts_the_same(self, tmp_path: Path,
                                                   follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        rows = drain(follower)
        path.write_text(lines(1, 1) + lines(31, 40))  # same first line, then new ones
        rows += drain(follower)
        assert sorted(set(ids(rows)), key=lambda s: int(s[1:])) == expected(70)
        assert all(i in ids(rows) for i in expected(70)[30:])

    def test_replaced_by_a_longer_file(self, tmp_path: Path, follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        rows = drain(follower)
        fresh = tmp_path / "next.tmp"
        fresh.write_text(lines(31, 30, pad=40))
        os.replace(fresh, path)
        rows += drain(follower)
        assert ids(rows) == expected(60)


class TestBoundedReads:
    def test_a_poll_reads_a_bounded_chunk(self, tmp_path: Path) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 20_000, pad=200))  # about 5 MB
        f = Follower(path, chunk_bytes=256 * 1024)
        try:
            first = f.poll()
            assert sum(len(r.data) for r in first) <= 256 * 1024
            assert ids(first + drain(f)) == expected(20_000)
        finally:
            f.close()

    def test_an_unfinished_last_line_is_not_read_again_on_every_poll(
            self, tmp_path: Path, follower: Follower) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 2))
        half = lines(3, 1, pad=8 * 1024 * 1024)
        with path.open("a") as writer:
            writer.write(half[:-100])
        before = read_bytes()
        rows = drain(follower)
        for _ in range(20):
            rows += follower.poll()
        assert read_bytes() - before < 1.5 * path.stat().st_size  # each byte read once
        with path.open("a") as writer:
            writer.write(half[-100:])
        rows += drain(follower)
        assert ids(rows) == expected(3)
        assert [r.line for r in rows] == [1, 2, 3]

    def test_a_line_past_the_limit_is_a_bad_row_and_the_next_lines_are_read(
            self, tmp_path: Path) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 1) + lines(2, 1, pad=300_000) + lines(3, 1))
        f = Follower(path, chunk_bytes=64 * 1024, max_line_bytes=100_000)
        try:
            rows = drain(f)
        finally:
            f.close()
        assert [r.line for r in rows] == [1, 2, 3]
        assert isinstance(rows[1].data, BadRow) and "longer than" in rows[1].data.reason
        assert ids([rows[0], rows[2]]) == ["s1", "s3"]


def read_bytes() -> int:
    """Bytes this process has read through system calls (/proc/self/io `rchar`)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


class TestFuzz:
    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(pieces=st.lists(st.binary(max_size=40), max_size=30),
           chunk=st.integers(1, 64))
    def test_lines_written_in_any_pieces_come_out_once_in_order(
            self, tmp_path: Path, pieces: list[bytes], chunk: int) -> None:
        folder = tmp_path / str(abs(hash((tuple(pieces), chunk))))
        folder.mkdir(exist_ok=True)
        path = folder / "s.jsonl"
        path.write_bytes(b"")
        f = Follower(path, chunk_bytes=chunk)
        rows: list[Any] = []
        try:
            for piece in pieces:
                with path.open("ab") as out:
                    out.write(piece)
                rows += f.poll()
            rows += drain(f)
        finally:
            f.close()
        whole = b"".join(pieces)
        complete = whole[:whole.rfind(b"\n") + 1]
        assert [r.data for r in rows] == [line + b"\n" for line in complete.split(b"\n")[:-1]]
        assert [r.line for r in rows] == list(range(1, len(rows) + 1))


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "watch.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


def rotate(how: str, path: Path) -> None:
    """Replace the followed file's 30 sessions by 30 new ones, the way `how` says."""
    if how == "rename":
        path.rename(path.with_name("sessions.jsonl.1"))
        path.write_text(lines(31, 30))
    elif how == "copy-truncate":
        shutil.copy(path, path.with_name("sessions.jsonl.1"))
        with path.open("r+") as out:
            out.truncate(0)
            out.write(lines(31, 30, pad=20))
    elif how == "rewrite":
        path.write_text(lines(31, 30, pad=20))
    else:
        fresh = path.with_name("fresh.tmp")
        fresh.write_text(lines(31, 30, pad=60))
        os.replace(fresh, path)


class TestWatchFollows:
    @pytest.mark.parametrize("how", ["rename", "copy-truncate", "rewrite", "longer"])
    def test_every_session_counts_once_across_a_rotation(
            self, spec: Path, tmp_path: Path, how: str) -> None:
        path = tmp_path / "sessions.jsonl"
        path.write_text(lines(1, 30))
        w = Watch(spec, "--state", tmp_path / "state", "--follow", path, "--poll", "0.5")
        try:
            wait_for(lambda: w.get("/report")["sessions"] == 30)
            rotate(how, path)
            wait_for(lambda: w.get("/report")["sessions"] == 60)
            report = w.get("/report")
            assert (report["sessions"], report["duplicates"], report["bad_rows"]) == (60, 0, 0)
        finally:
            w.stop()
