"""Every case of a run as a compact record, for the HTML report's case explorer.

report.json holds aggregates only; the explorer needs each case: its labels,
each check's status, value and reason, its lets, its review draw. `Explorer`
collects them from the case records (journal lines) as a run streams them, a
resumed run reads them back or `merge` folds journals: it is a sink like the
JUnit writer, and in a run with workers each worker renders its cases
(`CaseEntries`) and the explorer only appends them. Each case is kept as its
JSON text, every text in it clipped (`clip`, with a visible `…`), so memory
grows by a bounded amount per case, and escaped for the page (`page_json`), which
embeds the texts as they are.

A record's shape, keys kept short because a page may hold 50,000 of them::

    {"id": "c1", "row": "cases.jsonl:3",
     "l": ["success"],                  # label per outcome block, in layout order
     "b": [0],                          # branch index per block, or the error's reason
     "e": ["judge timed out"],          # distinct error reasons (none: an empty list)
     "x": false,                        # no result at all (`failures.errored`)
     "c": [["passed", 1.0, "1.0", "", {}], ["not_needed"], null],  # per layout check
     "v": {"score": 85.0},              # the per-case lets
     "r": [37.5, 0] | null}             # review: priority and rule, when sampled

Dialogs and case fields are not in journal lines; `evaldsl.report.explorer_cases`
reads them back from the case files by row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from evaldsl.record import CaseRecord
from evaldsl.report.failures import errored, reasons_of
from evaldsl.report.layout import SpecLayout

TEXT_LIMIT = 1000
"""Characters kept of a reason, a value or a field; longer ones end in `…`."""
NAME_LIMIT = 200
"""Characters kept of an id or a let's text value."""
_BASE = ("status", "passed", "score", "value", "reason")
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                           default=str).encode


def page_json(value: Any) -> str:
    """`value` as JSON text a `<script type="application/json">` element can hold whatever
    it says: every `<` written `\\u003c` (it only occurs inside JSON strings, where the escape
    reads back the same), so no text can close the element or open a comment. Done per case,
    so a page of 50,000 cases is never copied whole to escape it.

    >>> page_json(["</script>"])
    '["\\\\u003c/script>"]'
    """
    return _ENCODE(value).replace("<", "\\u003c")


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text` cut to `limit` characters, the cut marked.

    >>> clip("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(value: Any, limit: int = TEXT_LIMIT) -> Any:
    """A JSON value as the explorer keeps it: small ones as they are, a long text clipped,
    a large structure as its clipped JSON text."""
    if isinstance(value, str):
        return clip(value, limit)
    if value is None or isinstance(value, (bool, int, float)):
        return value if not isinstance(value, float) or value == value else None
    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= limit else clip(text, limit)


def case_entry(record: CaseRecord, layout: SpecLayout) -> dict[str, Any]:
    """One case record (a journal line) as the explorer's compact record."""
    labels, branches, errors, review = record.labels, record.branches, record.errors, record.review
    return {
        "id": clip(record.id, NAME_LIMIT), "row": record.row or None,
        "l": [labels.get(b.key) for b in layout.blocks],
        "b": [_branch(branches.get(b.key), errors.get(b.key)) for b in layout.blocks],
        "e": sorted(clip(r) for r in reasons_of(record)),
        "x": errored(record),
        "c": _checks(record, layout),
        "v": {str(k): shown(v, NAME_LIMIT) for k, v in record.lets.items()},
        "r": [review.priority, review.rule] if review is not None and review.sampled else None,
    }


def _branch(index: Any, reason: Any) -> int | str | None:
    if isinstance(index, int):
        return index
    return clip(str(reason)) if reason else None


def _checks(record: CaseRecord, layout: SpecLayout) -> list[list[Any] | None]:
    checks, skipped = record.checks, set(record.skipped)
    return [_check(checks[name]) if name in checks
            else (["not_needed"] if name in skipped else None)
            for name in layout.checks]


def _check(result: Mapping[str, Any]) -> list[Any]:
    """[status, score, value, reason, other fields]; an error's value is its reason alone."""
    status = str(result.get("status", "error"))
    score = result.get("score")
    value = None if status == "error" else shown(result.get("value"))
    fields = {k: shown(v) for k, v in result.items() if k not in _BASE}
    return [status, score if _is_number(score) else None, value,
            clip(str(result.get("reason") or "")), fields]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


class Entry(NamedTuple):
    """One case rendered: its JSON text and what the page's charts count."""

    text: str
    id: str
    """The case id as the record holds it (clipped), to tell a case file that changed."""
    row: str
    reached: int
    """How many outcome blocks, in layout order, the case passed with their first label."""
    numbers: dict[str, float]
    """Its numeric lets, for the score histograms."""
    priority: float | None
    """Its review priority when the review sample drew it, else None."""


@dataclass(frozen=True)
class CaseEntries:
    """Renders case records as `Entry`s where they are evaluated (a worker, or the parent)."""

    layout: SpecLayout

    def render(self, record: CaseRecord) -> Entry:
        entry = case_entry(record, self.layout)
        firsts = [b.labels[0] if b.labels else None for b in self.layout.blocks]
        reached = 0
        for label, first in zip(entry["l"], firsts, strict=True):
            if label != first:
                break
            reached += 1
        numbers = {k: float(v) for k, v in entry["v"].items() if _is_number(v)}
        review = entry["r"]
        priority = None if review is None else float(review[0]) if _is_number(review[0]) else 0.0
        return Entry(page_json(entry), entry["id"], str(entry["row"] or entry["id"]), reached,
                     numbers, priority)

    @staticmethod
    def join(rendered: Sequence[Entry]) -> list[Entry]:
        return list(rendered)


def _row_order(entry: Entry) -> tuple[str, int, str]:
    """`cases.jsonl:12` as (`cases.jsonl`, 12); a row without a line number sorts by text."""
    path, _colon, line = entry.row.rpartition(":")
    return (path, int(line), "") if line.isdigit() else (entry.row, -1, entry.id)


class Explorer:
    """Every case of a run as `Entry`s, in the order they came until `in_input_order`; a
    sink of the run."""

    def __init__(self, layout: SpecLayout, inputs: Sequence[str] = (),
                 transcripts: str | None = None, reader: Any = None) -> None:
        self.layout = layout
        self.inputs = tuple(inputs)
        """The case files the rows name, read back for dialogs when the page is written."""
        self.transcripts = transcripts
        """A driven run's transcripts file: the dialogs as they were driven."""
        self.reader = reader
        """How `inputs` are read as cases, when not as case files (a driven run's scenarios:
        `explorer_cases.Reader`)."""
        self.entries: list[Entry] = []
        self._cases = CaseEntries(layout)

    def add(self, record: CaseRecord) -> None:
        self.entries.append(self._cases.render(record))

    def renderer(self) -> CaseEntries:
        """What renders cases where they are evaluated; see `add_rendered`."""
        return self._cases

    def add_rendered(self, part: Sequence[Entry]) -> None:
        self.entries.extend(part)

    def in_input_order(self) -> None:
        """Sort the cases by their input row (file, then line): a judged run finishes cases
        in whatever order the judge answers, and the page must not depend on it."""
        self.entries.sort(key=_row_order)

    def funnel(self) -> list[int]:
        """Cases that reach each outcome block with its first label, every block before it
        included: intent, then completion, then success."""
        counts = [0] * len(self.layout.blocks)
        for entry in self.entries:
            for depth in range(entry.reached):
                counts[depth] += 1
        return counts

    def scores(self) -> dict[str, list[float]]:
        """Each numeric let's values over the cases that computed it, for histograms."""
        out: dict[str, list[float]] = {}
        for entry in self.entries:
            for name, value in entry.numbers.items():
                out.setdefault(name, []).append(value)
        return out

    def review_sample(self) -> list[tuple[float, int]]:
        """(priority, case index) of every case the review drew, highest priority first."""
        drawn = [(e.priority, i) for i, e in enumerate(self.entries) if e.priority is not None]
        return sorted(drawn, key=lambda t: (-t[0], t[1]))
