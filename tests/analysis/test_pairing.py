"""Pairing a filled-in sample with the results: what is matched, wrong or doubtful."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaldsl.analysis.pairing import Automatic, HumanRules, pair
from evaldsl.analysis.sample_file import UTF8, LabelFile, LabelRow
from evaldsl.diagnostics import did_you_mean

AUTO = {"a": Automatic("good", 80.0), "b": Automatic("bad", 20.0)}
SPEC_RULES = HumanRules(("good", "fair", "bad"), labels_certain=True, block="level",
                        scale=(1.0, 5.0))


def sample(*rows: dict[str, Any]) -> LabelFile:
    return LabelFile(Path("s.csv"), UTF8, [LabelRow(i + 2, r) for i, r in enumerate(rows)])


class TestPair:
    def test_labels_and_scores_on_the_human_scale(self) -> None:
        out = pair(sample({"id": "a", "label": "good", "score": "5"},
                          {"id": "b", "label": " fair ", "score": ""}), AUTO, SPEC_RULES)
        assert [(j.id, j.human_label, j.human_score) for j in out.judged] == [
            ("a", "good", 100.0), ("b", "fair", None)]
        assert (out.errors, out.unmatched, out.doubts, out.matched) == ([], [], [], 2)

    def test_empty_rows_are_matched_but_not_judged(self) -> None:
        out = pair(sample({"id": "a", "label": "", "score": ""}), AUTO, SPEC_RULES)
        assert (out.matched, out.judged) == (1, [])

    def test_rows_naming_no_case(self) -> None:
        out = pair(sample({"id": "z", "label": "good"}, {"id": "a", "label": "good"}), AUTO,
                   SPEC_RULES)
        assert (out.unmatched, out.matched) == (["z"], 1)

    def test_each_bad_row_is_an_error_and_not_judged(self) -> None:
        out = pair(sample({"id": "a", "label": "Good"}, {"id": "b", "score": "9"},
                          {"id": "a", "score": "many"}, {"label": "good"}), AUTO, SPEC_RULES)
        assert out.judged == []
        assert [(str(e), e.hint) for e in out.errors] == [
            ("s.csv:2: field `label`: the label `Good` of case `a` is not one of the labels of "
             "`level`: `good`, `fair`, `bad`", "did you mean `good`?"),
            ("s.csv:3: field `score`: the score `9` of case `b` is outside the human scale 1-5",
             "give --human-scale LOW-HIGH when reviewers scored on another scale"),
            ("s.csv:4: field `score`: the score `many` of case `a` is not a number",
             "write a number from 1 to 5, or leave it empty"),
            ("s.csv:5: field `id`: the row has no id", "")]

    def test_labels_the_results_never_show_are_doubts_and_counted(self) -> None:
        rules = HumanRules(("bad", "good"), labels_certain=False)
        out = pair(sample({"id": "a", "label": "fair"}, {"id": "b", "label": "fair"}), AUTO,
                   rules)
        assert [(d.label, d.lines) for d in out.doubts] == [("fair", (2, 3))]
        assert [j.human_label for j in out.judged] == ["fair", "fair"]

    def test_a_boolean_is_not_a_score(self) -> None:
        out = pair(sample({"id": "a", "score": True}), AUTO, SPEC_RULES)
        assert [e.reason for e in out.errors] == ["the score `True` of case `a` is not a number"]

    def test_without_an_outcome_block_labels_are_not_read(self) -> None:
        rules = HumanRules((), labels_certain=False, label_column=None)
        out = pair(sample({"id": "a", "label": "good", "score": "3"}), AUTO, rules)
        assert [(j.human_label, j.human_score) for j in out.judged] == [(None, 3.0)]


def test_did_you_mean_ignores_case() -> None:
    assert did_you_mean("GOOD", ["good", "bad"]) == "did you mean `good`?"
    assert did_you_mean("差", ["good", "bad"]) == ""
