"""`evaldsl watch SPEC`: judge finished sessions as they arrive, fire the spec's alerts.

    evaldsl watch spec.eval --follow sessions/ --state watch-state --port 8765 \\
        --webhook http://127.0.0.1:9000/hook --alerts alerts.jsonl

Sessions come from `--follow` (a JSONL file or a folder of them, read from
the start and then as they grow) and from `POST /sessions` on `--host`
(127.0.0.1 unless told otherwise) and `--port`. The journal in `--state`
holds every judged session and fired alert, so the watch can be stopped in
any way and started again with the same `--state` (docs/watch.md).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import Any

from evaldsl.errors import ConfigError
from evaldsl.i18n import _


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("watch", help=_("judge sessions as they arrive and fire alerts"),
                              description=_("Judge each finished session as it arrives, keep "
                                            "windowed reports and fire the spec's alerts."))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("--follow", type=Path, action="append", default=[], metavar="FILE_OR_DIR",
                   help=_("a JSONL file, or a folder of them, to read sessions from as it grows"))
    p.add_argument("--state", type=Path, required=True, metavar="DIR",
                   help=_("the folder of the watch journal, kept across restarts"))
    p.add_argument("--host", default="127.0.0.1", help=_("the address to listen on"))
    p.add_argument("--port", type=int, default=None,
                   help=_("serve POST /sessions and GET /report on this port"))
    p.add_argument("--alerts", type=Path, default=None, metavar="FILE",
                   help=_("append fired alerts to this JSONL file"))
    p.add_argument("--webhook", action="append", default=[], metavar="URL",
                   help=_("POST each fired alert as JSON to this URL"))
    p.add_argument("--review", type=Path, default=None, metavar="STORE",
                   help=_("queue the sessions the review block draws, or an alert fires on, "
                          "in this review store (.db)"))
    p.add_argument("--quiet", action="store_true",
                   help=_("do not print fired alerts on standard output"))
    p.add_argument("--session-idle", type=_idle, default=180.0, metavar="DURATION",
                   help=_("judge a conversation posted to /v1/traces once no span of it has "
                          "come for this long (default: 3m)"))
    p.add_argument("--judge-sample", type=judge_sample, default=1.0, metavar="SHARE",
                   help=_("run model checks on this share of the sessions, drawn by a hash "
                          "of the session id (e.g. 10%%; default: all); deterministic "
                          "checks run on every session"))
    p.add_argument("--judge-budget", type=judge_budget, default=None, metavar="N/h",
                   help=_("model-judge at most N sessions per hour of arrival; beyond it a "
                          "session's model checks are skipped and counted (default: no limit)"))
    p.add_argument("--poll", type=float, default=0.1, metavar="SECONDS",
                   help=_("how often followed files are read for new lines"))


def run(args: argparse.Namespace) -> int:
    from evaldsl.api import load
    from evaldsl.watch.monitor import Monitor

    if not args.follow and args.port is None:
        raise ConfigError(_("nothing to watch: give --follow FILE_OR_DIR or --port N"))
    sinks = _sinks(args)
    spec = load(args.spec)
    review = _review(args.review, spec)
    from evaldsl.watch.sampling import JudgePolicy

    monitor = Monitor(spec, args.state, sinks, review,
                      JudgePolicy(args.judge_sample, args.judge_budget))
    try:
        asyncio.run(_serve(monitor, args))
    finally:
        monitor.close()
        if review is not None:
            review.close()
    return 0


def _idle(text: str) -> float:
    from evaldsl.cli.flags import parse_duration

    return parse_duration(text)


def judge_sample(text: str) -> float:
    """`10%` or `0.1`: the share of sessions model checks run on, above 0 and at most 1."""
    spelled = text.strip()
    try:
        share = float(spelled[:-1]) / 100 if spelled.endswith("%") else float(spelled)
    except ValueError:
        share = -1.0
    if not 0.0 < share <= 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(
            _("expected a share such as `10%` or `0.1` (above 0, at most 100%), got `{text}`")
            .format(text=text))
    return share


def judge_budget(text: str) -> int:
    """`100/h` or `100`: model-judged sessions per hour, a whole number of at least 0."""
    spelled = text.strip().lower().replace(" ", "")
    for unit in ("/hour", "/h"):
        spelled = spelled.removesuffix(unit)
    if not spelled.isascii() or not spelled.isdigit():
        raise argparse.ArgumentTypeError(
            _("expected model-judged sessions per hour such as `100/h`, got `{text}`")
            .format(text=text))
    return int(spelled)


def _review(path: Path | None, spec: Any) -> Any:
    """The review store's feed, or None: flagged sessions then stay in the journal only."""
    if path is None:
        return None
    from evaldsl.review.feed import StoreFeed
    from evaldsl.review.store import open_store

    return StoreFeed(open_store(path), spec)


def _sinks(args: argparse.Namespace) -> list[Any]:
    from evaldsl.watch.sinks import JsonlSink, StdoutSink, WebhookSink

    sinks: list[Any] = [] if args.quiet else [StdoutSink()]
    if args.alerts is not None:
        sinks.append(JsonlSink(args.alerts))
    sinks.extend(WebhookSink(_webhook_url(url)) for url in args.webhook)
    return sinks


def _webhook_url(url: str) -> str:
    """The URL when it can be posted to; a malformed one stops the start (exit 2) rather than
    fail at the first alert."""
    from urllib.parse import urlsplit

    from evaldsl.cli.exits import UsageError

    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        parts, port_ok = None, False
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
            or not port_ok:
        raise UsageError(_("--webhook `{url}` is not an http:// or https:// URL with a host")
                         .format(url=url), _("for example --webhook http://127.0.0.1:9000/hook"))
    return url


async def _serve(monitor: Any, args: argparse.Namespace) -> None:
    """Follow and serve until SIGTERM or SIGINT; the journal is on disk line by line, so
    stopping loses nothing."""
    from evaldsl.watch.follow import Follower, follow

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    tasks = [asyncio.create_task(follow(monitor, Follower(path), args.poll, stop))
             for path in args.follow]
    groups = _span_groups(monitor, args) if args.port is not None else None
    if groups is not None:
        from evaldsl.watch.spans import close_idle

        tasks.append(asyncio.create_task(close_idle(monitor, groups, stop)))
    runner = await _listen(monitor, args, groups) if args.port is not None else None
    try:
        await stop.wait()
        await asyncio.gather(*tasks)
    finally:
        if runner is not None:
            await runner.cleanup()
        if groups is not None:
            groups.close()


def _span_groups(monitor: Any, args: argparse.Namespace) -> Any:
    """The conversations of `POST /v1/traces`, their spool read again (docs/watch.md)."""
    from evaldsl.watch.spans import SpanGroups

    groups = SpanGroups(args.state / "spans.jsonl", args.session_idle)
    groups.load(set(monitor.processed))
    return groups


async def _listen(monitor: Any, args: argparse.Namespace, groups: Any = None) -> Any:
    from aiohttp import web

    from evaldsl.watch.intake import http_app

    app = http_app(monitor)
    if groups is not None:
        from evaldsl.watch.spans import add_route

        add_route(app, monitor, groups)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, args.host, args.port).start()
    port = runner.addresses[0][1]  # the port bound, which `--port 0` leaves to the system
    print(_("watching: http://{host}:{port}/report").format(host=args.host, port=port),
          file=sys.stderr, flush=True)
    return runner
