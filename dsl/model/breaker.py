"""When to stop asking a server: a circuit breaker, and the run's deadline.

A judge that accepts connections and never answers would cost every case its
full retry budget. So one `Gate` per endpoint counts transport failures
(timeouts, refused or lost connections, 5xx) in a row: after `threshold`
identical ones the server is taken for down and every later request fails at
once, as a `NotAsked` error naming the reason, for the rest of the run. Any
answer from the server, even a refusal or a malformed one, resets the count:
it is alive. A 429 neither counts nor resets (the server is pushing back, and
the retry loop waits for it). A deadline (a `time.time()` value, so worker
processes share it) stops asking the same way, and cuts short a request in
flight when it passes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable
from typing import TypeVar

from evaldsl.i18n import N_, _
from evaldsl.model.errors import ModelError, NotAsked, RateLimited, TransientError

T = TypeVar("T")
DEFAULT_THRESHOLD = 5
"""Identical transport failures in a row that open the breaker (0 never opens it)."""
EMBEDDER = N_("embedding model")
"""The embedder's `Gate.what`: its breaker's message names the embedding model, not the judge."""


class Gate:
    """One endpoint's breaker and the run's deadline; safe to share across threads."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD, deadline: float | None = None,
                 what: str = N_("judge"),
                 unsent: str = N_("the remaining model checks were not asked")) -> None:
        self.threshold = threshold
        self.deadline = deadline
        self.what = what
        """An `N_` word for the server, translated when a message is made."""
        self.unsent = unsent
        """What is left undone once the breaker opens (`N_`): model checks, or turns to an
        agent under test."""
        self._lock = threading.Lock()
        self._streak = 0
        self._last = ""
        self.stopped: str | None = None
        """Why asking stopped (the breaker's reason or the deadline), once it has."""

    def check(self) -> None:
        """Raise `NotAsked` when no request may be sent any more."""
        if self.stopped is None and self.deadline is not None and time.time() >= self.deadline:
            self._stop(_("deadline passed"))
        if self.stopped is not None:
            raise NotAsked(self.stopped)

    async def send(self, call: Awaitable[T]) -> T:
        """`call`, counted for the breaker and cut short by the deadline."""
        try:
            result = await self._bounded(call)
        except RateLimited:
            raise
        except TransientError as error:
            self._failed(error)
            raise
        except ModelError:
            self._answered()
            raise
        self._answered()
        return result

    async def _bounded(self, call: Awaitable[T]) -> T:
        if self.deadline is None:
            return await call
        try:
            return await asyncio.wait_for(call, max(0.0, self.deadline - time.time()))
        except TimeoutError:
            self._stop(_("deadline passed"))
            raise NotAsked(_("deadline passed")) from None

    def _failed(self, error: TransientError) -> None:
        reason = str(error)
        with self._lock:
            self._streak = self._streak + 1 if reason == self._last else 1
            self._last = reason
            tripped = self.threshold > 0 and self._streak >= self.threshold
        if tripped:
            self._stop(_("the {what} did not answer {count} times in a row: {reason}; "
                         "{unsent}").format(what=_(self.what), count=self.threshold,
                                            reason=reason, unsent=_(self.unsent)))

    def _answered(self) -> None:
        with self._lock:
            self._streak = 0
            self._last = ""

    def _stop(self, reason: str) -> None:
        with self._lock:
            if self.stopped is None:
                self.stopped = reason
