"""The README's first Quickstart command: shipped files, no judge, nothing to compile."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import evaldsl
from evaldsl.model.protocols import JudgeAnswer, JudgeRequest

ROOT = Path(__file__).resolve().parents[2]


def _first_command() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1]
    block = re.search(r"```sh\n(.*?)\n```", quickstart, re.S)
    assert block is not None, "the Quickstart has no sh block"
    return shlex.split(block.group(1))


class _NoJudge:
    """A judge that must never be asked: the first command has none."""

    model = "none"

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        raise AssertionError(f"the first command asked a judge: {request.messages!r}")


class TestFirstCommand:
    def test_installs_no_extra_that_compiles(self) -> None:
        """`local` brings llama-cpp-python, which compiles: it is the second step."""
        words = _first_command()
        install = words[:words.index("&&")]
        assert install[:3] == ["pip", "install", "-e"]
        assert "local" not in install[3]
        assert "CMAKE_ARGS" not in " ".join(words)

    def test_runs_a_shipped_spec_on_shipped_data_without_a_judge(self) -> None:
        words = _first_command()
        run = words[words.index("&&") + 1:]
        assert run[:2] == ["evaldsl", "run"] and "--judge" not in run
        spec, cases = ROOT / run[2], ROOT / run[3]
        assert spec.parent.name == "specs" and cases.parent.name == "examples"
        rows = [json.loads(line) for line in cases.read_text(encoding="utf-8").splitlines()]
        report = evaldsl.load(spec, judge=_NoJudge()).run(rows)
        assert report.counts["outcome"]["error"] == 0
        assert report.counts["outcome"]["success"] > 0
