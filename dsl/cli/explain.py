"""`evaldsl explain SPEC`: the evaluation graph, and which checks each case needs.

Prints the checks cheapest first, marking those every case needs, those only
some cases need (a model check behind a cheap gate, a metric argument behind
its `where`) and those never computed; then the outcome blocks, metrics,
review rules and the evaluation order. `--format dot` and `--format mermaid`
print the same graph for Graphviz or Mermaid. Exit 0, or 2 when the spec has
errors or cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaldsl.analysis.explain import FORMATS
from evaldsl.api import load
from evaldsl.cli.exits import EXIT_OK
from evaldsl.i18n import _


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "explain", help=_("show the evaluation graph of a spec"),
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("spec", metavar="SPEC", help=_("a .eval file"))
    p.add_argument("--format", choices=FORMATS, default="text",
                   help=_("a text tree (default), Graphviz dot or Mermaid"))


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(load(args.spec).explain(args.format))
    return EXIT_OK
