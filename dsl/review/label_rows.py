"""The labels of a review store as the rows of a filled-in sample, for `evaldsl calibrate`.

Calibration reads a CSV or JSONL sample as `LabelRow`s (`evaldsl.analysis.
sample_file`); a store gives the same rows, one per saved label (a skip is no
judgement and gives none), so pairing, the checks on every value and the
figures are the same code whatever the reviewers used. A row's `line` is the
label's number in the store, the number a problem names. Each row also carries
the reviewer, the note and the dialog, for the training set. A label is for one
outcome block: calibration over a block reads that block's labels only.
"""

from __future__ import annotations

from pathlib import Path

from evaldsl.analysis.calibrate import rescale
from evaldsl.analysis.sample_file import LabelFile, LabelRow, read_labels
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import CaseDataError
from evaldsl.review.reviewer_agreement import Opinion
from evaldsl.review.store import Label, is_store, open_store, unknown_block

STORE_ENCODING = "SQLite"


def read_any_labels(path: Path, block: str | None = None) -> LabelFile:
    """A review store's labels for `block`, or a CSV or JSONL sample's rows: whichever
    `path` holds."""
    return read_store_labels(path, block) if is_store(path) else read_labels(path)


def read_store_labels(path: Path, block: str | None = None) -> LabelFile:
    """Every judgement saved in the store at `path` for the outcome block `block` (the
    store's default block when None), as sample rows.

    A block the store knows no labels for is a `CaseDataError` naming the blocks it has:
    calibrating another block's labels against this one would be wrong.
    """
    with open_store(path) as store:
        blocks = store.blocks()
        chosen = block if block is not None else str(store.meta().get("block") or "")
        if block is not None and blocks and block not in blocks:
            raise CaseDataError(str(path), 1, unknown_block(block, blocks),
                                hint=did_you_mean(block, blocks))
        dialogs = {case.id: case.dialog for case in store.queue()}
        rows = [LabelRow(label.number, _values(label, dialogs.get(label.case_id)))
                for label in store.labels(block=chosen) if not label.skipped]
    return LabelFile(path, STORE_ENCODING, rows)


def _values(label: Label, dialog: object) -> dict[str, object]:
    return {"id": label.case_id, "reviewer": label.reviewer,
            "label": label.level or "", "score": "" if label.score is None else label.score,
            "note": label.note, "dialog": dialog}


def opinions(sample: LabelFile, label_column: str = "label", score_column: str = "score",
             scale: tuple[float, float] = (0.0, 100.0)) -> list[Opinion]:
    """The rows of a sample that name a reviewer, for reviewer-to-reviewer agreement.

    A CSV or JSONL sample with a `reviewer` column counts as well as a store.
    Scores are rescaled from `scale` to points; values that are not numbers are
    left out here (pairing reports them).
    """
    out = []
    for row in sample.rows:
        reviewer = str(row.values.get("reviewer") or "").strip()
        case_id = str(row.values.get("id") or "").strip()
        if reviewer and case_id:
            level = str(row.values.get(label_column) or "").strip() or None
            number = _number(row.values.get(score_column))
            score = None if number is None else rescale(number, *scale)
            out.append(Opinion(case_id, reviewer, score, level))
    return out


def _number(value: object) -> float | None:
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
