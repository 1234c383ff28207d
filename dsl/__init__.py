"""evaldsl: a language for judging conversational and tool-using AI agents.

    import evaldsl

    spec = evaldsl.load("specs/repair_booking.eval")   # a path; evaldsl.loads(text) for text
    result = spec.evaluate({"id": "c1", "messages": [...]})
    report = spec.run(cases)

See docs/api.md. Everything else lives in submodules (`evaldsl.syntax.parser`,
`evaldsl.primitives.registry`, `evaldsl.model`, ...).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaldsl.api import Spec, load, loads
    from evaldsl.cases.case import Case
    from evaldsl.cases.scopes import Scope, Unit, evaluate_over
    from evaldsl.diagnostics import Diagnostic
    from evaldsl.errors import EvaldslError, SpecError
    from evaldsl.i18n import set_language
    from evaldsl.model.protocols import Embedder, Judge
    from evaldsl.primitives.registry import Cost, Registry, primitive
    from evaldsl.report.folded import Report
    from evaldsl.results import CaseResult
    from evaldsl.values import CheckResult, ErrorValue

_HOMES = {
    "Case": "evaldsl.cases.case",
    "CaseResult": "evaldsl.results",
    "CheckResult": "evaldsl.values",
    "Cost": "evaldsl.primitives.registry",
    "Diagnostic": "evaldsl.diagnostics",
    "Embedder": "evaldsl.model.protocols",
    "ErrorValue": "evaldsl.values",
    "EvaldslError": "evaldsl.errors",
    "Judge": "evaldsl.model.protocols",
    "Registry": "evaldsl.primitives.registry",
    "Report": "evaldsl.report.folded",
    "Scope": "evaldsl.cases.scopes",
    "Spec": "evaldsl.api",
    "SpecError": "evaldsl.errors",
    "Unit": "evaldsl.cases.scopes",
    "evaluate_over": "evaldsl.cases.scopes",
    "load": "evaldsl.api",
    "loads": "evaldsl.api",
    "primitive": "evaldsl.primitives.registry",
    "set_language": "evaldsl.i18n",
}
"""Public name -> the module that defines it, imported on first use (PEP 562).

`import evaldsl` is what every run, check and plugin pays first: it loads
nothing else, so each command pays only for the modules it reaches.
"""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'evaldsl' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Case",
    "CaseResult",
    "CheckResult",
    "Cost",
    "Diagnostic",
    "Embedder",
    "ErrorValue",
    "EvaldslError",
    "Judge",
    "Registry",
    "Report",
    "Scope",
    "Spec",
    "SpecError",
    "Unit",
    "evaluate_over",
    "load",
    "loads",
    "primitive",
    "set_language",
]
