"""Keys cut out of what a server says, before it is stored anywhere.

Servers repeat the key they were sent: a gateway's 500 quotes the header it refused, a
model told about the request may write it into its answer. Whatever a server says can end
up in a check's reason or fields, and from there in report.json, the HTML and Markdown
reports, JUnit XML, the results journal, the cache and the terminal. So the model runtime
passes every server text through one `Redactor` where it becomes a result (an answer's
values, a failure's reason), and the clients pass their error messages through it too:
no writer needs to know, and none can forget.

A `Redactor` replaces each configured key (longest first, so a key that contains another
is cut whole) and anything shaped like a bearer token or an `sk-` key with `***`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from evaldsl.model.keys import PLACEHOLDER_KEY

MASK = "***"
KEYLIKE = re.compile(r"(?i)\bbearer\s+\S+|\bsk-[\w*.-]+")
"""Anything that looks like a key whether or not it is one of ours."""
NOT_SECRET = frozenset({PLACEHOLDER_KEY, "local"})
"""Keys evaldsl itself sends where none is needed: cutting them out would only garble text."""


class Redactor:
    """Cuts the given keys, and anything key-shaped, out of text and JSON values."""

    def __init__(self, keys: Iterable[str | None] = ()) -> None:
        secrets = {key for key in keys if key and key not in NOT_SECRET}
        self.keys = tuple(sorted(secrets, key=len, reverse=True))

    def text(self, text: str) -> str:
        """`text` with every key replaced by `***`.

        >>> Redactor(["k-123"]).text("got k-123 and Bearer abc, sk-x1")
        'got *** and ***, ***'
        """
        for key in self.keys:
            text = text.replace(key, MASK)
        return KEYLIKE.sub(MASK, text)

    def value(self, value: Any) -> Any:
        """A JSON value with `text` applied to every string in it, keys of objects too."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value

