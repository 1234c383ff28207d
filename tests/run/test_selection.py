"""`evaldsl.run.selection`: the ids file, and the laws of the sample's rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaldsl.errors import CaseDataError
from evaldsl.run.selection import draw, read_ids

IDS = st.lists(st.text(min_size=1, max_size=8), max_size=30)


class TestReadIds:
    def test_blank_lines_comments_and_spaces_are_ignored(self, tmp_path: Path) -> None:
        path = tmp_path / "ids.txt"
        path.write_text("\ufeff# header\nb7\n\n   \n  c 9  # why\r\n#x\na1", encoding="utf-8")
        assert read_ids(path) == {"b7", "c 9", "a1"}

    def test_a_file_that_is_not_utf8_is_a_data_error(self, tmp_path: Path) -> None:
        path = tmp_path / "ids.txt"
        path.write_bytes(b"a1\n\xff\xfe\n")
        with pytest.raises(CaseDataError, match="an ids file must be UTF-8 text"):
            read_ids(path)


class TestDraw:
    @given(IDS, st.integers(0, 40), st.integers())
    def test_the_order_of_the_ids_does_not_matter(self, ids: list[str], size: int,
                                                  seed: int) -> None:
        assert draw(ids, size, seed) == draw(list(reversed(ids)), size, seed)

    @given(IDS, st.integers(0, 40), st.integers())
    def test_a_larger_sample_keeps_the_smaller_one(self, ids: list[str], size: int,
                                                   seed: int) -> None:
        assert draw(ids, size, seed) <= draw(ids, size + 1, seed)

    @given(IDS, st.integers(0, 40), st.integers())
    def test_the_sample_has_n_distinct_ids_of_the_input(self, ids: list[str], size: int,
                                                        seed: int) -> None:
        drawn = draw(ids + ids, size, seed)
        assert drawn <= set(ids) and len(drawn) == min(size, len(set(ids)))

    def test_another_seed_draws_another_sample(self) -> None:
        ids = [f"c{i}" for i in range(100)]
        assert draw(ids, 10, 1) != draw(ids, 10, 2)
