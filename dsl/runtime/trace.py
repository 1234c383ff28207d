"""Why a case got its labels, in words, rendered only when someone reads it.

Evaluation keeps the branch that fired and every computed check result; the
trace turns that into lines such as

    outcome: `success if intent.passed and completion >= 0.8` -> false
    outcome: `partial if intent.passed and completion >= 0.5` -> true
    outcome = partial
    completion: passed, score 0.6 (filled 3 of 5)
    not needed: polite
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaldsl.results import CaseResult, status

if TYPE_CHECKING:
    from evaldsl.runtime.program import BlockPlan, Program


class Tracer:
    """Renders traces for results of one program."""

    __slots__ = ("_blocks",)

    def __init__(self, program: Program) -> None:
        self._blocks = program.blocks

    def __call__(self, result: CaseResult) -> tuple[str, ...]:
        lines: list[str] = []
        for block in self._blocks:
            lines.extend(_block_lines(block, result))
        for name, check in result.checks.items():
            lines.append(f"{name}: {_check_words(check)}")
        if result.skipped:
            lines.append("not needed: " + ", ".join(result.skipped))
        review = result.review
        if review is not None and review.sampled:
            lines.append(f"review: drawn by rule {(review.rule or 0) + 1}, "
                         f"priority {_number(review.priority)}")
        return tuple(lines)


def _block_lines(block: BlockPlan, result: CaseResult) -> list[str]:
    key = block.key
    fired = result.branches.get(key)
    if fired is None:
        reason = result.errors.get(key, "")
        stop = _errored_branch(block, reason)
        lines = [f"{key}: `{t}` -> false" for t in block.texts[:stop]]
        if stop < len(block.texts):
            lines.append(f"{key}: `{block.texts[stop]}` -> error")
        lines.append(f"{key} = error: {reason}")
        return lines
    lines = [f"{key}: `{t}` -> false" for t in block.texts[:fired]]
    if block.conditions[fired] is not None:
        lines.append(f"{key}: `{block.texts[fired]}` -> true")
    lines.append(f"{key} = {block.labels[fired]}")
    return lines


def _errored_branch(block: BlockPlan, reason: str) -> int:
    """The errored branch: the block's error value names it as its source."""
    for k, text in enumerate(block.texts):
        if reason.startswith(f"error({text}:"):
            return k
    return len(block.texts)


def _check_words(check: Any) -> str:
    state = status(check)
    if state == "error":
        return f"error: {check.reason}"
    words = f"{state}, score {_number(check.score)}"
    return f"{words} ({check.reason})" if check.reason else words


def _number(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)
