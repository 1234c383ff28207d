"""A Markdown summary for CI comments (GitHub, GitLab): short, and every rate with its n.

Built from the typed report (`evaldsl.report.document`). Markdown renderers accept raw
HTML, so user text is HTML-escaped and table pipes are escaped; a spec name cannot inject markup
into a pull-request comment. Names, ids and `where` filters go in code spans,
where text is literal: there nothing is HTML-escaped (`a<b` stays `a<b`) and a
backtick inside gets a longer fence.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaldsl.i18n import _, ngettext
from evaldsl.report.document import CheckSummary, Metric, Outcome, ReportDoc, Target, WorstCase
from evaldsl.report.figures import (
    better_note,
    interval_span,
    judge_agreement,
    metric_value,
    parts_of,
)
from evaldsl.report.markdown_text import code, md
from evaldsl.stats import fraction, percent

WORST_LISTED = 5


def render_markdown(report: ReportDoc) -> str:
    spec, cases = report.spec, report.cases
    lines = [_("### evaldsl: {md}").format(md=md(spec.name)), ""]
    facts = [ngettext("**{cases}** case judged", "**{cases}** cases judged",
                      cases.evaluated).format(cases=cases.evaluated)]
    if cases.bad_rows_skipped:
        facts.append(
            ngettext(
                "{count} bad row skipped", "{count} bad rows skipped", cases.bad_rows_skipped
            ).format(count=cases.bad_rows_skipped)
        )
    if isinstance(cases.left_out, int):
        facts.append(ngettext("{count} row left out by the selection",
                              "{count} rows left out by the selection",
                              cases.left_out).format(count=cases.left_out))
    cut = report.cost.truncated
    if cut:
        facts.append(ngettext("{count} answer cut off at max_tokens",
                              "{count} answers cut off at max_tokens", cut).format(count=cut))
    facts.append(_("spec `{spec}`").format(spec=spec.hash[:19]))
    lines += [" · ".join(facts), ""]
    lines += _metrics(report.metrics)
    lines += _groups(report.metrics)
    lines += _outcomes(report.outcomes)
    lines += _checks(report.checks)
    lines += _target(report.target if isinstance(report.target, Target) else None)
    lines += _worst(report.worst_cases)
    return "\n".join(lines).rstrip() + "\n"


def _metrics(metrics: Sequence[Metric]) -> list[str]:
    if not metrics:
        return []
    out = [
        _("| metric | value | n | 95% interval | errors left out | where |"),
        "|---|---:|---:|:---:|---:|---|",
    ]
    for m in metrics:
        where = code(m.where, cell=True) if m.where else _("all cases")
        out.append(
            f"| {code(m.name, cell=True)}{better_note(m.better)} | **{metric_value(m)}** | "
            f"{fraction(m.numerator, m.denominator)} | {interval_span(m)} | "
            f"{m.errors} | {where} |"
        )
    formulas = [f"- {code(m.name)} = {code(parts)}" for m in metrics
                if (parts := parts_of(m)) is not None]
    return [*out, "", *formulas, ""] if formulas else [*out, ""]


def _groups(metrics: Sequence[Metric]) -> list[str]:
    """The grouped metrics' tables (`evaldsl.report.markdown_groups`), imported when shown."""
    from evaldsl.report.markdown_groups import group_tables

    return group_tables(metrics)


def _outcomes(outcomes: Sequence[Outcome]) -> list[str]:
    out = []
    for block in outcomes:
        total = sum(block.counts.values()) or 1
        parts = [
            f"{md(label)} {count} ({percent(count / total, 0)})"
            for label, count in block.counts.items()
            if count or label != "error"
        ]
        name = md(block.name or _("verdict"))
        out.append(_("**{name}**: {counts}").format(name=name, counts=" · ".join(parts)))
    return [*out, ""] if out else []


def _checks(checks: Sequence[CheckSummary]) -> list[str]:
    weak = sorted(
        (c for c in checks if c.pass_rate is not None), key=lambda c: (c.pass_rate, c.name)
    )
    if not weak:
        return []
    parts = [
        f"{code(c.name)} {percent(c.pass_rate)} ({c.passed}/"
        f"{c.passed + c.failed}{_errors(c.errors)})"
        for c in weak
    ]
    return [_("**checks** (pass rate, lowest first): ") + " · ".join(parts), "",
            *(part for line in judge_agreement(checks, code) for part in (line, ""))]


def _errors(count: int) -> str:
    return (
        ngettext("; {count} error", "; {count} errors", count).format(count=count) if count else ""
    )


def _target(target: Target | None) -> list[str]:
    """The agent's latency and errors, after a run that drove it."""
    if target is None:
        return []
    from evaldsl.report.document import Simulator
    from evaldsl.report.terminal import ms, simulator_line

    latency = target.latency_ms
    lines = [_("**agent {name}**: {conversations} conversations · {errors} errors · "
              "{replies} replies · latency p50 {p50} · p90 {p90} · p99 {p99}").format(
        name=code(target.name), conversations=target.conversations,
        errors=target.errors, replies=target.replies, p50=ms(latency.p50),
        p90=ms(latency.p90), p99=ms(latency.p99)), ""]
    simulator = target.simulator if isinstance(target.simulator, Simulator) else None
    simulated = [md(line) for line in simulator_line(simulator)]
    return lines + simulated + ([""] if simulated else [])


def _block(name: str) -> str:
    """A block as a worst case names it: the unnamed verdict block in the user's words."""
    return _("verdict") if name == "verdict" else md(name)


def _worst(cases: Sequence[WorstCase]) -> list[str]:
    if not cases:
        return []
    out = [_("<details><summary>worst cases</summary>"), ""]
    for case in cases[:WORST_LISTED]:
        labels = _(", ").join(f"{_block(b)}: {md(lab)}" for b, lab in case.labels.items())
        failing = [c.name for c in case.checks if c.status in ("failed", "error")]
        tail = (
            _("; failing: {join}").format(join=", ".join(md(n) for n in failing)) if failing else ""
        )
        out.append(f"- {code(case.id)} ({labels}{tail})")
    return [*out, "", "</details>", ""]
