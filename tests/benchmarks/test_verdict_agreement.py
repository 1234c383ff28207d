"""The gold, the broken variants and the run of benchmarks/verdict_agreement.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from layered import gold, variants  # noqa: E402


def turn(role: str, text: str, *acts: tuple[str, str, str]) -> dict:
    return {"role": role, "text": text,
            "acts": [{"act": a, "domain": d, "slot": s, "value": None} for a, d, s in acts]}


RECORD = {
    "id": "multiwoz21-test-X1", "source": "multiwoz21", "lang": "en",
    "goal": {"hotel": {"info": {}, "book": {"people": "2"}}},
    "turns": [
        turn("user", "I need a hotel. What is the phone?", ("Inform", "Hotel", "Type"),
             ("Request", "Hotel", "Phone")),
        turn("system", "Call 01223 351880.", ("Inform", "Hotel", "Phone")),
        turn("user", "Book it. The reference, please?", ("Request", "Hotel", "Ref")),
        turn("system", "Booked, reference ABCD1234.", ("Book", "Booking", "Ref")),
        turn("user", "Thanks.", ("thank", "general", "")),
        turn("system", "Is there anything else?", ("reqmore", "general", "")),
    ],
    "bookings": [{"turn_idx": 3, "domain": "hotel", "booked": {}}],
}


def test_gold_layers_of_a_record() -> None:
    assert gold.intents(RECORD) == ["hotel"]
    assert gold.requests(RECORD) == [(0, "hotel", "phone"), (2, "hotel", "ref")]
    assert gold.completion(RECORD) == 1.0  # the generic Booking domain answers hotel's Ref
    assert gold.success(RECORD, {}) is True


def test_a_dropped_answer_and_a_cut_change_the_gold() -> None:
    pool = variants.fillers([RECORD, dict(RECORD, id="other")])
    dropped = variants.dropped(RECORD, pool)
    assert dropped is not None and dropped["id"].endswith("#dropped")
    assert gold.completion(dropped) == 0.5 and gold.success(dropped, {}) is False
    cut = variants.cut(RECORD)
    assert cut is not None and cut["turns"][-1]["role"] == "user"
    assert gold.completion(cut) in (0.0, 0.5) and gold.success(cut, {}) is False
    assert variants.broken(RECORD, pool) == variants.broken(RECORD, pool)  # same every run


def test_kappa_against_hand_computed() -> None:
    from verdict_agreement import kappa

    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + [(False, False)] * 15
    # observed 0.7; chance 0.5*0.6 + 0.5*0.4 = 0.5; kappa (0.7-0.5)/0.5 = 0.4
    assert kappa(pairs) == pytest.approx(0.4)


def test_text_only_copies_give_predictions(tmp_path: Path, shared_data: Path) -> None:
    """The benchmark reads dialogs stripped of every annotation and still predicts."""
    source = shared_data / "crosswoz" / "dialogs.jsonl"
    rows = [json.loads(line) for line in source.read_text("utf-8").splitlines()[:4]]
    bare = [{"id": r["id"], "source": r["source"], "lang": r["lang"], "split": r["split"],
             "turns": [{"role": t["role"], "text": t["text"]} for t in r["turns"]]}
            for r in rows]
    path = tmp_path / "bare.jsonl"
    path.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in bare), "utf-8")
    out = tmp_path / "pred.jsonl"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "verdict_agreement.py"),
                           "--dialogs", str(path), "--predictions", str(out), "--split", "all"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    predictions = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [p["id"] for p in predictions] == [b["id"] for b in bare]
    assert set(predictions[0]) == {"id", "intent", "completion", "success"}
    assert all(p["intent"] in {"酒店", "餐馆", "景点", "地铁", "出租"} for p in predictions)


def test_smoke_run_prints_the_figures(shared_data: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "verdict_agreement.py"),
                           "--smoke", "--split", "all"], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ,
                                            "EVALDSL_SHARED_DATA": str(shared_data)})
    assert done.returncode == 0, done.stderr
    assert "crosswoz" in done.stdout and "sgd" in done.stdout and "L3 kappa" in done.stdout


def test_the_judged_sample_is_fixed_and_keeps_each_dialogs_variants() -> None:
    from verdict_agreement import judge_sample

    ids = [f"d{i}" for i in range(30)] + [f"d{i}#cut" for i in range(30)]
    chosen = judge_sample(ids, 5)
    assert chosen == judge_sample(list(reversed(ids)), 5)  # by the hash, not the order
    recorded = {i for i in chosen if "#" not in i}
    assert len(recorded) == 5 and {i + "#cut" for i in recorded} <= chosen
    assert len(chosen) == 10


def test_the_judge_only_takes_a_success_away() -> None:
    from verdict_agreement import _row, _with_judge

    passed = {"id": "a", "intent": "hotel", "completion": 1.0, "success": True}
    assert _with_judge(passed, True) == passed and _with_judge(passed, None) == passed
    vetoed = _with_judge(passed, False)
    assert vetoed["success"] is False and vetoed["completion"] == 1.0  # the MAE keeps the share
    # the veto counts as "not all answered" for the L2 kappa: with it the two dialogs
    # (one cut short, one whole) agree with the gold, kappa 1; without it, kappa 0
    cut = variants.cut(RECORD)
    assert cut is not None and gold.completion(cut) != 1.0
    assert "+1.000" in _row("multiwoz21", [(cut, vetoed), (RECORD, passed)], {})
    assert "+0.000" in _row("multiwoz21", [(cut, passed), (RECORD, passed)], {})


@pytest.mark.slow
def test_a_judged_run_against_a_chat_server(shared_data: Path, judge_server: Any,
                                            tmp_path: Path) -> None:
    """`--judge openai` reads the sample through a real judge (the project's test server)
    and prints the rules and the rules with the judge on the same dialogs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    env.update(EVALDSL_SHARED_DATA=str(shared_data), EVALDSL_JUDGE_BASE_URL=judge_server.base_url,
               EVALDSL_JUDGE_API_KEY="sk-test", EVALDSL_CACHE_DIR=str(tmp_path / "cache"),
               XDG_CONFIG_HOME=str(tmp_path / "no-config"))
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "verdict_agreement.py"),
                           "--dialogs", str(shared_data / "multiwoz21" / "dialogs_test.jsonl"),
                           "--smoke", "--split", "all", "--judge", "openai", "--sample", "2"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "multiw rules" in done.stdout and "multiw +judge" in done.stdout
    assert "0 judge errors" in done.stdout
    assert judge_server.stats()["chat"] >= 1
