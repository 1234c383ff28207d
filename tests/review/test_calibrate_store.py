"""`evaldsl calibrate` over a review store: the same figures as over a sample file, reviewer
agreement beside reviewer-to-machine, and `--training` for the cases beyond the threshold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.analysis.calibrate import Judged
from evaldsl.analysis.sample_file import LabelRow
from evaldsl.review.importing import import_results
from evaldsl.review.reviewer_agreement import Opinion, reviewer_agreement
from evaldsl.review.store import Label, open_store
from evaldsl.review.training import training_set


class TestReviewerAgreement:
    def test_every_pair_of_reviewers_of_a_case_counts(self) -> None:
        found = reviewer_agreement([
            Opinion("a", "li", 80, "good"), Opinion("a", "wang", 50, "good"),
            Opinion("a", "zhao", 60, "bad"), Opinion("b", "li", 10, "bad"),
            Opinion("b", "wang", 30, "bad"), Opinion("c", "li", 90, None)])
        assert (found.judgements, found.judged, found.reviewers, found.cases) == (6, 3, 3, 2)
        # pairs: a (li, wang) 30, (li, zhao) 20, (wang, zhao) 10; b (li, wang) 20
        assert found.score_pairs == 4 and found.score_mad == pytest.approx(20.0)
        assert (found.level_agreed, found.level_pairs) == (2, 4)

    def test_one_reviewer_alone_gives_no_pair(self) -> None:
        found = reviewer_agreement([Opinion("a", "li", 80, "good"), Opinion("b", "li", 1, None)])
        assert found.cases == 0 and found.score_mad is None and found.level_kappa is None


class TestTrainingSet:
    def test_only_deviations_beyond_the_threshold_are_lessons(self) -> None:
        judged = [Judged("a", "good", "bad", 100.0, 79.0), Judged("b", None, None, 100.0, 80.0),
                  Judged("c", "bad", None, 0.0, 45.0), Judged("d", "good", "good")]
        rows = [LabelRow(i, {"id": j.id, "note": f"n{i}", "reviewer": "li",
                             "dialog": [{"role": "user", "content": j.id}]})
                for i, j in enumerate(judged)]
        found = training_set(judged, rows, 20.0)
        assert [x["id"] for x in found.lessons] == ["c", "a"], "worst first; 20 is within"
        assert (found.within, found.unscored) == (1, 1)
        assert found.lessons[1] == {
            "id": "a", "deviation": 21.0, "dialog": [{"role": "user", "content": "a"}],
            "automatic": {"label": "good", "score": 100.0},
            "human": {"label": "bad", "score": 79.0, "reviewer": "li"}, "note": "n0"}


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Any]:
    """A run of the kit's spec, its sample in a store labelled by two reviewers."""
    folder = tmp_path_factory.mktemp("calibrate_store")
    spec, cases, results = folder / "s.eval", folder / "c.jsonl", folder / "r.jsonl"
    spec.write_text(kit.SPEC, encoding="utf-8")
    kit.write_cases(cases, 80)
    done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
    assert done.returncode in (0, 1), done.stderr
    auto = {r["id"]: r for r in map(json.loads, results.read_text("utf-8").splitlines()[1:])}
    db = folder / "labels.db"
    with open_store(db) as store:
        import_results(store, results, spec, [cases])
        queue = [c.id for c in store.queue()]
        for i, case_id in enumerate(queue):
            greets = auto[case_id]["checks"]["greets"]["score"] * 100
            store.save_label(Label(case_id, "li", abs(greets - 10 * (i % 4)), "failure",
                                   note=f"li {i}"))
            if i % 2 == 0:
                store.save_label(Label(case_id, "wang", abs(greets - 30), "success"))
        store.save_label(Label(queue[1], "zhao", skipped=True))
        labels = store.labels()
    return {"folder": folder, "spec": spec, "results": results, "db": db, "queue": queue,
            "labels": labels}


def _calibrate(kit: Any, labelled: dict[str, Any], labels: Path, *extra: str) -> dict[str, Any]:
    done = kit.evaldsl("calibrate", labelled["results"], labels, "--spec", labelled["spec"],
                       "--score", "greets", "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_the_store_is_read_as_its_labels_written_to_a_sample_file(
        kit: Any, labelled: dict[str, Any]) -> None:
    sample = labelled["folder"] / "same.jsonl"
    sample.write_text("".join(
        json.dumps({"id": x.case_id, "reviewer": x.reviewer, "label": x.level,
                    "score": x.score, "note": x.note}) + "\n"
        for x in labelled["labels"] if not x.skipped), encoding="utf-8")
    from_store = _calibrate(kit, labelled, labelled["db"])
    from_file = _calibrate(kit, labelled, sample)
    assert from_store == from_file
    judgements = len(labelled["queue"]) + (len(labelled["queue"]) + 1) // 2
    assert from_store["cases"] == judgements, "a skip is no judgement"


def test_reviewer_agreement_is_reported_beside_the_machines(
        kit: Any, labelled: dict[str, Any]) -> None:
    out = _calibrate(kit, labelled, labelled["db"])
    queue = labelled["queue"]
    expected = [abs(10 * (i % 4) - 30) for i in range(0, len(queue), 2)]
    assert out["reviewers"]["cases"] == len(expected)
    assert out["reviewers"]["score_mad"] == pytest.approx(sum(expected) / len(expected))
    assert (out["reviewers"]["level_agreed"], out["reviewers"]["level_pairs"]) == (
        0, len(expected))
    text = kit.evaldsl("calibrate", labelled["results"], labelled["db"], "--score", "greets")
    assert "reviewers with each other: " in text.stdout
    assert "mean absolute deviation" in text.stdout.split("reviewers with each other")[1]


def test_training_gets_every_judgement_beyond_the_threshold_and_only_those(
        kit: Any, labelled: dict[str, Any]) -> None:
    training = labelled["folder"] / "training.jsonl"
    out = _calibrate(kit, labelled, labelled["db"], "--training", str(training))
    lessons = [json.loads(line) for line in training.read_text("utf-8").splitlines()]
    beyond = [x for x in labelled["labels"] if not x.skipped and x.score is not None
              and abs(_machine(kit, labelled, x.case_id) - x.score) > 20]
    assert sorted((x["id"], x["human"]["reviewer"]) for x in lessons) == sorted(
        (x.case_id, x.reviewer) for x in beyond)
    assert all(x["dialog"] and abs(x["deviation"]) > 20 for x in lessons)
    assert {x["note"] for x in lessons if x["human"]["reviewer"] == "li"} <= {
        x.note for x in labelled["labels"]}
    assert out["training"]["written"] == len(lessons)
    assert out["training"]["within"] == out["cases"] - len(lessons)


def _machine(kit: Any, labelled: dict[str, Any], case_id: str) -> float:
    for line in labelled["results"].read_text("utf-8").splitlines()[1:]:
        record = json.loads(line)
        if record["id"] == case_id:
            return float(record["checks"]["greets"]["score"]) * 100
    raise AssertionError(case_id)
