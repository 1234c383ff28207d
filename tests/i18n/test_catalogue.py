"""The Chinese catalogue covers the code's messages, faithfully, and ships compiled.

Whoever merges new messages runs `python scripts/catalogue.py` and fills in what
`test_every_msgid_has_a_translation` lists (docs/languages.md).
"""

from __future__ import annotations

import gettext
import importlib.util
import io
import string
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

REPO = Path(__file__).resolve().parents[2]
PO = REPO / "dsl" / "i18n" / "locale" / "zh" / "LC_MESSAGES" / "evaldsl.po"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalogue", REPO / "scripts" / "catalogue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    with PO.open("rb") as handle:
        return read_po(handle, locale="zh")


def _strings(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def _ids(message: Message) -> tuple[str, ...]:
    return message.id if isinstance(message.id, tuple) else (message.id,)


def fields(text: str) -> set[str]:
    """The replacement fields of a format string, as written (`{count:,}`, `{name!r}`).

    >>> sorted(fields("{a} and {b!r:>3} but {{not}}"))
    ['{a}', '{b!r:>3}']
    >>> fields("use `{`")
    {'{'}
    """
    out = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:  # never formatted, such as "use `{`": its braces are compared as they are
        return {"{" * text.count("{") + "}" * text.count("}")}
    for _literal, name, spec, conversion in parsed:
        if name is not None:
            out.add(
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
    return out


def test_every_msgid_has_a_translation(script: ModuleType) -> None:
    """Lists exactly the msgids still to translate: run scripts/catalogue.py, fill them in."""
    missing = script.untranslated(script.updated("zh", script.extract()))
    assert not missing, (
        "msgids without a Chinese translation (run `python scripts/catalogue.py`, then fill in "
        "their msgstr in dsl/i18n/locale/zh/LC_MESSAGES/evaldsl.po):\n"
        + "\n".join(f"  {m!r}" for m in missing)
    )


def test_po_and_mo_are_what_the_script_writes(script: ModuleType) -> None:
    """The shipped .po holds the code's msgids and the .mo is compiled from that .po."""
    assert script.main(["--check"]) == 0, "run `python scripts/catalogue.py`"


def test_mo_is_compiled_from_the_po(shipped: Catalog) -> None:
    """What gettext reads at run time is what the .po says."""
    out = io.BytesIO()
    write_mo(out, shipped)
    out.seek(0)
    expected = gettext.GNUTranslations(out)
    with PO.with_suffix(".mo").open("rb") as handle:
        actual = gettext.GNUTranslations(handle)
    assert actual._catalog == expected._catalog  # type: ignore[attr-defined]


def test_placeholders_are_the_same_in_both_languages(shipped: Catalog) -> None:
    """A translation that drops or renames `{name}` would raise or mislead at run time."""
    wrong = []
    for message in shipped:
        if not message.id:
            continue
        wanted = set().union(*(fields(i) for i in _ids(message)))
        for text in _strings(message):
            if text and fields(text) != wanted:
                wrong.append(f"{_ids(message)[0]!r} -> {text!r}")
    assert not wrong, "\n".join(wrong)


def test_code_spans_stay_as_written(shipped: Catalog) -> None:
    """Keywords, primitive names and examples in backticks are code: never translated."""

    def code(text: str) -> list[str]:
        return sorted(text.split("`")[1::2])

    wrong = [
        f"{m.id!r} -> {m.string!r}"
        for m in shipped
        if isinstance(m.id, str) and m.id and m.string and code(m.id) != code(m.string)
    ]
    assert not wrong, "\n".join(wrong)


def test_every_translation_is_chinese_or_code(shipped: Catalog) -> None:
    """No msgstr is the English text copied over: each has a Chinese character, or is code."""
    copied = [
        m.id
        for m in shipped
        if m.id
        and all(t == i for t, i in zip(_strings(m), _ids(m), strict=False))
        and any(c.isalpha() for c in _ids(m)[0].replace("`", ""))
        and not _is_code(_ids(m)[0])
    ]
    assert not copied, copied


def _is_code(text: str) -> bool:
    """Messages that are the same in every language: names, formulas, keywords."""
    return text in {
        "let",
        "Cohen's kappa  {kappa}",
        "  Cohen's kappa  {kappa}",
        "  Pearson r {r} · Spearman rho {r2}",
        "outcome `{name}`",
    }
