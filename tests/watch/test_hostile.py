"""`evaldsl watch` against hostile input: a deeply nested POST, a damaged journal line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.run_kit import evaldsl
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


class TestDeepNesting:
    def test_a_deeply_nested_post_is_a_400_and_the_watch_goes_on(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        for body in (b"[" * 100_000 + b"]" * 100_000,
                     b'{"id": "x", "messages": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"):
            status, answer = w.post_body(body)
            assert status == 400, answer
            assert "nested too deeply" in answer["bad_rows"][0]
        assert w.post([session(1)])["judged"] == 1


class TestDamagedJournal:
    @pytest.mark.parametrize("damage", [b"{not json at all\n", b'{"kind": "session"}\n',
                                        b'"a string"\n', b'{"kind": "session", "id": "s9", '
                                        b'"at": 1, "record": 3}\n'])
    def test_a_damaged_line_is_refused_with_its_file_and_line(
            self, spec: Path, tmp_path: Path, started: list[Watch], damage: bytes) -> None:
        state = tmp_path / "state"
        w = Watch(spec, "--state", state)
        w.post([session(1), session(2)])
        assert w.stop() == 0
        lines = (state / "watch.jsonl").read_bytes().splitlines(keepends=True)
        lines.insert(2, damage)
        (state / "watch.jsonl").write_bytes(b"".join(lines))
        done = evaldsl("watch", spec, "--state", state, "--port", "0",
                       env={"EVALDSL_LANG": "en"}, timeout=60)
        assert done.returncode == 3, done.stderr
        assert f"{state / 'watch.jsonl'}:3:" in done.stderr
        assert "Traceback" not in done.stderr
        assert json.loads(lines[1])["kind"] == "session"
