"""Quantities with units, the `units` option of tables: `5 km` = `5000 m`, `30分钟` = `0.5 h`.

A table declared `units: "km"` (or a list, one unit per kind of quantity:
`units: ["km", "kg"]`) reads a value that is wholly a number and a unit as
that quantity converted to the table's unit of the same dimension, so
arguments compare as numbers. Conversion is pint's, not a list of string
synonyms; pint is imported, and its registry built (about half a second),
only when a table uses units, so a spec without them never loads it.

Chinese unit names are mapped to pint's by the small table `CHINESE_UNITS`.
Currencies (`元`, `美元`, ...) are not units: their rates change, no factor
converts them, and `CURRENCIES` lets the checker say so.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any, NamedTuple

CHINESE_UNITS: dict[str, str] = {
    "秒": "second", "秒钟": "second", "分钟": "minute", "小时": "hour", "钟头": "hour",
    "天": "day", "周": "week", "星期": "week",
    "毫米": "millimeter", "厘米": "centimeter", "米": "meter", "公里": "kilometer",
    "千米": "kilometer", "英里": "mile",
    "毫克": "milligram", "克": "gram", "公斤": "kilogram", "千克": "kilogram",
    "斤": "500 * gram", "吨": "metric_ton",
    "毫升": "milliliter", "升": "liter",
    "摄氏度": "degree_Celsius", "℃": "degree_Celsius", "华氏度": "degree_Fahrenheit",
    "℉": "degree_Fahrenheit",
}
"""Chinese unit name -> pint unit expression (`斤` is the market catty, 500 g)."""

CURRENCIES = frozenset({"元", "块", "角", "人民币", "美元", "欧元", "日元", "英镑", "港币",
                        "CNY", "RMB", "USD", "EUR", "JPY", "GBP", "HKD", "$", "¥", "€", "£"})
"""Currency names and signs the checker refuses as units."""

RELATIVE_ROUNDING = 1e-9
"""Converted quantities are equal within this share: `0.1 km` in m is not exactly 100.0."""

_UNIT = r"(?:[^\W\d]|°)[\w°/*^ ]*?"
"""A unit's spelling: a letter (any script) or `°` first, then words, `/`, `*`, `^`."""
_QUANTITY = re.compile(rf"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*({_UNIT})\s*")
_UNIT_NAME = re.compile(_UNIT)


class Target(NamedTuple):
    """One unit of a table: what quantities of its dimension are converted to."""

    unit: Any
    dimensionality: Any


@cache
def _registry() -> Any:
    import pint  # about a second to import: only specs whose tables use units pay it

    return pint.UnitRegistry()


def parse_unit(name: str) -> Any | None:
    """The pint unit `name` spells (Chinese names too), or None when it is not a unit."""
    name = name.strip()
    expression = CHINESE_UNITS.get(name)
    if expression is None:
        if not _UNIT_NAME.fullmatch(name) or name in CURRENCIES:
            return None
        expression = name
    try:
        unit = _registry().parse_expression(expression)
    except Exception:  # pint's parser raises many types on garbage; all mean "not a unit"
        return None
    units = getattr(unit, "units", None)
    if units is None or unit.dimensionless:
        return None
    return unit


def unit_problem(name: str) -> str | None:
    """Why `name` cannot be a table's unit: `currency`, `unknown`, or None when it can."""
    if name.strip() in CURRENCIES:
        return "currency"
    return None if parse_unit(name) is not None else "unknown"


def dimension(name: str) -> str:
    """The dimension of a known unit, in pint's words: `[length]`, `[mass]`."""
    unit = parse_unit(name)
    return "" if unit is None else str(unit.dimensionality)


@cache
def targets(units: tuple[str, ...]) -> tuple[Target, ...]:
    """The table's units, ready to convert to (unknown names are left out)."""
    found = [parse_unit(u) for u in units]
    return tuple(Target(u, u.dimensionality) for u in found if u is not None)


def magnitude(text: str, units: tuple[str, ...]) -> float | None:
    """`text` as a number in the table's unit of its dimension, or None when it is no quantity.

    >>> magnitude("30分钟", ("h",))
    0.5
    >>> magnitude("5 kg", ("km",)) is None
    True
    """
    match = _QUANTITY.fullmatch(unicodedata.normalize("NFKC", text.replace("℃", "摄氏度")))
    if match is None or not units:
        return None
    unit = parse_unit(match.group(2))
    if unit is None:
        return None
    for target in targets(units):
        if unit.dimensionality == target.dimensionality:
            amount = float(match.group(1)) * float(unit.magnitude)
            converted = _registry().Quantity(amount, unit.units).to(target.unit.units)
            return float(converted.magnitude) / float(target.unit.magnitude)
    return None
