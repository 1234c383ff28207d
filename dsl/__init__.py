"""evaldsl: a language for judging conversational and tool-using AI agents.

    import evaldsl

    spec = evaldsl.load("specs/repair_booking.eval")
    result = spec.evaluate({"id": "c1", "messages": [...]})
    report = spec.run(cases)

See docs/api.md. Everything else lives in submodules (`evaldsl.syntax.parser`,
`evaldsl.primitives.registry`, `evaldsl.model`, ...).
"""

from __future__ import annotations

from evaldsl.api import Spec, load
from evaldsl.cases.case import Case
from evaldsl.errors import EvaldslError, SpecError
from evaldsl.model.protocols import Embedder, Judge
from evaldsl.primitives.registry import Registry, primitive
from evaldsl.results import CaseResult, Report
from evaldsl.values import CheckResult, ErrorValue

__all__ = [
    "Case",
    "CaseResult",
    "CheckResult",
    "Embedder",
    "ErrorValue",
    "EvaldslError",
    "Judge",
    "Registry",
    "Report",
    "Spec",
    "SpecError",
    "load",
    "primitive",
]
