"""`BadRow`: a row that could not become a case, named by its file, line and field."""

from __future__ import annotations

from typing import Any

import msgspec

from evaldsl.errors import CaseDataError
from evaldsl.i18n import _


class BadRow(msgspec.Struct, frozen=True):
    """A row that could not become a case."""

    file: str
    line: int
    reason: str
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "field": self.field, "reason": self.reason}

    def __str__(self) -> str:
        where = _(" field `{field}`:").format(field=self.field) if self.field else ""
        return f"{self.file}:{self.line}:{where} {self.reason}"

    def error(self) -> CaseDataError:
        return CaseDataError(self.file, self.line, self.reason, self.field)
