"""A child run that dies with its parent, even after the parent's `kill -9`.

The parent (the studio) starts `evaldsl run` with its own pid in `EVALDSL_PARENT_PID`
(`child_env`). The child, first thing (`follow_parent`), takes the variable out of its
environment, so its own children do not inherit it, and asks Linux for SIGTERM when
its parent ends (`prctl(PR_SET_PDEATHSIG)`); elsewhere a thread watches its parent's pid.
A parent already gone by then ends the child at once. SIGTERM ends the run as the
studio's own stop does: it calls the judge no more, and its journal keeps every finished
case, so `--resume` goes on from there.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PARENT_ENV = "EVALDSL_PARENT_PID"
PR_SET_PDEATHSIG = 1
WATCH_S = 0.5


def child_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child that must end with this process."""
    return {**(os.environ if environ is None else environ), PARENT_ENV: str(os.getpid())}


def follow_parent() -> None:
    """End this process when the parent named in `EVALDSL_PARENT_PID` ends (no-op without)."""
    named = os.environ.pop(PARENT_ENV, "")
    if not named.isdigit():
        return
    parent = int(named)
    if not _death_signal():
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # gone before the request was in place
        os.kill(os.getpid(), signal.SIGTERM)


def _death_signal() -> bool:
    """SIGTERM to this process when its parent ends, asked of Linux; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os.kill(os.getpid(), signal.SIGTERM)
