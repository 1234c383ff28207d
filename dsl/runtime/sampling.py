"""Deterministic human-review sampling.

`review (seed: 7) { sample 30% where level == "poor" priority 100 - overall ... }`:
the first rule whose `where` holds decides; a case is drawn when its draw, a
number in [0, 1) hashed from (seed, case id), is below the rule's rate. The
same case is therefore drawn or not on every run, machine and shard, and a
larger rate draws a superset of a smaller one. The priority is computed only
for drawn cases, so it never costs a model call for a case nobody reviews.
A rule condition that errors before any holds makes the decision an error
(reported apart), as in an outcome block.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from evaldsl.results import ReviewDecision
from evaldsl.runtime.compiler import Compiler
from evaldsl.runtime.frame import Fn, Frame
from evaldsl.runtime.logic import PENDING
from evaldsl.syntax import nodes as n
from evaldsl.values import ErrorValue

_SCALE = float(2**64)


def draw(seed: int, case_id: str) -> float:
    """The case's draw in [0, 1): the first 8 bytes of sha256("seed:id").

    >>> draw(0, "c1") == draw(0, "c1") and 0 <= draw(0, "c1") < 1
    True
    """
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / _SCALE


@dataclass(frozen=True)
class Rule:
    rate: float
    where: Fn | None
    priority: Fn | None


@dataclass(frozen=True)
class ReviewProgram:
    seed: int
    rules: tuple[Rule, ...]

    def decide(self, fr: Frame) -> Any:
        """The `ReviewDecision` for the frame's case, or PENDING while a rule waits on a model."""
        u = draw(self.seed, fr.case.id)
        for k, rule in enumerate(self.rules):
            if rule.where is not None:
                held = rule.where(fr)
                if held is False:
                    continue
                if held is PENDING:
                    return PENDING
                if held is not True:
                    return ReviewDecision(False, k, None, u, str(held))
            return self._drawn(fr, k, rule, u)
        return ReviewDecision(False, None, None, u)

    def _drawn(self, fr: Frame, k: int, rule: Rule, u: float) -> Any:
        if u >= rule.rate:
            return ReviewDecision(False, k, None, u)
        if rule.priority is None:
            return ReviewDecision(True, k, 0.0, u)
        p = rule.priority(fr)
        if p is PENDING:
            return PENDING
        if type(p) is ErrorValue:
            return ReviewDecision(True, k, None, u, f"priority: {p}")
        return ReviewDecision(True, k, float(p), u)


def compile_review(compiler: Compiler, review: n.Review) -> ReviewProgram:
    """The review block; its seed and rates are the checker's folded numbers (E504, E505)."""
    seed = 0
    for option in review.options:
        if option.name == "seed" and option.value is not None:
            seed = int(_number(compiler, option.value))
    rules = tuple(
        Rule(_number(compiler, r.rate),
             compiler.condition(r.where) if r.where is not None else None,
             compiler.number(r.priority) if r.priority is not None else None)
        for r in review.rules)
    return ReviewProgram(seed, rules)


def _number(compiler: Compiler, expr: n.Expr) -> float:
    number = compiler.facts.number(expr)
    assert number is not None, "the checker folds review seeds and rates (E504, E505)"
    return number
