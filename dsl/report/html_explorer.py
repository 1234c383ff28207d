"""The HTML report's case sections: the funnel, let histograms, the review sample and the
case explorer (a filterable table of every case with a drill-down).

The charts are SVG drawn here, like the rest of the page. The explorer is a
small hand-written script (`templates/explorer.js`) over the case records
embedded once as JSON in a `<script type="application/json">` element, in
which every `<` is written `\\u003c` (`explorer.page_json`, per case) so no text
can close the element or open another; the script renders case data through
`textContent` only. Its words come translated, as a JSON dict beside the data.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from importlib import resources

from evaldsl.i18n import _, ngettext
from evaldsl.report.explorer import Explorer, page_json
from evaldsl.report.explorer_cases import CaseTexts, read_back
from evaldsl.report.html_pieces import PALETTE, STATUS_WORDS, esc, outcome_name, section
from evaldsl.stats import number, percent

REVIEW_LISTED = 500
"""Sampled cases the review section lists; the rest are counted."""
HISTOGRAM_BINS = 10


def case_sections(explorer: Explorer) -> Iterator[str]:
    """The funnel, histograms, review sample and explorer of `explorer`'s cases, their
    dialogs read back from its case files; in pieces, the case data one case a piece."""
    explorer.in_input_order()
    texts = read_back(explorer.entries, explorer.inputs, explorer.layout.groups,
                      explorer.transcripts, explorer.reader)
    for part in (_funnel(explorer), _histograms(explorer), _review(explorer)):
        if part:
            yield part + "\n"
    yield from _explorer(explorer, texts)


# ---------------------------------------------------------------- funnel and histograms


def _funnel(explorer: Explorer) -> str:
    """How many cases reach each layer, for a spec of two outcome blocks or more."""
    blocks = explorer.layout.blocks
    if len(blocks) < 2:
        return ""
    counts, total = explorer.funnel(), len(explorer.entries) or 1
    row, label_w, bar_w = 26, 220, 420
    out = [f'<svg class="funnel" role="img" width="{label_w + bar_w + 130}" '
           f'height="{row * len(blocks) + 6}" xmlns="http://www.w3.org/2000/svg">']
    for i, (block, count) in enumerate(zip(blocks, counts, strict=True)):
        name = f"{outcome_name(block.key)}: {block.labels[0] if block.labels else ''}"
        width, y = round(bar_w * count / total, 1), i * row + 4
        out.append(f'<g class="step" data-block="{esc(block.key)}" data-count="{count}">'
                   f'<text x="0" y="{y + 14}">{esc(name)}</text>'
                   f'<rect x="{label_w}" y="{y}" width="{width}" height="18" '
                   f'fill="{PALETTE[i % len(PALETTE)]}"/><text x="{label_w + width + 6}" '
                   f'y="{y + 14}">{count} ({esc(percent(count / total))})</text></g>')
    out.append("</svg>")
    words = _("Cases that reach each outcome block with its first label, every block before "
              "it included.")
    intro = f'<p class="muted">{esc(words)}</p>'
    return section("funnel", _("Funnel"), intro + "".join(out))


def _histograms(explorer: Explorer) -> str:
    scores = explorer.scores()
    if not scores:
        return ""
    parts = [f'<h3><code>{esc(name)}</code></h3>{let_histogram(name, values)}'
             for name, values in scores.items()]
    return section("lets", _("Score distributions"), "\n".join(parts))


def let_histogram(name: str, values: Sequence[float]) -> str:
    """Ten bars over the range of a numeric let's values, each with its bounds."""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    counts = [0] * HISTOGRAM_BINS
    for v in values:
        counts[min(int((v - low) / span * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    top = max(counts) or 1
    bars = []
    for i, count in enumerate(counts):
        h = round(80 * count / top, 1)
        lo, hi = low + span * i / HISTOGRAM_BINS, low + span * (i + 1) / HISTOGRAM_BINS
        bars.append(f'<rect x="{i * 34}" y="{84 - h}" width="30" height="{h}" fill="#3b6fd8" '
                    f'data-count="{count}"><title>{esc(number(lo))}–{esc(number(hi))}: {count}'
                    f'</title></rect>')
    axis = (f'<text x="0" y="100">{esc(number(low))}</text>'
            f'<text x="{HISTOGRAM_BINS * 34 - 4}" y="100" text-anchor="end">'
            f'{esc(number(high))}</text>')
    return (f'<svg class="let-histogram" data-let="{esc(name)}" width="{HISTOGRAM_BINS * 34}" '
            f'height="104" xmlns="http://www.w3.org/2000/svg">{"".join(bars)}{axis}</svg>')


# ---------------------------------------------------------------- review sample


def _review(explorer: Explorer) -> str:
    drawn = explorer.review_sample()
    if not drawn:
        return ""
    rows = []
    for priority, i in drawn[:REVIEW_LISTED]:
        entry = explorer.entries[i]
        rows.append(f'<tr data-review-case="{esc(entry.id)}"><td><a href="#case-{i}">'
                    f'<code>{esc(entry.id)}</code></a></td>'
                    f'<td class="num">{esc(number(priority))}</td></tr>')
    head = (f'<thead><tr><th>{esc(_("case"))}</th><th class="num">{esc(_("priority"))}</th>'
            "</tr></thead>")
    note = ngettext("{count} case drawn for review, highest priority first",
                    "{count} cases drawn for review, highest priority first",
                    len(drawn)).format(count=len(drawn))
    more = len(drawn) - REVIEW_LISTED
    if more > 0:
        note += _("; the first {shown} listed").format(shown=REVIEW_LISTED)
    table = f'<table id="review-table">{head}<tbody>{"".join(rows)}</tbody></table>'
    body = f"<p>{esc(note)}</p>{table}"
    return section("review", _("Review sample"), body)


# ---------------------------------------------------------------- the explorer


def _explorer(explorer: Explorer, texts: CaseTexts) -> Iterator[str]:
    note = f'<p class="muted" id="explorer-note">{esc(texts.note)}</p>' if texts.note else ""
    head, tail = section("cases", _("Cases"), "\0").split("\0")
    yield (head + note + _filters(explorer) + '<p class="pager"><span id="match-count"></span> '
           f'<button type="button" id="prev">{esc(_("previous"))}</button> '
           f'<span id="page-info"></span> '
           f'<button type="button" id="next">{esc(_("next"))}</button></p>'
           + _case_table() + '<div id="drill" class="drill" hidden></div>'
           + '<script type="application/json" id="explorer-data">')
    yield from _data(explorer, texts)
    yield ('</script><script type="application/json" id="explorer-words">'
           f"{page_json(_words())}</script><script>{_script()}</script>{tail}")


def _filters(explorer: Explorer) -> str:
    layout = explorer.layout
    labels = "".join(
        f'<option value="{i}:{esc(label)}">{esc(outcome_name(b.key))}: {esc(label)}</option>'
        for i, b in enumerate(layout.blocks) for label in (*b.labels, "error"))
    checks = "".join(f'<option value="{i}">{esc(name)}</option>'
                     for i, name in enumerate(layout.checks))
    statuses = "".join(f'<option value="{s}">{esc(_(w))}</option>'
                       for s, w in STATUS_WORDS.items())
    every = esc(_("all"))
    errors = (f'<option value="">{every}</option>'
              f'<option value="some">{esc(_("with an error"))}</option>'
              f'<option value="none">{esc(_("without an error"))}</option>'
              f'<option value="x">{esc(_("no result"))}</option>')
    return ('<div class="filters">'
            + _select("f-label", _("label"), f'<option value="">{every}</option>{labels}')
            + _select("f-check", _("check"), f'<option value="">{esc(_("any"))}</option>{checks}')
            + _select("f-status", _("status"), f'<option value="">{every}</option>{statuses}')
            + _select("f-error", _("error"), errors)
            + _select("f-group", _("group"), f'<option value="">{every}</option>')
            + f'<label>{esc(_("id"))} <input type="search" id="f-id"></label>'
            + f'<label>{esc(_("text"))} <input type="search" id="f-text"></label></div>')


def _select(ident: str, title: str, options: str) -> str:
    return f'<label>{esc(title)} <select id="{ident}">{options}</select></label>'


def _case_table() -> str:
    head = "".join(f"<th>{esc(t)}</th>" for t in (
        _("case"), _("labels"), _("checks not passed"), _("errors")))
    return (f'<table id="case-table"><thead><tr>{head}</tr></thead>'
            '<tbody id="case-rows"></tbody></table>')


def _data(explorer: Explorer, texts: CaseTexts) -> Iterator[str]:
    """The page's case data as JSON text made of `page_json` parts, which no text can
    leave: one record per case, dialogs and group values in lists beside them (each
    already JSON, written as it is rather than decoded again)."""
    layout = explorer.layout
    head = page_json({
        "checks": list(layout.checks),
        "blocks": [{"name": None if b.key == "outcome" else b.key, "branches": list(b.branches)}
                   for b in layout.blocks],
        "groups_of": list(layout.groups),
    })
    lists = (("cases", [e.text for e in explorer.entries]), ("dialogs", texts.dialogs),
             ("group_values", texts.groups))
    yield head[:-1]
    for name, items in lists:
        yield f',"{name}":['
        for i, item in enumerate(items):
            yield "," + item if i else item
        yield "]"
    yield "}"


def _words() -> dict[str, object]:
    return {
        "status": {s: _(w) for s, w in STATUS_WORDS.items()},
        "matches": _("{count} of {total} cases match"),
        "page": _("rows {from}–{to}"),
        "trace": _("Trace"), "checks": _("Checks"), "lets": _("Lets"), "dialog": _("Dialog"),
        "score": _("score"), "verdict": _("verdict"), "normalized": _("normalized"),
        "strict": _("strict"), "no_dialog": _("No dialog: the case file could not be read "
                                              "back for this case."),
    }


def _script() -> str:
    return (resources.files("evaldsl.report").joinpath("templates", "explorer.js")
            .read_text(encoding="utf-8"))
