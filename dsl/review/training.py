"""Disagreements as training data: every labelled case the machine misjudged by more than the
threshold, with what both sides said, for the next update of the scoring.

The monitoring loop sends a sample to people; where a person's score and the
machine's differ by more than the threshold (20 points by default), the case
is a lesson: its dialog, both judgements and the reviewer's note go into the
training set file, one JSON object per line. Cases within the threshold are
counted, not written: they confirm the scoring and teach it nothing new.
A case labelled by two reviewers is two human judgements and may give two
lines, each with its reviewer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.analysis.calibrate import Judged
from evaldsl.analysis.sample_file import LabelRow
from evaldsl.atomic import replace_file
from evaldsl.i18n import _


@dataclass(frozen=True)
class TrainingSet:
    """The lessons of a calibration, and how many judged cases were only recorded."""

    lessons: list[dict[str, Any]]
    within: int
    """Judgements with both scores, within the threshold: recorded, not written."""
    unscored: int
    """Judgements without both scores: no deviation to measure."""
    threshold: float

    def to_dict(self, path: Path) -> dict[str, Any]:
        return {"path": str(path), "written": len(self.lessons), "within": self.within,
                "unscored": self.unscored, "threshold": self.threshold}


def training_set(judged: list[Judged], rows: list[LabelRow], threshold: float) -> TrainingSet:
    """Split the judged cases (each with the sample row it came from) at the threshold."""
    lessons, within, unscored = [], 0, 0
    for case, row in zip(judged, rows, strict=True):
        if case.auto_score is None or case.human_score is None:
            unscored += 1
        elif abs(case.auto_score - case.human_score) > threshold:
            lessons.append(lesson(case, row))
        else:
            within += 1
    lessons.sort(key=lambda x: (-abs(x["deviation"]), x["id"]))
    return TrainingSet(lessons, within, unscored, threshold)


def lesson(case: Judged, row: LabelRow) -> dict[str, Any]:
    """One line of the training set: the dialog, both judgements and the note."""
    assert case.auto_score is not None and case.human_score is not None
    return {"id": case.id, "deviation": case.auto_score - case.human_score,
            "dialog": row.values.get("dialog") or None,
            "automatic": {"label": case.auto_label, "score": case.auto_score},
            "human": {"label": case.human_label, "score": case.human_score,
                      "reviewer": row.values.get("reviewer") or None},
            "note": str(row.values.get("note") or "")}


def write_training(found: TrainingSet, path: Path) -> None:
    """The training set file, replaced whole so a reader never sees half of it."""
    replace_file(path, [json.dumps(x, ensure_ascii=False) + "\n" for x in found.lessons])


def render_training(found: TrainingSet, path: Path) -> list[str]:
    return [_("training set: {written} judgements more than {threshold:g} points apart -> "
              "{path}; {within} within the threshold recorded only, {unscored} without "
              "both scores").format(written=len(found.lessons), threshold=found.threshold,
                                    path=path, within=found.within, unscored=found.unscored)]
