"""The spec's weights and thresholds fitted to the human scores (`evaldsl calibrate --fit`).

The fit itself (`evaldsl.analysis.fit`) and the spec's fittable form
(`evaldsl.analysis.fit_form`) are pure; this module gathers the cases both a
human and every weighted check scored, runs the cross-validation, and says the
figures and the patch (`fit_weights`, `render`). The spec is never rewritten:
the patch is printed for a human to read and apply, so the spec stays the
source of truth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaldsl.analysis.calibrate import Calibration, Judged
from evaldsl.analysis.fit import CrossValidation, FitData, cross_validate
from evaldsl.analysis.fit_form import FormError, ScoreForm, find_form, number_text, patch
from evaldsl.errors import RequestError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord
from evaldsl.report.layout import VERDICT
from evaldsl.review.sample import checked_records
from evaldsl.syntax.parser import parse

DEFAULT_FOLDS = 5
LET_TOLERANCE = 1e-6
"""How far the let recomputed from its checks may be from the one the run recorded."""


@dataclass(frozen=True)
class FitReport:
    form: ScoreForm
    cv: CrossValidation
    cases: int
    no_human: int
    unscored: int
    patch: str

    def to_dict(self) -> dict[str, object]:
        final = self.cv.final
        return {
            "let": self.form.let, "folds": self.cv.k, "seed": self.cv.seed, "cases": self.cases,
            "left_out": {"no_human_score": self.no_human, "check_unscored": self.unscored},
            "held_out_mean": {name: {"before": mean_known(b), "after": mean_known(a)}
                              for name, b, a in _by_figure(self.cv)},
            "out_of_fold": {"before": self.cv.out_of_fold_before.to_dict(),
                            "after": self.cv.out_of_fold_after.to_dict()},
            "per_fold": [{"n": len(f.test_ids), "before": figures(f.before),
                          "after": figures(f.after)} for f in self.cv.folds],
            "fitted": {"weights": dict(zip(self.form.checks, final.weights, strict=True)),
                       "thresholds": dict(zip(self.form.levels, final.thresholds,
                                              strict=False))},
            "levels_not_fitted": self.form.why_no_levels or None,
            "patch": self.patch,
        }


def fit_weights(spec: Path | None, results: Path, judged: Sequence[Judged], block: str | None,
                folds: int = DEFAULT_FOLDS, seed: int = 0) -> FitReport:
    """Cross-validate the fit of the weighted score of `spec` (of the outcome block `block`)
    over the judged cases of `results`, in `folds` folds drawn with `seed`."""
    if spec is None:
        raise RequestError(_("--fit needs --spec SPEC: the weights it fits are the spec's"))
    if folds < 2:
        raise RequestError(_("--folds must be 2 or more, got {k}").format(k=folds))
    source_text = Path(spec).read_text("utf-8")
    parsed = parse(source_text, str(spec))
    if parsed.module is None:
        raise RequestError(_("`{spec}` does not parse: run `evaldsl check {spec}`").format(
            spec=spec))
    try:
        form = find_form(parsed.module, None if block == VERDICT else block)
    except FormError as exc:
        raise RequestError(str(exc), _("--fit fits a let such as "
                                     "`let score = 100 * (0.6 * a + 0.4 * b)`")) from None
    data, no_human, unscored = gather(form, checked_records(results), judged)
    if len(data) < 2 * folds:
        raise RequestError(_("{n} cases have a human score and every weighted check scored: "
                           "{k} folds need at least {need}").format(
                               n=len(data), k=folds, need=2 * folds))
    cv = cross_validate(data, form.written(), folds, seed)
    diff = patch(parsed.source, form, cv.final, str(spec))
    return FitReport(form, cv, len(data), no_human, unscored, diff)


def gather(form: ScoreForm, records: Sequence[CaseRecord],
           judged: Sequence[Judged]) -> tuple[FitData, int, int]:
    """The cases with a human score and every weighted check scored; how many were not."""
    by_id = {r.id: r for r in records}
    ids, rows, human, labels, no_human, unscored = [], [], [], [], 0, 0
    for case in judged:
        record = by_id.get(case.id)
        if case.human_score is None or record is None:
            no_human += 1
            continue
        scores = [_check_score(record, name) for name in form.checks]
        if any(s is None for s in scores):
            unscored += 1
            continue
        _same_let(form, record, [float(s) for s in scores if s is not None])
        ids.append(case.id)
        rows.append(scores)
        human.append(case.human_score)
        labels.append(case.human_label)
    data = FitData(tuple(ids), np.asarray(rows, dtype=float).reshape(len(ids), len(form.checks)),
                   np.asarray(human, dtype=float), tuple(labels))
    return data, no_human, unscored


def _check_score(record: CaseRecord, name: str) -> float | None:
    score = (record.checks.get(name) or {}).get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or math.isnan(score):
        return None
    return float(score)


def _same_let(form: ScoreForm, record: CaseRecord, scores: list[float]) -> None:
    """Refuse results whose recorded let is not the weighted sum the spec writes."""
    recorded = record.lets.get(form.let)
    if not isinstance(recorded, (int, float)) or isinstance(recorded, bool):
        return
    written = form.scale * sum(w.value * s for w, s in zip(form.weights, scores, strict=True))
    if abs(written - recorded) > LET_TOLERANCE * max(1.0, abs(form.scale)):
        raise RequestError(_("case `{id}` recorded `{let}` = {recorded}, but the spec's weights "
                           "give {written}: the results are not this spec's").format(
                               id=record.id, let=form.let, recorded=recorded,
                               written=round(written, 6)))


# ---------------------------------------------------------------- figures


def figures(c: Calibration) -> dict[str, float | None]:
    """The held-out figures a fold is judged by (None where the fold cannot give one)."""
    s, la = c.scores, c.labels
    return {"spearman": s.spearman if s else None, "mad": s.mad if s else None,
            "kappa": la.kappa if la else None}


def fold_figures(folds: Sequence[Any], names: Sequence[str],
                 ) -> list[tuple[str, list[float | None], list[float | None]]]:
    """Each figure of `names` over the folds (each with a `before` and an `after`
    calibration): the rows `--fit` and `--shots-for` average and print alike."""
    return [(name, [figures(f.before)[name] for f in folds],
             [figures(f.after)[name] for f in folds]) for name in names]


def _by_figure(cv: CrossValidation) -> list[tuple[str, list[float | None], list[float | None]]]:
    return fold_figures(cv.folds, ("spearman", "kappa", "mad"))


def mean_known(values: list[float | None]) -> float | None:
    """The mean of the values that are known; None when none is."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def figure(value: float | None, digits: int = 3, sign: str = "+") -> str:
    """A correlation (3 places, signed) or points (`digits=1`); n/a when undefined."""
    return "n/a" if value is None else f"{value:{sign}.{digits}f}"


def figure_rows(by_figure: Sequence[tuple[str, list[float | None], list[float | None]]],
                names: Mapping[str, str], widths: tuple[int, int]) -> list[str]:
    """One line a figure: its mean over the folds before and after, and the change, under
    a heading whose two columns are `widths` wide, so `--fit` and `--shots-for` print their
    held-out figures alike (a deviation in points to 1 place, a correlation signed to 3)."""
    lines = []
    for name, before, after in by_figure:
        b, a = mean_known(before), mean_known(after)
        change = None if a is None or b is None else a - b
        digits, sign = (1, "") if name == "mad" else (3, "+")
        lines.append(f"    {names[name]:<30}{figure(b, digits, sign):>{widths[0]}}"
                     f"{figure(a, digits, sign):>{widths[1]}}{figure(change, digits):>9}")
    return lines


def render(report: FitReport) -> str:
    form, cv = report.form, report.cv
    lines = ["", _("fit: `{let}` = {scale} x (weights x checks), {k}-fold cross-validated "
                   "(seed {seed}) over {n} cases").format(
                       let=form.let, scale=number_text(form.scale, 3), k=cv.k, seed=cv.seed,
                       n=report.cases)]
    if report.no_human or report.unscored:
        lines.append(_("  left out: {a} without a human score, {b} with a weighted check "
                       "unscored").format(a=report.no_human, b=report.unscored))
    lines.append(_("  held out (mean over {k} folds)   as written   fitted   change").format(
        k=cv.k))
    names = {"spearman": _("Spearman"), "kappa": _("kappa (levels)"),
             "mad": _("mean abs. deviation")}
    lines += figure_rows(_by_figure(cv), names, (11, 9))
    lines += _out_of_fold(cv)
    lines += _fitted(report)
    return "\n".join(lines)


def _out_of_fold(cv: CrossValidation) -> list[str]:
    b, a = cv.out_of_fold_before, cv.out_of_fold_after
    n = a.scores.n if a.scores else 0
    bs, as_ = figures(b), figures(a)
    return [_("  out of fold ({n} cases, each scored by the fit that did not see it): "
              "Spearman {sb} -> {sa}, kappa {kb} -> {ka}, deviation {mb} -> {ma} points").format(
                  n=n, sb=figure(bs["spearman"]), sa=figure(as_["spearman"]),
                  kb=figure(bs["kappa"]), ka=figure(as_["kappa"]),
                  mb=figure(bs["mad"], 1, ""), ma=figure(as_["mad"], 1, ""))]


def _fitted(report: FitReport) -> list[str]:
    form, final = report.form, report.cv.final
    weights = ", ".join(f"{c} {w:.3f}" for c, w in zip(form.checks, final.weights, strict=True))
    lines = [_("  fitted on all {n} cases (the figures above measure that procedure on held-out "
               "folds): {weights}").format(n=report.cases, weights=weights)]
    if form.levels:
        cuts = ", ".join(f"{lv} {'>' if strict else '>='} {t:.1f}" for lv, t, strict
                         in zip(form.levels, final.thresholds, final.strict, strict=False))
        lines.append(_("  thresholds (points): {cuts}").format(cuts=cuts))
    else:
        lines.append(_("  thresholds not fitted: {why}").format(why=form.why_no_levels))
    if report.patch:
        lines += ["", _("the patch (for a human to read and apply; the spec is unchanged):"),
                  report.patch.rstrip("\n")]
    else:
        lines.append(_("  the fit changes nothing in the spec"))
    return lines
