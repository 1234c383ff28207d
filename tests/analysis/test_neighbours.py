"""Learning a classifier's examples from reviewed cases: the gain is held out."""

from __future__ import annotations

from collections.abc import Sequence

from evaldsl.analysis.neighbours import Labelled, cross_validate_examples


def items() -> list[Labelled]:
    """Ten cases: the check reads every `refund` text as `other`."""
    out = [Labelled(f"r{i}", f"refund please {i}", "refund", "other") for i in range(5)]
    return out + [Labelled(f"o{i}", f"hello {i}", "other", "other") for i in range(5)]


def learner(examples: Sequence[Labelled], held: Sequence[Labelled]) -> list[str | None]:
    """A stand-in classifier: a text is `refund` once any refund text is an example."""
    knows = any(x.human == "refund" for x in examples)
    return ["refund" if knows and x.text.startswith("refund") else "other" for x in held]


def test_examples_from_other_folds_fix_the_held_out_fold() -> None:
    cv = cross_validate_examples(items(), learner, folds=5, seed=0)
    assert (cv.before, cv.after, cv.missed, cv.n) == (0.5, 1.0, 5, 10)
    assert cv.helped and len(cv.final) == 10


def test_a_held_out_case_never_learns_from_itself() -> None:
    seen: list[tuple[set[str], set[str]]] = []

    def spy(examples: Sequence[Labelled], held: Sequence[Labelled]) -> list[str | None]:
        seen.append(({x.id for x in examples}, {x.id for x in held}))
        return [x.machine for x in held]

    cv = cross_validate_examples(items(), spy, folds=3, seed=1)
    assert all(not (a & b) for a, b in seen) and len(seen) == 3
    assert not cv.helped  # nothing changed: no gain, no patch
