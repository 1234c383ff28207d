"""Prompts: one request for one or several checks about the same text.

The text under judgment is written once, between `<dialog>` tags, with
numbered `role: text` lines (so `steps` can name the message a step
happened in). Then one question per check, each under the key its answer
must use, with the check's worked examples; then the shape of the answer:
an object with one property per check. A request for one check is the same
prompt with one question, which is what makes fused and separate verdicts
agree. Nothing here depends on the server, so cache keys do not either.

The JSON Schema itself goes to the server as the response format (where
the server takes one, it constrains the answer); the prompt shows the same
shape in a compact notation (`{"score": integer 0 to 10}`). Models follow a
shape more reliably than a schema written out as JSON, and the schema text
cost 100 to 200 prompt tokens per question, which a small local judge on a
CPU pays for in seconds. `max_tokens` is the answer's budget, derived from
the schema (`evaldsl.model.budget`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from evaldsl.cases.scopes import Unit
from evaldsl.model.budget import answer_tokens
from evaldsl.model.checks import ChatTask
from evaldsl.model.protocols import JudgeRequest

SYSTEM = (
    "You are a careful, strict evaluator of conversations between a user and an AI agent. "
    "Judge only what each question asks, from the text given, and answer in the language "
    "of your instructions. Reply with one JSON object with exactly the keys requested."
)


def render_unit(unit: Unit) -> str:
    """The judged text: numbered `role: text` lines, tool calls written as calls; where a
    window left messages out, a line says how many, and the kept ones keep their numbers."""
    numbers = unit.numbers or range(1, len(unit.messages) + 1)
    lines: list[str] = []
    previous = 0
    for number, message in zip(numbers, unit.messages, strict=True):
        lines.extend(_left_out(number - previous - 1))
        lines.append(f"[{number}] {message.line}")
        previous = number
    lines.extend(_left_out(unit.total - previous))
    return "\n".join(lines) if lines else unit.text


def _left_out(count: int) -> list[str]:
    return [f"[... {count} messages left out ...]"] if count > 0 else []


def answer_schema(tasks: Sequence[tuple[str, ChatTask]]) -> dict[str, Any]:
    """An object with one property per check, each described by its question."""
    properties = {key: {**task.schema, "description": task.instruction} for key, task in tasks}
    return {"type": "object", "properties": properties, "required": [k for k, _ in tasks],
            "additionalProperties": False}


def shape(schema: dict[str, Any]) -> str:
    """`schema` in the compact notation the prompt shows; JSON for what it cannot say.

    >>> shape({"type": "object", "properties": {"score": {"type": "integer", "minimum": 0,
    ...        "maximum": 10}, "kind": {"enum": ["a", "b"]}}})
    '{"score": integer 0 to 10, "kind": "a" | "b"}'
    """
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        fields = ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {shape(v)}"
                           for k, v in schema["properties"].items())
        return f"{{{fields}}}"
    if kind == "array" and isinstance(schema.get("items"), dict):
        distinct = ", no repeats" if schema.get("uniqueItems") else ""
        return f"[{shape(schema['items'])}, ...{distinct}]"
    if kind in ("integer", "number"):
        return f"{kind}{_bounds(schema.get('minimum'), schema.get('maximum'))}"
    if kind in ("string", "boolean"):
        notes = [schema["description"]] if isinstance(schema.get("description"), str) else []
        if isinstance(schema.get("maxLength"), int):
            notes.append(f"at most {schema['maxLength']} characters")
        return f"{kind} ({', '.join(notes)})" if notes else str(kind)
    return json.dumps(schema, ensure_ascii=False, sort_keys=True)


def task_shape(task: ChatTask) -> str:
    """`shape` of a task's answer, remembered: every case asks the same few. The key keeps
    the schema's property order, which is the order the judge is asked to answer in."""
    return _shape_of(json.dumps(task.schema, ensure_ascii=False))


@functools.lru_cache(maxsize=1024)
def _shape_of(schema_json: str) -> str:
    return shape(json.loads(schema_json))


def _bounds(low: object, high: object) -> str:
    if low is not None and high is not None:
        return f" {low} to {high}"
    if low is not None:
        return f" >= {low}"
    return f" <= {high}" if high is not None else ""


def question(key: str, task: ChatTask) -> str:
    """One check's question with its worked examples."""
    lines = [f'- "{key}": {task.instruction}']
    for text, answer in task.examples:
        shown = json.dumps(answer, ensure_ascii=False)
        lines.append(f"  example: text {json.dumps(text, ensure_ascii=False)} -> {shown}")
    return "\n".join(lines)


def build_request(unit: Unit, tasks: Sequence[tuple[str, ChatTask]], temperature: float = 0.0,
                  metadata: dict[str, Any] | None = None) -> JudgeRequest:
    """The request asking every task in `tasks` about `unit` at once."""
    schema = answer_schema(tasks)
    questions = "\n".join(question(key, task) for key, task in tasks)
    fields = ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {task_shape(task)}"
                       for key, task in tasks)
    user = (f"<dialog>\n{render_unit(unit)}\n</dialog>\n\n"
            f"Answer each question under its key:\n{questions}\n\n"
            f"Reply with JSON only, in this shape:\n{{{fields}}}")
    return JudgeRequest(
        messages=({"role": "system", "content": SYSTEM}, {"role": "user", "content": user}),
        schema=schema, schema_name="verdicts", temperature=temperature,
        max_tokens=answer_tokens(schema), metadata=dict(metadata or {}))


def repair_request(original: JudgeRequest, raw: str, problem: str) -> JudgeRequest:
    """The one follow-up asking the model to fix an answer that did not fit."""
    follow_up = (f"Your reply could not be used: {problem}. Reply again with only the JSON "
                 "object, matching the schema exactly.")
    messages = (*original.messages, {"role": "assistant", "content": raw},
                {"role": "user", "content": follow_up})
    return JudgeRequest(messages, original.schema, original.schema_name, original.temperature,
                        original.max_tokens, {**original.metadata, "repair": True})


def property_key(name: str) -> str:
    """A check name usable as a JSON property by every server, stable per name.

    >>> property_key("polite"), property_key("意图")
    ('polite', 'check_8edf354c')
    """
    if name.isascii() and name.replace("_", "").isalnum() and len(name) <= 64:
        return name
    return "check_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
