"""Few-shot examples for a judge check, from the cases it got most wrong, with their
cross-validated gain (`evaldsl calibrate --shots-for CHECK`).

The choice and the folds are `evaldsl.analysis.shots`; this module finds the check in
the spec, reads what the judge read of each labelled case (`--cases`), asks the judge
again about each held-out fold with the spec as the examples would change it, and
says the examples as a patch (`choose_shots`, `render`). The judge is the one
`evaldsl run` would use (evaldsl.toml and the environment), and asking it costs one
judgement per labelled case. The spec is never rewritten.
"""

from __future__ import annotations

import asyncio
import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD, Calibration, Judged
from evaldsl.analysis.shots import (
    DEFAULT_SHOTS,
    MAX_SHOT_CHARS,
    Rejudge,
    ShotCase,
    ShotValidation,
    cross_validate_shots,
)
from evaldsl.calibration.ask_again import read_check
from evaldsl.calibration.splice import spliced_examples
from evaldsl.calibration.weight_fit import (
    DEFAULT_FOLDS,
    figure_rows,
    figures,
    fold_figures,
    mean_known,
)
from evaldsl.cases.case import Case
from evaldsl.cases.loading import load_cases
from evaldsl.cases.scopes import select
from evaldsl.cases.windows import Window, windowed
from evaldsl.diagnostics import did_you_mean
from evaldsl.errors import RequestError
from evaldsl.i18n import _
from evaldsl.model.prompts import render_unit
from evaldsl.record import CaseRecord
from evaldsl.review.sample import checked_records
from evaldsl.runtime.graph import CheckNode
from evaldsl.syntax.formatter import quote
from evaldsl.syntax.source import Source
from evaldsl.values import CheckResult

MAX_SHOTS = 20
"""As many examples as a check takes."""
CONCURRENCY = 8
"""Cases asked about at once when a fold is judged again."""


@dataclass(frozen=True)
class ShotReport:
    check: str
    cv: ShotValidation
    cases: int
    scale: int
    patch: str
    helped: bool
    """Whether the examples improved the held-out figures (`measured_gain`); without a
    gain the report proposes nothing."""

    def to_dict(self) -> dict[str, object]:
        return {
            "check": self.check, "folds": self.cv.k, "seed": self.cv.seed, "cases": self.cases,
            "rejudge_errors": self.cv.errors,
            "held_out_mean": {name: {"before": mean_known(b), "after": mean_known(a)}
                              for name, b, a in _by_figure(self.cv)},
            "per_fold": [{"n": len(f.test_ids), "examples": list(f.examples),
                          "before": _figures(f.before), "after": _figures(f.after)}
                         for f in self.cv.folds],
            "helped": self.helped,
            "proposed": [{"id": s.id, "answer": answer(s, self.scale), "human": s.human,
                          "judge": s.auto} for s in self.cv.final] if self.helped else [],
            "patch": self.patch,
        }


def choose_shots(check_name: str, spec: Path | None, cases_file: Path | None, results: Path,
                 judged: Sequence[Judged], *, folds: int = DEFAULT_FOLDS, seed: int = 0,
                 shots: int = DEFAULT_SHOTS, threshold: float = DEFAULT_THRESHOLD,
                 shot_chars: int = MAX_SHOT_CHARS) -> ShotReport:
    """Cross-validate few-shot examples for the judge check `check_name` of `spec`, asking
    the judge again about the texts of `cases_file` (`folds` folds drawn with `seed`)."""
    if spec is None or cases_file is None:
        raise RequestError(_("--shots-for needs --spec SPEC and --cases CASES: the check is the "
                           "spec's, the examples are the cases' texts"))
    if not 1 <= shots <= MAX_SHOTS:
        raise RequestError(_("--shots must be from 1 to {most}, got {n}").format(
            most=MAX_SHOTS, n=shots))
    from evaldsl.api import load

    loaded = load(spec)
    check = _judge_check(loaded.graph.checks, check_name)
    scale = int(check.facts.constants.get("scale", 10))
    cases = {c.id: c for c in load_cases(cases_file)}
    labelled = gather(check, checked_records(results), judged, cases)
    if len(labelled) < 2 * folds:
        raise RequestError(_("{n} cases have a human score, a score of `{check}` and a text "
                           "in --cases: {k} folds need at least {need}").format(
                               n=len(labelled), check=check.name, k=folds,
                               need=2 * folds))
    rejudge = spec_rejudge(loaded.source, check, cases, scale)
    cv = cross_validate_shots(labelled, rejudge, folds, seed, shots,
                              threshold, shot_chars)
    helped = measured_gain(cv)
    diff = "" if not (cv.final and helped) else "".join(difflib.unified_diff(
        loaded.source.text.splitlines(keepends=True),
        with_examples(loaded.source, check, cv.final, scale).splitlines(keepends=True),
        f"a/{str(spec).lstrip('/')}", f"b/{str(spec).lstrip('/')}"))
    return ShotReport(check.name, cv, len(labelled), scale, diff, helped)


def measured_gain(cv: ShotValidation) -> bool:
    """Whether the examples made the judge closer to the reviewers on held-out cases: the
    mean Spearman went up, or, where no Spearman is known, the mean absolute deviation went
    down. No change is no gain: examples cost tokens on every case."""
    means = {name: (mean_known(b), mean_known(a)) for name, b, a in _by_figure(cv)}
    before, after = means["spearman"]
    if before is not None and after is not None:
        return after > before
    before, after = means["mad"]
    return before is not None and after is not None and after < before


def _judge_check(checks: Sequence[CheckNode], name: str) -> CheckNode:
    names = [c.name for c in checks]
    found = next((c for c in checks if c.name == name), None)
    if found is None:
        raise RequestError(_("the spec has no check `{name}`").format(name=name),
                         did_you_mean(name, names))
    if found.primitive.name != "judge":
        raise RequestError(_("`{name}` is a `{primitive}` check: --shots-for chooses examples "
                           "for a `judge`, whose points the human scores rate").format(
                               name=name, primitive=found.primitive.name))
    if found.scope.combine != "single":
        raise RequestError(_("`{name}` reads `{scope}`, several texts per case: --shots-for "
                           "needs a check over one text per case").format(
                               name=name, scope=found.scope))
    return found


def gather(check: CheckNode, records: Sequence[CaseRecord], judged: Sequence[Judged],
           cases: Mapping[str, Case]) -> list[ShotCase]:
    """The labelled cases with the check's recorded points and the text it read."""
    by_id = {r.id: r for r in records}
    out = []
    for one in judged:
        record, case = by_id.get(one.id), cases.get(one.id)
        if one.human_score is None or record is None or case is None:
            continue
        score = (record.checks.get(check.name) or {}).get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or math.isnan(score):
            continue
        units = select(case, check.scope)
        if len(units) == 1:
            shown = render_unit(windowed(units[0], window_of(check)))
            out.append(ShotCase(one.id, shown, 100.0 * score, one.human_score))
    return out


def window_of(check: CheckNode) -> Window | None:
    """The check's `window:`, so an example shows what the judge reads of a case."""
    written = check.facts.constants.get("window")
    return None if written is None else Window.model_validate(written)


def answer(shot: ShotCase, scale: int) -> int:
    """The human's points on the judge's scale."""
    return round(shot.human / 100.0 * scale)


def with_examples(source: Source, check: CheckNode, shots: Sequence[ShotCase],
                  scale: int) -> str:
    """The spec's text with `shots` as the check's `examples:` (in place of any written)."""
    items = ",\n".join(f"    {{text: {quote(s.text)}, answer: {answer(s, scale)}}}"
                       for s in shots)
    return spliced_examples(source, check, items)


def spec_rejudge(source: Source, check: CheckNode, cases: Mapping[str, Case],
                 scale: int) -> Rejudge:
    """Ask the judge about cases with the spec as `examples` would change it."""
    from evaldsl.api import loads

    def rejudge(examples: Sequence[ShotCase], held: Sequence[ShotCase]) -> list[float | None]:
        spec = loads(with_examples(source, check, examples, scale), name=source.name)
        found = asyncio.run(read_check(spec, [cases[c.id] for c in held], check.name,
                                       CONCURRENCY, _points))
        return [found.get(c.id) for c in held]

    return rejudge


def _points(got: CheckResult) -> float | None:
    """The judge's score in points (0-100), or None where it gave none."""
    score = got.score
    return 100.0 * float(score) if isinstance(score, (int, float)) else None


# ---------------------------------------------------------------- figures


_FIGURES = ("spearman", "mad")
"""A judge's points are compared with human scores: no levels, so no kappa."""


def _figures(c: Calibration) -> dict[str, float | None]:
    found = figures(c)
    return {name: found[name] for name in _FIGURES}


def _by_figure(cv: ShotValidation) -> list[tuple[str, list[float | None], list[float | None]]]:
    return fold_figures(cv.folds, _FIGURES)


def render(report: ShotReport) -> str:
    cv = report.cv
    lines = ["", _("shots for `{check}`: up to {n} examples from the labelled disagreements, "
                   "{k}-fold cross-validated (seed {seed}) over {cases} cases").format(
                       check=report.check, n=max((len(f.examples) for f in cv.folds),
                                                 default=0),
                       k=cv.k, seed=cv.seed, cases=report.cases)]
    if cv.errors:
        lines.append(_("  {n} held-out cases erred when asked again, left out of both "
                       "columns").format(n=cv.errors))
    lines.append(_("  held out (mean over {k} folds)   as recorded   with examples   change"
                   ).format(k=cv.k))
    names = {"spearman": _("Spearman"), "mad": _("mean abs. deviation")}
    lines += figure_rows(_by_figure(cv), names, (12, 16))
    if report.patch:
        lines += ["", _("the patch (for a human to read and apply; the spec is unchanged):"),
                  report.patch.rstrip("\n")]
    elif cv.final and not report.helped:
        lines.append(_("  the examples did not improve the held-out figures (no gain, or a "
                       "loss): no examples proposed"))
    else:
        lines.append(_("  no labelled case differs from the judge by more than the threshold: "
                       "no examples to propose"))
    return "\n".join(lines)
