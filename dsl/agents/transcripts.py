"""The transcripts file: every driven conversation, one JSONL line as it ends.

A line is a case `evaldsl run` reads as it is (`id`, `messages` in the chat format with
each reply's `latency_ms`, the scenario's other fields) plus `row`, the scenario row it was
driven from (`scenarios.jsonl:3`). It is written by one process at a time (the journal's
`flock`) with the journal's durability (`evaldsl.report.journal.ResultsWriter`: flushed
per line, fsynced every few seconds and at the end). A conversation whose agent failed is
not written: it is an `error` case of the run, never a dialog to judge offline.

Resuming, the file is the record of what was sent: a scenario row it holds is judged from
its line, never sent to the agent again; a torn last line (a killed run) is cut off first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.errors import JournalExistsError
from evaldsl.i18n import _
from evaldsl.report.journal import ResultsWriter, encode, read_lines, recover
from evaldsl.report.journal_lock import lock

ROW = "row"
"""The field naming the scenario row a transcript was driven from."""


class Transcripts:
    """The transcripts file of one run: what it already held, and the writer of new lines."""

    def __init__(self, path: Path, resume: bool, overwrite: bool) -> None:
        self.path = path
        self.saved: dict[str, bytes] = {}
        """Scenario row -> its saved line, when resuming."""
        file = lock(path)
        try:
            size = path.stat().st_size
            if size and not resume and not overwrite:
                raise JournalExistsError(
                    _("`{path}` already holds transcripts").format(path=path))
            resume_at = self._read_back() if resume and size else 0
        except BaseException:
            file.close()
            raise
        self.writer = ResultsWriter(path, None, resume_at, file)

    def _read_back(self) -> int:
        good = recover(self.path).good_bytes
        for _number, raw, record in read_lines(self.path):
            self.saved[str(record.get(ROW, ""))] = raw
        return good

    def saved_case(self, row: str) -> Case | None:
        """The conversation driven from `row` by an earlier run, or None."""
        raw = self.saved.get(row)
        return None if raw is None else Case.from_dict(json.loads(raw), row)

    def write(self, transcript: dict[str, Any]) -> None:
        self.writer.write_line(encode(transcript))

    def close(self) -> None:
        self.writer.close()
