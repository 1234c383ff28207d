"""The layered report printed after a run: metrics first, each with its denominator.

    success_rate     62.5%  (25/40; 2 errors left out)    95% 47.0%–75.8%
    fast_rate        90.0%  (27/30, where intent.passed)

then the outcome counts, the checks, the most frequent reasons cases errored
and the cost: the order in which people read a result (did it work? how did
cases end? which check is weak? what went wrong? what did it cost?). Column
widths count East Asian characters as two cells.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

import msgspec

from evaldsl.i18n import _, ngettext
from evaldsl.report import group_rows
from evaldsl.report.document import (
    Cases,
    Cost,
    Metric,
    MetricGroup,
    ReasonCount,
    ReportDoc,
    Simulator,
    Target,
)
from evaldsl.report.figures import (
    better_note,
    interval_span,
    judge_agreement,
    metric_value,
    parts_of,
)
from evaldsl.report.simulator_failures import KIND_WORDS
from evaldsl.stats import fraction, percent

GROUPS_SHOWN = 10
"""Groups listed per grouped metric; the rest are counted on one line."""


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, cells: int) -> str:
    return text + " " * max(0, cells - width(text))


def denominator_note(m: Metric | MetricGroup) -> str:
    """`(25/40, where case.solvable; 2 errors left out)`; a group's note has no `where`."""
    note = fraction(m.numerator, m.denominator)
    where = m.where if isinstance(m, Metric) else None
    if where:
        note += _(", where {m}").format(m=where)
    if m.errors:
        note += ngettext(
            "; {count} error left out", "; {count} errors left out", m.errors
        ).format(count=m.errors)
    return f"({note})"


def metric_line(m: Metric, name_cells: int = 0) -> str:
    """One metric: name, value, denominator note and its interval; a formula metric's
    parts follow on a line of their own."""
    line = f"{pad(m.name, name_cells)}  {metric_value(m):>7}  {denominator_note(m)}"
    if m.interval:
        line += f"  95% {interval_span(m, '–')}"
    line += better_note(m.better)
    parts = parts_of(m)
    if parts is not None:
        line += "\n" + " " * (name_cells + 4) + f"= {parts}"
    return line


def group_block(m: Metric) -> list[str]:
    """A grouped metric's groups, largest first, as a compact table under its title."""
    shown, more = group_rows.rows(m, GROUPS_SHOWN)
    notes = [denominator_note(g) for g in (m.groups or [])[:len(shown)]]
    key_cells = max(width(r.key) for r in shown)
    note_cells = max(width(n) for n in notes)
    lines = [group_rows.title(m)]
    for row, note in zip(shown, notes, strict=True):
        line = f"  {pad(row.key, key_cells)}  {row.value:>7}  {pad(note, note_cells)}"
        if row.interval:
            line += f"  95% {row.interval}"
        if row.small:
            line += "  " + _("small")
        lines.append(line.rstrip())
    if more:
        lines.append("  " + group_rows.more_groups(more))
    if any(r.small for r in shown):
        lines.append("  " + group_rows.small_note())
    return lines


def render_terminal(report: ReportDoc) -> str:
    cases = report.cases
    head = ngettext("{report} · {cases} case", "{report} · {cases} cases",
                    cases.evaluated).format(report=report.spec.name, cases=cases.evaluated)
    if cases.bad_rows_skipped:
        head += ngettext(
            " · {count} bad row skipped", " · {count} bad rows skipped", cases.bad_rows_skipped
        ).format(count=cases.bad_rows_skipped)
    lines = [head, *left_out_line(cases), ""]
    metrics = report.metrics
    if metrics:
        cells = max(width(m.name) for m in metrics)
        lines.append(_("metrics"))
        lines.extend("  " + metric_line(m, cells) for m in metrics)
        lines.append("")
    for m in group_rows.grouped(metrics):
        lines.extend([*group_block(m), ""])
    for block in report.outcomes:
        total = sum(block.counts.values()) or 1
        parts = [f"{label} {count} ({percent(count / total)})"
                 for label, count in block.counts.items() if count or label != "error"]
        name = block.name or _("outcome")
        lines.append(_("{name}: {counts}").format(name=name, counts=" · ".join(parts)))
    checks = [c for c in report.checks if c.evaluated]
    if checks:
        parts = [f"{c.name} {percent(c.pass_rate)} ({c.passed}/"
                 f"{c.passed + c.failed}{_err(c.errors)})" for c in checks]
        lines.append(_("checks: {checks}").format(checks=" · ".join(parts)))
        lines.extend(judge_agreement(checks))
    if report.errors:
        lines.append(error_line(report.errors))
    cost = report.cost
    lines.append(
        _("cost: {cost} model calls · {cost2} from cache · {value} tokens").format(
            cost=cost.model_calls,
            cost2=cost.cached,
            value=cost.prompt_tokens + cost.completion_tokens,
        )
    )
    lines.extend(cache_line(cost))
    lines.extend(cut_line(cost))
    lines.extend(stopped_line(cost))
    lines.extend(target_line(report.target or None))
    if report.run.deadline_passed is True:
        lines.append(_("deadline passed: the run stopped before every case was judged; the "
                       "cases not judged are not in the journal (`--resume` judges them)"))
    return "\n".join(lines)


def target_line(target: Target | None) -> list[str]:
    """`agent support: 40 conversations · 2 errors · p50 812 ms · ...`, after a driven run."""
    if target is None:
        return []
    latency = target.latency_ms
    spans = " · ".join(f"{p} {ms(v)}" for p, v in (("p50", latency.p50), ("p90", latency.p90),
                                                     ("p99", latency.p99)))
    simulator = target.simulator if isinstance(target.simulator, Simulator) else None
    return [_("agent {name}: {conversations} conversations · {errors} errors · {replies} "
              "replies · {spans}").format(name=target.name,
                                          conversations=target.conversations,
                                          errors=target.errors, replies=target.replies,
                                          spans=spans)] + simulator_line(simulator)


def failure_kinds(simulator: Simulator) -> list[tuple[str, int]]:
    """The simulator's failures by kind, each kind that has words, in the report's order."""
    counts = msgspec.structs.asdict(simulator.by_kind)
    return [(kind, count) for kind, count in counts.items() if kind in KIND_WORDS]


def simulator_line(simulator: Simulator | None) -> list[str]:
    """`simulated user: 40 conversations · 3 failures (7.5%): 1 ended too early · ...`: the
    simulator's own failures, which are not the agent's `errors`."""
    if simulator is None:
        return []
    kinds = " · ".join(f"{count} {_(KIND_WORDS[kind])}"
                       for kind, count in failure_kinds(simulator))
    return [_("simulated user: {conversations} conversations · {failures} failures "
              "({rate}): {kinds}").format(conversations=simulator.conversations,
                                          failures=simulator.failures,
                                          rate=f"{simulator.rate:.1%}", kinds=kinds)]


def ms(value: float | None) -> str:
    """A latency as the summaries show it: whole milliseconds, or `-` when none was measured."""
    return "-" if value is None else f"{value:.0f} ms"


def left_out_line(cases: Cases) -> list[str]:
    """`left out by the selection: 40 rows (31 × not in the sample; 9 × --where does not
    hold)`, when the run had a selection: those rows are in no count above or below."""
    if not isinstance(cases.left_out, int):
        return []
    reasons = cases.left_out_reasons if isinstance(cases.left_out_reasons, list) else []
    each = [_("{count} × {reason}").format(count=r.count, reason=r.reason) for r in reasons]
    line = ngettext("left out by the selection: {count} row",
                    "left out by the selection: {count} rows",
                    cases.left_out).format(count=cases.left_out)
    return [line + (f" ({_('; ').join(each)})" if each else "")]


def stopped_line(cost: Cost) -> list[str]:
    """`stopped asking: deadline passed (37 model checks not asked)`, when the breaker
    opened or the deadline passed: errors that no judge produced must not pass unexplained."""
    reason = cost.stopped_asking
    if not reason:
        return []
    count = cost.not_asked
    return [ngettext("stopped asking: {reason} ({count} model check not asked)",
                     "stopped asking: {reason} ({count} model checks not asked)",
                     count).format(reason=reason, count=count)]


def cut_line(cost: Cost) -> list[str]:
    """`cut-off answers: 3 (3 asked again with a larger budget)`, only when a judge ran out
    of tokens: a cut that the retry did not mend is an error the reader must trace."""
    cut = cost.truncated
    if not cut:
        return []
    return [_("cut-off answers: {count} ({retries} asked again with a larger budget)").format(
        count=cut, retries=cost.truncation_retries)]


def cache_line(cost: Cost) -> list[str]:
    """Which judge the cached answers came from (`12 answers from the cache, all of judge
    `openai:m@url``), and `answer cache: 12 reads failed, 0 writes failed` only when
    something failed: a damaged cache costs calls, never verdicts, and the summary must say
    where they went."""
    lines = _cached_by(cost.cached_by if isinstance(cost.cached_by, dict) else {})
    reads, writes = cost.cache_read_failures, cost.cache_write_failures
    if reads or writes:
        lines.append(_("answer cache: {reads} reads failed, {writes} writes failed").format(
            reads=reads, writes=writes))
    return lines


def _cached_by(sources: Mapping[str, int]) -> list[str]:
    if len(sources) == 1:
        ((judge, count),) = sources.items()
        return [ngettext("{count} answer from the cache, of judge `{judge}`",
                         "{count} answers from the cache, all of judge `{judge}`",
                         count).format(count=count, judge=judge)]
    return [_("from the cache: {count} answers of judge `{judge}`").format(count=c, judge=j)
            for j, c in sorted(sources.items())]


def error_line(reasons: Sequence[ReasonCount]) -> str:
    """`errors: 12 × the judge's answer is not JSON; 3 × timeout`: cases per reason."""
    each = [_("{count} × {reason}").format(count=r.count, reason=r.reason) for r in reasons]
    return _("errors: {reasons}").format(reasons=_("; ").join(each))


def _err(count: int) -> str:
    return (
        ngettext("; {count} error", "; {count} errors", count).format(count=count) if count else ""
    )
