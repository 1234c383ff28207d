"""The cycle collector held while `evaldsl run` starts (`evaldsl.cli.collector`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaldsl.cli import collector
from evaldsl.cli.main import main
from tests.support import run_kit


@pytest.fixture
def as_program() -> Iterator[None]:
    """The process said to end with the verb, as `main()` of the command says it."""
    collector.ends_process(True)
    try:
        yield
    finally:
        collector.ends_process(False)
        gc.unfreeze()
        gc.enable()


def test_the_program_holds_the_collector_then_freezes_the_start(as_program: None) -> None:
    with collector.held_until_begun() as begin:
        assert not gc.isenabled()
        before = gc.get_freeze_count()
        begin()
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
        begin()  # a second call changes nothing
        assert gc.isenabled()
    assert gc.isenabled()


def test_a_block_left_before_it_began_turns_the_collector_back_on(as_program: None) -> None:
    with pytest.raises(KeyError), collector.held_until_begun():
        raise KeyError("the spec did not load")
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_itself_is_left_alone(as_program: None) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    made_since = [[] for _ in range(1000)]
    with collector.held_until_begun() as begin:
        assert gc.isenabled()
        begin()
    # frozen objects that die leave the count (another thread may free some meanwhile);
    # a freeze here would have added the thousand lists made since
    assert gc.get_freeze_count() < frozen + len(made_since)


def test_main_called_with_argv_holds_and_freezes_nothing(tmp_path: Path) -> None:
    """Tests call `main` run after run: freezing there would keep their cyclic garbage."""
    spec = tmp_path / "spec.eval"
    spec.write_text(run_kit.SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    run_kit.write_cases(cases, 3)
    assert main(["run", str(spec), str(cases), "-o", str(tmp_path / "r.json"), "-q"]) == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
