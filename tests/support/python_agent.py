"""Agents as Python callables, for the `python` target kind's tests."""

from __future__ import annotations

import asyncio
from typing import Any


def echo(history: list[dict[str, Any]]) -> str:
    """Repeats the user's last turn, numbered; a turn saying `BOOM` raises."""
    message = str(history[-1]["content"])
    if "BOOM" in message:
        raise RuntimeError("the engine broke")
    turn = sum(m["role"] == "user" for m in history)
    return f"<turn {turn}> {message}"


async def echo_async(history: list[dict[str, Any]]) -> dict[str, Any]:
    """The same as `echo`, as a coroutine answering an assistant message."""
    await asyncio.sleep(0.01)
    return {"content": echo(history)}
