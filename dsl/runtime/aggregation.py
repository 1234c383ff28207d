"""Mergeable metric states: denominators, errors left out, exact sums.

A metric is arithmetic over aggregates (`rate(success) + 0.5 * rate(partial)`).
Per case the interpreter gives each metric one input: the values of its
aggregate arguments (the case is in the denominator), `None` (its `where` is
false: outside), or a `MetricError` (its `where` or an argument errored: left
out and counted). A `MetricState` folds inputs and merges with another state
built from any other shard; the result never depends on how the cases were
ordered or split, because sums are kept exactly (Shewchuk partials, as
`math.fsum`) and percentiles keep their values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaldsl.stats import breakdown, percentile

if TYPE_CHECKING:
    from evaldsl.runtime.grouping import GroupValue

AGGREGATES = ("rate", "mean", "count", "sum", "min", "max", "percentile", "pass_hat", "pass_at")
"""Aggregate functions allowed in `metric` expressions."""
TRIAL_AGGREGATES = frozenset({"pass_hat", "pass_at"})
"""Over repeated trials of each scenario (the cases sharing an id): `pass_hat(x, k)`, all k
trials pass; `pass_at(x, k)`, one of k passes; each estimated from a scenario's n >= k
trials as C(c, k) / C(n, k) and 1 - C(n - c, k) / C(n, k), averaged over scenarios."""
BOOL_AGGREGATES = frozenset({"rate", "count", *TRIAL_AGGREGATES})
"""Aggregates over conditions; the others take numbers."""
AVERAGES = frozenset({"rate", "mean"})
TOTALS = frozenset({"count", "sum"})


@dataclass(frozen=True)
class AggregateSpec:
    kind: str
    """One of `AGGREGATES`."""
    p: float = 0.0
    """The percentile in 0..100 for `percentile`; k for `pass_hat` and `pass_at`."""


@dataclass(frozen=True)
class MetricPlan:
    """How to fold and finish one metric; built by the graph, shared by every report."""

    name: str
    aggregates: tuple[AggregateSpec, ...]
    combine: Callable[[Sequence[float | None]], float | None]
    """Aggregate values (None when undefined) -> the metric's value."""
    where: str | None
    """The `where` source text, for reports."""
    text: str = ""
    """The metric's expression as written."""
    parts: tuple[str, ...] = ()
    """Each aggregate as written, in `aggregates` order."""
    template: str | None = None
    """A formula metric's expression with `{k}` for its k-th aggregate (`{0} + 0.5 × {1}`);
    None for a single aggregate, which keeps its own numerator and interval."""
    by: tuple[str, ...] = ()
    """The case fields of `by case.tenant, case.lang`, in order; empty when not grouped."""
    lower_is_better: bool = False
    """Written `lower is better` (`越低越好`): a rise is the worse change."""

    @property
    def is_formula(self) -> bool:
        """Whether the metric is arithmetic over aggregates rather than one aggregate."""
        return self.template is not None

    @property
    def is_rate(self) -> bool:
        """Whether the value reads as a percentage (built from rates only)."""
        return all(a.kind == "rate" or a.kind in TRIAL_AGGREGATES for a in self.aggregates)

    @property
    def numerator_kind(self) -> str | None:
        """`average` (value x denominator), `total` (the value itself) or None."""
        if self.is_formula:
            return None
        kinds = {a.kind for a in self.aggregates}
        if kinds <= AVERAGES:
            return "average"
        if kinds <= TOTALS:
            return "total"
        return None


class ExactSum:
    """A float sum kept exactly as non-overlapping partials (Shewchuk), so any
    order of additions and merges gives the same correctly rounded total."""

    __slots__ = ("partials",)

    def __init__(self, partials: list[float] | None = None) -> None:
        self.partials: list[float] = partials or []

    def add(self, x: float) -> None:
        partials = self.partials
        i = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        partials[i:] = [x]

    def merge(self, other: ExactSum) -> ExactSum:
        out = ExactSum(list(self.partials))
        for x in other.partials:
            out.add(x)
        return out

    @property
    def value(self) -> float:
        return math.fsum(self.partials)


@dataclass
class MetricState:
    """The running state of one metric over some cases."""

    plan: MetricPlan
    denominator: int = 0
    errors: int = 0
    outside: int = 0
    """Cases whose `where` was false."""
    trues: list[int] = field(default_factory=list)
    sums: list[ExactSum] = field(default_factory=list)
    lows: list[float | None] = field(default_factory=list)
    highs: list[float | None] = field(default_factory=list)
    values: list[list[float]] = field(default_factory=list)
    error_examples: list[str] = field(default_factory=list)
    inputs: dict[tuple[float, ...], int] = field(default_factory=dict)
    """A formula metric's distinct per-case inputs and their counts, for its bootstrap."""
    trials: list[dict[str, tuple[int, int]]] = field(default_factory=list)
    """For a trial aggregate: each scenario's trials and the ones where its condition held."""
    _interval: tuple[int, Any] | None = field(default=None, init=False, repr=False,
                                              compare=False)
    """The last bootstrap and the denominator it was drawn at: `result()` is asked often."""
    _one_condition: bool = field(default=False, init=False, repr=False, compare=False)
    """One `rate` or `count` and nothing else, the common metric: a case adds to its
    denominator and, where its condition held, to its one count (`add_values`' fast path)."""

    def __post_init__(self) -> None:
        aggregates = self.plan.aggregates
        n = len(aggregates)
        self._one_condition = (not self.plan.is_formula and n == 1
                               and aggregates[0].kind in BOOL_AGGREGATES
                               and aggregates[0].kind not in TRIAL_AGGREGATES)
        if not self.trues:
            self.trues = [0] * n
            self.sums = [ExactSum() for _ in range(n)]
            self.lows = [None] * n
            self.highs = [None] * n
            self.values = [[] for _ in range(n)]
        if not self.trials:
            self.trials = [{} for _ in range(n)]

    def add_values(self, args: Sequence[Any], scenario: str = "") -> None:
        """One case in the denominator with its aggregate arguments' values; `scenario` (the
        case's id) groups the trials of a trial aggregate."""
        self.denominator += 1
        if self._one_condition and len(args) == 1:
            if args[0] is True:
                self.trues[0] += 1
            return
        if self.plan.is_formula:
            key = case_input(self.plan.aggregates, args)
            self.inputs[key] = self.inputs.get(key, 0) + 1
        for i, (agg, x) in enumerate(zip(self.plan.aggregates, args, strict=True)):
            kind = agg.kind
            if kind in TRIAL_AGGREGATES:
                n, c = self.trials[i].get(scenario, (0, 0))
                self.trials[i][scenario] = (n + 1, c + (x is True))
                continue
            if kind in BOOL_AGGREGATES:
                if x is True:
                    self.trues[i] += 1
                continue
            if kind == "percentile":
                self.values[i].append(x)
            elif kind in ("min", "max"):
                lo, hi = self.lows[i], self.highs[i]
                self.lows[i] = x if lo is None or x < lo else lo
                self.highs[i] = x if hi is None or x > hi else hi
            else:
                self.sums[i].add(x)

    def add_error(self, reason: str) -> None:
        """One case left out as an error; the first three reasons (sorted) are kept."""
        self.errors += 1
        examples = self.error_examples
        if reason not in examples and (len(examples) < 3 or reason < examples[-1]):
            self.error_examples = sorted([*examples, reason])[:3]

    def merge(self, other: MetricState) -> MetricState:
        return MetricState(
            self.plan,
            self.denominator + other.denominator,
            self.errors + other.errors,
            self.outside + other.outside,
            [a + b for a, b in zip(self.trues, other.trues, strict=True)],
            [a.merge(b) for a, b in zip(self.sums, other.sums, strict=True)],
            [_pick(min, a, b) for a, b in zip(self.lows, other.lows, strict=True)],
            [_pick(max, a, b) for a, b in zip(self.highs, other.highs, strict=True)],
            [a + b for a, b in zip(self.values, other.values, strict=True)],
            sorted(set(self.error_examples) | set(other.error_examples))[:3],
            _add_counts(self.inputs, other.inputs),
            [_add_trials(a, b) for a, b in zip(self.trials, other.trials, strict=True)],
        )

    def aggregate_values(self) -> list[float | None]:
        return [self._aggregate(i, a) for i, a in enumerate(self.plan.aggregates)]

    def _aggregate(self, i: int, agg: AggregateSpec) -> float | None:
        n = self.denominator
        kind = agg.kind
        if kind == "count":
            return float(self.trues[i])
        if kind == "sum":
            return self.sums[i].value
        if n == 0:
            return None
        if kind == "rate":
            return self.trues[i] / n
        if kind == "mean":
            return self.sums[i].value / n
        if kind == "min":
            return self.lows[i]
        if kind == "max":
            return self.highs[i]
        if kind in TRIAL_AGGREGATES:
            return trial_estimate(kind, self.trials[i].values(), int(agg.p))[0]
        return percentile(sorted(self.values[i]), agg.p)

    def result(self) -> MetricValue:
        value = self.plan.combine(self.aggregate_values())
        numerator: float | None = None
        if value is not None:
            kind = self.plan.numerator_kind
            if kind == "average":
                numerator = _tidy(value * self.denominator)
            elif kind == "total":
                numerator = value
        parts = self._formula_parts()
        if not self.plan.is_formula and self.plan.aggregates[0].kind in TRIAL_AGGREGATES:
            parts = ((), None, self._trial_interval())
        return MetricValue(self.plan.name, value, numerator, self.denominator, self.errors,
                           self.plan.where, self.plan.is_rate, tuple(self.error_examples),
                           *parts)

    def _trial_interval(self) -> TrialInterval | None:
        """A trial aggregate's 95% interval over its scenarios (normal, clipped to 0..1)."""
        agg = self.plan.aggregates[0]
        mean, scenarios, error = trial_estimate(agg.kind, self.trials[0].values(), int(agg.p))
        if mean is None or error is None:
            return None
        return TrialInterval(max(0.0, mean - 1.96 * error), min(1.0, mean + 1.96 * error),
                             scenarios)

    def _formula_parts(self) -> tuple[tuple[MetricPart, ...], str | None, Any]:
        """A formula metric's parts, template and bootstrap interval; nothing for one aggregate."""
        plan = self.plan
        if not plan.is_formula:
            return (), None, None
        from evaldsl.runtime.bootstrap import bootstrap  # only formula metrics resample

        n = self.denominator
        parts = tuple(MetricPart(text, v, _part_numerator(a.kind, v, n), n)
                      for text, a, v in zip(plan.parts, plan.aggregates,
                                            self.aggregate_values(), strict=True))
        if any(a.kind in TRIAL_AGGREGATES for a in plan.aggregates):
            return parts, plan.template, None  # cases are not the sample of a trial aggregate
        if self._interval is None or self._interval[0] != n:
            self._interval = n, bootstrap(plan.aggregates, plan.combine, list(self.inputs.items()))
        return parts, plan.template, self._interval[1]


def case_input(aggregates: Sequence[AggregateSpec], args: Sequence[Any]) -> tuple[float, ...]:
    """One case's input as numbers for resampling: a condition counts 1 when true, else 0."""
    return tuple((1.0 if x is True else 0.0) if a.kind in BOOL_AGGREGATES else float(x)
                 for a, x in zip(aggregates, args, strict=True))


@dataclass(frozen=True)
class TrialInterval:
    """The interval of `pass_hat` / `pass_at`: the scenarios' estimates are the sample."""

    low: float
    high: float
    scenarios: int
    level: float = 0.95

    def to_dict(self) -> dict[str, object]:
        return {"low": self.low, "high": self.high, "level": self.level,
                "method": "normal over scenarios", "scenarios": self.scenarios}

    def __str__(self) -> str:
        return f"[{100 * self.low:.1f}%, {100 * self.high:.1f}%]"


def trial_estimate(kind: str, trials: Iterable[tuple[int, int]], k: int,
                   ) -> tuple[float | None, int, float | None]:
    """`pass_hat` or `pass_at` over scenarios of (n trials, c passed): the mean of each
    scenario's unbiased estimate (tau-bench's C(c, k) / C(n, k); 1 - C(n - c, k) / C(n, k)),
    the scenarios with n >= k it is over, and the standard error of that mean."""
    estimates = []
    for n, c in trials:
        if n < k:
            continue
        if kind == "pass_hat":
            estimates.append(math.comb(c, k) / math.comb(n, k))
        else:
            estimates.append(1 - math.comb(n - c, k) / math.comb(n, k))
    m = len(estimates)
    if m == 0:
        return None, 0, None
    mean = math.fsum(estimates) / m
    if m == 1:
        return mean, 1, None
    variance = math.fsum((e - mean) ** 2 for e in estimates) / (m - 1)
    return mean, m, math.sqrt(variance / m)


def _add_trials(a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]],
                ) -> dict[str, tuple[int, int]]:
    out = dict(a)
    for key, (n, c) in b.items():
        n0, c0 = out.get(key, (0, 0))
        out[key] = (n0 + n, c0 + c)
    return out


def _add_counts(a: dict[tuple[float, ...], int], b: dict[tuple[float, ...], int],
                ) -> dict[tuple[float, ...], int]:
    out = dict(a)
    for key, count in b.items():
        out[key] = out.get(key, 0) + count
    return out


def _part_numerator(kind: str, value: float | None, n: int) -> float | None:
    """A part's numerator as a single metric's would be: `6` of `rate(x)` 0.6 over 10."""
    if value is None:
        return None
    if kind in AVERAGES:
        return _tidy(value * n)
    return value if kind in TOTALS else None


def _pick(f: Callable[[float, float], float], a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return f(a, b)


def _tidy(x: float) -> float:
    """`0.825 * 40` is 32.99999...; a numerator that is a whole number up to float noise is."""
    nearest = round(x)
    return float(nearest) if abs(x - nearest) < 1e-9 * max(1.0, abs(x)) else x


@dataclass(frozen=True)
class MetricPart:
    """One aggregate of a formula metric with its own value and denominator."""

    text: str
    """The aggregate as written (`rate(partial)`)."""
    value: float | None
    numerator: float | None
    denominator: int

    def to_dict(self) -> dict[str, Any]:
        return {"aggregate": self.text, "value": self.value, "numerator": self.numerator,
                "denominator": self.denominator}


@dataclass(frozen=True)
class MetricValue:
    """A finished metric: the value and everything needed to read it honestly."""

    name: str
    value: float | None
    """None when the denominator is empty (or a division by zero)."""
    numerator: float | None
    denominator: int
    errors: int
    """Cases left out of the denominator because their `where` or an argument errored."""
    where: str | None
    is_rate: bool
    error_examples: tuple[str, ...] = ()
    parts: tuple[MetricPart, ...] = ()
    """A formula metric's aggregates, each with its value; empty for a single aggregate."""
    template: str | None = None
    """A formula metric's expression with `{k}` for its k-th part."""
    interval: Any = None
    """A formula metric's `bootstrap.BootstrapInterval`, or None."""
    by: tuple[str, ...] = ()
    """A grouped metric's case fields; empty when not grouped."""
    groups: tuple[GroupValue, ...] = ()
    """A grouped metric's groups, largest first (`grouping.GroupedState.results`)."""

    def to_dict(self) -> dict[str, Any]:
        out = {"value": self.value, "numerator": self.numerator,
               "denominator": self.denominator, "errors": self.errors, "where": self.where,
               "is_rate": self.is_rate, "error_examples": list(self.error_examples),
               "parts": [p.to_dict() for p in self.parts] if self.template else None,
               "template": self.template}
        if self.by:
            out["by"] = [f"case.{name}" for name in self.by]
            out["groups"] = [{"key": list(g.key), "small": g.small, **g.value.to_dict()}
                             for g in self.groups]
        return out

    def describe(self) -> str:
        """E.g. `solvable_completion 82.5% (33/40, where case.solvable; 2 errors left out)`."""
        return f"{self.name} {self.format_value()} ({self._details()})"

    def format_value(self) -> str:
        if self.value is None:
            return "n/a"
        if self.is_rate:
            return f"{self.value * 100:.1f}%"
        return f"{self.value:.4g}"

    def _details(self) -> str:
        if self.numerator is not None:
            parts = [f"{_num(self.numerator)}/{self.denominator}"]
        else:
            parts = [f"n={self.denominator}"]
        if self.where:
            parts[0] += f", where {self.where}"
        if self.errors:
            noun = "error" if self.errors == 1 else "errors"
            parts.append(f"{self.errors} {noun} left out")
        if self.template is not None:
            parts.append(breakdown(self.template, [p.to_dict() for p in self.parts]))
        return "; ".join(parts)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"


@dataclass(frozen=True)
class ReportPlan:
    """What a report of one spec tallies; built once per spec by the graph."""

    blocks: tuple[tuple[str, tuple[str, ...]], ...]
    """(block key, its labels in branch order) per outcome block."""
    metrics: tuple[MetricPlan, ...]
    checks: tuple[str, ...]
