"""Laws of the checker over generated and broken specs."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaldsl.checker import check_source
from evaldsl.syntax.formatter import format_source
from tests.strategies import laid_out_specs, mutations, specs

PROPERTY = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


class TestLaws:
    @PROPERTY
    @given(specs())
    def test_law_generated_specs_have_no_errors(self, text: str) -> None:
        """Law: `specs()` draws specs the checker accepts (warnings allowed)."""
        _, found = check_source(text, "g.eval")
        assert [d for d in found if d.is_error] == []

    @PROPERTY
    @given(specs().flatmap(mutations))
    def test_law_check_never_raises_on_mutations(self, data: bytes) -> None:
        """Law: flipped bytes, cuts and splices give diagnostics, never exceptions."""
        result, found = check_source(data, "m.eval")
        for d in found:
            assert d.span.line >= 1 and d.span.col >= 1
            assert d.message and d.message[0].islower() or d.message[0] == "`"
            assert not d.message.endswith(".")

    @PROPERTY
    @given(st.binary(max_size=400))
    def test_law_check_never_raises_on_bytes(self, data: bytes) -> None:
        """Law: arbitrary bytes never raise."""
        check_source(data, "b.eval")

    @PROPERTY
    @given(laid_out_specs())
    def test_law_layout_does_not_change_the_verdict(self, text: str) -> None:
        """Law: formatting a spec does not change which problems it has."""
        before = [(d.code, d.message) for d in check_source(text, "x.eval")[1]]
        after = [(d.code, d.message) for d in check_source(format_source(text), "x.eval")[1]]
        assert after == before

    @PROPERTY
    @given(specs())
    def test_law_deterministic(self, text: str) -> None:
        """Law: checking twice gives the same diagnostics."""
        assert check_source(text, "d.eval")[1] == check_source(text, "d.eval")[1]
