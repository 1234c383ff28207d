"""The review loop's human side: a store of labels, the page reviewers use, and its API.

`open_store(path)` opens (or creates) a review store; `import_results(store,
results, spec, case_files)` queues a run's review sample in it; reviewers save
`Label`s through the page (`evaldsl.review.web.make_app`, `evaldsl review
serve`) or `ReviewStore.save_label`; `ReviewStore.labels()` exports them and
`evaldsl calibrate` reads a store as it reads a filled-in sample
(`read_store_labels`). docs/review.md describes the loop.
"""

from __future__ import annotations

from evaldsl.review.importing import import_results
from evaldsl.review.label_rows import read_store_labels
from evaldsl.review.reviewer_agreement import Opinion, ReviewerAgreement, reviewer_agreement
from evaldsl.review.store import Label, QueuedCase, ReviewStore, is_store, open_store

__all__ = [
    "Label",
    "Opinion",
    "QueuedCase",
    "ReviewStore",
    "ReviewerAgreement",
    "import_results",
    "is_store",
    "open_store",
    "read_store_labels",
    "reviewer_agreement",
]
