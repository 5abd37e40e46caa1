"""When a deal was played and when it arrived (issue 31, finding 10): an entry made on a
phone offline carries the phone's time of the tap (``played_at``), stored on each of its
events beside ``at``, the ledger's time of arrival, which alone orders the stream.

The judge refuses a ``played_at`` that is not an ISO 8601 time with offset, or that is
after the arrival, naming the field, and stores nothing; one before the previous
entry's is taken (phones' clocks differ). An old log, written before the field existed,
keeps its bytes and its digests: its chain still verifies. The audit trail (``pulka log``
and the service's ``/log``) shows both times when they differ; time travel reads ``at``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from helpers import ok, refused as cli_refused
from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from ledger.vocabulary.events import Bid, encode_event
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import parse_time
from tests.serving import account, bearer, client, sign_in

OLD_LOG = Path(__file__).resolve().parent / "data" / "pulka_before_played_at.jsonl"
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
RASPASY = "pass pass pass | 5 3 2"
PLAYED = "2026-12-05T20:14:03+03:00"  # a Saturday evening in Sochi, long before the test runs


@pytest.fixture
def desk(store: Store) -> PulkaDesk:
    d = PulkaDesk(Ledger(store))
    d.new("g", "Anna,Boris,Vera", pulya=20)
    return d


def refused(act: Any) -> Refused:
    with pytest.raises(Refused) as caught:
        act()
    return caught.value


@pytest.mark.sqlite_only
def test_each_event_of_an_entry_keeps_when_it_was_played_beside_when_it_arrived(desk: PulkaDesk,
                                                                                 store: Store) -> None:
    PulkaDesk(desk.ledger, played_at=PLAYED).deal("g", DEAL)
    desk.deal("g", RASPASY)  # entered as it was played: no second time
    events = [s.event for s in store.load("g")]
    first, second = events[1:8], events[8:]
    assert first and all(e.played_at == PLAYED for e in first)
    assert all(e.at is not None and parse_time(e.at) > parse_time(PLAYED) for e in first)  # stamped on arrival
    assert second and all(e.played_at is None for e in second)


@pytest.mark.sqlite_only
@pytest.mark.parametrize("played, why", [
    ("yesterday", "is not an ISO 8601 time"),
    ("2026-12-05T20:14:03", "has no offset"),
    ("2999-01-01T00:00:00Z", "is after the event arrived"),
])
def test_a_played_time_that_is_no_time_or_after_its_arrival_is_refused_naming_the_field(
        desk: PulkaDesk, store: Store, played: str, why: str) -> None:
    before = store.count("g")
    exc = refused(lambda: PulkaDesk(desk.ledger, played_at=played).deal("g", DEAL))
    assert exc.field == "played_at" and why in exc.reason and exc.allowed
    assert store.count("g") == before


@pytest.mark.sqlite_only
def test_a_played_time_before_the_previous_entrys_is_taken_and_the_arrival_still_orders(desk: PulkaDesk,
                                                                                       store: Store) -> None:
    """Two phones' clocks disagree: the second entry says it was played before the first."""
    PulkaDesk(desk.ledger, played_at="2026-12-05T20:30:00+03:00").deal("g", DEAL)
    PulkaDesk(desk.ledger, played_at="2026-12-05T20:10:00+03:00").deal("g", RASPASY)
    events = [s.event for s in store.load("g")]
    assert [e.played_at for e in events[-4:]] == ["2026-12-05T20:10:00+03:00"] * 4
    times = [parse_time(e.at) for e in events if e.at]
    assert times == sorted(times)


@pytest.mark.sqlite_only
def test_a_log_file_may_carry_a_played_time_and_the_import_judges_it(store_url: str, tmp_path: Path) -> None:
    lines = OLD_LOG.read_text(encoding="utf-8").splitlines()
    start = json.loads(lines[0])
    start.pop("digest")
    start.update(game="imported", at="2026-12-05T17:00:00+00:00")
    good = {"type": "bid", "player": "Anna", "bid": "6S", "at": "2026-12-05T17:20:00+00:00",
            "played_at": "2026-12-05T20:14:03+03:00"}
    late = {**good, "played_at": "2026-12-05T20:21:00+03:00"}  # 17:21 UTC: after its arrival at 17:20
    path = tmp_path / "late.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (start, late)) + "\n", encoding="utf-8")
    message = cli_refused(store_url, "import", str(path))
    assert "played_at" in message and "line 2" in message
    path.write_text("\n".join(json.dumps(x) for x in (start, good)) + "\n", encoding="utf-8")
    ok(store_url, "import", str(path))
    exported = [json.loads(x) for x in ok(store_url, "export", "imported").splitlines()]
    assert exported[1]["played_at"] == good["played_at"] and exported[1]["at"] == good["at"]


def test_an_old_log_keeps_its_bytes_and_its_chain_verifies(store_url: str) -> None:
    """An export made before ``played_at`` existed (digests and all) imports, exports the
    same bytes and verifies; a deal added now with a played time verifies with it."""
    ok(store_url, "import", str(OLD_LOG))
    assert ok(store_url, "export", "before_played_at") == OLD_LOG.read_text(encoding="utf-8")
    assert "chain intact" in ok(store_url, "verify", "before_played_at")
    assert "matches the saved export" in ok(store_url, "verify", "before_played_at", "--against", str(OLD_LOG))
    with Store(store_url) as store:
        PulkaDesk(Ledger(store), played_at=PLAYED).deal("before_played_at", "pass pass pass | 2 5 3")
    exported = ok(store_url, "export", "before_played_at")
    assert exported.startswith(OLD_LOG.read_text(encoding="utf-8"))
    assert json.loads(exported.splitlines()[-1])["played_at"] == PLAYED
    assert "chain intact" in ok(store_url, "verify", "before_played_at")


@pytest.mark.sqlite_only
def test_an_event_without_a_played_time_encodes_as_it_did() -> None:
    bid = Bid(player="Anna", bid="6S", at="2026-12-05T17:20:00+00:00", by="Anna", deal=1)
    assert b"played_at" not in encode_event(bid)
    played = msgspec.structs.replace(bid, played_at=PLAYED)
    assert json.loads(encode_event(played))["played_at"] == PLAYED


@pytest.mark.sqlite_only
def test_the_audit_trail_shows_both_times_when_they_differ(store_url: str) -> None:
    with Store(store_url) as store:
        desk = PulkaDesk(Ledger(store))
        desk.new("g", "Anna,Boris,Vera", pulya=20)
        PulkaDesk(desk.ledger, played_at=PLAYED).deal("g", DEAL)
        desk.deal("g", RASPASY)
    rows = json.loads(ok(store_url, "log", "g", "--json"))["events"]
    assert [r.get("played_at") for r in rows] == [None] + [PLAYED] * 7 + [None] * 4
    text = ok(store_url, "log", "g", env={"TZ": "UTC"})
    assert text.count("played at ") == 7
    lines = text.splitlines()
    bid = next(i for i, line in enumerate(lines) if line.split()[:1] == ["2"])
    assert lines[bid + 1].strip().startswith("played at 2026-12-05 17:14:03")


@pytest.mark.sqlite_only
def test_the_service_stores_a_phones_played_time_and_its_log_shows_it(store_url: str) -> None:
    account(store_url, "dora", "director")
    with client(store_url) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "t1", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 10}, headers=director)
        assert r.status_code == 201, r.text
        r = c.post("/api/games/t1/tokens", json={"holder": "Masha"}, headers=director)
        assert r.status_code == 201, r.text
        phone = bearer(r.json()["token"])
        late = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL,
                                                  "played_at": "2999-01-01T00:00:00+03:00"}, headers=phone)
        assert late.status_code == 422 and late.json()["refused"]["field"] == "played_at"
        stored = c.post("/api/games/t1/deal", json={"id": "phone-0002", "version": 1, "line": DEAL,
                                                    "played_at": PLAYED}, headers=phone)
        assert stored.status_code == 201, stored.text
        again = c.post("/api/games/t1/deal", json={"id": "phone-0002", "version": 1, "line": DEAL,
                                                   "played_at": PLAYED}, headers=phone)
        assert again.json()["duplicate"] is True
        log = c.get("/api/games/t1/log").json()["events"]
    assert "played_at" not in log[0] and [e["played_at"] for e in log[1:]] == [PLAYED] * 7
    assert all(parse_time(e["at"]) > parse_time(PLAYED) for e in log[1:])
