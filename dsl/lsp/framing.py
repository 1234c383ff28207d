"""The language server's messages read off stdin, even when a `Content-Length` is wrong.

LSP frames each JSON body with a `Content-Length` header. A reader that trusts it blindly
hangs on a length too long (it waits for bytes the editor never sends) and loses every
later message after a length too short. This reader trusts it only while it holds:

- a body of the declared length that is JSON is the message (the usual case, one read);
- a length too long: the body is the JSON value the bytes so far hold, once the next
  header follows it or the editor has sent nothing more for `STALL_S`;
- a length too short: the body is the JSON value completed by the bytes after it;
- a header that is not `Name: value`, a missing, negative or absurd length, or bytes that
  never make JSON: `FramingError`, which the server reports and exits on.
"""

from __future__ import annotations

import json
import os
import select

from evaldsl.errors import FramingError
from evaldsl.i18n import _

STALL_S = 0.5
"""Silence, in seconds, after which a short body is read as all the editor will send."""
GIVE_UP_S = 30.0
"""Silence, in seconds, in the middle of a body that is not JSON, before giving up."""
MAX_BODY = 1 << 30
"""The longest body taken (1 GiB): a longer declared length is a broken header."""
CHUNK = 1 << 20
NEXT_HEADER = b"Content-Length:"


class Framing:
    """Messages from a file descriptor, one `message()` call each; `None` at end of input."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""
        self.ended = False

    def message(self) -> bytes | None:
        """The next message's JSON body, or None when the input has ended."""
        length = self._headers()
        if length is None:
            return None
        silent = 0.0
        while len(self.pending) < length:
            if self.ended:
                return self._salvage(cut=True)
            if not self._more(STALL_S):
                silent += STALL_S
                found = self._complete_value(STALL_S <= silent)
                if found is not None:  # the length said more than the editor sent
                    return found
                if silent >= GIVE_UP_S:
                    raise FramingError(_("a message body stopped short of its Content-Length "
                                         "and is not JSON"))
            elif NEXT_HEADER in self.pending:
                found = self._complete_value(False)
                if found is not None:
                    return found
        body = self.pending[:length]
        if _is_json(body):
            self.pending = self.pending[length:]
            return body
        return self._salvage(cut=False)  # the length said less than the body holds

    def _salvage(self, cut: bool) -> bytes:
        """The JSON value at the start of the pending bytes, reading on until it completes."""
        silent = 0.0
        while True:
            found = self._complete_value(True)
            if found is not None:
                return found
            if self.ended or silent >= GIVE_UP_S:
                raise FramingError(_("a message body is not JSON: its Content-Length is wrong "
                                     "or the body is damaged"))
            if self._more(STALL_S):
                silent = 0.0
            else:
                silent += STALL_S

    def _headers(self) -> int | None:
        """The declared length of the next message, its header lines consumed."""
        length: int | None = None
        headers = 0
        while True:
            line = self._line()
            if line is None:
                return None
            if not line.strip():
                if length is not None:
                    return length
                if headers:
                    raise FramingError(_("a message has no Content-Length header"))
                continue  # blank lines between messages
            headers += 1
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep or not name.strip() or " " in name.strip():
                raise FramingError(_("`{line}` is not a message header").format(
                    line=line.decode("utf-8", "replace").strip()[:80]))
            if name.strip().lower() == "content-length":
                text = value.strip()
                if not text.isdigit() or int(text) > MAX_BODY:
                    raise FramingError(_("`Content-Length: {value}` is not a length up to "
                                         "{most} bytes").format(value=text[:40], most=MAX_BODY))
                length = int(text)

    def _line(self) -> bytes | None:
        """One header line without its line end; None at end of input."""
        while b"\n" not in self.pending:
            if self.ended:
                if self.pending.strip():
                    raise FramingError(_("the input ended inside a message header"))
                return None
            if len(self.pending) > CHUNK:
                raise FramingError(_("a message header is longer than {most} bytes").format(
                    most=CHUNK))
            self._more(None)
        line, _sep, self.pending = self.pending.partition(b"\n")
        return line.rstrip(b"\r")

    def _more(self, wait: float | None) -> bool:
        """Read what has arrived within `wait` seconds (forever with None); False if nothing."""
        ready, _w, _x = select.select([self.fd], [], [], wait)
        if not ready:
            return False
        chunk = os.read(self.fd, CHUNK)
        if not chunk:
            self.ended = True
            return False
        self.pending += chunk
        return True

    def _complete_value(self, at_end: bool) -> bytes | None:
        """The JSON value the pending bytes start with, when it is followed by the next
        header (or by nothing, when `at_end`); it and the space after it are consumed."""
        text = self.pending.decode("utf-8", "surrogateescape")
        start = len(text) - len(text.lstrip())
        try:
            _value, end = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            return None
        rest = text[end:].lstrip()
        if not (rest.startswith(NEXT_HEADER.decode()) or (at_end and not rest)):
            return None
        body = text[start:end].encode("utf-8", "surrogateescape")
        self.pending = rest.encode("utf-8", "surrogateescape")
        return body


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True
