"""Whether an actual tool call may stand for an expected one, by trajectory's argument modes.

`exact` every expected argument and no other; `ignore` the name alone;
`subset` the call may leave out expected arguments (at any depth) but adds
none; `superset` it may add arguments but leaves none out. A tool's own rule
may change its mode, compare only some argument paths (`time.start`) or
normalize its strings through a table. Values compare as JSON (args_match's
`.strict`); with a table, strings compare after the table and numbers written
as text equal numbers (args_match's `.passed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evaldsl.primitives.tables import NormalizationTable
from evaldsl.stdlib._common import Params, Table
from evaldsl.stdlib.tools.argmatch import Comparer, Options, compare_args
from evaldsl.stdlib.tools.pairing import same_name

ArgMode = Literal["exact", "ignore", "subset", "superset"]


class ToolRule(Params):
    """One tool's override of how its arguments compare."""

    args: ArgMode | None = None
    """This tool's argument mode instead of the check's `args`."""
    paths: list[str] | None = None
    """Only these argument paths compare (`time.start`); the tool's other arguments do not."""
    table: Table | None = None
    """Normalization of this tool's string arguments."""


@dataclass(frozen=True)
class Rule:
    """The resolved rule of one tool: its mode, paths and table."""

    mode: ArgMode
    paths: tuple[str, ...] | None = None
    table: NormalizationTable | None = None


def rule_for(name: str | None, mode: ArgMode, tools: Mapping[str, ToolRule],
             dotted: bool) -> Rule:
    """The rule of tool `name`: its override where the spec gives one, else the check's mode."""
    own = next((r for t, r in tools.items() if name is not None and same_name(t, name, dotted)),
               None)
    if own is None:
        return Rule(mode)
    paths = tuple(own.paths) if own.paths is not None else None
    return Rule(own.args or mode, paths, own.table)


def fits(expected_name: str, expected_args: Mapping[str, Any] | None, actual_name: str,
         actual_args: Any, rule: Rule, dotted: bool) -> bool:
    """Whether the actual call may stand for the expected one under `rule`.

    An expected call given by its name alone (`expected_args` None) fits any
    arguments.
    """
    if not same_name(expected_name, actual_name, dotted):
        return False
    if expected_args is None or rule.mode == "ignore":
        return True
    if not isinstance(actual_args, Mapping):
        return False
    want, got = dict(expected_args), dict(actual_args)
    if rule.paths is not None:
        want, got = project(want, rule.paths), project(got, rule.paths)
    options = Options(table=rule.table, allow_extra_args=rule.mode == "superset",
                      allow_missing_args=rule.mode == "subset")
    return not compare_args(want, got, Comparer(options, exact=rule.table is None))


def project(args: Mapping[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """The arguments at `paths` only, nested as they were.

    >>> project({"time": {"start": 9, "end": 10}, "room": "A"}, ["time.start"])
    {'time': {'start': 9}}
    """
    out: dict[str, Any] = {}
    for path in paths:
        keys = path.split(".")
        value: Any = args
        for key in keys:
            if not isinstance(value, Mapping) or key not in value:
                break
            value = value[key]
        else:
            _put(out, keys, value)
    return out


def _put(target: dict[str, Any], keys: list[str], value: Any) -> None:
    for key in keys[:-1]:
        target = target.setdefault(key, {})
    target[keys[-1]] = value
