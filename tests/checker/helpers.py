"""Running the checker on spec text in tests, against the stand-in registry."""

from __future__ import annotations

from functools import lru_cache

from evaldsl.checker import check_source
from evaldsl.diagnostics import Diagnostic, render
from evaldsl.primitives.registry import Registry
from tests.checker.stub_registry import stub_registry


@lru_cache(maxsize=1)
def registry() -> Registry:
    return stub_registry()


def diagnose(text: str, name: str = "t.eval") -> list[Diagnostic]:
    """Every diagnostic of `text` (syntax errors included)."""
    return check_source(text, name, registry())[1]


def codes(text: str) -> list[str]:
    return [d.code for d in diagnose(text)]


def of(text: str, code: str) -> list[Diagnostic]:
    """The diagnostics of `text` with `code`."""
    return [d for d in diagnose(text) if d.code == code]


def rendered(text: str, code: str) -> str:
    """The one diagnostic with `code`, rendered without colour; fails unless exactly one."""
    result, found = check_source(text, "t.eval", registry())
    matching = [d for d in found if d.code == code]
    assert len(matching) == 1, [f"{d.code} {d.message}" for d in found]
    return render(matching[0], result.source)


def messages(text: str, code: str) -> list[str]:
    return [d.message for d in of(text, code)]


BASE = """
check intent = classify(labels: ["a", "b"], expect: case.intent)
check completion = slots(slots: {name: "name"})
check polite = judge(criteria: "polite", scale: 10)
outcome {
  success if intent and completion >= 0.8
  failure otherwise
}
metric polite_rate = rate(polite)
"""
"""A small valid spec to extend in tests."""
