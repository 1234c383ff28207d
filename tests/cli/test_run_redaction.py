"""A key the judge server repeats in what it says reaches no output of `evaldsl run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

KEY = "gw-51a3c0ffee-secret-77"
"""Shaped like no known key: only knowing the configured key can cut it out."""
SPEC = """\
spec "judged"
check polite = judge(criteria: "polite", scale: 10, min: 5)
"""
OUTPUTS = ("report.json", "report.html", "summary.md", "junit.xml", "results.jsonl")


def rows() -> list[dict[str, Any]]:
    """Cases the server answers normally, with its key in free text, with a 500 that
    repeats it, and with an answer whose reason repeats it (scripted per test)."""
    replies = ["hello", "FAULTECHO please", "FAULTECHO500 again", "echo in the reason"]
    return [{"id": f"c{i}", "messages": [{"role": "user", "content": "hi"},
                                         {"role": "assistant", "content": text}]}
            for i, text in enumerate(replies)]


def run(folder: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    env.update(EVALDSL_NO_CACHE="1", EVALDSL_LANG="en", EVALDSL_JUDGE_MAX_RETRIES="1",
               EVALDSL_JUDGE_BACKOFF="0.01", XDG_CONFIG_HOME=str(folder / "no-config"),
               **env_extra)
    outputs = ["-o", "report.json", "--html", "report.html", "--md", "summary.md",
               "--junit", "junit.xml", "--results", "results.jsonl"]
    return subprocess.run([sys.executable, "-m", "evaldsl", "run", "judged.eval",
                           "cases.jsonl", *outputs, *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=folder)


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_an_echoed_key_reaches_no_output(tmp_path: Path, judge_server: Any, how: str) -> None:
    """Named with `--judge-key-env`, or at home in the environment: the key is sent, the
    server repeats it, and every report, the journal and both streams hold only `***`."""
    (tmp_path / "judged.eval").write_text(SPEC, encoding="utf-8")
    judge_server.control(script=[{"contains": "echo in the reason", "key": "polite",
                                  "value": {"reason": f"the header said {KEY}", "score": 7}}])
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    if how == "flag":
        done = run(tmp_path, "--judge", judge_server.base_url, "--judge-key-env",
                   "ACME_API_KEY", ACME_API_KEY=KEY)
    else:
        done = run(tmp_path, EVALDSL_JUDGE_BASE_URL=judge_server.base_url,
                   EVALDSL_JUDGE_API_KEY=KEY)
    assert done.returncode in (0, 1), done.stderr
    assert judge_server.stats()["keys"] == [KEY]
    texts = {name: (tmp_path / name).read_text("utf-8") for name in OUTPUTS}
    texts.update(stdout=done.stdout, stderr=done.stderr)
    for name, text in texts.items():
        assert KEY not in text, name
    journal = texts["results.jsonl"]
    assert "upstream rejected key ***" in journal
    assert "HTTP 500" in journal
    assert "the header said ***" in journal
