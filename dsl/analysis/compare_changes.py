"""What moved between two runs: label transitions per outcome block, and the cases whose
verdict changed, worst first.

An outcome block's branches are written best first (`success`, then
`partial`, then `failure`), so a label's branch index is its rank and a
case's move is the difference of ranks; `error` (the decision depended on an
error) ranks below every branch. The changed cases are listed by move, the
largest drop first, so a reviewer meets the regressions before the gains;
each names the checks whose status moved, which is usually where to look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from evaldsl.analysis.compare_columns import STATUSES, Columns, key_text
from evaldsl.results import ERROR_LABEL, VERDICT
from evaldsl.runtime.aggregation import ReportPlan

if TYPE_CHECKING:
    import numpy.typing as npt

Rows = tuple["npt.NDArray[Any]", "npt.NDArray[Any]"]
"""The paired cases' indices into the base and the new run's columns."""


@dataclass(frozen=True)
class Transitions:
    """How the paired cases' labels in one outcome block moved."""

    block: str
    labels: tuple[str, ...]
    """The block's labels best first, then `error`."""
    counts: dict[tuple[str, str], int]
    """(base label, new label) -> cases; pairs no case made are absent."""


@dataclass(frozen=True)
class CheckMove:
    check: str
    base: str
    new: str


@dataclass(frozen=True)
class ChangedCase:
    """A paired case whose verdict label changed."""

    id: str
    base: str
    new: str
    move: int
    """New rank minus base rank: positive is worse."""
    checks: tuple[CheckMove, ...]


def transitions(plan: ReportPlan, rows: Rows, base: Columns,
                new: Columns) -> list[Transitions]:
    """The transition table of every outcome block over the paired cases: exact counts of
    each (base label, new label) code pair."""
    import numpy as np

    out = []
    for j, (block, labels) in enumerate(plan.blocks):
        names = (*labels, ERROR_LABEL)
        width = len(names)
        pairs = (base.labels[rows[0], j].astype(np.int64) * width
                 + new.labels[rows[1], j])
        counts = np.bincount(pairs, minlength=width * width)
        out.append(Transitions(block, names, {
            (names[k // width], names[k % width]): int(counts[k])
            for k in np.flatnonzero(counts).tolist()}))
    return out


def verdict_block(plan: ReportPlan) -> tuple[str, tuple[str, ...]] | None:
    """The block whose label is the case's verdict: the unnamed one, else the first."""
    blocks = dict(plan.blocks)
    if VERDICT in blocks:
        return VERDICT, blocks[VERDICT]
    return plan.blocks[0] if plan.blocks else None


class Changed(NamedTuple):
    listed: tuple[ChangedCase, ...]
    """The first `limit` changed cases, worst first."""
    total: int


def changed_cases(plan: ReportPlan, ids: npt.NDArray[Any], rows: Rows, base: Columns,
                  new: Columns, limit: int) -> Changed:
    """The paired cases whose verdict label changed, the largest drop first (then by id):
    the first `limit` of them, and how many there are."""
    import numpy as np

    found = verdict_block(plan)
    if found is None:
        return Changed((), 0)
    block, labels = found
    j = [key for key, _labels in plan.blocks].index(block)
    b, n = base.labels[rows[0], j], new.labels[rows[1], j]
    moved = np.flatnonzero(b != n)
    move = n[moved].astype(np.int64) - b[moved]
    worst = moved[np.argsort(-move, kind="stable")[:limit]]
    names = (*labels, ERROR_LABEL)
    listed = tuple(ChangedCase(key_text(ids[i]), names[b[i]], names[n[i]],
                               int(n[i]) - int(b[i]),
                               _check_moves(plan, base.checks[rows[0][i]],
                                            new.checks[rows[1][i]]))
                   for i in worst.tolist())
    return Changed(listed, len(moved))


def _check_moves(plan: ReportPlan, base: npt.NDArray[Any], new: npt.NDArray[Any],
                 ) -> tuple[CheckMove, ...]:
    return tuple(CheckMove(name, STATUSES[b], STATUSES[n])
                 for name, b, n in zip(plan.checks, base.tolist(), new.tolist(), strict=True)
                 if b != n)
