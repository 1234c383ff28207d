"""An aiohttp app served on a free port of 127.0.0.1 for as long as a client coroutine talks
to it: the review page's tests drive its handlers over real HTTP this way."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import web

Client = Callable[[aiohttp.ClientSession, str], Awaitable[None]]
"""Talks to the app through a session, given its base URL (`http://127.0.0.1:PORT`)."""


def serve(app: web.Application, client: Client) -> None:
    """Serve `app` on a free port of 127.0.0.1 while `client` talks to it; then stop it."""
    async def main() -> None:
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
                await client(s, f"http://127.0.0.1:{port}")
        finally:
            await runner.cleanup()
    asyncio.run(main())
