"""Messages in the user's language: Simplified Chinese or English.

Every user-facing message is written in English in the code and wrapped in
`_()` (or `ngettext` where a count decides the wording); the English text is
the gettext msgid, so English needs no catalogue. The Chinese catalogue is
`locale/zh/LC_MESSAGES/evaldsl.po`, compiled to the `.mo` next to it and read
with the standard `gettext` module only. `scripts/catalogue.py` extracts the
msgids, updates the `.po` and compiles it (docs/languages.md).

The language is chosen once per process: by the CLI from `--lang`, else
`EVALDSL_LANG`, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`); a library
caller may call `evaldsl.set_language`. Messages are translated when they are
made, so a `Diagnostic` carries its text in the language of the moment.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

LANGUAGES = ("en", "zh")
"""The languages messages exist in; English is the source language."""
DOMAIN = "evaldsl"
LOCALE_DIR = Path(__file__).parent / "locale"
ENV_VAR = "EVALDSL_LANG"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Read in POSIX order: the first one set decides."""


class _Choice:
    """The language of the moment and its catalogue, chosen on first use."""

    language: str | None = None
    catalogue: gettext.NullTranslations = gettext.NullTranslations()


_now = _Choice()


def normalize(name: str) -> str | None:
    """The language a tag like `zh_CN.UTF-8`, `zh-Hans` or `EN` names, None if unknown."""
    base = name.strip().lower().replace("-", "_").split(".")[0].split("_")[0]
    return base if base in LANGUAGES else None


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """`EVALDSL_LANG`, else the locale's language if messages exist in it, else English."""
    env = os.environ if environ is None else environ
    chosen = normalize(env.get(ENV_VAR, ""))
    if chosen is not None:
        return chosen
    for var in LOCALE_VARS:
        value = env.get(var, "")
        if value:
            return normalize(value) or "en"
    return "en"


def set_language(language: str | None = None) -> str:
    """Choose the language of every message made from now on; None reads the environment.

    Raises `ValueError` for a language messages do not exist in.
    """
    chosen = language_from_environment() if language is None else normalize(language)
    if chosen is None:
        raise ValueError(
            _("unknown language {language!r}; the languages are {languages}").format(
                language=language, languages=", ".join(LANGUAGES)
            )
        )
    _now.language, _now.catalogue = chosen, _catalogue(chosen)
    return chosen


def current_language() -> str:
    """The language messages are made in now."""
    if _now.language is None:
        return set_language(None)
    return _now.language


def _(message: str) -> str:
    """`message` in the current language (the English msgid when it has no translation).

    The empty string stays empty: gettext would answer it with the catalogue's header.
    """
    return _translations().gettext(message) if message else ""


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message that fits `count`, in the current language."""
    return _translations().ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for extraction where it is defined; `_()` translates it where shown."""
    return message


def _translations() -> gettext.NullTranslations:
    if _now.language is None:
        set_language(None)
    return _now.catalogue


def _catalogue(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of `language`; English is the msgids themselves."""
    if language == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)
