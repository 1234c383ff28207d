"""A journal line's shape as a msgspec type: `record_shape`'s check at decoding speed.

`evaldsl compare` reads two journals of a million lines each; decoding every
line with `json.loads` and then walking it with `record_shape.problem` costs
most of its time. `line_type(plan)` is the results line's own type,
`evaldsl.record.CaseRecord`, narrowed to the spec's names by
`record.checked_type` (each outcome block a field whose labels are a
`Literal`, each check and metric a field, a metric input a tuple of its
aggregates' length, a grouped metric's key a tuple of its `by` fields' length,
unknown names refused), so one C decoding pass both parses the line and checks
its shape, and the line's fields are the record's, written in one place.

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
from typing import TYPE_CHECKING, Any

import msgspec

from evaldsl.record import checked_type
from evaldsl.results import ERROR_LABEL

if TYPE_CHECKING:
    from evaldsl.runtime.aggregation import ReportPlan


@lru_cache(maxsize=8)
def line_type(plan: ReportPlan) -> type[msgspec.Struct]:
    """The struct a journal line of `plan`'s spec decodes to (`record.checked_type`): fields
    `b{i}` (blocks, in `plan.blocks` order), `c{i}` (checks), `m{i}` (metrics), `g{i}`
    (grouped metrics) under `labels`, `checks`, `metrics`, `groups`."""
    return checked_type([(key, (*labels, ERROR_LABEL)) for key, labels in plan.blocks],
                        plan.checks,
                        [(m.name, len(m.aggregates), len(m.by)) for m in plan.metrics])


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
