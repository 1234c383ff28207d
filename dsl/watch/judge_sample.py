"""Which sessions `watch` asks the judge about: a sample drawn by session id, within a budget.

Deterministic checks run on every session. Model checks (a judge, a classifier, an
embedder) run on the sessions in the sample (`--judge-sample 10%`): a session is in it when
a hash of its id falls under the rate, so the same session is drawn or not drawn whatever
the order it arrives in, in this process or after a restart. Within the sample, at most
`--judge-budget N/h` sessions are model-judged in any hour of arrival time; the journal
records each session's decision, so a restarted watch counts its budget from the sessions
it judged before.

A session left out (not drawn, or over the budget) has its model checks pinned to an error
that says so, never a pass or a fail; every figure that reads a model check (the check
itself, an outcome block, a metric, a per-case alert) counts the model-judged sessions
only, and the report says which figures count which sessions and how many were left out.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost
from evaldsl.record import CaseRecord
from evaldsl.results import CaseResult
from evaldsl.runtime.graph import Graph
from evaldsl.values import CheckResult

JUDGED = "judged"
NOT_SAMPLED = "not_sampled"
OVER_BUDGET = "over_budget"
DECISIONS = (JUDGED, NOT_SAMPLED, OVER_BUDGET)
HOUR_S = 3600.0
_SALT = b"evaldsl judge sample\x00"


def in_sample(session_id: str, rate: float) -> bool:
    """Whether a session is in a sample of `rate` (0..1): the first 8 bytes of the SHA-256
    of its id (after a fixed prefix), read as a fraction of 2**64, fall under the rate."""
    if rate >= 1.0:
        return True
    digest = hashlib.sha256(_SALT + session_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") < rate * 2.0 ** 64


@dataclass(frozen=True)
class JudgePolicy:
    """`--judge-sample` (a fraction, 1.0 for every session) and `--judge-budget` (model-
    judged sessions per hour, None for no limit)."""

    sample: float = 1.0
    budget: int | None = None

    @property
    def limits(self) -> bool:
        return self.sample < 1.0 or self.budget is not None


class JudgeGate:
    """The decision for each arriving session, and the tally of decisions made so far."""

    def __init__(self, policy: JudgePolicy) -> None:
        self.policy = policy
        self.counts: dict[str, int] = dict.fromkeys(DECISIONS, 0)
        self._spent: deque[float] = deque()
        """Arrival times of the model-judged sessions of the last hour."""

    def in_sample(self, session_id: str) -> bool:
        return in_sample(session_id, self.policy.sample)

    def decide(self, session_id: str, at: float) -> str:
        """`judged`, `not_sampled` or `over_budget` for a session arriving at `at`, counted."""
        if not self.in_sample(session_id):
            decision = NOT_SAMPLED
        elif self._room(at):
            decision = JUDGED
        else:
            decision = OVER_BUDGET
        self.record(decision, at)
        return decision

    def _room(self, at: float) -> bool:
        budget = self.policy.budget
        if budget is None:
            return True
        spent = self._spent
        while spent and spent[0] <= at - HOUR_S:
            spent.popleft()
        return len(spent) < budget

    def record(self, decision: str, at: float) -> None:
        """Count a decision (made now or read back from the journal)."""
        self.counts[decision] = self.counts.get(decision, 0) + 1
        if decision == JUDGED and self.policy.budget is not None:
            self._spent.append(at)

    def report(self, reach: ModelReach) -> dict[str, Any]:
        """The `judging` section of watch's report: the policy, the decisions, the share left
        out, and which sessions each figure counts."""
        counts = self.counts
        total = sum(counts.values())
        left_out = counts[NOT_SAMPLED] + counts[OVER_BUDGET]
        return {"sample": self.policy.sample, "budget_per_hour": self.policy.budget,
                "sessions": total, "model_judged": counts[JUDGED],
                "not_sampled": counts[NOT_SAMPLED], "over_budget": counts[OVER_BUDGET],
                "dropped_share": left_out / total if total else 0.0,
                "denominators": reach.denominators()}


@dataclass(frozen=True)
class ModelReach:
    """What in a spec reads a model check, directly or through lets, checks and blocks."""

    model_checks: tuple[str, ...]
    checks: frozenset[str]
    blocks: frozenset[str]
    metrics: frozenset[str]
    case_alerts: frozenset[str]
    all_checks: tuple[str, ...]
    all_blocks: tuple[str, ...]
    all_metrics: tuple[str, ...]

    @classmethod
    def of(cls, graph: Graph) -> ModelReach:
        def reads_model(node_id: str) -> bool:
            return graph.node_cost(node_id)[1] > 0

        return cls(
            tuple(c.name for c in graph.checks if c.cost is Cost.MODEL),
            frozenset(c.name for c in graph.checks if reads_model(c.id)),
            frozenset(b.key for b in graph.blocks if reads_model(b.id)),
            frozenset(m.name for m in graph.metrics
                      if graph.cost_all(e for e in (m.value, m.where) if e is not None)[1]),
            frozenset(a.name for a in graph.alerts
                      if a.window is None and graph.cost(a.when)[1] > 0),
            tuple(c.name for c in graph.checks), tuple(b.key for b in graph.blocks),
            tuple(m.name for m in graph.metrics))

    def pins(self, decision: str) -> dict[str, CheckResult]:
        """Every model check pinned to an error that says why it was not asked."""
        reason = (_("not judged: the session is not in the judge sample")
                  if decision == NOT_SAMPLED else
                  _("not judged: the judge budget for this hour is spent"))
        return {name: CheckResult.error(reason, name) for name in self.model_checks}

    def denominators(self) -> dict[str, dict[str, str]]:
        """For each check, outcome block and metric: `model_judged` when it reads a model
        check (it counts the model-judged sessions only), else `all`."""
        def kind(name: str, reached: frozenset[str]) -> str:
            return "model_judged" if name in reached else "all"

        return {"checks": {c: kind(c, self.checks) for c in self.all_checks},
                "outcomes": {b: kind(b, self.blocks) for b in self.all_blocks},
                "metrics": {m: kind(m, self.metrics) for m in self.all_metrics}}

    def unjudged(self, result: CaseResult, record: CaseRecord,
                 ) -> tuple[CaseResult, CaseRecord]:
        """A session left out, as the windows count it: without the checks, blocks and
        metrics that read a model check, so they are in no denominator, error count or
        label count (the journal keeps the whole record)."""
        def keep(mapping: Mapping[str, Any], reached: frozenset[str]) -> dict[str, Any]:
            return {k: v for k, v in mapping.items() if k not in reached}

        labels = keep(result.labels, self.blocks)
        out = CaseResult(result.id, labels, keep(result.branches, self.blocks),
                         keep(result.checks, self.checks),
                         tuple(s for s in result.skipped if s not in self.checks),
                         keep(result.metrics, self.metrics), result.review,
                         keep(result.errors, self.blocks), (), result.lets,
                         keep(result.groups, self.metrics))
        out.alerts = keep(result.alerts, self.case_alerts)
        groups = record.groups
        trimmed = msgspec.structs.replace(
            record, labels=keep(record.labels, self.blocks),
            branches=keep(record.branches, self.blocks), errors=keep(record.errors, self.blocks),
            checks=keep(record.checks, self.checks), metrics=keep(record.metrics, self.metrics),
            groups=keep(groups, self.metrics) if isinstance(groups, dict) else groups,
            skipped=[s for s in record.skipped if s not in self.checks])
        return out, trimmed
