"""`evaldsl studio [SPEC]`: the studio, a local web app to write, run and read a spec.

It serves on 127.0.0.1 (docs/studio.md) and prints its address; Ctrl-C stops it and
the runs it started, whose journals keep every finished case.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import signal
import sys
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import EXIT_OK
from evaldsl.errors import UsageError
from evaldsl.i18n import _

DEFAULT_PORT = 8765
DEFAULT_SPEC = Path("untitled.eval")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "studio", help=_("open a spec in the studio, a web page to edit, run and read it"),
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("spec", type=Path, nargs="?", default=DEFAULT_SPEC, metavar="SPEC",
                        help=_("the spec to edit (created on first save)"))
    parser.add_argument("--host", default="127.0.0.1",
                        help=_("a loopback address to listen on (default 127.0.0.1)"))
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=_("the port (0: any free one)"))
    parser.add_argument("--folder", type=Path, default=None,
                        help=_("where runs keep their files (default .evaldsl-studio beside "
                               "the spec)"))
    parser.add_argument("--review", type=Path, default=None, metavar="STORE",
                        help=_("a review store (.db) to label at /review/"))


def run(args: argparse.Namespace) -> int:
    if not _loopback(args.host):
        raise UsageError(_("the studio listens on this machine only, not on `{host}`").format(
            host=args.host), _("use --host 127.0.0.1 (the default) or ::1"))
    if args.spec.exists() and not args.spec.is_file():
        raise UsageError(_("`{path}` is not a file").format(path=args.spec))
    if args.review is not None and not args.review.is_file():
        raise UsageError(_("no review store `{path}`").format(path=args.review),
                         _("make one with `evaldsl review serve RESULTS --spec SPEC`"))
    asyncio.run(_serve(args.spec, args.host, args.port, args.folder, args.review))
    return EXIT_OK


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def _serve(spec: Path, host: str, port: int, folder: Path | None,
                 review: Path | None) -> None:
    from aiohttp import web

    from evaldsl.studio import make_app

    runner = web.AppRunner(make_app(spec, folder, review), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise UsageError(_("cannot listen on {host}:{port}: {error}").format(
            host=host, port=port, error=exc.strerror or exc),
            _("choose another port with --port, or 0 for any free one")) from exc
    bound = runner.addresses[0]
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    print(_("evaldsl studio: http://{host}:{port}/ (Ctrl-C stops it)").format(
        host=shown, port=bound[1]), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        if sys.platform != "win32":
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
