"""How far reviewers are from each other: the ceiling a spec's agreement with them can reach.

A spec that matches one reviewer as well as a second reviewer does cannot be
improved by fitting it to that reviewer. So next to reviewer-to-machine
agreement, calibration reports reviewer-to-reviewer agreement over every pair
of reviewers who judged the same case: the mean absolute difference of their
scores (points, 0-100) and the agreement and Cohen's kappa of their levels.
Each figure carries the number of pairs it is computed over; a case labelled
by three reviewers gives three pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from evaldsl.analysis.calibrate import cohen_kappa
from evaldsl.i18n import _


class Opinion(NamedTuple):
    """One reviewer's judgement of one case, the part agreement reads."""

    case_id: str
    reviewer: str
    score: float | None
    level: str | None


@dataclass(frozen=True)
class ReviewerAgreement:
    judgements: int
    """Opinions counted: one per reviewer and case."""
    judged: int
    """Distinct cases judged."""
    reviewers: int
    cases: int
    """Cases at least two reviewers judged."""
    score_pairs: int
    score_mad: float | None
    """Mean absolute difference of two reviewers' scores on a case, in points."""
    level_pairs: int
    level_agreed: int
    level_kappa: float | None

    def to_dict(self) -> dict[str, object]:
        return {"judgements": self.judgements, "judged": self.judged,
                "reviewers": self.reviewers, "cases": self.cases,
                "score_pairs": self.score_pairs, "score_mad": self.score_mad,
                "level_pairs": self.level_pairs, "level_agreed": self.level_agreed,
                "level_kappa": self.level_kappa}


def reviewer_agreement(opinions: Iterable[Opinion]) -> ReviewerAgreement:
    """Agreement over every pair of distinct reviewers of a case (later opinions replace).

    >>> a = reviewer_agreement([Opinion("c1", "li", 80, "good"), Opinion("c1", "wang", 60, "good"),
    ...                         Opinion("c2", "li", 10, "poor")])
    >>> a.cases, a.score_pairs, a.score_mad, a.level_agreed
    (1, 1, 20.0, 1)
    """
    by_case: dict[str, dict[str, Opinion]] = defaultdict(dict)
    for opinion in opinions:
        by_case[opinion.case_id][opinion.reviewer] = opinion
    pairs = [pair for reviewers in by_case.values()
             for pair in combinations(sorted(reviewers.values(), key=lambda o: o.reviewer), 2)]
    scores = [abs(a.score - b.score) for a, b in pairs
              if a.score is not None and b.score is not None]
    levels = [(a.level, b.level) for a, b in pairs if a.level is not None and b.level is not None]
    return ReviewerAgreement(
        judgements=sum(len(reviewers) for reviewers in by_case.values()), judged=len(by_case),
        reviewers=len({r for reviewers in by_case.values() for r in reviewers}),
        cases=sum(1 for reviewers in by_case.values() if len(reviewers) > 1),
        score_pairs=len(scores), score_mad=sum(scores) / len(scores) if scores else None,
        level_pairs=len(levels), level_agreed=sum(1 for a, b in levels if a == b),
        level_kappa=cohen_kappa(levels) if levels else None)


def render_agreement(found: ReviewerAgreement) -> list[str]:
    """Reviewer-to-reviewer agreement in words, for the lines after reviewer-to-machine."""
    lines = [_("{judgements} judgements of {judged} cases by {reviewers} reviewers").format(
        judgements=found.judgements, judged=found.judged, reviewers=found.reviewers)]
    if not found.cases:
        return [*lines, _("reviewers with each other: no case was judged by two reviewers")]
    lines.append(_("reviewers with each other: {cases} cases judged by two or more").format(
        cases=found.cases))
    if found.score_mad is not None:
        lines.append(_("  mean absolute deviation  {mad:.1f} points  (pairs={pairs})").format(
            mad=found.score_mad, pairs=found.score_pairs))
    if found.level_pairs:
        kappa = "n/a" if found.level_kappa is None else f"{found.level_kappa:.3f}"
        lines.append(_("  levels agree  {agreed}/{pairs} pairs · Cohen's kappa {kappa}").format(
            agreed=found.level_agreed, pairs=found.level_pairs, kappa=kappa))
    return lines
