"""A calibration's figures in words: agreement, kappa and the confusion table for labels, the
deviation, bias and correlations for scores, and the cases furthest apart, worst first."""

from __future__ import annotations

from collections.abc import Mapping

from evaldsl.analysis.calibrate import Calibration
from evaldsl.i18n import _
from evaldsl.stats import percent

LISTED = 25
"""Cases (and problems) named one by one before the rest are counted."""


def render(result: Calibration, cases: int, unmatched: int, block: str,
           score: str | None) -> str:
    lines = [
        _("calibration over {cases} labelled cases").format(cases=cases)
        + (
            _(" ({unmatched} labels name no case of the results)").format(unmatched=unmatched)
            if unmatched
            else ""
        )
    ]
    if result.labels is not None:
        la = result.labels
        kappa = "n/a" if la.kappa is None else f"{la.kappa:.3f}"
        lines += [
            "",
            _("labels: automatic `{block}` vs human").format(block=block),
            _("  agreement      {percent}  ({agreed}/{n})").format(
                percent=percent(la.agreement), agreed=la.agreed, n=la.n
            ),
            _("  Cohen's kappa  {kappa}").format(kappa=kappa),
            *_confusion(la.confusion),
        ]
    if result.scores is not None:
        s = result.scores
        lines += [
            "",
            _("scores (0-100 points): automatic `{score}` vs human").format(score=score),
            _("  mean absolute deviation  {mad:.1f} points  (n={n})").format(mad=s.mad, n=s.n),
            _("  bias (automatic - human) {bias:+.1f} points").format(bias=s.bias),
            _("  Pearson r {r} · Spearman rho {r2}").format(r=_r(s.pearson), r2=_r(s.spearman)),
        ]
        lines += [
            "",
            _("cases further apart than {threshold:g} points: {count}").format(
                threshold=result.threshold, count=len(result.deviations)
            ),
        ]
        lines += [
            _(
                "  {id}  automatic {auto_score:.1f}  human {human_score:.1f}  ({deviation:+.1f})"
            ).format(
                id=d.id, auto_score=d.auto_score, human_score=d.human_score, deviation=d.deviation
            )
            for d in result.deviations[:LISTED]
        ]
        if len(result.deviations) > LISTED:
            lines.append(
                _("  ... {value} more (see --format json)").format(
                    value=len(result.deviations) - LISTED
                )
            )
    return "\n".join(lines)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> list[str]:
    humans = sorted({h for row in confusion.values() for h in row})
    autos = sorted(confusion)
    width = max([len(x) for x in [*humans, *autos, "automatic"]]) + 2
    lines = [
        _("  confusion (rows automatic, columns human)"),
        "  " + "".ljust(width) + "".join(h.rjust(width) for h in humans),
    ]
    for a in autos:
        cells = "".join(str(confusion[a].get(h, 0)).rjust(width) for h in humans)
        lines.append("  " + a.ljust(width) + cells)
    return lines


def _r(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
