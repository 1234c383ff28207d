"""Whether a request fits the judge's context window, and the error when it does not.

A dialog longer than the judge can read must be an error that says so, with the
counts, before anything is sent when the context is known (the local judge's, or
`context` in the judge's settings); a server's own refusal (OpenAI's
`context_length_exceeded`, the local server's) is read into the same error, so the
two say the same thing. Never a silent truncation: llama.cpp would quietly shrink
`max_tokens` to what is left of its window, and the answer would come back cut.

The prompt is estimated from its characters (`estimate_tokens`), without the
judge's tokenizer: benchmarks/judge_context.py measures the estimate against the
local model's tokenizer on the shipped dialogs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from evaldsl.model.errors import ContextExceeded

ASCII_CHARS_PER_TOKEN = 3.0
"""English and markup: about four characters a token, counted as three to stay above."""
MESSAGE_TOKENS = 8
"""A chat template's tokens around each message (role markers, separators)."""


def estimate_tokens(messages: Iterable[Mapping[str, str]]) -> int:
    """Prompt tokens of `messages`, estimated from above: every non-ASCII character (a
    Chinese character is at most about one token) as one, ASCII at three a token.

    >>> estimate_tokens([{"role": "user", "content": "你好 hello"}])
    12
    """
    total = 0
    for message in messages:
        text = message.get("content", "")
        wide = sum(1 for c in text if not c.isascii())
        total += MESSAGE_TOKENS + wide + int((len(text) - wide) / ASCII_CHARS_PER_TOKEN + 0.999)
    return total


def check_fits(messages: Iterable[Mapping[str, str]], answer: int | None,
               context: int | None) -> None:
    """Raise `ContextExceeded` when the estimated prompt and `answer` exceed `context`."""
    if context is None:
        return
    prompt = estimate_tokens(messages)
    if prompt + (answer or 0) > context:
        raise ContextExceeded(prompt, answer or 0, context, estimated=True)


_LIMIT = re.compile(r"(?:maximum context length is|context window of|n_ctx[ =:]*)\s*(\d+)",
                    re.I)
_PROMPT = re.compile(r"(\d+) (?:tokens )?in the messages|requested tokens \((\d+)\)", re.I)
_MARKERS = ("context_length_exceeded", "maximum context length", "context window",
            "context length")


def is_context_refusal(code: object, message: str) -> bool:
    """Whether a server's refusal says the request is beyond its context window."""
    return code == "context_length_exceeded" or any(m in message.lower() for m in _MARKERS)


def from_server(message: str, estimate: int, answer: int) -> ContextExceeded:
    """The error for a server's context refusal: its own counts where it gave them (OpenAI
    and the local server do), the estimate of the prompt where it did not."""
    limit = _LIMIT.search(message)
    prompt = _PROMPT.search(message)
    counted = next((int(g) for g in prompt.groups() if g), None) if prompt else None
    context = int(limit.group(1)) if limit else None
    if counted is None:
        return ContextExceeded(estimate, answer, context, estimated=True)
    return ContextExceeded(counted, answer, context, estimated=False)
