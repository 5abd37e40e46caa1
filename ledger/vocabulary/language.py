"""The players' language: every message, label and verdict a person reads goes through
``_`` (or ``ngettext`` for a count), looked up in the message catalogue of the language
in effect, kept with the standard tools: GNU gettext catalogues (``locale/<lang>/
LC_MESSAGES/pulka.po``, compiled to ``pulka.mo``), extracted and compiled with Babel
(``make messages``), read at run time by the standard library's ``gettext``.

The language in effect is a context variable, not a process-wide setting: a command line
chooses it once (``--lang``, else ``PULKA_LANG``, else the locale: ``LC_ALL``,
``LC_MESSAGES``, ``LANG``), and a web service sets it per request (``using``), so that
two people reading in two languages at once are each answered in their own.

A text made at import time (a table of labels) is marked with ``N_`` and translated
where it is shown: ``_`` of a marked constant at the time of use.

The log and the store never hold a translated word: events keep their English field
values (``pass``, ``whist``, ``gora``), and only what is shown is translated.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from functools import cache
from pathlib import Path

DOMAIN = "pulka"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "ru")  # English is the catalogue's source language
DEFAULT = "en"

_current: ContextVar[str] = ContextVar("pulka_language", default=DEFAULT)


@cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language`` (English: the messages as written)."""
    if language == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True)


def _(message: str) -> str:
    """``message`` in the language in effect."""
    return catalogue(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message for ``n`` in the language in effect (Russian has
    three forms: 1 пуля, 2 пули, 5 пуль)."""
    return catalogue(_current.get()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a text for the catalogue without translating it (it is translated where it
    is shown, with ``_``)."""
    return message


def language() -> str:
    """The language in effect."""
    return _current.get()


def chosen(wanted: str | None = None, environ: Mapping[str, str] | None = None,
           accept: str | None = None) -> str:
    """The language to speak: ``wanted`` (``--lang``) when given, else ``PULKA_LANG``,
    else the locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as POSIX orders them), else a
    browser's ``Accept-Language`` (``accept``); Russian for a Russian locale, English
    for any other. An unknown ``wanted`` is refused by the caller (``known``)."""
    env = os.environ if environ is None else environ
    for value in (wanted, env.get("PULKA_LANG")):
        if value:
            return _base(value) or DEFAULT
    if accept:
        return from_accept(accept)
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return _base(value) or DEFAULT
    return DEFAULT


def from_accept(header: str) -> str:
    """The language a browser prefers (``Accept-Language: ru-RU,ru;q=0.9,en;q=0.8``):
    the first of ours by its weight; English when none of ours is asked for."""
    ranked: list[tuple[Fraction, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _sep, params = part.strip().partition(";")
        weight = Fraction(1)
        if params.strip().startswith("q="):
            try:
                weight = Fraction(params.strip()[2:])
            except (ValueError, ZeroDivisionError):
                weight = Fraction(0)
        base = _base(tag)
        if base and weight > 0:
            ranked.append((-weight, index, base))
    return min(ranked)[2] if ranked else DEFAULT


def _base(tag: str) -> str | None:
    """``ru_RU.UTF-8``, ``ru-RU``, ``RU`` -> ``ru``; None for a language not ours."""
    base = tag.strip().split(".")[0].replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


def known(value: str) -> bool:
    return _base(value) is not None


def set_language(value: str) -> None:
    """Make ``value`` the language of this context from now on (a command line's)."""
    _current.set(_base(value) or DEFAULT)


@contextmanager
def using(value: str) -> Iterator[None]:
    """``value`` the language in effect within the block (a request, a test)."""
    token = _current.set(_base(value) or DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)
