"""The machine's side of a calibration: each case's label in one outcome block and its score.

`read_results` reads a run's results.jsonl (every line checked for shape,
`evaldsl.review.sample.checked_records`) into the automatic judgement of each
case: its label in the outcome block compared (the one named, else the verdict
block, else the first) and, when a check or metric is named, its score in
points 0-100. With the spec, the labels a reviewer may give are the block's
own, and results another spec wrote are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import rescale
from evaldsl.analysis.pairing import Automatic
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import RequestError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord
from evaldsl.report.layout import VERDICT
from evaldsl.review.sample import check_written_by, checked_records, read_layout


@dataclass
class Results:
    """What calibration needs of a results file."""

    cases: dict[str, Automatic]
    block: str | None
    """The outcome block compared; None when the results have none."""
    labels: tuple[str, ...]
    """The labels a reviewer may give: the spec's for the block, or those some case has."""
    from_spec: bool


def read_results(results: Path, spec: Path | None = None, outcome: str | None = None,
                 score: str | None = None,
                 auto_scale: tuple[float, float] | None = None) -> Results:
    """The automatic judgement of every case of `results`, in the block `outcome` names (or
    the verdict), with the score of the check or metric `score` on `auto_scale` (checks
    0-1, metrics 0-100 by default) in points."""
    records = checked_records(results)
    if not records:
        raise RequestError(_("`{results}` holds no case results").format(results=results))
    blocks = list(dict.fromkeys(k for r in records for k in r.labels))
    block = choose_block(results, outcome, blocks)
    cases = {r.id: Automatic(r.labels.get(block) if block is not None else None,
                             auto_score(r, score, auto_scale))
             for r in records}
    seen = tuple(sorted({a.label for a in cases.values() if a.label is not None}))
    if spec is None:
        return Results(cases, block, seen, False)
    layout = read_layout(spec)
    check_written_by(results, layout)
    spec_labels = next((b.labels for b in layout.blocks if b.key == block), seen)
    return Results(cases, block, spec_labels, True)


def choose_block(results: Path, outcome: str | None, blocks: Sequence[str]) -> str | None:
    """The block compared: `outcome`, which some case must have, else the verdict block,
    else the first."""
    if outcome is None:
        return VERDICT if VERDICT in blocks else next(iter(blocks), None)
    if outcome not in blocks:
        have = ", ".join(f"`{b}`" for b in blocks) or "none"
        raise RequestError(
            _("the results `{results}` have no outcome block `{outcome}`; they have {have}").format(
                results=results, outcome=outcome, have=have
            ),
            did_you_mean(outcome, blocks),
        )
    return str(outcome)


def auto_score(record: CaseRecord, name: str | None,
               auto_scale: tuple[float, float] | None) -> float | None:
    """The case's score in points from the check or metric `name`; None without one."""
    if name is None:
        return None
    check = record.checks.get(name)
    if check is not None or name in record.skipped:
        return points(check.get("score") if check else None, auto_scale or (0.0, 1.0))
    if name in record.metrics:
        inputs = record.metrics[name]
        value = inputs[0] if isinstance(inputs, list) and inputs else None
        return points(value, auto_scale or (0.0, 100.0))
    raise RequestError(
        _("`{name}` is neither a check nor a metric of these results").format(name=name)
    )


def points(value: Any, scale: tuple[float, float]) -> float | None:
    """A number on `scale` in points 0-100; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return rescale(float(value), *scale)
