"""`evaldsl review RESULTS --spec SPEC -o sample.jsonl`: the review sample, ready to label.

`evaldsl review serve STORE_OR_RESULTS` serves the same sample as a web page
instead: given a run's results.jsonl (with `--spec`, and `--cases` for the
dialogs), the spec's review sample is put into a review store (`--store`, by
default the results' name with `.review.db`) and served; given a store, it is
served as it is. Importing again keeps every saved label. `--outcome BLOCK`
(repeated, or a comma list) names the outcome blocks the page labels; without
it the page labels every outcome block of the spec, the verdict block first.
The page is `evaldsl.review.web`; the store `evaldsl.review.store`. The address
is printed once the server listens (`--port 0` picks a free port).

The spec's `review` block decides, per case, whether it is drawn and with
which priority; this verb collects the drawn cases (`evaldsl.review.sample`),
highest priority first (ties by id), and writes a file people fill in: JSONL
or CSV (by the output's extension; `evaldsl.analysis.sample_file` has the
format) with the automatic verdicts for reference and empty `label`, `score`
and `note` columns.
`evaldsl calibrate RESULTS sample.jsonl` reads it back. With `--cases` the
dialogs are copied in, so reviewers need nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from evaldsl.analysis.sample_file import write_sample
from evaldsl.cli.exits import EXIT_OK, UsageError
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import _
from evaldsl.review.sample import attach_dialogs, read_layout, sample_rows


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
    _serve_arguments(p)


def run(args: argparse.Namespace) -> int:
    if str(args.results) == "serve":
        return _serve(args)
    if args.target is not None:
        raise UsageError(_("unexpected argument `{word}`").format(word=args.target),
                         _("`evaldsl review serve STORE_OR_RESULTS` serves the review page"))
    if args.spec is None or args.output is None:
        raise UsageError(_("evaldsl review RESULTS needs --spec SPEC and -o SAMPLE"))
    rows = sample_rows(args.results, read_layout(args.spec))
    if args.limit is not None:
        rows = rows[: args.limit]
    if args.cases:
        attach_dialogs(rows, args.cases)
    write_sample(rows, args.output)
    print(
        _("{count} cases drawn for review -> {output}").format(count=len(rows), output=args.output)
    )
    return EXIT_OK


DEFAULT_PORT = 8765


def _serve_arguments(p: Any) -> None:
    """The options only `review serve` reads."""
    p.add_argument("--store", type=Path, default=None,
                   help=_("review serve: the review store to fill (default RESULTS.review.db)"))
    p.add_argument("--host", default="127.0.0.1",
                   help=_("review serve: the address to listen on (default 127.0.0.1)"))
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=_("review serve: the port (default 8765; 0 picks a free one)"))
    p.add_argument("--outcome", action="append", default=None, metavar="BLOCK",
                   help=_("review serve: the outcome block to label (repeat it, or give a "
                          "comma list; default every block of the spec)"))


def _outcome_blocks(written: list[str] | None) -> list[str] | None:
    """The blocks `--outcome` names, repeated or comma-separated, in order; None without."""
    if written is None:
        return None
    blocks = [word.strip() for item in written for word in item.split(",") if word.strip()]
    if not blocks:
        raise UsageError(_("--outcome needs the name of an outcome block"))
    return blocks


def _serve(args: argparse.Namespace) -> int:
    from evaldsl.review.importing import import_results
    from evaldsl.review.store import is_store, open_store
    from evaldsl.review.web import serve_forever, served_blocks

    wanted = _outcome_blocks(getattr(args, "outcome", None))
    source: Path | None = args.target
    if source is None:
        raise UsageError(
            _("review serve needs a review store or a results file"),
            _("for example `evaldsl review serve results.jsonl --spec SPEC --cases CASES`"))
    if not source.exists():
        raise UsageError(_("`{path}` does not exist").format(path=source))
    if is_store(source):
        store = open_store(source)
    else:
        if args.spec is None:
            raise UsageError(_("`{path}` is a results file: give --spec SPEC, the spec that "
                               "produced it").format(path=source))
        path = args.store or source.with_suffix(".review.db")
        store = open_store(path)
        added = import_results(store, source, args.spec, args.cases)
        print(_("{added} new cases queued in {path} ({total} in all)").format(
            added=added, path=path, total=len(store.queue())), flush=True)
    with store:
        try:
            blocks = served_blocks(store, wanted)
        except ValueError as exc:
            raise UsageError(str(exc), did_you_mean(next(
                b for b in wanted or () if b not in store.blocks()), store.blocks())) from None
        asyncio.run(serve_forever(store, args.host, args.port, getattr(args, "lang", None),
                                  blocks, lambda port: _listening(args.host, port, blocks)))
    return EXIT_OK


def _listening(host: str, port: int, blocks: list[str]) -> None:
    print(_("review page on http://{host}:{port}/ (Ctrl-C stops it)").format(
        host=host, port=port), flush=True)
    print(_("labelling the outcome blocks {blocks}").format(
        blocks=", ".join(f"`{b}`" for b in blocks)), flush=True)
