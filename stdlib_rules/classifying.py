"""`classify`: a chat model picks one label of a taxonomy.

Labels may be dotted paths (`booking.repair`); with `accept_partial` a label
in the same top-level family as the expected one passes at half score, so a
taxonomy can be judged at two grains without two checks.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from evaldsl.cases.scopes import ALL_SCOPES, Unit
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import _
from evaldsl.model.checks import (
    VOTE_FIELDS,
    ChatCheck,
    ChatTask,
    EmbedCheck,
    FewShot,
    Plan,
    VotedParams,
    overlay,
)
from evaldsl.model.errors import AnswerError
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib.judging import REASON
from evaldsl.values import CheckResult

MAX_SHOTS = 20
"""Few-shot examples a judge is shown at most (the model checks' common limit)."""
MAX_EXAMPLES = 2000
"""Labelled examples written in a spec at most; a longer list belongs in `examples_file`."""


class ClassifyParams(VotedParams):
    labels: dict[str, str] | list[str] = Field(min_length=1)
    """The taxonomy: label names, or a map from label to its description."""
    expect: str | list[str] | None = None
    """The right label (or any of several), one of `labels`; without it any label passes."""
    accept_partial: bool = False
    """Pass at half score when the label shares the expected one's top-level family."""
    by: Literal["judge", "embeddings"] = "judge"
    """Who picks the label: the chat judge, or the in-process embedder, which picks the
    label of the labelled examples (and label descriptions) nearest to the text."""
    examples: list[FewShot] = Field(default_factory=list, max_length=MAX_EXAMPLES)
    """Labelled examples (`{text, answer}`, the answer a label): few-shot examples shown
    to the judge (at most 20), or the neighbours the embedder compares with."""
    examples_file: str | None = Field(default=None, json_schema_extra={"spec_path": True})
    """A JSONL file of further labelled examples for `by: embeddings`, one
    `{"text": ..., "label": ...}` per line (a path from the spec's folder)."""
    neighbours: int = Field(default=1, ge=1, le=50)
    """With `by: embeddings`: a label's closeness is the mean cosine of its this many
    nearest examples."""

    @field_validator("labels")
    @classmethod
    def _no_empty_label(cls, labels: dict[str, str] | list[str]) -> dict[str, str] | list[str]:
        names = list(labels)
        if any(not n.strip() for n in names):
            raise ValueError(_("a label name is empty"))
        if len(set(names)) != len(names):
            raise ValueError(_("a label is listed twice"))
        return labels

    @field_validator("expect")
    @classmethod
    def _expected_is_a_label(cls, expect: str | list[str] | None,
                             info: ValidationInfo) -> str | list[str] | None:
        """A gold label outside the taxonomy can never be chosen: an error, not a miss."""
        names = list(info.data.get("labels") or [])
        wanted = [expect] if isinstance(expect, str) else list(expect or [])
        for label in wanted:
            if names and label not in names:
                raise ValueError(_("expected label {problem}").format(
                    problem=unknown_label(label, names)))
        return expect

    @model_validator(mode="after")
    def _examples_fit_the_decider(self) -> ClassifyParams:
        if self.by == "judge":
            if len(self.examples) > MAX_SHOTS:
                raise ValueError(_("a judge is shown at most {limit} examples; "
                                   "`by: embeddings` takes more").format(limit=MAX_SHOTS))
            if self.examples_file is not None:
                raise ValueError(_("`examples_file` is read with `by: embeddings`"))
            return self
        known = set(self.names)
        for text, label in self.neighbour_examples:
            if label not in known:
                raise ValueError(_("an example of `{text}` {problem}").format(
                    text=text[:40], problem=unknown_label(label, self.names)))
        described = set(self.labels) if isinstance(self.labels, dict) else set()
        have = described | {label for _text, label in self.neighbour_examples}
        bare = [name for name in self.names if name not in have]
        if bare:
            raise ValueError(_("label `{label}` has no example and no description: the "
                               "embedder could never pick it").format(label=bare[0]))
        return self

    @property
    def neighbour_examples(self) -> list[tuple[str, str]]:
        """(text, label) of every labelled example, inline and from `examples_file`."""
        inline = [(shot.text, str(shot.answer)) for shot in self.examples]
        return inline + list(examples_in(self.examples_file) if self.examples_file else [])

    @property
    def names(self) -> list[str]:
        return list(self.labels)

    @property
    def expected(self) -> list[str]:
        if self.expect is None:
            return []
        return [self.expect] if isinstance(self.expect, str) else list(self.expect)


@lru_cache(maxsize=32)
def examples_in(path: str) -> tuple[tuple[str, str], ...]:
    """The (text, label) lines of an examples file; a bad line is an error naming it."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(_("cannot read the examples file {path}: {reason}").format(
            path=path, reason=getattr(exc, "strerror", None) or exc)) from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text, label = row["text"], row.get("label", row.get("answer"))
        except (ValueError, TypeError, KeyError):
            row, text, label = None, None, None
        if not isinstance(text, str) or not text.strip() or not isinstance(label, str):
            raise ValueError(_("{path}:{line}: an example is an object with a text "
                               "`text` and a text `label`").format(path=path, line=number))
        out.append((text, label))
    return tuple(out)


def unknown_label(label: str, names: list[str]) -> str:
    """Why `label` can be neither chosen nor expected: the labels there are, the closest one."""
    close = did_you_mean(label, names)
    more = _("; ") + close if close else ""
    return _("\"{label}\" is not a label of the taxonomy (labels: {names}{more})").format(
        label=label, names=", ".join(names), more=more)


def classify_result(params: ClassifyParams, label: str, reason: str = "") -> CheckResult:
    """Exact match passes; a same-family label passes at 0.5 under `accept_partial`."""
    expected = params.expected
    if not expected or label in expected:
        return CheckResult.of(True, 1.0, label, reason, label=label)
    family = label.split(".")[0]
    if params.accept_partial and any(e.split(".")[0] == family for e in expected):
        return CheckResult.of(True, 0.5, label, reason, label=label)
    return CheckResult.of(False, 0.0, label, reason or f"expected {' or '.join(expected)}",
                          label=label)


class ClassifyCheck(ChatCheck):
    def plan(self, params: ClassifyParams, unit: Unit) -> Plan:
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": params.names}, "reason": REASON},
            "required": ["label", "reason"],
            "additionalProperties": False,
        }
        if isinstance(params.labels, dict):
            listing = "; ".join(f"{k} = {v}" for k, v in params.labels.items())
        else:
            listing = ", ".join(params.labels)
        instruction = f"Which one label fits the text best? Labels: {listing}"
        shots = tuple((s.text, {"label": s.answer, "reason": s.why}) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots))

    def read(self, params: ClassifyParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        label = answer.get("label") if isinstance(answer, dict) else answer
        if label not in params.names:
            raise AnswerError(_("`{label}` is not one of the labels").format(label=label))
        reason = answer.get("reason", "") if isinstance(answer, dict) else ""
        return classify_result(params, str(label), reason if isinstance(reason, str) else "")


class NearestLabel(EmbedCheck):
    """`by: embeddings`: the label whose examples lie nearest the text.

    Each label's closeness is the mean cosine of its `neighbours` nearest examples
    (a label's description counts as one of its examples); the nearest label wins,
    ties going to the label listed first. `.margin` is how far it leads the runner-up:
    the embedder's confidence, which `.score` carries when no label is expected.
    """

    def texts(self, params: ClassifyParams, unit: Unit) -> tuple[str, ...]:
        return (unit.text, *[text for text, _label in _references(params)])

    def read(self, params: ClassifyParams, cosines: list[float]) -> CheckResult:
        by_label: dict[str, list[float]] = {name: [] for name in params.names}
        for (_text, label), value in zip(_references(params), cosines, strict=True):
            by_label[label].append(value)
        closeness = {label: _closeness(values, params.neighbours)
                     for label, values in by_label.items() if values}
        ranked = sorted(closeness, key=lambda label: -closeness[label])
        best = ranked[0]
        margin = closeness[best] - closeness[ranked[1]] if len(ranked) > 1 else 1.0
        result = classify_result(params, best, f"nearest examples: {best} "
                                               f"({closeness[best]:.3f}, margin {margin:.3f})")
        result.fields["margin"] = margin
        if not params.expected:
            result.score = margin
        return result


def _references(params: ClassifyParams) -> list[tuple[str, str]]:
    described = list(params.labels.items()) if isinstance(params.labels, dict) else []
    return [(text, label) for label, text in described] + params.neighbour_examples


def _closeness(values: list[float], neighbours: int) -> float:
    nearest = sorted(values, reverse=True)[:neighbours]
    return sum(nearest) / len(nearest)


def _pin_classify(params: ClassifyParams, fields: dict[str, Any]) -> CheckResult:
    """The result for a pinned label; a label the judge could never choose is refused."""
    label = fields.get("label", fields.get("value", fields.get("passed")))
    if isinstance(label, str) and label not in params.names:
        raise ValueError(unknown_label(label, params.names))
    if isinstance(label, bool):
        chosen = params.expected[0] if label and params.expected else ""
        return overlay(CheckResult.of(label, value=chosen, label=chosen), fields)
    return overlay(classify_result(params, str(label)), fields)


@primitive("classify", params=ClassifyParams, scopes=ALL_SCOPES, default_scope="dialog",
           fields={"label": ValueType.TEXT, "margin": ValueType.NUMBER, **VOTE_FIELDS},
           cost=Cost.MODEL,
           value_type=ValueType.TEXT,
           dynamic={"expect"}, pin=_pin_classify)
def classify(params: ClassifyParams) -> ClassifyCheck | NearestLabel:
    """A chat model picks one label; `.label` (and `.value`) is the label it chose.

    With `expect` the check passes when the label is the expected one. An
    expected label that is not one of `labels` is an error (E204 when it is a
    constant, an error value for a case whose gold label it is), never a miss.

        check intent = classify(scope: first_user, labels: intents, expect: case.intent)

    With `by: embeddings` no chat model is asked: the in-process embedder compares the
    text with labelled examples (`examples:`, `examples_file:`, the labels' descriptions)
    and picks the nearest label, the same on every run; `.margin` is its lead.
    """
    return NearestLabel() if params.by == "embeddings" else ClassifyCheck()
