"""`evaldsl review serve`'s refusals, said out loud before anything listens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize(("words", "message"), [
    (["review", "serve"], "review serve needs a review store or a results file"),
    (["review", "serve", "nowhere.jsonl"], "`nowhere.jsonl` does not exist"),
    (["review", "results.jsonl"], "evaldsl review RESULTS needs --spec SPEC and -o SAMPLE"),
    (["review", "a.jsonl", "b.jsonl"], "unexpected argument `b.jsonl`"),
])
def test_a_command_line_that_cannot_work_is_refused(kit: Any, words: list[str],
                                                    message: str) -> None:
    done = kit.evaldsl(*words)
    assert done.returncode == 2
    assert f"evaldsl review: error: {message}" in done.stderr


def test_results_without_their_spec_are_refused(kit: Any, tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"version": 1}\n', encoding="utf-8")
    done = kit.evaldsl("review", "serve", results)
    assert done.returncode == 2
    assert f"`{results}` is a results file: give --spec SPEC" in done.stderr
    assert not (tmp_path / "results.review.db").exists()
