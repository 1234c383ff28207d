"""specs/quality_monitoring_uss.eval is the cross-validated fit its header says, on the dev half
of USS, measured on the test half that neither the fit nor the choice of its checks saw."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from evaldsl.analysis.calibrate import pearson, ranks
from evaldsl.analysis.fit import FitData, Scoring, cross_validate
from evaldsl.analysis.fit_form import find_form, rewritten
from evaldsl.api import load, loads
from evaldsl.syntax.parser import parse

FITTED = Path(__file__).resolve().parents[2] / "specs" / "quality_monitoring_uss.eval"
START_WEIGHTS = (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05)
"""The starting weights the spec's header names (benchmarks/uss_calibration.py uses the same)."""


def level(points: float) -> str:
    return "excellent" if points >= 80 else "acceptable" if points >= 60 else "poor"


def half(dialog_id: str) -> str:
    """The split the spec's header names: sha256 of the id, its first 12 hex digits as a
    fraction below 0.5 is dev (benchmarks/uss_calibration.py splits the same way)."""
    fraction = int(hashlib.sha256(dialog_id.encode("utf-8")).hexdigest()[:12], 16) / 16 ** 12
    return "dev" if fraction < 0.5 else "test"


def test_the_split_is_fixed_by_the_id() -> None:
    assert [half(f"uss-sgd-{i:04d}") for i in range(6)] == [
        half(f"uss-sgd-{i:04d}") for i in range(6)]
    shares = [half(f"uss-mwoz-{i:04d}") == "dev" for i in range(1000)]
    assert 0.45 < sum(shares) / len(shares) < 0.55


@pytest.mark.slow
def test_the_shipped_weights_are_the_seed_0_fit_on_dev_and_hold_on_test(
        shared_data: Path, dialog_cases: ModuleType) -> None:
    """Start the spec from its stated weights, fit 5 folds, seed 0, on the dev half: the file's
    numbers return. The file as shipped, on the test half, still ranks the dialogs as people
    rated them (Spearman at least 0.30)."""
    parsed = parse(FITTED.read_text("utf-8"), str(FITTED))
    assert parsed.module is not None
    form = find_form(parsed.module, "level")
    start_scoring = Scoring(START_WEIGHTS, (80.0, 60.0), form.levels, form.strict)
    start = loads(rewritten(parsed.source, form, start_scoring), name="start.eval")
    cases = list(dialog_cases.uss_cases(shared_data))
    dev = [c for c in cases if half(c["id"]) == "dev"]
    test = [c for c in cases if half(c["id"]) == "test"]
    assert (len(dev), len(test)) == (198, 202)
    results = [start.evaluate(case) for case in dev]
    human = np.array([(c["satisfaction"] - 1.0) * 25.0 for c in dev])
    data = FitData(tuple(c["id"] for c in dev),
                   np.array([[r.checks[name].score for name in form.checks] for r in results]),
                   human, tuple(level(h) for h in human))
    cv = cross_validate(data, start_scoring, 5, 0)
    assert rewritten(parsed.source, form, cv.final) == parsed.source.text
    shipped = load(FITTED)
    scores = [float(shipped.evaluate(case).lets["overall"]) for case in test]
    rho = pearson(ranks(scores), ranks([c["satisfaction"] for c in test]))
    assert rho is not None and rho >= 0.30
