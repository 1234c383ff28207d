"""A field map: a team's own JSON dialog logs read as cases, without a conversion script.

A log line rarely looks like an OpenAI chat transcript. It keeps the dialog under
another key (`turns`, `log.events`), names the text `text` or `utterance`, and calls
the agent `system`, `bot` or `客服`. A field map says where each part is:

    # map.toml
    messages = "turns"                 # where the list of messages is (a dotted path)
    role = "role"                      # in each message: the speaker ...
    text = "text"                      # ... and the text
    roles = { system = "assistant", "客服" = "assistant", "用户" = "user" }
    id = "id"                          # the case id (a dotted path)
    latency_ms = "latency"             # optional, in each message
    tool_calls = "calls"               # optional, in each message (the chat format's calls)
    [fields]                           # optional: case fields read from other places
    tenant = "meta.tenant"

`evaldsl run SPEC LOG.jsonl --map map.toml` reads each row through it (an engine passes
it to `CaseSchema.of(spec, mapping=FieldMap.load(path))`, which every reader and worker
applies); everything the map does not name is kept, so a spec still reads
the row's other fields as `case.X`. A row the map cannot read (no list where
`messages` points) is a bad row naming the path, as any malformed row is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from evaldsl.errors import ConfigError
from evaldsl.i18n import _

KEYS = ("messages", "role", "text", "id", "roles", "latency_ms", "tool_calls", "fields")
"""Every key a field map may have; any other is a mistake said at once."""


class Unmapped(NamedTuple):
    """Why a row cannot be read through the map: the path and the reason."""

    field: str
    reason: str


@dataclass(frozen=True)
class FieldMap:
    """Where a log row keeps the parts of a case (see the module docstring)."""

    messages: str = "messages"
    role: str = "role"
    text: str = "content"
    id: str = "id"
    roles: Mapping[str, str] = field(default_factory=dict)
    latency_ms: str | None = None
    tool_calls: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any], where: str = "") -> FieldMap:
        """A map from its TOML table; an unknown key or a value of the wrong kind is a
        `ConfigError` naming `where`."""
        unknown = sorted(set(data) - set(KEYS))
        if unknown:
            raise ConfigError(_("{where}: unknown key `{key}` in the field map (keys: {keys})")
                              .format(where=where, key=unknown[0], keys=", ".join(KEYS)))
        for key in ("roles", "fields"):
            if not _is_text_map(data.get(key, {})):
                raise ConfigError(_("{where}: `{key}` in the field map must map names to "
                                    "texts").format(where=where, key=key))
        for key in ("messages", "role", "text", "id", "latency_ms", "tool_calls"):
            value = data.get(key)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(_("{where}: `{key}` in the field map must be a field name "
                                    "or a dotted path").format(where=where, key=key))
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> FieldMap:
        """The map in a TOML file: its top-level keys, or its `[map]` table."""
        import tomllib  # only a run given `--map` reads TOML

        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(_("cannot read the field map {path}: {reason}").format(
                path=path, reason=exc.strerror or exc)) from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(_("{path}: the field map is not valid TOML: {reason}").format(
                path=path, reason=exc)) from None
        table = data.get("map", data)
        return cls.of(table if isinstance(table, Mapping) else {}, str(path))

    def apply(self, row: Any) -> Any:
        """The row in the chat form `to_case` reads, or the `Unmapped` problem that stops it.

        A row that is not an object is passed on as it is: `to_case` says why it
        cannot be a case.
        """
        if not isinstance(row, Mapping):
            return row
        turns = lookup(row, self.messages)
        if not isinstance(turns, list):
            return Unmapped(self.messages, _("the field map says the messages are at "
                                               "`{path}`, but there is no list there").format(
                path=self.messages))
        out = dict(row)
        out["id"] = lookup(row, self.id)
        out["messages"] = [self._message(m) for m in turns]
        for name, path in self.fields.items():
            out[name] = lookup(row, path)
        return out

    def _message(self, turn: Any) -> Any:
        if not isinstance(turn, Mapping):
            return turn  # `to_case` names the message and says what it is
        role = turn.get(self.role)
        message: dict[str, Any] = {
            "role": self.roles.get(role, role) if isinstance(role, str) else role,
            "content": turn.get(self.text),
        }
        if self.latency_ms is not None and turn.get(self.latency_ms) is not None:
            message["latency_ms"] = turn.get(self.latency_ms)
        if self.tool_calls is not None and turn.get(self.tool_calls):
            message["tool_calls"] = turn.get(self.tool_calls)
        return message


def lookup(row: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (`meta.tenant`), None where any step is missing."""
    value: Any = row
    for step in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


def _is_text_map(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items())
