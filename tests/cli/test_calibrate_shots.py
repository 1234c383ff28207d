"""`evaldsl calibrate --shots-for`: few-shot examples from the labelled disagreements, their
gain measured by asking the test server's judge again, and the patch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaldsl.syntax.parser import parse

SPEC = """\
spec "quality with shots"
check quality = judge(scope: dialog, criteria: "整体服务质量", scale: 10)
let score = 100 * quality.score
outcome {
  good if score >= 60
  poor otherwise
}
metric mean_score = mean(score)
"""
CASES = 30


def human(i: int) -> int:
    """The reviewers' points for case i: 0 to 90."""
    return (i * 37) % 10 * 10


def evaldsl(folder: Path, server: Any, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    env.update(EVALDSL_LANG="en", EVALDSL_JUDGE_BASE_URL=server.base_url,
               EVALDSL_JUDGE_API_KEY="sk-test", EVALDSL_JUDGE_BACKOFF="0.01",
               EVALDSL_CACHE_DIR=str(folder / "cache"), XDG_CONFIG_HOME=str(folder / "none"))
    return subprocess.run([sys.executable, "-m", "evaldsl", *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=folder)


@pytest.fixture
def labelled(tmp_path: Path, judge_server: Any) -> Path:
    """30 dialogs judged by the test server's hashed points, and reviewers' own points.
    Shown examples, the server's judge gives each dialog the reviewers' points: a judge
    that learns, so the gain can only come from asking again with the examples."""
    (tmp_path / "shots.eval").write_text(SPEC, encoding="utf-8")
    with (tmp_path / "cases.jsonl").open("w", encoding="utf-8") as out:
        for i in range(CASES):
            out.write(json.dumps({"id": f"c{i:02}", "messages": [
                {"role": "user", "content": f"第{i}号用户：空调坏了"},
                {"role": "assistant", "content": f"回复{i}：师傅明天上门"}]},
                ensure_ascii=False) + "\n")
    done = evaldsl(tmp_path, judge_server, "run", "shots.eval", "cases.jsonl",
                   "--results", "results.jsonl")
    assert done.returncode in (0, 1), done.stderr
    with (tmp_path / "labels.jsonl").open("w", encoding="utf-8") as out:
        for i in range(CASES):
            out.write(json.dumps({"id": f"c{i:02}", "score": human(i),
                                  "label": "good" if human(i) >= 60 else "poor"}) + "\n")
    judge_server.control(script=[
        {"contains": f"第{i}号用户", "prompt_contains": "example: text", "key": "quality",
         "value": {"score": human(i) // 10, "reason": "r"}} for i in range(CASES)])
    return tmp_path


def shots(folder: Path, server: Any, *extra: str) -> subprocess.CompletedProcess[str]:
    return evaldsl(folder, server, "calibrate", "results.jsonl", "labels.jsonl", "--spec",
                   "shots.eval", "--score", "mean_score", "--shots-for", "quality",
                   "--cases", "cases.jsonl", "--folds", "3", *extra)


def test_examples_from_other_folds_bring_the_judge_to_the_reviewers(
        labelled: Path, judge_server: Any) -> None:
    done = shots(labelled, judge_server, "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["shots"]
    assert (found["check"], found["cases"], found["rejudge_errors"]) == ("quality", CASES, 0)
    for fold in found["per_fold"]:
        assert fold["examples"]
        assert fold["after"]["mad"] < fold["before"]["mad"]
    mean = found["held_out_mean"]["mad"]
    assert mean["after"] == pytest.approx(0.0) and mean["before"] > 10
    assert len(found["proposed"]) == 3


def test_the_patch_applies_and_the_spec_is_unchanged(labelled: Path,
                                                     judge_server: Any) -> None:
    done = shots(labelled, judge_server)
    assert done.returncode == 0, done.stderr
    assert "3-fold cross-validated (seed 0) over 30 cases" in done.stdout
    assert (labelled / "shots.eval").read_text("utf-8") == SPEC
    patch = done.stdout[done.stdout.index("--- a/"):]
    (labelled / "shots.patch").write_text(patch + "\n", encoding="utf-8")
    applied = subprocess.run(["patch", "-p1", "-i", "shots.patch"], cwd=labelled,
                             capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    patched = (labelled / "shots.eval").read_text("utf-8")
    assert "examples: [" in patched and "answer:" in patched
    assert parse(patched).diagnostics == []


@pytest.mark.parametrize(("args", "words"), [
    (("--shots-for", "qualty", "--spec", "shots.eval", "--cases", "cases.jsonl"),
     "did you mean `quality`"),
    (("--shots-for", "quality", "--spec", "shots.eval"), "--cases CASES"),
])
def test_a_misnamed_check_or_missing_cases_stops_with_the_reason(
        labelled: Path, judge_server: Any, args: tuple[str, ...], words: str) -> None:
    done = evaldsl(labelled, judge_server, "calibrate", "results.jsonl", "labels.jsonl",
                   "--score", "mean_score", *args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_examples_that_make_the_judge_worse_are_not_proposed(
        labelled: Path, judge_server: Any) -> None:
    """Shown examples, this judge gives each dialog the opposite of the reviewers' points:
    the held-out figures get worse, so nothing is proposed and the output says why."""
    judge_server.control(script=[
        {"contains": f"第{i}号用户", "prompt_contains": "example: text", "key": "quality",
         "value": {"score": 9 - human(i) // 10, "reason": "r"}} for i in range(CASES)])
    done = shots(labelled, judge_server, "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["shots"]
    mean = found["held_out_mean"]["spearman"]
    assert mean["after"] < mean["before"]
    assert (found["proposed"], found["patch"], found["helped"]) == ([], "", False)
    text = shots(labelled, judge_server)
    assert text.returncode == 0, text.stderr
    assert "--- a/" not in text.stdout
    assert "the examples did not improve the held-out figures" in text.stdout
    assert "no examples proposed" in text.stdout
