"""The watch journal: every judged session and every fired alert, one line each.

The journal is the monitor's whole state. A line is written (to the system,
not yet to the disk) before the monitor goes on, so a killed process (`kill
-9` included) loses no line it wrote. Lines reach the disk in groups, by
`sync`: before any sink sees an alert, before `POST /sessions` answers, and
after each batch of followed lines, so what was acknowledged survives the
machine going down too, at one fsync per group instead of one per session.
On replay every finished session is there once and every alert that may have
gone out is there: none is lost, counted twice or fired again. A line torn
by a crash is the session that had not finished: it is cut off and that
session is judged again when it arrives again. One process writes a journal
at a time (`journal_lock`), and its first line names the spec (by hash) it
was written for: another spec's journal is refused, not folded into windows
it does not fit. A damaged line anywhere else (not JSON, or not the shape a
journal line has) refuses the start with the file and line (`CaseDataError`,
exit 3): skipping it could judge a session twice or fire an alert again.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.report.finite import nulled
from evaldsl.report.journal_lock import lock

VERSION = 1


class WatchJournal:
    """Appends and replays `watch.jsonl` in a state folder; holds its lock while open."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "watch.jsonl"
        self._file: IO[bytes] = lock(self.path)
        self._fd = self._file.fileno()
        self._dirty = False
        self._sync_lock = threading.Lock()

    def replay(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """Every complete line in order with its number; a torn last line is cut off the
        file; a line that is not a JSON object raises `CaseDataError` naming it."""
        self._file.seek(0)
        data = self._file.read()
        good = data.rfind(b"\n") + 1
        if good < len(data):
            self._file.truncate(good)
        for number, raw in enumerate(data[:good].splitlines(), 1):
            if raw.strip():
                yield number, self._entry(number, raw)
        self._file.seek(0, os.SEEK_END)

    def _entry(self, number: int, raw: bytes) -> dict[str, Any]:
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict):
            raise self.damaged(number, _("not a JSON object"))
        return entry

    def damaged(self, number: int, reason: str) -> CaseDataError:
        """The error that refuses a damaged line of this journal."""
        return CaseDataError(str(self.path), number, _("a damaged watch journal line: {reason}")
                             .format(reason=reason),
                             hint=_("repair or delete that line, or start a new --state folder"))

    def append(self, entry: dict[str, Any]) -> None:
        """One line, handed to the system before this returns (a killed process keeps it)."""
        line = json.dumps(nulled(entry), ensure_ascii=False, separators=(",", ":"))
        self._file.write(line.encode("utf-8") + b"\n")
        self._file.flush()
        self._dirty = True

    def sync(self) -> None:
        """Every line written so far on the disk; safe from another thread (the alert
        sinks' thread calls it before delivering)."""
        with self._sync_lock:  # a second caller waits until the lines are on the disk
            if self._dirty:
                self._dirty = False
                os.fsync(self._fd)

    def close(self) -> None:
        self.sync()
        self._file.close()
