"""`evaldsl review serve STORE_OR_RESULTS`: the review page on 127.0.0.1, labels into a store.

Given a run's results.jsonl (with `--spec`, and `--cases` for the dialogs),
the spec's review sample is put into a review store (`--store`, by default
the results' name with `.review.db`) and served; given a store, it is served
as it is. Importing again keeps every saved label. `--outcome BLOCK` (repeated,
or a comma list) names the outcome blocks the page labels; without it the page
labels every outcome block of the spec, the verdict block first. The page is
`evaldsl.review.web`; the store `evaldsl.review.store`. The address is printed
once the server listens (`--port 0` picks a free port).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import EXIT_OK, UsageError
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import _

DEFAULT_PORT = 8765


def add_arguments(p: Any) -> None:
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


def outcome_blocks(written: list[str] | None) -> list[str] | None:
    """The blocks `--outcome` names, repeated or comma-separated, in order; None without."""
    if written is None:
        return None
    blocks = [word.strip() for item in written for word in item.split(",") if word.strip()]
    if not blocks:
        raise UsageError(_("--outcome needs the name of an outcome block"))
    return blocks


def serve(args: argparse.Namespace) -> int:
    from evaldsl.review.importing import import_results
    from evaldsl.review.store import is_store, open_store
    from evaldsl.review.web import served_blocks

    wanted = outcome_blocks(getattr(args, "outcome", None))
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
        asyncio.run(_listen(store, args.host, args.port, getattr(args, "lang", None), blocks))
    return EXIT_OK


async def _listen(store: Any, host: str, port: int, language: str | None,
                  blocks: list[str]) -> None:
    """Serve until interrupted, printing the address once the socket is bound."""
    from aiohttp import web

    from evaldsl.review.web import make_app
    from evaldsl.webguard import Guard

    guard = Guard([host], browser=True)  # its own name, when --host gives one
    runner = web.AppRunner(make_app(store, language, guard, blocks), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    print(_("review page on http://{host}:{port}/ (Ctrl-C stops it)").format(
        host=host, port=bound), flush=True)
    print(_("labelling the outcome blocks {blocks}").format(
        blocks=", ".join(f"`{b}`" for b in blocks)), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
