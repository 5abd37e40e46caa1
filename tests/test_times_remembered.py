"""``parse_time`` remembers the last times it read (the judge reads each event's time
when it admits it and again when it compares it with the next): what it remembers
must be what reading the text again gives, and a refused text is refused every time,
in the language in effect."""

from __future__ import annotations

import pytest

from ledger.vocabulary import language
from ledger.vocabulary.times import TimeFormatError, parse_time

TEXTS = [f"2026-11-30T20:{m:02d}:{s:02d}{zone}" for m in range(0, 60, 7) for s in (0, 59)
         for zone in ("+01:00", "Z", "-03:30")]


def test_a_remembered_time_is_the_time_read_afresh() -> None:
    fresh = parse_time.__wrapped__  # the reading itself, remembering nothing
    for _ in range(2):  # the second round is read from what was remembered
        for text in TEXTS:
            assert parse_time(text) == fresh(text)
            assert parse_time(text).utcoffset() == fresh(text).utcoffset()


@pytest.mark.parametrize("text", ["2026-11-30T20:14:03", "yesterday", "2026-11-30T20:14:03+01:00:30"])
def test_a_refused_time_is_refused_again_in_the_language_in_effect(text: str) -> None:
    before = language.language()
    try:
        said = []
        for tongue in ("en", "ru", "en"):
            language.set_language(tongue)
            with pytest.raises(TimeFormatError) as refused:
                parse_time(text)
            said.append(str(refused.value))
        assert said[0] == said[2] and said[0] != said[1]
    finally:
        language.set_language(before)
