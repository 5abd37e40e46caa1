"""Tamper evidence: rows edited, deleted, inserted or reordered behind pulka's back are named.

The database tests change the real SQLite file or PostgreSQL table with plain SQL, as
someone with access to the database could, then ask ``Store.verify`` which event
fails. The chain tests check the same verifier on exported events.
"""

from __future__ import annotations

import hashlib
import json

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.vocabulary.chain import GENESIS, ChainProblem, chain_digests, link, verify_chain, verify_export
from ledger.vocabulary.events import AnyEvent, Bid, Contract, GameStarted, Tricks, decode_event, encode_event
from ledger.command.store import Store, UnreadableEventError

if TYPE_CHECKING:
    from conftest import RawEvents

SampleEvents = Callable[[str], list[AnyEvent]]
GAME = "club-7"


@pytest.fixture
def game(store: Store, sample_events: SampleEvents) -> list[AnyEvent]:
    """A stored 15-event pulka, and a second game beside it that must stay untouched."""
    events = sample_events(GAME)
    store.append(GAME, events, expected=0)
    store.append("other", sample_events("other"), expected=0)
    return events


def assert_problem(store: Store, number: int, *words: str) -> ChainProblem:
    problem = store.verify(GAME)
    assert problem is not None, "tampering went unnoticed"
    assert problem.number == number, problem
    for word in words:
        assert word in problem.reason, problem
    assert store.verify("other") is None
    return problem


# --- on the real databases -----------------------------------------------------------


def test_untampered_game_verifies_clean(store: Store, game: list[AnyEvent]) -> None:
    assert store.verify(GAME) is None
    assert store.verify("other") is None


def test_edited_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # The classic: a trick moved from the defender to the declarer after the fact.
    _, state = raw.row(GAME, 8)
    record = msgspec.json.decode(state)
    assert record["event"]["tricks"] == {"Anna": 6, "Boris": 3, "Vera": 1}
    record["event"]["tricks"] = {"Anna": 7, "Boris": 2, "Vera": 1}
    raw.set(GAME, 8, state=msgspec.json.encode(record))

    assert store.load(GAME)[7].event == Tricks(tricks={"Anna": 7, "Boris": 2, "Vera": 1}, deal=1, by="Anna")
    problem = assert_problem(store, 8, "digest does not match its content", "edited")
    assert str(problem) == "event 8: digest does not match its content (edited?)"


def test_edited_last_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    last = len(game)
    _, state = raw.row(GAME, last)
    raw.set(GAME, last, state=state.replace(b'"Anna"', b'"Oleg"'))

    assert_problem(store, last, "digest does not match")


def test_edited_digest_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    _, state = raw.row(GAME, 4)
    record = msgspec.json.decode(state)
    record["digest"] = "f" * 64
    raw.set(GAME, 4, state=msgspec.json.encode(record))

    assert_problem(store, 4, "digest does not match")


@pytest.mark.parametrize(
    "state",
    [b"garbage", b'{"event":{"type":"bid","player":"Anna","bid":7},"digest":"00"}', b""],
    ids=["not-json", "wrong-field-type", "empty"],
)
def test_unreadable_row_is_named_not_raised(
    store: Store, game: list[AnyEvent], raw: RawEvents, state: bytes
) -> None:
    raw.set(GAME, 6, state=state)

    assert_problem(store, 6, "event 6 cannot be read")
    with pytest.raises(UnreadableEventError, match="event 6 of game 'club-7'"):
        store.load(GAME)


def test_row_with_a_foreign_topic_is_unreadable(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # A topic read from the database is never imported, only looked up.
    raw.set(GAME, 3, topic="os:system")

    assert_problem(store, 3, "cannot be read", "unknown topic 'os:system'")


def test_deleted_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.delete(GAME, 5)

    problem = assert_problem(store, 5, "missing", "deleted")
    assert str(problem) == "event 5 is missing (deleted?)"


def test_deleted_rows_are_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.delete(GAME, 5)
    raw.delete(GAME, 6)

    assert_problem(store, 5, "events 5-6 are missing")


def test_deleted_first_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.delete(GAME, 1)

    assert_problem(store, 1, "event 1 is missing")


def test_deleted_and_renumbered_rows_are_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.delete(GAME, 5)
    raw.renumber(GAME, 6, by=-1)
    assert raw.versions(GAME) == list(range(1, len(game)))

    assert_problem(store, 5, "an event is missing before event 5")


def test_inserted_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # Make room after event 4 and slip in a bid, with a plausible-looking digest.
    raw.renumber(GAME, 5, by=1)
    forged = {"event": {"type": "bid", "player": "Vera", "bid": "7S", "deal": 1}, "digest": "a" * 64}
    raw.insert(GAME, 5, "ledger.store:Recorded", msgspec.json.encode(forged))
    assert store.load(GAME)[4].event == Bid(player="Vera", bid="7S", deal=1)

    assert_problem(store, 5, "inserted")


def test_inserted_copy_of_a_row_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    topic, state = raw.row(GAME, 3)
    raw.insert(GAME, len(game) + 1, topic, state)

    problem = assert_problem(store, len(game) + 1, "copy of event 3", "inserted")
    assert problem.reason == f"event {len(game) + 1} is a copy of event 3 (inserted?)"


def test_reordered_rows_are_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.swap(GAME, 4, 7)
    assert store.load(GAME)[3].event == game[6]

    problem = assert_problem(store, 4, "reordered")
    assert problem.reason == "event 4 was recorded as event 7 (reordered?)"


def test_row_moved_from_another_game_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # The same event at the same number in another game, with that game's digest.
    _, theirs = raw.row("other", 2)
    _, ours = raw.row(GAME, 2)
    assert msgspec.json.decode(theirs)["event"] == msgspec.json.decode(ours)["event"]
    raw.set(GAME, 2, state=theirs)

    assert_problem(store, 2, "digest does not match")


def test_forged_but_rehashed_start_is_named(store: Store, raw: RawEvents) -> None:
    # Someone who recomputes the digests can rebuild a chain, but not hide that it
    # does not start with this game's game_started.
    bid = Bid(player="Anna", bid="6S")
    record = {"event": msgspec.json.decode(encode_event(bid)), "digest": link(GENESIS, GAME, 1, bid)}
    raw.insert(GAME, 1, "ledger.store:Opened", msgspec.json.encode(record))

    problem = store.verify(GAME)
    assert problem == ChainProblem(1, f"event 1 is not the start of {GAME!r} (forged?)")


# --- exports: the same verifier on (number, event, digest) lines --------------------------


def exported(game: str, events: list[AnyEvent]) -> list[tuple[int, AnyEvent, str]]:
    """Events as an export carries them: JSON lines with digests, parsed back, numbered by line."""
    lines = [
        encode_event(event)[:-1] + b',"digest":"' + digest.encode() + b'"}'
        for event, digest in zip(events, chain_digests(game, events), strict=True)
    ]
    parsed = []
    for number, line in enumerate(lines, start=1):
        fields = msgspec.json.decode(line)
        digest = fields.pop("digest")
        parsed.append((number, decode_event(msgspec.json.encode(fields)), digest))
    return parsed


def test_intact_export_verifies(sample_events: SampleEvents) -> None:
    assert verify_export(GAME, exported(GAME, sample_events(GAME))) is None


def test_export_with_a_line_removed_is_named(sample_events: SampleEvents) -> None:
    rows = exported(GAME, sample_events(GAME))
    del rows[6]
    renumbered = [(number, event, digest) for number, (_, event, digest) in enumerate(rows, start=1)]

    problem = verify_export(GAME, renumbered)
    assert problem is not None and problem.number == 7 and "missing" in problem.reason


def test_export_of_another_game_does_not_verify(sample_events: SampleEvents) -> None:
    problem = verify_export("club-8", exported(GAME, sample_events(GAME)))
    assert problem is not None and problem.number == 1


def test_chain_digests_continue_a_chain(sample_events: SampleEvents) -> None:
    events = sample_events(GAME)
    whole = chain_digests(GAME, events)
    assert chain_digests(GAME, events[5:], start_digest=whole[4], start_number=6) == whole[5:]
    assert len(set(whole)) == len(whole)
    # The digest of event 1 as the README defines it: SHA-256 of the previous digest (64
    # zeros), the number, the game name as JSON and the canonical event, one per line.
    first = hashlib.sha256(b"\n".join((b"0" * 64, b"1", json.dumps(GAME).encode(), encode_event(events[0]))))
    assert whole[0] == first.hexdigest()
    with pytest.raises(ValueError):
        chain_digests(GAME, events, start_number=0)


# The property tests build their own short game: hypothesis runs many examples per
# test, and function-scoped fixtures do not mix with that.
CHAIN_EVENTS: list[AnyEvent] = [
    GameStarted(game=GAME, players=("Anna", "Boris", "Vera"), pulya=10),
    Bid(player="Anna", bid="pass"),
    Bid(player="Boris", bid="6S"),
    Bid(player="Vera", bid="pass"),
    Bid(player="Anna", bid="pass"),  # equal to event 2: only the number tells them apart
    Contract(player="Boris", contract="7S"),
    Tricks(tricks={"Anna": 2, "Boris": 7, "Vera": 1}),
    Bid(player="Boris", bid="pass", deal=2),
]
ROWS = len(CHAIN_EVENTS)


def stored_rows() -> list[tuple[int, AnyEvent, str]]:
    events = CHAIN_EVENTS
    return list(zip(range(1, len(events) + 1), events, chain_digests(GAME, events), strict=True))


@given(st.integers(0, ROWS - 1), st.sampled_from(["Oleg", "Boris", "Vera"]))
def test_any_edit_is_named(index: int, by: str) -> None:
    rows = stored_rows()
    number, event, digest = rows[index]
    edited = msgspec.structs.replace(event, by=f"{by}!")
    rows[index] = (number, edited, digest)

    problem = verify_chain(GAME, rows)
    assert problem is not None and problem.number == number


@given(st.lists(st.integers(0, ROWS - 1), min_size=2, max_size=2, unique=True).map(sorted))
def test_any_swap_is_named_at_the_earlier_place(pair: list[int]) -> None:
    first, second = pair
    rows = stored_rows()
    moved = [(number, rows[j][1], rows[j][2]) for number, j in [(first + 1, second), (second + 1, first)]]
    rows[first], rows[second] = moved

    problem = verify_chain(GAME, rows)
    assert problem == ChainProblem(first + 1, f"event {first + 1} was recorded as event {second + 1} (reordered?)")


@given(st.integers(0, ROWS - 2))
def test_any_deletion_but_the_last_is_named(index: int) -> None:
    rows = stored_rows()
    del rows[index]

    problem = verify_chain(GAME, rows)
    assert problem == ChainProblem(index + 1, f"event {index + 1} is missing (deleted?)")
