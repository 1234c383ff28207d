"""The editor's endpoints: the language service's answers as JSON.

The page sends the whole text with a version number on each query (a spec is a few
hundred lines; sending it is cheaper than keeping two copies in step), and the
service re-checks only when the version is new. Positions are the service's: 0-based
lines and UTF-16 code units, which is what JavaScript strings count, so the page
converts them without a table.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from aiohttp import web

from evaldsl.i18n import _
from evaldsl.service import LanguageService, Position, Range
from evaldsl.service.items import Problem
from evaldsl.studio.state import SERVICE_KEY, URI_KEY


def routes() -> list[web.RouteDef]:
    return [web.post("/api/check", check), web.post("/api/complete", complete),
            web.post("/api/hover", hover), web.post("/api/fixes", fixes),
            web.post("/api/format", format_text)]


async def _synced(request: web.Request) -> tuple[LanguageService, str, dict[str, Any]]:
    """The service holding the page's text at the version the page sent."""
    body = await read_json(request)
    text, version = body.get("text"), body.get("version")
    if not isinstance(text, str) or not isinstance(version, int):
        raise web.HTTPBadRequest(text=_("`text` (a string) and `version` (an integer) are "
                                       "needed"))
    service, uri = request.app[SERVICE_KEY], request.app[URI_KEY]
    service.change(uri, text, version)
    return service, uri, body


async def read_json(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError as exc:
        raise web.HTTPBadRequest(text=_("the body is not JSON")) from exc
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text=_("the body is not a JSON object"))
    return body


def _position(body: dict[str, Any], key: str = "position") -> Position:
    value = body.get(key)
    if not isinstance(value, dict) or not all(
            isinstance(value.get(k), int) and value[k] >= 0 for k in ("line", "character")):
        raise web.HTTPBadRequest(text=_("`{key}` must be {{line, character}}").format(key=key))
    return Position(value["line"], value["character"])


def _range(body: dict[str, Any]) -> Range:
    value = body.get("range")
    if not isinstance(value, dict):
        raise web.HTTPBadRequest(text=_("`range` must be {{start, end}}").format())
    return Range(_position(value, "start"), _position(value, "end"))


def problem_json(problem: Problem) -> dict[str, Any]:
    return asdict(problem)


async def check(request: web.Request) -> web.Response:
    service, uri, _body = await _synced(request)
    return web.json_response({"problems": [problem_json(p) for p in service.diagnostics(uri)]})


async def complete(request: web.Request) -> web.Response:
    service, uri, body = await _synced(request)
    items = service.completion(uri, _position(body))
    return web.json_response({"items": [asdict(item) for item in items]})


async def hover(request: web.Request) -> web.Response:
    service, uri, body = await _synced(request)
    found = service.hover(uri, _position(body))
    return web.json_response({"hover": asdict(found) if found is not None else None})


async def fixes(request: web.Request) -> web.Response:
    service, uri, body = await _synced(request)
    found = service.code_actions(uri, _range(body))
    return web.json_response({"fixes": [{"title": f.title, "edit": asdict(f.edit)}
                                        for f in found]})


async def format_text(request: web.Request) -> web.Response:
    service, uri, _body = await _synced(request)
    return web.json_response({"edits": [asdict(e) for e in service.formatting(uri)]})
