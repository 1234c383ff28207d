"""A journal line's shape as a msgspec type: `record_shape`'s check at decoding speed.

`evaldsl compare` reads two journals of a million lines each; decoding every
line with `json.loads` and then walking it with `record_shape.problem` costs
most of its time. `line_type(plan)` spells the same rules as a typed msgspec
struct built from the spec's names (each outcome block a field whose labels
are a `Literal`, each check and metric a field, a metric input a tuple of its
aggregates' length, a grouped metric's key a tuple of its `by` fields' length,
unknown names refused), so one C decoding pass both
parses the line and checks its shape.

It is a fast path, never the judge: a line it refuses is decoded again with
`json.loads` and checked by `record_shape.problem`, whose words name the field
in the data error, and a line `problem` accepts is converted to the same
struct. So a line is accepted exactly when `problem` accepts it; the fast
path only has to accept the common well-formed line (a test holds the two to
the same answers). numpy-free, but msgspec is imported only by the commands
that read journals this way.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from evaldsl.results import ERROR_LABEL

if TYPE_CHECKING:
    from evaldsl.runtime.aggregation import ReportPlan


class Error(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False):
    """`{"error": reason}`: an error value as the journal writes it."""

    error: str


class CheckLine(msgspec.Struct, frozen=True, gc=False):
    """A check's result; fields other than these four are the check's own and unchecked."""

    status: Literal["passed", "failed", "error"]
    passed: bool | None | Error = None
    score: float | None | Error = None
    reason: str = ""


class Review(msgspec.Struct, frozen=True, gc=False):
    sampled: bool
    draw: float = 0.0
    priority: float | None = None
    error: str | None = None


Value: Any = None | bool | int | float | str
"""One aggregate argument's value, as `record_shape` allows it."""


def _names(prefix: str, names: tuple[str, ...], kind: Any, default: Any) -> tuple[
        list[tuple[str, Any, Any]], dict[str, str]]:
    """Struct fields `{prefix}0..` for `names` (a name need not be an identifier)."""
    fields = [(f"{prefix}{i}", kind(name), default) for i, name in enumerate(names)]
    return fields, {f"{prefix}{i}": name for i, name in enumerate(names)}


def _struct(name: str, names: tuple[str, ...], prefix: str, kind: Any,
            default: Any) -> type[msgspec.Struct]:
    fields, rename = _names(prefix, names, kind, default)
    return msgspec.defstruct(name, fields, rename=rename, forbid_unknown_fields=True,
                             frozen=True, gc=False)


def _literal(values: tuple[str, ...]) -> Any:
    """`Literal[values]` for values known at run time."""
    return Literal.__getitem__(values)


def _metric(length: int) -> Any:
    """An input of `length` aggregate arguments, none (outside its `where`) or an error."""
    return tuple.__class_getitem__((Value,) * length) | None | Error


@lru_cache(maxsize=8)
def line_type(plan: ReportPlan) -> type[msgspec.Struct]:
    """The struct a journal line of `plan`'s spec decodes to; fields `b{i}` (blocks, in
    `plan.blocks` order), `c{i}` (checks), `m{i}` (metrics) under `labels`, `checks`,
    `metrics`."""
    blocks = dict(plan.blocks)
    labels = _struct("Labels", tuple(blocks), "b",
                     lambda b: _literal((*blocks[b], ERROR_LABEL)) | msgspec.UnsetType,
                     msgspec.UNSET)
    checks = _struct("Checks", plan.checks, "c",
                     lambda c: CheckLine | msgspec.UnsetType, msgspec.UNSET)
    lengths = {m.name: len(m.aggregates) for m in plan.metrics}
    metrics = _struct("Metrics", tuple(lengths), "m", lambda m: _metric(lengths[m]), None)
    keys = {m.name: len(m.by) for m in plan.metrics if m.by}
    groups = _struct("Groups", tuple(keys), "g",
                     lambda m: tuple.__class_getitem__((Value,) * keys[m]) | msgspec.UnsetType,
                     msgspec.UNSET)
    skipped: Any = (list[_literal(plan.checks)] if plan.checks  # type: ignore[misc]
                    else Annotated[list[str], msgspec.Meta(max_length=0)])
    return msgspec.defstruct("Line", [
        ("id", str), ("row", str),
        ("labels", labels, msgspec.field(default_factory=labels)),
        ("branches", dict[str, Annotated[int, msgspec.Meta(ge=0)] | None], {}),
        ("errors", dict[str, str], {}),
        ("checks", checks, msgspec.field(default_factory=checks)),
        ("metrics", metrics, msgspec.field(default_factory=metrics)),
        ("skipped", skipped, []),
        ("review", Review | None, None),
        ("lets", dict[str, Any], {}),
        ("groups", groups, msgspec.field(default_factory=groups)),
        ("trial", Annotated[int, msgspec.Meta(ge=1)] | None, None),
    ], frozen=True, gc=False)


@lru_cache(maxsize=8)
def decoder(plan: ReportPlan) -> msgspec.json.Decoder[Any]:
    """The decoder of `line_type(plan)`, built once per spec."""
    return msgspec.json.Decoder(line_type(plan))


def convert(record: dict[str, Any], plan: ReportPlan) -> Any:
    """A line `record_shape.problem` accepted, as `line_type(plan)`; None when msgspec cannot
    hold it (a number beyond a float's range)."""
    try:
        return msgspec.convert(record, line_type(plan))
    except msgspec.ValidationError:
        return None
