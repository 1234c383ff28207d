"""Write or check a JSON Schema file generated from the code (`python -m` of the module
that builds it): report.json's (`evaldsl.report.document`) and evaldsl.toml's
(`evaldsl.settings_schema`) take the same three forms on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def rendered(schema: dict[str, Any]) -> str:
    """A schema as the shipped files spell it."""
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str] | None, *, describes: str, text: str) -> int:
    """Write `text` to stdout or a file, or with `--check` exit 1 when the file differs."""
    parser = argparse.ArgumentParser(description=f"write the JSON Schema of {describes}")
    parser.add_argument("path", type=Path, nargs="?", help="the file to write (default stdout)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the file differs from the schema instead of writing it")
    args = parser.parse_args(argv)
    if args.path is None:
        sys.stdout.write(text)
    elif args.check:
        return 0 if args.path.is_file() and args.path.read_text("utf-8") == text else 1
    else:
        args.path.write_text(text, encoding="utf-8")
    return 0
