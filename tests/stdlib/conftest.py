"""Helpers for the primitive tests: build cases and run one primitive on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope
from evaldsl.primitives.registry import default_registry
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]
MakeCall = Callable[..., dict[str, Any]]


def dialog(*turns: Any, **fields: Any) -> Case:
    """A case from `("user", "text")`, `("assistant", "text", {extra})` tuples."""
    messages = []
    for turn in turns:
        message: dict[str, Any] = {"role": turn[0], "content": turn[1]}
        if len(turn) > 2:
            message.update(turn[2])
        messages.append(message)
    return Case.from_dict({"id": "t", "messages": messages, **fields})


def call(name: str, arguments: Any, id: str = "c") -> dict[str, Any]:
    """An OpenAI tool call; `arguments` is encoded as JSON text unless it is text."""
    import json

    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": text}}


def run_primitive(name: str, case: Case, scope: str | None = None, /,
                  **params: Any) -> CheckResult:
    """Validate `params` with the primitive's model and evaluate it on `case`.

    `scope` is a scope word, or `turn:N` for `turn(N)`.
    """
    primitive = default_registry().get(name)
    assert primitive is not None, name
    model = primitive.params.model_validate(params)
    kind, _, index = (scope or primitive.default_scope or "dialog").partition(":")
    result: CheckResult = primitive.factory(model)(case, Scope(kind, int(index) if index else None))
    return result


@pytest.fixture
def run() -> Run:
    return run_primitive


@pytest.fixture(name="dialog")
def dialog_fixture() -> Dialog:
    return dialog


@pytest.fixture(name="call")
def call_fixture() -> MakeCall:
    return call
