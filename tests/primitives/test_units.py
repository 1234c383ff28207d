"""Quantities in a table's unit: pint's conversions, Chinese names, what is not a quantity."""

from __future__ import annotations

import pytest

from evaldsl.primitives.units import dimension, magnitude, unit_problem


class TestMagnitude:
    @pytest.mark.parametrize(("text", "units", "expected"), [
        ("5 km", ("m",), 5000.0),
        ("5000米", ("km",), 5.0),
        ("30分钟", ("h",), 0.5),
        ("2 斤", ("kg",), 1.0),
        ("1500 毫升", ("升",), 1.5),
        ("１２ ｋｍ", ("m",), 12000.0),
        ("-3.5 km", ("m",), -3500.0),
        ("1e3 m", ("km",), 1.0),
        ("3 公里", ("km", "kg"), 3.0),
        ("2000 克", ("km", "kg"), 2.0),
    ])
    def test_converted_to_the_unit_of_its_dimension(self, text: str, units: tuple[str, ...],
                                                    expected: float) -> None:
        assert magnitude(text, units) == pytest.approx(expected, rel=1e-12)

    def test_offset_temperatures(self) -> None:
        """0 ℃ is 32 ℉, not 0: pint converts offsets, a factor would not."""
        assert magnitude("0℃", ("degF",)) == pytest.approx(32.0)
        assert magnitude("100 摄氏度", ("K",)) == pytest.approx(373.15)

    @pytest.mark.parametrize("text", ["5 kg", "100元", "5", "km", "about 5 km", "5 km!", ""])
    def test_not_a_quantity_of_the_tables_dimensions(self, text: str) -> None:
        assert magnitude(text, ("km",)) is None


class TestUnitNames:
    @pytest.mark.parametrize(("name", "problem"), [
        ("km", None), ("公里", None), ("m/s", None), ("℃", None), ("kmh", "unknown"),
        ("", "unknown"),
        ("元", "currency"), ("USD", "currency"), ("5", "unknown"), ("km!", "unknown"),
    ])
    def test_problem(self, name: str, problem: str | None) -> None:
        assert unit_problem(name) == problem

    def test_dimension_in_pints_words(self) -> None:
        assert (dimension("千米"), dimension("小时")) == ("[length]", "[time]")
