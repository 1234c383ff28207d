"""The progress bar of a run: cases done, rate and time left, on stderr, only on a terminal.

A bar in a log file or a CI transcript is noise, so with stderr not a
terminal there is none (unless forced), and rich is not even imported.
Updates are throttled to ten a second: redrawing per case would cost more
than evaluating a case.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

from evaldsl.i18n import _

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress

REFRESH_SECONDS = 0.1


class Progress:
    """A throttled rich progress bar, or nothing."""

    def __init__(self, enabled: bool | None, total: int | None, limit: int | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        if total is not None and limit is not None:
            total = min(total, limit)
        elif total is None:
            total = limit
        self.total = total
        self._pending = 0
        self._last = 0.0
        self._bar: RichProgress | None = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("[bold]judging"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(_("{task.fields[rate]} cases/s")),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(file=sys.stderr),
                transient=False,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("cases", total=self.total, rate="-")
            self._started = time.monotonic()
            self._done = 0
        return self

    def skip(self, count: int) -> None:
        """Count cases done before this process started (a resumed run), outside the rate."""
        if self._bar is not None and self._task is not None and count:
            self._bar.update(self._task, advance=count)

    def advance(self, count: int) -> None:
        if self._bar is None or count == 0:
            return
        self._pending += count
        now = time.monotonic()
        if now - self._last >= REFRESH_SECONDS:
            self._flush(now)

    def _flush(self, now: float) -> None:
        assert self._bar is not None and self._task is not None
        self._done += self._pending
        elapsed = max(now - self._started, 1e-9)
        self._bar.update(self._task, advance=self._pending, rate=f"{self._done / elapsed:,.0f}")
        self._pending = 0
        self._last = now

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._flush(time.monotonic())
            self._bar.__exit__(kind, exc, tb)
            self._bar = None
