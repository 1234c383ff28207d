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

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

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
        """A line already decoded as a dict (and checked by `record_shape`), as a record;
        raises `msgspec.ValidationError` naming the field (`wrong_field`) when a field the
        check leaves alone (`review.rule`, `trial`, `target`) has the wrong type."""
        return msgspec.convert(data, cls, strict=False, dec_hook=None)

    @property
    def case_key(self) -> str:
        """What names the case among a run's: its row, or its id when it names none."""
        row = self.row
        return row if row else self.id


def wrong_field(error: msgspec.ValidationError) -> str:
    """The field a validation error names, as `review.rule` (`$.review.rule` in msgspec's
    words); the record's own name when it names none."""
    where = str(error).rpartition(" - at `$")[2].rstrip("`")
    return where.lstrip(".").replace("[...]", "") or "record"


def _fallback(value: object) -> object:
    """Values JSON does not know (sets, tuples of odd things) become lists or text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


_ENCODER = msgspec.json.Encoder(enc_hook=_fallback)
_ENCODE = _ENCODER.encode
_DECODER = msgspec.json.Decoder(CaseRecord)


def encode_line(record: CaseRecord) -> bytes:
    """One results line: compact JSON, UTF-8 kept readable, ending in a newline."""
    return _ENCODE(record) + b"\n"


def decode_line(line: bytes | str) -> CaseRecord:
    """A results line as a record; raises `msgspec.DecodeError` (a `ValueError`) when it is
    not one."""
    return _DECODER.decode(line)


# ------------------------------------------------------------------ a line checked as decoded

class ErrorLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False):
    """`{"error": reason}`: an error value as a line writes it."""

    error: str


class CheckLine(msgspec.Struct, frozen=True, gc=False):
    """A check's entry as a checked line holds it: the four fields every check has, typed;
    the primitive's own fields are not decoded."""

    status: Literal["passed", "failed", "error"]
    passed: bool | None | ErrorLine = None
    score: float | None | ErrorLine = None
    reason: str = ""


Scalar: Any = None | bool | int | float | str
"""One aggregate argument's value, or one `by` field's value of a group key."""


def checked_type(blocks: Sequence[tuple[str, Sequence[str]]], checks: Sequence[str],
                 metrics: Sequence[tuple[str, int, int]]) -> type[msgspec.Struct]:
    """`CaseRecord` narrowed to one spec's names, so that decoding a line also checks it
    (`evaldsl compare`'s fast path, `evaldsl.report.record_struct`): each outcome block
    (name, its labels) a field whose labels are a `Literal`, each check a `CheckLine`, each
    metric (name, aggregates, `by` fields) an input of its length, unknown names refused,
    `row` required and `trial` at least 1. A spec's names need not be identifiers, so the
    inner structs' fields are `b0..`, `c0..`, `m0..`, `g0..` in the order given, renamed
    to the names."""
    lengths = {name: aggregates for name, aggregates, _by in metrics}
    keys = {name: by for name, _aggregates, by in metrics if by}
    narrowed: dict[str, Any] = {
        "labels": _names("Labels", [(b, _literal(tuple(labels)) | msgspec.UnsetType)
                                    for b, labels in blocks], "b", msgspec.UNSET),
        "checks": _names("Checks", [(c, CheckLine | msgspec.UnsetType) for c in checks],
                         "c", msgspec.UNSET),
        "metrics": _names("Metrics", [(m, _tuple(n) | None | ErrorLine)
                                      for m, n in lengths.items()], "m", None),
        "groups": _names("Groups", [(m, _tuple(n) | msgspec.UnsetType)
                                    for m, n in keys.items()], "g", msgspec.UNSET),
        "branches": dict[str, Annotated[int, msgspec.Meta(ge=0)] | None],
        "skipped": (list[_literal(tuple(checks))]  # type: ignore[misc]
                    if checks else Annotated[list[str], msgspec.Meta(max_length=0)]),
        "row": str,
        "trial": Annotated[int, msgspec.Meta(ge=1)] | msgspec.UnsetType,
    }
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for field in msgspec.structs.fields(CaseRecord):
        kind = narrowed.get(field.name, field.type)
        if field.required or field.name == "row":
            fields.append((field.name, kind))
        elif field.name in ("labels", "checks", "metrics", "groups"):
            fields.append((field.name, kind, msgspec.field(default_factory=kind)))
        else:
            fields.append((field.name, kind, field.default if field.default_factory
                           is msgspec.NODEFAULT else msgspec.field(
                               default_factory=field.default_factory)))
    return msgspec.defstruct("CheckedLine", fields, kw_only=True, frozen=True, gc=False)


def _names(name: str, kinds: list[tuple[str, Any]], prefix: str,
           default: Any) -> type[msgspec.Struct]:
    """A struct of one field per name, fields `{prefix}0..` renamed to the names."""
    fields = [(f"{prefix}{i}", kind, default) for i, (_n, kind) in enumerate(kinds)]
    rename = {f"{prefix}{i}": n for i, (n, _kind) in enumerate(kinds)}
    return msgspec.defstruct(name, fields, rename=rename, forbid_unknown_fields=True,
                             frozen=True, gc=False)


def _literal(values: tuple[str, ...]) -> Any:
    """`Literal[values]` for values known at run time."""
    return Literal.__getitem__(values)


def _tuple(length: int) -> Any:
    """A tuple of `length` scalars."""
    return tuple.__class_getitem__((Scalar,) * length)
