"""The rows a resumed run's journal holds, matched against the input row by row.

A journal line names the input row it judged (`cases.jsonl:12`), so a
resumed run skips exactly the rows already judged, however often an id
repeats and in whatever order the cases finished. Each journaled row must be
met once by the input, holding the case the line says it judged: a line for
another case at that row (the file was edited) or for a row the input does
not have (a file not given, a line past its end) would put in the report a
case this run is not about, so it is a data error naming the journal's line.
"""

from __future__ import annotations

from pathlib import Path

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.report.journal_read import Entry


class Journaled:
    """The journal's rows not yet met in the input: row -> (journal line, case id)."""

    def __init__(self, path: Path, inputs: tuple[str, ...]) -> None:
        self.path = path
        self.inputs = frozenset(inputs)
        """The run's case files; empty when the caller did not say (an API run)."""
        self._pending: dict[str, tuple[int, str]] = {}

    def add(self, entry: Entry) -> None:
        """One journal line; a row of a file the run does not read is refused at once."""
        file = entry.row.rpartition(":")[0]
        if self.inputs and file not in self.inputs:
            raise self._foreign(entry.line, entry.row, entry.id)
        self._pending[entry.row] = (entry.line, entry.id)

    def rows(self) -> frozenset[str]:
        """The rows still to meet, for workers to set their cases aside."""
        return frozenset(self._pending)

    def take(self, row: str, case_id: str) -> bool:
        """Whether the journal holds this input row (then it is met); the journal's case
        there must be this one."""
        found = self._pending.pop(row, None)
        if found is None:
            return False
        line, journaled = found
        if journaled != case_id:
            raise CaseDataError(str(self.path), line, _(
                "the result of case `{id}` at `{row}`, but that row is case `{other}`").format(
                    id=journaled, row=row, other=case_id))
        return True

    def check_all_met(self) -> None:
        """After the whole input: a journaled row it did not have is refused."""
        if self._pending:
            row, (line, case_id) = min(self._pending.items(), key=lambda kv: kv[1][0])
            raise self._foreign(line, row, case_id)

    def _foreign(self, line: int, row: str, case_id: str) -> CaseDataError:
        return CaseDataError(str(self.path), line, _(
            "the result of `{row}` (case `{id}`), a row not in the input").format(
                row=row, id=case_id),
            hint=_("resume with the case files of the run that wrote the journal, or start "
                   "over with --overwrite"))
