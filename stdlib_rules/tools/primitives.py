"""Tool-use primitives: `args_match` and `tool_called` (`trajectory` has its own module).

They read the tool calls of the assistant messages a scope selects (or the
calls given with `actual:`). Matching rules, pairing of several calls and the
strict/normalized pair of verdicts are documented in `evaldsl.stdlib.tools.argmatch`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import REPLY_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, Table, over, unit_calls, unit_range
from evaldsl.stdlib._pins import measured, overlay
from evaldsl.stdlib.tools.argmatch import Options
from evaldsl.stdlib.tools.argtypes import FunctionDocs, Missing
from evaldsl.stdlib.tools.calls import expected_calls, given_calls, scope_calls
from evaldsl.stdlib.tools.pairing import match_calls, same_name
from evaldsl.values import CheckResult

CALL_SCOPES = REPLY_SCOPES | {"dialog"}


class ArgsMatchParams(Params):
    expected: Any
    """One call `{name, args}`, a list of calls, BFCL's gold `{calls, expect_no_call,
    order_matters}`, or a bare map of arguments (any function name)."""
    actual: Any = None
    """Calls to judge instead of those in the scope (same forms; `arguments` may be JSON text)."""
    table: Table | None = None
    """Normalization for every string argument that `tables` does not name."""
    tables: dict[str, Table] = Field(default_factory=dict)
    """Argument path (`region`, `address.city`), or one qualified by the function
    (`"get_weather.location"`, which wins over `location`) -> its normalization table."""
    sets: list[str] = Field(default_factory=list)
    """Argument paths whose lists compare in any order (`ids`, or `f.ids` for `f` only)."""
    lists: Literal["ordered", "sets"] = "ordered"
    """How every other list compares."""
    optional: list[str] = Field(default_factory=list)
    """Argument paths that may be left out (`note`, or `f.note` for `f` only)."""
    accept: dict[str, list[Any]] = Field(default_factory=dict)
    """Argument path (`city`, or `f.city` for `f` only) -> further acceptable values, in
    either style; per case too (`accept: case.aliases`), a case's own alias list."""
    contained: list[str] = Field(default_factory=list)
    """Argument paths whose texts also match when every word of one is a word of the
    other (`AMC Metreon` and `AMC Metreon 16`), after the path's table."""
    alternatives: bool = False
    """Expected arguments hold lists of acceptable values, `""` = may be omitted (BFCL)."""
    functions: list[Any] | None = None
    """Function docs whose parameter types and required parameters are enforced."""
    order_matters: bool | None = None
    """Pair calls by position; default: the gold's `order_matters`, else false."""
    allow_extra_calls: bool = False
    """Calls beyond the expected ones do not fail the check."""
    allow_extra_args: bool = False
    """Arguments the expected call does not name do not fail the check."""
    coerce_numbers: bool = True
    """Let `"10000"` equal `10000` in the normalized comparison."""
    dotted_names: bool = True
    """Let `math.factorial` match `math_factorial`."""


@primitive("args_match", reads_text=False,
           params=ArgsMatchParams, scopes=CALL_SCOPES,
           default_scope="last_reply",
           fields={"strict": ValueType.BOOL, "mismatches": ValueType.LIST,
                   "missing": ValueType.LIST, "strict_mismatches": ValueType.LIST,
                   "pairs": ValueType.LIST,
                   "calls": ValueType.NUMBER},
           cost=Cost.FREE, value_range=unit_range,
           dynamic={"expected", "actual", "functions", "order_matters", "accept"},
           pin=lambda p, f: _pin_args(f))
def args_match(params: ArgsMatchParams) -> Any:
    """Tool-call arguments against expected ones, field by field.

    `.passed` holds after normalization (tables, numbers as numbers),
    `.strict` with exact values; `.mismatches` says why, e.g. `region: 'East'
    ≠ 'east'`, and `.missing` lists the arguments left out (`phone: missing`,
    `location: missing (required)`) apart from the wrong ones;
    `.strict_mismatches` has both for the strict comparison. `.score` is the
    share of expected arguments matched and `.value` the same share.
    `contained: [name]` lets a name match a longer one holding all its words.

        table 地区 (nfkc, casefold, strip) { "华东", "East China" -> "east" }
        check 参数 = args_match(expected: case.expected_call, tables: {region: 地区})
    """
    gold = expected_calls(params.expected)
    docs = FunctionDocs(params.functions, params.dotted_names) if params.functions else None

    def judge(calls: list[Any]) -> CheckResult:
        if isinstance(gold, CheckResult):
            return gold
        calls_, no_call, order = gold
        order_matters = params.order_matters if params.order_matters is not None else order
        options = _options(params, order_matters)
        verdict = match_calls(calls_, calls, options, docs)
        if no_call and calls:
            verdict = verdict._replace(passed=False, strict=False)
        reason = "; ".join(verdict.mismatches)
        missing = [str(m) for m in verdict.mismatches if isinstance(m, Missing)]
        wrong = [str(m) for m in verdict.mismatches if not isinstance(m, Missing)]
        return CheckResult(verdict.passed, verdict.score, verdict.score,
                           {"strict": verdict.strict, "mismatches": wrong, "missing": missing,
                            "strict_mismatches": verdict.strict_mismatches,
                            "pairs": [list(p) for p in verdict.pairs], "calls": len(calls)},
                           reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        if params.actual is not None:
            actual = given_calls(params.actual)
            return actual if isinstance(actual, CheckResult) else judge(actual)
        return over(case, scope, lambda unit: judge(scope_calls(unit)))

    return evaluate


def _options(params: ArgsMatchParams, order_matters: bool) -> Options:
    return Options(
        table=params.table, tables=params.tables, sets=frozenset(params.sets),
        all_sets=params.lists == "sets", optional=frozenset(params.optional),
        accept=params.accept, alternatives=params.alternatives,
        allow_extra_args=params.allow_extra_args, allow_extra_calls=params.allow_extra_calls,
        coerce_numbers=params.coerce_numbers, dotted_names=params.dotted_names,
        order_matters=order_matters, contained=frozenset(params.contained))


class ToolCalledParams(Params):
    name: str
    """The tool's name."""
    min_times: int | None = Field(default=None, ge=0)
    """Fewest calls; 1 unless `max_times` is 0."""
    max_times: int | None = Field(default=None, ge=0)
    """`max_times: 0` asserts the tool was never called."""
    dotted_names: bool = True
    """Let `math.sum` match `math_sum`."""
    type: Literal["function", "mcp"] | None = None
    """Count only calls of this kind: a `function` the agent defines, or a tool of an
    `mcp` server; any kind by default."""
    server: str | None = None
    """Count only calls to tools of this MCP server (its `server_label`)."""

    @model_validator(mode="after")
    def _bounds(self) -> ToolCalledParams:
        if self.min_times is not None and self.max_times is not None \
                and self.min_times > self.max_times:
            raise ValueError(_("`min_times` is larger than `max_times`"))
        return self

    @property
    def fewest(self) -> int:
        if self.min_times is not None:
            return self.min_times
        return 0 if self.max_times == 0 else 1


@primitive("tool_called", reads_text=False,
           params=ToolCalledParams, scopes=CALL_SCOPES, default_scope="dialog",
           fields={"count": ValueType.NUMBER}, cost=Cost.FREE,
           dynamic={"name", "min_times", "max_times"},
           pin=lambda p, f: measured(f, lambda v: v >= p.fewest and (
               p.max_times is None or v <= p.max_times), "count"))
def tool_called(params: ToolCalledParams) -> Any:
    """Whether a tool was called, and how often (`min_times` .. `max_times`).

    `.value` and `.count` are the number of calls of that tool in the scope.

        check 转人工 = tool_called(name: "transfer_to_human", max_times: 0)
    """

    def judge(unit: Unit) -> CheckResult:
        count = sum(1 for c in unit_calls(unit)
                    if same_name(params.name, c.name, params.dotted_names)
                    and (params.type is None or c.type == params.type)
                    and (params.server is None or c.server == params.server))
        high = params.max_times
        passed = count >= params.fewest and (high is None or count <= high)
        reason = "" if passed else f"`{params.name}` called {count} times"
        return CheckResult.of(passed, None, count, reason, count=count)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def _pin_args(fields: dict[str, Any]) -> CheckResult:
    """`given call.strict = true` implies a normalized pass; `.strict` defaults to `.passed`."""
    passed = bool(fields.get("passed", True))
    strict = bool(fields.get("strict", passed)) and passed
    base = CheckResult.of(passed, strict=strict, mismatches=[], missing=[], strict_mismatches=[],
                          pairs=[], calls=0)
    return overlay(base, {k: v for k, v in fields.items() if k != "strict"})
