"""The watch journal: every judged session and every fired alert, one fsynced line each.

The journal is the monitor's whole state. A session's line is written before its
alerts go out, and an alert's line before any sink sees it, so after a crash
(`kill -9` included) the replayed journal holds every finished session once and
every alert that may have gone out: none is lost, counted twice or fired again.
A line torn by the crash is the session that had not finished: it is cut off
and that session is judged again when it arrives again. One process writes a
journal at a time (`journal_lock`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from evaldsl.report.finite import nulled
from evaldsl.report.journal_lock import lock

VERSION = 1


class WatchJournal:
    """Appends and replays `watch.jsonl` in a state folder; holds its lock while open."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "watch.jsonl"
        self._file: IO[bytes] = lock(self.path)

    def replay(self) -> Iterator[dict[str, Any]]:
        """Every complete line in order; a torn last line is cut off the file."""
        self._file.seek(0)
        data = self._file.read()
        good = data.rfind(b"\n") + 1
        if good < len(data):
            self._file.truncate(good)
        for raw in data[:good].splitlines():
            if raw.strip():
                yield json.loads(raw)
        self._file.seek(0, os.SEEK_END)

    def append(self, entry: dict[str, Any]) -> None:
        """One line, on disk before this returns."""
        line = json.dumps(nulled(entry), ensure_ascii=False, separators=(",", ":"))
        self._file.write(line.encode("utf-8") + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()
