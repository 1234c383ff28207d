"""A `ShardState` as bytes for another process, and back (`ShardState.dumps`, `.loads`).

Pickled, with the compiled spec's parts (the report plan and its metric formulas, which
are closures) left out and supplied again by the receiving side's spec. Only a run split
across processes needs it, so a run in one process does not import `pickle`.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from evaldsl.report.layout import SpecLayout
from evaldsl.runtime.aggregation import MetricPlan


def dumps(state: Any, plan: Any, layout: SpecLayout) -> bytes:
    """`state` pickled, `plan`, `layout` and the plan's metrics named instead of written."""
    out = io.BytesIO()
    _Pickler(out, plan, layout).dump(state)
    return out.getvalue()


def loads(data: bytes, plan: Any, layout: SpecLayout) -> Any:
    """What `dumps` wrote, the parts it named taken from `plan` and `layout`."""
    return _Unpickler(io.BytesIO(data), plan, layout).load()


class _Pickler(pickle.Pickler):
    """Leaves out what the receiving side's spec supplies again (see the module docstring)."""

    def __init__(self, file: io.BytesIO, plan: Any, layout: SpecLayout) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._plan = plan
        self._layout = layout

    def persistent_id(self, obj: Any) -> Any:
        if obj is self._plan:
            return "plan"
        if obj is self._layout:
            return "layout"
        if isinstance(obj, MetricPlan):
            return ("metric", obj.name)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, plan: Any, layout: SpecLayout) -> None:
        super().__init__(file)
        self._parts: dict[Any, Any] = {"plan": plan, "layout": layout}
        self._parts.update({("metric", m.name): m for m in plan.metrics})

    def persistent_load(self, pid: Any) -> Any:
        try:
            return self._parts[pid]
        except KeyError:
            raise pickle.UnpicklingError(f"the state names `{pid}`; this spec has none") from None
