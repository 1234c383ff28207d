"""The JSON Schema of `evaldsl.toml`, built from the tables its readers check against.

Editors validate and complete a TOML file from a JSON Schema (Taplo, Even Better TOML,
tombi); docs/settings.schema.json is this module's output, regenerated with
`python -m evaldsl.settings_schema docs/settings.schema.json` and compared with it
by a test. The schema is not a second definition of the file: the endpoint settings are
`Endpoint`'s fields (with their types, defaults and attribute docstrings) less what the
file may not hold, and the target settings are `evaldsl.agents.config`'s own tables of
what each kind accepts, so a setting added to a reader appears here without an edit.
"""

from __future__ import annotations

import sys
import typing
from dataclasses import MISSING, fields
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from evaldsl import schema_file
from evaldsl.agents.config import _BY_KIND, _COMMON, KINDS, TargetConfig
from evaldsl.model.providers import provider_names
from evaldsl.model.settings import ENDPOINT_FIELDS, Endpoint
from evaldsl.primitives.fielddocs import class_docstrings

SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"
_FORBID = ConfigDict(extra="forbid")
_OWN_DOCS = {
    "api_key_env": "The environment variable holding the key (its name ends in `_API_KEY` "
                   "or `_TOKEN`); a key itself is never read from the file.",
    "enabled": "Whether model answers are cached on disk and reused across runs.",
    "dir": "Where the answer cache lives (default `$XDG_CACHE_HOME/evaldsl`).",
}


def settings_schema() -> dict[str, Any]:
    """The schema of the whole file, as docs/settings.schema.json holds it."""
    endpoint = _endpoint_table()
    cache = create_model("cache", __config__=_FORBID,
                         enabled=(bool, Field(True, description=_OWN_DOCS["enabled"])),
                         dir=(str, Field(None, description=_OWN_DOCS["dir"])))
    targets = [_target_table(kind) for kind in KINDS]
    target: Any = typing.Annotated[typing.Union[tuple(targets)],  # noqa: UP007
                                   Field(discriminator="kind")]
    providers: Any = Literal[provider_names()]
    chosen: Any = (providers | endpoint, None)
    file = create_model(
        "evaldsl.toml", __config__=_FORBID, judge=chosen, embedder=chosen,
        cache=(cache, None), targets=(dict[str, target], None))
    schema: dict[str, Any] = _without_null_defaults(file.model_json_schema())
    schema["$schema"] = SCHEMA_URI
    schema["description"] = ("evaldsl's settings file (docs/models.md, docs/targets.md): "
                             "which judge and embedder, the answer cache, agents under test")
    return schema


def _endpoint_table() -> type[BaseModel]:
    """`[judge]` and `[embedder]`: every `Endpoint` field the file may set."""
    hints = typing.get_type_hints(Endpoint)
    docs = class_docstrings(Endpoint)
    spec: dict[str, Any] = {}
    for item in fields(Endpoint):
        if item.name not in ENDPOINT_FIELDS or item.name == "api_key":
            continue
        kind = (Literal[provider_names()] if item.name == "provider"
                else _present(hints[item.name]))
        default = None if item.default is MISSING else item.default
        spec[item.name] = (kind, Field(default, description=_docs(docs, item.name)))
    spec["api_key_env"] = (str, Field(None, description=_OWN_DOCS["api_key_env"]))
    return create_model("endpoint", __config__=_FORBID, **spec)


def _target_table(kind: str) -> type[BaseModel]:
    """One kind of `[targets.NAME]`, with the settings `target_of` accepts for it."""
    docs = class_docstrings(TargetConfig)
    spec: dict[str, Any] = {"kind": (Literal[kind], ...)}
    for name, wanted in {**_COMMON, **_BY_KIND[kind]}.items():
        if name != "kind":
            spec[name] = (_json_type(wanted), Field(None, description=_docs(docs, name)))
    return create_model(f"{kind}_target", __config__=_FORBID, **spec)


def _present(hint: Any) -> Any:
    """`X | None` as `X`: TOML has no null, a setting left unset is simply not written."""
    kept = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return kept[0] if len(kept) == 1 else hint


def _json_type(wanted: Any) -> Any:
    """The reader's check as a type: a number may be written as an integer, never negative."""
    if wanted is float:
        return typing.Annotated[float, Field(ge=0)]
    if wanted is int:
        return typing.Annotated[int, Field(ge=0)]
    containers: dict[Any, Any] = {list: list[Any], dict: dict[str, Any]}
    return containers.get(wanted, wanted)


def _without_null_defaults(node: Any) -> Any:
    """The schema without `"default": null`: an unset setting has no value to show."""
    if isinstance(node, dict):
        return {key: _without_null_defaults(value) for key, value in node.items()
                if not (key == "default" and value is None)}
    if isinstance(node, list):
        return [_without_null_defaults(value) for value in node]
    return node


def _docs(docs: dict[str, str], name: str) -> str | None:
    return docs.get(name) or None


def rendered() -> str:
    """The schema as the shipped file spells it."""
    return schema_file.rendered(settings_schema())


def main(argv: list[str] | None = None) -> int:
    return schema_file.main(argv, describes="evaldsl.toml", text=rendered())


if __name__ == "__main__":
    sys.exit(main())
