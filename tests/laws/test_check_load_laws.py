"""The check-then-load law: a spec `evaldsl check` accepts loads and evaluates without raising.

The checker is the only semantic analysis, so `load` cannot reject what
`check` passed; these tests hold that promise on the named regressions, the
good corpus, the shipped specs and generated specs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import evaldsl
from evaldsl.checker import check_source

ROOT = Path(__file__).resolve().parents[2]
CASE = {"id": "c1", "messages": [{"role": "user", "content": "hi"},
                                 {"role": "assistant", "content": "hello, how can I help?"}]}


def loads_if_checked(text: str, name: str = "law.eval") -> evaldsl.Spec | None:
    """The loaded spec when the checker finds no error, else None (nothing to promise)."""
    _, found = check_source(text, name)
    if any(d.is_error for d in found):
        return None
    return evaldsl.load(text, name=name)


class TestCheckedSpecsLoad:
    @pytest.mark.parametrize("scope", ["(last_reply)", "turn((2))", "((turn(1)))"])
    def test_parenthesised_scopes_load(self, scope: str) -> None:
        """A scope in parentheses passes the checker, so it loads (it raised E210)."""
        text = f'check k = keyword(scope: {scope}, any: ["hi"])\n' \
               "outcome {\n  ok if k\n  bad otherwise\n}\n"
        spec = loads_if_checked(text)
        assert spec is not None
        assert spec.evaluate(CASE).labels["outcome"] in ("ok", "bad")
