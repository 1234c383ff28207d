"""Stopping the child processes the model layer starts (a local judge server)."""

from __future__ import annotations

import subprocess

GRACE = 5.0
"""Seconds a child gets to exit after SIGTERM before it is killed."""


def terminate(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after a grace period; always reaps the child."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=GRACE)
