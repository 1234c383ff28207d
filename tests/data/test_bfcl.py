"""specs/bfcl.eval on the recorded gpt-oss outputs, against BFCL's own verdicts.

docs/bfcl.md explains the mapping and lists every disagreement; the list below
must stay equal to the one there.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from evaldsl import Spec

DOCUMENTED_DISAGREEMENTS: list[str] = []
"""Case ids where specs/bfcl.eval and BFCL's checker differ (docs/bfcl.md)."""

DOCUMENTED_V1_DISAGREEMENTS = [
    "claude-3-5-sonnet-20240620-FC/simple_363",
    "gpt-4o-2024-05-13-FC/simple_363",
]
"""The 2024 snapshot: its gold names `find_closest`, BFCL took the name from the doc."""


@pytest.fixture(scope="module")
def runs(shared_data: Path, bfcl: ModuleType) -> list[Any]:
    return [rec for model in bfcl.MODELS for rec in bfcl.recorded(shared_data, model)]


@pytest.fixture(scope="module")
def spec(load: Any) -> Spec:
    loaded: Spec = load("bfcl.eval")
    return loaded


@pytest.fixture(scope="module")
def verdicts(runs: list[Any], spec: Spec) -> list[tuple[Any, str]]:
    return [(rec, spec.evaluate(rec.case).labels["outcome"]) for rec in runs]


def test_agreement_with_bfcl_is_at_least_99_percent(verdicts: list[tuple[Any, str]]) -> None:
    agree = sum((label == "valid") == rec.bfcl_valid for rec, label in verdicts)
    assert len(verdicts) == 2 * 1424
    assert agree / len(verdicts) >= 0.99


def test_disagreements_are_the_documented_ones(verdicts: list[tuple[Any, str]]) -> None:
    found = sorted(rec.case["id"] for rec, label in verdicts
                   if (label == "valid") != rec.bfcl_valid)
    assert found == DOCUMENTED_DISAGREEMENTS


def test_no_case_errors(verdicts: list[tuple[Any, str]]) -> None:
    assert Counter(label for _, label in verdicts) == {"valid": 1651, "invalid": 1197}


def test_report_denominators(runs: list[Any], spec: Spec) -> None:
    """Each metric's denominator is the number of cases its `where` selects."""
    report = spec.run([rec.case for rec in runs]).to_dict()
    metrics = {name: (m["numerator"], m["denominator"], m["errors"])
               for name, m in report["metrics"].items()}
    assert metrics == {
        "accuracy": (1651, 2848, 0),
        "strict_accuracy": (1632, 2848, 0),
        "simple_accuracy": (927, 1116, 0),
        "multiple_accuracy": (554, 700, 0),
        "parallel_accuracy": (0, 832, 0),
        "irrelevance_accuracy": (170, 200, 0),
    }


def test_per_category_counts_match_bfcl(verdicts: list[tuple[Any, str]]) -> None:
    """Valid counts per model and category equal the leaderboard run's (its README table)."""
    ours = Counter((rec.case["id"].split("/")[0], rec.case["category"])
                   for rec, label in verdicts if label == "valid")
    theirs = Counter((rec.case["id"].split("/")[0], rec.case["category"])
                     for rec, _ in verdicts if rec.bfcl_valid)
    assert ours == theirs
    assert ours[("gpt-oss-20b", "simple_python")] == 255
    assert ours[("gpt-oss-120b", "irrelevance")] == 86


def test_type_errors_are_caught(verdicts: list[tuple[Any, str]]) -> None:
    """Every case BFCL failed for a type error is invalid here too."""
    typed = [label for rec, label in verdicts if rec.error_type.startswith("type_error")]
    assert typed and set(typed) == {"invalid"}


def test_v1_leaderboard_fc_outputs(shared_data: Path, bfcl: ModuleType, spec: Spec) -> None:
    """The 2024 leaderboard's gpt-4o and claude FC runs: 1,998 of 2,000 verdicts agree."""
    runs = [rec for model in bfcl.V1_MODELS for rec in bfcl.recorded_v1(shared_data, model)]
    labels = [(rec, spec.evaluate(rec.case).labels["outcome"]) for rec in runs]
    found = sorted(rec.case["id"] for rec, label in labels
                   if (label == "valid") != rec.bfcl_valid)
    assert len(labels) == 2000
    assert found == DOCUMENTED_V1_DISAGREEMENTS
    valid = Counter(rec.case["id"].split("/")[0] for rec, label in labels if label == "valid")
    assert valid == {"gpt-4o-2024-05-13-FC": 881 - 1, "claude-3-5-sonnet-20240620-FC": 790 - 1}
