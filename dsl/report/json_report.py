"""report.json: what a run found, built from case results one at a time.

`ReportBuilder` folds case records (`CaseResult.to_record()`, an
`evaldsl.record.CaseRecord`: the lines of results.jsonl) into counts that do not
depend on the order in which cases
arrive: a resumed run that reads half its results back from the journal and
evaluates the rest ends with the same report as an uninterrupted one, and
builders of any split of the cases `merge` into the builder of all of them
(how the shards of `evaldsl run --workers` meet). Scores are summed as
integers of 2**-52 units for that reason (float sums depend on order).
Metrics come from the interpreter's own `Report` (it knows the aggregates);
this module adds the rest: outcome counts, per-check pass rates and score
distributions, per-slot fill rates, the worst cases with their trace and
dialog, cost and skipped rows. The result is a typed `ReportDoc`
(`evaldsl.report.document`), the shape docs/report.schema.json is generated from.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from evaldsl.cases.case import Case
from evaldsl.record import CaseRecord
from evaldsl.report.alpha import alpha_of_coincidences, unit_coincidences
from evaldsl.report.document import (
    FORMAT,
    VERSION,
    BadRowEntry,
    Cases,
    CheckSummary,
    Cost,
    Interval,
    Judges,
    Metric,
    MetricGroup,
    MetricPart,
    Outcome,
    ReportDoc,
    Review,
    RunInfo,
    ScoreSummary,
    SlotFill,
    SlotRate,
    SpecInfo,
    TraceCheck,
    Turn,
    WorstCase,
)
from evaldsl.report.failures import ErrorTally
from evaldsl.report.layout import VERDICT, SpecLayout
from evaldsl.results import CaseResult
from evaldsl.stats import HISTOGRAM_BINS, wilson
from evaldsl.values import CheckResult

WORST_CASES = 10
"""How many worst cases a report shows with their trace and dialog."""
_UNIT_BITS = 52
_SCALE = float(1 << _UNIT_BITS)
_MAX_TURNS, _MAX_CHARS = 80, 4000
_LAST_BIN = HISTOGRAM_BINS - 1
PENDING_SCORES = 256
"""Distinct scores a check's tally holds pending (`_Tally.pending`) before it settles them."""


@dataclass
class _Tally:
    """Per-check counters; every field merges by addition (or min/max)."""

    primitive: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    not_needed: int = 0
    scored: int = 0
    score_units: int = 0
    low: float | None = None
    high: float | None = None
    histogram: list[int] = field(default_factory=lambda: [0] * HISTOGRAM_BINS)
    slots: dict[str, list[int]] = field(default_factory=dict)
    """slot -> [filled, judged]"""
    judges: JudgeAgreement | None = None
    """How far a check's judges (`judges:`) agree, over the cases two or more answered."""
    pending: dict[float, int] = field(default_factory=dict)
    """Scores not yet in the fields above, each with how many cases gave it: a case adds one
    to a count (most checks give a few distinct scores), and `settle` folds the counts in
    when a report is made, a tally merged, or `PENDING_SCORES` distinct ones are waiting.
    The sums are exact and a dict keeps the first of equal keys (`1` before `1.0`), so
    low, high, the units and the histogram come out as adding each score at once would."""

    def add(self, result: Mapping[str, Any]) -> None:
        status = result.get("status")
        if status == "error":
            self.errors += 1
            return
        by_judge = result.get("by_judge")
        if by_judge is not None and isinstance(by_judge, Mapping):
            self.judges = (self.judges or JudgeAgreement()).add(by_judge.values())
        if status == "passed":
            self.passed += 1
        else:
            self.failed += 1
        self._count_score(result.get("score"))
        if "filled" in result:
            self._add_slots(result["filled"])

    def add_decided(self, check: CheckResult) -> bool:
        """`add` of the check's record entry, read from the result itself: the common shape,
        decided (`passed` true or false) without judges or slots; False, having counted
        nothing, for any other (its entry is then `add`ed). The entry's `score` is the
        result's own when it is a number (`results.check_to_dict`), so both count the same."""
        passed = check.passed
        if passed is not True and passed is not False:
            return False
        fields = check.fields
        if fields and ("by_judge" in fields or "filled" in fields):
            return False
        if passed:
            self.passed += 1
        else:
            self.failed += 1
        self._count_score(check.score)
        return True

    def _count_score(self, score: Any) -> None:
        """One more case of `score` (`pending`), when it is a number."""
        kind = type(score)
        if kind is float or kind is int:
            pending = self.pending
            seen = pending.get(score)
            if seen is None:
                self._new_score(score)
            else:
                pending[score] = seen + 1

    def _new_score(self, score: float) -> None:
        """A score not pending yet: its units taken now (a score that has none, NaN or an
        infinity, raises here, where adding it at once would have), the counts settled
        first when `PENDING_SCORES` are waiting."""
        round(score * _SCALE)
        if len(self.pending) >= PENDING_SCORES:
            self.settle()
        self.pending[score] = 1

    def settle(self) -> None:
        """Fold the pending scores into the tally's fields, in the order first met."""
        if not self.pending:
            return
        low, high = self.low, self.high
        for score, n in self.pending.items():
            self.scored += n
            self.score_units += n * round(score * _SCALE)
            if low is None or score < low:
                low = score
            if high is None or score > high:
                high = score
            at = int(score * HISTOGRAM_BINS)
            self.histogram[0 if at < 0 else _LAST_BIN if at > _LAST_BIN else at] += n
        self.low, self.high = low, high
        self.pending = {}

    def _add_slots(self, filled: Any) -> None:
        if isinstance(filled, Mapping):
            for slot, value in filled.items():
                counts = self.slots.setdefault(str(slot), [0, 0])
                counts[0] += value is True
                counts[1] += 1

    def merge(self, other: _Tally) -> _Tally:
        self.settle()
        other.settle()
        slots = {k: list(v) for k, v in self.slots.items()}
        for slot, (filled, judged) in other.slots.items():
            counts = slots.setdefault(slot, [0, 0])
            counts[0] += filled
            counts[1] += judged
        return _Tally(
            self.primitive, self.passed + other.passed, self.failed + other.failed,
            self.errors + other.errors, self.not_needed + other.not_needed,
            self.scored + other.scored, self.score_units + other.score_units,
            _pick(min, self.low, other.low), _pick(max, self.high, other.high),
            [a + b for a, b in zip(self.histogram, other.histogram, strict=True)], slots,
            JudgeAgreement.merged(self.judges, other.judges))

    def summary(self, name: str) -> CheckSummary:
        self.settle()
        decided = self.passed + self.failed
        mean = self.score_units / (self.scored << _UNIT_BITS) if self.scored else None
        out = CheckSummary(
            name=name, primitive=self.primitive,
            evaluated=decided + self.errors, passed=self.passed, failed=self.failed,
            errors=self.errors, not_needed=self.not_needed,
            pass_rate=self.passed / decided if decided else None,
            interval=interval_of(wilson(self.passed, decided)),
            score=ScoreSummary(mean=mean, min=self.low, max=self.high,
                               histogram=list(self.histogram)))
        if self.judges is not None:
            out.judges = self.judges.summary()
        return out


@dataclass
class JudgeAgreement:
    """Krippendorff's alpha across a check's judges, from a coincidence matrix that merges
    by addition (so shards and workers report what one process would): points are
    `interval` values, labels `nominal`."""

    coincidences: dict[tuple[Any, Any], float] = field(default_factory=dict)
    cases: int = 0
    """Cases with two judges' answers or more: the alpha's units."""

    def add(self, values: Iterable[Any]) -> JudgeAgreement:
        answered = [v for v in values if v is not None and isinstance(v, Hashable)]
        if len(answered) >= 2:
            self.cases += 1
            for pair, weight in unit_coincidences(answered).items():
                self.coincidences[pair] = self.coincidences.get(pair, 0.0) + weight
        return self

    @staticmethod
    def merged(a: JudgeAgreement | None, b: JudgeAgreement | None) -> JudgeAgreement | None:
        """Both together, a new object: neither input changes when the result is added to."""
        if a is None and b is None:
            return None
        both: dict[tuple[Any, Any], float] = {}
        cases = 0
        for part in (a, b):
            if part is not None:
                cases += part.cases
                for pair, weight in part.coincidences.items():
                    both[pair] = both.get(pair, 0.0) + weight
        return JudgeAgreement(both, cases)

    @property
    def level(self) -> Literal["interval", "nominal"]:
        numbers = all(isinstance(c, (int, float)) and not isinstance(c, bool)
                      for c, _ in self.coincidences)
        return "interval" if numbers else "nominal"

    def summary(self) -> Judges:
        level = self.level
        return Judges(alpha=alpha_of_coincidences(self.coincidences, level), level=level,
                      cases=self.cases)


class Row(Protocol):
    """A skipped input row (`evaldsl.cases.loading.BadRow`)."""

    def to_dict(self) -> dict[str, Any]: ...


class ReportBuilder:
    """Folds case records into everything report.json holds besides the metrics."""

    def __init__(self, layout: SpecLayout, worst: int = WORST_CASES) -> None:
        self.layout = layout
        self.evaluated = 0
        self.review_selected = 0
        self._tallies = {name: _Tally(prim) for name, prim in layout.checks.items()}
        self._counts: dict[str, dict[str, int]] = {b.key: {} for b in layout.blocks}
        self._worst_size = worst
        self._block_labels = tuple((b.key, b.labels) for b in layout.blocks)
        self._one_block = ((self._block_labels[0][0], -len(self._block_labels[0][1]))
                           if len(self._block_labels) == 1 else None)
        """A spec with one outcome block (the common spec): its key and an error's rank."""
        self._worst: list[tuple[tuple[Any, ...], str]] = []
        self._worst_records: dict[str, CaseRecord] = {}
        self._dialogs: dict[str, list[Turn]] = {}
        self._origins: dict[str, str] = {}
        self._failures = ErrorTally()

    def add(self, record: CaseRecord | Mapping[str, Any], case: Case | None = None,
            result: CaseResult | None = None) -> None:
        """Count one case record; with its `case`, keep the dialog if it is among the worst.
        With the `result` the record was made of (`CaseResult.to_record`), its checks are
        counted from the result's own values, without reading their entries back."""
        if type(record) is not CaseRecord:
            record = CaseRecord.of(record)  # type: ignore[arg-type]
        self.evaluated += 1
        all_counts = self._counts
        for key, label in record.labels.items():
            counts = all_counts.get(key)
            if counts is None:
                counts = all_counts[key] = {}
            counts[label] = counts.get(label, 0) + 1
        tallies = self._tallies
        clean = result is not None  # every check known decided, so none is an error
        if result is not None:
            for name, check in result.checks.items():
                tally = tallies.get(name) or self._tally(name)
                if not tally.add_decided(check):
                    tally.add(record.checks[name])
                    clean = False
        else:
            for name, entry in record.checks.items():
                (tallies.get(name) or self._tally(name)).add(entry)
        self._failures.add(record, clean)
        for name in record.skipped:
            (tallies.get(name) or self._tally(name)).not_needed += 1
        review = record.review
        if review is not None and review.sampled:
            self.review_selected += 1
        self._consider_worst(record)
        kept = self._worst_records
        if case is not None and (case.origin in kept or case.id in kept):
            self.offer_dialog(case)

    def _tally(self, name: str) -> _Tally:
        tally = self._tallies.get(name)
        if tally is None:
            tally = self._tallies[name] = _Tally(self.layout.checks.get(name, "?"))
        return tally

    def merge(self, other: ReportBuilder) -> ReportBuilder:
        """A builder holding the records of both (cases of one spec); neither input changes.

        The worst cases of the whole are among the worst of each part, each
        with the dialog its part kept.
        """
        out = ReportBuilder(self.layout, self._worst_size)
        out.evaluated = self.evaluated + other.evaluated
        out.review_selected = self.review_selected + other.review_selected
        out._failures = self._failures.merge(other._failures)
        out._tallies = dict(self._tallies)
        for name, tally in other._tallies.items():
            mine = out._tallies.get(name)
            out._tallies[name] = tally if mine is None else mine.merge(tally)
        out._counts = {key: dict(counts) for key, counts in self._counts.items()}
        for key, counts in other._counts.items():
            merged = out._counts.setdefault(key, {})
            for label, n in counts.items():
                merged[label] = merged.get(label, 0) + n
        out._merge_worst(self, other)
        return out

    def _merge_worst(self, *parts: ReportBuilder) -> None:
        ranked = sorted(((k, i, p) for p in parts for k, i in p._worst), key=lambda t: t[:2])
        for key, case_key, part in ranked:
            if len(self._worst) >= self._worst_size:
                return
            if case_key not in self._worst_records:
                self._worst.append((key, case_key))
                self._worst_records[case_key] = part._worst_records[case_key]
                if case_key in part._dialogs:
                    self._dialogs[case_key] = part._dialogs[case_key]
                if case_key in part._origins:
                    self._origins[case_key] = part._origins[case_key]

    def lacks_dialog(self, case_key: str) -> bool:
        """Whether `offer_dialog` would keep the dialog of the case `case_key` names (its
        row, `CaseRecord.case_key`): a worst case without one."""
        return case_key in self._worst_records and case_key not in self._dialogs

    def offer_dialog(self, case: Case) -> None:
        """Keep `case`'s dialog when it is one of the worst cases so far and lacks it.

        A worst case is named by its row, or by its id when its record names no
        row (`Report.add` folds records without one): either may be the key.
        """
        for key in (case.origin, case.id):
            if key and self.lacks_dialog(key):
                self._dialogs[key] = dialog_of(case)
                if case.origin:
                    self._origins[key] = case.origin
                return

    def _consider_worst(self, record: CaseRecord) -> None:
        worst = self._worst
        full = len(worst) >= self._worst_size
        one = self._one_block
        if one is not None:  # `_ranks` of a spec's one block, without a tuple to compare
            index = record.branches.get(one[0])
            rank = one[1] if index is None else -int(index)
            if full and rank > worst[-1][0][0]:
                return
            ranks: tuple[int, ...] = (rank,)
        else:
            ranks = self._ranks(record.branches)
            if full and ranks > worst[-1][0][: len(ranks)]:
                return
        case_key = record.case_key
        key = (*ranks, *self._tail(record), case_key)
        if full and key >= worst[-1][0]:
            return
        if case_key in self._worst_records:
            return
        bisect.insort(worst, (key, case_key))
        self._worst_records[case_key] = record
        if len(worst) > self._worst_size:
            _, dropped = worst.pop()
            del self._worst_records[dropped]
            self._dialogs.pop(dropped, None)
            self._origins.pop(dropped, None)

    def _ranks(self, branches: Mapping[str, int | None]) -> tuple[int, ...]:
        return tuple([-(len(labels) if (index := branches.get(key)) is None else int(index))
                      for key, labels in self._block_labels])

    @staticmethod
    def _tail(record: CaseRecord) -> tuple[float, str]:
        total, count = 0.0, 0
        for r in record.checks.values():
            score = r.get("score")
            if type(score) is float or type(score) is int:
                total += score
                count += 1
        mean = round(total / count, 9) if count else 1.0
        return mean, record.id

    def build(self, metrics: Sequence[Metric], cost: Cost,
              bad_rows: Sequence[Row], bad_row_count: int,
              run: RunInfo | None = None, generated_by: str = "evaldsl") -> ReportDoc:
        """The report (docs/report.schema.json is generated from its type)."""
        layout = self.layout
        return ReportDoc(
            format=FORMAT, version=VERSION, generated_by=generated_by,
            spec=SpecInfo(name=layout.name, title=layout.title, path=layout.path,
                          hash=f"sha256:{layout.hash}"),
            cases=Cases(evaluated=self.evaluated, errored=self._failures.errored,
                        bad_rows_skipped=bad_row_count,
                        bad_rows=[BadRowEntry(**b.to_dict()) for b in bad_rows]),
            errors=self._failures.top(),
            outcomes=self._outcomes(),
            metrics=list(metrics),
            checks=[t.summary(name) for name, t in self._tallies.items()],
            slots=self._slots(),
            cost=cost,
            review=Review(selected=self.review_selected) if self._has_review() else None,
            worst_cases=[self._worst_case(case_key) for _, case_key in self._worst],
            run=run if run is not None else RunInfo(),
        )

    def _has_review(self) -> bool:
        return self.review_selected > 0 or any(
            r.review is not None for r in self._worst_records.values())

    def _outcomes(self) -> list[Outcome]:
        out = []
        for block in self.layout.blocks:
            seen = self._counts.get(block.key, {})
            counts = {label: seen.get(label, 0) for label in block.labels}
            counts["error"] = seen.get("error", 0)
            out.append(Outcome(name=None if block.key == VERDICT else block.key,
                               labels=[*block.labels, "error"], counts=counts))
        return out

    def _slots(self) -> list[SlotFill]:
        out = []
        for name, tally in self._tallies.items():
            if tally.slots:
                slots = [SlotRate(name=s, filled=f, of=o, rate=f / o if o else None)
                         for s, (f, o) in tally.slots.items()]
                out.append(SlotFill(check=name, slots=slots))
        return out

    def _worst_case(self, case_key: str) -> WorstCase:
        record = self._worst_records[case_key]
        return WorstCase(
            id=record.id, origin=self._origins.get(case_key),
            labels={_block_name(k): v for k, v in record.labels.items()},
            branches=self._fired(record),
            checks=self._trace_checks(record),
            dialog=self._dialogs.get(case_key, []),
        )

    def _fired(self, record: CaseRecord) -> dict[str, str | None]:
        fired: dict[str, str | None] = {}
        for block in self.layout.blocks:
            index = record.branches.get(block.key)
            if index is None:
                reason = record.errors.get(block.key)
                fired[_block_name(block.key)] = str(reason) if reason else None
            elif 0 <= int(index) < len(block.branches):
                fired[_block_name(block.key)] = block.branches[int(index)]
        return fired

    def _trace_checks(self, record: CaseRecord) -> list[TraceCheck]:
        checks = record.checks
        out: list[TraceCheck] = []
        for name in [*self.layout.checks, *(c for c in checks if c not in self.layout.checks)]:
            result = checks.get(name)
            if result is None:
                if name in record.skipped:
                    out.append(TraceCheck(name=name, status="not_needed"))
                continue
            score = result.get("score")
            extra = {k: v for k, v in result.items()
                     if k not in ("status", "passed", "score", "value", "reason")}
            out.append(TraceCheck(name=name, status=result.get("status", "error"),
                                  score=score if isinstance(score, (int, float)) else None,
                                  value=result.get("value"),
                                  reason=result.get("reason") or None, fields=extra))
        return out


def publish(aggregate: Any, builder: ReportBuilder, stats: Any = None,
            run: RunInfo | None = None, bad_rows: Sequence[Row] = (),
            bad_row_count: int = 0, generated_by: str = "evaldsl") -> ReportDoc:
    """report.json of some cases: the metrics finished from the interpreter's `Report`
    (`aggregate`), the rest from `builder`; one place for a run, a merge and `Report.write`."""
    layout = builder.layout
    metrics = []
    for name, value in aggregate.metrics.items():
        info = layout.metrics.get(name)
        entry = metric_entry(value, info.expression if info else None)
        entry.better = "lower" if info and info.lower_is_better else "higher"
        metrics.append(entry)
    return builder.build(metrics, cost_of(stats), bad_rows, bad_row_count, run, generated_by)


def _pick(f: Callable[[float, float], float], a: float | None, b: float | None,
          ) -> float | None:
    """`f(a, b)` where both are known, else the one that is."""
    if a is None:
        return b
    if b is None:
        return a
    return f(a, b)


def _block_name(key: str) -> str:
    return "verdict" if key == VERDICT else key


def dialog_of(case: Case) -> list[Turn]:
    """A case's messages as the report shows them, clipped to a readable size."""
    out = []
    for m in case.messages[:_MAX_TURNS]:
        content = m.content if len(m.content) <= _MAX_CHARS else m.content[:_MAX_CHARS] + "…"
        item = Turn(role=m.role, content=content)
        if m.tool_calls:
            item.tool_calls = [c.written for c in m.tool_calls]
        if m.latency_ms is not None:
            item.latency_ms = m.latency_ms
        out.append(item)
    return out


def metric_entry(metric: Any, expression: str | None = None) -> Metric:
    """One metric (an `aggregate.MetricValue`) as report.json holds it.

    A single rate gets a 95% Wilson interval over its denominator. A formula
    metric (`rate(success) + 0.5 * rate(partial)`) has no numerator of cases:
    it lists its parts and carries the seeded bootstrap interval it computed.
    """
    template = getattr(metric, "template", None)
    parts = None
    if template is not None:
        interval = metric.interval
        parts = [MetricPart(**p.to_dict()) for p in metric.parts]
    else:
        value, denominator = metric.value, int(metric.denominator)
        is_rate = bool(metric.is_rate) and isinstance(value, (int, float))
        interval = wilson(float(value) * denominator, denominator) if is_rate else None
        if metric.numerator is None:  # pass_hat / pass_at: an interval over scenarios, or none
            interval = getattr(metric, "interval", None)
    value = metric.value
    by, groups = _groups(metric)
    return Metric(name=metric.name, expression=expression, value=value,
                  numerator=metric.numerator, denominator=int(metric.denominator),
                  errors=int(metric.errors), where=metric.where,
                  is_rate=bool(metric.is_rate) and isinstance(value, (int, float)),
                  interval=interval_of(interval),
                  error_examples=list(getattr(metric, "error_examples", ())),
                  template=template, parts=parts, by=by, groups=groups)


def _groups(metric: Any) -> tuple[list[str] | None, list[MetricGroup] | None]:
    """`by` and `groups` of a grouped metric, each group with its own figures and
    interval and the `small` flag; both null for a metric that is not grouped."""
    by = tuple(getattr(metric, "by", ()))
    if not by:
        return None, None
    groups = []
    for g in metric.groups:
        f = metric_entry(g.value)
        groups.append(MetricGroup(key=list(g.key), value=f.value, numerator=f.numerator,
                                  denominator=f.denominator, errors=f.errors,
                                  interval=f.interval, parts=f.parts,
                                  error_examples=f.error_examples, small=g.small))
    return [f"case.{name}" for name in by], groups


def interval_of(interval: Any) -> Interval | None:
    """An interval of the statistics (Wilson's, a bootstrap's, over scenarios) as the
    report holds it; None for none."""
    return Interval(**interval.to_dict()) if interval else None


def cost_of(stats: Any) -> Cost:
    """`ModelStats` (or None) as the report's cost section."""
    return Cost(**cost_dict(stats))


def cost_dict(stats: Any) -> dict[str, Any]:
    """`ModelStats` (or None) as the journal's cost note holds it (`cost_of` in a report)."""
    def get(name: str) -> int:
        return int(getattr(stats, name, 0) or 0)

    return {"model_calls": get("calls"), "cached": get("cached"), "retries": get("retries"),
            "model_errors": get("errors"), "prompt_tokens": get("prompt_tokens"),
            "completion_tokens": get("completion_tokens"),
            "cache_read_failures": get("cache_read_failures"),
            "cache_write_failures": get("cache_write_failures"),
            "not_asked": get("not_asked"), "stopped_asking": getattr(stats, "stopped", None),
            "truncated": get("truncated"), "truncation_retries": get("truncation_retries"),
            "cached_by": {str(k): int(v) for k, v in (getattr(stats, "cached_by", None)
                                                       or {}).items()}}
