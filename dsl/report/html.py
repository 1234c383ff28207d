"""The HTML report: one self-contained file that opens offline.

Everything the page needs (styles, charts, the small script of the case
explorer) is inline, with no external resource, so the file can be mailed,
archived or opened from a CI artifact years later. The aggregates come from
the typed report (`json_report` builds it), so `report.json` and `report.html` never
disagree; the case sections from the run's case records
(`evaldsl.report.explorer`, drawn by `evaldsl.report.html_explorer`). Every
text that comes from a spec or a case (names, labels, reasons, dialog turns)
goes through `esc`, or in the explorer through `textContent`: a dialog may
contain anything, `<script>` included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from string import Template
from typing import Any

from msgspec import UNSET

from evaldsl.i18n import N_, _, current_language, ngettext
from evaldsl.report import group_rows
from evaldsl.report.document import (
    Cases,
    CheckSummary,
    Cost,
    Metric,
    Outcome,
    ReportDoc,
    SlotFill,
    Target,
)
from evaldsl.report.explorer import Explorer
from evaldsl.report.figures import interval_span, parts_of
from evaldsl.report.html_pieces import PALETTE, esc, outcome_name, section
from evaldsl.stats import fraction, number, percent

ERROR_COLOUR = "#6b46c1"
_CJK = re.compile(r"[\u3400-\u9fff]")
COST_WORDS = {
    "model_calls": N_("model calls"),
    "cached": N_("cached"),
    "retries": N_("retries"),
    "model_errors": N_("model errors"),
    "prompt_tokens": N_("prompt tokens"),
    "completion_tokens": N_("completion tokens"),
    "cache_read_failures": N_("answer cache reads failed"),
    "cache_write_failures": N_("answer cache writes failed"),
    "not_asked": N_("model checks not asked"),
    "stopped_asking": N_("stopped asking"),
    "truncated": N_("answers cut off"),
    "truncation_retries": N_("asked again after a cut-off answer"),
}
"""The cost section's keys in words; an unknown key is shown as it is."""


def render_html(report: ReportDoc, cases: Explorer | None = None) -> str:
    """The whole page for a report; with `cases`, the explorer of every case."""
    return "".join(html_parts(report, cases))


def html_parts(report: ReportDoc, cases: Explorer | None = None) -> Iterator[str]:
    """The page in pieces, to be written as they come: with 50,000 cases the case data is
    most of the page, and joining it into one text would hold it several times over."""
    spec = report.spec
    fields = {
        "lang": "zh" if current_language() == "zh" or _CJK.search(spec.name) else "en",
        "title": esc(spec.name), "css": _template("report.css").template,
        "meta": _meta(report), "generator": esc(report.generated_by),
        "hash": esc(spec.hash), "spec_word": esc(_("spec")),
    }
    head, tail = _template("report.html").template.split("$sections", 1)
    yield Template(head).substitute(fields)
    yield "\n".join([_metrics(report.metrics), _groups(report.metrics),
                     _outcomes(report.outcomes)]) + "\n"
    yield from _cases(cases)
    from evaldsl.report.html_target import target_section  # only a driven run has it

    target = report.target if isinstance(report.target, Target) else None
    yield "\n" + "\n".join([_checks(report.checks), _slots(report.slots),
                             target_section(target), _cost(report.cost),
                             _bad_rows(report.cases)])
    yield Template(tail).substitute(fields)


def _template(name: str) -> Template:
    return Template(resources.files("evaldsl.report").joinpath("templates", name)
                    .read_text(encoding="utf-8"))


def _meta(report: ReportDoc) -> str:
    cases = report.cases
    count = f'<span id="case-count">{cases.evaluated}</span>'
    parts = [esc(_("{count} cases judged")).format(count=count)]
    if cases.bad_rows_skipped:
        skipped = cases.bad_rows_skipped
        words = ngettext("{count} bad row skipped", "{count} bad rows skipped", skipped)
        parts.append(esc(words.format(count=skipped)))
    if report.spec.path:
        path = f"<code>{esc(report.spec.path)}</code>"
        parts.append(esc(_("spec {path}")).format(path=path))
    return " · ".join(parts)


def _empty(text: str) -> str:
    return _p(text, "empty")


def _p(text: str, css: str = "") -> str:
    """A paragraph of the report's own words, escaped like any text."""
    return f'<p class="{css}">{esc(text)}</p>' if css else f"<p>{esc(text)}</p>"


def _of(label: str, count: int, total: int) -> str:
    return _("{label}: {count} of {total}").format(label=label, count=count, total=total)


_section = section


def _cases(cases: Explorer | None) -> Iterator[str]:
    """Every case, to filter and open; a page rendered from report.json alone has none."""
    if cases is None:
        yield _section("cases", _("Cases"), _empty(
            _("This page was written from report.json alone, without the case results.")))
        return
    from evaldsl.report.html_explorer import case_sections  # only with case records

    yield from case_sections(cases)


def _table(head: Sequence[tuple[str, str]], rows: Iterable[str], ident: str = "") -> str:
    cells = "".join(f'<th class="{c}">{esc(t)}</th>' if c else f"<th>{esc(t)}</th>"
                    for t, c in head)
    ident_attr = f' id="{ident}"' if ident else ""
    thead = f"<thead><tr>{cells}</tr></thead>" if any(t for t, _ in head) else ""
    return f"<table{ident_attr}>{thead}<tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


# ---------------------------------------------------------------- metrics


def _metrics(metrics: Sequence[Metric]) -> str:
    if not metrics:
        return _section("metrics", _("Metrics"), _empty(_("The spec defines no metric.")))
    head = [
        (_("metric"), ""),
        (_("value"), "num"),
        (_("numerator / denominator"), "num"),
        (_("95% interval"), "num"),
        (_("errors left out"), "num"),
        (_("where"), ""),
    ]
    return _section(
        "metrics", _("Metrics"), _table(head, map(_metric_row, metrics), "metric-table")
    )


def _metric_row(m: Metric) -> str:
    value = percent(m.value) if m.is_rate else number(m.value)
    span = interval_span(m) or "–"
    parts = parts_of(m)
    name = f"<code>{esc(m.name)}</code>"
    if m.better == "lower":
        name += f' <span class="muted better">{esc(_("(lower is better)"))}</span>'
    if parts is not None:
        name += f'<div class="muted parts">= <code>{esc(parts)}</code></div>'
    where = (
        f"<code>{esc(m.where)}</code>"
        if m.where
        else f'<span class="muted">{esc(_("all cases"))}</span>'
    )
    return (f'<tr data-metric="{esc(m.name)}"><td>{name}</td>'
            f'<td class="num value">{esc(value)}</td>'
            f'<td class="num">{esc(fraction(m.numerator, m.denominator, " / "))}</td>'
            f'<td class="num">{esc(span)}</td><td class="num">{m.errors}</td>'
            f"<td>{where}</td></tr>")


# ---------------------------------------------------------------- groups


def _groups(metrics: Sequence[Metric]) -> str:
    """A table per grouped metric, every group listed; nothing when no metric has `by`."""
    grouped = group_rows.grouped(metrics)
    if not grouped:
        return ""
    head = [(_("group"), ""), (_("value"), "num"), (_("numerator / denominator"), "num"),
            (_("95% interval"), "num"), (_("errors left out"), "num"), ("", "")]
    tables = []
    for m in grouped:
        shown = group_rows.rows(m, sep=" / ")[0]
        title = f"<h3>{esc(group_rows.title(m))}</h3>"
        tables.append(title + _table(head, map(_group_row, shown)))
        if any(r.small for r in shown):
            tables.append(_p(group_rows.small_note(), "muted"))
    return _section("groups", _("Metrics by group"), "\n".join(tables))


def _group_row(r: Any) -> str:
    flag = esc(_("small")) if r.small else ""
    row = '<tr class="small">' if r.small else "<tr>"
    return (f'{row}<td>{esc(r.key)}</td><td class="num value">{esc(r.value)}</td>'
            f'<td class="num">{esc(r.fraction)}</td>'
            f'<td class="num">{esc(r.interval or "–")}</td><td class="num">{r.errors}</td>'
            f'<td class="muted">{flag}</td></tr>')


# ---------------------------------------------------------------- outcomes


def _outcomes(outcomes: Sequence[Outcome]) -> str:
    if not outcomes:
        empty = _empty(_("The spec has no outcome block."))
        return _section("outcomes", _("Outcomes"), empty)
    parts = []
    for block in outcomes:
        name = outcome_name(block.name)
        parts.append(f'<h3>{esc(name)}</h3>\n{outcome_chart(block)}')
    return _section("outcomes", _("Outcome distribution"), "\n".join(parts))


def outcome_chart(block: Outcome) -> str:
    """Horizontal bars, one per label in branch order, `error` last (inline SVG)."""
    counts = block.counts
    labels = [*block.labels]
    total = sum(counts.values()) or 1
    row, label_w, bar_w = 26, 150, 420
    height = row * len(labels) + 6
    out = [f'<svg class="outcome-chart" data-outcome="{esc(block.name or "verdict")}" '
           f'role="img" width="{label_w + bar_w + 130}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg">']
    for i, label in enumerate(labels):
        count = counts.get(label, 0)
        width = round(bar_w * count / total, 1)
        colour = ERROR_COLOUR if label == "error" else PALETTE[i % len(PALETTE)]
        y = i * row + 4
        out.append(
            f'<g class="bar" data-label="{esc(label)}" data-count="{count}">'
            f"<title>{esc(_of(label, count, total))}</title>"
            f'<text x="0" y="{y + 14}">{esc(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{width}" height="18" fill="{colour}"/>'
            f'<text x="{label_w + width + 6}" y="{y + 14}">{count} '
            f"({esc(percent(count / total))})</text></g>"
        )
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------- checks and slots


def _checks(checks: Sequence[CheckSummary]) -> str:
    if not checks:
        return ""
    head = [
        (_("check"), ""),
        (_("primitive"), ""),
        (_("pass rate"), "num"),
        (_("passed / decided"), "num"),
        (_("95% interval"), "num"),
        (_("errors"), "num"),
        (_("not needed"), "num"),
        (_("mean score"), "num"),
        (_("score distribution"), ""),
    ]
    return _section("checks", _("Checks"), _table(head, map(_check_row, checks), "check-table"))


def _check_row(c: CheckSummary) -> str:
    interval = c.interval
    span = f"{percent(interval.low)} – {percent(interval.high)}" if interval else "–"
    decided = c.passed + c.failed
    return (f'<tr data-check="{esc(c.name)}"><td><code>{esc(c.name)}</code></td>'
            f'<td>{esc(c.primitive)}</td><td class="num value">{percent(c.pass_rate)}</td>'
            f'<td class="num">{c.passed} / {decided}</td><td class="num">{esc(span)}</td>'
            f'<td class="num">{c.errors}</td><td class="num">{c.not_needed}</td>'
            f'<td class="num">{esc(number(c.score.mean))}</td>'
            f'<td>{histogram_svg(c.score.histogram)}</td></tr>')


def histogram_svg(counts: Sequence[int]) -> str:
    """Ten small bars for scores in [0, 0.1), ..., [0.9, 1.0]."""
    top = max(counts, default=0) or 1
    bars = []
    for i, count in enumerate(counts):
        h = round(24 * count / top, 1)
        lo, hi = i / len(counts), (i + 1) / len(counts)
        bars.append(f'<rect x="{i * 12}" y="{26 - h}" width="10" height="{h}" fill="#3b6fd8">'
                    f"<title>{lo:.1f}–{hi:.1f}: {count}</title></rect>")
    return (f'<svg class="histogram" width="{12 * len(counts)}" height="28" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(bars)}</svg>')


def _slots(slots: Sequence[SlotFill]) -> str:
    if not slots:
        return ""
    parts = []
    for group in slots:
        head = [(_("slot"), ""), (_("filled"), "num"), (_("completion"), "")]
        rows = (f'<tr data-slot="{esc(s.name)}"><td>{esc(s.name)}</td>'
                f'<td class="num">{s.filled} / {s.of} ({percent(s.rate)})</td>'
                f'<td><div class="bar"><span style="width:{_width(s.rate)}%"></span></div>'
                f"</td></tr>" for s in group.slots)
        parts.append(f"<h3><code>{esc(group.check)}</code></h3>\n"
                     + _table(head, rows, f"slots-{_ident(group.check)}"))
    return _section("slots", _("Slot completion"), "\n".join(parts))


def _width(rate: float | None) -> str:
    return f"{0.0 if rate is None else round(rate * 100, 1)}"


def _ident(name: str) -> str:
    return re.sub(r"[^\w-]", "_", name)


def _cost(cost: Cost) -> str:
    rows = [
        f'<tr><td>{esc(_(COST_WORDS.get(k, k.replace("_", " "))))}</td>'
        f'<td class="num">{esc(str(v))}</td></tr>'
        for k in cost.__struct_fields__
        if (v := getattr(cost, k)) is not None and v is not UNSET
    ]
    return _section("cost", _("Cost"), _table([("", ""), ("", "num")], rows, "cost-table"))


def _bad_rows(cases: Cases) -> str:
    rows = cases.bad_rows
    if not rows:
        return ""
    head = [(_("file:line"), ""), (_("field"), ""), (_("reason"), "")]
    body = (f"<tr><td><code>{esc(r.file)}:{r.line}</code></td>"
            f'<td>{esc(r.field or "")}</td><td>{esc(r.reason)}</td></tr>' for r in rows)
    note = _p(
        _("{skipped} rows were skipped; the first {shown}:").format(
            skipped=cases.bad_rows_skipped, shown=len(rows)
        )
    )
    return _section("bad-rows", _("Skipped rows"), note + _table(head, body, "bad-row-table"))
