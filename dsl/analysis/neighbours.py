"""Examples for an embedding classifier, learned from the cases reviewers labelled.

`classify(by: embeddings)` picks the label whose examples lie nearest a text. Every case
a reviewer labelled is an example the check can learn from: its text, with the label the
reviewer gave. The disagreements teach the check what it misread; the agreements keep
the other labels anchored, so that a label which gained examples does not draw in the
texts the check read right (adding the disagreements alone made held-out accuracy fall in
a trial). Whether the examples help is measured, not assumed: the labelled cases are split
into folds, the other folds' cases become examples, and the held-out fold is classified
again; the accuracy against the reviewers before and after is the gain. Only a gain on
cases the examples did not come from proposes a patch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Labelled:
    """One reviewed case: the text the check read, the reviewer's label and the check's."""

    id: str
    text: str
    human: str
    machine: str | None

    @property
    def missed(self) -> bool:
        return self.machine != self.human


Relabel = Callable[[Sequence[Labelled], Sequence[Labelled]], list[str | None]]
"""Given examples to add, the check's labels for the held-out cases (None where it erred)."""


@dataclass(frozen=True)
class ExampleValidation:
    """The cross-validated effect of learning examples from the disagreements."""

    n: int
    folds: int
    before: float
    """The check's accuracy against the reviewers as it stands, on every labelled case."""
    after: float
    """The accuracy on each held-out fold with the other folds' disagreements as examples."""
    final: list[Labelled]
    """Every reviewed case: the examples proposed when the gain is real."""
    missed: int
    """How many of them the check got wrong as it stands."""

    @property
    def helped(self) -> bool:
        return self.after > self.before


def cross_validate_examples(items: Sequence[Labelled], relabel: Relabel, folds: int,
                            seed: int) -> ExampleValidation:
    """Accuracy before, and on held-out folds after, adding the other folds' cases."""
    order = list(items)
    random.Random(seed).shuffle(order)
    right = 0
    for k in range(folds):
        held = order[k::folds]
        train = [x for i, x in enumerate(order) if i % folds != k]
        found = relabel(train, held)
        right += sum(1 for x, label in zip(held, found, strict=True) if label == x.human)
    before = sum(1 for x in items if not x.missed) / len(items)
    return ExampleValidation(len(items), folds, before, right / len(items), list(items),
                             sum(1 for x in items if x.missed))
