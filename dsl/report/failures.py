"""Why cases errored, counted: which cases got no result at all, and the reasons most often met.

A run must never fail silently: a summary that shows only rates hides a
judge that answered nothing, so the report counts the cases that errored and
how often each reason came up. A case contributes each of its reasons once,
and a reason is counted without the parts that differ from case to case (a
malformed answer's raw text, the number of attempts), so that one cause is one
line. The counts merge by addition, like the rest of the report.
"""

from __future__ import annotations

from collections import Counter

from evaldsl.record import CaseRecord
from evaldsl.report.document import ReasonCount

ERROR_LABEL = "error"
"""The label of an outcome block whose decision depended on an error (`results.ERROR_LABEL`)."""

REASONS_SHOWN = 5
"""How many of the most frequent reasons the report and the summary list."""
REASONS_KEPT = 200
"""Distinct reasons tracked; any further ones are counted under `OTHER`."""
OTHER = "other reasons"
_VARYING = ("; raw answer: ", "; raw: ", " (gave up after ")


def reason_key(reason: str) -> str:
    """`reason` without what varies from case to case.

    >>> reason_key("not JSON (after one repair request); raw answer: {oops")
    'not JSON (after one repair request)'
    """
    for marker in _VARYING:
        reason = reason.split(marker, 1)[0]
    return " ".join(reason.split()) or "no reason given"


def errored(record: CaseRecord) -> bool:
    """Whether a case record got no result: every outcome block is `error` or, in a spec
    without outcome blocks, every check computed for it is an error."""
    if record.labels:
        return all(label == "error" for label in record.labels.values())
    checks = record.checks
    return bool(checks) and all(r.get("status") == "error" for r in checks.values())


def reasons_of(record: CaseRecord) -> set[str]:
    """The distinct reasons of a case's errored checks and blocks."""
    found = {reason_key(str(r.get("reason") or "")) for r in record.checks.values()
             if r.get("status") == "error"}
    found.update(reason_key(str(why)) for why in record.errors.values())
    return found


class ErrorTally:
    """Cases that errored and the reasons met, folded one record at a time; merges."""

    def __init__(self) -> None:
        self.errored = 0
        self.reasons: Counter[str] = Counter()

    def add(self, record: CaseRecord, decided: bool = False) -> None:
        """Count a case record; `decided`: its checks are known to hold no error (the
        caller saw every one decided), so they are not read again."""
        if not record.errors and ERROR_LABEL not in record.labels.values():
            if decided:
                return
            for r in record.checks.values():  # a loop, not `any` over a generator: every case
                if r.get("status") == "error":
                    break
            else:
                return  # the common case: nothing errored, so no reason and not errored
        self.errored += errored(record)
        for reason in reasons_of(record):
            key = reason if reason in self.reasons or len(self.reasons) < REASONS_KEPT else OTHER
            self.reasons[key] += 1

    def merge(self, other: ErrorTally) -> ErrorTally:
        out = ErrorTally()
        out.errored = self.errored + other.errored
        out.reasons = self.reasons + other.reasons
        return out

    def top(self, count: int = REASONS_SHOWN) -> list[ReasonCount]:
        """The most frequent reasons, most frequent first (ties in the order of the text)."""
        ranked = sorted(self.reasons.items(), key=lambda item: (-item[1], item[0]))
        return [ReasonCount(reason=reason, count=n) for reason, n in ranked[:count]]
