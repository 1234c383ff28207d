"""`evaldsl review RESULTS --spec SPEC -o sample.jsonl`: the review sample, ready to label.

`evaldsl review serve ...` serves the same sample as a web page instead
(`evaldsl.cli.review_serve`).

The spec's `review` block decides, per case, whether it is drawn and with
which priority (deterministic in seed and case id; the decision is in every
results line). This verb collects the drawn cases, highest priority first
(ties by id), and writes a file people fill in: JSONL or CSV (by the output's
extension; `evaldsl.analysis.sample_file` has the format) with the automatic
verdicts for reference and empty `label`, `score` and `note` columns.
`evaldsl calibrate RESULTS sample.jsonl` reads it back. With `--cases` the
dialogs are copied in, so reviewers need nothing else.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evaldsl.analysis.sample_file import HUMAN_COLUMNS, write_sample
from evaldsl.cli.exits import EXIT_OK, UsageError
from evaldsl.cli.review_serve import add_arguments as add_serve_arguments
from evaldsl.cli.review_serve import serve
from evaldsl.errors import SpecError
from evaldsl.i18n import _
from evaldsl.report.journal import recover
from evaldsl.report.journal_read import check_version, read_entries
from evaldsl.report.layout import SpecLayout, layout_of
from evaldsl.syntax.source import Source


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "review", help=_("write the cases the spec's review block draws, ready to label"),
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        usage=_("evaldsl review RESULTS --spec SPEC -o SAMPLE [options]\n"
                "       evaldsl review serve STORE_OR_RESULTS [--spec SPEC] [--cases FILE ...] "
                "[--store DB] [--outcome BLOCK ...] [--host HOST] [--port PORT]"))
    p.add_argument("results", type=Path, metavar="RESULTS",
                   help=_("results.jsonl of a run, or `serve`"))
    p.add_argument("target", type=Path, nargs="?", metavar="STORE_OR_RESULTS",
                   help=_("review serve: a review store (.db) or results.jsonl"))
    p.add_argument("--spec", type=Path, default=None, help=_("the spec that produced RESULTS"))
    p.add_argument("-o", "--output", type=Path, default=None,
                   help=_("the sample file: .jsonl or .csv"))
    p.add_argument("--cases", type=Path, nargs="+", default=[],
                   help=_("case files to copy each drawn case's dialog from"))
    p.add_argument("--limit", type=int, default=None, help=_("keep only the first N by priority"))
    add_serve_arguments(p)


def run(args: argparse.Namespace) -> int:
    if str(args.results) == "serve":
        return serve(args)
    if args.target is not None:
        raise UsageError(_("unexpected argument `{word}`").format(word=args.target),
                         _("`evaldsl review serve STORE_OR_RESULTS` serves the review page"))
    if args.spec is None or args.output is None:
        raise UsageError(_("evaldsl review RESULTS needs --spec SPEC and -o SAMPLE"))
    rows = sample_rows(args.results, read_layout(args.spec))
    if args.limit is not None:
        rows = rows[: args.limit]
    if args.cases:
        _attach_dialogs(rows, args.cases)
    write_sample(rows, args.output)
    print(
        _("{count} cases drawn for review -> {output}").format(count=len(rows), output=args.output)
    )
    return EXIT_OK


def read_layout(path: Path) -> SpecLayout:
    """The layout of the spec a verb over results names with `--spec`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(
            [], _("cannot read spec `{path}`: {exc}").format(path=path, exc=exc)
        ) from exc
    layout = layout_of(Source(text, str(path)), str(path))
    if layout.title is None and not layout.blocks and not layout.checks:
        raise SpecError([], _("`{path}` does not look like a spec").format(path=path))
    return layout


def sample_rows(results: Path, layout: SpecLayout) -> list[dict[str, Any]]:
    """The drawn cases of a results file, highest priority first, then by id."""
    check_written_by(results, layout)
    records = checked_records(results)
    rows = [_row(record, layout) for record in records
            if (record.get("review") or {}).get("sampled")]
    if not rows and not any(record.get("review") is not None for record in records):
        raise UsageError(
            _("`{results}` holds no review decisions: does the spec have a `review` block?").format(
                results=results
            )
        )
    rows.sort(key=lambda r: (-(r["priority"] if r["priority"] is not None else -1e300), r["id"]))
    return rows


def check_written_by(results: Path, layout: SpecLayout) -> None:
    """Refuse results of another spec: their labels, checks and review rules differ."""
    header = recover(results).header
    if header is not None and header.spec_hash != layout.hash:
        raise UsageError(
            _(
                "`{results}` was written by another spec (hash {spec_hash}, `{path}` is {hash})"
            ).format(
                results=results,
                spec_hash=header.spec_hash[:12],
                path=layout.path,
                hash=layout.hash[:12],
            )
        )


def checked_records(results: Path) -> list[dict[str, Any]]:
    """Every case line of a run's journal, each checked for shape as `merge` checks it.

    A line of the wrong shape, or a second, different result for one row, is a
    data error naming the file and line (`evaldsl.report.journal_read`): a
    review sample or a calibration built on it would otherwise be wrong, or
    end in a traceback.
    """
    check_version(results, recover(results).header)
    return [entry.record for entry in read_entries(results)]


def _row(record: Mapping[str, Any], layout: SpecLayout) -> dict[str, Any]:
    review = record["review"]
    checks = {name: r.get("score") for name, r in record.get("checks", {}).items()
              if isinstance(r.get("score"), (int, float))}
    return {
        "id": record["id"], "priority": _rounded(review.get("priority")),
        "rule": _rule_text(layout, review.get("rule")), "labels": dict(record.get("labels", {})),
        "scores": checks, "dialog": None, **dict.fromkeys(HUMAN_COLUMNS, ""),
    }


def _rounded(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else value


def _rule_text(layout: SpecLayout, index: Any) -> str | None:
    if isinstance(index, int) and 0 <= index < len(layout.review_rules):
        return layout.review_rules[index]
    return None


def _attach_dialogs(rows: list[dict[str, Any]], files: Iterable[Path]) -> None:
    from evaldsl.cases.bad_rows import BadRow
    from evaldsl.cases.loading import read_cases

    wanted = {r["id"]: r for r in rows}
    for item in read_cases(list(files), on_bad_row="skip"):
        if not isinstance(item, BadRow) and item.id in wanted:
            wanted[item.id]["dialog"] = [{"role": m.role, "content": m.content}
                                         for m in item.messages]
