"""Keep the message catalogues in step with the code: `python scripts/catalogue.py`.

One command after adding or changing a message: it extracts every msgid from the
source (`_("...")`, `N_("...")`, `ngettext("...", "...", n)` in `dsl/` and
`stdlib_rules/`) and every standard primitive's docstring and parameter docs
(`evaldsl.primitives.doctexts`), updates each language's `.po` (new msgids arrive with an empty
translation, vanished ones are kept at the end as `#~` so a translation is never
lost) and compiles the `.mo` that ships beside it. Then fill in the empty `msgstr`s
and run it again. `--check` changes nothing and exits 1 when a `.po` or a `.mo` is
out of date or a msgid has no translation (the tests in `tests/i18n/` say the same).

Babel (the dev extra) does the extraction and the compiling; at run time evaldsl
reads the `.mo` with the standard `gettext` module only.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("dsl", "stdlib_rules")
"""The folders messages are extracted from."""
LOCALE = REPO / "dsl" / "i18n" / "locale"
DOMAIN = "evaldsl"
LANGUAGES = ("zh",)
"""The languages with a catalogue; English is the msgids themselves."""
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
"""The functions whose arguments are msgids (`evaldsl.i18n`)."""
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""The header's dates, fixed so that an unchanged catalogue is byte for byte the same."""


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every msgid in the source, with the places it is used."""
    template = Catalog(project="evaldsl", creation_date=FIXED_DATE, revision_date=FIXED_DATE)
    for folder in SOURCES:
        found = extract_from_dir(
            REPO / folder,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=(),
            strip_comment_tags=True,
        )
        for filename, line, msgid, _comments, context in found:
            where = f"{folder}/{filename}"
            template.add(msgid, locations=[(where, line)], context=context)
    for doc in primitive_docs():
        template.add(doc.text, locations=[(doc.path, 0)])
    return template


def primitive_docs() -> list[Any]:
    """The standard library's primitive and parameter docs, each a msgid of its own
    (`evaldsl.primitives.doctexts`): what `evaldsl primitives` and the editor show."""
    from evaldsl.primitives.doctexts import doc_texts
    from evaldsl.primitives.registry import Registry

    return list(doc_texts(Registry.standard(), REPO))


def read_catalogue(language: str) -> Catalog:
    path = po_path(language)
    if not path.exists():
        return Catalog(
            locale=language, project="evaldsl", creation_date=FIXED_DATE, revision_date=FIXED_DATE
        )
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def updated(language: str, template: Catalog) -> Catalog:
    """The language's catalogue with the msgids of `template`: new ones empty, old ones kept."""
    catalogue = read_catalogue(language)
    catalogue.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalogue.revision_date = FIXED_DATE
    catalogue.creation_date = FIXED_DATE
    catalogue.fuzzy = False
    return catalogue


def po_bytes(catalogue: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(
        out, catalogue, width=96, sort_output=False, include_previous=False, include_lineno=False
    )
    return out.getvalue()


def mo_bytes(catalogue: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalogue, use_fuzzy=False)
    return out.getvalue()


def untranslated(catalogue: Catalog) -> list[str]:
    """The msgids without a full translation (a plural counts only when every form is filled)."""
    return [_msgid(m) for m in _current(catalogue) if not _translated(m)]


def _current(catalogue: Catalog) -> Iterator[Message]:
    return (m for m in catalogue if m.id)


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings) and not message.fuzzy


def _msgid(message: Message) -> str:
    return message.id[0] if isinstance(message.id, tuple) else message.id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a catalogue is out of date",
    )
    args = parser.parse_args(argv)
    template = extract()
    stale = False
    for language in LANGUAGES:
        catalogue = updated(language, template)
        po, mo = po_bytes(catalogue), mo_bytes(catalogue)
        path = po_path(language)
        missing = untranslated(catalogue)
        for msgid in missing:
            print(f"{language}: untranslated: {msgid!r}")
        changed = _differs(path, po) or _differs(path.with_suffix(".mo"), mo)
        if args.check:
            stale = stale or changed or bool(missing)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(po)
        path.with_suffix(".mo").write_bytes(mo)
        print(
            f"{language}: {len(list(_current(catalogue)))} messages, "
            f"{len(missing)} untranslated -> {path.relative_to(REPO)}"
        )
    return 1 if stale else 0


def _differs(path: Path, content: bytes) -> bool:
    return not path.exists() or path.read_bytes() != content


if __name__ == "__main__":
    sys.exit(main())
