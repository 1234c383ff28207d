"""The frame: slots forced on first read, however long the chain of slots behind one."""

from __future__ import annotations

import sys

import evaldsl
from tests.support import interpreter_kit as kit
from tests.support.long_specs import let_chain


class TestLongChains:
    def test_a_chain_longer_than_the_recursion_limit_evaluates(self) -> None:
        """Each let read forces the one before it: no Python recursion follows the chain."""
        length = sys.getrecursionlimit() * 3
        spec = evaldsl.loads(let_chain(length), registry=kit.make_kit().registry)
        result = spec.evaluate({**kit.case("c", a=0.9), "x": 5})
        assert result.label == "big"
        assert result.metrics["top"] == (5 + length - 1,)

    def test_a_long_chain_behind_a_model_check_takes_rounds(self) -> None:
        """The chain is forced again after the model answers, and gives the same value."""
        runtime = kit.CountingRuntime()
        spec = evaldsl.loads('check m = ask(key: "m")\n' + let_chain(2500, gate="m"),
                             registry=kit.make_kit().registry, runtime=runtime)
        result = spec.evaluate({**kit.case("c", a=0.9, m=0.9), "x": 5})
        assert result.label == "big" and runtime.calls == 1
        assert result.metrics["top"] == (5 + 2499,)
