"""The registry of primitives: what a `check` may call.

A primitive is data: a params model (pydantic, `extra="forbid"`), the scopes
it accepts, its result fields, its cost class and a factory that turns
validated params into an evaluator. The checker lints arguments from the
params model, `evaldsl explain` and the docs read the same entries, and the
interpreter calls the factory. Third parties add primitives through the
`evaldsl.primitives` entry-point group: each entry point names a module whose
import registers its primitives with `@primitive`.

    @primitive("keyword", params=KeywordParams, scopes=REPLY_SCOPES,
               default_scope="last_reply", fields={"missing": ValueType.LIST})
    def keyword(params: KeywordParams) -> Evaluate:
        ...
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Protocol

from pydantic import BaseModel, ValidationInfo

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope
from evaldsl.primitives.plugins import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from evaldsl.primitives.plugins import load_plugins
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.values import CheckResult


class Cost(enum.IntEnum):
    """How expensive a check is; the interpreter evaluates cheaper ones first."""

    FREE = 0
    """Pure computation on the case, microseconds."""
    CHEAP = 1
    """Local but heavier (JSON Schema validation, in-process embeddings)."""
    MODEL = 2
    """A call to a model server."""


class Evaluate(Protocol):
    """A deterministic primitive's evaluator for one case."""

    def __call__(self, case: Case, scope: Scope) -> CheckResult: ...


Factory = Callable[[Any], Any]
"""params -> `Evaluate` (FREE/CHEAP) or a model check (MODEL, see evaldsl.model)."""


BASE_RESULT_FIELDS: Mapping[str, ValueType] = {
    "passed": ValueType.BOOL,
    "score": ValueType.NUMBER,
    "value": ValueType.ANY,
}


@dataclass(frozen=True)
class Primitive:
    name: str
    params: type[BaseModel]
    factory: Factory
    scopes: frozenset[str]
    """Scope kinds the primitive accepts; empty when it reads the whole case."""
    default_scope: str | None
    fields: Mapping[str, ValueType]
    """Result fields beyond `passed`, `score` and `value`."""
    cost: Cost
    doc: str
    value_type: ValueType = ValueType.NUMBER
    """The type of `.value` (judge points, milliseconds, cosine, ...)."""
    value_range: Callable[[Any], tuple[float, float] | None] = field(default=lambda p: None)
    """The range `.value` can take under given params, for threshold lints."""
    dynamic: frozenset[str] = frozenset()
    """Parameters that may be per-case expressions (`expect: case.intent`)."""
    pin: Callable[[Any, dict[str, Any]], CheckResult] | None = None
    """Builds a full result from pinned fields (`given polite = 8`) in examples."""
    reads_text: bool = True
    """Whether the check reads the text of messages; one that reads only latencies or tool
    calls still judges a trace whose text was not recorded."""

    def validate_per_case(self, values: Mapping[str, Any],
                          from_case: Iterable[str]) -> BaseModel:
        """The params for one case, whose `from_case` arguments were read from it."""
        return self.params.model_validate(values, context={_FROM_CASE: frozenset(from_case)})

    def result_fields(self) -> dict[str, ValueType]:
        out = dict(BASE_RESULT_FIELDS)
        out["value"] = self.value_type
        out.update(self.fields)
        return out


_FROM_CASE = "evaldsl.from_case"


def from_case(info: ValidationInfo) -> frozenset[str]:
    """In a params model's validator: the arguments whose values came from the case
    being judged (none at check time, and none for a spec's literals). A validator may
    be lenient there, where one literal serves cases of different shapes, and strict
    where a literal beside it can only be a typo."""
    context = info.context if isinstance(info.context, dict) else {}
    return frozenset(context.get(_FROM_CASE, ()))


class Registry:
    """Primitives by name. `default_registry()` holds the standard library and the plugins;
    `Registry.standard()` starts a registry of one's own from the standard library."""

    def __init__(self) -> None:
        self._primitives: dict[str, Primitive] = {}
        self._deferred: dict[str, str] = {}
        """Name -> the module whose import registers it (with `@primitive`), not yet imported."""
        self._lock = threading.Lock()

    @classmethod
    def standard(cls) -> Registry:
        """A new registry holding the standard library (no plugins), for an engine that adds
        its own primitives with `@primitive(..., registry=...)` or `add`.

        Each stdlib family is imported the first time one of its primitives is looked up,
        as in the default registry.
        """
        from evaldsl.stdlib import FAMILIES

        registry = cls()
        for module, names in FAMILIES.items():
            registry.defer(names, module)
        return registry

    def is_deferred(self, name: str) -> bool:
        """Whether `name` waits for its module's import to be registered."""
        return name in self._deferred

    def add(self, primitive: Primitive) -> Primitive:
        with self._lock:
            self._primitives[primitive.name] = primitive
            self._deferred.pop(primitive.name, None)
        return primitive

    def defer(self, names: Iterable[str], module: str) -> None:
        """Hold `names` as primitives of `module`, imported the first time one is looked up.

        A name already registered keeps its entry.
        """
        with self._lock:
            for name in names:
                if name not in self._primitives:
                    self._deferred[name] = module

    def get(self, name: str) -> Primitive | None:
        found = self._primitives.get(name)
        if found is None and name in self._deferred:
            self._import(self._deferred[name])
            found = self._primitives.get(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._primitives or name in self._deferred

    def __iter__(self) -> Iterator[Primitive]:
        for module in set(self._deferred.values()):
            self._import(module)
        return iter(sorted(self._primitives.values(), key=lambda p: p.name))

    def names(self) -> list[str]:
        return sorted({*self._primitives, *self._deferred})

    def _import(self, module: str) -> None:
        """Import `module` and take the primitives it registered that are deferred to it."""
        import_module(module)
        with self._lock:
            for name in [n for n, m in self._deferred.items() if m == module]:
                registered = _STAGING.get(name)
                if registered is None:
                    raise LookupError(f"importing `{module}` did not register `{name}`")
                self._primitives[name] = registered
                del self._deferred[name]


_STAGING = Registry()
"""Where `@primitive` registers on import; `default_registry` copies it."""


def primitive(
    name: str,
    *,
    params: type[BaseModel],
    scopes: frozenset[str] | set[str] = frozenset(),
    default_scope: str | None = None,
    fields: Mapping[str, ValueType] | None = None,
    cost: Cost = Cost.FREE,
    value_type: ValueType = ValueType.NUMBER,
    value_range: Callable[[Any], tuple[float, float] | None] | None = None,
    dynamic: frozenset[str] | set[str] = frozenset(),
    pin: Callable[[Any, dict[str, Any]], CheckResult] | None = None,
    registry: Registry | None = None,
    reads_text: bool = True,
) -> Callable[[Factory], Factory]:
    """Register the decorated factory as primitive `name`; see the module docstring.

    Without `registry`, the primitive joins the default registry, whether it is
    built yet or not (a plugin imported by discovery, or code that registers
    after the first `load`); with one, it joins that registry only.
    """

    def register(factory: Factory) -> Factory:
        entry = Primitive(
            name=name,
            params=params,
            factory=factory,
            scopes=frozenset(scopes),
            default_scope=default_scope,
            fields=dict(fields or {}),
            cost=cost,
            doc=(factory.__doc__ or "").strip(),
            value_type=value_type,
            value_range=value_range or (lambda p: None),
            dynamic=frozenset(dynamic),
            pin=pin,
            reads_text=reads_text,
        )
        if registry is not None:
            registry.add(entry)
        else:
            _stage(entry)
        return factory

    return register


def _stage(entry: Primitive) -> None:
    """Register on import, and into the default registry when it is built already.

    A stdlib family imported on first use is deferred in the default registry,
    which takes the entry from the staging registry itself.
    """
    _STAGING.add(entry)
    built = _default
    if built is not None and not built.is_deferred(entry.name):
        built.add(entry)


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The standard library plus every installed `evaldsl.primitives` entry point."""
    global _default
    with _default_lock:
        if _default is None:
            load_plugins()
            registry = Registry.standard()
            for p in _STAGING:
                registry.add(p)
            _default = registry
        return _default
