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

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaldsl.diagnostics import did_you_mean, listing
from evaldsl.errors import EvaldslError, UnknownNameError
from evaldsl.i18n import _
from evaldsl.runtime.aggregation import MetricPart, MetricPlan, MetricState, MetricValue
from evaldsl.runtime.bootstrap import BootstrapInterval
from evaldsl.runtime.grouping import GroupedState, GroupKey, GroupValue
from evaldsl.values import CheckResult, ErrorValue, _plain

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

    def to_dict(self, trace: bool = True) -> dict[str, Any]:
        """A JSON-ready dict; `from_dict` reads it back.

        `trace=False` leaves the trace out (it follows from `branches`, `errors`
        and `checks` and the spec); the runner's journal does, to stay fast.
        """
        out = {
            "id": self.id,
            "labels": dict(self.labels),
            "branches": dict(self.branches),
            "errors": dict(self.errors),
            "checks": {name: check_to_dict(r) for name, r in self.checks.items()},
            "skipped": list(self.skipped),
            "metrics": {name: _input_to_json(v) for name, v in self.metrics.items()},
            "review": self.review.to_dict() if self.review else None,
            "lets": {name: _json_value(v) for name, v in self.lets.items()},
        }
        if self.groups:
            out["groups"] = {name: list(key) for name, key in self.groups.items()}
        if trace:
            out["trace"] = list(self.trace)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        """The inverse of `to_dict` (from a results.jsonl line)."""
        review = data.get("review")
        return cls(
            id=str(data["id"]),
            labels=dict(data.get("labels", {})),
            branches=dict(data.get("branches", {})),
            checks={k: check_from_dict(v) for k, v in data.get("checks", {}).items()},
            skipped=tuple(data.get("skipped", ())),
            metrics={k: _input_from_json(v) for k, v in data.get("metrics", {}).items()},
            review=ReviewDecision.from_dict(review) if review else None,
            errors=dict(data.get("errors", {})),
            trace=tuple(data.get("trace", ())),
            lets={k: _revive(v) for k, v in data.get("lets", {}).items()},
            groups={k: tuple(v) for k, v in data.get("groups", {}).items()},
        )


def status(result: CheckResult) -> str:
    """`passed`, `failed` or `error`."""
    if result.is_error:
        return "error"
    return "passed" if result.passed is True else "failed"


def check_to_dict(result: CheckResult) -> dict[str, Any]:
    """`status`, then `CheckResult.to_dict()` made JSON-safe, in one pass (a hot path of runs)."""
    out: dict[str, Any] = {"status": status(result), "passed": _json_value(result.passed),
                           "score": _json_value(result.score),
                           "value": _json_value(result.value)}
    for k, v in result.fields.items():
        out[k] = _json_value(v)
    if result.reason or "reason" not in out:
        out["reason"] = result.reason
    return out


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
        return [_json_value(v) for v in value]
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
    if isinstance(value, MetricError):
        return {"error": value.reason}
    return [_plain(v) for v in value]


def _input_from_json(value: Any) -> MetricInput:
    if value is None:
        return None
    if isinstance(value, dict):
        return MetricError(str(value.get("error", "")))
    return tuple(value)


@dataclass(frozen=True)
class ReportPlan:
    """What a report of one spec tallies; built once per spec by the graph."""

    blocks: tuple[tuple[str, tuple[str, ...]], ...]
    """(block key, its labels in branch order) per outcome block."""
    metrics: tuple[MetricPlan, ...]
    checks: tuple[str, ...]


@dataclass
class CheckTally:
    """How one check went over the cases of a report."""

    computed: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def add(self, result: CheckResult) -> None:
        self.computed += 1
        if result.is_error:
            self.errors += 1
        elif result.passed is True:
            self.passed += 1
        else:
            self.failed += 1

    def merge(self, other: CheckTally) -> CheckTally:
        return CheckTally(self.computed + other.computed, self.passed + other.passed,
                          self.failed + other.failed, self.errors + other.errors)


class Report:
    """Counts per label, metrics with their denominators, check tallies and the review sample.

    Built by `Spec.new_report()` / `Spec.run()`; `add` one `CaseResult` at a time;
    `merge` reports of the same spec built from any split of the cases.
    """

    def __init__(self, title: str, spec_hash: str, plan: ReportPlan, details: Any = None,
                 keep_cases: bool = False) -> None:
        self.title = title
        self.spec_hash = spec_hash
        self.plan = plan
        self.cases = 0
        self.counts: dict[str, dict[str, int]] = {
            key: dict.fromkeys((*labels, ERROR_LABEL), 0) for key, labels in plan.blocks}
        self.states = {m.name: MetricState(m) for m in plan.metrics}
        self.groups = {m.name: GroupedState(m) for m in plan.metrics if m.by}
        """Each grouped metric's per-group states, beside its overall state."""
        self.checks = {name: CheckTally() for name in plan.checks}
        self.sampled: list[tuple[float, str, int]] = []
        """(priority, case id, rule) of every case drawn for review."""
        self.review_errors = 0
        self.details = details
        """What only report.json shows (`evaldsl.report.json_report.ReportBuilder`): check
        score distributions, slots, the worst cases; None when the caller folds it itself."""
        self._published: dict[str, Any] | None = None
        """The report.json this report was read from (`from_json`): its figures, fixed."""
        self.case_records: list[dict[str, Any]] | None = (
            [] if keep_cases and details is not None else None)
        """Each case's result without its trace, for `write_junit` (one test per case) and
        the HTML case explorer, when the report was made with `keep_cases=True`; None
        otherwise, so that a report's memory does not grow with its cases."""

    def add(self, result: CaseResult, case: Any = None) -> None:
        """Fold one case's result into the report; with its `case`, the report can show the
        dialog should the case be among the worst."""
        self._refuse_if_published()
        if self.details is not None:
            record = result.to_dict(trace=False)
            self.details.add(record, case)
            if self.case_records is not None:
                self.case_records.append(record)
        self.cases += 1
        for key, label in result.labels.items():
            counts = self.counts[key]
            counts[label] = counts.get(label, 0) + 1
        for name, value in result.metrics.items():
            _fold(self.states[name], value, result.id)
        for name, grouped in self.groups.items():
            value = result.metrics.get(name)
            if value is not None:  # outside the `where`: in no group, as in no denominator
                found = result.groups.get(name) or (None,) * len(grouped.plan.by)
                _fold(grouped.state(found), value, result.id)
        for name, check in result.checks.items():
            self.checks[name].add(check)
        self._add_review(result)

    def _add_review(self, result: CaseResult) -> None:
        review = result.review
        if review is None:
            return
        if review.error is not None:
            self.review_errors += 1
        if review.sampled:
            self.sampled.append((review.priority or 0.0, result.id, review.rule or 0))

    def merge(self, other: Report) -> Report:
        """A new report holding the cases of both (same spec); neither input changes."""
        self._refuse_if_published()
        other._refuse_if_published()
        if other.spec_hash != self.spec_hash:
            raise EvaldslError(_("cannot merge reports of different specs ({one} and {other})")
                               .format(one=self.spec_hash[:12], other=other.spec_hash[:12]))
        both = self.details is not None and other.details is not None
        out = Report(self.title, self.spec_hash, self.plan,
                     self.details.merge(other.details) if both else None,
                     keep_cases=self.case_records is not None and other.case_records is not None)
        out.cases = self.cases + other.cases
        out.counts = {k: _add_counts(v, other.counts[k]) for k, v in self.counts.items()}
        out.states = {k: v.merge(other.states[k]) for k, v in self.states.items()}
        out.groups = {k: v.merge(other.groups[k]) for k, v in self.groups.items()}
        out.checks = {k: v.merge(other.checks[k]) for k, v in self.checks.items()}
        out.sampled = self.sampled + other.sampled
        out.review_errors = self.review_errors + other.review_errors
        if self.case_records is not None and other.case_records is not None:
            out.case_records = self.case_records + other.case_records
        else:
            out.case_records = None
        return out

    def metric(self, name: str) -> MetricValue:
        """One metric's value; an unknown name raises `UnknownNameError` listing the known."""
        metrics = self.metrics
        found = metrics.get(name)
        if found is None:
            raise UnknownNameError(_("unknown metric `{name}` (metrics: {known})").format(
                                       name=name, known=listing(metrics)),
                                   did_you_mean(name, metrics))
        return found

    @property
    def metrics(self) -> dict[str, MetricValue]:
        if self._published is not None:
            return {m["name"]: _metric_value(m) for m in self._published["metrics"]}
        return {name: self._result(name, state) for name, state in self.states.items()}

    def _result(self, name: str, state: MetricState) -> MetricValue:
        """A metric's value, with its groups when it is grouped."""
        value = state.result()
        grouped = self.groups.get(name)
        if grouped is None:
            return value
        return replace(value, by=grouped.plan.by, groups=grouped.results())

    # -------------------------------------------------------------- files

    def to_report_json(self, generated_by: str = "evaldsl") -> dict[str, Any]:
        """The report as report.json holds it (docs/report.schema.json), as `evaldsl run`
        builds it; `cost` and `run` are empty (a report from Python knows no process)."""
        if self._published is not None:
            return self._published
        if self.details is None:
            raise EvaldslError(_("this report was made with `new_report(details=False)`: it "
                                 "lacks what report.json shows beside the metrics"))
        from evaldsl.report.json_report import publish

        return publish(self, self.details, generated_by=generated_by)

    def write(self, path: str | os.PathLike[str], format: str = "json") -> Path:
        """Write report.json (`json`), `html` or `markdown` with the writers `evaldsl run`
        uses; the path written. JUnit is one test per case: `write_junit`."""
        from evaldsl.report.writers import write_report

        cases = self._explorer() if format == "html" else None
        return write_report(Path(path), self.to_report_json(), format, cases)

    def _explorer(self) -> Any:
        """The kept case records as the HTML report's case explorer (None when not kept)."""
        if self.case_records is None or self.details is None:
            return None
        from evaldsl.report.explorer import Explorer

        explorer = Explorer(self.details.layout)
        for record in self.case_records:
            explorer.add(record)
        return explorer

    def write_json(self, path: str | os.PathLike[str]) -> Path:
        return self.write(path, "json")

    def write_html(self, path: str | os.PathLike[str]) -> Path:
        return self.write(path, "html")

    def write_markdown(self, path: str | os.PathLike[str]) -> Path:
        return self.write(path, "markdown")

    def write_junit(self, path: str | os.PathLike[str],
                    passing: Iterable[str] | None = None) -> Path:
        """JUnit XML as `evaldsl run --junit` writes it: one test per case, passing when the
        verdict is one of `passing` (by default the first branch's label, as `--junit-pass`)."""
        if self.case_records is None:
            raise EvaldslError(_("this report does not hold its cases, so it cannot write "
                                 "JUnit (one test per case): make it with `keep_cases=True` "
                                 "(`spec.run(cases, keep_cases=True)`) or use "
                                 "`evaldsl run --junit`"))
        from evaldsl.report.junit import verdict_passing, write_junit

        labels = frozenset(passing) if passing is not None else verdict_passing(
            self.details.layout)
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_junit(out, self.title, self.case_records, labels)
        return out

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> Report:
        """A report read back from report.json: every figure it reports, fixed.

        It takes no more cases and merges with nothing (finished metrics cannot be
        combined exactly); to combine runs, merge their journals (`evaldsl merge`).
        """
        data = json.loads(Path(path).read_text("utf-8"))
        spec = data["spec"]
        out = cls(spec["name"], str(spec["hash"]).removeprefix("sha256:"),
                  ReportPlan((), (), ()))
        out.cases = int(data["cases"]["evaluated"])
        out.counts = {block["name"] or VERDICT: dict(block["counts"])
                      for block in data["outcomes"]}
        out.checks = {c["name"]: CheckTally(c["evaluated"], c["passed"], c["failed"],
                                            c["errors"]) for c in data["checks"]}
        out._published = data
        return out

    def _refuse_if_published(self) -> None:
        if self._published is not None:
            raise EvaldslError(_("a report read from report.json takes no more cases and merges "
                                 "with nothing; merge the runs' journals (`evaldsl merge`)"))

    def review_sample(self) -> list[dict[str, Any]]:
        """Cases drawn for review, highest priority first (ties by case id)."""
        ordered = sorted(self.sampled, key=lambda s: (-s[0], s[1]))
        return [{"id": i, "rule": r, "priority": p} for p, i, r in ordered]

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.title,
            "spec_hash": self.spec_hash,
            "cases": self.cases,
            "outcomes": {k: dict(v) for k, v in self.counts.items()},
            "metrics": {n: {**self._result(n, s).to_dict(), "text": s.plan.text}
                        for n, s in self.states.items()},
            "checks": {n: {**vars(t), "skipped": self.cases - t.computed}
                       for n, t in self.checks.items()},
            "review": {"sampled": self.review_sample(), "errors": self.review_errors},
        }

    def summary(self) -> str:
        """A few plain lines: label counts per block, then every metric with its denominator."""
        lines = [f"{self.title}: {self.cases} cases"]
        for key, counts in self.counts.items():
            shown = ", ".join(f"{label} {n}" for label, n in counts.items())
            lines.append(f"  {key}: {shown}")
        lines.extend(f"  {m.describe()}" for m in self.metrics.values())
        return "\n".join(lines)


def _fold(state: MetricState, value: MetricInput, case_id: str = "") -> None:
    """One case's input into a metric's state: outside, left out as an error, or counted
    (under its id, which groups the trials of a scenario for `pass_hat`)."""
    if value is None:
        state.outside += 1
    elif type(value) is MetricError:
        state.add_error(value.reason)
    else:
        state.add_values(value, case_id)  # type: ignore[arg-type]


def _metric_value(entry: Mapping[str, Any]) -> MetricValue:
    """A finished metric from its report.json entry (`json_report.metric_entry`)."""
    parts = tuple(MetricPart(p["aggregate"], p["value"], p["numerator"], p["denominator"])
                  for p in entry.get("parts") or ())
    by = tuple(str(k).removeprefix("case.") for k in entry.get("by") or ())
    shared = {k: entry.get(k) for k in ("name", "where", "is_rate", "template")}
    groups = tuple(GroupValue(tuple(g["key"]), _metric_value({**g, **shared}))
                   for g in entry.get("groups") or ())
    return MetricValue(entry["name"], entry["value"], entry["numerator"], entry["denominator"],
                       entry["errors"], entry["where"], entry["is_rate"],
                       tuple(entry.get("error_examples", ())), parts, entry.get("template"),
                       BootstrapInterval.from_dict(entry.get("interval")), by, groups)


def _add_counts(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out
