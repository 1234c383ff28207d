"""Calibration as a library: `evaldsl.calibration` does what `evaldsl calibrate` does, with no
command line in the process, the same figures and the same fitted patch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaldsl.calibration import (
    Note,
    Options,
    calibrate_files,
    fit_weights,
    read_results,
    refusal,
)
from evaldsl.errors import RequestError
from tests.cli.test_calibrate_fit import SPEC as FITTED_SPEC
from tests.support.run_kit import REPO


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    """60 judged cases of a weighted spec, and reviewers' scores and labels for each."""
    folder = tmp_path_factory.mktemp("library")
    spec, cases, results = folder / "s.eval", folder / "c.jsonl", folder / "r.jsonl"
    spec.write_text(FITTED_SPEC, encoding="utf-8")
    kit.write_cases(cases, 60)
    done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
    assert done.returncode in (0, 1), done.stderr
    labels = folder / "labels.jsonl"
    with labels.open("w", encoding="utf-8") as out:
        for i, line in enumerate(results.read_text("utf-8").splitlines()[1:]):
            checks = json.loads(line)["checks"]
            human = 10 + 60 * checks["asks_name"]["score"] + 25 * checks["short"]["score"]
            label = "good" if human >= 60 else "fair" if human >= 35 else "poor"
            row = {"id": json.loads(line)["id"], "score": human,
                   "label": "goood" if i == 0 else label}
            out.write(json.dumps(row) + "\n")
    return {"folder": folder, "spec": spec, "cases": cases, "results": results,
            "labels": labels}


def test_the_library_gives_the_figures_the_verb_prints(judged: dict[str, Path],
                                                        kit: Any) -> None:
    said: list[Note] = []
    found = calibrate_files(Options(judged["results"], judged["labels"], score="mean_score"),
                            said.append)
    verb = kit.evaldsl("calibrate", judged["results"], judged["labels"], "--score",
                       "mean_score", "--format", "json")
    assert verb.returncode == 0, verb.stderr
    assert found.payload == json.loads(verb.stdout)
    assert not found.refused and found.figures is not None
    assert found.figures.scores is not None and found.figures.scores.n == 60
    assert [(n.kind, n.message.split(" in 1 row")[0]) for n in said] == [
        ("warning", f"`{judged['labels']}` gives the label `goood`")]
    assert "did you mean `good`?" in said[0].hint


def test_the_fit_through_the_library_is_the_verbs_patch(judged: dict[str, Path],
                                                         kit: Any) -> None:
    automatic = read_results(judged["results"], judged["spec"], score="mean_score")
    assert automatic.block == "outcome" and automatic.labels == ("good", "fair", "poor")
    found = calibrate_files(Options(judged["results"], judged["labels"], spec=judged["spec"],
                                    score="mean_score", outcome="outcome"))
    assert found.refused, "with the spec, `goood` is an error: nothing is compared"
    assert [e.line for e in found.pairing.errors] == [1]
    assert refusal(found.options, found.pairing)[-1].message == (
        f"1 row of `{judged['labels']}` has problems, so nothing was compared")

    fine = judged["folder"] / "fine.jsonl"
    fine.write_text(judged["labels"].read_text("utf-8").replace("goood", "good"), "utf-8")
    base = calibrate_files(Options(judged["results"], fine, spec=judged["spec"],
                                   score="mean_score"))
    report = fit_weights(judged["spec"], judged["results"], base.pairing.judged,
                         base.results.block, folds=5, seed=0)
    verb = kit.evaldsl("calibrate", judged["results"], fine, "--spec", judged["spec"],
                       "--score", "mean_score", "--fit", "--format", "json")
    assert verb.returncode == 0, verb.stderr
    assert report.to_dict() == json.loads(verb.stdout)["fit"]
    assert report.patch.startswith("--- a/") and "asks_name" in report.patch


def test_an_outcome_block_no_case_has_is_a_request_error(judged: dict[str, Path]) -> None:
    with pytest.raises(RequestError) as refused:
        read_results(judged["results"], outcome="outcom")
    assert str(refused.value) == (f"the results `{judged['results']}` have no outcome block "
                                  "`outcom`; they have `outcome`")
    assert refused.value.hint == "did you mean `outcome`?"


def test_calibration_runs_in_a_process_that_never_imports_the_command_line(
        judged: dict[str, Path]) -> None:
    script = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from evaldsl.calibration import Options, calibrate_files\n"
        f"found = calibrate_files(Options(Path({str(judged['results'])!r}), "
        f"Path({str(judged['labels'])!r}), score='mean_score'))\n"
        "print(json.dumps({'cases': found.payload['cases'],"
        " 'cli': sorted(m for m in sys.modules if m.startswith('evaldsl.cli'))}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"cases": 60, "cli": []}
