"""report.json as typed msgspec structs: the one declaration of the report's shape.

`json_report.ReportBuilder` builds a `ReportDoc`, the writers (JSON, HTML, Markdown, the
terminal summary), the gates and `Report.from_json` read its attributes, and
docs/report.schema.json is generated from these classes (`python -m
evaldsl.report.document docs/report.schema.json`; a test holds the shipped file to it).

The fields are declared in the order report.json writes its keys. A key that is always
written is a field without a default (None where the report says null); a key written only
sometimes (`cases.left_out`, `checks[].judges`, `target`) defaults to `UNSET`, which is
left out of the JSON, so the bytes are the ones the report was written in before it was
typed. Numbers a report may write as integers or as fractions are `int | float`, so a
report read back and written again keeps `2` as `2`. Three fields stay open maps, each
for a reason given where it is declared: a check's own `fields`, its `value`, and `run`'s
extra keys are not the report's to type.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from evaldsl import schema_file
from evaldsl.errors import EvaldslError
from evaldsl.i18n import _

FORMAT: Final = "evaldsl-report"
VERSION: Final = 1

Count = Annotated[int, Meta(ge=0)]
Number = int | float
"""A figure written as the computation left it: `2` stays `2`, `0.5` stays `0.5`."""


def _doc(text: str) -> Meta:
    return Meta(description=text)


class _Part(Struct, kw_only=True, forbid_unknown_fields=True):
    """A section of report.json: its keys in writing order, no others."""


class SpecInfo(_Part):
    """The spec the report judges by."""

    name: Annotated[str, _doc("the spec's title, or its file name without `.eval`")]
    title: Annotated[str | None, _doc("the `spec \"...\"` header, if any")]
    path: str | None
    hash: Annotated[str, Meta(pattern="^sha256:[0-9a-f]{64}$",
                              description="sha256 of the spec's source text")]


class BadRowEntry(_Part):
    """A skipped input row, by file and line."""

    file: str
    line: Annotated[int, Meta(ge=1)]
    field: str | None
    reason: str


class ReasonCount(_Part):
    """A reason and how many cases (or rows) it holds for."""

    reason: str
    count: Annotated[int, Meta(ge=1)]


class Cases(_Part):
    """How many cases were judged, errored, skipped or left out."""

    evaluated: Count
    errored: Annotated[Count, _doc(
        "cases with no result: every outcome block (or, without blocks, every check "
        "computed) is an error")]
    bad_rows_skipped: Annotated[Count, _doc(
        "malformed input rows skipped with --on-bad-row skip")]
    bad_rows: Annotated[list[BadRowEntry], _doc("the first skipped rows, each by file and line")]
    left_out: Annotated[Count, _doc(
        "input rows the selection (--where, --ids, --sample) left out: not judged, in no "
        "count; present only with a selection")] | UnsetType = UNSET
    left_out_reasons: Annotated[list[ReasonCount], _doc(
        "why rows were left out, the most frequent reasons first (a --where that is an error "
        "for a case is a reason of its own)")] | UnsetType = UNSET
    ids_not_found: Annotated[Count, _doc(
        "ids of --ids that no input row had; present only with --ids")] | UnsetType = UNSET


class Outcome(_Part):
    """One outcome block's counts; `name` null for the case verdict."""

    name: str | None
    labels: Annotated[list[str], _doc("the block's labels in branch order, then `error`")]
    counts: Annotated[dict[str, Count], _doc("label -> cases, `error` included")]


class Interval(_Part):
    """A 95% interval: Wilson's for a single rate (`wilson`), a seeded bootstrap over cases
    for a formula metric (`bootstrap`, with its `seed` and `resamples`), a normal interval
    over scenarios for `pass_hat` and `pass_at` (with its `scenarios`)."""

    low: float
    high: float
    level: float
    method: Literal["wilson", "bootstrap", "normal over scenarios"]
    seed: Annotated[int, _doc(
        "the resampling seed: the same cases give the same interval")] | UnsetType = UNSET
    resamples: Annotated[int, Meta(ge=1)] | UnsetType = UNSET
    scenarios: Count | UnsetType = UNSET


INTERVAL_KEYS = {"wilson": (), "bootstrap": ("seed", "resamples"),
                 "normal over scenarios": ("scenarios",)}
"""The keys each kind of interval writes besides `low`, `high`, `level` and `method`."""


class MetricPart(_Part):
    """One aggregate of a formula metric, with its own value."""

    aggregate: Annotated[str, _doc("the aggregate as written (`rate(partial)`)")]
    value: Number | None
    numerator: Annotated[Number | None, _doc("null for min, max and percentile")]
    denominator: Count


class MetricGroup(_Part):
    """The metric over one group's cases alone, with the figures the overall metric has."""

    key: Annotated[list[str | int | float | bool | None], _doc(
        "the group's value of each `by` field, in order; null where its cases have none, "
        "shown as (none)")]
    value: Number | None
    numerator: Number | None
    denominator: Count
    errors: Count
    interval: Interval | None
    parts: list[MetricPart] | None
    error_examples: list[str]
    small: Annotated[bool, _doc(
        "fewer than 30 cases in the group's denominator: too few for its value to be read on "
        "its own")]


class Metric(_Part):
    """A metric with everything needed to read it honestly."""

    name: str
    expression: str | None
    value: Annotated[Number | None, _doc("null when the denominator is 0")]
    numerator: Number | None
    denominator: Count
    errors: Annotated[Count, _doc(
        "cases left out of the denominator because a value they needed was an error")]
    where: Annotated[str | None, _doc("the condition that defined the denominator")]
    is_rate: bool
    interval: Annotated[Interval | None, _doc(
        "95% Wilson interval for a single rate; a seeded bootstrap over cases for a formula "
        "metric")]
    error_examples: Annotated[list[str], _doc("why some of the errored cases errored")]
    template: Annotated[str | None, _doc(
        "a formula metric's expression with `{k}` for its k-th part (`{0} + 0.5 × {1}`); null "
        "for a single aggregate")]
    parts: Annotated[list[MetricPart] | None, _doc(
        "a formula metric's aggregates, each with its own value; null for a single aggregate")]
    by: Annotated[list[str] | None, _doc(
        "a grouped metric's keys as written (`case.tenant`), in order; null for a metric "
        "without `by`")]
    groups: Annotated[list[MetricGroup] | None, _doc(
        "a grouped metric's groups, largest denominator first, then by key; null for a metric "
        "without `by`")]
    better: Annotated[Literal["higher", "lower"], _doc(
        "which way the metric improves: `lower` for a metric written `lower is better` "
        "(`越低越好`); gates and summaries read a change by it")] | UnsetType = UNSET


class ScoreSummary(_Part):
    """A check's scores: mean, extremes and a histogram."""

    mean: Number | None
    min: Number | None
    max: Number | None
    histogram: Annotated[list[Count], Meta(min_length=10, max_length=10,
                                           description="scores in ten equal bins over [0, 1]")]


class Judges(_Part):
    """A check asked of several judges (`judges:`): Krippendorff's alpha across them, over
    the cases two or more answered."""

    alpha: Annotated[float | None, _doc(
        "null when nothing could be paired or every answer was the same")]
    level: Annotated[Literal["interval", "nominal"], _doc(
        "interval for points and scores, nominal for labels")]
    cases: Count


class CheckSummary(_Part):
    """How one check went over the cases."""

    name: str
    primitive: str
    evaluated: Annotated[Count, _doc("cases where the check was computed (errors included)")]
    passed: Count
    failed: Count
    errors: Count
    not_needed: Annotated[Count, _doc(
        "cases where no outcome, metric or review rule needed it")]
    pass_rate: Annotated[float | None, _doc("passed / (passed + failed)")]
    interval: Interval | None
    score: ScoreSummary
    judges: Judges | UnsetType = UNSET


class SlotRate(_Part):
    """How often one slot was filled."""

    name: str
    filled: Count
    of: Count
    rate: float | None


class SlotFill(_Part):
    """The fill rate of each slot of a check with a `filled` map (slots)."""

    check: str
    slots: list[SlotRate]


class Cost(_Part):
    """Model use of the process that wrote the report: a resumed run counts only the calls
    it made itself (the journaled cases' calls are not recorded per case)."""

    model_calls: Annotated[Count, _doc("requests sent to a model server")]
    cached: Annotated[Count, _doc("answers served from the cache")]
    retries: Count
    model_errors: Count
    prompt_tokens: Count
    completion_tokens: Count
    cache_read_failures: Annotated[Count, _doc(
        "answer-cache lookups that failed (an unreadable file, a stored answer that does not "
        "fit its request): each was asked again")]
    cache_write_failures: Annotated[Count, _doc(
        "answers the cache could not store (the verdicts are unaffected)")]
    not_asked: Annotated[Count, _doc(
        "model checks that errored without a request: the circuit breaker was open or the "
        "deadline had passed")]
    stopped_asking: Annotated[str | None, _doc(
        "why the run stopped asking the judge (the breaker's reason, or `deadline passed`); "
        "null when it never did")]
    truncated: Annotated[Count, _doc(
        "answers cut off at `max_tokens` (`finish_reason: length`), the retries' own cuts "
        "included")]
    truncation_retries: Annotated[Count, _doc(
        "requests asked once more with a larger budget because their answer was cut off; a "
        "retry cut off again is the check's error")]
    cached_by: Annotated[dict[str, Count], _doc(
        "answers served from the cache per judge that gave them: provider, model and endpoint "
        "(`openai:gpt-4o-mini@https://api.example.com/v1`)")] | UnsetType = UNSET


class Review(_Part):
    """The review sample: how many cases were drawn."""

    selected: Count


class TraceCheck(_Part):
    """A check of a worst case: its status and why."""

    name: str
    status: Literal["passed", "failed", "error", "not_needed"]
    score: float | int | None | UnsetType = UNSET
    value: Annotated[Any, _doc(
        "the check's value as its primitive gave it: a number, a text, a label, an error; "
        "any JSON, since primitives are plugins")] = UNSET
    reason: str | None | UnsetType = UNSET
    fields: Annotated[dict[str, Any], _doc(
        "the check's own fields (`filled`, `by_judge`, a primitive's extras): open, as a "
        "plugin primitive declares its own")] | UnsetType = UNSET


class Turn(_Part):
    """One message of a worst case's dialog, clipped to a readable size."""

    role: str
    content: str
    tool_calls: list[str] | UnsetType = UNSET
    latency_ms: Number | None | UnsetType = UNSET


class WorstCase(_Part):
    """One of the cases with the worst verdicts, with the trace of why."""

    id: str
    origin: str | None
    labels: Annotated[dict[str, str], _doc(
        "outcome block (`verdict` for the unnamed one) -> label")]
    branches: Annotated[dict[str, str | None], _doc(
        "outcome block -> the branch that fired, as written")]
    checks: list[TraceCheck]
    dialog: list[Turn]


class Latencies(_Part):
    """Nearest-rank percentiles of each reply's latency, in milliseconds; null without
    replies."""

    p50: Number | None
    p90: Number | None
    p99: Number | None


class FailureKinds(_Part):
    """Failures by kind: it ended before `min_turns` replies (`early`), never gave a fact
    its goal needs (`off_goal`), wrote an empty message, another language or no JSON
    (`format`), or its model did not answer (`unavailable`)."""

    early: Count
    off_goal: Count
    format: Count
    unavailable: Count


class Simulator(_Part):
    """The simulated users' own failures, present when a model played the users of some
    scenarios: error cases of the run, never counted in `errors`."""

    conversations: Annotated[int, Meta(ge=1, description=(
        "conversations a simulated user played: the denominator of `rate`"))]
    failures: Count
    rate: Annotated[float, Meta(ge=0, le=1, description="failures / conversations")]
    by_kind: FailureKinds


class Target(_Part):
    """The agent under test of a driven run (`evaldsl run --target`, docs/targets.md)."""

    name: Annotated[str, _doc("the target's name in evaldsl.toml")]
    kind: Literal["openai", "http", "python"]
    conversations: Count
    errors: Annotated[Count, _doc(
        "conversations the agent failed (timeout, HTTP error, dropped connection, malformed "
        "answer): `error` cases")]
    replies: Annotated[Count, _doc("replies whose latency was measured")]
    latency_ms: Latencies
    simulator: Simulator | UnsetType = UNSET


class RunInfo(Struct, kw_only=True):
    """About the process that wrote the report (not about the cases): differs between a
    resumed and an uninterrupted run, and between a run and a merge. Keys another version
    wrote are read past: the section describes a process, not the cases."""

    resumed_cases: Count | UnsetType = UNSET
    evaluated_cases: Annotated[Count, _doc(
        "cases this process judged (the rest were read back from the journal)")] \
        | UnsetType = UNSET
    elapsed_seconds: Annotated[float, Meta(ge=0)] | UnsetType = UNSET
    concurrency: Annotated[int, Meta(ge=1)] | UnsetType = UNSET
    workers: Annotated[int, Meta(ge=1, description=(
        "processes that evaluated cases (`--workers`)"))] | UnsetType = UNSET
    deadline_passed: Annotated[bool, _doc(
        "the run stopped at `--deadline` before every case was judged")] | UnsetType = UNSET
    merged_journals: Annotated[list[str], _doc(
        "the journals `evaldsl merge` read")] | UnsetType = UNSET


class ReportDoc(_Part):
    """What `evaldsl run -o report.json` writes: the aggregate judgement of one spec over a
    set of cases. Every rate carries its numerator, denominator, the errored cases left out
    and the `where` that defined the denominator."""

    format: Literal["evaldsl-report"]
    version: Literal[1]
    generated_by: Annotated[str, _doc("evaldsl and its version")]
    spec: SpecInfo
    cases: Cases
    errors: Annotated[list[ReasonCount], _doc(
        "the most frequent reasons cases errored, most frequent first; each case counts each "
        "reason once")]
    outcomes: list[Outcome]
    metrics: list[Metric]
    checks: list[CheckSummary]
    slots: list[SlotFill]
    cost: Cost
    review: Review | None
    worst_cases: Annotated[list[WorstCase], _doc(
        "the cases with the worst verdicts, with the trace of why")]
    run: RunInfo
    target: Target | UnsetType = UNSET

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON values, keys in report.json's order; for callers that
        serve it as JSON beside other data (`watch`'s `GET /report`)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


def decode_report(data: bytes | str, name: str) -> ReportDoc:
    """report.json's text as a `ReportDoc`; a file that is not one is an `EvaldslError`
    naming `name` and what is wrong where."""
    try:
        report: ReportDoc = msgspec.json.decode(data, type=ReportDoc)
    except msgspec.DecodeError as error:
        raise EvaldslError(_("{name} is not an evaldsl report: {problem}").format(
            name=name, problem=error)) from None
    return report


def as_report(data: Any) -> ReportDoc:
    """A report given as its JSON values (a dict) as a `ReportDoc`, checked; a
    `ReportDoc` as itself."""
    if isinstance(data, ReportDoc):
        return data
    report: ReportDoc = msgspec.convert(data, type=ReportDoc)
    return report


# ------------------------------------------------------------ the published schema

SCHEMA_ID = "https://evaldsl.dev/schemas/report-1.json"


def report_schema() -> dict[str, Any]:
    """docs/report.schema.json: the JSON Schema of `ReportDoc`, from the classes above."""
    generated: dict[str, Any] = msgspec.json.schema(ReportDoc)
    defs: dict[str, Any] = generated["$defs"]
    defs["Interval"] = _by_method(defs["Interval"])
    top = defs.pop("ReportDoc")
    schema: dict[str, Any] = _one_line({"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "$id": SCHEMA_ID, **{k: v for k, v in top.items() if k != "title"},
                      "title": "evaldsl report.json", "$defs": defs})
    return schema


def _by_method(interval: dict[str, Any]) -> dict[str, Any]:
    """`Interval` as one schema per `method`, each with the keys that method writes, so a
    bootstrap interval without its seed is refused (one struct declares them all)."""
    fields = interval["properties"]
    variants = []
    for method, own in INTERVAL_KEYS.items():
        keys = ["low", "high", "level", "method", *own]
        variants.append({"type": "object", "required": keys, "additionalProperties": False,
                         "properties": {**{k: fields[k] for k in keys},
                                        "method": {"const": method}}})
    return {"description": interval["description"], "oneOf": variants}


def _one_line(node: Any) -> Any:
    """Descriptions on one line: docstrings wrap where the source does."""
    if isinstance(node, dict):
        return {k: " ".join(v.split()) if k == "description" and isinstance(v, str)
                else _one_line(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_one_line(v) for v in node]
    return node


def rendered() -> str:
    """The schema as the shipped file spells it."""
    return schema_file.rendered(report_schema())


def main(argv: list[str] | None = None) -> int:
    return schema_file.main(argv, describes="report.json", text=rendered())


if __name__ == "__main__":
    sys.exit(main())
