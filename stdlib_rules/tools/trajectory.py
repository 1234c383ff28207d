"""The `trajectory` primitive: the calls an agent made against the expected ones.

Two independent choices make the verdict. The order mode (`mode`) says how
the sequence must line up; the argument mode (`args`, overridable per tool)
says when one call may stand for another (`evaldsl.stdlib.tools.callmatch`).
Both work on *items*: one call each, or with `by_message` the calls of one
assistant message as a group (a group fits another when their calls pair one
to one, in any order), and `evaldsl.stdlib.tools.alignment` lines them up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import Field, ValidationInfo, field_validator, model_validator

from evaldsl.cases.case import CALL_TYPES, Case
from evaldsl.cases.scopes import Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over
from evaldsl.stdlib.tools.alignment import OrderMode, align, matching
from evaldsl.stdlib.tools.argmatch import perfect_matching
from evaldsl.stdlib.tools.callmatch import ArgMode, Rule, ToolRule, fits, rule_for
from evaldsl.stdlib.tools.calls import read_call
from evaldsl.stdlib.tools.pairing import same_name
from evaldsl.stdlib.tools.primitives import CALL_SCOPES
from evaldsl.values import CheckResult, is_error


class Ref(NamedTuple):
    """One call: its name and arguments (None: given by name alone, any arguments fit),
    and the kind of tool and MCP server it must be (None: any)."""

    name: str
    args: Mapping[str, Any] | None
    kind: str | None = None
    server: str | None = None


class Act(NamedTuple):
    """One call made: its name, arguments, kind (`function`, `mcp`) and MCP server."""

    name: str | None
    args: Any
    kind: str = "function"
    server: str = ""


Group = list[Ref]
Made = list[Act]
"""The calls of one actual item."""


class TrajectoryParams(Params):
    expected: list[Any]
    """Expected calls in order: tool names or calls `{name, args}` (with `type: mcp` or
    `type: function`, and `server`, the call must be of that kind); with `by_message`, one
    list of them per assistant message."""
    mode: OrderMode = "strict"
    """`strict` the same sequence; `unordered` the same calls in any order; `subset` every
    call made was expected; `superset` every expected call was made; `ordered_superset`
    every expected call was made in order, other calls allowed between them."""
    args: ArgMode = "ignore"
    """`ignore` compares names only; `exact` every expected argument and no other; `subset`
    a call may leave out expected arguments; `superset` it may add some."""
    tools: dict[str, ToolRule] = Field(default_factory=dict)
    """Tool name -> its own `args`, the argument `paths` to compare, or a `table`."""
    by_message: bool = False
    """Compare the calls of each assistant message as a group, not one flat sequence."""
    min: float | None = Field(default=None, ge=0, le=1)
    """Pass when the score (share of expected calls made) reaches it, whatever `mode` says."""
    dotted_names: bool = True
    """Let `math.sum` match `math_sum`."""

    @field_validator("tools")
    @classmethod
    def _paths_are_compared(cls, tools: dict[str, ToolRule],
                            info: ValidationInfo) -> dict[str, ToolRule]:
        default = info.data.get("args", "ignore")
        for name, rule in tools.items():
            if rule.paths is not None and (rule.args or default) == "ignore":
                raise ValueError(
                    _("`{tool}` names `paths` to compare, but its argument mode is "
                      "`ignore`").format(tool=name))
        return tools

    @model_validator(mode="after")
    def _expected_reads(self) -> TrajectoryParams:
        groups = read_expected(self.expected, self.by_message)
        if isinstance(groups, str):
            raise ValueError(groups)
        return self


@primitive("trajectory", reads_text=False,
           params=TrajectoryParams, scopes=CALL_SCOPES, default_scope="dialog",
           fields={"missing": ValueType.LIST, "extra": ValueType.LIST,
                   "calls": ValueType.LIST},
           cost=Cost.FREE, value_type=ValueType.LIST, value_range=None,
           dynamic={"expected", "mode", "min"})
def trajectory(params: TrajectoryParams) -> Any:
    """The sequence of tool calls against the expected one, by `mode` and `args`.

    `.score` is the share of expected calls made (in order for `strict` and
    `ordered_superset`); `.value` and `.calls` list the names called;
    `.missing` and `.extra` the calls left unpaired, by name.

        check 流程 = trajectory(expected: ["查询库存", "创建订单", "发送确认"], mode: strict)
        check 预订 = trajectory(expected: [{name: "book", args: {room: "A"}}], args: subset)
    """
    groups = read_expected(params.expected, params.by_message)
    assert not isinstance(groups, str)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, lambda unit: judge(params, groups, unit))

    return evaluate


def read_expected(value: list[Any], by_message: bool) -> list[Group] | str:
    """The expected items as groups of calls (one call each unless `by_message`), or why not."""
    groups: list[Group] = []
    for item in value:
        group: Group = []
        for member in item if by_message and isinstance(item, list) else [item]:
            ref = _ref(member)
            if ref is None:
                return _not_a_call(member, by_message)
            group.append(ref)
        groups.append(group)
    return groups


def _ref(item: Any) -> Ref | None:
    if isinstance(item, str):
        return Ref(item, None)
    call = read_call(item) if isinstance(item, Mapping) else None
    if call is None or call.name is None or is_error(call.args):
        return None
    assert isinstance(call.args, Mapping) and isinstance(item, Mapping)
    kind, server = item.get("type"), item.get("server") or item.get("server_label")
    return Ref(call.name, call.args, call_type(kind) if kind else None,
               str(server) if server else None)


def call_type(kind: Any) -> str:
    """A call's kind as the transcript reader spells it (`mcp_call` is `mcp`)."""
    return CALL_TYPES.get(str(kind), str(kind))


def _not_a_call(item: Any, by_message: bool) -> str:
    if isinstance(item, list) and not by_message:
        return _("`expected` holds a list of calls, which only `by_message: true` reads "
                 "as the calls of one message")
    if by_message:
        return _("`{item}` is neither a tool name, a call `{{name, args}}` nor a list of "
                 "them").format(item=_short(item))
    return _("`{item}` is neither a tool name nor a call `{{name, args}}`").format(
        item=_short(item))


def judge(params: TrajectoryParams, expected: list[Group], unit: Unit) -> CheckResult:
    """The verdict on one unit's calls."""
    names = [r.name for g in expected for r in g]
    actual = _actual_groups(unit, params.by_message, names, params.dotted_names)
    table = [[_group_fits(e, a, params) for a in actual] for e in expected]
    weights = [len(g) for g in expected]
    verdict = align(params.mode, table, len(actual), weights)
    total = sum(weights)
    score = verdict.matched / total if total else float(verdict.passed)
    passed = verdict.passed if params.min is None else score >= params.min
    flat_expected = [r for g in expected for r in g]
    flat_actual = [c for g in actual for c in g]
    missing, extra = _unpaired(flat_expected, flat_actual, params)
    called = [c.name or "" for c in flat_actual]
    reason = "" if passed else _reason(names, called, missing, extra, score, params.min)
    return CheckResult.of(passed, score, called, reason, missing=missing, extra=extra,
                          calls=list(called))


def _actual_groups(unit: Unit, by_message: bool, names: list[str], dotted: bool) -> list[Made]:
    """The unit's calls (names as expected spells them), per message or one each."""
    groups = [[Act(_canonical(c.name, names, dotted), c.arguments, c.type, c.server)
               for c in m.tool_calls]
              for m in unit.messages if m.role == "assistant" and m.tool_calls]
    return groups if by_message else [[c] for g in groups for c in g]


def _canonical(name: str, expected: list[str], dotted: bool) -> str:
    return next((e for e in expected if same_name(e, name, dotted)), name)


def _rule(ref: Ref, params: TrajectoryParams) -> Rule:
    return rule_for(ref.name, params.args, params.tools, params.dotted_names)


def _group_fits(expected: Group, actual: Made, params: TrajectoryParams) -> bool:
    """Whether the calls of two groups pair one to one (in any order)."""
    if len(expected) != len(actual):
        return False
    edges = [[j for j, a in enumerate(actual) if _fits(e, a, params)] for e in expected]
    return perfect_matching(edges, len(actual))


def _fits(expected: Ref, actual: Act, params: TrajectoryParams) -> bool:
    if expected.kind is not None and expected.kind != actual.kind:
        return False
    if expected.server is not None and expected.server != actual.server:
        return False
    return fits(expected.name, expected.args, actual.name or "", actual.args,
                _rule(expected, params), params.dotted_names)


def _unpaired(expected: Group, actual: Made,
              params: TrajectoryParams) -> tuple[list[str], list[str]]:
    """Names of the calls left over when expected and actual calls pair one to one."""
    table = [[_fits(e, a, params) for a in actual] for e in expected]
    pairs = matching(table, len(actual), [1] * len(expected))
    paired_e, paired_a = {i for i, _j in pairs}, {j for _i, j in pairs}
    return ([e.name for i, e in enumerate(expected) if i not in paired_e],
            [a.name or "" for j, a in enumerate(actual) if j not in paired_a])


def _reason(expected: list[str], actual: list[str], missing: list[str], extra: list[str],
            score: float, least: float | None) -> str:
    parts = [_("called {actual}, expected {expected}").format(
        actual=" → ".join(actual) or _("nothing"), expected=" → ".join(expected))]
    if missing:
        parts.append(_("missing {calls}").format(calls=", ".join(f"`{m}`" for m in missing)))
    if extra:
        parts.append(_("extra {calls}").format(calls=", ".join(f"`{m}`" for m in extra)))
    if least is not None:
        parts.append(_("{score:.0%} of the expected calls made, below {least:.0%}").format(
            score=score, least=least))
    return "; ".join(parts)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
