"""A content-addressed answer cache on disk (SQLite), shared across runs.

The key is a SHA-256 of everything that decides an answer: the judge's
identity (provider and model, never its URL or key), the messages, the
schema and the sampling parameters. So a re-run of an unchanged spec over
unchanged cases is served entirely from here, and any change to a prompt,
a criterion or a model misses. Only good answers are stored: a failure is
never cached, so the next run asks again.

SQLite in WAL mode with a busy timeout makes one file safe for several
threads (a connection each) and several processes at once.

A cache failure never costs a verdict. A file that cannot be opened (random
bytes, a directory that is a file), a read that fails (a truncated file, a
flipped byte) and a write that fails (a full disk) print one warning for the
whole run, and judging goes on: a failed read is a miss, asked again, and a
failed write loses only the caching. The broken file is left where it is, for
other processes that may share it and for whoever wants to look at it; every
failure is counted in `failures`, which the report shows. A stored value that
does not fit what the request expects (`get`'s `fits`) is a miss too, and the
fresh answer replaces it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

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


class Failures(NamedTuple):
    """Cache operations that failed in a run: the report's `cache_*_failures`."""

    reads: int = 0
    """Lookups the cache could not answer (unreadable, or a stored value that does not fit)."""
    writes: int = 0
    """Answers that could not be stored."""


class AnswerCache:
    """Get and put JSON values by key; one SQLite file under `directory`."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / FILE_NAME
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._warned = False
        self._unusable: Exception | None = None
        """Why the file could not be opened: every later operation fails without trying."""
        self.failures = Failures()

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if self._unusable is not None:  # a fresh error: a reraise grows its traceback
                    raise sqlite3.OperationalError(str(self._unusable))
                if not self._connections:
                    self._prepare_once()
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("PRAGMA synchronous=NORMAL")
                self._connections.append(conn)
            self._local.conn = conn
        return conn

    def _prepare_once(self) -> None:
        """`_prepare_file`, remembering a failure: a file that will not open once will not
        open for the next case either, and trying costs a connection per lookup."""
        try:
            self._prepare_file()
        except (sqlite3.Error, OSError) as exc:
            self._unusable = exc
            raise

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

    def get(self, key: str, fits: Callable[[Any], bool] | None = None) -> Any | None:
        """The stored value, or None on a miss. An entry that cannot be read, or whose
        value `fits` rejects, is a miss too, counted as a failed read."""
        try:
            row = self._connection().execute(
                "SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
        except (sqlite3.Error, OSError) as exc:
            self._failed("reads", exc)
            return None
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except (ValueError, TypeError) as exc:
            self._failed("reads", exc)
            return None
        if fits is not None and not fits(value):
            self._failed("reads", ValueError(_("a stored answer does not fit its request")))
            return None
        return value

    def put(self, key: str, kind: str, value: Any) -> None:
        """Store `value` (JSON-serialisable) under `key`; the last writer wins."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO answers (key, kind, value, created) VALUES (?, ?, ?, ?)",
                (key, kind, text, time.time()))
        except (sqlite3.Error, OSError) as exc:
            self._failed("writes", exc)

    def _failed(self, kind: str, exc: Exception) -> None:
        """Count one failed read or write; the first failure of the run says so on stderr,
        one line and no traceback, and judging goes on."""
        with self._lock:
            self.failures = self.failures._replace(**{kind: getattr(self.failures, kind) + 1})
            if self._warned:
                return
            self._warned = True
        print(_warning(kind, self.path, exc), file=sys.stderr)

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close every connection this cache opened (any thread's)."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()


def _warning(kind: str, path: Path, exc: Exception) -> str:
    """The one warning of a run whose cache failed, by what failed first."""
    if kind == "writes":
        return _("warning: cannot write the answer cache {path}: {error}; "
                 "answers are not cached for the rest of the run").format(path=path, error=exc)
    return _("warning: cannot read the answer cache {path}: {error}; what it cannot give is "
             "asked again, and the run goes on (delete or move the file to start a fresh "
             "cache)").format(path=path, error=exc)
