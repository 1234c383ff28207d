"""The shipped model specs over their shipped example cases, on the local judge.

The promise of `--judge local` is that every answer fits its schema the first
time: no repair request, no cut-off answer, no check in error, on the data a
user meets first.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.model.settings import Settings
from evaldsl.results import check_to_dict

pytestmark = [
    pytest.mark.local_judge,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                       reason="the local judge needs the `local` extra: "
                              "pip install 'evaldsl[local]'"),
]

REPO = Path(__file__).resolve().parents[3]
SPECS = ["repair_booking", "complaint_handling", "quality_judge"]
"""Every shipped spec with model checks and an example file of its name."""


def cases(name: str) -> list[dict[str, Any]]:
    lines = (REPO / "examples" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_list_is_every_shipped_spec_with_model_checks_and_examples() -> None:
    """A spec shipped later with model checks and examples joins the test, or this fails."""
    found = []
    for path in sorted((REPO / "specs").glob("*.eval")):
        if (REPO / "examples" / f"{path.stem}.jsonl").is_file():
            if evaldsl.load(path).has_model_checks:
                found.append(path.stem)
    assert sorted(found) == sorted(SPECS)


@pytest.mark.parametrize("name", SPECS)
def test_every_model_check_completes_with_zero_malformed_answers(name: str) -> None:
    """Each case's model checks answered; no repair request, no truncation, no error."""
    settings = Settings.load(env={"EVALDSL_JUDGE": "local", "EVALDSL_NO_CACHE": "1"})
    spec = evaldsl.load(REPO / "specs" / f"{name}.eval", settings=settings)
    try:
        errored = {}
        for case in cases(name):
            result = spec.evaluate(case)
            for check, value in result.checks.items():
                shown = check_to_dict(value)
                if shown["status"] == "error":
                    errored[f"{case['id']}.{check}"] = shown["reason"]
        stats = spec.model_stats()
    finally:
        spec.close()
    assert errored == {}
    assert stats.calls > 0
    assert stats.by_kind.get("repair", 0) == 0
    assert (stats.truncated, stats.truncation_retries, stats.errors) == (0, 0, 0)
