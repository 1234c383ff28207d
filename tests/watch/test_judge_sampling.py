"""`watch --judge-sample` and `--judge-budget`: model checks on a sample of sessions drawn by
id, within a budget per hour, deterministic checks on all; the report says which sessions
each figure counts and how many were left out. Over real HTTP, with the project's test
judge as a real process."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaldsl.watch.judge_sample import JUDGED, NOT_SAMPLED, OVER_BUDGET, JudgeGate, JudgePolicy
from evaldsl.watch.judge_sample import in_sample as drawn
from tests.support.run_kit import evaldsl
from tests.support.watch_kit import Watch

SPEC = """spec "sampled"
check greets = keyword(scope: first_user, any: ["hello"])
check polite = judge(criteria: "polite and helpful", scale: 10, min: 5)
outcome {
  good if greets and polite
  fair if polite
  poor otherwise
}
metric greet_rate = rate(greets)
metric polite_rate = rate(polite)
"""


def session(i: int) -> dict[str, Any]:
    user = "hello there" if i % 2 else "my fridge leaks"
    return {"id": f"s{i}", "messages": [{"role": "user", "content": user},
                                         {"role": "assistant", "content": f"reply {i}"}]}


def expected_in_sample(session_id: str, rate: float) -> bool:
    """The documented draw (docs/watch.md), computed here on its own."""
    digest = hashlib.sha256(b"evaldsl judge sample\x00" + session_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < rate


def decisions(state: Path) -> dict[str, str]:
    lines = (state / "watch.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    return {e["id"]: e["judging"] for e in entries if e["kind"] == "session"}


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "sampled.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture
def judge_env(judge_server: Any) -> dict[str, str]:
    return {"EVALDSL_JUDGE": "openai", "EVALDSL_JUDGE_BASE_URL": judge_server.base_url,
            "EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01",
            "EVALDSL_NO_CACHE": "1"}


@pytest.fixture
def started() -> Iterator[list[Watch]]:
    watches: list[Watch] = []
    yield watches
    for w in watches:
        w.stop()


class TestDraw:
    def test_a_session_is_drawn_by_its_id_alone(self) -> None:
        ids = [f"conv-{i}" for i in range(4000)]
        picked = [i for i in ids if drawn(i, 0.1)]
        assert picked == [i for i in ids if expected_in_sample(i, 0.1)]
        assert 0.08 < len(picked) / len(ids) < 0.12
        shuffled = ids[:]
        random.Random(7).shuffle(shuffled)
        assert sorted(i for i in shuffled if drawn(i, 0.1)) == sorted(picked)
        assert all(drawn(i, 1.0) for i in ids[:50])

    def test_the_budget_counts_one_hour_of_arrivals(self) -> None:
        gate = JudgeGate(JudgePolicy(1.0, 3))
        made = [gate.decide(f"s{i}", at) for i, at in enumerate((0.0, 10.0, 20.0, 30.0))]
        assert made == [JUDGED, JUDGED, JUDGED, OVER_BUDGET]
        assert gate.decide("s4", 3599.0) == OVER_BUDGET
        assert gate.decide("s5", 3600.5) == JUDGED, "the first one is an hour old"
        assert gate.counts == {JUDGED: 4, NOT_SAMPLED: 0, OVER_BUDGET: 2}

    def test_a_bad_share_or_budget_is_a_usage_error(self, spec: Path, tmp_path: Path) -> None:
        for flag, value in (("--judge-sample", "0%"), ("--judge-sample", "150%"),
                            ("--judge-sample", "nan"), ("--judge-budget", "ten/h"),
                            ("--judge-budget", "-3/h")):
            done = evaldsl("watch", spec, "--state", tmp_path / "s", "--port", "0", flag,
                           value, env={"EVALDSL_LANG": "en"})
            assert done.returncode == 2, (flag, value, done.stderr)
            assert flag in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
class TestOverHttp:
    def test_the_sample_is_the_same_after_a_restart_and_in_another_watch(
            self, spec: Path, tmp_path: Path, judge_env: dict[str, str], judge_server: Any,
            started: list[Watch]) -> None:
        first, other = tmp_path / "first", tmp_path / "other"
        flags = ("--judge-sample", "50%")
        w = Watch(spec, "--state", first, *flags, env=judge_env)
        started.append(w)
        assert w.post([session(i) for i in range(12)])["judged"] == 12
        w.kill()
        w = Watch(spec, "--state", first, *flags, env=judge_env)
        started.append(w)
        answer = w.post([session(i) for i in range(24)])
        assert (answer["judged"], answer["duplicates"]) == (12, 12)
        judging = w.get("/report")["judging"]
        asked = judge_server.stats()["chat"]

        w2 = Watch(spec, "--state", other, *flags, env=judge_env)
        started.append(w2)
        w2.post([session(i) for i in reversed(range(24))])
        one, two = decisions(first), decisions(other)
        assert one == two, "the same sessions are drawn, whatever the order and the process"
        judged = {i for i, d in one.items() if d == JUDGED}
        assert judged == {f"s{i}" for i in range(24) if expected_in_sample(f"s{i}", 0.5)}
        assert 0 < len(judged) < 24
        assert {d for i, d in one.items() if i not in judged} == {NOT_SAMPLED}
        assert asked == len(judged), "the judge is asked about the drawn sessions only"
        assert judging["sessions"] == 24 and judging["model_judged"] == len(judged)
        assert judging["not_sampled"] == 24 - len(judged) and judging["over_budget"] == 0
        assert judging["dropped_share"] == pytest.approx((24 - len(judged)) / 24)

    def test_the_budget_holds_across_a_restart_and_each_figure_says_its_sessions(
            self, spec: Path, tmp_path: Path, judge_env: dict[str, str], judge_server: Any,
            started: list[Watch]) -> None:
        state = tmp_path / "state"
        flags = ("--judge-budget", "4/h")
        w = Watch(spec, "--state", state, *flags, env=judge_env)
        started.append(w)
        assert w.post([session(i) for i in range(6)])["judged"] == 6
        assert judge_server.stats()["chat"] == 4
        w.stop()
        w = Watch(spec, "--state", state, *flags, env=judge_env)
        started.append(w)
        w.post([session(i) for i in range(6, 8)])
        assert judge_server.stats()["chat"] == 4, "the hour's budget was spent before"
        made = decisions(state)
        assert [made[f"s{i}"] for i in range(8)] == [JUDGED] * 4 + [OVER_BUDGET] * 4

        report = w.get("/report")
        judging = report["judging"]
        assert (judging["sessions"], judging["model_judged"], judging["over_budget"]) == \
            (8, 4, 4)
        assert judging["budget_per_hour"] == 4 and judging["dropped_share"] == 0.5
        assert judging["denominators"] == {
            "checks": {"greets": "all", "polite": "model_judged"},
            "outcomes": {"outcome": "model_judged"},
            "metrics": {"greet_rate": "all", "polite_rate": "model_judged"}}
        window = report["windows"][0]
        assert window["judging"] == {JUDGED: 4, OVER_BUDGET: 4}
        metrics = {m["name"]: m for m in window["report"]["metrics"]}
        assert metrics["greet_rate"]["denominator"] == 8
        assert metrics["polite_rate"]["denominator"] == 4
        assert metrics["polite_rate"]["errors"] == 0, "a skipped check is no error"
        verdicts = window["report"]["outcomes"][0]["counts"]
        assert sum(verdicts.values()) == 4 and verdicts["error"] == 0
        checks = {c["name"]: c for c in window["report"]["checks"]}
        assert checks["polite"]["errors"] == 0
        assert checks["polite"]["passed"] + checks["polite"]["failed"] == 4
