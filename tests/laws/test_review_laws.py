"""Laws of review sampling: deterministic in (seed, case id), ordered by priority."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.runtime.sampling import draw
from tests.support import interpreter_kit as kit


def review_spec(rate: str = "30%", seed: int = 7) -> evaldsl.Spec:
    text = f"""
check a = probe(key: "a")
check p = ask(key: "p")
outcome {{
  good if a
  bad otherwise
}}
review (seed: {seed}) {{
  sample 100% where bad priority 1 - p
  sample {rate}
}}
"""
    return evaldsl.loads(text, registry=kit.make_kit().registry, runtime=kit.CountingRuntime())


ids = st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=40, unique=True)


class TestReviewLaws:
    @settings(deadline=None, max_examples=30)
    @given(ids, st.randoms(use_true_random=False))
    def test_law_review_sampling_is_deterministic_in_seed_and_case_id(self, names: list[str],
                                                                       rnd: object) -> None:
        """Law: the same (seed, case id) gets the same decision, in any order, any spec object."""
        first, second = review_spec(), review_spec()
        decisions = {n: first.evaluate(kit.case(n, a=1.0, p=0.2)).review for n in names}
        shuffled = list(names)
        rnd.shuffle(shuffled)  # type: ignore[attr-defined]
        for n in shuffled:
            assert second.evaluate(kit.case(n, a=1.0, p=0.2)).review == decisions[n]

    @settings(deadline=None, max_examples=30)
    @given(ids)
    def test_law_a_larger_rate_draws_a_superset(self, names: list[str]) -> None:
        """Law: every case drawn at 20% is drawn at 60% with the same seed."""
        small, large = review_spec("20%"), review_spec("60%")
        for n in names:
            if small.evaluate(kit.case(n, a=1.0)).review.sampled:
                assert large.evaluate(kit.case(n, a=1.0)).review.sampled

    def test_rate_is_honoured_and_seed_matters(self) -> None:
        names = [f"case-{i}" for i in range(4000)]
        share = sum(draw(7, n) < 0.3 for n in names) / len(names)
        assert 0.27 < share < 0.33
        assert [draw(7, n) for n in names[:50]] != [draw(8, n) for n in names[:50]]

    def test_first_matching_rule_decides_and_priority_orders_the_sample(self) -> None:
        spec = review_spec()
        runtime = spec._runtime
        report = spec.new_report()
        for i, p in enumerate([0.9, 0.1, 0.5]):
            report.add(spec.evaluate(kit.case(f"bad{i}", a=0.0, p=p)))
        result = spec.evaluate(kit.case("good", a=1.0, p=0.0))
        assert result.review is not None and result.review.rule == 1
        assert [s["id"] for s in report.review_sample()] == ["bad1", "bad2", "bad0"]
        assert [s["priority"] for s in report.review_sample()] == pytest.approx([0.9, 0.5, 0.1])
        assert runtime.calls == 3

    def test_priority_needs_no_model_call_for_cases_not_drawn(self) -> None:
        spec = review_spec("0%")
        spec.evaluate(kit.case("good", a=1.0, p=0.3))
        assert spec._runtime.calls == 0

    def test_an_errored_rule_condition_is_an_error_decision(self) -> None:
        spec = review_spec()
        result = spec.evaluate(kit.case("x", a="error"))
        assert result.review is not None and not result.review.sampled
        assert result.review.error and "probe `a`" in result.review.error
        report = spec.new_report()
        report.add(result)
        assert report.to_dict()["review"] == {"sampled": [], "errors": 1}
