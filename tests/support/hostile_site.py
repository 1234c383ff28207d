"""A hostile web page on another port of 127.0.0.1, and the forgeries it tries on a local app.

`hostile_page(target, path, body)` serves, on a port of its own, a page whose script
posts `body` to `target + path` every way a page of another site can without the
target's consent: a `no-cors` fetch as text/plain, a cross-origin fetch as JSON (which
needs a CORS preflight) and a `text/plain` form whose field spells the JSON. The page
sets `window.forged` to the list of attempts once each has finished. Raw HTTP with a
foreign `Host` header is `foreign_host`.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>cats</title></head><body>
<iframe name="sink" id="sink"></iframe>
<form id="form" method="POST" enctype="text/plain" target="sink" action="__URL__">
<input id="field" type="hidden">
</form>
<script>
const url = __URL_JSON__, body = __BODY_JSON__;
window.forged = null;
async function attempt(options) {
  try { const answer = await fetch(url, options); return "answered " + answer.type; }
  catch (e) { return "failed"; }
}
(async () => {
  const tried = [];
  tried.push(await attempt({method: "POST", mode: "no-cors", body: body,
                            headers: {"Content-Type": "text/plain"}}));
  tried.push(await attempt({method: "POST", body: body,
                            headers: {"Content-Type": "application/json"}}));
  const field = document.getElementById("field");
  field.name = body.slice(0, -1) + ', "x": "';
  field.value = '"}';
  const loaded = new Promise(done => document.getElementById("sink").onload = done);
  document.getElementById("form").submit();
  await Promise.race([loaded, new Promise(done => setTimeout(done, 5000))]);
  tried.push("form");
  window.forged = tried;
})();
</script></body></html>"""


@contextmanager
def hostile_page(target: str, path: str, body: dict[str, Any]) -> Iterator[str]:
    """The address of the hostile page (another port of 127.0.0.1) while it is served."""
    url = target.rstrip("/") + path
    text = (PAGE.replace("__URL_JSON__", json.dumps(url))
            .replace("__BODY_JSON__", json.dumps(json.dumps(body)))
            .replace("__URL__", url)).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/cats.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def foreign_host(url: str, method: str = "GET", body: bytes | None = None,
                 headers: dict[str, str] | None = None,
                 host: str = "attacker.example") -> tuple[int, str]:
    """(status, body) of a request to `url` whose Host header names another site, as a page
    whose name was made to resolve to 127.0.0.1 sends it."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request(method, target, body,
                           {"Host": f"{host}:{parts.port}", **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()
