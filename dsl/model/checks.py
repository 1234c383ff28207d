"""What a model-backed primitive hands the model layer.

A MODEL primitive's factory returns a `ChatCheck` or an `EmbedCheck`. The
runtime selects the scope's units itself and asks the check, per unit, for a
`Plan`: either a finished result (a slot decided by its pattern needs no
model) or a `ChatTask` (an instruction plus the JSON Schema of the answer).
Tasks that share a judge model and a unit are fused into one request whose
answer is a JSON object with one property per check; each check then reads
its own property back with `read`. Keeping prompts, schemas and readings in
the check (and fusion, caching and retries in the runtime) is what lets a
fused answer and a separate one give the same verdict.

Every method takes the request's params rather than the factory's, because
dynamic parameters (`expect: case.intent`) are evaluated per case.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaldsl.cases.scopes import Unit
from evaldsl.cases.windows import Window
from evaldsl.i18n import _
from evaldsl.model.errors import AnswerError
from evaldsl.model.votes import Rule
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.values import CheckResult

MAX_VOTES = 25
"""More samples than this buy little agreement and cost a run many times over."""


class FewShot(BaseModel):
    """One worked example shown to the judge: a text and the answer it deserves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    """The text the example judges (a reply, or a short dialog)."""
    answer: Any
    """The expected answer: the check's shorthand (`8`, `"inquiry"`, `{phone: true}`)."""
    why: str = ""
    """An optional one-line justification shown with the example."""


class ModelParams(BaseModel):
    """Options every model-backed primitive accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    """Attribute docstrings describe the options; `evaldsl.primitives.fielddocs` reads them.
    `defer_build`: built when first used, as the standard library's params models are."""

    fuse: bool = True
    """Ask together with the other model checks on the same scope (one request)."""
    examples: list[FewShot] = Field(default_factory=list, max_length=20)
    """Few-shot examples shown to the judge."""
    model: str | None = Field(default=None, min_length=1)
    """Override the configured judge model for this check; checks on different models never fuse."""
    window: Window | None = None
    """What the judge reads of a long scope: `{first: 1, last: 6}` keeps the first message and
    the last six, and says how many were left out; without it, the whole scope."""


VOTE_FIELDS = {"agreement": ValueType.NUMBER, "votes": ValueType.NUMBER,
               "judges": ValueType.NUMBER, "judge_agreement": ValueType.NUMBER,
               "by_judge": ValueType.MAP}
"""Result fields of a check asked with `votes:` above 1 (the share of samples agreeing
with the combined answer, and how many samples answered: its denominator) or with
`judges:` (how many judges answered, the share agreeing with the combined answer, and
each judge's own answer)."""

MAX_JUDGES = 5

Combine = Literal["majority", "median", "all", "any"]
"""How the answers of several judges combine (`evaldsl.model.votes.combine_judges`)."""


class VotedParams(ModelParams):
    """Options of a model check whose answer may be voted on by several samples, or
    given by several judges."""

    points: ClassVar[bool] = False
    """Whether the answer is points on a scale, which alone have a median."""

    votes: int = Field(default=1, ge=1, le=MAX_VOTES)
    """Ask the judge this many times and combine the answers: the
    median point on a scale, else the most common answer; `.agreement` is the share of
    the answering samples (`.votes`) that agree with it. Each sample is cached on its own."""
    judges: list[Annotated[str, Field(min_length=1)]] | None = Field(
        default=None, min_length=2, max_length=MAX_JUDGES)
    """Ask several judge models (names on the configured endpoint, as `model:`) and
    combine their answers by `combine`; `.by_judge` keeps each one's answer, and the
    report says how far they agree (Krippendorff's alpha)."""
    combine: Combine | None = None
    """How the judges' answers combine: `median` points (`judge`'s default), the answer
    most judges gave (`majority`, the others' default), a pass only when `all` pass, or
    when `any` does. Every rule picks an answer a judge really gave."""

    @model_validator(mode="after")
    def _one_ensemble(self) -> VotedParams:
        if self.judges is not None and len(set(self.judges)) < len(self.judges):
            raise ValueError(_("a judge is named twice in `judges`"))
        if self.judges is not None and self.model is not None:
            raise ValueError(_("give `model` or `judges`, not both"))
        if self.combine is not None and self.judges is None:
            raise ValueError(_("`combine` needs `judges`: it says how several judges' "
                               "answers combine"))
        if self.combine == "median" and not self.points:
            raise ValueError(_("`combine: median` needs points on a scale (`judge`); "
                               "use `majority`, `all` or `any`"))
        return self

    @property
    def models(self) -> list[str | None]:
        """The judge models asked: the ensemble, or the one `model` (None: configured)."""
        return list(self.judges) if self.judges else [self.model]


class ChatTask(msgspec.Struct, frozen=True):
    """One check's question about one unit."""

    instruction: str
    """What to judge, in plain words (the property's description)."""
    schema: dict[str, Any]
    """JSON Schema of this check's answer (one property of the fused answer)."""
    examples: tuple[tuple[str, Any], ...] = ()
    """(text, answer in schema form) pairs shown as worked examples."""


class Plan(msgspec.Struct, frozen=True):
    """A check's plan for one unit: a task for the model, or a result without one."""

    task: ChatTask | None = None
    result: CheckResult | None = None
    state: Any = None
    """Whatever `read` needs besides the answer (slots decided by pattern)."""


class ChatCheck(ABC):
    """A check answered by a chat model with a structured answer."""

    kind: ClassVar[str] = "chat"
    vote: ClassVar[Rule] = "majority"
    """How samples combine under `votes:`; a check scoring points on a scale says "median"."""

    @abstractmethod
    def plan(self, params: Any, unit: Unit) -> Plan:
        """The question to ask about `unit`, or a result that needs no model."""

    @abstractmethod
    def read(self, params: Any, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        """The result from this check's part of the answer; `AnswerError` if unusable."""


class EmbedCheck(ABC):
    """A check computed from embeddings: the cosines of one text with others."""

    kind: ClassVar[str] = "embed"

    @abstractmethod
    def texts(self, params: Any, unit: Unit) -> tuple[str, ...]:
        """The texts to embed: the one judged first, then those it is compared with (a
        reference; a classifier's labelled examples)."""

    @abstractmethod
    def read(self, params: Any, cosines: list[float]) -> CheckResult:
        """A result from the cosines of the first text with each of the others, in order."""


REASON_CHARS = 120
"""A reason is one short sentence: about 40 Chinese characters or 20 English words fit."""
QUOTE_CHARS = 60
"""A quoted piece of evidence: the few words of the dialog that show a fact."""


def bounded_text(description: str, max_chars: int) -> dict[str, Any]:
    """A free-text property with a length bound.

    Every free-text field of an answer is bounded: grammar-constrained decoding (the
    local judge) cannot write past `maxLength`, and the bound is what gives an answer
    its token budget (`evaldsl.model.budget`), so a long reason cannot push the
    decisive fields out of the answer.
    """
    return {"type": "string", "maxLength": max_chars, "description": description}


def points(answer: Any, key: str = "score") -> float:
    """The number a check asked for, from `{"score": n}` or a bare number."""
    value = answer.get(key) if isinstance(answer, dict) else answer
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerError(f"expected a number for `{key}`, got {value!r}")
    return float(value)


def flags(answer: Any, names: list[str], key: str) -> dict[str, bool]:
    """Per-name booleans from `{name: {key: bool}}` or `{name: bool}`."""
    if not isinstance(answer, dict):
        raise AnswerError(f"expected an object with {', '.join(names)}, got {answer!r}")
    out: dict[str, bool] = {}
    for name in names:
        item = answer.get(name)
        value = item.get(key) if isinstance(item, dict) else item
        if not isinstance(value, bool):
            raise AnswerError(f"expected true or false for `{name}`, got {value!r}")
        out[name] = value
    return out


def overlay(result: CheckResult, fields: dict[str, Any]) -> CheckResult:
    """`result` with `passed`/`score` replaced where an example pins them explicitly."""
    passed = fields.get("passed", result.passed)
    score = fields.get("score", result.score)
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        score = float(score)
    return CheckResult(passed, score, result.value, result.fields, "pinned in the example")
