"""An answer's token budget, derived from its JSON Schema.

A request's `max_tokens` is the most tokens an answer that fits the schema can take,
so a judge is never cut off by a guess: a fixed cap (the local server's 512) was too
small for a fused answer whose reasons ran long, and no cap at all lets a runaway
string hold a CPU judge for minutes. The rule, per schema node:

- a character of JSON structure (braces, quotes, key names, numbers, `true`) is at
  most one token, and every value may carry a space on each side (as the grammar the
  local judge decodes with allows);
- a character of free text is at most `TEXT_TOKENS_PER_CHAR` tokens: a byte-level
  tokenizer spends at worst one token per UTF-8 byte, and the text judges write
  (Chinese included) is in the Basic Multilingual Plane, three bytes a character
  (an escape such as `\n` is two characters of one, and is not provided for);
- an integer has as many digits as its wider bound (20 when it has none), a number
  takes `NUMBER_CHARS`, an `enum` its longest value;
- a string without `maxLength` or an array without `maxItems` has no bound: the whole
  answer then has none (None), and the server's own cap applies.

`ANSWER_SLACK` tokens are added for what surrounds the object (a newline, the end
token). An answer cut off anyway (a reasoning model spends completion tokens before
it answers) is asked once more with `larger_budget`. The standard library's schemas
are all bounded (tests/stdlib/test_answer_schemas.py).

>>> answer_tokens({"type": "object", "properties": {"score": {"type": "integer",
...     "minimum": 0, "maximum": 10}, "reason": {"type": "string", "maxLength": 20}}})
107
"""

from __future__ import annotations

import json
from typing import Any

TEXT_TOKENS_PER_CHAR = 3
"""Tokens a character of free text may take at worst (one per UTF-8 byte, BMP text)."""
NUMBER_CHARS = 24
"""The longest a JSON number is written (`-1.2345678901234567e-308`)."""
ANSWER_SLACK = 16
"""Tokens for what surrounds the answer's object: white space, the end token."""
SPACES = 2
"""Optional white space around a value, one token on each side."""
RETRY_FACTOR = 2
"""How much larger the budget of the one retry after a cut-off answer is."""
UNBOUNDED_RETRY = 1024
"""The retry's budget when the cut answer had none and the server said nothing of its cost."""


def answer_tokens(schema: dict[str, Any]) -> int | None:
    """The most tokens an answer fitting `schema` takes, or None when it is unbounded."""
    found = _tokens(schema)
    return None if found is None else found + ANSWER_SLACK


def larger_budget(budget: int | None, spent: int) -> int:
    """The budget to ask again with after an answer was cut off at `budget` (or, without
    one, at the server's own cap, after `spent` tokens).

    >>> larger_budget(400, 400), larger_budget(None, 512), larger_budget(None, 0)
    (800, 1024, 1024)
    """
    return RETRY_FACTOR * (budget or spent) if (budget or spent) else UNBOUNDED_RETRY


def _tokens(schema: Any) -> int | None:
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return SPACES + max((_literal(v) for v in schema["enum"]), default=4)
    kind = schema.get("type")
    if kind == "object":
        return _object(schema)
    if kind == "array":
        return _array(schema)
    if kind == "string":
        limit = schema.get("maxLength")
        return SPACES + 2 + TEXT_TOKENS_PER_CHAR * limit if isinstance(limit, int) else None
    return _scalar(schema, kind)


def _object(schema: dict[str, Any]) -> int | None:
    """Braces, then per property its quoted key, a colon, a comma and the value."""
    total = SPACES + 2
    for key, sub in schema.get("properties", {}).items():
        value = _tokens(sub)
        if value is None:
            return None
        total += _literal(key) + 2 + value
    return total


def _array(schema: dict[str, Any]) -> int | None:
    limit, item = schema.get("maxItems"), _tokens(schema.get("items", {}))
    if not isinstance(limit, int) or item is None:
        return None
    return SPACES + 2 + limit * (item + 1)


def _scalar(schema: dict[str, Any], kind: Any) -> int | None:
    if kind == "boolean":
        return SPACES + len("false")
    if kind == "null":
        return SPACES + len("null")
    if kind == "integer":
        bounds = [b for b in (schema.get("minimum"), schema.get("maximum")) if b is not None]
        digits = max((len(str(int(b))) for b in bounds), default=20) if len(bounds) == 2 else 20
        return SPACES + digits
    if kind == "number":
        return SPACES + NUMBER_CHARS
    return None


def _literal(value: Any) -> int:
    """Tokens of a constant written as JSON: structure, but its non-ASCII text as text."""
    written = json.dumps(value, ensure_ascii=False)
    return sum(1 if c.isascii() else TEXT_TOKENS_PER_CHAR for c in written)
