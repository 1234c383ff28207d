"""Where sessions come from: followed JSONL files and `POST /sessions` on a local port.

A followed file is read from its start, then polled for what is appended (a
file that shrank was truncated or replaced, and is read again from its
start); a followed folder is every `*.jsonl` in it, new files included. A partial last
line (a writer in the middle of it) is left until its newline arrives. After
a restart the files are read again from the start and the monitor skips the
sessions its journal already holds. The HTTP endpoint takes one session per
JSON body, several as a JSON list or as JSON lines, and answers with the
alerts they fired; the answer also counts the sessions judged and
duplicated and names the bad rows (status 400 when every row was bad).
`GET /report` gives the windows as JSON and `GET /report.html` as the report page.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from evaldsl.cases.loading import RawRow
from evaldsl.report.finite import nulled
from evaldsl.report.html import render_html
from evaldsl.run.shards import ShardState
from evaldsl.watch.monitor import Monitor


class Follower:
    """Appended lines of one file or of every `*.jsonl` in a folder, as rows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offsets: dict[Path, tuple[int, int]] = {}
        """File -> (bytes consumed, lines consumed)."""

    def files(self) -> list[Path]:
        if self.path.is_dir():
            return sorted(self.path.glob("*.jsonl"))
        return [self.path] if self.path.exists() else []

    def poll(self) -> list[RawRow]:
        """Every complete line appended since the last poll."""
        rows: list[RawRow] = []
        for file in self.files():
            offset, line = self._offsets.get(file, (0, 0))
            try:
                if file.stat().st_size < offset:  # truncated or replaced: read it anew
                    offset, line = 0, 0
                with file.open("rb") as handle:
                    handle.seek(offset)
                    data = handle.read()
            except FileNotFoundError:  # removed since it was listed: nothing to read
                continue
            end = data.rfind(b"\n") + 1
            for raw in data[:end].splitlines(keepends=True):
                line += 1
                rows.append(RawRow(str(file), line, raw))
            self._offsets[file] = (offset + end, line)
        return rows


async def follow(monitor: Monitor, follower: Follower, interval_s: float = 0.1,
                 stop: asyncio.Event | None = None) -> None:
    """Judge appended rows until `stop` is set (forever without one)."""
    while stop is None or not stop.is_set():
        for row in follower.poll():
            await monitor.ingest(row, time.time())
        await asyncio.to_thread(monitor.journal.sync)
        await asyncio.sleep(interval_s)


def http_app(monitor: Monitor) -> Any:
    """The aiohttp application: `POST /sessions`, `GET /report`, `GET /report.html`."""
    from aiohttp import web

    from evaldsl.webguard import Guard

    posted = 0

    async def sessions(request: web.Request) -> web.Response:
        nonlocal posted
        rows = posted_rows(await request.read(), posted)
        posted += len(rows)
        before = (len(monitor.processed), monitor.duplicates, monitor.bad_rows)
        alerts: list[dict[str, Any]] = []
        for row in rows:
            alerts += await monitor.ingest(row, time.time())
        await asyncio.to_thread(monitor.journal.sync)  # acknowledged means on the disk
        bad = monitor.bad_rows - before[2]
        answer = {"judged": len(monitor.processed) - before[0],
                  "duplicates": monitor.duplicates - before[1],
                  "bad_rows": list(monitor.bad_examples)[-bad:] if bad else [],
                  "alerts": alerts}
        status = 400 if bad and bad == len(rows) else 200
        return web.json_response(answer, status=status, dumps=_dumps)

    async def report(request: web.Request) -> web.Response:
        return web.json_response(monitor.report(), dumps=_dumps)

    async def report_html(request: web.Request) -> web.Response:
        windows = monitor.report()["windows"]
        empty = ShardState.empty(monitor.spec, monitor.spec.layout)
        page = render_html(windows[0]["report"] if windows else empty.report_dict())
        return web.Response(text=page, content_type="text/html")

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.middlewares.append(Guard().middleware())  # its own host, JSON, no other site
    app.add_routes([web.post("/sessions", sessions), web.get("/report", report),
                    web.get("/report.html", report_html)])
    return app


def posted_rows(body: bytes, before: int) -> list[RawRow]:
    """A POST body as rows: one JSON session, a JSON list of them, or JSON lines; rows are
    numbered across the process's requests (`POST /sessions:17`)."""
    try:
        whole = json.loads(body)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        items: list[Any] = [whole]
    elif isinstance(whole, list):
        items = whole
    else:
        items = body.splitlines() or [b""]
    return [RawRow("POST /sessions", before + k, item) for k, item in enumerate(items, 1)]


def _dumps(value: Any) -> str:
    return json.dumps(nulled(value), ensure_ascii=False, allow_nan=False, default=str)
