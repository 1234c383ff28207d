"""The checker's facts about a spec without errors: all the runtime builds from.

The checker is the only semantic analysis. When its rules find no error,
`analyse` gathers what they established (each check's primitive, scope,
folded and per-case arguments and validated params; the static type of every
expression; which values differ per case) into one frozen `Analysis`, and the
graph and the compiler read that instead of analysing the spec again. So a
spec `evaldsl check` accepts is, by construction, one `evaldsl.load` can build.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import msgspec
from pydantic import BaseModel

from evaldsl.cases.scopes import Scope
from evaldsl.checker.facts.arguments import arguments
from evaldsl.checker.facts.consts import let_value, number_of, table_value
from evaldsl.checker.facts.context import Context
from evaldsl.checker.facts.percase import is_per_case, name_per_case
from evaldsl.checker.facts.scopes import check_scope
from evaldsl.checker.facts.symbols import SymbolTable
from evaldsl.checker.facts.typer import infer_type, type_env
from evaldsl.primitives.registry import Primitive, Registry
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source


class CheckFacts(msgspec.Struct, frozen=True):
    """What the checker established about one check."""

    primitive: Primitive
    scope: Scope
    """The scope the check reads: its `scope:`, else the primitive's default."""
    constants: Mapping[str, Any]
    """Folded values of the arguments that are the same for every case."""
    dynamic: tuple[str, ...]
    """Arguments that differ per case (the primitive declares each dynamic), in spec order."""
    params: BaseModel | None
    """The validated params when no argument is dynamic."""


@dataclass(frozen=True)
class Analysis:
    """The facts of one checked module; build it with `analyse`."""

    module: n.Module
    source: Source
    registry: Registry
    symbols: SymbolTable
    checks: Mapping[str, CheckFacts]
    """Every check by name, in spec order."""
    _ctx: Context = field(repr=False, compare=False)
    _per_case: dict[int, bool] = field(default_factory=dict, repr=False, compare=False)

    def type_of(self, expr: n.Expr) -> ValueType:
        """The static type the checker gave `expr` (`ANY` where it cannot be known)."""
        found = self._ctx.expr_types.get(id(expr))
        return found if found is not None else infer_type(expr, type_env(self._ctx))

    def is_per_case(self, expr: n.Expr) -> bool:
        """Whether `expr` can differ between cases (aggregates count as constant)."""
        key = id(expr)
        found = self._per_case.get(key)
        if found is None:
            found = self._per_case[key] = is_per_case(self._ctx, expr)
        return found

    def let_per_case(self, name: str) -> bool:
        """Whether the let `name` can differ between cases."""
        return name_per_case(self._ctx, name)

    def let_value(self, name: str) -> Any:
        """The let's folded constant, or `NOT_CONSTANT`."""
        return let_value(name, self._ctx)

    def number(self, expr: n.Expr) -> float | None:
        """The folded value of a constant number expression (not a bool), else None."""
        return number_of(expr, self._ctx)

    def table(self, name: str) -> NormalizationTable:
        """The table `name`, built once from its declaration."""
        tables = self._ctx.tables
        if name not in tables:
            tables[name] = table_value(self.symbols.tables[name], self._ctx)
        return tables[name]


def analyse(ctx: Context) -> Analysis:
    """The facts of a module whose rules found no error."""
    checks = {name: _check_facts(ctx, check) for name, check in ctx.symbols.checks.items()}
    return Analysis(ctx.module, ctx.source, ctx.registry, ctx.symbols,
                    MappingProxyType(checks), ctx)


def _check_facts(ctx: Context, check: n.Check) -> CheckFacts:
    args = arguments(ctx, check)
    assert args is not None, "the checker reports unknown primitives (E106)"
    dynamic = tuple(name for name in args.given if name in args.dynamic)
    return CheckFacts(args.primitive, check_scope(check, args.primitive),
                      MappingProxyType(dict(args.constants)), dynamic,
                      None if dynamic else args.params)

