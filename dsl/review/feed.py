"""The watch's review seam filled by a review store: flagged sessions queued as they arrive.

`evaldsl watch --review STORE` hands each session the review block draws (or a
per-case alert fires on) to `StoreFeed.submit`, which queues it with its dialog
and the machine's judgement, so reviewers label live traffic on the same page
and `evaldsl calibrate` reads the same store. A session already queued is left
as it is: after a restart the monitor may hand it on again, and its labels, its
place in the queue and its first judgement stay.
"""

from __future__ import annotations

from typing import Any

from evaldsl.review.importing import machine_view, message_view, store_meta
from evaldsl.review.store import QueuedCase, ReviewStore
from evaldsl.watch.review_feed import Flagged


class StoreFeed:
    """A `ReviewFeed` that queues flagged sessions in `store`, in arrival order."""

    def __init__(self, store: ReviewStore, spec: Any) -> None:
        self.store = store
        self.meta = store_meta(spec.layout)
        self._next = len(store.queue())

    def submit(self, flagged: Flagged) -> None:
        if self.store.case(flagged.case_id) is not None:
            return
        dialog = [message_view(m) for m in flagged.case.messages]
        case = QueuedCase(flagged.case_id, self._next, None, ", ".join(flagged.reasons),
                          machine_view(flagged.record), dialog)
        self._next += self.store.add_cases([case], self.meta)

    def close(self) -> None:
        self.store.close()

