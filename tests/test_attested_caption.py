"""What a picture, a page and a printout say of the checkpoint covering a game
(``projections.attested.coverage_caption``), in the reader's language: a Russian PDF
said "under checkpoint … signed by …" in English."""

from __future__ import annotations

import re

import pytest

from ledger.vocabulary import language
from projections.attested import StoredCheckpoint, coverage_caption

pytestmark = pytest.mark.sqlite_only

CHECKPOINT = StoredCheckpoint(number=7, at="2026-12-07T20:14:00+00:00", origin="club.example/pulka", size=42,
                              root="dag/lHf9DbtnUCpJU5Kapzikpu1g9xPUoQFKkaH6FnsXAUX=", signatures=(), reason="")


@pytest.mark.parametrize("covered", [0, 20, 42])
def test_the_caption_is_in_the_readers_language(covered: int) -> None:
    with language.using("en"):
        english = coverage_caption(CHECKPOINT, covered, 42)
    with language.using("ru"):
        russian = coverage_caption(CHECKPOINT, covered, 42)
    assert english != russian
    # what is not typed or named in Russian: the log's origin, its root, the command's name
    latin = re.findall(r"[A-Za-z]{3,}", russian.replace(CHECKPOINT.origin, "").replace(CHECKPOINT.root[:16], ""))
    assert set(latin) <= {"pulka", "checkpoint"} and ("checkpoint" not in latin or "pulka checkpoint" in russian)
    if covered:
        assert "#42" in english and "№42" in russian and CHECKPOINT.root[:16] in russian and "2026-12-07 20:14" in russian
    if 0 < covered < 42:
        assert "1-20" in english and "1–20" in russian


def test_no_checkpoint_kept_says_nothing() -> None:
    assert coverage_caption(None, 0, 42) == ""
