"""The graph and `evaldsl explain`: edges, plan, costs, and which checks cases need."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.analysis.explain import Calls, model_calls, needs
from evaldsl.cli.main import main
from tests.support import interpreter_kit as kit

GATED = """
spec "gated"
check polite = judge(criteria: "polite and helpful", scale: 10, min: 7)
check gate = keyword(any: ["订单", "order"])
check fast = latency(max_ms: 3000)
check unused = length(max_chars: 10)
outcome {
  good if polite and gate
  bad otherwise
}
metric fast_rate = rate(fast) where gate
"""


@pytest.fixture
def gated(tmp_path: Path) -> Path:
    path = tmp_path / "gated.eval"
    path.write_text(GATED, "utf-8")
    return path


class TestGraph:
    def test_edges_plan_and_costs(self) -> None:
        spec = evaldsl.loads(GATED)
        graph = spec.graph
        assert graph.edges["outcome:outcome"] == ("check:gate", "check:polite")
        assert graph.edges["metric:fast_rate"] == ("check:fast", "check:gate")
        plan = graph.plan
        assert plan.index("check:gate") < plan.index("outcome:outcome")
        assert plan.index("check:fast") < plan.index("metric:fast_rate")
        assert [int(c.cost) for c in graph.checks] == [2, 0, 0, 0]
        assert graph.has_model_checks

    def test_needs_every_some_never(self) -> None:
        found = needs(evaldsl.loads(GATED).graph)
        assert found.every == {"gate"}
        assert found.some == {"polite", "fast"}
        assert found.never == {"unused"}

    @pytest.mark.parametrize(("condition", "every", "some"), [
        ("m and n", {"m", "n"}, set()),
        ("g and m and n", {"g"}, {"m", "n"}),
        ("m.score >= 0.5 or g", {"g"}, {"m"}),
        ("m.score >= 0.5 and not n", {"m", "n"}, set()),
        ("g or (m and n)", {"g"}, {"m", "n"}),
    ])
    def test_needs_mirror_the_rounds_of_the_interpreter(self, condition: str, every: set[str],
                                                        some: set[str]) -> None:
        """Model operands are asked together in one round: neither can decide before it."""
        text = (f'check m = ask(key: "m")\ncheck n = ask(key: "n")\ncheck g = probe(key: "g")\n'
                f"outcome {{\n ok if {condition}\n no otherwise\n}}")
        runtime = kit.CountingRuntime()
        spec = evaldsl.loads(text, registry=kit.make_kit().registry, runtime=runtime)
        found = needs(spec.graph)
        assert (found.every, found.some) == (every, some)
        result = spec.evaluate(kit.case("x", g=0.9, m=0.9, n=0.9))
        assert every <= set(result.checks)

    @pytest.mark.parametrize(("branches", "every", "some"), [
        ("ok if g and m\n partial if m\n", {"g", "m"}, set()),
        ("ok if g and m\n partial if n\n", {"g"}, {"m", "n"}),
        ("ok if g or n\n partial if m\n", {"g"}, {"m", "n"}),
        ("ok if not g and m\n partial if m or n\n", {"g", "m"}, {"n"}),
    ])
    def test_a_check_every_branch_path_reads_is_needed_by_every_case(
            self, branches: str, every: set[str], some: set[str]) -> None:
        """Behind a cheap gate in the first branch, and read by the next branch when the
        gate fails: every case needs it, whichever way the gate goes."""
        text = (f'check m = ask(key: "m")\ncheck n = ask(key: "n")\ncheck g = probe(key: "g")\n'
                f"outcome {{\n {branches} no otherwise\n}}")
        spec = evaldsl.loads(text, registry=kit.make_kit().registry,
                             runtime=kit.CountingRuntime())
        found = needs(spec.graph)
        assert (found.every, found.some) == (every, some)
        for g in (0.1, 0.9):
            assert every <= set(spec.evaluate(kit.case("x", g=g, m=0.9, n=0.9)).checks)

    def test_labels_of_another_block_are_edges(self) -> None:
        spec = evaldsl.loads('check a = probe(key: "a")\noutcome v {\n x if a\n y otherwise\n}\n'
                            "outcome {\n p if x\n q otherwise\n}", registry=kit.make_kit().registry)
        assert spec.graph.edges["outcome:outcome"] == ("outcome:v",)
        assert spec.graph.plan == ("check:a", "outcome:v", "outcome:outcome")


class TestExplainCommand:
    def test_text_marks_model_check_behind_a_cheap_gate(self, gated: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["explain", str(gated)]) == 0
        out = capsys.readouterr().out
        assert "1 needed by every case, 2 by some cases, 1 never" in out
        lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
        assert "model call" in lines["polite"] and "some cases" in lines["polite"]
        assert "every case" in lines["gate"] and "never" in lines["unused"]
        assert out.index("  gate") < out.index("  polite")

    def test_a_default_scope_says_what_the_check_sees(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """With no `scope:`, the line says it is the default and which part is judged."""
        path = tmp_path / "s.eval"
        path.write_text('check p = judge(criteria: "polite")\n'
                        'check d = judge(criteria: "clear", scope: dialog)\n'
                        "metric r = rate(p and d)\n", "utf-8")
        assert main(["explain", str(path)]) == 0
        lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("  ")}
        assert lines["p"].endswith(
            "scope last_reply (the default: the last assistant reply)  -> metric r")
        assert lines["d"].endswith("scope dialog  -> metric r")

    def test_dot_and_mermaid(self, gated: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["explain", str(gated), "--format", "dot"]) == 0
        dot = capsys.readouterr().out
        assert dot.startswith("digraph spec {") and '"check:gate" -> "outcome:outcome";' in dot
        assert 'label="polite\\njudge · model call\\nsome cases", shape=box, style=dashed' in dot
        assert main(["explain", str(gated), "--format", "mermaid"]) == 0
        mermaid = capsys.readouterr().out
        assert mermaid.startswith("flowchart LR")
        assert 'n0["polite<br/>judge · model call<br/>some cases"]' in mermaid
        assert "class n2,n0 some;" in mermaid and "class n3 never;" in mermaid

    def test_a_spec_with_errors_exits_2(self, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
        bad = tmp_path / "bad.eval"
        bad.write_text("outcome {\n  ok if nothing\n  no otherwise\n}\n", "utf-8")
        assert main(["explain", str(bad)]) == 2
        assert "error[E101]" in capsys.readouterr().err


class TestModelCalls:
    def test_calls_per_case_follow_what_cases_need(self) -> None:
        """A model check every case needs costs one call; one behind a cheap gate at most
        one; a check nothing reads and a deterministic check none."""
        spec = evaldsl.loads(GATED + 'check ungated = judge(criteria: "kind", scale: 5)\n')
        calls = model_calls(spec.graph)
        assert calls["polite"] == Calls(0, 1)
        assert calls["gate"] == Calls(0, 0)
        assert calls["ungated"] == Calls(0, 0)
        every = evaldsl.loads(GATED.replace("good if polite and gate", "good if polite"))
        assert model_calls(every.graph)["polite"] == Calls(1, 1)

    def test_calls_in_words(self) -> None:
        """The estimate as an editor shows it beside a check."""
        assert [str(c) for c in (Calls(1, 1), Calls(0, 1), Calls(0, 0))] == [
            "1 model call per case", "at most 1 model call per case", "no model call"]


class TestVotesInExplain:
    SPEC = ('spec "v"\ncheck polite = judge(criteria: "kind", votes: 3)\n'
            'outcome { good if polite\n  bad otherwise }\n')

    def test_votes_multiply_the_estimate(self) -> None:
        """Three votes are three calls per case, and the words say why."""
        calls = model_calls(evaldsl.loads(self.SPEC).graph)["polite"]
        assert calls == Calls(3, 3, 3)
        assert str(calls) == "3 model call per case (×3 votes)"

    def test_explain_shows_the_votes(self, tmp_path: Path, capsys: Any) -> None:
        """`explain` prints the check's cost as `model call ×3`."""
        spec = tmp_path / "v.eval"
        spec.write_text(self.SPEC, encoding="utf-8")
        assert main(["explain", str(spec)]) == 0
        assert "model call ×3" in capsys.readouterr().out
