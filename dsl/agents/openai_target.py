"""The `openai` target: an OpenAI-compatible chat endpoint playing the agent.

Each user turn is sent with the configured system prompt and tool definitions; while the
model answers with tool calls, each call gets the scenario's canned result (a call with
none ends the conversation, naming it) and the model is asked again, at most `max_steps`
times a turn. The client is the judges' (`evaldsl.model.openai.judge`): the same transport,
the same translation of failures into model errors, and the same key rule: the key comes
only from the variable `api_key_env` names, and is cut out of anything the server says.

`base_url = "local"` makes the agent the local model (`evaldsl.model.local`), started by
evaldsl on the first turn and stopped at the end: a demo agent with no key (the built-in
`demo` target, `evaldsl.agents.demo`).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import openai

from evaldsl.agents.base import Conversation, Message
from evaldsl.agents.config import DEFAULT_MAX_STEPS, TargetConfig
from evaldsl.errors import ConfigError
from evaldsl.i18n import N_, _
from evaldsl.model.errors import MalformedAnswer, PermanentError
from evaldsl.model.keys import PLACEHOLDER_KEY
from evaldsl.model.loops import PerLoop
from evaldsl.model.openai.judge import PATH, async_http_client, encode, translate

if TYPE_CHECKING:
    from evaldsl.model.local.judge import LocalJudgeServer

LOCAL = "local"
"""The `base_url` that names the local model."""


class OpenAITarget:
    """An agent that is a chat model with tools, and canned results for the tools."""

    def __init__(self, config: TargetConfig, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.config = config
        variable = config.get("api_key_env")
        self.key = (env.get(variable) if variable else None) or PLACEHOLDER_KEY
        self.secrets: tuple[str, ...] = (self.key,)
        """What the driver cuts out of the agent's messages (`evaldsl.agents.secrets`)."""
        self.max_steps = int(config.get("max_steps", DEFAULT_MAX_STEPS))
        self._clients: PerLoop[openai.AsyncOpenAI] = PerLoop(self._client, _aclose)
        self.server = _local_server() if config.get("base_url") == LOCAL else None
        """The local model's server, when the agent is the local model."""

    def _base_url(self) -> str | None:
        if self.server is not None:
            return str(self.server.base_url)
        url = self.config.get("base_url")
        return None if url is None else str(url)

    def _client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(base_url=self._base_url(), api_key=self.key,
                                      timeout=self.config.timeout, max_retries=0,
                                      http_client=async_http_client())
        except openai.OpenAIError as exc:
            raise ConfigError(_("target `{name}`: {exc}").format(
                name=self.config.name, exc=exc)) from exc

    async def respond(self, conversation: Conversation) -> Sequence[Message]:
        added: list[Message] = []
        for _step in range(self.max_steps):
            message = await self._complete([*conversation.history, *added])
            added.append(message)
            calls = message.get("tool_calls") or []
            if not calls:
                return added
            for call in calls:
                function = call.get("function") or {}
                result = conversation.tool_results.result_for(
                    str(function.get("name", "")), function.get("arguments", "{}"))
                added.append({"role": "tool", "tool_call_id": call.get("id", ""),
                              "content": result})
        raise PermanentError(_("the agent made tool calls for {count} steps without "
                               "answering").format(count=self.max_steps))

    async def _complete(self, history: list[Message]) -> Message:
        if self.server is not None and not self.server.running:
            await asyncio.to_thread(self.server.start)
        client = await self._clients.get()
        try:
            text = await client.post(PATH, content=encode(self.body(history)), cast_to=str)
        except openai.OpenAIError as exc:
            raise translate(exc, N_("agent"), self.config.timeout, self.key,
                            self._base_url()) from exc
        return message_of(text)

    def body(self, history: list[Message]) -> dict[str, Any]:
        """The chat completion request for the conversation so far."""
        system = self.config.get("system")
        messages = ([{"role": "system", "content": system}] if system else []) + history
        body: dict[str, Any] = {"model": self.config.get("model"), "messages": messages}
        if self.config.get("tools"):
            body["tools"] = self.config.get("tools")
        if "temperature" in self.config.options:
            body["temperature"] = self.config.get("temperature")
        return body

    async def aclose(self) -> None:
        await self._clients.close_current()
        if self.server is not None:
            self.server.stop()


def message_of(text: str) -> Message:
    """The assistant message of a chat completion, only the fields a transcript keeps."""
    try:
        data = json.loads(text)
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise MalformedAnswer(_("the agent's answer is not a chat completion"), text) from exc
    out: Message = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {"id": c.get("id", ""), "type": "function",
             "function": {"name": c["function"]["name"],
                          "arguments": c["function"].get("arguments", "{}")}}
            for c in message["tool_calls"]]
    return out


def _local_server() -> LocalJudgeServer:
    """The local model's server (not started yet); a `ConfigError` without the extra."""
    from evaldsl.model.local.judge import LocalJudgeServer, require_local_extra

    require_local_extra()
    return LocalJudgeServer()


async def _aclose(client: openai.AsyncOpenAI) -> None:
    await client.close()
