"""Lining up expected items with the items an agent produced, by trajectory's order modes.

An item is one tool call, or with `by_message` the calls of one assistant
message. `fits[i][j]` says whether actual item `j` may stand for expected item
`i`; `weights[i]` is how many expected calls item `i` holds, so that a score
counts calls, never messages.

The ordered modes (`strict`, `ordered_superset`) count the heaviest common
subsequence. The others count a one-to-one matching built heaviest expected
item first with augmenting paths: the sets of expected items that can all be
matched form a matroid, so that greedy order gives a matching that is both of
the largest weight and of the largest size, and one matching serves the
verdict and the score.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

OrderMode = Literal["strict", "unordered", "subset", "superset", "ordered_superset"]


class Alignment(NamedTuple):
    passed: bool
    """The order mode's verdict."""
    matched: int
    """Expected calls lined up (the sum of the weights of the expected items matched)."""


def align(mode: OrderMode, fits: list[list[bool]], n_actual: int,
          weights: list[int]) -> Alignment:
    """The verdict of `mode` and the expected calls it lines up."""
    if mode in ("strict", "ordered_superset"):
        matched = heaviest_common(fits, n_actual, weights)
        if mode == "strict":
            same = len(fits) == n_actual and all(fits[i][i] for i in range(n_actual))
            return Alignment(same, matched)
        return Alignment(matched == sum(weights), matched)
    pairs = matching(fits, n_actual, weights)
    size = len(pairs)
    passed = {"unordered": size == len(fits) == n_actual, "subset": size == n_actual,
              "superset": size == len(fits)}[mode]
    return Alignment(passed, sum(weights[i] for i, _j in pairs))


def heaviest_common(fits: list[list[bool]], n_actual: int, weights: list[int]) -> int:
    """The weight of the heaviest common subsequence (expected items in order).

    >>> heaviest_common([[True, False], [False, True]], 2, [1, 1])
    2
    >>> heaviest_common([[False, True], [True, False]], 2, [1, 3])
    3
    """
    row = [0] * (n_actual + 1)
    for i, weight in enumerate(weights):
        diagonal = 0
        for j in range(1, n_actual + 1):
            above = row[j]
            row[j] = max(above, row[j - 1], diagonal + weight if fits[i][j - 1] else 0)
            diagonal = above
    return row[-1]


def matching(fits: list[list[bool]], n_actual: int,
             weights: list[int]) -> list[tuple[int, int]]:
    """(expected, actual) pairs of a one-to-one matching of the largest weight and size.

    >>> matching([[True, True], [True, False]], 2, [1, 1])
    [(0, 1), (1, 0)]
    """
    owner = [-1] * n_actual

    def augment(i: int, seen: list[bool]) -> bool:
        for j in range(n_actual):
            if fits[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] == -1 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in sorted(range(len(fits)), key=lambda i: -weights[i]):
        augment(i, [False] * n_actual)
    return sorted((i, j) for j, i in enumerate(owner) if i >= 0)
