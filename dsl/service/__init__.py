"""The language service: position-based queries over a spec's text, for editors.

`LanguageService` keeps the open documents and answers what an editor asks at a
position: diagnostics, completions, hovers, definitions, references, renames, quick
fixes, formatting and inlay hints. It is pure Python over the parser, the checker and
`explain`; positions are the Language Server Protocol's (0-based lines and UTF-16 code
units), converted at this boundary only. `evaldsl lsp` (`evaldsl.cli.lsp`) puts it on
stdio with pygls; nothing here imports pygls.
"""

from __future__ import annotations

from evaldsl.service.positions import Position, Range
from evaldsl.service.service import LanguageService

__all__ = ["LanguageService", "Position", "Range"]
