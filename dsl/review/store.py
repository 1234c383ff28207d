"""The review store: a run's review sample and the labels people give it, in one SQLite file.

Reviewers label cases over days, several at once, from the review page or a
script; the store is what they share. SQLite in WAL mode lets one writer and
any number of readers work together, and `busy_timeout` makes a second writer
wait for the first instead of failing, so two processes saving labels at the
same time both keep theirs. Every save is its own transaction, committed with
`synchronous=FULL` before the call returns: a crash or a kill afterwards loses
no saved label.

Three tables: `meta` (what the sample was drawn from: the spec's hash, the
outcome block and its levels), `cases` (one row per drawn case, in queue
order, with the machine's judgement and the dialog as JSON) and `labels` (one
row per case and reviewer; saving again replaces that reviewer's label).
A label's score is in points, 0-100, the scale `evaldsl calibrate` reads.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another one before the save fails out loud."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cases (
  id TEXT PRIMARY KEY, position INTEGER NOT NULL, priority REAL, rule TEXT,
  machine TEXT NOT NULL, dialog TEXT);
CREATE TABLE IF NOT EXISTS labels (
  number INTEGER PRIMARY KEY AUTOINCREMENT,
  case_id TEXT NOT NULL REFERENCES cases(id), reviewer TEXT NOT NULL,
  score REAL, level TEXT, note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0,
  saved_at TEXT NOT NULL, UNIQUE (case_id, reviewer));
"""


@dataclass(frozen=True, slots=True)
class Label:
    """One reviewer's judgement of one case."""

    case_id: str
    reviewer: str
    score: float | None = None
    """Points, 0-100; None when the reviewer gave only a level, or skipped."""
    level: str | None = None
    """A label of the outcome block (`excellent`, `poor`, ...)."""
    note: str = ""
    skipped: bool = False
    """The reviewer passed the case: no judgement, but no longer in their queue."""
    saved_at: str = ""
    """UTC time of the save, ISO 8601; filled in by `save_label`."""
    number: int = 0
    """The label's row in the store, named when a label is wrong."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class QueuedCase:
    """A drawn case as the queue holds it: the machine's judgement and the dialog."""

    id: str
    position: int
    priority: float | None
    rule: str | None
    machine: dict[str, Any]
    """`labels` (block -> label), `checks` (name -> value, score, reason), `lets`, ..."""
    dialog: list[dict[str, Any]] | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ReviewStore:
    """An open review store; `open_store` makes one. Safe to share with other processes."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection

    # ------------------------------------------------------------ writing

    def add_cases(self, cases: Iterable[QueuedCase], meta: Mapping[str, Any]) -> int:
        """Put drawn cases in the queue (a case already there keeps its labels); returns how
        many were new."""
        with self._write() as db:
            for key, value in meta.items():
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
            before = db.execute("SELECT count(*) FROM cases").fetchone()[0]
            db.executemany(
                "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                "position = excluded.position, priority = excluded.priority, "
                "rule = excluded.rule, machine = excluded.machine, "
                "dialog = coalesce(excluded.dialog, cases.dialog)",
                [(c.id, c.position, c.priority, c.rule, json.dumps(c.machine, ensure_ascii=False),
                  None if c.dialog is None else json.dumps(c.dialog, ensure_ascii=False))
                 for c in cases])
            after = db.execute("SELECT count(*) FROM cases").fetchone()[0]
        return int(after - before)

    def save_label(self, label: Label) -> Label:
        """Store a reviewer's label of a case, replacing their earlier one; durable on return."""
        self._check_label(label)
        saved_at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._write() as db:
            db.execute(
                "INSERT INTO labels (case_id, reviewer, score, level, note, skipped, saved_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (case_id, reviewer) DO UPDATE SET "
                "score = excluded.score, level = excluded.level, note = excluded.note, "
                "skipped = excluded.skipped, saved_at = excluded.saved_at",
                (label.case_id, label.reviewer, label.score, label.level, label.note,
                 int(label.skipped), saved_at))
            number = db.execute("SELECT number FROM labels WHERE case_id = ? AND reviewer = ?",
                                (label.case_id, label.reviewer)).fetchone()[0]
        return Label(label.case_id, label.reviewer, label.score, label.level, label.note,
                     label.skipped, saved_at, int(number))

    def _check_label(self, label: Label) -> None:
        """A label the store would keep wrong is refused with the reason (`ValueError`)."""
        if not label.reviewer.strip():
            raise ValueError(_("a label needs a reviewer's name"))
        if self.case(label.case_id) is None:
            raise ValueError(_("no case `{id}` in the review queue").format(id=label.case_id))
        if label.score is not None and not 0 <= label.score <= 100:
            raise ValueError(
                _("the score {score:g} is outside 0-100 points").format(score=label.score))
        levels = self.levels()
        if label.level is not None and levels and label.level not in levels:
            raise ValueError(_("the level `{level}` is not one of {levels}").format(
                level=label.level, levels=", ".join(f"`{x}`" for x in levels)))
        if not label.skipped and label.score is None and label.level is None:
            raise ValueError(_("a label needs a score or a level, or is a skip"))

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (`BEGIN IMMEDIATE`) so two writers queue."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.rollback()
            raise
        self._db.commit()

    # ------------------------------------------------------------ reading

    def meta(self) -> dict[str, Any]:
        rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        return {key: json.loads(value) for key, value in rows}

    def levels(self) -> list[str]:
        """The labels of the reviewed outcome block, the levels a reviewer chooses from."""
        return list(self.meta().get("levels", []))

    def queue(self) -> list[QueuedCase]:
        """Every drawn case, highest priority first (the order `evaldsl review` writes)."""
        rows = self._db.execute("SELECT * FROM cases ORDER BY position").fetchall()
        return [_queued(row) for row in rows]

    def case(self, case_id: str) -> QueuedCase | None:
        row = self._db.execute("SELECT * FROM cases WHERE id = ?", (case_id,)).fetchone()
        return None if row is None else _queued(row)

    def labels(self, case_id: str | None = None) -> list[Label]:
        """Every label (of one case, when named), in the order they were first saved."""
        query = "SELECT * FROM labels" + (" WHERE case_id = ?" if case_id else "")
        rows = self._db.execute(query + " ORDER BY number", (case_id,) if case_id else ())
        return [_label(row) for row in rows.fetchall()]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(path: Path) -> ReviewStore:
    """Open (creating if needed) the review store at `path`.

    A file that is not a review store is a `CaseDataError` naming it, not a
    traceback: `review serve` and `calibrate` are given paths by people.
    """
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                             check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.executescript(_SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    except sqlite3.DatabaseError as exc:
        raise CaseDataError(
            str(path), 1, _("not a review store: {exc}").format(exc=exc),
            hint=_("give the .db file `evaldsl review serve` made")) from None
    return ReviewStore(path, db)


def is_store(path: Path) -> bool:
    """True for a file that starts as an SQLite database does (whatever its name)."""
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


def _queued(row: sqlite3.Row) -> QueuedCase:
    dialog = None if row["dialog"] is None else json.loads(row["dialog"])
    return QueuedCase(row["id"], row["position"], row["priority"], row["rule"],
                      json.loads(row["machine"]), dialog)


def _label(row: sqlite3.Row) -> Label:
    return Label(row["case_id"], row["reviewer"], row["score"], row["level"], row["note"],
                 bool(row["skipped"]), row["saved_at"], row["number"])
