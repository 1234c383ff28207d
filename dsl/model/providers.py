"""The model providers: one registry, read by the settings, the runtime and the settings schema.

A provider is what `provider = "NAME"` in `[judge]` or `[embedder]` of `evaldsl.toml`
(or `EVALDSL_JUDGE=NAME`) names: a module with a `judge(endpoint)` and an
`embedder(endpoint)` that build its clients. It is registered by name with a loader that
imports that module only when it is used, so the registry costs nothing to read:

    @model_provider("openai")
    def _openai() -> Provider:
        from evaldsl.model.openai import provider
        return provider

Adding a provider is writing that module and registering it, here for a shipped one
(`evaldsl.model.openai.provider`, `evaldsl.model.local.provider`) or from any module that
is imported before the settings are read. The three places that once each listed the
providers read `provider_names()`: `Settings.load` refuses any other (`check_provider`),
the runtime builds its clients through `provider(name)` (`evaldsl.model.factory`), and the
settings schema offers exactly these names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from evaldsl.errors import ConfigError
from evaldsl.i18n import _

if TYPE_CHECKING:
    from evaldsl.model.endpoint import Endpoint
    from evaldsl.model.protocols import Embedder, Judge


class Provider(Protocol):
    """What a provider's module offers."""

    def judge(self, endpoint: Endpoint) -> tuple[Judge, Any]:
        """The judge the endpoint describes, and a server it started (None: none), which the
        runtime stops when it closes."""
        ...

    def embedder(self, endpoint: Endpoint) -> Embedder:
        """The embedder the endpoint describes."""
        ...


_LOADERS: dict[str, Callable[[], Provider]] = {}


def model_provider(name: str) -> Callable[[Callable[[], Provider]], Callable[[], Provider]]:
    """Register the decorated loader as the provider `name` (a later registration of the same
    name replaces the earlier one)."""

    def register(loader: Callable[[], Provider]) -> Callable[[], Provider]:
        _LOADERS[name] = loader
        return loader

    return register


def provider_names() -> tuple[str, ...]:
    """Every registered provider's name, in the order registered."""
    return tuple(_LOADERS)


def provider(name: str) -> Provider:
    """The provider `name`, its module imported now; a `ConfigError` for an unknown one."""
    loader = _LOADERS.get(name)
    if loader is None:
        raise ConfigError(_unknown(name, "provider"))
    return loader()


def check_provider(endpoint: Endpoint, name: str) -> Endpoint:
    """The endpoint, when its provider is registered; a `ConfigError` naming the endpoint
    (`judge`, `embedder`) and the providers otherwise."""
    if endpoint.provider not in _LOADERS:
        raise ConfigError(_unknown(endpoint.provider, name))
    return endpoint


def _unknown(given: str, name: str) -> str:
    names = provider_names()
    return _("{name}: provider must be {providers}, not `{provider}`").format(
        name=name, provider=given,
        providers=_(" or ").join(f"`{n}`" for n in names))


@model_provider("openai")
def _openai() -> Provider:
    """Any OpenAI-compatible server, through the official `openai` client."""
    from evaldsl.model.openai import provider as module

    return module


@model_provider("local")
def _local() -> Provider:
    """The shipped local models: the judge served on 127.0.0.1, embeddings in-process."""
    from evaldsl.model.local import provider as module

    return module
