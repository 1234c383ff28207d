"""`evaldsl run` with `votes:` against the test server: the journal keeps each case's
agreement, a metric reads it, and a second run is served from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SPEC = """\
spec "voted"
check polite = judge(criteria: "polite", scale: 10, min: 5, votes: 3)
outcome {
  good if polite
  bad otherwise
}
metric agreement = mean(polite.agreement)
"""


def run(folder: Path, server: Any, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    env.update(EVALDSL_LANG="en", EVALDSL_JUDGE_BASE_URL=server.base_url,
               EVALDSL_JUDGE_API_KEY="sk-test", EVALDSL_JUDGE_BACKOFF="0.01",
               EVALDSL_CACHE_DIR=str(folder / "cache"),
               XDG_CONFIG_HOME=str(folder / "no-config"))
    return subprocess.run([sys.executable, "-m", "evaldsl", "run", "voted.eval",
                           "cases.jsonl", "-o", "report.json", "--results", "results.jsonl", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=folder)


def test_votes_reach_the_journal_and_the_metrics_and_rerun_free(
        tmp_path: Path, judge_server: Any) -> None:
    """c1's samples say 8, 2, 8 (median 8, two of three agree), c2's say 3 every time:
    six requests, the mean agreement (2/3 + 1) / 2 over 2 cases, and a re-run asks none."""
    (tmp_path / "voted.eval").write_text(SPEC, encoding="utf-8")
    rows = [{"id": f"c{i}", "messages": [{"role": "user", "content": "hi"},
                                         {"role": "assistant", "content": text}]}
            for i, text in ((1, "first reply"), (2, "second reply"))]
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    judge_server.control(script=[
        {"contains": "first reply", "key": "polite",
         "values": [{"score": v, "reason": "r"} for v in (8, 2, 8)]},
        {"contains": "second reply", "key": "polite", "value": {"score": 3, "reason": "r"}}])
    done = run(tmp_path, judge_server)
    assert done.returncode in (0, 1), done.stderr
    assert judge_server.stats()["chat"] == 6
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text("utf-8").splitlines()]
    polite = {x["id"]: x["checks"]["polite"] for x in lines if "id" in x}
    assert (polite["c1"]["value"], polite["c1"]["votes"]) == (8, 3)
    assert abs(polite["c1"]["agreement"] - 2 / 3) < 1e-9
    assert (polite["c2"]["value"], polite["c2"]["agreement"]) == (3, 1.0)
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    metric = next(m for m in report["metrics"] if m["name"] == "agreement")
    assert abs(metric["value"] - (2 / 3 + 1) / 2) < 1e-9
    again = run(tmp_path, judge_server, "--overwrite")
    assert again.returncode == done.returncode, again.stderr
    assert judge_server.stats()["chat"] == 6
    assert "6 from cache" in again.stdout
