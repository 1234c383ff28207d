"""The guard every local web app stands behind: `evaldsl studio`, `review serve`, `watch --port`.

A server on 127.0.0.1 is still reachable from any page the user's browser opens, so:

- every request must name this server as its host: an IP address, `localhost` or a name
  the server was told to answer to. A page of another site whose name was made to
  resolve to 127.0.0.1 (DNS rebinding) names its own host, and is refused with 403;
- every write (any method but GET and HEAD) is refused when the browser says it comes
  from another origin, and unless its body is JSON (`application/json`, or JSON lines as
  `application/x-ndjson`): a cross-site form or a `no-cors` fetch can send neither without
  a CORS preflight, which these servers never grant. A route may take one more type a
  browser cannot send without a preflight either (`watch`'s `POST /v1/traces` takes
  OTLP's `application/x-protobuf`); the form and text types never pass;
- a browser app's writes also carry its per-start token (`X-Evaldsl-Token`), written into
  the app's own pages only: a page of another site cannot read it, and a page of an earlier
  start holds a stale one.

An API client (curl, a script) sends no `Origin`, names the host it connects to, and posts
JSON: it passes unchanged.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Iterable, Mapping

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from evaldsl.i18n import _

TOKEN_HEADER = "X-Evaldsl-Token"
JSON_TYPES = frozenset({"application/json", "application/x-ndjson", "application/jsonl",
                        "application/x-jsonlines"})
READS = frozenset({"GET", "HEAD"})
SIMPLE_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data",
                          "text/plain"})
"""The body types a page of another site may post without a CORS preflight."""


class Guard:
    """The checks of one server: which host names it answers to besides IP addresses and
    `localhost`, and, for a browser app, the token of this start (`token`, None for an API)."""

    def __init__(self, hosts: Iterable[str] = (), *, browser: bool = False,
                 bodies: Mapping[str, str] | None = None) -> None:
        self.hosts = frozenset(h.strip("[]").lower() for h in hosts if h)
        self.token = secrets.token_urlsafe(24) if browser else None
        self.bodies = dict(bodies or {})
        """A path's one body type besides JSON; never one a page may send cross-site."""
        if SIMPLE_TYPES.intersection(self.bodies.values()):
            raise ValueError(f"a page of any site may post {sorted(SIMPLE_TYPES)}")

    def refusal(self, request: web.Request) -> web.HTTPException | None:
        """Why `request` is refused, as the answer to give, or None."""
        host = request.headers.get("Host")
        if host is not None and not self.own_host(host):
            return web.HTTPForbidden(text=_(
                "this server answers only to its own address, not to `{host}`").format(
                host=host_name(host)[:100]))
        if request.method in READS:
            return None
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{host}":
            return web.HTTPForbidden(text=_("requests from other sites are refused"))
        kind = request.content_type
        if kind not in JSON_TYPES and not kind.endswith("+json") and \
                self.bodies.get(request.path) != kind:
            return web.HTTPUnsupportedMediaType(text=_(
                "this server takes JSON bodies only (Content-Type: application/json)"))
        if self.token is not None and not secrets.compare_digest(
                request.headers.get(TOKEN_HEADER, "").encode(), self.token.encode()):
            return web.HTTPForbidden(text=_(
                "this page is from an earlier start of the server, or not its own: reload it"))
        return None

    def own_host(self, host: str) -> bool:
        """Whether a Host header names this server.

        >>> guard = Guard(["review.lan"])
        >>> [guard.own_host(h) for h in ("127.0.0.1:80", "[::1]:8", "localhost", "review.lan",
        ...                              "evil.example:80", "127.0.0.1.evil.example", "")]
        [True, True, True, True, False, False, False]
        """
        name = host_name(host).strip("[]").lower()
        if name == "localhost" or name in self.hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def middleware(self) -> Middleware:
        """The guard as an aiohttp middleware, checked before any handler runs."""
        @web.middleware
        async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
            refused = self.refusal(request)
            if refused is not None:
                raise refused
            return await handler(request)
        return guarded


def host_name(host: str) -> str:
    """The Host header without its port: `127.0.0.1:8765` -> `127.0.0.1`, `[::1]:80` -> `[::1]`.

    >>> host_name("127.0.0.1:8765"), host_name("[::1]:80"), host_name("localhost")
    ('127.0.0.1', '[::1]', 'localhost')
    """
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host
