"""A stand-in standard library with the signatures of LANGUAGE.md.

Checker tests must not depend on how the real primitives evaluate, only on
their declarations; this registry declares them the way the language
contract does, so the tests pin the checker's behaviour exactly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evaldsl.cases.scopes import ALL_SCOPES, REPLY_SCOPES
from evaldsl.primitives.registry import Cost, Primitive, Registry
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.primitives.valuetypes import ValueType


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


class Keyword(_Params):
    all: list[str] = []
    any: list[str] = []
    none: list[str] = []
    min_ratio: float = Field(1.0, ge=0, le=1, description="share of `all` that must appear")
    table: NormalizationTable | None = None


class Regex(_Params):
    pattern: str
    must_match: bool = True


class Latency(_Params):
    max_ms: float = Field(gt=0, description="the slowest acceptable reply in milliseconds")


class Length(_Params):
    min_chars: int = Field(0, ge=0)
    max_chars: int | None = Field(None, ge=1)


class Turns(_Params):
    max: int = Field(ge=1)


class JsonSchema(_Params):
    schema_: dict[str, Any] = Field(alias="schema")
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Judge(_Params):
    criteria: str = Field(min_length=1, description="what a good reply does, in plain words")
    scale: int = Field(10, ge=2, le=100)
    min: float | None = None


class Classify(_Params):
    labels: dict[str, str] | list[str]
    expect: str | None = None
    accept_partial: bool = False


class Slots(_Params):
    slots: dict[str, str]
    min: float = Field(1.0, ge=0, le=1)
    patterns: dict[str, str | list[str]] = {}


class Similarity(_Params):
    reference: str
    min: float = Field(0.9, ge=-1, le=1)


class ArgsMatch(_Params):
    expected: Any
    actual: Any = None
    tables: dict[str, NormalizationTable] = {}


class Trajectory(_Params):
    expected: list[Any]
    mode: Literal["strict", "unordered", "subset", "superset"] = "strict"


class Refusal(_Params):
    pass


def _add(registry: Registry, name: str, params: type[BaseModel], **extra: Any) -> None:
    registry.add(Primitive(
        name=name, params=params, factory=lambda p: None,
        scopes=frozenset(extra.pop("scopes", REPLY_SCOPES)),
        default_scope=extra.pop("default_scope", "last_reply"),
        fields=extra.pop("fields", {}), cost=extra.pop("cost", Cost.FREE), doc=name, **extra,
    ))


def stub_registry() -> Registry:
    """The LANGUAGE.md primitives, declared but not implemented."""
    r = Registry()
    _add(r, "keyword", Keyword, scopes=ALL_SCOPES, fields={"missing": ValueType.LIST})
    _add(r, "regex", Regex, scopes=ALL_SCOPES)
    _add(r, "latency", Latency, default_scope="each_reply")
    _add(r, "length", Length)
    _add(r, "turns", Turns, scopes=frozenset(), default_scope=None)
    _add(r, "json_schema", JsonSchema)
    _add(r, "judge", Judge, scopes=ALL_SCOPES, cost=Cost.MODEL,
         value_range=lambda p: (0.0, float(p.scale)))
    _add(r, "classify", Classify, scopes=ALL_SCOPES, cost=Cost.MODEL, dynamic={"expect"},
         fields={"label": ValueType.TEXT}, value_type=ValueType.TEXT)
    _add(r, "slots", Slots, scopes=ALL_SCOPES, cost=Cost.MODEL, default_scope="dialog",
         fields={"filled": ValueType.MAP})
    _add(r, "similarity", Similarity, cost=Cost.CHEAP, dynamic={"reference"},
         value_range=lambda p: (-1.0, 1.0))
    _add(r, "args_match", ArgsMatch, dynamic={"expected", "actual"},
         fields={"strict": ValueType.BOOL, "mismatches": ValueType.LIST})
    _add(r, "trajectory", Trajectory, scopes=frozenset({"dialog"}), default_scope="dialog",
         dynamic={"expected"})
    _add(r, "refusal", Refusal, cost=Cost.MODEL)
    return r
