"""A comparison of two runs written out: JSON (docs/compare.schema.json), the terminal, Markdown.

The JSON form is the one source: the terminal and Markdown views are drawn
from it, so the three never disagree on a figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaldsl.analysis.compare import Comparison, GateResult, MetricComparison
from evaldsl.analysis.flips import Flips
from evaldsl.analysis.paired_stats import CONFIDENCE
from evaldsl.i18n import _
from evaldsl.report.figures import better_note
from evaldsl.report.group_rows import key_text
from evaldsl.report.terminal import pad, width
from evaldsl.runtime.grouping import SMALL_GROUP

FORMAT = "evaldsl-compare"
VERSION = 1


def to_dict(comparison: Comparison, spec_hash: str,
            gates: Sequence[GateResult] = ()) -> dict[str, Any]:
    """The comparison as JSON data (docs/compare.schema.json)."""
    c = comparison
    return {
        "format": FORMAT, "version": VERSION, "spec_hash": spec_hash,
        "base": {"path": str(c.base.path), "spec_hash": c.base.spec_hash},
        "new": {"path": str(c.new.path), "spec_hash": c.new.spec_hash},
        "cases": {"paired": len(c.pairing.paired), "only_base": c.pairing.only_base,
                  "only_new": c.pairing.only_new,
                  "duplicated_base": c.pairing.duplicated_base,
                  "duplicated_new": c.pairing.duplicated_new},
        "trials": c.trials,
        "settings": {"seed": c.settings.seed, "resamples": c.settings.resamples,
                     "confidence": CONFIDENCE, "listed": c.settings.listed},
        "metrics": [_metric(m) for m in c.metrics],
        "transitions": [{"block": t.block, "labels": list(t.labels),
                         "counts": [{"base": b, "new": n, "cases": k}
                                    for (b, n), k in sorted(t.counts.items())]}
                        for t in c.transitions],
        "changed_cases": [{"id": x.id, "base": x.base, "new": x.new, "move": x.move,
                           "checks": [{"check": m.check, "base": m.base, "new": m.new}
                                      for m in x.checks]} for x in c.changed],
        "changed_total": c.changed_total,
        "flips": {"verdict": _flips(c.verdict_flips) if c.verdict_flips else None,
                  "checks": [_flips(f) for f in c.check_flips]},
        "gates": [{"metric": g.metric, "margin": g.margin, "failed": g.reason is not None,
                   "reason": g.reason} for g in gates],
    }


def _flips(f: Flips) -> dict[str, Any]:
    return {"name": f.name, "flipped": f.flipped, "decided": f.decided,
            "undecided": f.undecided, "rate": f.rate, "alpha": f.alpha}


def _metric(m: MetricComparison) -> dict[str, Any]:
    out = _figures(m)
    if m.groups:
        out["groups"] = [{"key": list(g.key), "small": g.small, **_figures(g.metric)}
                         for g in m.groups]
    return out


def _figures(m: MetricComparison) -> dict[str, Any]:
    return {
        "name": m.name, "is_rate": m.is_rate, "better": "lower" if m.lower_is_better else "higher",
        "test": m.test, "paired": m.paired,
        "base": m.base, "new": m.new, "difference": m.difference,
        "interval": None if m.interval is None else [m.interval.low, m.interval.high],
        "p_value": m.p_value, "resampling": m.resampling,
        "denominator": {"base": m.denominator_base, "new": m.denominator_new},
        "errors": {"base": m.errors_base, "new": m.errors_new},
        "discordant": None if m.discordant is None else
        {"worse": m.discordant[0], "better": m.discordant[1]},
    }


def _number(value: float | None, is_rate: bool, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    sign = "+" if signed else ""
    return f"{value * 100:{sign}.1f}%" if is_rate else f"{value:{sign}.4g}"


def _interval(m: dict[str, Any]) -> str:
    if m["interval"] is None:
        return "n/a"
    low, high = m["interval"]
    return f"[{_number(low, m['is_rate'], True)}, {_number(high, m['is_rate'], True)}]"


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def metric_rows(data: dict[str, Any]) -> list[list[str]]:
    """One row per metric: name, base, new, difference, interval, p, paired cases."""
    return [[m["name"] + better_note(m.get("better")), _number(m["base"], m["is_rate"]),
             _number(m["new"], m["is_rate"]),
             _number(m["difference"], m["is_rate"], True), _interval(m), _p(m["p_value"]),
             str(m["paired"])] for m in data["metrics"]]


def group_tables(data: dict[str, Any]) -> list[tuple[str, list[list[str]]]]:
    """Per grouped metric its title and one row per group (as `metric_rows`, the key first,
    a small group marked)."""
    out = []
    for m in data["metrics"]:
        if m.get("groups"):
            rows = [[key_text(g["key"]) + (" *" if g["small"] else ""),
                     *metric_rows({"metrics": [{**g, "name": ""}]})[0][1:]]
                    for g in m["groups"]]
            out.append((_("`{metric}` by group:").format(metric=m["name"]), rows))
    return out


def _group_note(data: dict[str, Any]) -> list[str]:
    small = any(g["small"] for m in data["metrics"] for g in m.get("groups") or ())
    return [_("* fewer than {count} paired cases: the interval and p-value say little").format(
        count=SMALL_GROUP)] if small else []


def _group_headers() -> list[str]:
    return [_("group"), *_headers()[1:]]


def _headers() -> list[str]:
    return [_("metric"), _("base"), _("new"), _("difference"), _("95% interval"), _("p"),
            _("paired")]


def _cases_line(data: dict[str, Any]) -> str:
    c = data["cases"]
    line = _("{paired} cases paired, {only_base} only in base, {only_new} only in new, "
             "{dup_base} duplicated ids in base, {dup_new} in new").format(
                 paired=c["paired"], only_base=c["only_base"], only_new=c["only_new"],
                 dup_base=c["duplicated_base"], dup_new=c["duplicated_new"])
    trials = data.get("trials")
    if trials:
        line += "; " + _("paired by scenario and trial: up to {base} trials in base, {new} "
                         "in new, {scenarios} scenarios").format(**trials)
    return line


def _gate_lines(data: dict[str, Any]) -> list[str]:
    words = {"worse": _("significantly worse"),
             "denominator": _("paired denominator shrank by more than 10%"),
             "errors": _("errors grew by more than 10% of the paired cases")}
    return [(_("gate `{metric}`: failed ({why})").format(metric=g["metric"],
                                                         why=words[g["reason"]])
             if g["failed"] else _("gate `{metric}`: passed").format(metric=g["metric"]))
            for g in data["gates"]]


def _table(rows: list[list[str]]) -> list[str]:
    """Columns padded to terminal cells, so wide (Chinese) labels line up too."""
    widths = [max(width(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(pad(cell, w) for cell, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


def _transition_rows(block: dict[str, Any]) -> list[list[str]]:
    """The block's table: a row per base label, a column per new label."""
    counts = {(c["base"], c["new"]): c["cases"] for c in block["counts"]}
    labels = block["labels"]
    header = [_("base \\ new"), *labels]
    return [header, *[[b, *[str(counts.get((b, n), 0)) for n in labels]] for b in labels]]


def _changed_line(case: dict[str, Any]) -> str:
    moved = ", ".join(f"{m['check']} {m['base']}->{m['new']}" for m in case["checks"])
    return f"{case['id']}: {case['base']} -> {case['new']}" + (f" ({moved})" if moved else "")


def _more(data: dict[str, Any], limit: int) -> int:
    """The changed cases not shown: beyond `limit`, or beyond the JSON's own list."""
    changed = data["changed_cases"]
    total: int = data.get("changed_total", len(changed))
    return total - min(limit, len(changed))


def flip_lines(data: dict[str, Any]) -> list[str]:
    """The verdict's flip rate, then each check that flipped, with their denominators;
    empty for a comparison written before flip rates were."""
    flips = data.get("flips")
    if not flips:
        return []
    lines = []
    if flips["verdict"] is not None:
        lines.append(_("verdict flips: {line}").format(line=_flip_words(flips["verdict"])))
    flipped = [f for f in flips["checks"] if f["flipped"]]
    lines += [_("check `{name}` flips: {line}").format(name=f["name"], line=_flip_words(f))
              for f in flipped]
    if not flipped:
        lines.append(_("no check flipped between pass and fail"))
    return lines


def _flip_words(f: dict[str, Any]) -> str:
    """`3 of 97 cases decided in both runs (3.1%), 2 left out`."""
    rate = "–" if f["rate"] is None else f"{100 * f['rate']:.1f}%"
    words = _("{flipped} of {decided} cases decided in both runs ({rate})").format(
        flipped=f["flipped"], decided=f["decided"], rate=rate)
    if f.get("alpha") is not None:
        words += ", " + _("Krippendorff's alpha {alpha:.2f}").format(alpha=f["alpha"])
    if f["undecided"]:
        words += ", " + _("{count} left out (an error or not computed in a run)").format(
            count=f["undecided"])
    return words


def render_terminal(data: dict[str, Any], limit: int = 20) -> str:
    """The comparison as text for a terminal."""
    lines = [_cases_line(data), "", *_table([_headers(), *metric_rows(data)])]
    for title, rows in group_tables(data):
        lines += ["", title, *_table([_group_headers(), *rows])]
    lines += _group_note(data)
    for block in data["transitions"]:
        lines += ["", _("transitions of `{block}`:").format(block=block["block"]),
                  *_table(_transition_rows(block))]
    flips = flip_lines(data)
    lines += ["", *flips] if flips else []
    changed = data["changed_cases"]
    if changed:
        lines += ["", _("cases whose verdict changed (worst first):")]
        lines += [f"  {_changed_line(c)}" for c in changed[:limit]]
        more = _more(data, limit)
        if more:
            lines.append("  " + _("... and {count} more").format(count=more))
    gates = _gate_lines(data)
    return "\n".join([*lines, *([""] + gates if gates else [])]) + "\n"


def _md_table(rows: list[list[str]]) -> list[str]:
    def line(r: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |"

    return [line(rows[0]), "|" + "---|" * len(rows[0]), *[line(r) for r in rows[1:]]]


def render_markdown(data: dict[str, Any], limit: int = 50) -> str:
    """The comparison as Markdown, for a pull request comment."""
    lines = ["## " + _("Comparison of two runs"), "", _cases_line(data), "",
             *_md_table([_headers(), *metric_rows(data)])]
    for title, rows in group_tables(data):
        lines += ["", "### " + title, "", *_md_table([_group_headers(), *rows])]
    note = _group_note(data)
    lines += ["", "\\" + note[0]] if note else []
    for block in data["transitions"]:
        lines += ["", "### " + _("transitions of `{block}`:").format(block=block["block"]),
                  "", *_md_table(_transition_rows(block))]
    flips = flip_lines(data)
    lines += ["", *[f"- {line}" for line in flips]] if flips else []
    changed = data["changed_cases"]
    if changed:
        lines += ["", "### " + _("cases whose verdict changed (worst first):"), ""]
        lines += [f"- `{c['id']}`: {_changed_line(c).partition(': ')[2]}"
                  for c in changed[:limit]]
        more = _more(data, limit)
        if more:
            lines.append("- " + _("... and {count} more").format(count=more))
    gates = _gate_lines(data)
    return "\n".join([*lines, *([""] + [f"- {g}" for g in gates] if gates else [])]) + "\n"
