"""Every verb's output, byte for byte, for the shipped specs and 300 generated ones.

Refactorings of the run loop, the results line and the report promise the same bytes out;
this test holds them to it. Each spec's outputs (check in English and Chinese, fmt, explain,
test, and for the generated specs run, merge and compare, whose reports and journals are
included) are hashed and compared with `tests/corpus/outputs/digests.json`. When an output
is meant to change, `python -m tests.support.outputs --write` rewrites the digests and the
diff names every spec and verb that moved.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import outputs


def _expected() -> dict[str, dict[str, str]]:
    loaded: dict[str, dict[str, str]] = json.loads(outputs.DIGESTS.read_text(encoding="utf-8"))
    return loaded


def test_the_corpus_holds_300_generated_specs_and_every_shipped_one() -> None:
    expected = _expected()
    assert len(outputs.generated_specs()) == 300
    assert sum(name.startswith("generated/") for name in expected) == 300
    shipped = {str(path.relative_to(outputs.REPO)) for path in outputs.SHIPPED_SPECS}
    assert shipped == {name for name in expected if not name.startswith("generated/")}


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory where the machine has one: each run writes and fsyncs its journal
    and reports, which on a busy disk costs more than the runs themselves."""
    memory = Path("/dev/shm")
    if not (memory.is_dir() and os.access(memory, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="evaldsl-outputs-", dir=memory))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_every_output_is_as_recorded(scratch: Path, model_server_process: Any) -> None:
    model_server_process.reset()
    found = outputs.parallel_digests(scratch, model_server_process.base_url)
    expected = _expected()
    moved = outputs.differences(expected, found)
    assert not moved, ("outputs changed (if meant: python -m tests.support.outputs --write):\n"
                       + "\n".join(moved[:40]))


def test_a_changed_output_is_named() -> None:
    before = {"generated/001": {"run": "aa", "check": "bb"}}
    after = {"generated/001": {"run": "ac", "check": "bb"}, "generated/002": {"check": "cc"}}
    assert outputs.differences(before, after) == ["generated/001: run", "generated/002: check"]


def test_a_shipped_specs_outputs_do_not_name_the_checkout(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The digests hold wherever the repository is checked out: no output names its folder."""
    path = outputs.REPO / "specs" / "bfcl.eval"
    keep = tmp_path / "kept"
    keep.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = outputs.Outputs(scratch, "http://127.0.0.1:9", keep)
    monkeypatch.chdir(outputs.REPO)  # as chunk_digests runs them
    outputs._shipped(found, "specs/bfcl.eval", path, path.read_text(encoding="utf-8"))
    kept = {file.name: file.read_bytes() for file in keep.iterdir()}
    assert {"specs_bfcl.eval.test", "specs_bfcl.eval.check"} <= kept.keys()
    assert [name for name, data in kept.items() if str(outputs.REPO).encode() in data] == []
