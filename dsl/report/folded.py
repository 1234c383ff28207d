"""The mergeable `Report`: case results folded into counts per label, metric states, check
tallies and the review sample, merged with the report of another shard of the same spec, written
as report.json, HTML, Markdown or JUnit, or read back from report.json.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaldsl.diagnostics import did_you_mean, listing
from evaldsl.errors import EvaldslError, UnknownNameError
from evaldsl.i18n import _
from evaldsl.record import CaseRecord
from evaldsl.results import ERROR_LABEL, VERDICT, CaseResult, MetricError, MetricInput
from evaldsl.runtime.aggregation import (
    BOOL_AGGREGATES,
    TRIAL_AGGREGATES,
    MetricPart,
    MetricPlan,
    MetricState,
    MetricValue,
    ReportPlan,
)
from evaldsl.runtime.bootstrap import BootstrapInterval
from evaldsl.runtime.grouping import GroupedState, GroupValue
from evaldsl.values import CheckResult, ErrorValue

if TYPE_CHECKING:  # msgspec's types load when a report is written or read, not with a spec
    from evaldsl.report.document import Interval, Metric, ReportDoc
    from evaldsl.report.document import MetricPart as ReportPart


@dataclass
class CheckTally:
    """How one check went over the cases of a report."""

    computed: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def add(self, result: CheckResult) -> None:
        self.computed += 1
        passed = result.passed
        if passed is True:
            self.passed += 1
        elif type(passed) is ErrorValue:
            self.errors += 1
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
        self._counted = frozenset(m.name for m in plan.metrics if _counts_one_condition(m))
        """The metrics of one `rate` or `count` (not over trials): a case in the denominator
        adds one to it and, where its one condition held, to its one count; what
        `MetricState.add_values` does for them, done in `add` without the call."""
        self.groups = {m.name: GroupedState(m) for m in plan.metrics if m.by}
        """Each grouped metric's per-group states, beside its overall state."""
        self.checks = {name: CheckTally() for name in plan.checks}
        self.sampled: list[tuple[float, str, int]] = []
        """(priority, case id, rule) of every case drawn for review."""
        self.review_errors = 0
        self.details = details
        """What only report.json shows (`evaldsl.report.json_report.ReportBuilder`): check
        score distributions, slots, the worst cases; None when the caller folds it itself."""
        self._published: ReportDoc | None = None
        """The report.json this report was read from (`from_json`): its figures, fixed."""
        self.case_records: list[CaseRecord] | None = (
            [] if keep_cases and details is not None else None)
        """Each case's result without its trace, for `write_junit` (one test per case) and
        the HTML case explorer, when the report was made with `keep_cases=True`; None
        otherwise, so that a report's memory does not grow with its cases."""

    def add(self, result: CaseResult, case: Any = None) -> None:
        """Fold one case's result into the report; with its `case`, the report can show the
        dialog should the case be among the worst."""
        if self._published is not None:
            self._refuse_if_published()
        if self.details is not None:
            record = result.to_record()
            self.details.add(record, case)
            if self.case_records is not None:
                self.case_records.append(record)
        self.cases += 1
        for key, label in result.labels.items():
            counts = self.counts[key]
            counts[label] = counts.get(label, 0) + 1
        states = self.states
        counted = self._counted
        for name, value in result.metrics.items():  # `_fold` inlined: every metric, every case
            if value is None:
                states[name].outside += 1
            elif type(value) is MetricError:
                states[name].add_error(value.reason)
            elif name in counted and len(value) == 1:  # type: ignore[arg-type]
                state = states[name]  # `add_values` of a rate, inlined: its one condition
                state.denominator += 1
                if value[0] is True:  # type: ignore[index]
                    state.trues[0] += 1
            else:
                states[name].add_values(value, result.id)  # type: ignore[arg-type]
        for name, grouped in self.groups.items():
            value = result.metrics.get(name)
            if value is not None:  # outside the `where`: in no group, as in no denominator
                found = result.groups.get(name) or (None,) * len(grouped.plan.by)
                _fold(grouped.state(found), value, result.id)
        tallies = self.checks
        for name, check in result.checks.items():
            tallies[name].add(check)
        if result.review is not None:
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
            return {m.name: _metric_value(m) for m in self._published.metrics}
        return {name: self._result(name, state) for name, state in self.states.items()}

    def _result(self, name: str, state: MetricState) -> MetricValue:
        """A metric's value, with its groups when it is grouped."""
        value = state.result()
        grouped = self.groups.get(name)
        if grouped is None:
            return value
        return replace(value, by=grouped.plan.by, groups=grouped.results())

    # -------------------------------------------------------------- files

    def to_report(self, generated_by: str = "evaldsl") -> ReportDoc:
        """The report as report.json holds it, typed (`evaldsl.report.document`), as
        `evaldsl run` builds it; `cost` and `run` are empty (a report from Python knows no
        process)."""
        if self._published is not None:
            return self._published
        if self.details is None:
            raise EvaldslError(_("this report was made with `new_report(details=False)`: it "
                                 "lacks what report.json shows beside the metrics"))
        from evaldsl.report.json_report import publish

        return publish(self, self.details, generated_by=generated_by)

    def to_report_json(self, generated_by: str = "evaldsl") -> dict[str, Any]:
        """`to_report` as JSON values (docs/report.schema.json), keys in the file's order."""
        return self.to_report(generated_by).to_dict()

    def write(self, path: str | os.PathLike[str], format: str = "json") -> Path:
        """Write report.json (`json`), `html` or `markdown` with the writers `evaldsl run`
        uses; the path written. JUnit is one test per case: `write_junit`."""
        from evaldsl.report.writers import write_report

        cases = self._explorer() if format == "html" else None
        return write_report(Path(path), self.to_report(), format, cases)

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
        from evaldsl.report.document import decode_report

        data = decode_report(Path(path).read_bytes(), str(path))
        out = cls(data.spec.name, data.spec.hash.removeprefix("sha256:"),
                  ReportPlan((), (), ()))
        out.cases = data.cases.evaluated
        out.counts = {block.name or VERDICT: dict(block.counts) for block in data.outcomes}
        out.checks = {c.name: CheckTally(c.evaluated, c.passed, c.failed, c.errors)
                      for c in data.checks}
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


def _counts_one_condition(plan: MetricPlan) -> bool:
    """Whether a metric is one `rate` or `count` of a condition, not over trials (the
    metric `MetricState.add_values` counts without a loop)."""
    aggregates = plan.aggregates
    return (not plan.is_formula and len(aggregates) == 1
            and aggregates[0].kind in BOOL_AGGREGATES
            and aggregates[0].kind not in TRIAL_AGGREGATES)


def _fold(state: MetricState, value: MetricInput, case_id: str = "") -> None:
    """One case's input into a metric's state: outside, left out as an error, or counted
    (under its id, which groups the trials of a scenario for `pass_hat`)."""
    if value is None:
        state.outside += 1
    elif type(value) is MetricError:
        state.add_error(value.reason)
    else:
        state.add_values(value, case_id)  # type: ignore[arg-type]

def _metric_value(entry: Metric) -> MetricValue:
    """A finished metric from its report.json entry (`json_report.metric_entry`)."""
    by = tuple(str(k).removeprefix("case.") for k in entry.by or ())
    groups = tuple(GroupValue(tuple(g.key), _figures(entry, g.value, g.numerator,
                                                      g.denominator, g.errors, g.error_examples,
                                                      g.parts, g.interval))
                   for g in entry.groups or ())
    return replace(_figures(entry, entry.value, entry.numerator, entry.denominator,
                            entry.errors, entry.error_examples, entry.parts, entry.interval),
                   by=by, groups=groups)


def _figures(entry: Metric, value: float | None, numerator: float | None, denominator: int,
             errors: int, examples: list[str], parts: list[ReportPart] | None,
             interval: Interval | None) -> MetricValue:
    """A metric's (or one group's) figures as a `MetricValue` of `entry`'s name and kind."""
    return MetricValue(
        entry.name, value, numerator, denominator, errors, entry.where, entry.is_rate,
        tuple(examples), tuple(MetricPart(p.aggregate, p.value, p.numerator, p.denominator)
                               for p in parts or ()),
        entry.template,
        BootstrapInterval.from_dict(_plain(interval)))


def _plain(interval: Interval | None) -> dict[str, Any] | None:
    """An interval of report.json as its JSON values."""
    if interval is None:
        return None
    import msgspec

    out: dict[str, Any] = msgspec.to_builtins(interval)
    return out

def _add_counts(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out
