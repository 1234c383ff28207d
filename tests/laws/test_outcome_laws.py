"""Laws of outcome blocks and of lazy evaluation."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.runtime.interpreter import Interpreter
from tests.support import interpreter_kit as kit

SPEC = """
check a = probe(key: "a")
check b = probe(key: "b")
check g = cheap(key: "g")
check m = ask(key: "m")
check n = ask(key: "n", min: 0.7)
let overall = 0.5 * a + 0.5 * m.score
outcome {
  success if a and m
  partial if b or n
  failure otherwise
}
outcome level {
  high if overall >= 0.8
  mid if overall >= 0.4
  low otherwise
}
metric sr = rate(success) + 0.5 * rate(partial)
metric pass = rate(success or partial)
metric gated = mean(n) where g
metric avg = mean(overall) where b
metric p50 = percentile(overall, 50)
review (seed: 5) {
  sample 50% where level == "low" priority 1 - overall
  sample 10%
}
"""

value = st.sampled_from([0.0, 0.3, 0.5, 0.75, 1.0, "error"])
probes = st.fixed_dictionaries({k: value for k in "abgmn"})


def lazy_and_eager() -> tuple[evaldsl.Spec, Interpreter, kit.CountingRuntime,
                               kit.CountingRuntime]:
    k = kit.make_kit()
    lazy_runtime, eager_runtime = kit.CountingRuntime(), kit.CountingRuntime()
    spec = evaldsl.loads(SPEC, registry=k.registry, runtime=lazy_runtime)
    eager = Interpreter(spec.graph, lambda: eager_runtime, eager=True)
    return spec, eager, lazy_runtime, eager_runtime


class TestLaziness:
    @settings(max_examples=60, deadline=None)
    @given(st.lists(probes, min_size=1, max_size=12))
    def test_law_lazy_evaluation_equals_computing_every_check(self, rows: list[Any]) -> None:
        """Law: lazy evaluation gives the same labels, metric inputs and metrics as eager."""
        spec, eager, lazy_rt, eager_rt = lazy_and_eager()
        lazy_report, eager_report = spec.new_report(), spec.new_report()
        for i, row in enumerate(rows):
            case = evaldsl.Case.from_dict(kit.case(f"c{i}", **row))
            lazy, full = spec.evaluate(case), eager.evaluate(case)
            assert lazy.labels == full.labels
            assert lazy.metrics == full.metrics
            assert lazy.review == full.review
            assert set(full.checks) == set(spec.checks)
            assert all(lazy.checks[c] == full.checks[c] for c in lazy.checks)
            lazy_report.add(lazy)
            eager_report.add(full)
        assert {k: v for k, v in lazy_report.to_dict().items() if k != "checks"} == \
            {k: v for k, v in eager_report.to_dict().items() if k != "checks"}
        assert lazy_rt.calls <= eager_rt.calls == 2 * len(rows)

    @settings(deadline=None)
    @given(st.lists(st.sampled_from([0.0, 1.0, "error"]), min_size=1, max_size=30))
    def test_law_model_called_only_when_the_cheap_gate_leaves_the_branch_open(
            self, gates: list[Any]) -> None:
        """Law: `g and m` asks the model exactly for cases whose cheap gate is not false."""
        k = kit.make_kit()
        runtime = kit.CountingRuntime()
        spec = evaldsl.loads('check m = ask(key: "m")\ncheck g = probe(key: "g")\n'
                            "outcome {\n pass if m and g\n fail otherwise\n}",
                            registry=k.registry, runtime=runtime)
        for i, g in enumerate(gates):
            spec.evaluate(kit.case(f"c{i}", g=g, m=1.0))
        assert runtime.calls == sum(1 for g in gates if g != 0.0)
        assert runtime.rounds == runtime.calls

    def test_cheap_operands_are_evaluated_before_model_ones_in_one_round(self) -> None:
        k = kit.make_kit()
        runtime = kit.CountingRuntime()
        spec = evaldsl.loads('check m = ask(key: "m")\ncheck n = ask(key: "n")\n'
                            'check g = cheap(key: "g")\ncheck f = probe(key: "f")\n'
                            "outcome {\n pass if m and n and g and f\n fail otherwise\n}",
                            registry=k.registry, runtime=runtime)
        result = spec.evaluate(kit.case("x", f=1.0, g=1.0, m=1.0, n=0.0))
        assert k.evaluations == ["f", "g"]
        assert (runtime.rounds, runtime.calls) == (1, 2)
        assert result.label == "fail"
        result = spec.evaluate(kit.case("y", f=0.0, g=1.0, m=1.0, n=1.0))
        assert result.skipped == ("m", "n", "g")
        assert runtime.calls == 2


class TestOutcomeLaws:
    @settings(deadline=None)
    @given(st.lists(probes, min_size=1, max_size=10))
    def test_law_exactly_one_label_per_outcome_block_or_error(self, rows: list[Any]) -> None:
        """Law: every case gets exactly one label of each block, or `error` with a reason."""
        spec, _, _, _ = lazy_and_eager()
        for i, row in enumerate(rows):
            result = spec.evaluate(kit.case(f"c{i}", **row))
            assert set(result.labels) == set(spec.outcomes)
            for key, label in result.labels.items():
                if label == "error":
                    assert result.branches[key] is None and result.errors[key]
                else:
                    assert spec.outcomes[key][result.branches[key]] == label
                    assert key not in result.errors

    @settings(deadline=None)
    @given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
    def test_law_monotonicity_of_best_first_thresholds(self, s1: float, s2: float,
                                                       t1: float, t2: float) -> None:
        """Law: raising check scores never lowers the verdict of a best-first `>=` block."""
        k = kit.make_kit()
        spec = evaldsl.loads(
            'check s = probe(key: "s")\ncheck t = probe(key: "t")\n'
            "outcome {\n excellent if s >= 0.8 and t >= 0.5\n good if s >= 0.5 or t >= 0.9\n"
            " fair if s + t >= 0.4\n poor otherwise\n}", registry=k.registry)
        rank = {"excellent": 0, "good": 1, "fair": 2, "poor": 3}
        low = spec.evaluate(kit.case("x", s=min(s1, s2), t=min(t1, t2))).label
        high = spec.evaluate(kit.case("x", s=max(s1, s2), t=max(t1, t2))).label
        assert rank[high] <= rank[low]

    def test_errored_condition_before_a_true_one_makes_the_block_error(self) -> None:
        k = kit.make_kit()
        spec = evaldsl.loads('check a = probe(key: "a")\ncheck b = probe(key: "b")\n'
                            "outcome {\n x if a\n y if b\n z otherwise\n}", registry=k.registry)
        result = spec.evaluate(kit.case("c", a="error", b=1.0))
        assert result.label == "error" and result.branches["outcome"] is None
        assert "probe `a` is an error" in result.errors["outcome"]
        assert spec.evaluate(kit.case("c", a=0.0, b="error")).label == "error"
        assert spec.evaluate(kit.case("c", a=1.0, b="error")).label == "x"
