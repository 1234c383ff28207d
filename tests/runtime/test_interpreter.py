"""The interpreter: results, traces, pins, parameters, failures, rounds and threads."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.primitives.registry import Cost, Primitive
from evaldsl.runtime.concurrency import run_concurrently
from evaldsl.values import CheckResult
from tests.support import interpreter_kit as kit

SPEC = """
case { wanted: text? }
check gate = probe(key: "g")
check fit = probe(key: "f", expect: case.wanted)
check judge = ask(key: "j")
outcome {
  success if gate and judge
  partial if gate or fit
  failure otherwise
}
metric success_rate = rate(success)
"""


def make(runtime: Any = None, text: str = SPEC, **extra: Any) -> evaldsl.Spec:
    k = kit.make_kit()
    for primitive in extra.values():
        k.registry.add(primitive)
    return evaldsl.loads(text, registry=k.registry, runtime=runtime)


class TestCaseResult:
    def test_labels_branches_checks_skipped_and_trace(self) -> None:
        spec = make(kit.CountingRuntime())
        result = spec.evaluate(kit.case("c1", g=0.0, f=0.9) | {"wanted": "f"})
        assert result.labels == {"outcome": "partial"}
        assert result.branches == {"outcome": 1}
        assert set(result.checks) == {"gate", "fit"} and result.skipped == ("judge",)
        assert result.checks["fit"].passed is True
        assert result.metrics == {"success_rate": (False,)}
        assert result.trace == (
            "outcome: `success if gate and judge` -> false",
            "outcome: `partial if gate or fit` -> true",
            "outcome = partial",
            "gate: failed, score 0 (probe g=0.0)",
            "fit: passed, score 0.9 (probe f=0.9)",
            "not needed: judge",
        )

    def test_an_error_block_names_the_branch_and_the_reason(self) -> None:
        result = make(kit.CountingRuntime()).evaluate(kit.case("c", g=1.0, j="error"))
        assert result.label == "error"
        assert result.errors["outcome"] == (
            "error(success if gate and judge: j: probe `j` is an error in this case)")
        assert result.trace[0] == "outcome: `success if gate and judge` -> error"

    def test_round_trips_through_json(self) -> None:
        result = make(kit.CountingRuntime()).evaluate(kit.case("c", g=1.0, j="error"))
        again = evaldsl.CaseResult.from_dict(result.to_dict())
        assert again == result and again.checks["judge"].is_error


class TestLets:
    """A case's result carries the per-case lets it computed (a scorecard's score), so a
    report can show them per case; a let no target read is not there."""

    TEXT = SPEC + "let score = 100 * fit\nlet unused = 2 * gate\nmetric avg = mean(score)\n"

    def test_the_lets_read_are_in_the_result_and_its_json(self) -> None:
        case = kit.case("c", g=0.0, f=0.5) | {"wanted": "f"}
        result = make(kit.CountingRuntime(), self.TEXT).evaluate(case)
        assert result.lets == {"score": 50.0}
        assert result.to_dict()["lets"] == {"score": 50.0}
        assert evaldsl.CaseResult.from_dict(result.to_dict()) == result

    def test_an_errored_let_is_its_error(self) -> None:
        case = kit.case("c", g=0.0, f="error") | {"wanted": "f"}
        result = make(kit.CountingRuntime(), self.TEXT).evaluate(case)
        assert set(result.to_dict()["lets"]["score"]) == {"error"}


class TestParameters:
    def test_a_dynamic_parameter_that_fails_validation_is_that_checks_error(self) -> None:
        spec = make(kit.CountingRuntime(), SPEC.replace("case.wanted", "case.n").replace(
            "wanted: text?", "n: any?"))
        fit = spec.evaluate(kit.case("c", g=0.0, f=1.0) | {"n": 3}).checks["fit"]
        assert fit.is_error and fit.reason.startswith("parameter `expect`:")

    def test_an_errored_dynamic_parameter_names_it(self) -> None:
        """Read through a map the case lacks, the parameter is an error naming what is missing."""
        spec = make(kit.CountingRuntime(), SPEC.replace("case.wanted", "case.info.wanted")
                    .replace("wanted: text?", "info: map?"))
        fit = spec.evaluate(kit.case("c", g=0.0, f=1.0)).checks["fit"]
        assert fit.is_error and "parameter `expect`" in fit.reason and "info" in fit.reason

    def test_an_optional_parameter_from_an_absent_field_is_not_given(self) -> None:
        """`expect: case.wanted` on a case without `wanted`: the default, not an error."""
        fit = make(kit.CountingRuntime()).evaluate(kit.case("c", g=0.0, f=1.0)).checks["fit"]
        assert fit.passed is True

    def test_constant_parameters_are_validated_once_at_load(self) -> None:
        with pytest.raises(evaldsl.SpecError) as info:
            make(None, 'check a = probe(key: 3)\noutcome {\n x if a\n y otherwise\n}')
        assert info.value.diagnostics[0].code.startswith("E2")


def _boom_factory(params: Any) -> Any:
    def evaluate(case: Any, scope: Any) -> CheckResult:
        raise RuntimeError("kaput")
    return evaluate


BOOM = Primitive(name="boom", params=kit.ProbeParams, factory=_boom_factory, scopes=frozenset(),
                 default_scope=None, fields={}, cost=Cost.FREE, doc="")


class TestFailuresAreValues:
    def test_a_primitive_that_raises_gives_an_error_value(self) -> None:
        spec = make(None, 'check a = boom(key: "x")\noutcome {\n x if a\n y otherwise\n}',
                    boom=BOOM)
        result = spec.evaluate(kit.case("c"))
        assert result.label == "error"
        assert result.checks["a"].reason == "`boom` failed: RuntimeError: kaput"

    def test_model_checks_without_a_runtime_are_errors_with_a_clear_reason(self) -> None:
        spec = make(None)
        spec._runtime_built = True  # as if evaldsl.model offered no default runtime
        judge = spec.evaluate(kit.case("c", g=1.0, j=1.0)).checks["judge"]
        assert judge.is_error and "no model runtime" in judge.reason

    def test_a_failing_runtime_gives_error_results(self) -> None:
        class Broken(kit.CountingRuntime):
            async def resolve(self, case: Any, requests: Any) -> list[CheckResult]:
                raise ConnectionError("down")
        result = make(Broken()).evaluate(kit.case("c", g=1.0, j=1.0))
        assert result.label == "error"
        assert "ConnectionError: down" in result.checks["judge"].reason


class TestDrivers:
    def test_pins_fix_check_results(self) -> None:
        runtime = kit.CountingRuntime()
        result = make(runtime).evaluate(kit.case("c", g=1.0), pins={
            "judge": CheckResult.of(True)})
        assert result.label == "success" and runtime.calls == 0
        with pytest.raises(evaldsl.EvaldslError):
            make(runtime).evaluate(kit.case("c"), pins={"nope": CheckResult.of(True)})

    def test_evaluate_async_and_run(self) -> None:
        runtime = kit.CountingRuntime(delay=0.01)
        spec = make(runtime)
        result = asyncio.run(spec.evaluate_async(kit.case("c", g=1.0, j=1.0)))
        assert result.label == "success" and runtime.calls == 1
        report = spec.run([kit.case(f"c{i}", g=1.0, j=i % 2) for i in range(20)], concurrency=5)
        assert report.counts["outcome"]["success"] == 10 and runtime.calls == 21

    def test_sync_evaluate_refuses_to_block_a_running_loop(self) -> None:
        spec = make(kit.CountingRuntime())

        async def inside() -> None:
            with pytest.raises(evaldsl.EvaldslError, match="evaluate_async"):
                spec.evaluate(kit.case("c", g=1.0, j=1.0))
            spec.evaluate(kit.case("c", g=0.0, f=0.0))  # no model call needed: fine
        asyncio.run(inside())

    def test_one_spec_is_safe_to_share_between_threads(self) -> None:
        spec = make(None, SPEC.replace('ask(key: "j")', 'probe(key: "j")'))
        cases = [kit.case(f"c{i}", g=(i % 3) / 2, j=(i % 5) / 4, f=0.5) | {"wanted": "f"}
                 for i in range(300)]
        expected = [spec.evaluate(c).to_dict() for c in cases]
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda c: spec.evaluate(c).to_dict(), cases))
        assert got == expected


class TestSerialization:
    def test_values_json_cannot_hold_become_text(self) -> None:
        import json

        from evaldsl.results import check_to_dict

        result = CheckResult.of(True, 1.0, {"x": {1, 2}}, "", when=3 + 4j)
        data = json.loads(json.dumps(check_to_dict(result)))
        assert data["when"] == "(3+4j)" and data["value"] == {"x": "{1, 2}"}


class TestConcurrency:
    def test_run_async_bounds_cases_in_flight_and_takes_async_iterables(self) -> None:
        class Peak(kit.CountingRuntime):
            def __init__(self) -> None:
                super().__init__(delay=0.005)
                self.now = self.peak = 0

            async def resolve(self, case: Any, requests: Any) -> list[CheckResult]:
                self.now += 1
                self.peak = max(self.peak, self.now)
                try:
                    return await super().resolve(case, requests)
                finally:
                    self.now -= 1

        runtime = Peak()
        spec = make(runtime)

        async def cases() -> Any:
            for i in range(40):
                yield kit.case(f"c{i}", g=1.0, j=1.0)

        report = asyncio.run(spec.run_async(cases(), concurrency=6))
        assert report.cases == 40 and report.counts["outcome"]["success"] == 40
        assert 1 < runtime.peak <= 6 and runtime.calls == 40

    def test_evaluate_many_yields_in_finishing_order_with_every_case_once(self) -> None:
        """A case that needs no model call finishes before slower ones started earlier."""
        spec = make(kit.CountingRuntime(delay=0.02))
        cases = [kit.case("slow", g=1.0, j=1.0), kit.case("fast", g=0.0, f=0.0)]

        async def collect() -> list[str]:
            return [r.id async for r in spec.evaluate_many(cases, concurrency=2)]

        assert asyncio.run(collect()) == ["fast", "slow"]

    def test_leaving_evaluate_many_early_cancels_what_is_in_flight(self) -> None:
        runtime = kit.CountingRuntime(delay=0.5)
        spec = make(runtime)
        cases = [kit.case("quick", g=0.0, f=0.0)] + [
            kit.case(f"c{i}", g=1.0, j=1.0) for i in range(5)]

        async def first_then_leave() -> tuple[str, int]:
            results = spec.evaluate_many(cases, concurrency=6)
            first = await anext(results)
            await results.aclose()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            await asyncio.sleep(0)
            return first.id, sum(not t.done() for t in tasks)

        assert asyncio.run(first_then_leave()) == ("quick", 0)


@settings(max_examples=60, deadline=None)
@given(delays=st.lists(st.integers(0, 3), max_size=30), width=st.integers(1, 8))
def test_run_concurrently_yields_each_case_once_within_its_width(delays: list[int],
                                                                 width: int) -> None:
    """Whatever the finishing order: every case once, never more than `width` running."""
    running = peak = 0

    async def evaluate(i: int) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(delays[i]):
            await asyncio.sleep(0)
        running -= 1
        return i

    async def collect() -> list[int]:
        return [i async for i in run_concurrently(evaluate, range(len(delays)), width)]

    assert sorted(asyncio.run(collect())) == list(range(len(delays)))
    assert peak <= width
