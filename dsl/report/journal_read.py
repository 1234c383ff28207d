"""A journal read back to be folded into a report, by a resumed run or `evaldsl merge`.

Reading checks what folding would otherwise take on trust:

- the header's version: a version 1 journal names no input rows, so which
  of two rows with one id it judged cannot be told; it is refused
  (`JournalVersionError`, exit 2) with the advice to run again;
- every line's shape (`evaldsl.report.record_shape`): a line with fields of
  the wrong type, or names the spec lacks, is a data error naming its file
  and line, never a traceback;
- rows: a line repeated word for word (a journal pasted twice) is read once,
  and two different results for one row are a data error naming both lines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from evaldsl.errors import CaseDataError, JournalVersionError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord, wrong_field
from evaldsl.report.journal import VERSION, Header, read_lines
from evaldsl.report.record_shape import problem

if TYPE_CHECKING:
    from evaldsl.runtime.aggregation import ReportPlan


class Entry(msgspec.Struct, frozen=True):
    """One case line of a journal, checked."""

    line: int
    record: CaseRecord

    @property
    def row(self) -> str:
        """The input row it judged (`cases.jsonl:12`)."""
        return str(self.record.row)  # checked: every line read has one

    @property
    def id(self) -> str:
        return self.record.id


def check_version(path: Path, header: Header | None) -> None:
    """Refuse a journal whose header says another version; one without a header is another
    matter (the caller's: it cannot say which spec wrote it)."""
    if header is not None and header.version != VERSION:
        raise JournalVersionError(path, header.version, VERSION)


def read_entries(path: Path, plan: ReportPlan | None = None) -> Iterator[Entry]:
    """Every case line of the journal once, checked; see the module docstring."""
    seen: dict[str, tuple[int, bytes]] = {}
    for number, raw, record in read_lines(path):
        found = problem(record, plan)
        if found is not None:
            raise CaseDataError(str(path), number, found)
        try:
            line = CaseRecord.of(record)
        except msgspec.ValidationError as exc:
            raise CaseDataError(str(path), number, _("`{field}` has the wrong type").format(
                field=wrong_field(exc))) from None
        row = str(line.row)
        digest = hashlib.blake2b(raw.rstrip(b"\r\n"), digest_size=16).digest()
        earlier = seen.get(row)
        if earlier is None:
            seen[row] = (number, digest)
            yield Entry(number, line)
        elif earlier[1] != digest:
            raise CaseDataError(str(path), number, _(
                "another result for row `{row}`, already judged at line {line}").format(
                    row=row, line=earlier[0]))
