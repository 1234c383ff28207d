"""specs/quality_monitoring_uss.eval is the cross-validated fit its header says, on USS."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from evaldsl.analysis.fit import FitData, Scoring, cross_validate
from evaldsl.analysis.fit_form import find_form, rewritten
from evaldsl.api import loads
from evaldsl.syntax.parser import parse

FITTED = Path(__file__).resolve().parents[2] / "specs" / "quality_monitoring_uss.eval"
START_WEIGHTS = (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05)
"""The starting weights the spec's header names (benchmarks/uss_calibration.py uses the same)."""


def level(points: float) -> str:
    return "excellent" if points >= 80 else "acceptable" if points >= 60 else "poor"


@pytest.mark.slow
def test_the_shipped_weights_are_the_seed_0_fit_and_beat_the_target(
        shared_data: Path, dialog_cases: ModuleType) -> None:
    """Start the spec from its stated weights, fit 5 folds, seed 0: the file's numbers return."""
    parsed = parse(FITTED.read_text("utf-8"), str(FITTED))
    assert parsed.module is not None
    form = find_form(parsed.module, "level")
    start_scoring = Scoring(START_WEIGHTS, (80.0, 60.0), form.levels, form.strict)
    start = loads(rewritten(parsed.source, form, start_scoring), name="start.eval")
    cases = list(dialog_cases.uss_cases(shared_data))
    results = [start.evaluate(case) for case in cases]
    human = np.array([(c["satisfaction"] - 1.0) * 25.0 for c in cases])
    data = FitData(tuple(c["id"] for c in cases),
                   np.array([[r.checks[name].score for name in form.checks] for r in results]),
                   human, tuple(level(h) for h in human))
    cv = cross_validate(data, start_scoring, 5, 0)
    assert rewritten(parsed.source, form, cv.final) == parsed.source.text
    held_out = [f.after.scores.spearman for f in cv.folds if f.after.scores]
    assert len(held_out) == 5
    assert float(np.mean([s for s in held_out if s is not None])) >= 0.30
