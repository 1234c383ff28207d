"""A cluster run's part files: each judged batch as one file, named after its first row.

A run directory (the journal's name plus `.parts`, beside it) holds `run.json`,
the journal header of the run (spec hash, case files), and one
`part-<file>-<line>.jsonl` per batch: `<file>` the index of the batch's first
row's case file on the command line, `<line>` its line there. A batch judged
again (its worker died, a retry) writes the same name and replaces its own part,
so a case is never counted twice; parts sort in input order.

A part's first line is about the batch (`Part.meta`): its `ShardState` as
base64 of `dumps`, its bad rows and its case count; the others are journal
lines exactly as results.jsonl holds them, so assembling the journal is
appending them. A part is written whole (`atomic.replace_file`): it is there
complete or not at all, and a resumed run judges again only rows no part holds.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evaldsl.atomic import replace_file
from evaldsl.cases.bad_rows import BadRow
from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord, decode_line
from evaldsl.report.journal import Header

PART_VERSION = 1
HEADER_FILE = "run.json"


def part_name(file_index: int, line: int) -> str:
    """The name of the part whose first row is `line` of the `file_index`-th case file.

    >>> part_name(0, 12)
    'part-00000-000000000012.jsonl'
    """
    return f"part-{file_index:05d}-{line:012d}.jsonl"


@dataclass(frozen=True)
class Part:
    """One batch judged: its journal lines, bad rows and state."""

    lines: bytes
    """The journal lines of its cases, in input order, each ending in a newline."""
    state: bytes
    """Its `ShardState.dumps()`."""
    bad: tuple[BadRow, ...]
    cases: int

    def text(self) -> str:
        """The part file's content: the meta line, then the journal lines."""
        meta = {"part": PART_VERSION, "cases": self.cases,
                "state": base64.b64encode(self.state).decode("ascii"),
                "bad": [b.to_dict() for b in self.bad]}
        return json.dumps(meta, ensure_ascii=False) + "\n" + self.lines.decode("utf-8")

    def rows(self) -> Iterator[str]:
        """The input rows (`file:line`) it holds: its cases' and its bad rows'."""
        for line in self.lines.splitlines():
            yield str(decode_line(line).row)
        for bad in self.bad:
            yield f"{bad.file}:{bad.line}"


def read_part(path: Path) -> Part:
    """A part file read back; one that is not a part is a data error naming it."""
    data = path.read_bytes()
    head, _newline, lines = data.partition(b"\n")
    try:
        meta = json.loads(head)
        if meta.get("part") != PART_VERSION:
            raise ValueError(meta.get("part"))
        bad = tuple(BadRow(**b) for b in meta["bad"])
        return Part(lines, base64.b64decode(meta["state"]), bad, int(meta["cases"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise CaseDataError(str(path), 1, _("not a part file of this version of evaldsl"),
                            hint=_("start the run over with --overwrite")) from None


class RunDirectory:
    """The parts of one run, beside its journal."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def beside(cls, journal: Path) -> RunDirectory:
        return cls(journal.with_name(journal.name + ".parts"))

    def header(self) -> Header | None:
        """The header of the run that wrote the parts, or None before any run did."""
        try:
            return Header.from_dict(json.loads((self.path / HEADER_FILE).read_text("utf-8")))
        except FileNotFoundError:
            return None

    def start(self, header: Header) -> None:
        """An empty run directory for a run afresh: earlier parts removed."""
        self.path.mkdir(parents=True, exist_ok=True)
        for part in self.parts():
            part.unlink()
        replace_file(self.path / HEADER_FILE, json.dumps(header.to_dict()) + "\n")

    def write(self, name: str, text: str) -> None:
        replace_file(self.path / name, text)

    def parts(self) -> list[Path]:
        """Every part, in input order of its first row."""
        if not self.path.is_dir():
            return []
        return sorted(self.path.glob("part-*.jsonl"))

    def done(self) -> frozenset[str]:
        """The input rows some part holds: a resumed run does not judge them again."""
        return frozenset(row for path in self.parts() for row in read_part(path).rows())


def record_of(line: bytes) -> CaseRecord:
    """One journal line of a part as the record a sink takes."""
    return decode_line(line)
