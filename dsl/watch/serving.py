"""`Watch`: what `evaldsl watch` does, for an engine: follow files and serve HTTP until stopped.

    watch = Watch(Path("watch-state"), follow=(Path("sessions/"),), port=8765,
                  webhooks=("http://127.0.0.1:9000/hook",))
    watch.check()                                 # before the spec is read
    watch.serve(evaldsl.load("spec.eval"))        # until SIGTERM or SIGINT

Sessions come from the followed files (a JSONL file or a folder of them) and from
`POST /sessions` (and `POST /v1/traces`) on `host:port`; the journal in `state` holds every
judged session and fired alert, so a watch stopped in any way goes on where it was
(docs/watch.md). A review store's feed (`evaldsl.review.feed.StoreFeed`) is the caller's to
build and close.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaldsl.errors import ConfigError, OptionsError
from evaldsl.i18n import _


@dataclass(frozen=True)
class Watch:
    """Where sessions come from and where alerts go; each field is the `evaldsl watch` flag
    of the same name."""

    state: Path
    follow: Sequence[Path] = ()
    host: str = "127.0.0.1"
    port: int | None = None
    """None serves nothing; 0 lets the system choose (announced)."""
    alerts: Path | None = None
    """Fired alerts appended to this JSONL file."""
    webhooks: Sequence[str] = ()
    quiet: bool = False
    """No fired alert on stdout."""
    session_idle: float = 180.0
    poll: float = 0.1
    judge_sample: float = 1.0
    """The share of sessions whose model checks run, drawn by a hash of the session id."""
    judge_budget: int | None = None
    """Model-judged sessions per hour of arrival at most; None: no limit."""

    def check(self) -> None:
        """Something to watch, and every webhook a URL an alert can be posted to: refused at
        start, not at the first alert."""
        if not self.follow and self.port is None:
            raise ConfigError(_("nothing to watch: give --follow FILE_OR_DIR or --port N"))
        for url in self.webhooks:
            webhook_url(url)

    def sinks(self) -> list[Any]:
        """Where fired alerts go: stdout unless quiet, the alerts file, each webhook."""
        from evaldsl.watch.sinks import JsonlSink, StdoutSink, WebhookSink

        sinks: list[Any] = [] if self.quiet else [StdoutSink()]
        if self.alerts is not None:
            sinks.append(JsonlSink(self.alerts))
        sinks.extend(WebhookSink(webhook_url(url)) for url in self.webhooks)
        return sinks

    def serve(self, spec: Any, review: Any = None,
              announce: Callable[[str], None] | None = None) -> None:
        """Judge sessions until SIGTERM or SIGINT; `announce` gets the report's address once
        the port is bound."""
        from evaldsl.watch.judge_sample import JudgePolicy
        from evaldsl.watch.monitor import Monitor

        self.check()
        monitor = Monitor(spec, self.state, self.sinks(), review,
                          JudgePolicy(self.judge_sample, self.judge_budget))
        try:
            asyncio.run(self._serve(monitor, announce))
        finally:
            monitor.close()

    async def _serve(self, monitor: Any, announce: Callable[[str], None] | None) -> None:
        """Follow and serve until SIGTERM or SIGINT; the journal is on disk line by line, so
        stopping loses nothing."""
        from evaldsl.watch.follow import Follower, follow

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        tasks = [asyncio.create_task(follow(monitor, Follower(path), self.poll, stop))
                 for path in self.follow]
        groups = self._span_groups(monitor) if self.port is not None else None
        if groups is not None:
            from evaldsl.watch.spans import close_idle

            tasks.append(asyncio.create_task(close_idle(monitor, groups, stop)))
        runner = await self._listen(monitor, groups, announce) if self.port is not None else None
        try:
            await stop.wait()
            await asyncio.gather(*tasks)
        finally:
            if runner is not None:
                await runner.cleanup()
            if groups is not None:
                groups.close()

    def _span_groups(self, monitor: Any) -> Any:
        """The conversations of `POST /v1/traces`, their spool read again (docs/watch.md)."""
        from evaldsl.watch.spans import SpanGroups

        groups = SpanGroups(self.state / "spans.jsonl", self.session_idle)
        groups.load(set(monitor.processed))
        return groups

    async def _listen(self, monitor: Any, groups: Any,
                      announce: Callable[[str], None] | None) -> Any:
        from aiohttp import web

        from evaldsl.watch.intake import http_app
        from evaldsl.watch.spans import BODIES, add_route

        app = http_app(monitor, BODIES if groups is not None else None)
        if groups is not None:
            add_route(app, monitor, groups)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        port = runner.addresses[0][1]  # the port bound, which `port=0` leaves to the system
        if announce is not None:
            announce(_("watching: http://{host}:{port}/report").format(host=self.host,
                                                                      port=port))
        return runner


def webhook_url(url: str) -> str:
    """The URL when it can be posted to; a malformed one is an `OptionsError` (exit 2 at
    start) rather than a failure at the first alert."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        parts, port_ok = None, False
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
            or not port_ok:
        raise OptionsError(_("--webhook `{url}` is not an http:// or https:// URL with a host")
                           .format(url=url),
                           _("for example --webhook http://127.0.0.1:9000/hook"))
    return url
