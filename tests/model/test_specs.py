"""The shipped model specs over their example cases, against the test server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.model import Settings

REPO = Path(__file__).resolve().parents[2]
SPECS = ["repair_booking", "complaint_handling", "quality_judge"]


def cases(name: str) -> list[dict[str, Any]]:
    lines = (REPO / "examples" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def settings(server: Any, cache: Path) -> Settings:
    return Settings.load(env={"EVALDSL_JUDGE_BASE_URL": server.base_url,
                              "EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_CACHE_DIR": str(cache)})


@pytest.mark.parametrize("name", SPECS)
def test_spec_runs_without_errors_and_reruns_free(name: str, openai_server: Any,
                                                  tmp_path: Path) -> None:
    """Every case gets a label (none `error`); the re-run is served by the cache alone."""
    path = REPO / "specs" / f"{name}.eval"
    first = evaldsl.load(path, settings=settings(openai_server, tmp_path))
    report = first.run(cases(name)).to_dict()
    labels = next(iter(report["outcomes"].values()))
    assert labels.get("error", 0) == 0
    assert sum(labels.values()) == len(cases(name))
    assert first.model_stats().calls > 0
    again = evaldsl.load(path, settings=settings(openai_server, tmp_path))
    assert again.run(cases(name)).to_dict()["outcomes"] == report["outcomes"]
    assert again.model_stats().calls == 0


def test_quality_dimensions_are_asked_in_one_request(openai_server: Any,
                                                     tmp_path: Path) -> None:
    """Four judges on the last reply: at most one request per case."""
    spec = evaldsl.load(REPO / "specs" / "quality_judge.eval",
                        settings=settings(openai_server, tmp_path))
    spec.run(cases("quality_judge"))
    assert openai_server.stats()["chat"] <= len(cases("quality_judge"))
