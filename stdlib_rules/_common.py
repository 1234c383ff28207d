"""Pieces every deterministic primitive module shares.

`Params` is the base of every params model: unknown arguments are errors
(`extra="forbid"`), so the checker reports a misspelt argument instead of
ignoring it. A parameter typed `Table` takes a `table` the spec defines; the
compiler resolves the table's name to its `NormalizationTable` before the
params are validated, exactly as it folds a constant `let`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaldsl.cases.case import Case, ToolCall
from evaldsl.cases.scopes import Scope, Unit, evaluate_over
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.values import CheckResult

Table = NormalizationTable
"""The annotation of a parameter that names a spec's `table`."""


class Params(BaseModel):
    """Base of the params models: frozen, no unknown arguments, tables allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True,
                              defer_build=True)
    """Attribute docstrings describe the parameters; `evaldsl.primitives.fielddocs` reads them.
    `defer_build`: a model's validator is built when it is first used, so a process pays
    only for the primitives its spec calls, not for every one of a module it imports."""


def unit_calls(unit: Unit) -> list[ToolCall]:
    """Every tool call made by the assistant messages of a unit, in order."""
    return [c for m in unit.messages if m.role == "assistant" for c in m.tool_calls]


def over(case: Case, scope: Scope, judge: Any, worst: Any = None) -> CheckResult:
    """`evaluate_over`, then fold a combined list of values into one with `worst`.

    Combining `each_reply` units yields the list of per-unit values; primitives
    whose value is a measure (milliseconds, characters) report the worst one.
    """
    result = evaluate_over(case, scope, judge)
    if worst is not None and isinstance(result.value, list) and not result.is_error:
        numbers = [v for v in result.value if isinstance(v, (int, float))]
        result.value = worst(numbers) if numbers else None
    return result


def unique(items: Iterable[str]) -> list[str]:
    """Items in first-seen order without repeats."""
    return list(dict.fromkeys(items))


def unit_range(_: Any) -> tuple[float, float]:
    """The value range of primitives whose value is a share in 0..1."""
    return (0.0, 1.0)
