"""Flip rates: how often two runs of one spec disagree about the same case.

Run a spec twice over the same cases (the same judge asked again, with the
cache off, or another judge) and the share of cases whose verdict flips is
how far one run's verdicts can be trusted to repeat: a judge whose verdicts
flip on 15% of the cases cannot show a 5-point improvement. Each rate counts
only the paired cases decided in both runs, so its denominator is stated; the
cases left out because either run had an error (or did not compute a check)
are counted beside it, never folded into the rate. Beside each rate is
Krippendorff's alpha of the two runs over the same cases: a flip rate of 5%
means little when 95% of the cases pass, and alpha discounts that.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evaldsl.analysis.compare_changes import Rows, verdict_block
from evaldsl.analysis.compare_columns import STATUSES, Columns
from evaldsl.report.alpha import Level, alpha_of_coincidences
from evaldsl.runtime.aggregation import ReportPlan

if TYPE_CHECKING:
    import numpy.typing as npt

PASSED, FAILED = STATUSES.index("passed"), STATUSES.index("failed")


@dataclass(frozen=True)
class Flips:
    """One flip rate: `flipped` of `decided` paired cases, `undecided` left out."""

    name: str
    """The outcome block (the verdict) or the check."""
    flipped: int
    decided: int
    """Paired cases decided in both runs: the rate's denominator."""
    undecided: int
    """Paired cases an error (or, for a check, not computing it) left out of the rate."""
    alpha: float | None = None
    """Krippendorff's alpha of the two runs over the decided cases (`evaldsl.report.alpha`):
    agreement beyond chance; None when every decided case has one and the same value."""

    @property
    def rate(self) -> float | None:
        """The share of decided cases that flipped; None when no case was decided."""
        return self.flipped / self.decided if self.decided else None


def verdict_flips(plan: ReportPlan, rows: Rows, base: Columns, new: Columns) -> Flips | None:
    """Cases whose verdict label differs between the runs, among those whose verdict is
    a label (not `error`) in both; None for a spec without an outcome block."""
    found = verdict_block(plan)
    if found is None:
        return None
    block, labels = found
    j = [key for key, _labels in plan.blocks].index(block)
    b, n = base.labels[rows[0], j], new.labels[rows[1], j]
    decided = (b < len(labels)) & (n < len(labels))
    return _flips(block, b, n, decided, "ordinal")


def check_flips(plan: ReportPlan, rows: Rows, base: Columns, new: Columns) -> list[Flips]:
    """Per check, cases that passed in one run and failed in the other, among those the
    check passed or failed in both."""
    b, n = base.checks[rows[0]], new.checks[rows[1]]
    decided = _decided(b) & _decided(n)
    return [_flips(name, b[:, i], n[:, i], decided[:, i], "nominal")
            for i, name in enumerate(plan.checks)]


def _decided(statuses: npt.NDArray[Any]) -> npt.NDArray[Any]:
    decided: npt.NDArray[Any] = (statuses == PASSED) | (statuses == FAILED)
    return decided


def _flips(name: str, base: npt.NDArray[Any], new: npt.NDArray[Any],
           decided: npt.NDArray[Any], level: Level) -> Flips:
    """The flips of one column pair; a verdict's labels are ordinal (branches are written
    best first), a check's pass and fail nominal."""
    count = int(decided.sum())
    return Flips(name, int(((base != new) & decided).sum()), count, int(decided.size) - count,
                 alpha_of_coincidences(pair_coincidences(base[decided], new[decided]), level))


def pair_coincidences(base: npt.NDArray[Any], new: npt.NDArray[Any]
                      ) -> dict[tuple[Hashable, Hashable], float]:
    """o_ck of two runs over the same cases, whose values are small whole numbers (label
    or status indexes): each case gives (b, n) and (n, b), weight 1. Counted by numpy,
    since a million cases as Python pairs cost seconds and a hundred MiB."""
    if base.size == 0:
        return {}
    size = int(max(base.max(), new.max())) + 1
    counts = np.bincount(base.astype(np.int64) * size + new, minlength=size * size)
    out: dict[tuple[Hashable, Hashable], float] = {}
    for code in np.flatnonzero(counts).tolist():
        c, k = divmod(code, size)
        out[(c, k)] = out.get((c, k), 0.0) + float(counts[code])
        out[(k, c)] = out.get((k, c), 0.0) + float(counts[code])
    return out
