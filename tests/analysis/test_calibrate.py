"""Calibration: agreement, Cohen's kappa, score deviation, and `evaldsl calibrate`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from evaldsl.analysis.calibrate import (
    Judged,
    calibrate,
    cohen_kappa,
    label_agreement,
    score_agreement,
)


class TestStatistics:
    def test_kappa_of_a_textbook_table(self) -> None:
        """Yes/yes 20, yes/no 5, no/yes 10, no/no 15: po 0.7, pe 0.5, kappa 0.4."""
        pairs = ([("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10
                 + [("no", "no")] * 15)
        assert math.isclose(cohen_kappa(pairs) or 0, 0.4)
        agreement = label_agreement(pairs)
        assert (agreement.agreed, agreement.n) == (35, 50)
        assert agreement.confusion == {"yes": {"yes": 20, "no": 5}, "no": {"yes": 10, "no": 15}}

    def test_score_deviation_and_bias(self) -> None:
        scores = score_agreement([(80.0, 60.0), (50.0, 70.0), (90.0, 90.0)])
        assert math.isclose(scores.mad, 40 / 3)
        assert math.isclose(scores.bias, 0.0)

    def test_deviations_beyond_threshold_worst_first(self) -> None:
        result = calibrate([Judged("a", auto_score=90, human_score=50),
                            Judged("b", auto_score=40, human_score=65),
                            Judged("c", auto_score=70, human_score=75),
                            Judged("d", auto_score=55, human_score=75)])
        assert [(d.id, d.deviation) for d in result.deviations] == [("a", 40), ("b", -25)]

    def test_one_sided_judgements_are_left_out(self) -> None:
        result = calibrate([Judged("a", "good", None, 50, 50), Judged("b", None, "good")])
        assert result.labels is None
        assert result.scores is not None and result.scores.n == 1


labels = st.sampled_from(["excellent", "acceptable", "poor"])


@given(st.lists(st.tuples(labels, labels), min_size=1))
def test_law_agreement_and_kappa_are_bounded(pairs: list[tuple[str, str]]) -> None:
    """Law: agreement in [0, 1]; kappa <= 1, and 1 exactly when every pair agrees."""
    result = label_agreement(pairs)
    assert 0 <= result.agreement <= 1
    if result.kappa is not None:
        assert result.kappa <= 1 + 1e-9
        assert math.isclose(result.kappa, 1.0) == (result.agreed == result.n)


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)), min_size=1))
def test_law_mad_is_symmetric_and_bias_flips(pairs: list[tuple[float, float]]) -> None:
    """Law: swapping automatic and human keeps the deviation and negates the bias."""
    there = score_agreement(pairs)
    back = score_agreement([(h, a) for a, h in pairs])
    assert math.isclose(there.mad, back.mad, abs_tol=1e-9)
    assert math.isclose(there.bias, -back.bias, abs_tol=1e-9)


class TestCli:
    def test_against_filled_labels(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 60)
        results = tmp_path / "results.jsonl"
        assert kit.evaldsl("run", spec_file, cases, "--results", results).returncode == 0
        auto = [json.loads(x) for x in results.read_text("utf-8").splitlines()[1:]]
        # humans agree on the label except for every fourth case; they score 1-5
        rows = []
        for i, r in enumerate(auto):
            label = r["labels"]["outcome"] if i % 4 else "success"
            stars = 1 + 4 * r["checks"]["short"]["score"]
            rows.append({"id": r["id"], "label": label, "score": stars if i % 3 else 1})
        labels = tmp_path / "labels.jsonl"
        labels.write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
        done = kit.evaldsl("calibrate", results, labels, "--score", "short",
                           "--human-scale", "1-5", "--format", "json")
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        agreed = sum(1 for i, r in enumerate(auto) if i % 4 == 0 and
                     r["labels"]["outcome"] == "success" or i % 4)
        assert out["labels"]["agreed"] == agreed and out["labels"]["n"] == 60
        off = {r["id"] for i, r in enumerate(auto) if i % 3 == 0
               and r["checks"]["short"]["score"] * 100 > 20}
        assert {d["id"] for d in out["deviations"]} == off
        text = kit.evaldsl("calibrate", results, labels, "--score", "short",
                           "--human-scale", "1-5")
        assert "Cohen's kappa" in text.stdout and "mean absolute deviation" in text.stdout

    def test_non_numeric_score_is_a_data_error(self, tmp_path: Path, kit: Any,
                                               spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 3)
        results = tmp_path / "results.jsonl"
        assert kit.evaldsl("run", spec_file, cases, "--results", results).returncode == 0
        labels = tmp_path / "labels.csv"
        labels.write_text("id,label,score\ncase-00000,success,\ncase-00001,,great\n",
                          encoding="utf-8")
        done = kit.evaldsl("calibrate", results, labels, "--score", "short")
        assert done.returncode == 3
        assert f"{labels}:3: field `score`: `great` is not a number" in done.stderr
