"""The `python` target: an agent that is a Python callable, for engines and tests.

`callable = "package.module:function"`, or `entry_point = "NAME"` in the `evaldsl.targets`
entry-point group, names a function called with the conversation so far (a list of chat
messages, the user's turn last) and returning the reply: a text, an assistant message
(`{"content": ..., "tool_calls": [...]}`) or a list of messages ending with the reply. A
coroutine function is awaited; a plain one runs in a worker thread, so a slow agent does
not stop the other conversations. An exception it raises fails the conversation with the
exception's type and message.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

from evaldsl.agents.base import Conversation, Message
from evaldsl.agents.config import TargetConfig
from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.errors import PermanentError, TransientError

GROUP = "evaldsl.targets"


class PythonTarget:
    """A callable agent."""

    def __init__(self, config: TargetConfig) -> None:
        self.config = config
        self.function = load_callable(config)
        self.secrets: tuple[str, ...] = ()

    async def respond(self, conversation: Conversation) -> Sequence[Message]:
        history = [dict(m) for m in conversation.history]
        try:
            async with asyncio.timeout(self.config.timeout):
                if inspect.iscoroutinefunction(self.function):
                    answer = await self.function(history)
                else:
                    answer = await asyncio.to_thread(self.function, history)
        except TimeoutError as exc:
            raise TransientError(_("the agent did not answer within {timeout:g} s").format(
                timeout=self.config.timeout)) from exc
        except Exception as exc:
            raise PermanentError(_("the agent raised {kind}: {exc}").format(
                kind=type(exc).__name__, exc=exc)) from exc
        return messages_of(answer)

    async def aclose(self) -> None:
        return None


def messages_of(answer: Any) -> list[Message]:
    """The messages a callable's answer stands for; a wrong shape fails the conversation."""
    if isinstance(answer, str):
        return [{"role": "assistant", "content": answer}]
    if isinstance(answer, Mapping):
        return [{"role": "assistant", **answer}]
    if isinstance(answer, list) and answer and all(isinstance(m, Mapping) for m in answer):
        return [dict(m) for m in answer]
    raise PermanentError(_("the agent returned {kind}, not a text, a message or a list of "
                           "messages").format(kind=type(answer).__name__))


def load_callable(config: TargetConfig) -> Callable[..., Any]:
    """The function `callable` or `entry_point` names; a `ConfigError` when there is none."""
    name = config.get("callable")
    try:
        if name is None:
            found = [e for e in entry_points(group=GROUP) if e.name == config.get("entry_point")]
            if not found:
                raise LookupError(config.get("entry_point"))
            function = found[0].load()
        else:
            module, _sep, attribute = str(name).partition(":")
            function = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError, LookupError, ValueError) as exc:
        raise ConfigError(_("target `{name}`: cannot load `{what}`: {exc}").format(
            name=config.name, what=name or config.get("entry_point"), exc=exc)) from exc
    if not callable(function):
        raise ConfigError(_("target `{name}`: `{what}` is not callable").format(
            name=config.name, what=name))
    return function  # type: ignore[no-any-return]
