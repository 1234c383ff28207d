"""The review store: labels saved, replaced, refused when wrong, kept through concurrent
writers and a killed process, and the queue imported from a run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import CaseDataError
from evaldsl.review.importing import import_results
from evaldsl.review.store import Label, QueuedCase, ReviewStore, is_store, open_store
from tests.support.run_kit import REPO

LEVELS = ["success", "partial", "failure"]


def _filled(path: Path, count: int = 5) -> ReviewStore:
    store = open_store(path)
    store.add_cases([QueuedCase(f"c{i}", i, 100.0 - i, "sample 10%", {"labels": {}}, None)
                     for i in range(count)], {"levels": LEVELS, "block": "outcome"})
    return store


class TestLabels:
    def test_a_saved_label_is_read_back_with_its_time_and_number(self, tmp_path: Path) -> None:
        with _filled(tmp_path / "s.db") as store:
            saved = store.save_label(Label("c1", "li", 80.0, "success", "好"))
            assert saved.number == 1 and saved.saved_at.endswith("+00:00")
            assert store.labels() == [saved]

    def test_saving_again_replaces_the_reviewers_label_only(self, tmp_path: Path) -> None:
        with _filled(tmp_path / "s.db") as store:
            store.save_label(Label("c1", "li", 80.0))
            store.save_label(Label("c1", "wang", 40.0))
            store.save_label(Label("c1", "li", 60.0, note="second look"))
            assert [(x.reviewer, x.score, x.note) for x in store.labels("c1")] == [
                ("li", 60.0, "second look"), ("wang", 40.0, "")]

    @pytest.mark.parametrize(("label", "message"), [
        (Label("c1", " ", 50.0), "a label needs a reviewer's name"),
        (Label("nope", "li", 50.0), "no case `nope` in the review queue"),
        (Label("c1", "li", 101.0), "the score 101 is outside 0-100 points"),
        (Label("c1", "li", None, "great"),
         "the level `great` is not one of `success`, `partial`, `failure`"),
        (Label("c1", "li"), "a label needs a score or a level, or is a skip"),
    ])
    def test_a_wrong_label_is_refused_with_the_reason(self, tmp_path: Path, label: Label,
                                                      message: str) -> None:
        with _filled(tmp_path / "s.db") as store, pytest.raises(ValueError) as refused:
            store.save_label(label)
        assert str(refused.value) == message
        with open_store(tmp_path / "s.db") as again:
            assert again.labels() == []

    def test_a_skip_needs_no_judgement(self, tmp_path: Path) -> None:
        with _filled(tmp_path / "s.db") as store:
            assert store.save_label(Label("c2", "li", skipped=True)).skipped


class TestQueue:
    def test_the_queue_is_in_priority_order_and_reimporting_keeps_labels(
            self, tmp_path: Path) -> None:
        with _filled(tmp_path / "s.db") as store:
            store.save_label(Label("c0", "li", 10.0))
            assert store.add_cases([QueuedCase("c0", 0, 1.0, None, {"labels": {}}, None)],
                                   {}) == 0
            assert [c.id for c in store.queue()] == ["c0", "c1", "c2", "c3", "c4"]
            assert len(store.labels("c0")) == 1

    def test_a_file_that_is_not_a_store_is_named(self, tmp_path: Path) -> None:
        other = tmp_path / "notes.db"
        other.write_text("not a database at all, just some notes\n" * 20, encoding="utf-8")
        assert not is_store(other)
        with pytest.raises(CaseDataError) as refused:
            open_store(other)
        assert str(other) in str(refused.value) and "not a review store" in str(refused.value)

    def test_a_run_is_imported_with_dialogs_and_check_reasons(self, tmp_path: Path,
                                                               kit: Any) -> None:
        spec, cases, results = tmp_path / "s.eval", tmp_path / "c.jsonl", tmp_path / "r.jsonl"
        spec.write_text(kit.SPEC, encoding="utf-8")
        kit.write_cases(cases, 30)
        done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
        assert done.returncode in (0, 1), done.stderr
        sample = tmp_path / "sample.jsonl"
        done = kit.evaldsl("review", results, "--spec", spec, "-o", sample)
        assert done.returncode == 0, done.stderr
        drawn = [line.split('"', 4)[3] for line in sample.read_text("utf-8").splitlines()]
        with open_store(tmp_path / "s.db") as store:
            assert import_results(store, results, spec, [cases]) == len(drawn)
            queue = store.queue()
            assert [c.id for c in queue] == drawn, "the same sample, in the same order"
            assert store.levels() == LEVELS
            first = queue[0]
            assert first.dialog and first.dialog[1]["latency_ms"] > 0
            assert {"status", "score", "reason"} <= set(first.machine["checks"]["greets"])


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from evaldsl.review.store import Label, open_store
    store = open_store(Path(sys.argv[1]))
    reviewer, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        store.save_label(Label(f"c{i % 5}", f"{reviewer}-{i // 5}", float(i % 101)))
        if sys.argv[4:] == ["die"] and i == count - 1:
            import os, signal
            os.kill(os.getpid(), signal.SIGKILL)
    print("done")
""")


def _writer(store: Path, reviewer: str, count: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(store), reviewer, str(count),
                             *extra], cwd=REPO, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


class TestDurability:
    def test_two_processes_writing_at_once_keep_every_label(self, tmp_path: Path) -> None:
        _filled(tmp_path / "s.db").close()
        writers = [_writer(tmp_path / "s.db", name, 100) for name in ("a", "b")]
        for writer in writers:
            out, err = writer.communicate(timeout=120)
            assert writer.returncode == 0 and out.strip() == "done", err
        with open_store(tmp_path / "s.db") as store:
            labels = store.labels()
        assert len(labels) == 200
        assert {x.reviewer.split("-")[0] for x in labels} == {"a", "b"}

    def test_a_killed_writer_loses_no_saved_label(self, tmp_path: Path) -> None:
        _filled(tmp_path / "s.db").close()
        writer = _writer(tmp_path / "s.db", "k", 20, "die")
        writer.communicate(timeout=120)
        assert writer.returncode == -9
        with open_store(tmp_path / "s.db") as store:
            assert len(store.labels()) == 20
