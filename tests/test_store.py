"""The event store, on SQLite and on PostgreSQL: round trips, numbering, concurrency, atomicity."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import pytest
from ledger.vocabulary.chain import GENESIS, chain_digests, link_of
from ledger.vocabulary.events import EVENT_TYPES, AnyEvent, Bid, Entry, ForeignEvent, GameStarted, encode_event
from ledger.store.backend import State, encode_state, mask
from ledger.store.stored import ConcurrentWriteError, StoredEvent
from ledger.store.event_store import Store, StoreError, parse_postgres_url

if TYPE_CHECKING:
    from conftest import RawEvents

SampleEvents = Callable[[str], list[AnyEvent]]


def started(game: str) -> GameStarted:
    return GameStarted(game=game, players=("Anna", "Boris", "Vera"), pulya=10)


def test_every_event_type_round_trips(store: Store, sample_events: SampleEvents) -> None:
    events = sample_events("club-7")
    # Every event type of a pulka; the other kinds of stream round-trip in their own tests.
    assert {type(event) for event in events} == {t for t in EVENT_TYPES.values() if not issubclass(t, ForeignEvent)}

    stored = store.append("club-7", events, expected=0)
    loaded = store.load("club-7")

    assert [s.number for s in loaded] == list(range(1, len(events) + 1))
    assert [s.event for s in loaded] == events
    assert [type(s.event) for s in loaded] == [type(e) for e in events]
    assert [encode_event(s.event) for s in loaded] == [encode_event(e) for e in events]
    assert loaded == stored
    assert store.count("club-7") == len(events)


def test_digests_are_the_hash_chain(store: Store, sample_events: SampleEvents) -> None:
    events = sample_events("club-7")
    store.append("club-7", events[:4], expected=0)
    store.append("club-7", events[4:], expected=4)

    assert [s.digest for s in store.load("club-7")] == chain_digests("club-7", events)
    assert store.verify("club-7") is None


def test_unknown_game_is_empty(store: Store) -> None:
    assert store.load("nobody") == []
    assert store.count("nobody") == 0
    assert store.verify("nobody") is None
    assert store.games() == []


def test_numbers_continue_across_appends(store: Store) -> None:
    first = store.append("g", [started("g"), Bid(player="Anna", bid="6S")], expected=0)
    second = store.append("g", [Bid(player="Boris", bid="pass"), Bid(player="Vera", bid="7S")], expected=2)

    assert [s.number for s in first] == [1, 2]
    assert [s.number for s in second] == [3, 4]
    assert [s.number for s in store.load("g")] == [1, 2, 3, 4]
    assert store.load("g")[3] == StoredEvent(4, Bid(player="Vera", bid="7S"), second[1].digest)
    assert store.append("g", [], expected=4) == []


def test_games_lists_each_game_once_sorted(store: Store) -> None:
    for name in ["vera's table", "Anna", "club-7"]:
        store.append(name, [started(name), Bid(player="Anna", bid="pass")], expected=0)
        store.append(name, [Bid(player="Boris", bid="pass")], expected=2)

    assert store.games() == ["Anna", "club-7", "vera's table"]


def test_stale_expected_raises_and_stores_nothing(store: Store) -> None:
    store.append("club-7", [started("club-7"), Bid(player="Anna", bid="6S")], expected=0)
    before = store.load("club-7")

    with pytest.raises(ConcurrentWriteError) as caught:
        store.append("club-7", [Bid(player="Boris", bid="7S")], expected=1)

    assert (caught.value.game, caught.value.expected, caught.value.found) == ("club-7", 1, 2)
    assert "'club-7'" in str(caught.value)
    assert "expected 1" in str(caught.value) and "found 2" in str(caught.value)
    assert store.load("club-7") == before


def test_second_writer_with_the_same_expected_loses(store_url: str) -> None:
    with Store(store_url) as first, Store(store_url) as second:
        first.append("g", [started("g")], expected=0)
        assert first.count("g") == second.count("g") == 1

        first.append("g", [Bid(player="Anna", bid="6S")], expected=1)
        with pytest.raises(ConcurrentWriteError):
            second.append("g", [Bid(player="Anna", bid="misere")], expected=1)

        assert [s.event for s in second.load("g")] == [started("g"), Bid(player="Anna", bid="6S")]


def test_race_lost_inside_the_database_is_a_concurrent_write(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both writers read the head before either writes; the database's unique
    # (stream, version) key must then refuse the second, not the store's own check.
    with Store(store_url) as first, Store(store_url) as second:
        first.append("g", [started("g")], expected=0)
        head_seen_by_second = second._head("g")
        first.append("g", [Bid(player="Anna", bid="6S"), Bid(player="Boris", bid="pass")], expected=1)
        monkeypatch.setattr(second, "_head", lambda game: head_seen_by_second)

        with pytest.raises(ConcurrentWriteError) as caught:
            second.append("g", [Bid(player="Anna", bid="misere")], expected=1)

        assert caught.value.found == 3
        assert [s.event.bid for s in first.load("g")[1:]] == ["6S", "pass"]  # type: ignore[union-attr]


def test_append_is_all_or_nothing(store: Store, raw: RawEvents) -> None:
    store.append("g", [started("g")], expected=0)
    raw.refuse_insert_of(3)  # the database will refuse the second of the three

    with pytest.raises(StoreError, match="refused by the test trigger") as caught:
        store.append(
            "g",
            [Bid(player="Anna", bid="6S"), Bid(player="Boris", bid="pass"), Bid(player="Vera", bid="pass")],
            expected=1,
        )

    assert not isinstance(caught.value, ConcurrentWriteError)
    assert store.count("g") == 1
    assert [s.event for s in store.load("g")] == [started("g")]
    assert raw.versions("g") == [1]


def test_event_that_cannot_be_encoded_stores_nothing(store: Store) -> None:
    store.append("g", [started("g")], expected=0)
    broken = Entry(player="Anna", column="pulya", amount=object())  # type: ignore[arg-type]

    with pytest.raises(TypeError):
        store.append("g", [Bid(player="Anna", bid="6S"), broken], expected=1)

    assert store.count("g") == 1


def test_reopened_store_finds_the_events(store_url: str, sample_events: SampleEvents) -> None:
    events = sample_events("club-7")
    with Store(store_url) as writer:
        stored = writer.append("club-7", events, expected=0)

    with Store(store_url) as reader:
        assert reader.load("club-7") == stored
        assert reader.games() == ["club-7"]
        assert reader.verify("club-7") is None
        reader.append("club-7", [Bid(player="Anna", bid="6S")], expected=len(events))
        assert reader.count("club-7") == len(events) + 1


def test_stored_row_is_the_record_as_msgspec_json(store: Store, raw: RawEvents) -> None:
    stored = store.append("g", [started("g"), Bid(player="Anna", bid="6S")], expected=0)

    topic, state = raw.row("g", 2)
    assert topic == "ledger.store:Recorded"
    assert raw.row("g", 1)[0] == "ledger.store:Opened"
    assert msgspec.json.decode(state) == {
        "event": {"type": "bid", "player": "Anna", "bid": "6S"},
        "digest": stored[1].digest,
        "link": stored[0].digest[:16],
    }
    assert msgspec.json.decode(raw.row("g", 1)[1])["link"] == "0" * 16


def test_each_row_is_the_state_encoded_whole(store: Store, raw: RawEvents, sample_events: SampleEvents) -> None:
    # The store writes a row from the event's bytes that it hashed, not by encoding the
    # State: the bytes must be the State's own, for every type of event, in a first
    # append and a later one, and after a digest passed in that JSON has to escape.
    events = sample_events("g")
    stored = store.append("g", events[:3], expected=0)
    stored += store.append("g", events[3:], expected=3)
    odd = 'a"b\\c\n\u00e9' + "f" * 16  # what a digest edited in the database might hold
    stored += store.append("g", [Bid(player="Anna", bid="6S")], expected=len(events), previous=odd)

    previous = [GENESIS] + [s.digest for s in stored[:-1]]
    previous[-1] = odd
    for s, before in zip(stored, previous, strict=True):
        assert raw.row("g", s.number)[1] == encode_state(State(s.event, s.digest, link_of(before)))
    assert {type(s.event) for s in stored} == {type(e) for e in events}


def test_a_game_starts_with_its_game_started_only(store: Store) -> None:
    with pytest.raises(ValueError, match="must be game_started"):
        store.append("g", [Bid(player="Anna", bid="6S")], expected=0)
    with pytest.raises(ValueError, match="cannot start game 'g'"):
        store.append("g", [started("other")], expected=0)
    store.append("g", [started("g")], expected=0)
    with pytest.raises(ValueError, match="only be event 1"):
        store.append("g", [started("g")], expected=1)
    with pytest.raises(ValueError, match="fewer than the 5 expected"):
        store.append("g", [Bid(player="Anna", bid="6S")], expected=5)

    assert store.count("g") == 1


def test_unopenable_sqlite_file_is_a_store_error(tmp_path: Path) -> None:
    # A file in a folder that does not exist: found empty by a read, refused at the first write.
    with Store(str(tmp_path / "missing" / "pulka.db")) as nowhere:
        assert nowhere.games() == []
        with pytest.raises(StoreError, match="cannot open the store .*missing"):
            nowhere.append("g", [started("g")], expected=0)
    not_a_database = tmp_path / "notes.db"
    not_a_database.write_bytes(b"this is not an SQLite database, just some text" * 100)
    with pytest.raises(StoreError, match="notes.db"):
        Store(str(not_a_database))


def test_unreachable_postgres_is_a_store_error() -> None:
    # Port 1 on the loopback: refused at once, nothing listens there.
    with pytest.raises(StoreError, match=r"cannot connect to postgresql://anna@127\.0\.0\.1:1/pulka") as caught:
        Store("postgresql://anna:secret@127.0.0.1:1/pulka")
    assert "secret" not in str(caught.value)


def test_a_password_is_masked_and_a_short_one_leaves_the_message_readable() -> None:
    short = "postgresql://anna:a@127.0.0.1:1/club"
    said = "cannot connect to postgresql://anna:a@127.0.0.1:1/club: password=a rejected, as a rule"
    assert mask(said, short) == "cannot connect to postgresql://anna:***@127.0.0.1:1/club: password=*** rejected, as *** rule"
    quoted = "postgresql://anna:p%40ss@db/club"  # p@ss: masked as given and as decoded
    assert mask("postgresql://anna:p%40ss@db/club, p@ss, xp@ssx", quoted) == "postgresql://anna:***@db/club, ***, xp@ssx"
    long = "postgresql://anna:sekrit@db/club"  # six characters or more: masked wherever it stands
    assert mask("sekrit, xsekritx", long) == "***, x***x"
    assert mask("sekrit", "club.db") == "sekrit"  # no password in a SQLite address


def test_postgres_address_parsing() -> None:
    address = parse_postgres_url("postgresql://anna:p%40ss@db.example:6543/club?schema=s1")
    assert address == ("club", "db.example", 6543, "anna", "p@ss", "s1")
    assert address.display() == "postgresql://anna@db.example:6543/club?schema=s1"

    defaults = parse_postgres_url("postgres://bob@localhost/pulka")
    assert (defaults.port, defaults.password, defaults.schema) == (5432, "", "")
    assert parse_postgres_url("postgresql://bob@/pulka?host=/run/postgresql").host == "/run/postgresql"

    with pytest.raises(StoreError, match="no database name"):
        parse_postgres_url("postgresql://bob@localhost")
    with pytest.raises(StoreError, match="unknown parameter 'sslmode'"):
        parse_postgres_url("postgresql://bob@localhost/pulka?sslmode=require")

