"""`evaldsl calibrate --fit`: weights and thresholds fitted to labels, printed as a patch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

SPEC = """\
spec "fitted runner"
case { intent: text }
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check asks_name = keyword(scope: replies, any: ["name", "姓名"])
check short = length(scope: each_reply, max_chars: 60)
# the weights a human guessed
let score = 100 * (0.5 * greets + 0.3 * asks_name.score + 0.2 * short)
outcome {
  good if score >= 70
  fair if score >= 40
  poor otherwise
}
metric mean_score = mean(score)
"""


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    """60 judged cases, and reviewers who care about asking the name, then brevity."""
    folder = tmp_path_factory.mktemp("fit")
    spec = folder / "fitted.eval"
    spec.write_text(SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    kit.write_cases(cases, 60)
    results = folder / "results.jsonl"
    done = kit.evaldsl("run", spec, cases, "--results", results)
    assert done.returncode in (0, 1), done.stderr
    labels = folder / "labels.jsonl"
    with labels.open("w", encoding="utf-8") as out:
        for line in results.read_text("utf-8").splitlines()[1:]:
            record = json.loads(line)
            checks = record["checks"]
            human = 10 + 60 * checks["asks_name"]["score"] + 25 * checks["short"]["score"]
            label = "good" if human >= 60 else "fair" if human >= 35 else "poor"
            out.write(json.dumps({"id": record["id"], "score": human, "label": label}) + "\n")
    return {"folder": folder, "spec": spec, "results": results, "labels": labels}


def calibrate(kit: Any, paths: dict[str, Path], *extra: str | Path) -> Any:
    return kit.evaldsl("calibrate", paths["results"], paths["labels"], "--spec", paths["spec"],
                       "--score", "mean_score", "--fit", *extra)


def test_the_fit_is_printed_as_a_patch_and_the_spec_is_unchanged(fitted: dict[str, Path],
                                                                 kit: Any) -> None:
    done = calibrate(kit, fitted)
    assert done.returncode == 0, done.stderr
    assert "5-fold cross-validated (seed 0) over 60 cases" in done.stdout
    assert "thresholds (points): good >= " in done.stdout
    assert f"--- a/{str(fitted['spec']).lstrip('/')}" in done.stdout
    assert "-let score = 100 * (0.5 * greets + 0.3 * asks_name.score + 0.2 * short)" \
        in done.stdout
    assert fitted["spec"].read_text("utf-8") == SPEC


def test_the_patch_applies_and_keeps_the_comments(fitted: dict[str, Path], kit: Any,
                                                  tmp_path: Path) -> None:
    done = calibrate(kit, fitted, "--format", "json")
    assert done.returncode == 0, done.stderr
    fit = json.loads(done.stdout)["fit"]
    copy = tmp_path / "fitted.eval"
    copy.write_text(SPEC, encoding="utf-8")
    path = str(fitted["spec"]).lstrip("/")
    diff = fit["patch"].replace(f"a/{path}", "a/fitted.eval").replace(
        f"b/{path}", "b/fitted.eval")
    subprocess.run(["git", "apply", "-p1", "-"], input=diff, text=True, cwd=tmp_path,
                   check=True)
    patched = copy.read_text("utf-8")
    assert "# the weights a human guessed" in patched
    weights = fit["fitted"]["weights"]
    assert weights["asks_name"] > weights["short"] >= weights["greets"]
    assert sum(weights.values()) == pytest.approx(1.0)
    checked = kit.evaldsl("check", copy)
    assert checked.returncode == 0, checked.stderr


def test_figures_are_held_out_and_carry_their_denominators(fitted: dict[str, Path],
                                                           kit: Any) -> None:
    done = calibrate(kit, fitted, "--format", "json", "--folds", "3", "--seed", "4")
    fit = json.loads(done.stdout)["fit"]
    assert (fit["folds"], fit["seed"], fit["cases"]) == (3, 4, 60)
    assert sum(f["n"] for f in fit["per_fold"]) == 60
    assert fit["out_of_fold"]["after"]["scores"]["n"] == 60
    after = fit["out_of_fold"]["after"]["scores"]["spearman"]
    before = fit["out_of_fold"]["before"]["scores"]["spearman"]
    assert after > before


def test_the_same_seed_gives_the_same_figures(fitted: dict[str, Path], kit: Any) -> None:
    first = json.loads(calibrate(kit, fitted, "--format", "json").stdout)["fit"]
    again = json.loads(calibrate(kit, fitted, "--format", "json").stdout)["fit"]
    assert first == again


def test_fit_needs_the_spec(fitted: dict[str, Path], kit: Any) -> None:
    done = kit.evaldsl("calibrate", fitted["results"], fitted["labels"], "--fit")
    assert done.returncode == 2
    assert "--fit needs --spec" in done.stderr


def test_a_let_that_is_not_a_weighted_sum_is_named_with_its_place(
        fitted: dict[str, Path], kit: Any, tmp_path: Path) -> None:
    spec = tmp_path / "other.eval"
    spec.write_text(SPEC.replace("0.2 * short)", "short * short)"), encoding="utf-8")
    cases, results = tmp_path / "cases.jsonl", tmp_path / "results.jsonl"
    kit.write_cases(cases, 10)
    assert kit.evaldsl("run", spec, cases, "--results", results).returncode in (0, 1)
    done = kit.evaldsl("calibrate", results, fitted["labels"], "--spec", spec, "--fit")
    assert done.returncode == 2
    assert "is not a weighted sum of checks" in done.stderr
    assert f"{spec}:7:" in done.stderr
    assert "Traceback" not in done.stderr
