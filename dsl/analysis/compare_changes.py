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

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaldsl.results import ERROR_LABEL, VERDICT, ReportPlan

SKIPPED = "skipped"
"""The status of a check a case did not compute."""


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


def transitions(plan: ReportPlan, ids: Sequence[str], base: Mapping[str, dict[str, Any]],
                new: Mapping[str, dict[str, Any]]) -> list[Transitions]:
    """The transition table of every outcome block over the paired cases."""
    out = []
    for block, labels in plan.blocks:
        counts = Counter((_label(base[i], block), _label(new[i], block)) for i in ids)
        out.append(Transitions(block, (*labels, ERROR_LABEL), dict(counts)))
    return out


def verdict_block(plan: ReportPlan) -> tuple[str, tuple[str, ...]] | None:
    """The block whose label is the case's verdict: the unnamed one, else the first."""
    blocks = dict(plan.blocks)
    if VERDICT in blocks:
        return VERDICT, blocks[VERDICT]
    return plan.blocks[0] if plan.blocks else None


def changed_cases(plan: ReportPlan, ids: Sequence[str], base: Mapping[str, dict[str, Any]],
                  new: Mapping[str, dict[str, Any]]) -> list[ChangedCase]:
    """The paired cases whose verdict label changed, the largest drop first."""
    found = verdict_block(plan)
    if found is None:
        return []
    block, labels = found
    rank = {label: i for i, label in enumerate((*labels, ERROR_LABEL))}
    out = []
    for case_id in ids:
        b, n = _label(base[case_id], block), _label(new[case_id], block)
        if b != n:
            move = rank.get(n, len(rank)) - rank.get(b, len(rank))
            out.append(ChangedCase(case_id, b, n, move,
                                   _check_moves(plan, base[case_id], new[case_id])))
    return sorted(out, key=lambda c: (-c.move, c.id))


def _label(record: Mapping[str, Any], block: str) -> str:
    return str(record.get("labels", {}).get(block, ERROR_LABEL))


def _check_moves(plan: ReportPlan, base: Mapping[str, Any], new: Mapping[str, Any],
                 ) -> tuple[CheckMove, ...]:
    moves = []
    for name in plan.checks:
        b, n = _status(base, name), _status(new, name)
        if b != n:
            moves.append(CheckMove(name, b, n))
    return tuple(moves)


def _status(record: Mapping[str, Any], check: str) -> str:
    result = record.get("checks", {}).get(check)
    return str(result.get("status")) if isinstance(result, dict) else SKIPPED
