"""Pairing a filled-in review sample with a run's results, row by row.

Each row of the sample names a case by `id` and may carry a human label and a
human score. Pairing finds the case's automatic judgement and checks the human
one against what the spec allows, because a value outside it would be counted
silently otherwise: a label that is not one of the outcome block's labels
(a typo becomes a category of its own in the confusion table), a score
outside the human scale (it would be rescaled to, say, 150 points), a score
that is not a number, a row without an id. Those are errors, one per row.

The block's labels are certain when the spec is given; from results alone only
the labels some case received are known, and a human label outside those may
be right (no case was judged `failure`, a reviewer says one was), so it is a
doubt reported once per label, and counted.

Rows whose id names no case are left out and counted: all of them is the sign
of a sample from another run, which the caller turns into an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaldsl.analysis.calibrate import Judged, rescale
from evaldsl.analysis.sample_file import LabelFile, LabelRow
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import CaseDataError
from evaldsl.i18n import _


@dataclass(frozen=True, slots=True)
class Automatic:
    """What the spec said of one case."""

    label: str | None
    """The case's label in the compared outcome block."""
    score: float | None
    """The automatic score in points (0-100), or None without `--score`."""


@dataclass(frozen=True)
class HumanRules:
    """How to read the human side of a row, and what it may say."""

    labels: tuple[str, ...]
    """The labels a reviewer may give: the block's, or those the results show."""
    labels_certain: bool
    """True when `labels` come from the spec: one outside them is then an error."""
    block: str = "outcome"
    scale: tuple[float, float] = (0.0, 100.0)
    label_column: str | None = "label"
    """None when the results have no outcome block: labels are then not compared."""
    score_column: str = "score"


@dataclass(frozen=True)
class Doubt:
    """A human label the results never show, when the spec's labels are not known."""

    label: str
    lines: tuple[int, ...]


@dataclass
class Pairing:
    """The judged cases of a sample, and what was wrong or doubtful in its rows."""

    rows: int
    matched: int = 0
    """Rows whose id names a case, filled in or not."""
    judged: list[Judged] = field(default_factory=list)
    """Rows naming a case and carrying a human label or score, in file order."""
    sources: list[LabelRow] = field(default_factory=list)
    """The row each of `judged` was read from (its note, reviewer, dialog), in the same order."""
    unmatched: list[str] = field(default_factory=list)
    """Ids of rows naming no case, in file order."""
    errors: list[CaseDataError] = field(default_factory=list)
    doubts: list[Doubt] = field(default_factory=list)


def pair(sample: LabelFile, automatic: Mapping[str, Automatic], rules: HumanRules) -> Pairing:
    """Pair every row of `sample` with its case's automatic judgement."""
    out = Pairing(len(sample.rows))
    unseen: dict[str, list[int]] = {}
    for row in sample.rows:
        case_id = _text(row.values.get("id"))
        if case_id is None:
            out.errors.append(_error(sample, row, "id", _("the row has no id")))
        elif case_id not in automatic:
            out.unmatched.append(case_id)
        else:
            out.matched += 1
            judged = _judged(sample, row, case_id, automatic[case_id], rules, out.errors)
            if judged is not None:
                out.judged.append(judged)
                out.sources.append(row)
                if judged.human_label is not None and judged.human_label not in rules.labels:
                    unseen.setdefault(judged.human_label, []).append(row.line)
    out.doubts = [Doubt(label, tuple(lines)) for label, lines in unseen.items()]
    return out


def _judged(sample: LabelFile, row: LabelRow, case_id: str, auto: Automatic,
            rules: HumanRules, errors: list[CaseDataError]) -> Judged | None:
    """The row as a `Judged`, or None when it is empty or has an error (appended)."""
    found = len(errors)
    label = _label(sample, row, rules, errors)
    score = _score(sample, row, rules, errors)
    if len(errors) > found or (label is None and score is None):
        return None
    return Judged(case_id, auto.label, label, auto.score, score)


def _label(sample: LabelFile, row: LabelRow, rules: HumanRules,
           errors: list[CaseDataError]) -> str | None:
    label = _text(row.values.get(rules.label_column)) if rules.label_column else None
    if label is None or label in rules.labels or not rules.labels_certain:
        return label
    known = ", ".join(f"`{x}`" for x in rules.labels)
    errors.append(
        _error(
            sample,
            row,
            rules.label_column or "label",
            _(
                "the label `{label}` of case `{text}` is not one of "
                "the labels of `{block}`: {known}"
            ).format(label=label, text=_text(row.values.get("id")), block=rules.block, known=known),
            did_you_mean(label, rules.labels),
        )
    )
    return None


def _score(sample: LabelFile, row: LabelRow, rules: HumanRules,
           errors: list[CaseDataError]) -> float | None:
    """The human score in points (0-100), after checking it lies on the human scale."""
    value = row.values.get(rules.score_column)
    if _text(value) is None:
        return None
    low, high = rules.scale
    number = _number(value)
    case = _text(row.values.get("id"))
    if number is None:
        errors.append(
            _error(
                sample,
                row,
                rules.score_column,
                _("the score `{value}` of case `{case}` is not a number").format(
                    value=value, case=case
                ),
                _("write a number from {low:g} to {high:g}, or leave it empty").format(
                    low=low, high=high
                ),
            )
        )
    elif not low <= number <= high:
        errors.append(
            _error(
                sample,
                row,
                rules.score_column,
                _(
                    "the score `{value}` of case `{case}` is outside "
                    "the human scale {low:g}-{high:g}"
                ).format(value=value, case=case, low=low, high=high),
                _("give --human-scale LOW-HIGH when reviewers scored on another scale"),
            )
        )
    else:
        return rescale(number, low, high)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    """A cell as text, None when empty (a reviewer left it blank)."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _error(sample: LabelFile, row: LabelRow, column: str, reason: str,
           hint: str = "") -> CaseDataError:
    return CaseDataError(str(sample.path), row.line, reason, column, hint)
