"""Every code block of the README and docs/ says what it is, and specs say it truthfully.

A fence's tag is a promise the reader relies on: ```eval is a whole spec that
`evaldsl check` passes, ```eval-fragment a part of one (it does not check on
its own), ```eval-error E101 / ```eval-warning W101 a deliberately wrong spec
that gives that diagnostic, ```eval-with-plugin a spec calling the example
plugin's primitive (tests/project/test_plugin_example.py checks it with the
plugin installed). Other tags (sh, text, json, ...) are not specs. A
bare ``` fence is not allowed, so every block is a decision someone made.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

from evaldsl.checker import check_source
from evaldsl.diagnostics import Diagnostic, render

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
WRONG = re.compile(r"eval-(error|warning) ([EW]\d{3})")


class Block(NamedTuple):
    page: str
    line: int
    tag: str
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(Block(str(page.relative_to(ROOT)), line, m.group(1).strip(), m.group(2)))
    return found


BLOCKS = _blocks()


def _of(tag: str) -> list[Block]:
    return [b for b in BLOCKS if b.tag == tag or b.tag.startswith(tag + " ")]


def _diagnostics(block: Block) -> list[Diagnostic]:
    return check_source(block.text, str(block))[1]


def _summary(found: list[Diagnostic]) -> list[str]:
    return [f"{d.code} {d.message}" for d in found]


def test_the_pages_have_specs() -> None:
    """The fence pattern finds the blocks at all (a broken pattern would pass everything)."""
    assert len(_of("eval")) >= 15 and len(_of("eval-error")) >= 40


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_every_block_is_tagged(block: Block) -> None:
    """A bare fence leaves the reader (and this test) guessing what the block is."""
    assert block.tag, f"{block}: tag the block (eval, eval-fragment, eval-error CODE, sh, text...)"


@pytest.mark.parametrize("block", _of("eval"), ids=str)
def test_whole_specs_check_clean(block: Block) -> None:
    """```eval is a spec a reader can copy into a file and run."""
    assert _summary([d for d in _diagnostics(block) if d.is_error]) == []


@pytest.mark.parametrize("block", _of("eval-fragment"), ids=str)
def test_fragments_are_not_whole_specs(block: Block) -> None:
    """A block that checks clean on its own is a whole spec: tag it ```eval."""
    assert any(d.is_error for d in _diagnostics(block)), f"{block} is a whole spec"


@pytest.mark.parametrize("block", _of("eval-with-plugin"), ids=str)
def test_plugin_specs_lack_only_the_plugin(block: Block) -> None:
    """Without the plugin, the one problem of such a spec is the primitive it brings."""
    errors = [d for d in _diagnostics(block) if d.is_error]
    assert errors and {d.code for d in errors} == {"E106"}, _summary(errors)


@pytest.mark.parametrize("block", _of("eval-error") + _of("eval-warning"), ids=str)
def test_wrong_examples_give_their_diagnostic(block: Block) -> None:
    """A wrong example shows the diagnostic its tag names, with that severity."""
    wanted = WRONG.fullmatch(block.tag)
    assert wanted is not None, f"{block}: write the code, e.g. ```eval-error E101"
    severity, code = wanted.groups()
    found = _diagnostics(block)
    assert code in [d.code for d in found], _summary(found)
    if severity == "warning":
        assert _summary([d for d in found if d.is_error]) == []


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.tag.startswith("eval")], ids=str)
def test_specs_are_not_hidden_under_other_tags(block: Block) -> None:
    """A block tagged sh or text that is in fact a clean spec with a check is mistagged."""
    result, found = check_source(block.text, str(block))
    is_spec = result.module is not None and "check " in block.text
    assert not (is_spec and not any(d.is_error for d in found)), f"{block}: tag it ```eval"


def _printed_after_wrong_examples() -> list[tuple[Block, Block]]:
    """Each wrong example of docs/diagnostics.md with the output block shown after it."""
    page = [b for b in BLOCKS if b.page == "docs/diagnostics.md"]
    return [(spec, shown) for spec, shown in zip(page, page[1:], strict=False)
            if WRONG.fullmatch(spec.tag) and shown.tag == "text"]


@pytest.mark.parametrize(("spec", "shown"), _printed_after_wrong_examples(),
                         ids=[str(s) for s, _ in _printed_after_wrong_examples()])
def test_diagnostics_page_prints_what_the_checker_prints(spec: Block, shown: Block) -> None:
    """The catalogue shows each diagnostic exactly as `evaldsl check` renders it."""
    printed = shown.text.rstrip("\n")
    name = printed.split(":", 1)[0]
    result, found = check_source(spec.text, name)
    code = WRONG.fullmatch(spec.tag).group(2)  # type: ignore[union-attr]
    assert render(next(d for d in found if d.code == code), result.source) == printed
