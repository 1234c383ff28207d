"""What evaluating one case gives: `CaseResult`, and its JSON form.

A `CaseResult` is self-contained: besides what a person reads (labels, the
branch that fired, check results, a trace) it carries the per-case inputs of
every metric, so `Report.add` can rebuild a report from results alone. The
runner writes `to_dict()` as one JSON line per case and resumes a killed run
by reading them back with `from_dict()`: the two must round-trip exactly.

JSON shape (keys always present unless noted)::

    {"id": "c1",
     "labels":   {"outcome": "success", "level": "error"},
     "branches": {"outcome": 0, "level": null},
     "errors":   {"level": "error(polite: judge timed out)"},   # only errored blocks
     "checks":   {"intent": {"status": "passed", "passed": true, "score": 1.0,
                             "value": 1.0, "reason": "...", <primitive fields>}},
     "skipped":  ["polite"],
     "metrics":  {"intent_accuracy": [true], "fast_rate": null,
                  "avg": {"error": "..."}},
     "review":   {"sampled": true, "rule": 2, "priority": 37.5, "draw": 0.0123,
                  "error": null} | null,
     "lets":     {"score": 85.0, "tone": {"error": "..."}},  # the per-case lets computed
     "trace":    ["outcome: `success` if intent.passed and ... -> true", ...]}
                                                # not with to_dict(trace=False)

`metrics[name]` is a list of the aggregate arguments' values when the case is
in that metric's denominator, `null` when its `where` is false, and
`{"error": reason}` when its `where` or an argument was an error.

A spec with grouped metrics (`metric m = rate(x) by case.tenant, case.lang`)
adds `"groups": {"m": ["acme", null]}`: per grouped metric, the case's value
of each `by` field in order, null where it has none. It is written whatever
the case's metric input, so a comparison can group paired cases too; a spec
without `by` writes no `groups`, and its lines are as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evaldsl.record import UNSET, CaseRecord, ReviewLine
from evaldsl.values import CheckResult, ErrorValue, _plain

if TYPE_CHECKING:
    from evaldsl.runtime.grouping import GroupKey

VERDICT = "outcome"
"""The key of the unnamed outcome block (the case verdict) in `labels`."""

ERROR_LABEL = "error"
"""The label of an outcome block whose decision depended on an error."""

@dataclass(frozen=True, slots=True)
class MetricError:
    """A metric input meaning "left out as an error" (the `where` or an argument errored)."""

    reason: str


MetricInput = tuple[Any, ...] | MetricError | None
"""The values of a metric's aggregate arguments for one case, in source order."""


@dataclass(frozen=True, slots=True)
class ReviewDecision:
    """Whether a case was drawn for human review, and why."""

    sampled: bool
    rule: int | None = None
    """0-based index of the `sample` rule whose `where` held; None when none did."""
    priority: float | None = None
    """The rule's priority for a sampled case (higher first); None when not sampled."""
    draw: float = 0.0
    """The case's deterministic draw in [0, 1) from (seed, case id)."""
    error: str | None = None
    """Set when a rule's condition or the priority was an error."""

    def to_dict(self) -> dict[str, Any]:
        return {"sampled": self.sampled, "rule": self.rule, "priority": self.priority,
                "draw": self.draw, "error": self.error}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReviewDecision:
        return cls(bool(data["sampled"]), data.get("rule"), data.get("priority"),
                   float(data.get("draw", 0.0)), data.get("error"))


class CaseResult:
    """The evaluation of one case; see the module docstring for its JSON form.

    The trace is rendered only when read (or serialized): evaluation keeps
    what it needs to explain itself, not the words.
    """

    __slots__ = ("id", "labels", "branches", "checks", "skipped", "metrics", "review",
                 "errors", "lets", "groups", "alerts", "_trace", "_tracer")

    def __init__(
        self,
        id: str,
        labels: dict[str, str],
        branches: dict[str, int | None],
        checks: dict[str, CheckResult],
        skipped: tuple[str, ...] = (),
        metrics: dict[str, MetricInput] | None = None,
        review: ReviewDecision | None = None,
        errors: dict[str, str] | None = None,
        trace: tuple[str, ...] | Callable[[CaseResult], tuple[str, ...]] = (),
        lets: dict[str, Any] | None = None,
        groups: dict[str, GroupKey] | None = None,
    ) -> None:
        self.id = id
        self.labels = labels
        """Label per outcome block; the unnamed block is under `VERDICT` ("outcome")."""
        self.branches = branches
        """0-based index of the branch that fired per block; None when the block is `error`."""
        self.checks = checks
        """Every check computed for this case, in spec order."""
        self.skipped = skipped
        """Checks not computed because no outcome, metric or review rule needed them."""
        self.metrics: dict[str, MetricInput] = metrics if metrics is not None else {}
        self.review = review
        self.errors: dict[str, str] = errors if errors is not None else {}
        """Why each `error` block is an error."""
        self.lets: dict[str, Any] = lets if lets is not None else {}
        """The per-case lets this case computed (a scorecard's 0..100 score), by name; a let
        that nothing this case needed read is not here, as a skipped check is not."""
        self.groups: dict[str, GroupKey] = groups if groups is not None else {}
        """Each grouped metric's key for this case: its `by` fields' values, None if absent."""
        self.alerts: dict[str, Any] = {}
        """Whether each per-case alert's condition held (True, False or an `ErrorValue`); read
        by the live monitor, not written to the journal."""
        self._trace: tuple[str, ...] | None = None if callable(trace) else tuple(trace)
        self._tracer = trace if callable(trace) else None

    @property
    def trace(self) -> tuple[str, ...]:
        """Why each block got its label, in words."""
        if self._trace is None:
            assert self._tracer is not None
            self._trace = self._tracer(self)
            self._tracer = None
        return self._trace

    @property
    def label(self) -> str | None:
        """The verdict (unnamed block) label, or None when the spec has no unnamed block."""
        return self.labels.get(VERDICT)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CaseResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CaseResult(id={self.id!r}, labels={self.labels!r})"

    def to_record(self, row: str | None = None) -> CaseRecord:
        """The result as its journal line (`evaldsl.record.CaseRecord`), without the trace;
        `row`, the input row it judged, when a run writes it. The record shares the result's
        label, branch and error dicts: neither is changed once made."""
        review = self.review
        metrics: dict[str, Any] = {}
        scalars = _SCALARS
        for name, v in self.metrics.items():  # one aggregate's scalar, the common input, inline
            if type(v) is tuple and len(v) == 1 and type(v[0]) in scalars:
                metrics[name] = [v[0]]
            elif v is None:  # outside the metric's `where`
                metrics[name] = None
            else:
                metrics[name] = _input_to_json(v)
        return CaseRecord(
            id=self.id,
            labels=self.labels,
            branches=self.branches,
            errors=self.errors,
            checks=checks_to_dicts(self.checks),
            skipped=list(self.skipped),
            metrics=metrics,
            review=None if review is None else ReviewLine(
                review.sampled, review.rule, review.priority, review.draw, review.error),
            lets={name: _json_value(v) for name, v in self.lets.items()} if self.lets else {},
            groups=({name: list(key) for name, key in self.groups.items()} if self.groups
                    else UNSET),
            row=UNSET if row is None else row,
        )

    def to_dict(self, trace: bool = True) -> dict[str, Any]:
        """A JSON-ready dict (the record's fields, then the trace); `from_dict` reads it back.

        `trace=False` leaves the trace out (it follows from `branches`, `errors`
        and `checks` and the spec); the runner's journal does, to stay fast.
        """
        out = self.to_record().to_dict()
        if trace:
            out["trace"] = list(self.trace)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        """The inverse of `to_dict`: its record's fields (`CaseRecord.of`), then the trace."""
        trace = data.get("trace", ())
        return cls.from_record(CaseRecord.of(data), tuple(trace) if trace else ())

    @classmethod
    def from_record(cls, record: CaseRecord, trace: tuple[str, ...] = ()) -> CaseResult:
        """The inverse of `to_record` (a results.jsonl line read back)."""
        review = record.review
        groups = record.groups
        return cls(
            id=record.id,
            labels=dict(record.labels),
            branches=dict(record.branches),
            checks={k: check_from_dict(v) for k, v in record.checks.items()},
            skipped=tuple(record.skipped),
            metrics={k: _input_from_json(v) for k, v in record.metrics.items()},
            review=None if review is None else ReviewDecision(
                review.sampled, review.rule, review.priority, review.draw, review.error),
            errors=dict(record.errors),
            trace=trace,
            lets={k: _revive(v) for k, v in record.lets.items()},
            groups={k: tuple(v) for k, v in groups.items()} if isinstance(groups, dict) else {},
        )


def status(result: CheckResult) -> str:
    """`passed`, `failed` or `error`."""
    if result.is_error:
        return "error"
    return "passed" if result.passed is True else "failed"


def check_to_dict(result: CheckResult) -> dict[str, Any]:
    """`status`, then `CheckResult.to_dict()` made JSON-safe, in one pass."""
    return checks_to_dicts({"": result})[""]


def checks_to_dicts(checks: Mapping[str, CheckResult]) -> dict[str, dict[str, Any]]:
    """`check_to_dict` of each check, by name, in one call (a hot path of runs: a decided
    result's scalars are taken as they are, without a call each, and a list of words is
    copied in one C call once its items' types are known)."""
    scalars = _SCALARS
    entries: dict[str, dict[str, Any]] = {}
    for name, result in checks.items():
        passed, score, value = result.passed, result.score, result.value
        if passed is True or passed is False:  # decided: the common shape
            out: dict[str, Any] = {
                "status": "passed" if passed else "failed", "passed": passed,
                "score": score if type(score) in scalars else _json_value(score),
                "value": value if type(value) in scalars else _json_value(value)}
        else:
            out = {"status": status(result), "passed": _json_value(passed),
                   "score": _json_value(score), "value": _json_value(value)}
        for k, v in result.fields.items():
            kind = type(v)
            if kind in scalars:
                out[k] = v
            elif kind is list:  # a primitive's list of words (`matched`), often empty
                if not v:
                    out[k] = []
                elif scalars.issuperset(map(type, v)):
                    out[k] = v[:]
                else:
                    out[k] = [x if type(x) in scalars else _json_value(x) for x in v]
            else:
                out[k] = _json_value(v)
        reason = result.reason
        if reason or "reason" not in out:
            out["reason"] = reason
        entries[name] = out
    return entries


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _json_value(value: Any) -> Any:
    """`_jsonable(values._plain(value))` without walking the value twice."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is ErrorValue:
        return {"error": value.reason}
    if kind is dict:
        return {str(k): _json_value(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        scalars = _SCALARS
        return [v if type(v) in scalars else _json_value(v) for v in value]
    return _jsonable(_plain(value))


def _jsonable(value: Any) -> Any:
    """JSON values as they are; anything else a primitive returned as its text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


_BASE = ("status", "passed", "score", "value", "reason")


def check_from_dict(data: Mapping[str, Any]) -> CheckResult:
    reason = str(data.get("reason", ""))
    fields = {k: _revive(v) for k, v in data.items() if k not in _BASE}
    return CheckResult(_revive(data.get("passed")), _revive(data.get("score")),
                       _revive(data.get("value")), fields, reason)


def _revive(value: Any) -> Any:
    """`{"error": reason}` back to an `ErrorValue` (the inverse of `values._plain`)."""
    if isinstance(value, dict) and len(value) == 1 and "error" in value:
        return ErrorValue(str(value["error"]))
    return value


def _input_to_json(value: MetricInput) -> Any:
    if value is None:
        return None
    if type(value) is MetricError:
        return {"error": value.reason}
    return [v if type(v) in _SCALARS else _plain(v) for v in value]  # type: ignore[union-attr]


def _input_from_json(value: Any) -> MetricInput:
    if value is None:
        return None
    if isinstance(value, dict):
        return MetricError(str(value.get("error", "")))
    return tuple(value)
