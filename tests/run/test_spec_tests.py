"""`evaldsl test`: a spec's examples run offline; a failing `expect` fails the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.run.spec_tests import example_case, generic_pin, run_examples

SPEC = """\
spec "examples"
case { intent: text }
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check polite = judge(criteria: "礼貌", scale: 10, min: 7)
check intent_ok = classify(labels: {booking: "预约", other: "其他"}, expect: case.intent)
outcome {
  success if greets and polite and intent_ok
  partial if greets
  failure otherwise
}
metric success_rate = rate(success)

example "polite booking" {
  user "你好，我想预约维修"
  assistant "好的，请问您的姓名？" {latency_ms: 800}
  case {intent: "booking"}
  given polite = 8
  given intent_ok.label = "booking"
  expect success
  expect polite.score == 0.8
  expect intent_ok.label == "booking"
}

example "rude reply" {
  user "hello"
  assistant "no"
  case {intent: "booking"}
  given polite = 2
  given intent_ok.label = "booking"
  expect partial
  expect not polite
}
"""

FAILING = SPEC.replace("  expect not polite\n", "  expect not polite\n  expect success\n")


@pytest.fixture
def spec_path(tmp_path: Path) -> Path:
    path = tmp_path / "examples.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


class TestRunExamples:
    def test_pinned_examples_pass(self, spec_path: Path) -> None:
        runs = run_examples(spec_path)
        assert [(r.name, r.passed) for r in runs] == [("polite booking", True),
                                                     ("rude reply", True)]

    def test_judge_pin_goes_through_the_primitive(self, spec_path: Path) -> None:
        """`given polite = 8` pins the judge's points; its pin gives score 0.8 and passed."""
        run = run_examples(spec_path)[0]
        assert run.result is not None
        polite = run.result.checks["polite"]
        assert (polite.value, polite.score, polite.passed) == (8.0, 0.8, True)

    def test_a_failing_expect_is_reported_with_its_value(self, tmp_path: Path) -> None:
        path = tmp_path / "failing.eval"
        path.write_text(FAILING, encoding="utf-8")
        rude = run_examples(path)[1]
        assert not rude.passed
        assert [(e.text, e.value) for e in rude.failures] == [("success", False)]
        assert rude.failures[0].span.line == 32

    def test_unpinned_model_check_is_an_error_not_a_pass(self, tmp_path: Path) -> None:
        path = tmp_path / "unpinned.eval"
        path.write_text(SPEC.replace("  given polite = 8\n", ""), encoding="utf-8")
        run = run_examples(path)[0]
        assert not run.passed
        assert "needs a model: pin its result" in str(run.failures[0].value)

    def test_inline_case_in_openai_form(self, spec_path: Path) -> None:
        spec = load(spec_path)
        example = spec.graph.module.of_type(type(spec.graph.module.statements[-1]))[0]
        case = example_case(example)
        assert case["intent"] == "booking"
        assert case["messages"][1] == {"role": "assistant", "content": "好的，请问您的姓名？",
                                       "latency_ms": 800}

    def test_generic_pin(self) -> None:
        pinned = generic_pin({"value": 0.25})
        assert (pinned.passed, pinned.score) == (False, 0.25)
        assert generic_pin({"passed": True}).score == 1.0


class TestCli:
    def test_passing_examples_exit_0(self, spec_path: Path, kit: Any) -> None:
        done = kit.evaldsl("test", spec_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS  polite booking" in done.stdout
        assert done.stdout.strip().endswith("2 examples: 2 passed, 0 failed (1 spec)")

    def test_failing_expect_exits_1(self, tmp_path: Path, kit: Any) -> None:
        path = tmp_path / "failing.eval"
        path.write_text(FAILING, encoding="utf-8")
        done = kit.evaldsl("test", tmp_path)
        assert done.returncode == 1
        assert "FAIL  rude reply" in done.stdout
        assert f"{path}:32:3: expect success  ->  false" in done.stdout
        assert "labels: outcome=partial" in done.stdout

    def test_spec_with_errors_exits_2(self, tmp_path: Path, kit: Any) -> None:
        path = tmp_path / "broken.eval"
        path.write_text("check x = nope()\n", encoding="utf-8")
        done = kit.evaldsl("test", path)
        assert done.returncode == 2 and "error[" in done.stderr

    def test_nothing_found_exits_2(self, tmp_path: Path, kit: Any) -> None:
        assert kit.evaldsl("test", tmp_path / "none.eval").returncode == 2


MISSPELT_GOLD = """\
case {
  intent: text
}
check intent = classify(labels: {booking: "预订", inquiry: "咨询"}, expect: case.intent)
outcome {
  ok if intent
  wrong otherwise
}
metric accuracy = rate(ok)

example "misspelt gold" {
  case {intent: "bookng"}
  user "我想订房"
  given intent.label = "booking"
  expect ok
}
"""


class TestGoldOutsideTheTaxonomy:
    """A gold label the taxonomy lacks (`bookng`) can never be chosen: the example is an
    error naming it and the closest label, though the check's result is pinned, and a run
    over such a case says the same."""

    WORDS = ('"bookng" is not a label of the taxonomy (labels: booking, inquiry; '
             "did you mean `booking`?)")

    def test_evaldsl_test_fails_the_example(self, tmp_path: Path, kit: Any) -> None:
        path = tmp_path / "intent.eval"
        path.write_text(MISSPELT_GOLD, encoding="utf-8")
        done = kit.evaldsl("test", path)
        assert done.returncode == 1, done.stdout
        assert "FAIL  misspelt gold" in done.stdout
        assert "`given intent`: parameter `expect`: expected label " + self.WORDS \
            in done.stdout

    def test_evaldsl_run_errs_the_case(self, tmp_path: Path, kit: Any) -> None:
        path = tmp_path / "intent.eval"
        path.write_text(MISSPELT_GOLD, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        cases.write_text('{"id": "a", "intent": "bookng", "messages": [{"role": "user", '
                         '"content": "我想订房"}, {"role": "assistant", "content": "好"}]}\n',
                         encoding="utf-8")
        done = kit.evaldsl("run", path, cases, "--judge", "http://127.0.0.1:9/v1")
        assert done.returncode == 4, done.stdout + done.stderr
        assert "parameter `expect`: expected label " + self.WORDS in done.stderr


class TestWithoutPytest:
    """`evaldsl test` is a product verb: a plain install (no dev extra, no pytest) runs it."""

    @staticmethod
    def evaldsl_without_pytest(*args: str | Path) -> subprocess.CompletedProcess[str]:
        blocked = ("import sys; sys.modules['pytest'] = None; "
                   "from evaldsl.cli.main import main; sys.exit(main(sys.argv[1:]))")
        return subprocess.run([sys.executable, "-c", blocked, *map(str, args)],
                              capture_output=True, text=True, timeout=120)

    def test_passing_examples(self, spec_path: Path) -> None:
        done = self.evaldsl_without_pytest("test", spec_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("2 examples: 2 passed, 0 failed (1 spec)")

    def test_a_failure_is_explained(self, tmp_path: Path) -> None:
        path = tmp_path / "failing.eval"
        path.write_text(FAILING, encoding="utf-8")
        done = self.evaldsl_without_pytest("test", path)
        assert done.returncode == 1, done.stderr
        assert f"{path}:32:3: expect success  ->  false" in done.stdout

    def test_no_verb_needs_pytest(self) -> None:
        """Every verb's module imports in a plain install; only the plugin needs pytest."""
        code = ("import sys; sys.modules['pytest'] = None; from importlib import import_module; "
                "from evaldsl.cli.main import VERBS; "
                "[import_module(f'evaldsl.cli.{verb}') for verb in VERBS]")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
