"""Test-only primitives and a counting model runtime for interpreter tests.

`probe(key:)` is a FREE check and `ask(key:)` a MODEL check; both read their
result from the case field `probes`: `{"a": 0.7, "m": "error"}` gives probe
`a` score 0.7 (passed when >= its `min`, 0.5 by default) and makes `m` an
error value. A key that is absent is an error too. So a hypothesis strategy
can draw every check's value per case, and laws compare what the interpreter
makes of them. `Kit.evaluations` counts FREE probe evaluations and
`CountingRuntime` counts model requests, per kit: no global state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope
from evaldsl.model.requests import ModelRequest, ModelStats
from evaldsl.primitives.registry import Cost, Primitive, Registry
from evaldsl.values import CheckResult


class ProbeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str
    min: float = 0.5
    expect: str | None = None
    """A dynamic parameter: when given, the check passes only if it equals the probe's key."""


def probe_result(case: Case, key: str, minimum: float, expect: str | None = None) -> CheckResult:
    raw = (case.fields.get("probes") or {}).get(key, "error")
    if raw == "error" or raw is None:
        return CheckResult.error(f"probe `{key}` is an error in this case", key)
    score = float(raw)
    passed = score >= minimum and (expect is None or expect == key)
    return CheckResult.of(passed, score, score * 10, f"probe {key}={score}")


@dataclass(frozen=True)
class ModelProbe:
    key: str
    minimum: float
    expect: str | None


@dataclass
class Kit:
    registry: Registry
    evaluations: list[str] = field(default_factory=list)
    """FREE probe keys in the order they were evaluated."""


def make_kit() -> Kit:
    registry = Registry()
    kit = Kit(registry)

    def probe_factory(params: ProbeParams) -> Any:
        def evaluate(case: Case, scope: Scope) -> CheckResult:
            kit.evaluations.append(params.key)
            return probe_result(case, params.key, params.min, params.expect)
        return evaluate

    def ask_factory(params: ProbeParams) -> ModelProbe:
        return ModelProbe(params.key, params.min, params.expect)

    common: dict[str, Any] = {"params": ProbeParams, "scopes": frozenset({"dialog",
                              "last_reply"}), "default_scope": "dialog", "fields": {},
                              "doc": "", "dynamic": frozenset({"expect"})}
    registry.add(Primitive(name="probe", factory=probe_factory, cost=Cost.FREE, **common))
    registry.add(Primitive(name="cheap", factory=probe_factory, cost=Cost.CHEAP, **common))
    registry.add(Primitive(name="ask", factory=ask_factory, cost=Cost.MODEL, **common))
    return kit


class CountingRuntime:
    """A ModelRuntime answering `ask` checks from the case's probes; counts every request."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls = 0
        self.rounds = 0
        self.asked: list[tuple[str, str]] = []
        """(case id, check name) per request."""
        self.delay = delay

    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        self.rounds += 1
        self.calls += len(requests)
        self.asked.extend((case.id, r.check) for r in requests)
        if self.delay:
            await asyncio.sleep(self.delay)
        out = []
        for r in requests:
            m: ModelProbe = r.model_check
            out.append(probe_result(case, m.key, m.minimum, m.expect))
        return out

    def stats(self) -> ModelStats:
        return ModelStats(calls=self.calls)


def case(case_id: str, **probes: Any) -> dict[str, Any]:
    """A case dict with the given probe values and a two-message dialog."""
    return {"id": case_id, "probes": probes,
            "messages": [{"role": "user", "content": "hello"},
                         {"role": "assistant", "content": "hi, how can I help?"}]}
