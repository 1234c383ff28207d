"""Calibration: how close a spec's verdicts are to human judgement, and what would bring
them closer.

`calibrate_files(Options(results, labels, ...))` compares a run's automatic
judgements with human labels from a filled-in sample or a review store, and,
when asked, fits a weighted score's weights and thresholds (`fit=True`), chooses
few-shot examples for a judge check (`shots_for=CHECK`) or learns neighbours for
an embedding classifier (`examples_for=CHECK`), each cross-validated; the spec
is never rewritten, each proposal is a patch. `evaldsl calibrate` is this
package behind a command line (docs/calibration.md); the pure figures are
`evaldsl.analysis` (`calibrate`, `fit`, `shots`, `neighbours`).
"""

from __future__ import annotations

from evaldsl.calibration.automatic import Results, read_results
from evaldsl.calibration.judge_shots import ShotReport, choose_shots
from evaldsl.calibration.measure import Calibrated, Note, Options, calibrate_files, refusal
from evaldsl.calibration.neighbour_examples import ExampleReport, learn_examples
from evaldsl.calibration.weight_fit import FitReport, fit_weights

__all__ = [
    "Calibrated",
    "ExampleReport",
    "FitReport",
    "Note",
    "Options",
    "Results",
    "ShotReport",
    "calibrate_files",
    "choose_shots",
    "fit_weights",
    "learn_examples",
    "read_results",
    "refusal",
]
