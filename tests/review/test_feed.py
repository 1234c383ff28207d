"""The watch's flagged sessions queued in a review store as they arrive, once each, with
their dialog and the machine's judgement; labels saved meanwhile survive a restart."""

from __future__ import annotations

from pathlib import Path

from evaldsl.api import loads
from evaldsl.review.feed import StoreFeed
from evaldsl.review.store import Label, open_store
from evaldsl.watch.monitor import Monitor
from tests.watch.test_monitor import SPEC, T0, Collect, feed, row


def watched(state: Path, store: Path) -> Monitor:
    spec = loads(SPEC)
    return Monitor(spec, state, [Collect()], StoreFeed(open_store(store), spec))


def test_flagged_sessions_are_queued_with_dialog_and_judgement(tmp_path: Path) -> None:
    m = watched(tmp_path / "state", tmp_path / "review.db")
    try:
        feed(m, [(row(1), T0), (row(2, poor=True), T0), (row(3, poor=True), T0 + 1)])
    finally:
        m.close()
    with open_store(tmp_path / "review.db") as store:
        queue = store.queue()
        assert [(c.id, c.rule) for c in queue] == [("s2", "review, alert:poor_case"),
                                                   ("s3", "review, alert:poor_case")]
        assert queue[0].machine["labels"] == {"outcome": "poor"}
        assert queue[0].dialog is not None and queue[0].dialog[0]["content"] == "hi"
        assert store.levels() == ["good", "poor"] and store.meta()["block"] == "outcome"


def test_a_restart_keeps_one_copy_and_the_labels(tmp_path: Path) -> None:
    state, db = tmp_path / "state", tmp_path / "review.db"
    m = watched(state, db)
    try:
        feed(m, [(row(2, poor=True), T0)])
    finally:
        m.close()
    with open_store(db) as store:
        store.save_label(Label("s2", "ann", 20.0, "poor"))
    m = watched(state, db)
    try:
        feed(m, [(row(2, poor=True), T0), (row(4, poor=True), T0 + 2)])
    finally:
        m.close()
    with open_store(db) as store:
        assert [c.id for c in store.queue()] == ["s2", "s4"]
        assert [(x.case_id, x.level) for x in store.labels()] == [("s2", "poor")]
