"""benchmarks/judge_agreement.py: its split, its specs, its counts, on a real judge server.

The script is run as a user runs it, a process that runs `evaldsl run`, on a
few rated dialogs written here in the shared data's schema: against the
project's test server (fast; one dialog scripted to get a reply that is not
JSON, so the error count is checked), and once against the local judge.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import evaldsl

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "judge_agreement.py"
BROKEN = "BROKENMARK"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("judge_agreement", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_agreement"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _load_script()


def _uss(number: int, ratings: list[int], text: str) -> dict[str, Any]:
    turns = [{"idx": 0, "role": "user", "text": f"Find me a train to Cambridge {number}."},
             {"idx": 1, "role": "system", "text": text}]
    return {"schema": "rated_dialog.v1", "source": "uss-sgd", "id": f"uss-{number:03d}",
            "level": "dialog", "turns": turns,
            "overall": {"ratings": ratings, "mean": sum(ratings) / len(ratings)}}


def _fed(number: int, overall: list[int]) -> dict[str, Any]:
    return {"schema": "rated_dialog.v1", "source": "fed", "id": f"fed-{number:03d}",
            "level": "turn", "turns": [{"idx": 0, "role": "user", "text": "I love hiking."}],
            "response": {"role": "system", "text": f"Where do you hike? ({number})"},
            "ratings": {"Relevant": [2, 2, 1], "Correct": [2, None, 2], "Engaging": [1, 1, 2],
                        "Overall": overall},
            "overall": {"ratings": overall, "mean": sum(overall) / len(overall)}}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Four rated USS dialogs (one of them scripted to break the judge) and three FED turns."""
    root = tmp_path / "data"
    (root / "uss").mkdir(parents=True)
    (root / "fed").mkdir()
    sgd = [_uss(0, [1, 2, 1], "Sorry, I cannot."), _uss(1, [5, 4, 5], "Booked: train TR12.")]
    mwoz = [_uss(2, [3, 3, 4], "Which day?"), _uss(3, [2, 3], f"No trains. {BROKEN}")]
    for name, rows in (("uss_sgd.jsonl", sgd), ("uss_mwoz.jsonl", mwoz),
                       ("../fed/fed.jsonl", [_fed(i, [i, i + 1, 2]) for i in range(3)])):
        (root / "uss" / name).write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return root


def _run(data: Path, out: Path, *args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(data), "--split", "all",
         "--out", str(out), *args],
        capture_output=True, text=True, timeout=timeout, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _row(rows: list[dict[str, Any]], task: str, quality: str, trial: str) -> dict[str, Any]:
    return next(r for r in rows if (r["task"], r["quality"], r["trial"]) == (task, quality, trial))


class TestSplit:
    def test_dev_and_test_partition_the_items_whatever_the_order(self, data: Path) -> None:
        items = list(bench.items(data, bench.TASKS["uss"]))
        dev = bench.split(items, "dev", 3, None)
        test = bench.split(list(reversed(items)), "test", 3, None)
        assert sorted(i.id for i in dev + test) == sorted(i.id for i in items)
        assert bench.split(items, "dev", 3, None) == dev

    def test_a_larger_limit_extends_a_smaller_one(self, data: Path) -> None:
        items = list(bench.items(data, bench.TASKS["uss"]))
        assert bench.split(items, "all", 5, 4)[:2] == bench.split(items, "all", 5, 2)

    def test_fed_turn_items_end_with_the_rated_reply(self, data: Path) -> None:
        item = next(bench.items(data, bench.TASKS["fed-turn"]))
        assert item.messages[-1] == {"role": "assistant", "content": "Where do you hike? (0)"}
        assert item.ratings["Correct"] == [2, None, 2]


class TestSpecs:
    @pytest.mark.parametrize("trial", sorted(bench.TRIALS))
    @pytest.mark.parametrize("task", sorted(bench.TASKS))
    def test_every_trial_of_every_task_is_a_valid_spec(self, task: str, trial: str) -> None:
        """A check per rated quality, on the human scale or the trial's own."""
        spec = evaldsl.loads(bench.spec_text(bench.TASKS[task], trial))
        assert spec.checks == tuple(q.check for q in bench.TASKS[task].qualities)

    def test_points_map_onto_the_raters_scale(self) -> None:
        """0-10 onto USS's 1-5: 0 is 1, 10 is 5, 5 is the neutral 3."""
        asked = bench.scale10(bench.SATISFIED)
        assert [asked.human(p, bench.SATISFIED) for p in (0, 5, 10)] == [1.0, 3.0, 5.0]


class TestAgainstTheTestServer:
    def test_errors_are_counted_with_their_denominator(self, data: Path, tmp_path: Path,
                                                       judge_server: Any) -> None:
        """The dialog whose reply is not JSON is an error: 1 of 4, the figures over 3."""
        judge_server.control(script=[{"contains": BROKEN, "raw": "not json at all"}])
        out = tmp_path / "figures.json"
        printed = _run(data, out, "--judge", judge_server.base_url, "--tasks", "uss",
                       "--trials", "anchored,yesno")
        rows = json.loads(out.read_text("utf-8"))
        judged = _row(rows, "uss", "overall", "anchored")
        assert (judged["asked"], judged["errors"], judged["spearman"]["n"]) == (4, 1, 3)
        assert judged["cost"]["model_calls"] >= 4
        assert judged["cost"]["prompt_tokens"] > 0
        assert sorted(judged["points"]) == ["uss-000", "uss-001", "uss-002"]
        assert "| uss | overall | anchored | all | 3 | 1 of 4 |" in printed
        ceiling = _row(rows, "uss", "overall", "annotators (leave one out)")
        assert ceiling["spearman"]["n"] == 4

    def test_a_fused_task_reports_every_quality(self, data: Path, tmp_path: Path,
                                                judge_server: Any) -> None:
        """FED's four turn qualities in one request per item, each with its own figures."""
        out = tmp_path / "figures.json"
        _run(data, out, "--judge", judge_server.base_url, "--tasks", "fed-turn",
             "--trials", "scale10")
        rows = json.loads(out.read_text("utf-8"))
        for quality in ("Relevant", "Correct", "Engaging", "Overall"):
            assert _row(rows, "fed-turn", quality, "scale10")["errors"] == 0
        assert _row(rows, "fed-turn", "Relevant", "scale10")["cost"]["model_calls"] == 3

    def test_a_finished_trial_is_read_back_not_judged_again(self, data: Path, tmp_path: Path,
                                                            judge_server: Any) -> None:
        """`--work`: the second run asks nothing and gives the same figures; another judge
        (here: the items in another seed's order) is judged afresh."""
        work, first, again = tmp_path / "work", tmp_path / "first.json", tmp_path / "again.json"
        common = ("--judge", judge_server.base_url, "--tasks", "uss", "--trials", "scale10",
                  "--work", str(work))
        _run(data, first, *common)
        asked = judge_server.stats()["chat"]
        _run(data, again, *common)
        assert judge_server.stats()["chat"] == asked
        assert json.loads(first.read_text("utf-8")) == json.loads(again.read_text("utf-8"))
        _run(data, again, *common, "--seed", "4")
        assert judge_server.stats()["chat"] > asked

    def test_a_judged_trial_gives_what_reading_it_back_gives(self, data: Path, tmp_path: Path,
                                                             judge_server: Any) -> None:
        """The run just judged and the same run read back are one `Judged`, wall time
        included: the figures cannot depend on whether the trial was judged now (whose
        seconds were once rounded one way, and the read-back ones another)."""
        task = bench.TASKS["uss"]
        chosen = bench.split(list(bench.items(data, task)), "all", bench.SEED, None)
        judge_args = ["--judge", judge_server.base_url]
        judged = bench.judge(task, "scale10", chosen, judge_args, tmp_path / "work")
        asked = judge_server.stats()["chat"]
        again = bench.judge(task, "scale10", chosen, judge_args, tmp_path / "work")
        assert judge_server.stats()["chat"] == asked
        assert again == judged

    def test_smoke_judges_two_items_of_one_trial(self, data: Path, tmp_path: Path,
                                                 judge_server: Any) -> None:
        out = tmp_path / "figures.json"
        _run(data, out, "--judge", judge_server.base_url, "--smoke")
        judged = [r for r in json.loads(out.read_text("utf-8")) if "asked" in r]
        assert [(r["task"], r["trial"], r["asked"]) for r in judged] == \
            [("uss", "scale10", 2)]


@pytest.mark.local_judge
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="the local judge needs the `local` extra: pip install 'evaldsl[local]'")
def test_the_local_judge_answers_every_item(data: Path, tmp_path: Path) -> None:
    """Two items on the shipped judge: both answered, no error, one call each."""
    out = tmp_path / "figures.json"
    _run(data, out, "--judge", "local", "--tasks", "uss", "--trials", "anchored", "--limit", "2",
         timeout=600)
    judged = _row(json.loads(out.read_text("utf-8")), "uss", "overall", "anchored")
    assert (judged["asked"], judged["errors"]) == (2, 0)
    assert judged["cost"]["model_calls"] == 2
    assert all(0 <= p <= 4 for p in judged["points"].values())
