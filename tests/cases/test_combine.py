"""Units combined (`scopes.combine`) in one pass give what the rule as first written gave."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.cases.scopes import combine
from evaldsl.values import CheckResult


def combine_as_written(results: list[CheckResult], how: str) -> CheckResult:
    """The rule as it read before the one-pass loop: the oracle."""
    decided = [r for r in results if not r.is_error]
    errors = [r for r in results if r.is_error]
    if how == "any":
        if any(r.passed is True for r in decided):
            best = max(decided, key=lambda r: r.score if isinstance(r.score, float) else 0.0)
            return CheckResult(True, best.score, best.value, best.fields, best.reason)
    elif any(r.passed is False for r in decided) and how == "each":
        if errors:
            failing = sum(1 for r in decided if r.passed is False)
            return CheckResult(False, errors[0].score, [r.value for r in results], {},
                               f"{failing} of {len(results)} units fail; some errored")
    if errors:
        return errors[0]
    passing = sum(1 for r in decided if r.passed is True)
    share = passing / len(decided)
    passed = passing == len(decided) if how != "any" else passing > 0
    reason = f"{passing} of {len(decided)} pass"
    return CheckResult(passed, share, [r.value for r in decided], {}, reason)


def _unit(kind: str, score: float, k: int) -> CheckResult:
    if kind == "error":
        return CheckResult.error(f"unit {k} failed")
    passed: Any = {"pass": True, "fail": False, "truthy": 1}[kind]
    return CheckResult(passed, score, f"value {k}", {"k": k}, f"reason {k}")


units = st.lists(st.tuples(st.sampled_from(["pass", "fail", "error", "truthy"]),
                           st.floats(0.0, 1.0)), min_size=1, max_size=6)


@settings(deadline=None)
@given(units, st.sampled_from(["each", "any"]))
def test_one_pass_combines_as_the_rule_did(given_units: list[tuple[str, float]],
                                            how: str) -> None:
    results = [_unit(kind, score, k) for k, (kind, score) in enumerate(given_units)]
    assert combine(results, how) == combine_as_written(results, how)  # type: ignore[arg-type]


def test_an_errored_unit_among_failing_ones_is_reported_with_the_count() -> None:
    results = [_unit("fail", 0.0, 0), _unit("error", 0.0, 1), _unit("pass", 1.0, 2)]
    combined = combine(results, "each")
    assert combined.passed is False
    assert combined.reason == "1 of 3 units fail; some errored"
