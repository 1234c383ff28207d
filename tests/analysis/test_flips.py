"""Flip rates' alpha counted by numpy equals the reference alpha over the same pairs."""

from __future__ import annotations

import numpy as np
import pytest

from evaldsl.analysis.flips import pair_coincidences
from evaldsl.report.alpha import Level, alpha_of_coincidences, krippendorff_alpha


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(5))
def test_the_counted_matrix_gives_the_alpha_of_the_pairs(level: Level, seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 4, 300).astype(np.int8)
    new = np.where(rng.random(300) < 0.7, base, rng.integers(0, 4, 300)).astype(np.int8)
    pairs = list(zip(base.tolist(), new.tolist(), strict=True))
    expected = krippendorff_alpha(pairs, level)
    assert expected is not None
    assert alpha_of_coincidences(pair_coincidences(base, new), level) == pytest.approx(expected)


def test_no_cases_and_one_value_have_no_alpha() -> None:
    empty = np.array([], dtype=np.int8)
    assert alpha_of_coincidences(pair_coincidences(empty, empty)) is None
    same = np.zeros(10, dtype=np.int8)
    assert alpha_of_coincidences(pair_coincidences(same, same)) is None
