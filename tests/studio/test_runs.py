"""The studio's runs keep apart from the runs of an earlier session in the same folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from evaldsl.studio.runs import Runs
from tests.support.run_kit import write_cases
from tests.support.studio_server import SPEC


class TestNumbering:
    def test_a_new_session_numbers_its_runs_after_the_folders_already_there(
            self, tmp_path: Path) -> None:
        for earlier in ("1", "7", "notes"):
            (tmp_path / "runs" / earlier).mkdir(parents=True)
        assert Runs(tmp_path)._new("examples").id == "8"

    def test_an_earlier_sessions_journal_is_never_overwritten(self, tmp_path: Path) -> None:
        spec, cases = tmp_path / "s.eval", tmp_path / "cases.jsonl"
        spec.write_text(SPEC, encoding="utf-8")
        write_cases(cases, 3)
        earlier = tmp_path / "studio" / "runs" / "1" / "results.jsonl"
        earlier.parent.mkdir(parents=True)
        earlier.write_text('{"kept": true}\n', encoding="utf-8")

        async def one_run() -> dict[str, object]:
            runs = Runs(tmp_path / "studio")
            run = runs.start_cases(spec, cases, None, None)
            assert run.task is not None
            await asyncio.wait_for(run.task, 120)
            return run.as_json()

        run = asyncio.run(one_run())
        assert (run["id"], run["state"], run["done"]) == ("2", "done", 3)
        assert json.loads(earlier.read_text("utf-8")) == {"kept": True}
