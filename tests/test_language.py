"""The players' language: which language is chosen, that it is per context (two readers
in two languages at once), and that the committed catalogues are what Babel makes of
the code (`make messages`)."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from ledger.vocabulary import language
from ledger.vocabulary.language import chosen, from_accept, using

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ledger" / "vocabulary" / "locale"


@pytest.mark.parametrize(
    ("wanted", "environ", "expected"),
    [
        (None, {}, "en"),
        (None, {"LANG": "ru_RU.UTF-8"}, "ru"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),
        (None, {"LANG": "en_GB.UTF-8", "LC_ALL": "ru_RU.UTF-8"}, "ru"),  # LC_ALL first, as POSIX has it
        (None, {"LANG": "ru_RU.UTF-8", "LC_MESSAGES": "C"}, "en"),
        (None, {"LANG": "ru_RU.UTF-8", "PULKA_LANG": "en"}, "en"),
        ("ru", {"PULKA_LANG": "en"}, "ru"),  # --lang first of all
        ("RU", {}, "ru"),
    ],
)
def test_the_language_chosen(wanted: str | None, environ: dict[str, str], expected: str) -> None:
    assert chosen(wanted, environ) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"),
        ("en-US,en;q=0.9,ru;q=0.8", "en"),
        ("de-DE,de;q=0.9,ru;q=0.5", "ru"),  # the first of ours
        ("en;q=0.3,ru;q=0.6", "ru"),  # by weight, not by order
        ("ru;q=0", "en"),  # q=0: not acceptable
        ("fr", "en"),
        ("ru;q=x", "en"),
    ],
)
def test_a_browser_s_language(header: str, expected: str) -> None:
    assert from_accept(header) == expected


def test_the_language_is_the_context_s_own() -> None:
    """Two requests served at once, one in Russian and one in English, each keep theirs."""

    async def reader(lang: str, seen: list[str]) -> None:
        with using(lang):
            await asyncio.sleep(0)  # the other request runs here
            seen.append(language.language())

    async def both() -> list[str]:
        seen: list[str] = []
        await asyncio.gather(reader("ru", seen), reader("en", seen))
        return seen

    assert sorted(asyncio.run(both())) == ["en", "ru"]
    assert language.language() == "en"


def test_the_compiled_catalogue_is_the_one_its_po_file_makes() -> None:
    """The committed .mo of each language is what compiling its .po gives (run `make
    messages` after translating)."""
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/pulka.po")):
        with po.open("rb") as f:
            catalog = read_po(f)
        made = io.BytesIO()
        write_mo(made, catalog)
        assert po.with_suffix(".mo").read_bytes() == made.getvalue(), f"{po}: run `make messages`"


def test_every_text_is_in_the_template_and_translated(tmp_path: Path) -> None:
    """What Babel extracts from the code today is the committed template, and every
    message of it has its Russian translation (none left fuzzy or empty). The extract is
    written to a file: written to standard output ("-o -") it came out empty."""
    extracted = tmp_path / "extracted.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_", "-k", "N_",
         "-k", "ngettext:1,2", "-k", "said", "--no-location", "--sort-output", "--omit-header", "-o", str(extracted), "."],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    with (LOCALE / "pulka.pot").open("rb") as f:
        template = read_po(f)
    with extracted.open("rb") as f:
        made = read_po(f)
    assert sorted(str(m.id) for m in made if m.id) == sorted(str(m.id) for m in template if m.id), \
        "the template is not what the code says: run `make messages`"
    with (LOCALE / "ru" / "LC_MESSAGES" / "pulka.po").open("rb") as f:
        russian = read_po(f)
    untranslated = [m.id for m in russian if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                                         else (m.string,)))]
    assert untranslated == []
    assert {m.id for m in russian if m.id} == {m.id for m in template if m.id}


def russian_messages() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each message of the Russian catalogue: its English forms and their translations
    (one each, or a plural's several)."""
    with (LOCALE / "ru" / "LC_MESSAGES" / "pulka.po").open("rb") as f:
        russian = read_po(f)
    return [(m.id if isinstance(m.id, tuple) else (m.id,), m.string if isinstance(m.string, tuple) else (m.string,))
            for m in russian if m.id]


def test_every_translation_puts_in_only_the_values_its_message_has() -> None:
    """A translation that names a value its English message does not have would fail
    where it is shown (``str.format`` finds no such value): each Russian text's
    placeholders are among its message's."""
    names = re.compile(r"\{(\w*)[^{}]*\}")
    wrong = []
    for ids, strings in russian_messages():
        allowed = {n for i in ids for n in names.findall(i)}
        wrong += [(ids[0], s) for s in strings if not set(names.findall(s)) <= allowed]
    assert wrong == []


def test_every_translation_cites_the_rules_its_message_cites() -> None:
    """A rule cited in English (``[Code 4.2.15]``) is cited in Russian (``[Кодекс
    4.2.15]``), whole, the same rules, brackets closed: a slip such as ``[К[Кодекс
    4.2.15]`` stood on the scorer's page."""
    cited = re.compile(r"\[Code ([\d.]+(?:, [\d.]+)*)\]")
    wrong = []
    for ids, strings in russian_messages():
        rules = sorted(cited.findall(ids[0]))
        wrong += [(ids[0], s) for s in strings
                  if sorted(re.findall(r"\[Кодекс ([\d.]+(?:, [\d.]+)*)\]", s)) != rules
                  or s.count("[") != s.count("]") or "[[" in s or re.search(r"\[[^\]]*\[", s)]
    assert wrong == []


def test_a_russian_plural_has_its_three_forms() -> None:
    header = (LOCALE / "ru" / "LC_MESSAGES" / "pulka.po").read_text(encoding="utf-8")
    assert re.search(r"nplurals=3", header)
