"""A metric broken down by group: `metric m = rate(success) by case.tenant, case.lang`.

Each case's key is the values of its `by` fields, read from the case before
anything is judged and written in its journal line (`groups`), so a report
rebuilt from journals (`merge`, `--resume`) finds the same groups. Every
group keeps a whole `MetricState` of its own, so a group has exactly what the
overall metric has (numerator, denominator, errors, a Wilson or bootstrap
interval) and merges exactly; the overall state is kept beside, unchanged.

A case without a value for a key (an optional field left out, `null`) is in
the group whose key is null there, shown as "(none)": counted, never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaldsl.runtime.aggregation import MetricPlan, MetricState, MetricValue

GroupKey = tuple[Any, ...]
"""One value per `by` field, in the order written; None where the case has none."""

SMALL_GROUP = 30
"""A group with fewer cases in its denominator is flagged `small`: at 30 cases a rate's
95% interval is still about ±0.17 wide, and below it a difference between groups says
more about which cases fell where than about the groups."""

_KEPT = (str, bool, int, float)


def key_value(value: Any) -> Any:
    """A case field's value as a group key part: scalars as they are, None for a missing
    field, anything else (a list or map under `any`) as its canonical JSON text."""
    if value is None or isinstance(value, _KEPT):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def group_key(fields: Mapping[str, Any], by: Sequence[str]) -> GroupKey:
    """The key of a case with these fields, for a metric grouped `by` these field names."""
    return tuple(key_value(fields.get(name)) for name in by)


def _order(item: tuple[GroupKey, MetricState]) -> tuple[Any, ...]:
    """Largest denominator first, then the key: texts and numbers by value, null last."""
    key, state = item
    return (-state.denominator,
            tuple((v is None, type(v).__name__, "" if v is None else v) for v in key))


@dataclass(frozen=True)
class GroupValue:
    """One group of a grouped metric, finished."""

    key: GroupKey
    value: MetricValue
    """The metric over the group's cases alone."""

    @property
    def small(self) -> bool:
        """Whether the group is too small for its value to be read on its own."""
        return self.value.denominator < SMALL_GROUP


@dataclass
class GroupedState:
    """The per-group states of one grouped metric; folds and merges like `MetricState`."""

    plan: MetricPlan
    states: dict[GroupKey, MetricState] = field(default_factory=dict)

    def state(self, key: GroupKey) -> MetricState:
        """The state of the group `key`, made empty on its first case."""
        found = self.states.get(key)
        if found is None:
            found = self.states[key] = MetricState(self.plan)
        return found

    def merge(self, other: GroupedState) -> GroupedState:
        """A new state of both sides' cases; neither side's groups change, even those only
        one side has (each is merged with an empty state, which copies it)."""
        out: dict[GroupKey, MetricState] = {}
        for key in self.states.keys() | other.states.keys():
            empty = MetricState(self.plan)
            out[key] = self.states.get(key, empty).merge(other.states.get(key, empty))
        return GroupedState(self.plan, out)

    def results(self) -> tuple[GroupValue, ...]:
        """Every group, largest denominator first, then by key."""
        return tuple(GroupValue(key, state.result())
                     for key, state in sorted(self.states.items(), key=_order))
