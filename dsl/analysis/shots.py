"""Few-shot examples for a judge check, chosen from the cases it got most wrong.

A judge that rates what the reviewers rated (a dialog's overall quality, say)
can be shown worked examples (`examples: [{text:, answer:, why:}]`). The best
candidates are the labelled disagreements: cases where the judge's points and
the human's differ by more than the threshold, with the human's points as the
answer. They are taken by the size of the disagreement, alternating between
cases the judge rated too high and too low (a judge shown only its lenient
mistakes learns to be harsh), among texts short enough to show.

Whether the examples help is measured as `evaldsl.analysis.fit` measures a
fit: k folds drawn from the ids and the seed; for each, the examples are
chosen from the other folds alone and the judge asks again about the held-out
fold, whose recorded points are the figures before. Before and after are so
paired, and no case is ever judged with itself as an example. The examples
proposed for the spec are chosen from every case. A fold whose other folds hold no
disagreement to show is not asked again: it keeps its points.

Pure: asking the judge is the caller's `Rejudge`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evaldsl.analysis.calibrate import DEFAULT_THRESHOLD, Calibration, Judged, calibrate
from evaldsl.analysis.fit import folds

DEFAULT_SHOTS = 3
MAX_SHOT_CHARS = 600
"""Longer texts are not proposed: a spec carries its examples, and a judge reads them
with every case."""


@dataclass(frozen=True)
class ShotCase:
    """A labelled case as a candidate example: what the judge reads, and both points."""

    id: str
    text: str
    auto: float
    """The judge's points, 0-100."""
    human: float
    """The human's points, 0-100."""
    note: str = ""
    """The reviewer's note, the example's `why` when there is one."""

    @property
    def deviation(self) -> float:
        return self.auto - self.human


Rejudge = Callable[[Sequence[ShotCase], Sequence[ShotCase]], Sequence[float | None]]
"""(examples, cases) -> the judge's new points (0-100) for each case, None where it erred."""


def choose_shots(pool: Sequence[ShotCase], shots: int = DEFAULT_SHOTS,
                 threshold: float = DEFAULT_THRESHOLD,
                 max_chars: int = MAX_SHOT_CHARS) -> list[ShotCase]:
    """Up to `shots` disagreements beyond `threshold`, largest first, alternating the
    judge's too-high and too-low mistakes; ties by id, so the choice is repeatable.

    >>> pool = [ShotCase("a", "x", 90, 20), ShotCase("b", "y", 10, 70),
    ...         ShotCase("c", "z", 80, 30), ShotCase("d", "w", 50, 45)]
    >>> [s.id for s in choose_shots(pool, 3)]
    ['a', 'b', 'c']
    """
    fit = [c for c in pool if abs(c.deviation) > threshold and len(c.text) <= max_chars]
    high = sorted((c for c in fit if c.deviation > 0), key=lambda c: (-c.deviation, c.id))
    low = sorted((c for c in fit if c.deviation < 0), key=lambda c: (c.deviation, c.id))
    if high and low and abs(low[0].deviation) > high[0].deviation:
        high, low = low, high
    merged = [c for pair in itertools.zip_longest(high, low) for c in pair if c is not None]
    return merged[:shots]


@dataclass(frozen=True)
class ShotFold:
    test_ids: tuple[str, ...]
    examples: tuple[str, ...]
    """The ids of the examples shown, all from the other folds."""
    before: Calibration
    """The judge's recorded points on this held-out fold."""
    after: Calibration
    """Its points asked again with the examples, on the same cases (errors left out of
    both, so the two stay paired)."""


@dataclass(frozen=True)
class ShotValidation:
    k: int
    seed: int
    folds: tuple[ShotFold, ...]
    errors: int
    """Held-out cases the judge erred on when asked again (left out of both figures)."""
    final: tuple[ShotCase, ...]
    """Chosen from every case: what the patch proposes."""


def cross_validate_shots(cases: Sequence[ShotCase], rejudge: Rejudge, k: int, seed: int,
                         shots: int = DEFAULT_SHOTS, threshold: float = DEFAULT_THRESHOLD,
                         max_chars: int = MAX_SHOT_CHARS) -> ShotValidation:
    """Choose on k-1 folds, ask again on the k-th, for each fold; then choose from all."""
    ids = [c.id for c in cases]
    done, errors = [], 0
    for test in folds(ids, k, seed):
        held = set(test)
        examples = choose_shots([c for i, c in enumerate(cases) if i not in held], shots,
                                threshold, max_chars)
        held_out = [cases[i] for i in test]
        points = list(rejudge(examples, held_out)) if examples else [c.auto for c in held_out]
        kept = [(c, p) for c, p in zip(held_out, points, strict=True) if p is not None]
        errors += len(held_out) - len(kept)
        before = calibrate(Judged(c.id, auto_score=c.auto, human_score=c.human)
                           for c, _ in kept)
        after = calibrate(Judged(c.id, auto_score=p, human_score=c.human) for c, p in kept)
        done.append(ShotFold(tuple(c.id for c in held_out), tuple(e.id for e in examples),
                             before, after))
    final = tuple(choose_shots(cases, shots, threshold, max_chars))
    return ShotValidation(k, seed, tuple(done), errors, final)
