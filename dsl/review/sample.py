"""The review sample of a run: the cases the spec's `review` block drew, read from its journal.

The spec's `review` block decides, per case, whether it is drawn and with which
priority (deterministic in seed and case id; the decision is in every results
line). `sample_rows` collects the drawn cases, highest priority first (ties by
id), as the rows `evaldsl review` writes to a file and `import_results` queues
in a store; `checked_records` reads every case line of a journal checked for
shape, and `check_written_by` refuses results another spec wrote, for every
reader of a run's results beside the spec (the review loop and calibration).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaldsl.analysis.sample_file import HUMAN_COLUMNS
from evaldsl.errors import RequestError, SpecError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord, ReviewLine
from evaldsl.report.journal import recover
from evaldsl.report.journal_read import check_version, read_entries
from evaldsl.report.layout import SpecLayout, layout_of
from evaldsl.syntax.source import Source


def read_layout(path: Path) -> SpecLayout:
    """The layout of the spec a reader of results names beside them (`--spec`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(
            [], _("cannot read spec `{path}`: {exc}").format(path=path, exc=exc)
        ) from exc
    layout = layout_of(Source(text, str(path)), str(path))
    if layout.title is None and not layout.blocks and not layout.checks:
        raise SpecError([], _("`{path}` does not look like a spec").format(path=path))
    return layout


def sample_rows(results: Path, layout: SpecLayout) -> list[dict[str, Any]]:
    """The drawn cases of a results file, highest priority first, then by id."""
    check_written_by(results, layout)
    records = checked_records(results)
    rows = [_row(record, record.review, layout) for record in records
            if record.review is not None and record.review.sampled]
    if not rows and not any(record.review is not None for record in records):
        raise RequestError(
            _("`{results}` holds no review decisions: does the spec have a `review` block?").format(
                results=results
            )
        )
    rows.sort(key=lambda r: (-(r["priority"] if r["priority"] is not None else -1e300), r["id"]))
    return rows


def check_written_by(results: Path, layout: SpecLayout) -> None:
    """Refuse results of another spec: their labels, checks and review rules differ."""
    header = recover(results).header
    if header is not None and header.spec_hash != layout.hash:
        raise RequestError(
            _(
                "`{results}` was written by another spec (hash {spec_hash}, `{path}` is {hash})"
            ).format(
                results=results,
                spec_hash=header.spec_hash[:12],
                path=layout.path,
                hash=layout.hash[:12],
            )
        )


def checked_records(results: Path) -> list[CaseRecord]:
    """Every case line of a run's journal, each checked for shape as `merge` checks it.

    A line of the wrong shape, or a second, different result for one row, is a
    data error naming the file and line (`evaldsl.report.journal_read`): a
    review sample or a calibration built on it would otherwise be wrong, or
    end in a traceback.
    """
    check_version(results, recover(results).header)
    return [entry.record for entry in read_entries(results)]


def attach_dialogs(rows: list[dict[str, Any]], files: Iterable[Path]) -> None:
    """Copy each drawn case's dialog (roles and texts) from the case files into its row."""
    from evaldsl.cases.bad_rows import BadRow
    from evaldsl.cases.loading import read_cases

    wanted = {r["id"]: r for r in rows}
    for item in read_cases(list(files), on_bad_row="skip"):
        if not isinstance(item, BadRow) and item.id in wanted:
            wanted[item.id]["dialog"] = [{"role": m.role, "content": m.content}
                                         for m in item.messages]


def _row(record: CaseRecord, review: ReviewLine, layout: SpecLayout) -> dict[str, Any]:
    """A drawn case as a row of the sample (its own columns, not the results line's)."""
    checks = {name: r.get("score") for name, r in record.checks.items()
              if isinstance(r.get("score"), (int, float))}
    return {
        "id": record.id, "priority": _rounded(review.priority),
        "rule": _rule_text(layout, review.rule), "labels": dict(record.labels),
        "scores": checks, "dialog": None, **dict.fromkeys(HUMAN_COLUMNS, ""),
    }


def _rounded(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def _rule_text(layout: SpecLayout, index: Any) -> str | None:
    if isinstance(index, int) and 0 <= index < len(layout.review_rules):
        return layout.review_rules[index]
    return None
