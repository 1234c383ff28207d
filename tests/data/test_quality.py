"""specs/quality_monitoring.eval on real task dialogs: CrossWOZ (zh) and USS (en)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from evaldsl import Spec


@pytest.fixture(scope="module")
def spec(load: Callable[[str], Spec]) -> Spec:
    return load("quality_monitoring.eval")


def test_crosswoz_levels_and_denominators(shared_data: Path, spec: Spec,
                                          dialog_cases: ModuleType) -> None:
    cases = list(dialog_cases.crosswoz_cases(shared_data))
    report = spec.run(cases).to_dict()
    assert report["cases"] == 200
    assert report["outcomes"]["level"] == {"excellent": 198, "acceptable": 2, "poor": 0,
                                           "error": 0}
    m = {n: (v["numerator"], v["denominator"], v["errors"]) for n, v in report["metrics"].items()}
    assert m["安全违规率"] == (2, 200, 0)
    assert m["超长对话率"] == (43, 200, 0)
    assert m["差评中的违规"] == (None, 0, 0)


def test_review_priority_is_100_minus_score(shared_data: Path, spec: Spec,
                                            dialog_cases: ModuleType) -> None:
    cases = {c["id"]: c for c in dialog_cases.uss_cases(shared_data)}
    report = spec.run(cases.values()).to_dict()
    assert report["outcomes"]["level"] == {"excellent": 398, "acceptable": 2, "poor": 0,
                                           "error": 0}
    sampled = report["review"]["sampled"]
    assert sampled
    for entry in sampled:
        result = spec.evaluate(cases[entry["id"]])
        level = result.labels["level"]
        assert entry["rule"] == ["excellent", "acceptable", "poor"].index(level)
        assert entry["priority"] == pytest.approx(100 - 100 * _score(result))


def _score(result: Any) -> float:
    c = result.checks
    return float(0.2 * c["效率"].score + 0.2 * c["简洁"].score + 0.3 * c["情绪"].score
                 + 0.3 * c["安全"].score)
