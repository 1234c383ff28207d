"""Table options real tool arguments need, through a whole spec: replace, tolerance, units,
and tables chosen per function. Every verdict and score below is worked out by hand."""

from __future__ import annotations

import json
from typing import Any

import evaldsl


def verdict(tables: str, expected: dict[str, Any], actual: dict[str, Any],
            use: str) -> tuple[bool, float]:
    """(passed, score) of one `args_match` of `actual` against `expected` under `tables`.

    `use` is the `table:` or `tables:` argument text.
    """
    spec = (f"{tables}\n"
            f"check c = args_match(expected: {json.dumps(expected, ensure_ascii=False)}, "
            f"actual: {json.dumps(actual, ensure_ascii=False)}, {use})\n"
            "metric m = rate(c)\n")
    result = evaldsl.loads(spec).evaluate({"id": "t", "messages": []}).checks["c"]
    assert isinstance(result.passed, bool) and isinstance(result.score, float)
    return result.passed, result.score


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


class TestReplace:
    """BFCL turns `'` into `"` before comparing strings."""

    TABLE = 'table q (replace: {"\'": "\\""}) {}'

    def test_single_quotes_become_double(self) -> None:
        assert verdict(self.TABLE, call("f", s='say "hi"'), call("f", s="say 'hi'"),
                       "table: q") == (True, 1.0)

    def test_other_characters_still_differ(self) -> None:
        assert verdict(self.TABLE, call("f", s='say "hi"', n="a"),
                       call("f", s="say `hi`", n="a"), "table: q") == (False, 0.5)

    def test_replacements_are_simultaneous(self) -> None:
        """`a`→`b` and `b`→`a` swap: each character is replaced once, from the original."""
        table = 'table sw (replace: {a: "b", b: "a"}) {}'
        assert verdict(table, call("f", s="ba"), call("f", s="ab"), "table: sw") == (True, 1.0)

    def test_longer_source_wins(self) -> None:
        table = 'table t (replace: {"--": "—", "-": "–"}) {}'
        assert verdict(table, call("f", s="a—b–c"), call("f", s="a--b-c"),
                       "table: t") == (True, 1.0)

    def test_replace_before_mapping(self) -> None:
        table = 'table t (replace: {"\'": "\\""}) { "\\"x\\"" -> "X" }'
        assert verdict(table, call("f", s="X"), call("f", s="'x'"), "table: t") == (True, 1.0)


class TestTolerance:
    """4.18 against 4.184: within 0.01 absolutely, within 0.1% relatively (0.096%)."""

    def test_absolute_tolerance_accepts(self) -> None:
        table = "table t (tolerance: 0.01) {}"
        assert verdict(table, call("f", x=4.18), call("f", x=4.184), "table: t") == (True, 1.0)

    def test_absolute_tolerance_refuses(self) -> None:
        table = "table t (tolerance: 0.001) {}"
        assert verdict(table, call("f", x=4.18, y=1), call("f", x=4.184, y=1),
                       "table: t") == (False, 0.5)

    def test_relative_tolerance_accepts(self) -> None:
        table = "table t (tolerance: 0.1%) {}"
        assert verdict(table, call("f", x=4.18), call("f", x=4.184), "table: t") == (True, 1.0)

    def test_relative_tolerance_refuses(self) -> None:
        table = "table t (tolerance: 0.05%) {}"
        assert verdict(table, call("f", x=4.18), call("f", x=4.184), "table: t") == (False, 0.0)

    def test_either_bound_suffices(self) -> None:
        """`[0.001, 0.1%]`: 0.004 is outside 0.001 but inside 0.1% of 4.184."""
        table = "table t (tolerance: [0.001, 0.1%]) {}"
        assert verdict(table, call("f", x=4.18), call("f", x=4.184), "table: t") == (True, 1.0)

    def test_numeric_strings_too(self) -> None:
        table = "table t (tolerance: 0.01) {}"
        assert verdict(table, call("f", x="4.18"), call("f", x="4.184"),
                       "table: t") == (True, 1.0)

    def test_without_tolerance_numbers_are_exact(self) -> None:
        assert verdict("table t (strip) {}", call("f", x=4.18), call("f", x=4.184),
                       "table: t") == (False, 0.0)


class TestUnits:
    def test_kilometres_and_metres(self) -> None:
        table = 'table d (units: "m") {}'
        assert verdict(table, call("f", d="5 km"), call("f", d="5000 m"), "table: d") == (True, 1.0)

    def test_chinese_minutes_and_hours(self) -> None:
        table = 'table t (units: "h") {}'
        assert verdict(table, call("f", t="0.5 h"), call("f", t="30分钟"),
                       "table: t") == (True, 1.0)

    def test_bare_number_is_in_the_tables_unit(self) -> None:
        table = 'table d (units: "km") {}'
        assert verdict(table, call("f", d=5), call("f", d="5000米"), "table: d") == (True, 1.0)

    def test_different_amount_fails(self) -> None:
        table = 'table d (units: "m") {}'
        assert verdict(table, call("f", d="5 km", n=1), call("f", d="500 m", n=1),
                       "table: d") == (False, 0.5)

    def test_other_dimension_is_not_converted(self) -> None:
        """5 kg is no distance: compared as text, it differs from `5 km`."""
        table = 'table d (units: "m") {}'
        assert verdict(table, call("f", d="5 km"), call("f", d="5 kg"), "table: d") == (False, 0.0)

    def test_several_dimensions(self) -> None:
        table = 'table q (units: ["km", "kg"]) {}'
        assert verdict(table, call("f", d="3 公里", w="2 公斤"), call("f", d="3000 m", w="2000 克"),
                       "table: q") == (True, 1.0)

    def test_units_with_tolerance_in_the_tables_unit(self) -> None:
        """4.184 km against 4180 m: 0.004 km apart, inside 0.01 (km)."""
        table = 'table d (units: "km", tolerance: 0.01) {}'
        assert verdict(table, call("f", d="4180 m"), call("f", d="4.184 km"),
                       "table: d") == (True, 1.0)

    def test_currency_is_text(self) -> None:
        """`元` is no unit: `100元` and `100 元` compare as text, so they differ."""
        table = 'table d (units: "m") {}'
        assert verdict(table, call("f", p="100元"), call("f", p="100 元"),
                       "table: d") == (False, 0.0)


class TestQualifiedKeys:
    """`get_weather.location` and `find_hotel.location` normalized differently."""

    TABLES = ('table city (casefold) { "beijing", "北京" -> "bj" }\n'
              'table area (remove: " ") {}')
    USE = 'tables: {"get_weather.location": city, "find_hotel.location": area}'

    def expected(self) -> list[dict[str, Any]]:
        return [call("get_weather", location="bj"), call("find_hotel", location="王府井 大街")]

    def run(self, weather: str, hotel: str) -> tuple[bool, float]:
        actual = [call("get_weather", location=weather), call("find_hotel", location=hotel)]
        spec = (f"{self.TABLES}\n"
                f"check c = args_match(expected: {json.dumps(self.expected(), ensure_ascii=False)},"
                f" actual: {json.dumps(actual, ensure_ascii=False)}, {self.USE})\n"
                "metric m = rate(c)\n")
        result = evaldsl.loads(spec).evaluate({"id": "t", "messages": []}).checks["c"]
        assert isinstance(result.passed, bool) and isinstance(result.score, float)
        return result.passed, result.score

    def test_each_function_gets_its_table(self) -> None:
        assert self.run("Beijing", "王府井大街") == (True, 1.0)

    def test_one_functions_table_does_not_apply_to_the_other(self) -> None:
        """`北京` is `bj` only for get_weather: for find_hotel spaces go, nothing else."""
        assert self.run("北京", "王府井 大街 ") == (True, 1.0)
        assert self.run("Beijing", "Wangfujing") == (False, 0.5)

    def test_qualified_key_wins_over_plain(self) -> None:
        tables = 'table city (casefold) {}\ntable loose (remove: "x") {}'
        use = 'tables: {location: loose, "f.location": city}'
        assert verdict(tables, call("f", location="Bj"), call("f", location="bJ"),
                       use) == (True, 1.0)
        assert verdict(tables, call("g", location="Bj"), call("g", location="bJ"),
                       use) == (False, 0.0)
        assert verdict(tables, call("g", location="Bj"), call("g", location="Bxj"),
                       use) == (True, 1.0)


class TestQualifiedPathsElsewhere:
    """`sets`, `optional` and `accept` name argument paths the same way `tables` does."""

    def both(self, use: str, a: dict[str, Any], b: dict[str, Any]) -> tuple[bool, float]:
        expected = [call("f", **a), call("g", **a)]
        actual = [call("f", **b), call("g", **b)]
        spec = (f"check c = args_match(expected: {json.dumps(expected, ensure_ascii=False)}, "
                f"actual: {json.dumps(actual, ensure_ascii=False)}, {use})\n"
                "metric m = rate(c)\n")
        result = evaldsl.loads(spec).evaluate({"id": "t", "messages": []}).checks["c"]
        assert isinstance(result.passed, bool) and isinstance(result.score, float)
        return result.passed, result.score

    def test_sets_for_one_function(self) -> None:
        """`f.ids` is a set, `g.ids` stays ordered: f's pair matches, g's does not."""
        assert self.both('sets: ["f.ids"]', {"ids": [1, 2]}, {"ids": [2, 1]}) == (False, 0.5)
        assert self.both('sets: ["ids"]', {"ids": [1, 2]}, {"ids": [2, 1]}) == (True, 1.0)

    def test_optional_for_one_function(self) -> None:
        """`f.note` may be left out; g's missing `note` fails one of g's two arguments."""
        assert self.both('optional: ["f.note"]', {"q": "x", "note": "n"}, {"q": "x"}) == (
            False, 0.75)

    def test_accept_for_one_function(self) -> None:
        assert self.both('accept: {"f.city": ["北京"]}', {"city": "beijing"},
                         {"city": "北京"}) == (False, 0.5)
        assert self.both('accept: {city: ["北京"], "g.city": ["peking"]}',
                         {"city": "beijing"}, {"city": "北京"}) == (False, 0.5)
