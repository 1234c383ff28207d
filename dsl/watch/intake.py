"""Where sessions come in over HTTP: `POST /sessions` on a local port (followed files are
`evaldsl.watch.follow`).

The endpoint takes one session per JSON body, several as a JSON list or as
JSON lines, and answers with the alerts they fired; the answer counts this
request's sessions judged, duplicated and bad, and names its first bad rows
(status 400 when every row was bad). The body is parsed, and its rows decoded
and judged, in worker threads a chunk at a time, so one huge body holds up no
other request.
`GET /report` gives the windows as JSON and `GET /report.html` as the report page.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from typing import Any

from evaldsl.cases.loading import RawRow
from evaldsl.report.finite import nulled
from evaldsl.report.html import render_html
from evaldsl.run.shards import ShardState
from evaldsl.watch.monitor import Monitor

POSTED = "POST /sessions"
"""The file name of a posted row in messages (`POST /sessions:17`)."""


def http_app(monitor: Monitor, bodies: Mapping[str, str] | None = None) -> Any:
    """The aiohttp application: `POST /sessions`, `GET /report`, `GET /report.html`;
    `bodies` names a route's body type besides JSON, for the guard."""
    from aiohttp import web

    from evaldsl.webguard import Guard

    posted = 0

    async def sessions(request: web.Request) -> web.Response:
        nonlocal posted
        body = await request.read()
        whole = await asyncio.to_thread(_whole, body)  # a 16 MiB body is parsed off the loop
        count = len(whole) if whole is not None else _line_count(body)
        first, posted = posted, posted + count  # this request's row numbers, its own
        tally = await monitor.ingest_chunks(posted_chunks(body, whole, first))
        await asyncio.to_thread(monitor.journal.sync)  # acknowledged means on the disk
        answer = {"judged": tally.judged, "duplicates": tally.duplicates, "bad": tally.bad,
                  "bad_rows": tally.bad_named, "alerts": tally.alerts}
        status = 400 if tally.bad and tally.bad == tally.rows else 200
        return web.json_response(answer, status=status, dumps=_dumps)

    async def report(request: web.Request) -> web.Response:
        return web.json_response(monitor.report(), dumps=_dumps)

    async def report_html(request: web.Request) -> web.Response:
        windows = list(monitor.windows.current())
        state = windows[0][2] if windows else ShardState.empty(monitor.spec, monitor.spec.layout)
        page = render_html(state.report_doc())
        return web.Response(text=page, content_type="text/html")

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.middlewares.append(Guard(bodies=bodies).middleware())  # its host, JSON, no other site
    app.add_routes([web.post("/sessions", sessions), web.get("/report", report),
                    web.get("/report.html", report_html)])
    return app


CHUNK_ROWS = 2000
"""Rows decoded (and judged) per trip to a worker thread."""


def posted_chunks(body: bytes, whole: list[Any] | None, before: int,
                  size: int = CHUNK_ROWS) -> Iterator[list[RawRow]]:
    """The rows of a POST body, `size` at a time, numbered from `before + 1`: the items of
    `whole` (the body parsed as one JSON session or list) or else the body's lines, split a
    piece at a time so a body of millions of lines is never a list of millions."""
    if whole is not None:
        for start in range(0, len(whole), size):
            yield [RawRow(POSTED, before + start + k, item)
                   for k, item in enumerate(whole[start:start + size], 1)]
        return
    if not body:
        yield [RawRow(POSTED, before + 1, b"")]
        return
    number, at, piece = before, 0, 256 * size
    while at < len(body):
        end = body.find(b"\n", min(at + piece, len(body)) - 1)
        end = len(body) if end < 0 else end + 1
        lines = body[at:end].splitlines()
        for start in range(0, len(lines), size):
            yield [RawRow(POSTED, number + start + k, line)
                   for k, line in enumerate(lines[start:start + size], 1)]
        number, at = number + len(lines), end


def _whole(body: bytes) -> list[Any] | None:
    """The body as a list of items when it is one JSON session or a JSON list; None when it
    is JSON lines, or no JSON at all (then each line is a row and says what is wrong)."""
    try:
        whole = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(whole, dict):
        return [whole]
    return whole if isinstance(whole, list) else None


def _line_count(body: bytes) -> int:
    """How many rows `bytes.splitlines` makes of a body (one for an empty body), counted
    without building them."""
    if not body:
        return 1
    ends = body.count(b"\n") + body.count(b"\r") - body.count(b"\r\n")
    return ends + (0 if body.endswith((b"\n", b"\r")) else 1)


def _dumps(value: Any) -> str:
    return json.dumps(nulled(value), ensure_ascii=False, allow_nan=False, default=str)
