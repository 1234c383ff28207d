"""Judges that stop answering, as real sockets on 127.0.0.1.

`SilentServer` accepts every connection and never says a word (a hung judge).
`Relay` forwards connections to a real server until `refuse()` closes its
listening socket, after which every new connection is refused (a judge that
went away mid-run). Both run in a daemon thread and stop what they started on
`close()`; use them as context managers.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class _Listener:
    """A listening socket on 127.0.0.1 and the thread that accepts on it."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.1)
        self.port = self._socket.getsockname()[1]
        self._stop = threading.Event()
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _address = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._open.append(conn)
            self.accepted(conn)

    def accepted(self, conn: socket.socket) -> None:
        """Keep the connection open and silent (a subclass may do more)."""

    def refuse(self) -> None:
        """Close the listening socket: from now on a connection is refused."""
        self._stop.set()
        self._socket.close()
        self._thread.join(timeout=5)

    def close(self) -> None:
        self.refuse()
        with self._lock:
            for conn in self._open:
                conn.close()
            self._open.clear()

    def __enter__(self) -> _Listener:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class SilentServer(_Listener):
    """Accepts connections and never answers them."""

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._open)


class Relay(_Listener):
    """Forwards each connection to `target_port` on 127.0.0.1, until `refuse()`."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        super().__init__()

    def accepted(self, conn: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
        upstream.settimeout(None)
        with self._lock:
            self._open.append(upstream)
        for a, b in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy bytes one way until either side closes."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
