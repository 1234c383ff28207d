"""A webhook receiver that never finishes an answer, in its own process.

`python slow_receiver.py hang` reads each request and never answers;
`python slow_receiver.py trickle` answers one byte of a status line every
0.2 s, forever, so no single read ever waits long enough to time out. Both
count the requests they took (printed nowhere; the point is what the caller
sees). Prints `READY <port>` once listening on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

TRICKLE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Pad: " + b"a" * 100_000


async def handle(mode: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 ) -> None:
    try:
        await reader.readuntil(b"\r\n\r\n")
        if mode == "hang":
            await asyncio.sleep(3600)
        for byte in TRICKLE:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.2)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def main(mode: str) -> None:
    server = await asyncio.start_server(lambda r, w: handle(mode, r, w), "127.0.0.1", 0)
    print(f"READY {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class SlowReceiver:
    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.url = f"http://127.0.0.1:{port}/hook"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start(mode: str, timeout: float = 20.0) -> SlowReceiver:
    from tests.support.openai_server import spawn_ready

    return SlowReceiver(*spawn_ready([sys.executable, __file__, mode],
                                     f"the {mode} receiver", timeout))


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
    except KeyboardInterrupt:
        sys.exit(0)
