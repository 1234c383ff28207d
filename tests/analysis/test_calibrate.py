"""Calibration: agreement, Cohen's kappa, score deviation, and `evaldsl calibrate`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.analysis.calibrate import (
    Judged,
    calibrate,
    cohen_kappa,
    label_agreement,
    pearson,
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


def test_pearson_of_tiny_spreads_does_not_underflow() -> None:
    """Scores that differ by 1e-107: the product of the sums of squares underflows to 0,
    the correlation itself is still 1."""
    assert pearson([0.0, 1e-107], [0.0, 1e-107]) == pytest.approx(1.0)
    assert pearson([0.0, 1e-300, 2e-300], [0.0, 1e-200, 2e-200]) == pytest.approx(1.0)


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
        assert (f"{labels}:3: field `score`: the score `great` of case `case-00001` is not a "
                "number") in done.stderr


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Any]:
    """Twelve judged cases of the kit's spec, and the automatic label of each."""
    folder = tmp_path_factory.mktemp("calibrate")
    spec = folder / "runner.eval"
    spec.write_text(kit.SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    kit.write_cases(cases, 12)
    results = folder / "results.jsonl"
    done = kit.evaldsl("run", spec, cases, "--results", results)
    assert done.returncode == 0, done.stderr
    lines = results.read_text("utf-8").splitlines()[1:]
    auto = {r["id"]: r["labels"]["outcome"] for r in map(json.loads, lines)}
    return {"folder": folder, "spec": spec, "results": results, "auto": auto}


def write_csv(path: Path, rows: list[tuple[str, str, str]], encoding: str = "utf-8",
              newline: str = "\n") -> Path:
    """A sample as a spreadsheet saves it: id, label, score and a Chinese note."""
    text = newline.join(["id,label,score,note", *(f"{i},{la},{sc},好" for i, la, sc in rows)])
    path.write_bytes((text + newline).encode(encoding))
    return path


def agreeing(run: dict[str, Any], count: int = 12) -> list[tuple[str, str, str]]:
    return [(i, label, "") for i, label in list(run["auto"].items())[:count]]


class TestSpreadsheetEncodings:
    """Excel and WPS save a sample as UTF-8 with a BOM, or GBK, with CRLF line ends."""

    def test_csv_utf8_with_a_bom_and_crlf(self, run: dict[str, Any], kit: Any,
                                          tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "excel.csv", agreeing(run), "utf-8-sig", "\r\n")
        done = kit.evaldsl("calibrate", run["results"], labels, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["labels"]["agreed"] == 12
        assert done.stderr == ""

    def test_a_quoted_cell_over_several_lines(self, run: dict[str, Any], kit: Any,
                                              tmp_path: Path) -> None:
        ids = list(run["auto"])
        labels = tmp_path / "dialog.csv"
        labels.write_text(f'id,dialog,label\r\n{ids[0]},"user: 你好\r\nassistant: 您好",'
                          f'{run["auto"][ids[0]]}\r\n', encoding="utf-8-sig")
        done = kit.evaldsl("calibrate", run["results"], labels, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["labels"]["n"] == 1

    def test_gbk_is_read_and_said(self, run: dict[str, Any], kit: Any, tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "wps.csv", agreeing(run), "gbk", "\r\n")
        done = kit.evaldsl("calibrate", run["results"], labels, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["labels"]["agreed"] == 12
        assert done.stderr == (f"evaldsl calibrate: note: `{labels}` is not UTF-8, "
                               "so it was read as GB18030\n")

    def test_an_undecodable_file_is_refused_with_advice(self, run: dict[str, Any], kit: Any,
                                                        tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "utf16.csv", agreeing(run), "utf-16")
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 3
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: error: {labels}:1: the file is neither UTF-8 nor GB18030 "
            "(byte 0)",
            'hint: save the file from the spreadsheet as "CSV UTF-8" and try again']

    def test_a_bad_row_names_file_and_line(self, run: dict[str, Any], kit: Any,
                                           tmp_path: Path) -> None:
        ids = list(run["auto"])
        labels = tmp_path / "shifted.csv"
        labels.write_text(f"id,label,score\n{ids[0]},success,\n{ids[1]},success,80,extra\n",
                          encoding="utf-8")
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 3
        assert (f"evaldsl calibrate: error: {labels}:3: the row has 4 cells but the header "
                "3 columns") in done.stderr

    def test_an_unclosed_quote_names_the_line_it_opens(self, run: dict[str, Any], kit: Any,
                                                       tmp_path: Path) -> None:
        ids = list(run["auto"])
        labels = tmp_path / "quote.csv"
        labels.write_text(f'id,label\n{ids[0]},success\n{ids[1]},"success\n{ids[2]},partial\n',
                          encoding="utf-8")
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 3
        assert f"evaldsl calibrate: error: {labels}:3: not valid CSV" in done.stderr


class TestRowsMatchingCases:
    def test_labels_of_another_run_are_an_error(self, run: dict[str, Any], kit: Any,
                                                tmp_path: Path) -> None:
        rows = [(f"other-{i}", "success", "") for i in range(5)]
        labels = write_csv(tmp_path / "other.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: error: none of the 5 rows of `{labels}` names a case of "
            f"`{run['results']}` (ids such as `other-0`, `other-1`, `other-2`)",
            "hint: these are probably the labels of another run or another spec: calibrate "
            "them against the results the sample was drawn from"]

    def test_some_unmatched_rows_are_a_warning(self, run: dict[str, Any], kit: Any,
                                               tmp_path: Path) -> None:
        rows = [*agreeing(run, 4), ("gone-1", "success", ""), ("gone-2", "failure", "")]
        labels = write_csv(tmp_path / "mixed.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels, "--format", "json")
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert (out["cases"], out["unmatched_labels"], out["labels"]["n"]) == (4, 2, 4)
        assert done.stderr == (f"evaldsl calibrate: warning: 2 of the 6 rows of `{labels}` "
                               f"name no case of `{run['results']}` and are left out (ids "
                               "such as `gone-1`, `gone-2`)\n")

    def test_one_unmatched_row_is_said_in_the_singular(self, run: dict[str, Any], kit: Any,
                                                       tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "one.csv", [*agreeing(run, 2), ("gone", "success", "")])
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 0, done.stderr
        assert done.stderr == (f"evaldsl calibrate: warning: 1 of the 3 rows of `{labels}` "
                               f"names no case of `{run['results']}` and is left out (id "
                               "`gone`)\n")

    def test_an_empty_file_is_an_error(self, run: dict[str, Any], kit: Any,
                                       tmp_path: Path) -> None:
        labels = tmp_path / "empty.csv"
        labels.write_text("id,label,score,note\n", encoding="utf-8-sig")
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 2
        assert f"error: `{labels}` holds no rows" in done.stderr

    def test_a_sample_nobody_filled_in_is_an_error(self, run: dict[str, Any], kit: Any,
                                                   tmp_path: Path) -> None:
        rows = [(i, "", "") for i in run["auto"]]
        labels = write_csv(tmp_path / "blank.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: error: no row of `{labels}` has a `label` or a `score`",
            "hint: reviewers fill in the `label` column, the `score` column or both "
            "(--label-column and --score-column name other columns)"]

    def test_scores_without_an_automatic_score_are_an_error(self, run: dict[str, Any], kit: Any,
                                                            tmp_path: Path) -> None:
        rows = [(i, "", "50") for i in run["auto"]]
        labels = write_csv(tmp_path / "scores.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            "evaldsl calibrate: error: nothing to compare: no case has both an automatic and "
            "a human judgement",
            "hint: give --score NAME to compare the human scores with a check or a metric"]

    def test_a_row_without_an_id(self, run: dict[str, Any], kit: Any, tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "noid.csv", [*agreeing(run, 2), ("", "success", "")])
        done = kit.evaldsl("calibrate", run["results"], labels)
        assert done.returncode == 3
        assert f"evaldsl calibrate: error: {labels}:4: field `id`: the row has no id" \
            in done.stderr


class TestHumanJudgementsOutsideTheSpec:
    def test_a_label_the_block_does_not_have(self, run: dict[str, Any], kit: Any,
                                             tmp_path: Path) -> None:
        rows = [*agreeing(run, 3), (list(run["auto"])[3], "Sucess", "")]
        labels = write_csv(tmp_path / "typo.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels, "--spec", run["spec"])
        assert done.returncode == 3
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: error: {labels}:5: field `label`: the label `Sucess` of case "
            f"`{list(run['auto'])[3]}` is not one of the labels of `outcome`: `success`, "
            "`partial`, `failure`",
            "hint: did you mean `success`?",
            f"evaldsl calibrate: error: 1 row of `{labels}` has problems, so nothing was "
            "compared"]

    def test_without_the_spec_an_unseen_label_is_a_warning(self, run: dict[str, Any],
                                                           kit: Any, tmp_path: Path) -> None:
        rows = [*agreeing(run, 3), *((i, "Sucess", "") for i in list(run["auto"])[3:5])]
        labels = write_csv(tmp_path / "typo.csv", rows)
        done = kit.evaldsl("calibrate", run["results"], labels, "--format", "json")
        assert done.returncode == 0, done.stderr
        seen = ", ".join(f"`{x}`" for x in sorted(set(run["auto"].values())))
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: warning: `{labels}` gives the label `Sucess` in 2 rows (the "
            "first on line 5), and no case of the results has it for `outcome`: they have "
            f"{seen}",
            "hint: did you mean `success`? with --spec SPEC, labels are checked against all "
            "the labels of the block"]

    def test_a_score_outside_the_scale(self, run: dict[str, Any], kit: Any,
                                       tmp_path: Path) -> None:
        ids = list(run["auto"])
        labels = write_csv(tmp_path / "stars.csv", [(ids[0], "", "4"), (ids[1], "", "7")])
        done = kit.evaldsl("calibrate", run["results"], labels, "--score", "short",
                           "--human-scale", "1-5")
        assert done.returncode == 3
        assert done.stderr.splitlines()[:2] == [
            f"evaldsl calibrate: error: {labels}:3: field `score`: the score `7` of case "
            f"`{ids[1]}` is outside the human scale 1-5",
            "hint: give --human-scale LOW-HIGH when reviewers scored on another scale"]

    def test_an_outcome_block_the_results_do_not_have(self, run: dict[str, Any], kit: Any,
                                                      tmp_path: Path) -> None:
        labels = write_csv(tmp_path / "ok.csv", agreeing(run))
        done = kit.evaldsl("calibrate", run["results"], labels, "--outcome", "outcomes")
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            f"evaldsl calibrate: error: the results `{run['results']}` have no outcome block "
            "`outcomes`; they have `outcome`",
            "hint: did you mean `outcome`?"]

    def test_the_spec_must_be_the_one_that_ran(self, run: dict[str, Any], kit: Any,
                                               tmp_path: Path) -> None:
        other = tmp_path / "other.eval"
        other.write_text(kit.SPEC.replace("seed: 3", "seed: 4"), encoding="utf-8")
        labels = write_csv(tmp_path / "ok.csv", agreeing(run))
        done = kit.evaldsl("calibrate", run["results"], labels, "--spec", other)
        assert done.returncode == 2 and "written by another spec" in done.stderr
