"""Outcome blocks: E401-E405 on branches, E407 percentages (thresholds are in `thresholds`).

Branches are tried in order and the first true one wins, so a branch that an
earlier one already covers is dead (E405): the classic mistake is putting
`partial if x >= 0.5` before `success if x >= 0.8`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from evaldsl.checker.facts.conditions import Conjunction, Interval, covered_by, dnf
from evaldsl.checker.facts.context import Context
from evaldsl.diagnostics import Diagnostic, error, warning
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n


def missing_otherwise(ctx: Context) -> Iterator[Diagnostic]:
    """E401: an outcome block must end with `LABEL otherwise`."""
    for outcome in ctx.module.of_type(n.Outcome):
        if outcome.branches and all(b.condition is not None for b in outcome.branches):
            last = outcome.branches[-1]
            yield error(
                "E401",
                _("{block} has no `otherwise` branch").format(block=_block(outcome)),
                outcome.span,
                _(
                    "add a last branch such as `failure otherwise` after "
                    "`{label}`; every case needs a label"
                ).format(label=last.label),
            )
        elif not outcome.branches:
            yield error(
                "E401",
                _("{block} has no branches").format(block=_block(outcome)),
                outcome.span,
                _("add branches like `success if ...` and end with `failure otherwise`"),
            )


def branches_after_otherwise(ctx: Context) -> Iterator[Diagnostic]:
    """E402: nothing can follow `otherwise`, since it takes every remaining case."""
    for outcome in ctx.module.of_type(n.Outcome):
        seen: n.Branch | None = None
        for branch in outcome.branches:
            if seen is not None:
                yield error(
                    "E402",
                    _("the branch `{label}` comes after `otherwise`").format(label=branch.label),
                    branch.span,
                    _(
                        "`{label} otherwise` already takes every remaining case; move it to the end"
                    ).format(label=seen.label),
                )
                break
            if branch.condition is None:
                seen = branch


def repeated_labels(ctx: Context) -> Iterator[Diagnostic]:
    """E403: one label on two branches of the same block."""
    for outcome in ctx.module.of_type(n.Outcome):
        first: dict[str, n.Branch] = {}
        for branch in outcome.branches:
            if branch.label in first:
                yield error(
                    "E403",
                    _("the label `{label}` is used twice in {block}").format(
                        label=branch.label, block=_block(outcome)
                    ),
                    branch.label_span,
                    _(
                        "the first is on line {line}; join the conditions with `or` in one branch"
                    ).format(line=first[branch.label].span.line),
                )
            first.setdefault(branch.label, branch)


def duplicate_blocks(ctx: Context) -> Iterator[Diagnostic]:
    """E404: two outcome blocks with one name (or two unnamed verdict blocks)."""
    seen: dict[str | None, n.Outcome] = {}
    for outcome in ctx.module.of_type(n.Outcome):
        if outcome.name in seen:
            where = seen[outcome.name].span.line
            if outcome.name is None:
                yield error(
                    "E404",
                    _("a second unnamed outcome block"),
                    outcome.span,
                    _(
                        "the verdict block is on line {where}; name this "
                        "one, e.g. `outcome level {{ ... }}`"
                    ).format(where=where),
                )
            else:
                yield error(
                    "E404",
                    _("a second outcome block named `{name}`").format(name=outcome.name),
                    outcome.name_span or outcome.span,
                    _("the first is on line {where}; rename one").format(where=where),
                )
        seen.setdefault(outcome.name, outcome)


MAX_COMPARED = 50
"""Earlier branches a branch is compared with; keeps huge blocks linear."""


def dead_branches(ctx: Context) -> Iterator[Diagnostic]:
    """E405: a branch whose condition never holds, or that earlier branches cover."""
    for outcome in ctx.module.of_type(n.Outcome):
        earlier: list[tuple[n.Branch, list[Conjunction]]] = []
        for branch in outcome.branches:
            if branch.condition is None:
                break
            mine = dnf(branch.condition, ctx)
            if mine is None:
                continue
            problem = _dead(branch, mine, earlier)
            if problem is not None:
                yield problem
            earlier.append((branch, mine))


def _dead(branch: n.Branch, mine: list[Conjunction],
          earlier: list[tuple[n.Branch, list[Conjunction]]]) -> Diagnostic | None:
    if not mine:
        return error(
            "E405",
            _("the branch `{label}` can never fire").format(label=branch.label),
            branch.label_span,
            _("its condition can never hold"),
        )
    for before, theirs in earlier[-MAX_COMPARED:]:
        if covered_by(mine, theirs):
            return error(
                "E405",
                _("the branch `{label}` can never fire").format(label=branch.label),
                branch.label_span,
                _(
                    "every case it takes is already taken by `{label}` on "
                    "line {line}; put the stricter branch first"
                ).format(label=before.label, line=before.span.line),
            )
    if not 1 < len(earlier) <= MAX_COMPARED:
        return None
    every = [c for _, conj in earlier for c in conj]
    if covered_by(mine, every) or _exhaustive(every):
        labels = ", ".join(f"`{b.label}`" for b, _ in earlier)
        return error(
            "E405",
            _("the branch `{label}` can never fire").format(label=branch.label),
            branch.label_span,
            _("the earlier branches {labels} already take every case it would").format(
                labels=labels
            ),
        )
    return None


def unreachable_otherwise(ctx: Context) -> Iterator[Diagnostic]:
    """W105: an `otherwise` label that earlier branches leave no case for."""
    for outcome in ctx.module.of_type(n.Outcome):
        last = outcome.branches[-1] if outcome.branches else None
        if last is None or last.condition is not None:
            continue
        earlier = [dnf(b.condition, ctx) for b in outcome.branches[:-1] if b.condition]
        if _exhaustive([c for found in earlier if found is not None for c in found]):
            yield warning(
                "W105",
                _("the label `{label}` can never be given").format(label=last.label),
                last.label_span,
                _(
                    "the branches before `otherwise` already take every case; "
                    "turn the last of them into `otherwise`"
                ),
            )


def _exhaustive(conjunctions: list[Conjunction]) -> bool:
    """Whether single facts among `conjunctions` cover every case."""
    intervals: dict[object, list[Interval]] = {}
    truths: dict[object, set[bool]] = {}
    for c in conjunctions:
        facts = len(c.numbers) + len(c.truths) + len(c.excluded) + len(c.equal)
        if facts == 0:
            return True
        if facts == 1 and c.numbers:
            key, interval = next(iter(c.numbers.items()))
            intervals.setdefault(key, []).append(interval)
        elif facts == 1 and c.truths:
            key, truth = next(iter(c.truths.items()))
            truths.setdefault(key, set()).add(truth)
    if any(len(values) == 2 for values in truths.values()):
        return True
    return any(_covers_all(found) for found in intervals.values())


def _covers_all(intervals: list[Interval]) -> bool:
    reach, reach_open = -math.inf, False
    for i in sorted(intervals, key=lambda i: (i.lo, i.lo_open)):
        gap = i.lo > reach or (i.lo == reach and i.lo_open and reach_open)
        if gap and not (reach == -math.inf and i.lo == -math.inf):
            return False
        if i.hi > reach or (i.hi == reach and not i.hi_open):
            reach, reach_open = i.hi, i.hi_open
    return reach == math.inf


def percentages_out_of_range(ctx: Context) -> Iterator[Diagnostic]:
    """E407: a percentage literal above 100%."""
    for site, exprs in ctx.site_exprs:
        if site.role == "sample":
            continue
        for e in exprs:
            if isinstance(e, n.Percent) and e.value > 1:
                yield error(
                    "E407",
                    _("`{text}` is more than 100%").format(text=e.text),
                    e.span,
                    _("a percentage is a share of cases or of a score: 0% to 100%"),
                )


def _block(outcome: n.Outcome) -> str:
    return (
        _("the outcome `{name}`").format(name=outcome.name)
        if outcome.name
        else _("the verdict outcome")
    )
