"""Tamper evidence: rows edited, deleted, inserted or reordered behind pulka's back are named.

The database tests change the real SQLite file or PostgreSQL table with plain SQL, as
someone with access to the database could, then ask ``Store.verify`` which event
fails. The chain tests check the same verifier on exported events.
"""

from __future__ import annotations

import hashlib
import json

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uuid
from uuid import UUID

from ledger.vocabulary.chain import (
    GENESIS,
    ChainProblem,
    Head,
    chain_digests,
    Chained,
    compare_head_to,
    compare_saved,
    head_token,
    intact_from,
    link,
    link_of,
    parse_head,
    verify_chain,
)
from ledger.vocabulary.events import AnyEvent, Bid, Contract, GameStarted, Tricks, decode_event, encode_event
from ledger.store.event_store import Store
from ledger.store.stored import NAMESPACE, UnreadableEventError, game_id
from ledger.vocabulary import hashes
from ledger.vocabulary.hashes import sha1, sha256, uuid5
from ledger.store.backend import State

if TYPE_CHECKING:
    from conftest import RawEvents

SampleEvents = Callable[[str], list[AnyEvent]]
GAME = "club-7"


# What only these tests ask of a chain in one call: whole rows intact, a head compared.


def intact(game: str, rows: Sequence[tuple[int, object, Chained]]) -> bool:
    """The quick pass of a read (``chain.intact_from``) over a game's rows, whole:
    whether all of them hold."""
    return intact_from(game, rows) is not None


def compare_head(stored: Sequence[tuple[int, AnyEvent, str]], head: Head) -> ChainProblem | None:
    """The first difference between a game's (intact) stored chain and a head kept
    elsewhere; None when the store still holds that head."""
    at = stored[head.number - 1][2] if 1 <= head.number <= len(stored) else None
    return compare_head_to(len(stored), at, head)


@pytest.fixture(autouse=True, params=[Store.READ_PAGE, 4], ids=["one-page", "pages-of-4"])
def page(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Every case read whole, and a page of four rows at a time: a read checks each page
    of the chain as it comes, and a break in any page is named as in one."""
    size: int = request.param
    monkeypatch.setattr(Store, "READ_PAGE", size)
    return size


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
    # A read notices the same problem: its quick pass (``chain.intact_from``) lets none through.
    try:
        read = store.read(GAME).problem
    except UnreadableEventError:
        assert "cannot be read" in problem.reason, problem
    else:
        assert read == problem
    assert store.read("other").problem is None
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


def test_row_with_a_foreign_topic_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # The topic column is outside the digests; its value is fixed by the event's number.
    raw.set(GAME, 3, topic="os:system")

    assert_problem(store, 3, "topic was changed to 'os:system'")


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
    store.ensure_table()  # as `pulka init` leaves it: a table and no game
    raw.insert(GAME, 1, "ledger.store:Opened", msgspec.json.encode(record))

    problem = store.verify(GAME)
    assert problem == ChainProblem(1, f"event 1 is not the start of {GAME!r} (forged?)")
    assert store.read(GAME).problem == problem


def test_edit_with_its_digest_computed_anew_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # Whoever edits event 8 and recomputes its digest leaves event 9 chained to the old
    # one; the link event 9 records shows that event 9 is not the one that changed.
    _, state = raw.row(GAME, 8)
    record = msgspec.json.decode(state)
    record["event"]["tricks"] = {"Anna": 7, "Boris": 2, "Vera": 1}
    previous = msgspec.json.decode(raw.row(GAME, 7)[1])["digest"]
    record["digest"] = link(previous, GAME, 8, decode_event(msgspec.json.encode(record["event"])))
    raw.set(GAME, 8, state=msgspec.json.encode(record))

    problem = assert_problem(store, 8, "changed after event 9 was recorded")
    assert problem.reason == "event 8 was changed after event 9 was recorded, and its digest computed anew (edited?)"


def test_changed_link_is_named(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    _, state = raw.row(GAME, 6)
    record = msgspec.json.decode(state)
    record["link"] = "0123456789abcdef"
    raw.set(GAME, 6, state=msgspec.json.encode(record))

    assert_problem(store, 6, "link it records", "changed")


def test_rows_without_links_still_verify(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    # Rows written before links were kept carry none: their chain checks as before.
    for version in raw.versions(GAME):
        record = msgspec.json.decode(raw.row(GAME, version)[1])
        del record["link"]
        raw.set(GAME, version, state=msgspec.json.encode(record))
    assert store.verify(GAME) is None
    assert store.read(GAME).problem is None

    _, state = raw.row(GAME, 8)
    raw.set(GAME, 8, state=state.replace(b'"Anna":6', b'"Anna":7'))
    assert_problem(store, 8, "digest does not match its content")


def test_a_flipped_first_topic_hides_no_game(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.set(GAME, 1, topic="ledger.store:Recorded")
    _, state = raw.row(GAME, 5)
    raw.set(GAME, 5, state=state.replace(b'"6S"', b'"7S"'))

    assert GAME in store.games()
    found = {v.name: v for v in store.verify_all()}
    assert set(found) == {GAME, "other"}
    assert found["other"].problem is None and found["other"].events == len(game)
    problem = found[GAME].problem
    assert problem is not None and problem.number == 1 and "topic was changed" in problem.reason


def test_a_game_moved_to_another_stream_is_found(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    stray = UUID("12345678-1234-5678-1234-567812345678")
    raw.move(GAME, stray)

    assert store.games() == ["other"]
    found = {v.name: v for v in store.verify_all()}
    assert set(found) == {f"stream {stray}", "other"}
    moved = found[f"stream {stray}"]
    assert moved.events == len(game)
    assert moved.problem is not None and "no game_started of its own" in moved.problem.reason


def test_a_stream_without_its_first_event_is_found(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    raw.delete(GAME, 1)

    assert store.games() == ["other"]
    found = {v.name: v for v in store.verify_all()}
    assert set(found) == {f"stream {game_id(GAME)}", "other"}
    assert found[f"stream {game_id(GAME)}"].events == len(game) - 1


def test_reads_check_the_event_after_the_last_one_shown(store: Store, game: list[AnyEvent], raw: RawEvents) -> None:
    _, state = raw.row(GAME, 8)
    record = msgspec.json.decode(state)
    record["event"]["by"] = "Vera"
    previous = msgspec.json.decode(raw.row(GAME, 7)[1])["digest"]
    record["digest"] = link(previous, GAME, 8, decode_event(msgspec.json.encode(record["event"])))
    raw.set(GAME, 8, state=msgspec.json.encode(record))

    assert store.read(GAME, upto=7).problem is None
    reading = store.read(GAME, upto=8)
    assert [s.number for s in reading.stored] == list(range(1, 9))
    assert reading.problem is not None and reading.problem.number == 8


def test_a_consistent_rewrite_verifies_but_not_against_an_anchor(
    store: Store, game: list[AnyEvent], raw: RawEvents
) -> None:
    before = store.load(GAME)
    raw.rechain(GAME, 5, lambda event: event.update(contract="7S"))

    assert store.verify(GAME) is None  # only an anchor kept elsewhere can tell
    after = store.load(GAME)
    saved = [(s.number, s.event, s.digest) for s in before]
    problem = compare_saved(after, saved)
    assert problem is not None and problem.number == 5 and "differs from the saved copy" in problem.reason
    head = head_token(before[-1].number, before[-1].digest)
    problem = compare_head(after, head)
    assert problem is not None and problem.number == len(game) and "chained anew" in problem.reason
    assert compare_head(before, head) is None and compare_saved(before, saved) is None


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
    assert verify_chain(GAME, exported(GAME, sample_events(GAME))) is None


def test_export_with_a_line_removed_is_named(sample_events: SampleEvents) -> None:
    rows = exported(GAME, sample_events(GAME))
    del rows[6]
    renumbered = [(number, event, digest) for number, (_, event, digest) in enumerate(rows, start=1)]

    problem = verify_chain(GAME, renumbered)
    assert problem is not None and problem.number == 7 and "missing" in problem.reason


def test_export_of_another_game_does_not_verify(sample_events: SampleEvents) -> None:
    problem = verify_chain("club-8", exported(GAME, sample_events(GAME)))
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


@given(st.text(max_size=40), st.binary(max_size=300))
def test_the_builtin_hashes_give_hashlibs_digests_and_uuid5s_ids(name: str, data: bytes) -> None:
    """``ledger.vocabulary.hashes`` (the builtin SHA-256 and SHA-1, which a command loads
    without OpenSSL): the digests of hashlib and the stream ids of ``uuid.uuid5``."""
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert sha1(data).digest() == hashlib.sha1(data).digest()
    assert game_id(name) == uuid.uuid5(NAMESPACE, name) == uuid5(NAMESPACE, name)


def test_a_process_that_hashes_many_events_hashes_them_with_openssl(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chain's walks hash with the builtin SHA-256 until the process has asked for
    ``BULK`` events in all, then with OpenSSL's (quicker an event, slow to load): the
    same digests either way, a walk's read of a game intact by both."""
    monkeypatch.setattr(hashes, "_asked", [0])
    assert hashes.sha256_for(10) is sha256
    assert hashes.sha256_for(hashes.BULK - 11) is sha256
    assert hashes.sha256_for(1) is hashlib.sha256
    events = CHAIN_EVENTS
    rows = [(n, None, State(e, d)) for n, (e, d) in enumerate(zip(events, chain_digests(GAME, events)), 1)]
    monkeypatch.setattr(hashes, "_asked", [0])
    by_builtin = intact_from(GAME, rows)
    monkeypatch.setattr(hashes, "_asked", [hashes.BULK])
    assert intact_from(GAME, rows) == by_builtin == rows[-1][2].digest


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


def as_read(
    rows: list[tuple[int, AnyEvent, str]], links: dict[int, str] | None = None
) -> list[tuple[int, str, State]]:
    """Rows as a read hands them to ``chain.intact_from``: (number, topic, state with its link)."""
    links = links or {}
    return [(number, "", State(event, digest, links.get(number))) for number, event, digest in rows]


def chain_links(rows: list[tuple[int, AnyEvent, str]]) -> dict[int, str]:
    """The link each row records: to the digest of the row before it."""
    return {number: link_of(previous) for (number, _, _), previous in zip(rows, [GENESIS] + [d for _, _, d in rows])}


def test_intact_is_verify_chain_finding_nothing(sample_events: SampleEvents) -> None:
    rows = stored_rows()
    assert intact(GAME, as_read(rows)) and intact(GAME, as_read(rows, chain_links(rows)))
    assert verify_chain(GAME, rows, chain_links(rows)) is None
    assert intact(GAME, []) and verify_chain(GAME, []) is None
    assert not intact("club-8", as_read(rows)) and verify_chain("club-8", rows) is not None
    # A forged start: a chain rebuilt around a first event that is not this game's start.
    forged = [(1, CHAIN_EVENTS[1], link(GENESIS, GAME, 1, CHAIN_EVENTS[1]))]
    assert not intact(GAME, as_read(forged)) and verify_chain(GAME, forged) is not None
    # A gap in the numbers, with the digest after it chained over the gap.
    gap = rows[:3] + [(5, CHAIN_EVENTS[3], link(rows[2][2], GAME, 5, CHAIN_EVENTS[3]))]
    assert not intact(GAME, as_read(gap))
    assert verify_chain(GAME, gap) == ChainProblem(4, "event 4 is missing (deleted?)")


@given(st.integers(0, ROWS - 1))
def test_any_changed_link_is_named(index: int) -> None:
    rows = stored_rows()
    links = chain_links(rows)
    links[index + 1] = "0123456789abcdef"

    problem = verify_chain(GAME, rows, links)
    assert problem is not None and problem.number == index + 1
    assert not intact(GAME, as_read(rows, links))


@given(st.integers(0, ROWS - 1), st.sampled_from(["Oleg", "Boris", "Vera"]))
def test_any_edit_is_named(index: int, by: str) -> None:
    rows = stored_rows()
    number, event, digest = rows[index]
    edited = msgspec.structs.replace(event, by=f"{by}!")
    rows[index] = (number, edited, digest)

    assert not intact(GAME, as_read(rows))
    problem = verify_chain(GAME, rows)
    assert problem is not None and problem.number == number


@given(st.lists(st.integers(0, ROWS - 1), min_size=2, max_size=2, unique=True).map(sorted))
def test_any_swap_is_named_at_the_earlier_place(pair: list[int]) -> None:
    first, second = pair
    rows = stored_rows()
    moved = [(number, rows[j][1], rows[j][2]) for number, j in [(first + 1, second), (second + 1, first)]]
    rows[first], rows[second] = moved

    assert not intact(GAME, as_read(rows))
    problem = verify_chain(GAME, rows)
    assert problem == ChainProblem(first + 1, f"event {first + 1} was recorded as event {second + 1} (reordered?)")


@given(st.integers(0, ROWS - 2))
def test_any_deletion_but_the_last_is_named(index: int) -> None:
    rows = stored_rows()
    del rows[index]

    assert not intact(GAME, as_read(rows))
    problem = verify_chain(GAME, rows)
    assert problem == ChainProblem(index + 1, f"event {index + 1} is missing (deleted?)")


# --- anchors ------------------------------------------------------------------------------


def test_head_tokens() -> None:
    digest = chain_digests(GAME, CHAIN_EVENTS)[-1]
    head = head_token(ROWS, digest)
    assert str(head) == f"{ROWS}:{digest[:16]}"
    assert parse_head(str(head)) == head
    assert parse_head(f" {ROWS}:{digest.upper()} ") == Head(ROWS, digest)
    for text in ["", "8", "8:", f"8:{digest[:15]}", f"x:{digest[:16]}", f"8:{digest}0", "8:zzzzzzzzzzzzzzzz"]:
        assert parse_head(text) is None, text


def test_head_comparisons_name_the_first_difference() -> None:
    rows = stored_rows()
    head = head_token(ROWS, rows[-1][2])
    assert compare_head(rows, head) is None
    assert compare_head(rows + [(ROWS + 1, CHAIN_EVENTS[1], "f" * 64)], head) is None  # recorded since
    truncated = compare_head(rows[:-3], head)
    assert truncated == ChainProblem(ROWS - 2, f"the store has {ROWS - 3} events, the head is event {ROWS}: "
                                               f"events {ROWS - 2}-{ROWS} are missing (truncated?)")
    assert compare_head(rows, Head(ROWS, "0" * 16)) is not None
    assert compare_saved(rows[:-1], rows) == ChainProblem(
        ROWS, f"the saved copy has {ROWS} events, the store {ROWS - 1}: event {ROWS} is missing (truncated?)")
