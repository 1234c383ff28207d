"""`run --workers` processes hold no key variable: a judging worker is handed its key."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.cases.loading import read_rows
from evaldsl.model import Settings
from evaldsl.report.layout import layout_of
from evaldsl.run.runner import RunOptions
from evaldsl.run.workers import run_workers
from tests.support.worker_env import EnvSink

KEY = "acme-worker-key-5e6f7a"
KEY_VARIABLES = ("OPENAI_API_KEY", "ACME_API_KEY", "GITHUB_TOKEN", "EVALDSL_JUDGE_API_KEY")
SPEC = """\
spec "judged"
check polite = judge(criteria: "polite", scale: 10, min: 5)
"""


@pytest.mark.parametrize("given", [True, False])
def test_workers_get_the_judges_key_and_no_key_variable(
        tmp_path: Path, kit: Any, judge_server: Any, monkeypatch: pytest.MonkeyPatch,
        given: bool) -> None:
    """With settings given, or left to be read (then in the parent, not by each worker from
    an environment that no longer holds the key)."""
    for name in KEY_VARIABLES:
        monkeypatch.setenv(name, f"value-of-{name}")
    monkeypatch.setenv("EVALDSL_TEST_MARKER", "kept")
    monkeypatch.setenv("EVALDSL_NO_CACHE", "1")
    spec_file = tmp_path / "judged.eval"
    spec_file.write_text(SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 8)
    settings = None
    if given:
        monkeypatch.setenv("ACME_API_KEY", KEY)
        settings = Settings.load(judge_base_url=judge_server.base_url,
                                 judge_api_key_env="ACME_API_KEY")
    else:
        monkeypatch.setenv("EVALDSL_JUDGE_BASE_URL", judge_server.base_url)
        monkeypatch.setenv("EVALDSL_JUDGE_API_KEY", KEY)
    spec = load(spec_file)
    sink = EnvSink((*KEY_VARIABLES, "EVALDSL_TEST_MARKER"))
    run_workers(spec, layout_of(spec.source, "judged.eval"), read_rows([cases]),
                RunOptions(), 2, settings, [sink])
    assert sink.rendered == 8 and judge_server.stats()["chat"] >= 8
    assert sink.seen == {"EVALDSL_TEST_MARKER"}
    assert judge_server.stats()["keys"] == [KEY]
    assert all(os.environ.get(name) for name in KEY_VARIABLES)
