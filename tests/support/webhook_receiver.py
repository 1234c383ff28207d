"""A webhook receiver in its own process: records each POSTed JSON body, can refuse the first.

`python webhook_receiver.py --fail 2` answers 503 to the first two POSTs and
200 after; `GET /received` lists the bodies accepted, in order, and
`GET /attempts` counts every POST. With `--redirect 302` every POST is answered with that
redirect to `/landing`, which answers 200 to any method and is counted by `GET /landed`.
Prints `READY <port>` once listening on
127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import urllib.request
from typing import Any

from aiohttp import web


def app(fail: int, redirect: int = 0) -> web.Application:
    received: list[Any] = []
    attempts = 0
    landed = 0

    async def hook(request: web.Request) -> web.Response:
        nonlocal attempts
        attempts += 1
        if redirect:
            return web.Response(status=redirect, headers={"Location": "/landing"})
        if attempts <= fail:
            return web.Response(status=503, text="busy")
        received.append(await request.json())
        return web.Response(text="ok")

    async def listing(request: web.Request) -> web.Response:
        return web.json_response(received)

    async def count(request: web.Request) -> web.Response:
        return web.json_response(attempts)

    async def landing(request: web.Request) -> web.Response:
        nonlocal landed
        landed += 1
        return web.Response(text="ok")

    async def landings(request: web.Request) -> web.Response:
        return web.json_response(landed)

    application = web.Application()
    application.add_routes([web.post("/hook", hook), web.get("/received", listing),
                            web.get("/attempts", count), web.route("*", "/landing", landing),
                            web.get("/landed", landings)])
    return application


class Receiver:
    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.url = f"http://127.0.0.1:{port}/hook"
        self._base = f"http://127.0.0.1:{port}"

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self._base + path, timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start(fail: int = 0, timeout: float = 20.0, redirect: int = 0) -> Receiver:
    from tests.support.openai_server import spawn_ready

    return Receiver(*spawn_ready([sys.executable, __file__, "--fail", str(fail),
                                  "--redirect", str(redirect)],
                                 "the webhook receiver", timeout))


async def main(fail: int, redirect: int) -> None:
    runner = web.AppRunner(app(fail, redirect), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(f"READY {runner.addresses[0][1]}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail", type=int, default=0)
    parser.add_argument("--redirect", type=int, default=0)
    try:
        given = parser.parse_args()
        asyncio.run(main(given.fail, given.redirect))
    except KeyboardInterrupt:
        sys.exit(0)
