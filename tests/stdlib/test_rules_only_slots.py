"""Rules-only `slots`: a slot given by a pattern never asks a model; unmatched is not filled.

A model is asked only for a slot without a pattern, or for an unmatched one when the
spec says `ask_unmatched: true`. A spec whose slots are all given by patterns runs
with `evaldsl run` and no judge configured at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.stdlib.test_model_primitives import DIALOG, run

SPEC = """\
spec "rules only"
check got = slots(scope: dialog, min: 0.5, slots: {phone: "联系电话", city: "城市"},
                  patterns: {phone: "1[3-9]\\\\d{9}", city: "北京|上海"})
metric filled = mean(got.score)
"""

CASES = [
    {"id": "a", "messages": [{"role": "user", "content": "我的电话13812345678，在杭州"},
                             {"role": "assistant", "content": "好的，已记录"}]},
    {"id": "b", "messages": [{"role": "user", "content": "我在上海，电话13912345678"},
                             {"role": "assistant", "content": "好的"}]},
]


def bare_env() -> dict[str, str]:
    """No judge, no embedder, no cache: nothing a model could be asked through."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    return {**env, "EVALDSL_NO_CACHE": "1"}


def test_an_unmatched_pattern_slot_is_not_filled_and_asks_nothing() -> None:
    result, judge = run("slots", {}, DIALOG, slots={"phone": "电话", "fax": "传真"},
                        patterns={"phone": r"1[3-9]\d{9}", "fax": r"传真\d+"})
    assert result.fields["filled"] == {"phone": True, "fax": False}
    assert result.score == 0.5 and judge.requests == []


def test_only_slots_without_a_pattern_are_asked() -> None:
    answer = {"time": {"evidence": "明天上午"}}
    result, judge = run("slots", answer, DIALOG, slots={"fax": "传真", "time": "预约时间"},
                        patterns={"fax": r"传真\d+"})
    assert result.fields["filled"] == {"fax": False, "time": True}
    asked = judge.requests[0].schema["properties"]["c"]["properties"]  # type: ignore[index]
    assert set(asked) == {"time"}


def test_ask_unmatched_asks_the_model_for_an_unmatched_slot() -> None:
    answer = {"fax": {"evidence": "明天上午"}}
    result, judge = run("slots", answer, DIALOG, slots={"fax": "传真"},
                        patterns={"fax": r"传真\d+"}, ask_unmatched=True)
    assert result.fields["filled"] == {"fax": True} and len(judge.requests) == 1


def test_a_rules_only_spec_runs_with_no_judge(tmp_path: Path) -> None:
    spec, cases = tmp_path / "rules.eval", tmp_path / "cases.jsonl"
    spec.write_text(SPEC, encoding="utf-8")
    cases.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES),
                     encoding="utf-8")
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "evaldsl", "run", spec, cases, "-q",
                           "-o", report, "--results", tmp_path / "results.jsonl"],
                          capture_output=True, text=True, timeout=120, env=bare_env(),
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "judge" not in done.stderr
    rows = [json.loads(line) for line in
            (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()[1:]]
    filled = {r["id"]: r["checks"]["got"]["filled"] for r in rows if "id" in r}  # not the cost
    assert filled == {"a": {"phone": True, "city": False}, "b": {"phone": True, "city": True}}
    metrics = json.loads(report.read_text(encoding="utf-8"))["metrics"]
    assert [(m["name"], m["value"]) for m in metrics] == [("filled", 0.75)]
