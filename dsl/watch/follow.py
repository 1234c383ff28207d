"""Followed JSONL files, read the way log shippers read them: every line once, across rotations.

A followed file is read from its start, then polled for what is appended. Each
file is held open and known by its identity (device and inode) and a
fingerprint of what was read (its first and its last bytes before the offset),
so a poll tells apart:

* growth: the new bytes are read from where the last poll stopped;
* replacement (rotation by rename, a new file moved over the old one, a
  deletion): the old file, still open, is read to its end (a writer that has
  not reopened yet may still append to it, so it is read until it has been
  quiet for `linger_s`), and the new file is read from its start;
* truncation (copy and truncate) or a rewrite in place (the size went down, or
  the bytes already read changed): the file is read again from its start.

Reads are bounded: a poll takes at most `chunk_bytes` from each file, so a
backlog of any size goes through in flat memory. An unfinished last line (a
writer in the middle of it) is kept as its bytes and the offset moves past it,
so it is never read again; a line longer than `max_line_bytes` is a bad row
(its bytes are dropped as they come) and the lines after it are read as usual.
Lines end at `\\n` only, as `evaldsl run` reads a JSONL file, and are numbered
from 1 in each file (again from 1 in the file that replaced it).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.loading import RawRow
from evaldsl.i18n import _
from evaldsl.watch.monitor import Monitor

CHUNK_BYTES = 1024 * 1024
"""The most one poll reads from one file."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest line kept; a longer one is a bad row (the same bound as a POST body)."""
LINGER_S = 5.0
"""How long a rotated-away file is still read after it last grew."""
_PRINT = 64
"""Bytes of the start and of the end of what was read, kept to recognise the file."""


@dataclass
class _Open:
    """One file being read: its handle, identity, place and unfinished last line."""

    path: Path
    handle: BinaryIO
    ident: tuple[int, int]
    offset: int = 0
    line: int = 0
    partial: bytearray = field(default_factory=bytearray)
    overlong: bool = False
    """The current line passed `max_line_bytes`: its bytes are dropped up to its newline."""
    head: bytes = b""
    tail: bytes = b""
    quiet_since: float = 0.0

    def same_content(self, size: int) -> bool:
        """Whether the bytes already read are still there: not truncated, not rewritten."""
        if size < self.offset:
            return False
        if not self.offset:
            return True
        fd = self.handle.fileno()
        if os.pread(fd, len(self.head), 0) != self.head:
            return False
        return os.pread(fd, len(self.tail), self.offset - len(self.tail)) == self.tail


class Follower:
    """Appended lines of one file or of every `*.jsonl` in a folder, as rows."""

    def __init__(self, path: Path, chunk_bytes: int = CHUNK_BYTES,
                 max_line_bytes: int = MAX_LINE_BYTES, linger_s: float = LINGER_S) -> None:
        self.path = path
        self.chunk_bytes = max(1, chunk_bytes)
        self.max_line_bytes = max_line_bytes
        self.linger_s = linger_s
        self._open: dict[Path, _Open] = {}
        self._rotated: list[_Open] = []
        """Files replaced or removed at their path, read until they have been quiet."""

    def files(self) -> list[Path]:
        if self.path.is_dir():
            return sorted(self.path.glob("*.jsonl"))
        return [self.path] if self.path.exists() else []

    def poll(self) -> list[RawRow]:
        """Complete lines appended since the last poll: from each file the first chunk of
        `chunk_bytes` that holds any; call again while it gives rows to read a backlog (an
        empty answer means every file was read to its end)."""
        rows: list[RawRow] = []
        listed = set(self.files())
        for path in list(self._open):
            if path not in listed:  # removed: read what is left of it, then let it go
                self._retire(self._open.pop(path))
        current = [f for f in map(self._current, sorted(listed)) if f is not None]
        for old in list(self._rotated):  # what a rotated file still held comes first
            grew = self._read_some(old, rows)
            if not grew and time.monotonic() - old.quiet_since >= self.linger_s:
                self._finish(old, rows)
        for f in current:
            self._read_some(f, rows)
        return rows

    def _read_some(self, f: _Open, rows: list[RawRow]) -> bool:
        """Chunks of `f` until one gives a complete line or the file's end is reached (an
        unfinished line is bounded by `max_line_bytes`); whether anything was read."""
        before, grew = len(rows), False
        while len(rows) == before and self._read(f, rows):
            grew = True
        return grew

    def chunks(self, most: int = 16) -> Iterator[list[RawRow]]:
        """Polls while they give rows, at most `most` of them: one batch for the monitor."""
        for _turn in range(most):
            rows = self.poll()
            if not rows:
                return
            yield rows

    def close(self) -> None:
        for done in [*self._open.values(), *self._rotated]:
            done.handle.close()
        self._open.clear()
        self._rotated.clear()

    def _current(self, path: Path) -> _Open | None:
        """The open file at `path`, opened anew when it was replaced or first seen, rewound
        when truncated or rewritten; None when it cannot be opened."""
        known = self._open.get(path)
        try:
            stat = path.stat()
        except OSError:
            return known
        ident = (stat.st_dev, stat.st_ino)
        if known is not None and known.ident == ident:
            if not known.same_content(stat.st_size):
                self._rewind(known)
            return known
        if known is not None:  # replaced: the old file is read to its end first
            self._retire(self._open.pop(path))
        try:
            handle = path.open("rb")
        except OSError:
            return None
        opened_stat = os.fstat(handle.fileno())
        opened = _Open(path, handle, (opened_stat.st_dev, opened_stat.st_ino))
        self._open[path] = opened
        return opened

    def _retire(self, old: _Open) -> None:
        old.quiet_since = time.monotonic()
        self._rotated.append(old)

    def _finish(self, old: _Open, rows: list[RawRow]) -> None:
        """A rotated file quiet for `linger_s`: its unfinished last line is a row too (no
        more will come to finish it), and the file is closed."""
        if old.partial or old.overlong:
            old.line += 1
            rows.append(self._row(old, bytes(old.partial)))
        old.handle.close()
        self._rotated.remove(old)

    @staticmethod
    def _rewind(known: _Open) -> None:
        known.offset = known.line = 0
        known.partial = bytearray()
        known.overlong = False
        known.head = known.tail = b""

    def _read(self, f: _Open, rows: list[RawRow]) -> bool:
        """Read at most `chunk_bytes` from where `f` stopped, its complete lines into
        `rows`; whether anything was read."""
        try:
            data = os.pread(f.handle.fileno(), self.chunk_bytes, f.offset)
        except OSError:
            return False
        if not data:
            return False
        if f.offset < _PRINT:
            f.head = (f.head + data)[:_PRINT]
        f.offset += len(data)
        f.tail = (f.tail + data)[-_PRINT:]
        f.quiet_since = time.monotonic()
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            f.line += 1
            if f.overlong:
                rows.append(self._row(f, b""))
            elif f.partial:
                f.partial += data[start:end + 1]
                rows.append(self._row(f, bytes(f.partial)))
            else:
                rows.append(RawRow(str(f.path), f.line, data[start:end + 1]))
            f.partial = bytearray()
            f.overlong = False
            start = end + 1
        if not f.overlong:
            f.partial += data[start:]
            if len(f.partial) > self.max_line_bytes:
                f.partial = bytearray()
                f.overlong = True
        return True

    def _row(self, f: _Open, data: bytes) -> RawRow:
        if f.overlong or len(data) > self.max_line_bytes:
            reason = _("a line longer than {n} bytes").format(n=self.max_line_bytes)
            return RawRow(str(f.path), f.line, BadRow(str(f.path), f.line, reason))
        return RawRow(str(f.path), f.line, data)


async def follow(monitor: Monitor, follower: Follower, interval_s: float = 0.1,
                 stop: asyncio.Event | None = None) -> None:
    """Judge appended rows until `stop` is set (forever without one): files are read and
    rows decoded in worker threads, a bounded batch at a time; the journal reaches the disk
    after each batch."""
    try:
        while stop is None or not stop.is_set():
            tally = await monitor.ingest_chunks(follower.chunks())
            await asyncio.to_thread(monitor.journal.sync)
            if not tally.rows:
                await asyncio.sleep(interval_s)
    finally:
        follower.close()
