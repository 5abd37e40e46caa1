"""A page's update of a game (``game_delta``) at the document's door: for every prefix of
each golden pulka and every version before it, ``game_doc`` at that version with the
delta applied (``apply_delta``, which the pages' script mirrors) is ``game_doc`` at the
prefix's head; a delta carries only the deals an event after its base may have changed."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ledger.application import Kept
from ledger.judge.kinds import judge_log
from ledger.reads.game_documents import apply_delta, game_delta, game_doc
from ledger.store.stored import StoredEvent
from ledger.vocabulary.events import AnyEvent, Correction, GameStarted
from projections.game import replay
from readings import parse_log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# the pulkas (not bridge, not refused logs) with a correction of an earlier record
CORRECTED = [p for p in sorted(FIXTURES.glob("*.jsonl")) if '"correction"' in p.read_text(encoding="utf-8")]


def clock() -> str:
    return "2026-11-30T20:00:00+00:00"


def kept_at(name: str, events: list[AnyEvent], version: int) -> Kept:
    """The game as the service keeps it after its first ``version`` events."""
    stored = [StoredEvent(i + 1, e, f"{i + 1:064x}") for i, e in enumerate(events[:version])]
    return Kept(name, stored, replay(events[:version]))


def plain(doc: dict[str, object]) -> object:
    """The document as its JSON says it (what a page holds)."""
    return msgspec.json.decode(msgspec.json.encode(doc))


def test_corrected_fixtures_are_there() -> None:
    assert len(CORRECTED) >= 5


@pytest.mark.sqlite_only
@pytest.mark.parametrize("path", CORRECTED, ids=lambda p: p.stem)
def test_a_delta_applied_to_any_earlier_version_is_the_head(path: Path) -> None:
    events = judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)
    assert isinstance(events[0], GameStarted)
    docs = [plain(game_doc(kept_at(path.stem, events, v))) for v in range(1, len(events) + 1)]
    for head in range(1, len(events) + 1):
        kept = kept_at(path.stem, events, head)
        for since in range(1, head + 1):
            delta = plain(game_delta(kept, since))
            assert isinstance(delta, dict) and delta["since"] == since and delta["version"] == head
            assert apply_delta(docs[since - 1], delta) == docs[head - 1], (path.stem, since, head)  # type: ignore[arg-type]
            if since < head:  # another version than the delta's base: the page asks for the whole game
                assert apply_delta(docs[head - 1], delta) is None  # type: ignore[arg-type]


@pytest.mark.sqlite_only
def test_a_delta_after_one_deal_carries_that_deal_only_and_a_correction_its_deal_on() -> None:
    path = FIXTURES / "rec_4_2_7_overstated_pulya.jsonl"
    events = judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)
    # event 18 is deal 2's tricks: the delta from 17 carries deal 2's row alone
    delta = game_delta(kept_at(path.stem, events, 18), 17)
    assert delta["deals_from"] == 2 and [r["deal"] for r in delta["deals"]] == [2]
    # a correction names its target's deal: the rows from it on
    corrections = {i + 1: e for i, e in enumerate(events) if isinstance(e, Correction)}
    assert corrections[10].target == 8  # deal 1's tricks, corrected after its pencil
    delta = game_delta(kept_at(path.stem, events, 10), 9)
    assert delta["deals_from"] == 1 and [r["deal"] for r in delta["deals"]] == [1]
    head = kept_at(path.stem, events, len(events))
    whole = game_delta(head, 0)
    assert "since" not in whole and whole == game_doc(head)
