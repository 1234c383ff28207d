"""One case's result as a journal line: `CaseRecord`, the one typed shape of results.jsonl.

A `CaseResult` (`evaldsl.results`) is what evaluating a case gives; its record is
the same result as plain, JSON-ready data, without the trace: what a run writes
as one line of results.jsonl (`evaldsl.report.journal`), what a resumed run,
`evaldsl merge`, `compare` and `review` read back, and what report.json is
folded from. The fields, their order and their types are written here once:
`CaseResult.to_record` makes it, the journal's writer encodes it, and the report
builder folds it (a line read back as a dict, by a resumed run or `merge`, is
converted to it first).

A line is encoded by msgspec in one C pass, keys in field order, so it reads as
before: `{"id":..,"labels":..,"branches":..,"errors":..,"checks":..,"skipped":..,
"metrics":..,"review":..,"lets":..[,"groups":..][,"row":..][,"trial":..][,"target":..]}`,
compact, UTF-8 kept readable, a non-finite number as null, a value JSON does not
know as a list (a set) or its text. `groups` (only for specs with grouped
metrics), `row` (only in a journal), `trial` (only for a scenario's repeated
trials) and `target` (only for driven scenarios) are left out when absent, as
before. Numbers keep their value; one spelling differs
from Python's `json`: a float below 1e-4 or from 1e16 is written without the
exponent's sign and padding (`1e-7`, `0.00001`, `1e16` where `json` wrote
`1e-07`, `1e-05`, `1e+16`), which every JSON reader reads as the same number.

Each check's entry stays an object: `status`, `passed`, `score`, `value`, the
primitive's own fields, then `reason`; its keys depend on the primitive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

UNSET: Any = msgspec.UNSET
"""A field left out of the line (`groups`, `row`, `target`)."""


class ReviewLine(msgspec.Struct, gc=False):
    """Whether a case was drawn for human review (`results.ReviewDecision` as data)."""

    sampled: bool
    rule: int | None = None
    priority: float | None = None
    draw: float = 0.0
    error: str | None = None


class CaseRecord(msgspec.Struct, kw_only=True, gc=False):
    """One journal line; see the module docstring."""

    id: str
    labels: dict[str, str] = {}
    """Label per outcome block; the unnamed block is `outcome`."""
    branches: dict[str, int | None] = {}
    """0-based index of the branch that fired per block; null when the block is `error`."""
    errors: dict[str, str] = {}
    """Why each `error` block is an error."""
    checks: dict[str, dict[str, Any]] = {}
    """Every check computed for the case, in spec order."""
    skipped: list[str] = []
    """Checks no outcome, metric or review rule needed for the case."""
    metrics: dict[str, Any] = {}
    """Per metric: its aggregate arguments' values (a list), null outside its `where`,
    `{"error": reason}` when left out as an error."""
    review: ReviewLine | None = None
    lets: dict[str, Any] = {}
    """The per-case lets the case computed, by name."""
    groups: dict[str, list[Any]] | msgspec.UnsetType = msgspec.UNSET
    """Each grouped metric's key for the case; only in specs with grouped metrics."""
    row: str | msgspec.UnsetType = msgspec.UNSET
    """The input row judged (`cases.jsonl:12`); only in a journal."""
    trial: int | msgspec.UnsetType = msgspec.UNSET
    """The case's trial of its scenario (`--trials`), when it has one: `compare` pairs by it."""
    target: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    """A driven scenario's note (latencies, the agent's failure)."""

    def to_dict(self) -> dict[str, Any]:
        """The line as a plain dict, keys in the order written."""
        out: dict[str, Any] = msgspec.to_builtins(self, enc_hook=_fallback)
        return out

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> CaseRecord:
        """A line already decoded as a dict (and checked by `record_shape`), as a record."""
        return msgspec.convert(data, cls, strict=False, dec_hook=None)

    @property
    def case_key(self) -> str:
        """What names the case among a run's: its row, or its id when it names none."""
        row = self.row
        return row if row else self.id


def _fallback(value: object) -> object:
    """Values JSON does not know (sets, tuples of odd things) become lists or text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


_ENCODER = msgspec.json.Encoder(enc_hook=_fallback)
_DECODER = msgspec.json.Decoder(CaseRecord)


def encode_line(record: CaseRecord) -> bytes:
    """One results line: compact JSON, UTF-8 kept readable, ending in a newline."""
    buffer = bytearray()
    _ENCODER.encode_into(record, buffer)
    buffer += b"\n"
    return bytes(buffer)


def decode_line(line: bytes | str) -> CaseRecord:
    """A results line as a record; raises `msgspec.DecodeError` (a `ValueError`) when it is
    not one."""
    return _DECODER.decode(line)
