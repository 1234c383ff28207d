"""Normalization tables: E208 unknown or malformed option, E207 one source, two targets.

A table is applied after its options, so two sources that differ only in
case under `casefold` are the same source: mapping them to two different
targets is a contradiction even though the texts differ.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.consts import fold
from evaldsl.checker.facts.context import Context
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing
from evaldsl.primitives.tables import FLAG_OPTIONS, VALUE_OPTIONS, NormalizationTable
from evaldsl.syntax import nodes as n


def table_options(ctx: Context) -> Iterator[Diagnostic]:
    """E208 for options the tables module does not know or that are written wrongly."""
    for table in ctx.module.of_type(n.Table):
        for option in table.options:
            problem = _option_problem(ctx, option)
            if problem is not None:
                yield problem


def _option_problem(ctx: Context, option: n.Option) -> Diagnostic | None:
    known = f"the options are {listing(FLAG_OPTIONS + VALUE_OPTIONS)}"
    if option.name == "":
        return error("E208", "a table option must be a name such as `casefold`", option.span,
                     known)
    if option.name in FLAG_OPTIONS and option.value is not None:
        return error("E208", f"the option `{option.name}` takes no value", option.span,
                     f"write just `{option.name}`")
    if option.name in VALUE_OPTIONS:
        value = fold(option.value, ctx) if option.value is not None else None
        if not isinstance(value, str):
            return error("E208", f"the option `{option.name}` needs a text", option.span,
                         f'write e.g. `{option.name}: ",./-_"` to remove those characters')
        return None
    if option.name not in FLAG_OPTIONS:
        close = did_you_mean(option.name, FLAG_OPTIONS + VALUE_OPTIONS)
        return error("E208", f"unknown table option `{option.name}`", option.span,
                     f"{close} {known}" if close else known)
    return None


def conflicting_entries(ctx: Context) -> Iterator[Diagnostic]:
    """E207: a source (after the table's options) mapped to two different targets."""
    for table in ctx.module.of_type(n.Table):
        cleaner = _cleaner(ctx, table)
        targets: dict[str, tuple[n.String, n.String]] = {}
        for entry in table.entries:
            for src in entry.sources:
                key = cleaner.clean(src.value)
                target = cleaner.clean(entry.target.value)
                first = targets.get(key)
                if first is None:
                    targets[key] = (src, entry.target)
                elif cleaner.clean(first[1].value) != target:
                    yield _conflict(table, src, entry.target, first)


def _cleaner(ctx: Context, table: n.Table) -> NormalizationTable:
    flags = frozenset(o.name for o in table.options if o.value is None and o.name in FLAG_OPTIONS)
    remove = next((fold(o.value, ctx) for o in table.options
                   if o.name == "remove" and o.value is not None), "")
    return NormalizationTable(table.name, flags, remove if isinstance(remove, str) else "")


def _conflict(table: n.Table, src: n.String, target: n.String,
              first: tuple[n.String, n.String]) -> Diagnostic:
    same = "" if first[0].value == src.value else f" (the same as `{first[0].value}` after " \
        "the table's options)"
    return error(
        "E207",
        f"the table `{table.name}` maps `{src.value}`{same} to two targets: "
        f"`{first[1].value}` and `{target.value}`",
        src.span,
        f"line {first[0].span.line} already maps it to `{first[1].value}`; keep one mapping",
    )
