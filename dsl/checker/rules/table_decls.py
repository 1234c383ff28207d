"""Normalization tables: E208 unknown or malformed option, E207 one source, two targets.

Option values are read by `evaldsl.checker.facts.consts`, the same readers the
runtime's tables are built with.

A table is applied after its options, so two sources that differ only in
case under `casefold` are the same source: mapping them to two different
targets is a contradiction even though the texts differ.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.consts import option_problem, table_settings
from evaldsl.checker.facts.context import Context
from evaldsl.diagnostics import Diagnostic, error, listing, meant, similar
from evaldsl.i18n import _
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
    known = _("the options are {names}").format(
        names=listing(FLAG_OPTIONS + VALUE_OPTIONS, limit=len(FLAG_OPTIONS + VALUE_OPTIONS)))
    if option.name == "":
        return error(
            "E208", _("a table option must be a name such as `casefold`"), option.span, known
        )
    if option.name in FLAG_OPTIONS and option.value is not None:
        return error(
            "E208",
            _("the option `{name}` takes no value").format(name=option.name),
            option.span,
            _("write just `{name}`").format(name=option.name),
        )
    problem = option_problem(option, ctx)
    if problem is not None:
        return error("E208", problem.message, problem.span, problem.hint)
    if option.name in VALUE_OPTIONS:
        return None
    if option.name not in FLAG_OPTIONS:
        close = similar(option.name, FLAG_OPTIONS + VALUE_OPTIONS)
        return error(
            "E208",
            _("unknown table option `{name}`").format(name=option.name),
            option.span,
            f"{meant(close)} {known}" if close else known,
            # a flag's span is its name; an option with a value spans the value too
            (close or "") if option.value is None else "",
        )
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
    """The table's options without its entries: what a source and a target become."""
    settings = table_settings(table, ctx)
    return NormalizationTable(table.name, settings.pop("flags"), settings.pop("remove", ""),
                              {}, **settings)


def _conflict(table: n.Table, src: n.String, target: n.String,
              first: tuple[n.String, n.String]) -> Diagnostic:
    same = (
        ""
        if first[0].value == src.value
        else _(" (the same as `{value}` after the table's options)").format(value=first[0].value)
    )
    return error(
        "E207",
        _(
            "the table `{name}` maps `{value}`{same} to two targets: `{value2}` and `{value3}`"
        ).format(
            name=table.name, value=src.value, same=same, value2=first[1].value, value3=target.value
        ),
        src.span,
        _("line {line} already maps it to `{value}`; keep one mapping").format(
            line=first[0].span.line, value=first[1].value
        ),
    )
