"""The static checker: every rule that a spec must pass before it runs, and its facts.

`analyse_module` runs the rules of `RULES` in order over a parsed module and
returns their diagnostics sorted by position and, when none is an error, the
`Analysis` the runtime builds from (the checker is the only semantic
analysis). Each rule is one function `rule(ctx) -> Iterable[Diagnostic]` in
`checker.rules`; the facts they share live in `checker.facts`, computed once
on the `Context`, so rules stay small and independent. When two rules point
at exactly the same span, only the first (in `RULES` order) is kept: the more
specific rules come first.
"""

from __future__ import annotations

from typing import NamedTuple

from evaldsl.checker.facts.analysis import Analysis, analyse
from evaldsl.checker.facts.context import Context, Rule
from evaldsl.checker.facts.typer import TypeEnv, infer_type
from evaldsl.checker.rules import (
    aggregates,
    alerts,
    cycles,
    example_blocks,
    groups,
    names,
    outcomes,
    params,
    patterns,
    scope_args,
    table_decls,
    thresholds,
    types,
    usage,
)
from evaldsl.diagnostics import Diagnostic, error, sort_key
from evaldsl.i18n import _
from evaldsl.primitives.registry import Registry, default_registry
from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import ParseResult, parse
from evaldsl.syntax.source import Source, Span

__all__ = ["Analysis", "Checked", "Context", "RULES", "Rule", "TypeEnv", "analyse_context",
           "analyse_module", "check_module", "check_source", "infer_type"]

RULES: tuple[Rule, ...] = (
    names.duplicate_definitions,
    names.duplicate_singletons,
    names.label_clashes,
    names.unknown_names,
    names.unknown_label_texts,
    names.unknown_case_fields,
    names.unknown_case_types,
    names.unknown_functions,
    cycles.definition_cycles,
    table_decls.table_options,
    table_decls.conflicting_entries,
    params.unknown_primitives,
    params.positional_arguments,
    params.repeated_arguments,
    params.unknown_parameters,
    scope_args.scope_arguments,
    outcomes.percentages_out_of_range,
    patterns.invalid_regexes,
    patterns.invalid_schemas,
    params.parameter_values,
    aggregates.misplaced_aggregates,
    aggregates.bare_values_in_metrics,
    types.check_types,
    aggregates.non_numbers_in_metrics,
    groups.group_keys,
    outcomes.missing_otherwise,
    outcomes.branches_after_otherwise,
    outcomes.repeated_labels,
    outcomes.duplicate_blocks,
    outcomes.dead_branches,
    outcomes.unreachable_otherwise,
    thresholds.thresholds_out_of_range,
    thresholds.percentages_for_points,
    example_blocks.unknown_roles,
    example_blocks.unknown_pins,
    example_blocks.pinned_values,
    example_blocks.examples_without_expect,
    example_blocks.sample_rates,
    example_blocks.review_options,
    example_blocks.example_case_fields,
    alerts.windowed_conditions,
    alerts.window_sizes,
    alerts.duplicate_alerts,
    alerts.alerts_on_improvement,
    usage.unused_checks,
    usage.unused_lets,
    usage.unused_tables,
    usage.impossible_wheres,
)
"""Every rule, most specific first; see the module docstring for why order matters."""


class Checked(NamedTuple):
    """What checking a module found."""

    diagnostics: list[Diagnostic]
    """Errors and warnings, sorted by position."""
    analysis: Analysis | None
    """The facts the runtime builds from; None when a diagnostic is an error."""


def analyse_module(
    module: n.Module, source: Source, registry: Registry | None = None
) -> Checked:
    """The diagnostics of a parsed spec and, when it has no error, its facts."""
    return analyse_context(
        Context(module, source, registry if registry is not None else default_registry()))


def analyse_context(ctx: Context) -> Checked:
    """`analyse_module` over a context the caller keeps: a language service reads the same
    facts (symbols, types) afterwards, even when the spec has errors and no `Analysis`."""
    found = _run_rules(ctx)
    return Checked(found, None if any(d.is_error for d in found) else analyse(ctx))


def check_module(
    module: n.Module, source: Source, registry: Registry | None = None
) -> list[Diagnostic]:
    """Errors and warnings of a parsed spec, sorted by position.

    A spec with no error diagnostics is safe to compile.
    """
    return _run_rules(Context(module, source,
                              registry if registry is not None else default_registry()))


def _run_rules(ctx: Context) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    spans: set[Span] = set()
    try:
        for rule in RULES:
            for diagnostic in rule(ctx):
                if diagnostic.span not in spans:
                    spans.add(diagnostic.span)
                    found.append(diagnostic)
    except RecursionError:
        found.append(
            error(
                "E003",
                _("the spec nests expressions too deeply to check"),
                Span.point(ctx.source.name, 1, 1),
                _("name inner parts with `let` to flatten the expression"),
            )
        )
    return sorted(found, key=sort_key)


def check_source(
    text: str | bytes, name: str = "<spec>", registry: Registry | None = None
) -> tuple[ParseResult, list[Diagnostic]]:
    """Parse then check; the syntax diagnostics alone when parsing failed."""
    result = parse(text, name)
    if result.module is None:
        return result, sorted(result.diagnostics, key=sort_key)
    found = result.diagnostics + check_module(result.module, result.source, registry)
    return result, sorted(found, key=sort_key)
