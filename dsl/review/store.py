"""The review store: a run's review sample and the labels people give it, in one SQLite file.

Reviewers label cases over days, several at once, from the review page or a
script; the store is what they share. SQLite in WAL mode lets one writer and
any number of readers work together, and `busy_timeout` makes a second writer
wait for the first instead of failing, so two processes saving labels at the
same time both keep theirs. Every save is its own transaction, committed with
`synchronous=FULL` before the call returns: a crash or a kill afterwards loses
no saved label.

Three tables: `meta` (what the sample was drawn from: the spec's hash, its
outcome blocks with their levels, and the default block), `cases` (one row per
drawn case, in queue order, with the machine's judgement and the dialog as
JSON) and `labels` (one row per case, reviewer and outcome block; saving again
replaces that reviewer's label for that block). A label is for one outcome
block: its level is one of that block's, and `evaldsl calibrate --outcome
BLOCK` reads the labels of that block. A label's score is in points, 0-100, the
scale `evaldsl calibrate` reads.

A store of the first layout (one label per case and reviewer, for the default
block) is brought to this one when opened: each label keeps its values and is
recorded as the default block's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _

SCHEMA_VERSION = 2
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
  block TEXT NOT NULL DEFAULT '',
  score REAL, level TEXT, note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0,
  saved_at TEXT NOT NULL, UNIQUE (case_id, reviewer, block));
"""

_FIRST_LAYOUT = """
ALTER TABLE labels RENAME TO labels_first_layout;
CREATE TABLE labels (
  number INTEGER PRIMARY KEY AUTOINCREMENT,
  case_id TEXT NOT NULL REFERENCES cases(id), reviewer TEXT NOT NULL,
  block TEXT NOT NULL DEFAULT '',
  score REAL, level TEXT, note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0,
  saved_at TEXT NOT NULL, UNIQUE (case_id, reviewer, block));
INSERT INTO labels (number, case_id, reviewer, block, score, level, note, skipped, saved_at)
  SELECT number, case_id, reviewer, ?, score, level, note, skipped, saved_at
  FROM labels_first_layout;
DROP TABLE labels_first_layout;
"""
"""Layout 1 to 2: the labels table gains its `block`, each label the default block's."""


@dataclass(frozen=True, slots=True)
class Label:
    """One reviewer's judgement of one case under one outcome block."""

    case_id: str
    reviewer: str
    score: float | None = None
    """Points, 0-100; None when the reviewer gave only a level, or skipped."""
    level: str | None = None
    """A label of the outcome block `block` (`excellent`, `poor`, ...)."""
    note: str = ""
    skipped: bool = False
    """The reviewer passed the case: no judgement, but no longer in their queue."""
    saved_at: str = ""
    """UTC time of the save, ISO 8601; filled in by `save_label`."""
    number: int = 0
    """The label's row in the store, named when a label is wrong."""
    block: str = ""
    """The outcome block the label is for; `save_label` reads "" as the store's default
    block, and a label read back always names its block."""

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
        """Store a reviewer's label of a case for its block, replacing their earlier one for
        that block; durable on return."""
        return self.save_labels([label])[0]

    def save_labels(self, labels: Sequence[Label],
                    cleared: Iterable[tuple[str, str, str]] = ()) -> list[Label]:
        """Store several labels and remove the `(case_id, reviewer, block)` labels `cleared`,
        all in one transaction (a reviewer's judgement of a case under several blocks, one
        of them emptied); every label is checked before anything is written."""
        blocks = self.blocks()
        checked = [self._checked(label, blocks) for label in labels]
        gone = [(case_id, reviewer, self._block_of(block, blocks))
                for case_id, reviewer, block in cleared]
        saved_at = datetime.now(UTC).isoformat(timespec="seconds")
        saved = []
        with self._write() as db:
            db.executemany("DELETE FROM labels WHERE case_id = ? AND reviewer = ? AND block = ?",
                           gone)
            for label in checked:
                db.execute(
                    "INSERT INTO labels (case_id, reviewer, block, score, level, note, skipped, "
                    "saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (case_id, reviewer, block) DO UPDATE SET "
                    "score = excluded.score, level = excluded.level, note = excluded.note, "
                    "skipped = excluded.skipped, saved_at = excluded.saved_at",
                    (label.case_id, label.reviewer, label.block, label.score, label.level,
                     label.note, int(label.skipped), saved_at))
                number = db.execute(
                    "SELECT number FROM labels WHERE case_id = ? AND reviewer = ? AND block = ?",
                    (label.case_id, label.reviewer, label.block)).fetchone()[0]
                saved.append(replace(label, saved_at=saved_at, number=int(number)))
        return saved

    def _block_of(self, block: str, blocks: Mapping[str, list[str]]) -> str:
        """The block a label names (`""`: the default one), refused when the store has none
        such."""
        if not block:
            return str(self.meta().get("block") or "")
        if blocks and block not in blocks:
            raise ValueError(unknown_block(block, blocks))
        return block

    def _checked(self, label: Label, blocks: Mapping[str, list[str]]) -> Label:
        """The label with its block named, or the reason the store would keep it wrong
        (`ValueError`)."""
        label = replace(label, block=self._block_of(label.block, blocks))
        if not label.reviewer.strip():
            raise ValueError(_("a label needs a reviewer's name"))
        if self.case(label.case_id) is None:
            raise ValueError(_("no case `{id}` in the review queue").format(id=label.case_id))
        if label.score is not None and not 0 <= label.score <= 100:
            raise ValueError(
                _("the score {score:g} is outside 0-100 points").format(score=label.score))
        levels = list(blocks.get(label.block, []))
        if label.level is not None and levels and label.level not in levels:
            raise ValueError(_("the level `{level}` is not one of {levels}").format(
                level=label.level, levels=", ".join(f"`{x}`" for x in levels)))
        if not label.skipped and label.score is None and label.level is None:
            raise ValueError(_("a label needs a score or a level, or is a skip"))
        return label

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

    def levels(self, block: str | None = None) -> list[str]:
        """The labels of an outcome block (the default block when None), the levels a
        reviewer chooses from."""
        meta = self.meta()
        if block is None or block == meta.get("block"):
            return list(meta.get("levels", []))
        return list(self.blocks().get(block, []))

    def blocks(self) -> dict[str, list[str]]:
        """Every outcome block a label may be for, with its levels, in the spec's order (a
        store of the first layout knows its default block only)."""
        meta = self.meta()
        if isinstance(meta.get("blocks"), dict):
            return {str(k): list(v) for k, v in meta["blocks"].items()}
        block = meta.get("block")
        return {str(block): list(meta.get("levels", []))} if block else {}

    def queue(self) -> list[QueuedCase]:
        """Every drawn case, highest priority first (the order `evaldsl review` writes)."""
        rows = self._db.execute("SELECT * FROM cases ORDER BY position").fetchall()
        return [_queued(row) for row in rows]

    def case(self, case_id: str) -> QueuedCase | None:
        row = self._db.execute("SELECT * FROM cases WHERE id = ?", (case_id,)).fetchone()
        return None if row is None else _queued(row)

    def labels(self, case_id: str | None = None, block: str | None = None) -> list[Label]:
        """Every label (of one case, of one block, when named), in the order they were first
        saved."""
        where = [(column, value) for column, value in (("case_id", case_id), ("block", block))
                 if value is not None]
        query = "SELECT * FROM labels" + (
            " WHERE " + " AND ".join(f"{column} = ?" for column, _v in where) if where else "")
        rows = self._db.execute(query + " ORDER BY number", tuple(v for _c, v in where))
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
        _upgrade(db)
    except sqlite3.DatabaseError as exc:
        raise CaseDataError(
            str(path), 1, _("not a review store: {exc}").format(exc=exc),
            hint=_("give the .db file `evaldsl review serve` made")) from None
    return ReviewStore(path, db)


def _upgrade(db: sqlite3.Connection) -> None:
    """A store of the first layout brought to this one, in one transaction."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(labels)")}
    if "block" in columns:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        found = db.execute("SELECT value FROM meta WHERE key = 'block'").fetchone()
        block = json.loads(found[0]) if found is not None else None
        for statement in filter(str.strip, _FIRST_LAYOUT.split(";")):
            db.execute(statement, (str(block or ""),) if "?" in statement else ())
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    except BaseException:
        db.rollback()
        raise
    db.commit()


def unknown_block(block: str, blocks: Iterable[str]) -> str:
    """The one message for an outcome block a store has no labels for."""
    return _("the spec has no outcome block `{block}`; the store has {blocks}").format(
        block=block, blocks=", ".join(f"`{x}`" for x in blocks) or _("none"))


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
                 bool(row["skipped"]), row["saved_at"], row["number"], row["block"])
