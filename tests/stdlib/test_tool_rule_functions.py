"""Tool rules as Python functions: the primitive docs/writing_a_primitive.md builds (section 5),
run on agentevals' examples of `tool_args_match_overrides` with agentevals' verdicts."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import evaldsl
from evaldsl import Case, CheckResult, Cost, Scope, Unit, evaluate_over, primitive

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing_a_primitive.md"

# --- the code of the guide's section 5, verbatim ---------------------------------------

ArgsRule = Callable[[Mapping[str, Any], Mapping[str, Any]], bool]
"""(arguments made, arguments expected) -> whether the call stands for the expected one."""

RULES: dict[str, ArgsRule] = {
    "get_weather": lambda made, want: made["city"].lower() == want["city"].lower(),
    "lookup_policy": lambda made, want: "upgrade" not in want.get("query", "")
    or "upgrade" in made.get("query", ""),
}
"""Tool name -> its rule; a tool without one compares its arguments with `==`."""


class RuleCallsParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    expected: list[dict[str, Any]]
    """The expected calls `{name, args}`, in order."""


def rule_calls(params: RuleCallsParams) -> object:
    """The calls made are the expected ones, in order, each judged by its tool's rule.

        check 查天气 = rule_calls(expected: case.calls)
    """

    def judge(unit: Unit) -> CheckResult:
        made = [c for m in unit.messages if m.role == "assistant" for c in m.tool_calls]
        if len(made) != len(params.expected):
            return CheckResult.of(False, None, len(made), f"{len(made)} calls made")
        for call, want in zip(made, params.expected, strict=True):
            rule = RULES.get(want["name"], lambda a, b: a == b)
            if call.name != want["name"] or not rule(call.arguments, want.get("args", {})):
                return CheckResult.of(False, None, len(made), f"`{call.name}` differs")
        return CheckResult.of(True, None, len(made))

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return evaluate_over(case, scope, judge)

    return evaluate

# --- end of the guide's code -----------------------------------------------------------


SPEC = """\
spec "tool rules as functions"
case {
  calls: list
}
check calls = rule_calls(expected: case.calls)
outcome {
  ok if calls
  wrong otherwise
}
"""


@pytest.fixture(scope="module")
def spec() -> evaldsl.Spec:
    registry = evaldsl.Registry.standard()
    primitive("rule_calls", params=RuleCallsParams, scopes={"dialog", "last_reply"},
              default_scope="dialog", dynamic={"expected"}, cost=Cost.FREE,
              registry=registry)(rule_calls)
    return evaldsl.loads(SPEC, registry=registry)


def transcript(name: str, args: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}
    return {"id": "t", "calls": [{"name": name, "args": expected}],
            "messages": [{"role": "user", "content": "?"},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "content": "ok", "tool_call_id": "c1"},
                         {"role": "assistant", "content": "done"}]}


# agentevals' README and tests: the rule forgives a city's case, not another city; the
# policy rule asks for "upgrade" only where the expected query has it.
@pytest.mark.parametrize(("name", "made", "want", "verdict"), [
    ("get_weather", {"city": "san francisco"}, {"city": "San Francisco"}, "ok"),
    ("get_weather", {"city": "San Jose"}, {"city": "San Francisco"}, "wrong"),
    ("lookup_policy", {"query": "seat upgrade rules"}, {"query": "upgrade"}, "ok"),
    ("lookup_policy", {"query": "refund rules"}, {"query": "upgrade"}, "wrong"),
])
def test_agentevals_overrides(spec: evaldsl.Spec, name: str, made: dict[str, Any],
                              want: dict[str, Any], verdict: str) -> None:
    assert spec.evaluate(transcript(name, made, want)).labels["outcome"] == verdict


def test_the_guide_shows_this_code() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    for part in (RuleCallsParams, rule_calls):
        assert inspect.getsource(part) in guide
