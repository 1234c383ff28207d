"""A content-addressed answer cache on disk (SQLite), shared across runs.

The key is a SHA-256 of everything that decides an answer: the judge's
identity (provider and model, never its URL or key), the messages, the
schema and the sampling parameters. So a re-run of an unchanged spec over
unchanged cases is served entirely from here, and any change to a prompt,
a criterion or a model misses. Only good answers are stored: a failure is
never cached, so the next run asks again.

SQLite in WAL mode with a busy timeout makes one file safe for several
threads (a connection each) and several processes at once.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

from evaldsl.i18n import _

FORMAT = 2
"""Bumped whenever prompts or stored values change shape: old entries then miss."""
FILE_NAME = "answers.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(kind: str, identity: str, payload: Any) -> str:
    """The address of an answer: kind, judge identity and the request's content."""
    blob = json.dumps([FORMAT, kind, identity, payload], sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class AnswerCache:
    """Get and put JSON values by key; one SQLite file under `directory`."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / FILE_NAME
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._warned = False

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if not self._connections:
                    self._prepare_file()
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("PRAGMA synchronous=NORMAL")
                self._connections.append(conn)
            self._local.conn = conn
        return conn

    def _prepare_file(self) -> None:
        """Create the table and switch the file to WAL once, before any other
        connection of ours is open: a journal-mode change needs the file to itself,
        and SQLite answers it with an immediate "database is locked" rather than
        waiting out the busy timeout. WAL mode is stored in the file, so every later
        connection (any thread's, any process's) inherits it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        first = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            first.execute("PRAGMA journal_mode=WAL")
            first.execute(_SCHEMA)
        finally:
            first.close()

    def get(self, key: str) -> Any | None:
        """The stored value, or None on a miss (or an unreadable entry)."""
        row = self._connection().execute(
            "SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:
            return None

    def put(self, key: str, kind: str, value: Any) -> None:
        """Store `value` (JSON-serialisable) under `key`; the last writer wins."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO answers (key, kind, value, created) VALUES (?, ?, ?, ?)",
                (key, kind, text, time.time()))
        except (sqlite3.Error, OSError) as exc:
            self._write_failed(exc)

    def _write_failed(self, exc: Exception) -> None:
        """A cache that cannot be written (a full disk) costs the caching, not the run:
        one line on stderr the first time, no traceback, and judging goes on."""
        with self._lock:
            if self._warned:
                return
            self._warned = True
        print(_("warning: cannot write the answer cache {path}: {error}; "
                "answers are not cached for the rest of the run").format(
                    path=self.path, error=exc), file=sys.stderr)

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close every connection this cache opened (any thread's)."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
