"""results.jsonl: one line per judged case, written as each case finishes.

The file is the run's journal. Its first line is a header naming the spec,
its hash and the case files read, so a resumed run can refuse to mix results
of two different specs or inputs; every other line is one case result
(`CaseResult.to_record`, an `evaldsl.record.CaseRecord`: the trace follows from the branches,
errors and checks, and rendering it in words for every case would slow a run
noticeably) with `row`, the input row it judged (`cases.jsonl:12`), appended
in the order cases finish. Version 1 journals had no `row`: ids alone cannot
say which of two rows with one id was judged, so they are not read back
(`evaldsl.report.journal_read`).

One run writes a journal at a time: `evaldsl.report.journal_lock`.

Durability policy: every line is handed to the operating system (one `write`
to the descriptor) as soon as its case is done, so a killed process (even `kill -9`)
loses at most the line being written. The file is `fsync`ed every
`FSYNC_SECONDS` and when the run ends, so a machine crash loses at most the
last few seconds. A kill can leave a truncated last line; `recover` finds the
last complete line and cuts the rest off before a resumed run appends.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from evaldsl.atomic import named
from evaldsl.cases.case import Case
from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord, encode_line
from evaldsl.report.finite import encode_finite
from evaldsl.report.journal_lock import lock
from evaldsl.results import CaseResult

FORMAT = "evaldsl-results"
VERSION = 2
"""2: the header names the inputs and every case line its input row."""
FSYNC_SECONDS = 2.0


@dataclass(frozen=True)
class Header:
    spec: str
    spec_hash: str
    inputs: tuple[str, ...] = ()
    """The case files of the run, as named on its command line."""
    selection: dict[str, Any] | None = None
    """The run's `--where`, `--ids` and `--sample` (`Selection.describe`); None for every row.
    Written only when given, so a journal of a run over every row reads as before."""
    version: int = VERSION

    def to_dict(self) -> dict[str, Any]:
        out = {"format": FORMAT, "version": self.version, "spec": self.spec,
               "spec_hash": self.spec_hash, "inputs": list(self.inputs)}
        if self.selection is not None:
            out["selection"] = self.selection
        return out

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Header:
        """A header line read back; a field of the wrong type reads as missing."""
        inputs = record.get("inputs")
        version = record.get("version")
        selection = record.get("selection")
        return cls(str(record.get("spec", "")), str(record.get("spec_hash", "")),
                   tuple(map(str, inputs)) if isinstance(inputs, list) else (),
                   selection if isinstance(selection, dict) else None,
                   version if isinstance(version, int) else 0)


def is_header(record: dict[str, Any]) -> bool:
    return record.get("format") == FORMAT


def is_cost_note(record: dict[str, Any]) -> bool:
    """A line a run appends when it ends, `{"format": ..., "cost": {...}}`: the model calls
    it made (report.json's `cost`), so `evaldsl merge` can add the shards' costs. A resumed
    run appends its own; every reader of case lines skips them."""
    return record.get("format") == FORMAT and isinstance(record.get("cost"), dict)


def cost_notes(path: Path) -> list[dict[str, Any]]:
    """The `cost` of every cost note in a journal, in order."""
    out = []
    with path.open("rb") as f:
        for raw in f:
            record = complete_record(raw) if raw.startswith(b'{"format"') else None
            if record is not None and is_cost_note(record):
                out.append(record["cost"])
    return out


@dataclass(frozen=True)
class Recovered:
    """What a results file held when a run resumed."""

    header: Header | None
    records: int
    """Complete case lines."""
    good_bytes: int
    """Length of the complete part; anything after it is a torn last line."""
    torn_bytes: int


def recover(path: Path) -> Recovered:
    """Scan a results file, find where its last complete line ends.

    Raises `CaseDataError` when a line other than the last is not JSON: that
    file was not written by a run (or was edited) and resuming on it would
    silently lose results.
    """
    header: Header | None = None
    records = good = 0
    size = path.stat().st_size
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            record = complete_record(raw)
            if record is None:
                if good + len(raw) < size:
                    raise CaseDataError(str(path), number, _("this line is not a JSON object"))
                break
            good += len(raw)
            if number == 1 and is_header(record):
                header = Header.from_dict(record)
            elif not is_cost_note(record):
                records += 1
    return Recovered(header, records, good, size - good)


def complete_record(raw: bytes) -> dict[str, Any] | None:
    """A journal line as its JSON object; None for a line without its newline (torn) or one
    that is not a JSON object."""
    if not raw.endswith(b"\n"):
        return None
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past any journal line's depth
        return None
    return record if isinstance(record, dict) else None


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, case record) for every complete case line; the header is skipped.

    A torn last line (a killed run) is ignored; any other bad line raises
    `CaseDataError` naming it.
    """
    for number, _raw, record in read_lines(path):
        yield number, record


def read_lines(path: Path) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """`read_records` with each line's bytes, to tell a line written twice."""
    size = path.stat().st_size
    offset = 0
    with path.open("rb") as f:
        for number, raw in enumerate(f, start=1):
            offset += len(raw)
            record = complete_record(raw)
            if record is None:
                if offset >= size and not raw.endswith(b"\n"):
                    return
                raise CaseDataError(str(path), number, _("this line is not a JSON object"))
            if not ((number == 1 and is_header(record)) or is_cost_note(record)):
                yield number, raw, record


class ResultsWriter:
    """Appends one line per case; see the module docstring for the durability policy.

    The periodic `fsync` runs on a background thread (the call releases the
    GIL), so waiting for the disk never holds up judging.
    """

    def __init__(self, path: Path, header: Header | None, resume_at: int | None = None,
                 file: IO[bytes] | None = None) -> None:
        """Start a new file, or with `resume_at` continue one after its good bytes.

        Without a `header` the file is plain JSONL, every line a record (a transcripts file,
        `evaldsl.agents.transcripts`, which `evaldsl run` reads as cases).

        A file torn before its header was complete (`resume_at == 0`) starts afresh.
        `file` is the journal already open and locked (`journal_lock.lock`); without
        it the lock is taken here, so no writer ever truncates another's journal.
        """
        self.path = path
        self._file: IO[bytes] = lock(path) if file is None else file
        try:
            self._file.truncate(resume_at or 0)
            self._file.seek(resume_at or 0)
            if not resume_at and header is not None:
                self._file.write(_line(header.to_dict()))
            self._file.flush()
        except OSError as exc:
            raise named(exc, path) from exc
        self._fd = self._file.fileno()
        self._stop = threading.Event()
        self._syncer = threading.Thread(target=self._sync_every, args=(self._file.fileno(),),
                                        name="evaldsl-fsync", daemon=True)
        self._syncer.start()

    def _sync_every(self, fd: int) -> None:
        while not self._stop.wait(FSYNC_SECONDS):
            try:
                os.fsync(fd)
            except OSError:  # closed meanwhile: `close` syncs for the last time
                return

    def write(self, record: CaseRecord | dict[str, Any]) -> None:
        """Append a case's record, or another line (the header, a cost note) given as a dict."""
        self.write_line(encode(record))

    def write_line(self, line: bytes) -> None:
        """Append an already encoded line (ending in a newline) and hand it to the OS: one
        `write` to the descriptor, where the buffered file's `flush` would also ask the
        position of the file (an `lseek` per case). The buffer is empty from `__init__` on,
        so the two never disagree about where the file ends."""
        try:
            written = os.write(self._fd, line)
            while written < len(line):  # a short write (a signal, a nearly full disk): the rest
                line = line[written:]
                written = os.write(self._fd, line)
        except OSError as exc:
            raise named(exc, self.path) from exc

    def close(self) -> None:
        """Sync and close the file; a failure (a full disk) is raised naming it. Closing
        flushes what a failed write left buffered and fails the same way: that second error
        must not replace the first with one that names no file."""
        if self._file.closed:
            return
        self._stop.set()
        self._syncer.join()
        problem: OSError | None = None
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            problem = exc
        try:
            self._file.close()
        except OSError as exc:
            problem = problem or exc
        if problem is not None:
            raise named(problem, self.path) from problem

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def case_record(result: CaseResult, case: Case) -> CaseRecord:
    """A case's journal line, before encoding: its result without the trace, `row`, the
    input row it judged (what a resumed run skips by), and `trial`, the case's trial of its
    scenario when it has one (`--trials`: `compare` pairs trials by it)."""
    record = result.to_record(case.origin)
    trial = case.fields.get("trial")
    if type(trial) is int and trial >= 1:
        record.trial = trial
    return record


def encode(record: CaseRecord | dict[str, Any]) -> bytes:
    """One results line: compact JSON, UTF-8 kept readable, ending in a newline; a case's
    record in its typed shape (`evaldsl.record`), any other line from a dict."""
    if type(record) is CaseRecord:
        return encode_line(record)
    return _line(record)  # type: ignore[arg-type]


def _fallback(value: object) -> object:
    """Values JSON does not know (sets, tuples of odd things) become lists or text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


_ENCODE = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), default=_fallback, allow_nan=False
).encode
"""One encoder for every line: `json.dumps` with options builds a new one per call."""


def _line(record: dict[str, Any]) -> bytes:
    return encode_finite(_ENCODE, record).encode("utf-8") + b"\n"
