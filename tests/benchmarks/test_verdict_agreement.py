"""The gold, the broken variants and the run of benchmarks/verdict_agreement.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
