"""Spec tests: running a spec's `example` blocks.

    example "booking with every slot" {
      user "我想预约明天上午修空调"
      assistant "好的，请问您的姓名和电话？" {latency_ms: 800}
      case {intent: "appointment_booking"}
      given polite = 8                  # a model check's result, pinned
      given intent.label = "appointment_booking"
      expect success
      expect completion.score >= 0.8
    }

An example is a tiny case written inline, plus pinned results for the checks
that would need a model (so examples run offline and never flake), plus
`expect` conditions evaluated like any expression of the spec after the case
was judged. `given CHECK = V` pins the check's `value` (a bool pins `passed`);
`given CHECK.FIELD = V` pins one field. The primitive's own `pin` builds the
whole result from those fields (a judge's score from its points, a slots
check's `filled` map from a count); primitives without one get a generic
result. An example passes when every `expect` holds; an expect that is an
error counts as not holding, with the error shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evaldsl.api import Spec, as_case, load
from evaldsl.cases.case import Case
from evaldsl.errors import EvaldslError, ExampleProblem, SpecError
from evaldsl.i18n import _
from evaldsl.model.requests import ModelRequest
from evaldsl.results import CaseResult
from evaldsl.runtime.compiler import Compiler
from evaldsl.runtime.frame import Fn, Frame
from evaldsl.runtime.interpreter import Interpreter
from evaldsl.runtime.logic import PENDING
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span
from evaldsl.values import CheckResult, ErrorValue


@dataclass(frozen=True)
class Expectation:
    text: str
    """The `expect` line as written."""
    span: Span
    held: bool
    value: Any
    """What the condition evaluated to (true, false or an error)."""


@dataclass(frozen=True)
class ExampleRun:
    """The outcome of one example."""

    spec: str
    name: str
    span: Span
    expectations: tuple[Expectation, ...] = ()
    result: CaseResult | None = None
    problem: str | None = None
    """Why the example could not run at all (a bad pin, a bad inline value)."""

    @property
    def passed(self) -> bool:
        return self.problem is None and all(e.held for e in self.expectations)

    @property
    def failures(self) -> list[Expectation]:
        return [e for e in self.expectations if not e.held]


def examples_of(spec: Spec) -> list[n.Example]:
    return list(spec.graph.module.of_type(n.Example))


def run_examples(path: str | Path, spec: Spec | None = None) -> list[ExampleRun]:
    """Load a spec (raising `SpecError` when it has errors) and run all its examples."""
    spec = spec or load(Path(path))
    interpreter = ExampleInterpreter(spec)
    return [run_example(spec, example, interpreter) for example in examples_of(spec)]


def run_example(spec: Spec, example: n.Example,
                interpreter: ExampleInterpreter | None = None) -> ExampleRun:
    name = spec.source.name
    interpreter = interpreter or ExampleInterpreter(spec)
    try:
        case = example_case(example)
        pins = example_pins(spec, example, case)
        result, values = interpreter.probe(as_case(case), pins,
                                           [e.condition for e in _expects(example)])
    except (ExampleProblem, EvaldslError) as exc:
        return ExampleRun(name, example.name, example.span, problem=str(exc))
    expectations = tuple(
        Expectation(spec.graph.text(e.condition.span), e.span, value is True, value)
        for e, value in zip(_expects(example), values, strict=True))
    return ExampleRun(name, example.name, example.span, expectations, result)


def failure_report(run: ExampleRun) -> str:
    """Why an example failed: each expect that did not hold, its value and location, then
    the case's labels and trace (the same text in `evaldsl test` and in pytest)."""
    if run.problem:
        return _("{spec}:{line}: example `{name}`: {problem}").format(
            spec=run.spec, line=run.span.line, name=run.name, problem=run.problem
        )
    lines = [
        _("{spec}:{line}:{col}: expect {text}  ->  {describe}").format(
            spec=run.spec, line=e.span.line, col=e.span.col, text=e.text, describe=describe(e.value)
        )
        for e in run.failures
    ]
    if run.result is not None:
        lines += ["", "labels: " + ", ".join(f"{k}={v}" for k, v in run.result.labels.items())]
        lines += [f"  {line}" for line in run.result.trace]
    return "\n".join(lines)


class _Offline:
    """The model runtime of examples: none. An unpinned model check is an error saying so."""

    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        return [
            CheckResult.error(
                _(
                    "`{check}` needs a model: pin its result in the "
                    "example with `given {check} = ...`"
                ).format(check=r.check),
                r.check,
            )
            for r in requests
        ]


class ExampleInterpreter(Interpreter):
    """The spec's interpreter, offline, able to read `expect` conditions on a judged case."""

    def __init__(self, spec: Spec) -> None:
        offline = _Offline()
        super().__init__(spec.graph, lambda: offline)
        self._compiler = Compiler(spec.graph, self.program.slots)

    def probe(self, case: Case, pins: Mapping[str, CheckResult],
              conditions: Sequence[n.Expr]) -> tuple[CaseResult, list[Any]]:
        """Judge `case` with `pins`, then evaluate each condition on what it computed."""
        try:
            readers = [self._compiler.condition(c) for c in conditions]
        except SpecError as exc:
            raise ExampleProblem(str(exc)) from None
        frame = self._start(case, pins)
        self._settle(frame)
        return self._result(frame), [self._read(frame, read) for read in readers]

    def _settle(self, frame: Frame) -> None:
        if frame.wanted:
            asyncio.run(self._complete(frame))

    def _read(self, frame: Frame, read: Fn) -> Any:
        """A condition's value; a model check it reaches first is resolved (offline: an error)."""
        for _round in range(len(self.program.checks) + 2):
            value = read(frame)
            if value is not PENDING:
                return value
            self._settle(frame)
            self._reset(frame)
        return ErrorValue(_("the condition did not settle"))  # pragma: no cover


def _expects(example: n.Example) -> list[n.ExampleExpect]:
    return [i for i in example.items if isinstance(i, n.ExampleExpect)]


# ---------------------------------------------------------------- the inline case


def example_case(example: n.Example) -> dict[str, Any]:
    """The example's case in the OpenAI format: messages in order, then `case {...}` fields."""
    messages: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    for item in example.items:
        if isinstance(item, n.ExampleMessage):
            message: dict[str, Any] = {"role": item.role, "content": item.content}
            if item.extra is not None:
                message.update(_message_extra(literal(item.extra)))
            messages.append(message)
        elif isinstance(item, n.ExampleCase):
            fields.update(literal(item.fields))
    return {**fields, "id": f"example: {example.name}", "messages": messages}


def _message_extra(extra: Mapping[str, Any]) -> dict[str, Any]:
    """`{tool_calls: [{name: "f", arguments: {...}}]}` in the OpenAI wire form."""
    out = dict(extra)
    calls = out.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [_tool_call(c, i) for i, c in enumerate(calls)]
    return out


def _tool_call(call: Any, index: int) -> Any:
    if not isinstance(call, Mapping) or "function" in call:
        return call
    import json

    arguments = call.get("arguments", {})
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": str(call.get("id", f"call_{index}")), "type": "function",
            "function": {"name": str(call.get("name", "")), "arguments": raw}}


def literal(expr: n.Expr) -> Any:
    """The value of a literal written in an example (numbers, texts, lists, maps)."""
    if isinstance(expr, (n.Number, n.Percent, n.String, n.Bool)):
        return expr.value
    if isinstance(expr, n.Group):
        return literal(expr.expr)
    if isinstance(expr, n.Unary) and expr.op == "-":
        value = literal(expr.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if isinstance(expr, n.ListLit):
        return [literal(item) for item in expr.items]
    if isinstance(expr, n.MapLit):
        return {e.key: literal(e.value) for e in expr.entries}
    raise ExampleProblem(
        _(
            "line {line}: examples take literal values (numbers, texts, true/false, lists, maps)"
        ).format(line=expr.span.line)
    )


# ---------------------------------------------------------------- pins


def example_pins(spec: Spec, example: n.Example, case: Mapping[str, Any],
                 ) -> dict[str, CheckResult]:
    """One pinned `CheckResult` per check named in a `given` line."""
    fields: dict[str, dict[str, Any]] = {}
    for item in example.items:
        if isinstance(item, n.ExampleGiven):
            value = literal(item.value)
            key = item.field or ("passed" if isinstance(value, bool) else "value")
            fields.setdefault(item.check, {})[key] = value
    return {name: pin(spec, name, pinned, case) for name, pinned in fields.items()}


def pin(spec: Spec, check: str, fields: dict[str, Any], case: Mapping[str, Any]) -> CheckResult:
    """The full result a check would give with `fields` pinned."""
    try:
        node = spec.graph.check(check)
    except KeyError:
        raise ExampleProblem(
            _("`given {check}`: the spec has no check `{check}`").format(check=check)
        ) from None
    primitive = node.primitive
    if primitive.pin is not None:
        params = _params(node, case, spec.graph.symbols.lets)
        if params is not None:
            try:
                return primitive.pin(params, dict(fields))
            except (TypeError, ValueError, KeyError) as exc:
                raise ExampleProblem(
                    _("`given {check}`: {exc}").format(check=check, exc=exc)
                ) from None
    return generic_pin(fields)


def _let_value(expr: n.Expr, lets: Mapping[str, Any]) -> n.Expr:
    """A constant `let` named as an argument (`labels: intents`) stands for its value."""
    if isinstance(expr, n.Name) and expr.name in lets:
        return _let_value(lets[expr.name].value, {k: v for k, v in lets.items()
                                                 if k != expr.name})
    return expr


def _params(node: Any, case: Mapping[str, Any], lets: Mapping[str, Any]) -> Any:
    """The check's params for this case: literal arguments, and `case.X` ones from the case."""
    values: dict[str, Any] = {}
    from_case: list[str] = []
    for arg in node.args:
        try:
            values[arg.name] = literal(_let_value(arg.value, lets))
        except ExampleProblem:
            value = _case_field(arg.value, case)
            if value is not None:
                values[arg.name] = value
                from_case.append(arg.name)
    try:
        return node.primitive.validate_per_case(values, from_case)
    except ValidationError as exc:
        _refuse_case_values(node.name, exc, from_case)
        return None
    except ValueError:
        return None


def _refuse_case_values(check: str, exc: ValidationError, from_case: list[str]) -> None:
    """A value the example's case gives that the check refuses (a gold label outside the
    taxonomy) is an error a run would give that case: the example fails, saying why, even
    though the check's result is pinned. Other refusals (an argument the example cannot
    supply) leave the generic pin."""
    for err in exc.errors():
        loc = err.get("loc", ())
        if loc and loc[0] in from_case:
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            raise ExampleProblem(_("`given {check}`: parameter `{name}`: {problem}").format(
                check=check, name=loc[0], problem=message))


def _case_field(expr: n.Expr, case: Mapping[str, Any]) -> Any:
    if isinstance(expr, n.Attribute) and isinstance(expr.obj, n.Name) and expr.obj.name == "case":
        return case.get(expr.name)
    return None


def generic_pin(fields: Mapping[str, Any]) -> CheckResult:
    """A result from pinned fields alone: `passed`, `score`, `value` and any others."""
    passed = fields.get("passed")
    score = fields.get("score")
    value = fields.get("value")
    if isinstance(score, bool) or score is None:
        score = _score_of(passed, value)
    if passed is None:
        passed = bool(score >= 0.5) if isinstance(score, float) else True
    extra = {k: v for k, v in fields.items() if k not in ("passed", "score", "value")}
    return CheckResult(
        bool(passed),
        float(score),
        score if value is None else value,
        extra,
        _("pinned in the example"),
    )


def _score_of(passed: Any, value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    if isinstance(passed, bool):
        return 1.0 if passed else 0.0
    return 1.0


def describe(value: Any) -> str:
    """An expect's value for people: `false`, `true`, or the error's reason."""
    if type(value) is ErrorValue:
        return f"error: {value.reason}"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)


def summary(runs: Sequence[ExampleRun]) -> tuple[int, int]:
    """(passed, failed) example counts."""
    passed = sum(1 for r in runs if r.passed)
    return passed, len(runs) - passed
