"""`evaldsl run --engine`: the Ray engine's flags checked before any work (Ray not started)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize("flags", [("--actors", "2"), ("--address", "10.0.0.5:6379")])
def test_ray_flags_need_the_ray_engine(kit: Any, spec_file: Path, tmp_path: Path,
                                       flags: tuple[str, ...]) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 3)
    done = kit.evaldsl("run", spec_file, cases, *flags)
    assert done.returncode == 2
    assert f"{flags[0]} needs --engine ray" in done.stderr


@pytest.mark.parametrize("flags", [("--limit", "3"), ("--deadline", "1m"),
                                   ("--where", "case.intent == \"x\"")])
def test_what_the_ray_engine_does_not_do_is_refused(kit: Any, spec_file: Path, tmp_path: Path,
                                                    flags: tuple[str, ...]) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 3)
    done = kit.evaldsl("run", spec_file, cases, "--engine", "ray", *flags)
    assert done.returncode == 2
    assert f"{flags[0]} does not work with --engine ray" in done.stderr
    assert "docs/cluster.md" in done.stderr
