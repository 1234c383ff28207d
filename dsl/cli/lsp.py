"""`evaldsl lsp`: the language server, over standard input and output.

An editor starts it and speaks the Language Server Protocol on its stdin and stdout
(docs/editors.md). It needs the `lsp` extra (`pip install "evaldsl[lsp]"`, which brings
pygls); without it the verb says so and exits 2. The answers come from
`evaldsl.service`; `evaldsl.lsp.handlers` only carries them over the protocol.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaldsl.cli.exits import EXIT_DATA, EXIT_OK
from evaldsl.errors import UsageError
from evaldsl.i18n import _


def add_parser(subparsers: Any) -> None:
    subparsers.add_parser(
        "lsp", help=_("run the language server for editors, on stdin and stdout"),
        description=__doc__.split("\n\n")[0] if __doc__ else None)


def run(args: argparse.Namespace) -> int:
    try:
        from evaldsl.lsp.handlers import serve
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith(("pygls", "lsprotocol")):
            raise
        raise UsageError(_("the language server needs pygls"),
                         _('install it with `pip install "evaldsl[lsp]"`')) from exc
    broken = serve()
    if broken is not None:
        sys.stderr.write(_("evaldsl lsp: error: {reason}; the session ends, the editor may "
                           "start the server again").format(reason=broken) + "\n")
        return EXIT_DATA
    return EXIT_OK
