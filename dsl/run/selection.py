"""Which input rows a run judges: `--where`, `--ids FILE` and `--sample N --seed S`.

The selection is decided before a case is judged, so a row it leaves out
costs nothing, is in no denominator, and is counted with its reason in the
report (`cases.left_out`, `cases.left_out_reasons`, and with `--ids` the
`cases.ids_not_found` that no input row had). A case whose `--where`
is an error (a field it reads is missing) is a data problem: it is left out
too, but under its own reason, never silently.

The three filters combine with `and`. The sample is drawn from the cases the
other two keep: each distinct id gets the key sha256 of `"{seed}:{id}"`, and
the N ids with the smallest keys are kept (every row with such an id). A key
depends on the seed and the id alone, so the same seed draws the same sample
whatever the order of the files, and a larger N keeps every case a smaller
one kept.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from evaldsl.cases.case import Case
from evaldsl.errors import CaseDataError
from evaldsl.i18n import _
from evaldsl.report.document import Cases, ReasonCount
from evaldsl.run.where import Where

REASONS_LISTED = 10
"""Distinct reasons for leaving rows out the report lists; all rows are counted."""


def sample_key(seed: int, case_id: str) -> str:
    """The key an id is drawn by: the smallest keys are the sample.

    >>> sample_key(7, "a") == sample_key(7, "a") != sample_key(8, "a")
    True
    """
    return hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest()


def draw(ids: Iterable[str], size: int, seed: int) -> frozenset[str]:
    """The `size` distinct ids with the smallest keys under `seed`."""
    return frozenset(heapq.nsmallest(size, set(ids), key=lambda i: sample_key(seed, i)))


def read_ids(path: Path) -> frozenset[str]:
    """`--ids FILE`: one id per line; blank lines and `#` comments are ignored."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CaseDataError(str(path), 1, _("an ids file must be UTF-8 text")) from exc
    ids = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return frozenset(i for i in ids if i)


class Selection(msgspec.Struct, frozen=True):
    """The filters of one run; `None` for a filter not given."""

    where: Where | None = None
    ids: frozenset[str] | None = None
    sample: int | None = None
    """`--sample N`: how many ids to draw."""
    seed: int = 0
    drawn: frozenset[str] | None = None
    """The ids the sample drew (`with_sample`), once the input has been read for it."""

    def keeps(self, case: Case) -> str | None:
        """None when the case is judged, else why it is left out."""
        if self.ids is not None and case.id not in self.ids:
            return _("not in --ids")
        if self.where is not None:
            held = self.where.held(case)
            if held.error is not None:
                return _("--where is an error: {error}").format(error=held.error)
            if not held.held:
                return _("--where does not hold")
        if self.drawn is not None and case.id not in self.drawn:
            return _("not in the sample")
        return None

    def with_sample(self, cases: Iterable[Case]) -> Selection:
        """This selection with its sample drawn from the cases the other filters keep."""
        if self.sample is None:
            return self
        kept = (c.id for c in cases if self.keeps(c) is None)
        return Selection(self.where, self.ids, self.sample, self.seed,
                         draw(kept, self.sample, self.seed))

    def describe(self) -> dict[str, Any]:
        """The selection as the journal's header records it: a resumed run must make the same
        (the ids by digest, so the header stays one short line)."""
        out: dict[str, Any] = {}
        if self.where is not None:
            out["where"] = self.where.text
        if self.ids is not None:
            digest = hashlib.sha256("\n".join(sorted(self.ids)).encode()).hexdigest()
            out["ids"] = f"sha256:{digest}"
        if self.sample is not None:
            out.update(sample=self.sample, seed=self.seed)
        return out


class LeftOut(msgspec.Struct):
    """The rows a selection left out, counted by reason, and the `--ids` the input had."""

    selection: Selection
    reasons: Counter[str] = msgspec.field(default_factory=Counter)
    found: set[str] = msgspec.field(default_factory=set)

    def leaves_out(self, case: Case) -> bool:
        ids = self.selection.ids
        if ids is not None and case.id in ids:
            self.found.add(case.id)
        reason = self.selection.keeps(case)
        if reason is not None:
            self.reasons[reason] += 1
        return reason is not None

    def missing_ids(self) -> int:
        """How many `--ids` no input row had."""
        ids = self.selection.ids
        return 0 if ids is None else len(ids - self.found)

    def count_in(self, cases: Cases) -> None:
        """`left_out`, `left_out_reasons` (and `ids_not_found` with `--ids`) set in the
        report's `cases` section."""
        cases.left_out = sum(self.reasons.values())
        cases.left_out_reasons = [ReasonCount(reason=r, count=c)
                                  for r, c in self.reasons.most_common(REASONS_LISTED)]
        if self.selection.ids is not None:
            cases.ids_not_found = self.missing_ids()
