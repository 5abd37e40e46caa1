"""A page's update of a game (``game_delta``) at the document's door: for every prefix of
each golden pulka and every version before it, ``game_doc`` at that version with the
delta applied (``apply_delta``, which the pages' script mirrors) is ``game_doc`` at the
prefix's head; a delta carries only the deals an event after its base may have changed."""

from __future__ import annotations

from pathlib import Path

import httpx
import msgspec
import pytest

from ledger.application import Kept, Ledger
from ledger.judge.kinds import judge_log
from ledger.reads.game_documents import apply_delta, game_delta, game_doc
from ledger.store.event_store import Store
from ledger.store.stored import StoredEvent
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Correction, GameStarted
from projections.game import replay
from projections.numbers import json_plain
from readings import parse_log
from tests.serving import WAIT, Served, account, client, next_state, sign_in
from web import api_common

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
            held = docs[since - 1]
            assert apply_delta(held, delta) == docs[head - 1], (path.stem, since, head)  # type: ignore[arg-type]
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


# -- through the API: a write's answer with ``?since=`` -----------------------------------------


LINE = "6S pass pass | 6S | whist pass | 6 2 2"


@pytest.fixture
def club(store_url: str) -> str:
    account(store_url, "dora", "director")
    return store_url


@pytest.mark.sqlite_only
def test_a_write_answer_with_since_carries_only_the_new_deal_and_applies_to_the_whole(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-delta-1", "game": "d1", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 50}, headers=director)
        assert r.status_code == 201, r.text
        held = c.get("/api/games/d1").json()
        for k in range(3):
            r = c.post(f"/api/games/d1/deal?since={held['version']}",
                       json={"id": f"deal-000{k}", "version": held["version"], "line": LINE}, headers=director)
            assert r.status_code == 201, r.text
            delta = r.json()["state"]
            assert delta["since"] == held["version"] and [d["deal"] for d in delta["deals"]] == [k + 1]
            held = apply_delta(held, delta)
        assert held == c.get("/api/games/d1").json()
        # a correction of deal 1: its rows from deal 1 on
        tricks = next(e["number"] for e in c.get("/api/games/d1/log").json()["events"] if e["type"] == "tricks")
        r = c.post(f"/api/games/d1/correct?since={held['version']}",
                   json={"id": "fix-0001", "version": held["version"], "target": tricks,
                         "changes": ["Anna=5", "Boris=3", "Vera=2"]},
                   headers=director)
        assert r.status_code == 201, r.text
        delta = r.json()["state"]
        assert delta["deals_from"] == 1 and [d["deal"] for d in delta["deals"]] == [1, 2, 3]
        held = apply_delta(held, delta)
        whole = c.get("/api/games/d1").json()
        assert held == whole and "since" not in whole
        # without since, the whole game as before; a since that is no number is refused
        r = c.post("/api/games/d1/deal", json={"id": "deal-0009", "version": whole["version"], "line": LINE},
                   headers=director)
        assert r.status_code == 201 and "since" not in r.json()["state"] and len(r.json()["state"]["deals"]) == 4
        r = c.post("/api/games/d1/deal?since=x", json={"id": "deal-0010", "version": r.json()["state"]["version"],
                                                        "line": LINE}, headers=director)
        assert r.status_code == 422 and r.json()["refused"]["field"] == "since"


@pytest.mark.sqlite_only
def test_the_event_stream_carries_the_whole_game_unless_asked_for_deltas(store_url: str, tmp_path: Path) -> None:
    """Through a real ``pulka serve``: a follower that does not ask is sent the whole game
    at every change (docs/api.md's ``GAME``, as before); one that asks (``?deltas=1``,
    the pages) what changed since the version sent before, which applies to what it holds."""
    account(store_url, "dora", "director")
    served = Served(store_url, tmp_path / "serve.log")
    try:
        http = served.http()
        director = sign_in(http, "dora")
        r = http.post("/api/games", json={"id": "new-s1-0001", "game": "s1", "players": ["Anna", "Boris", "Vera"],
                                          "pulya": 50}, headers=director)
        assert r.status_code == 201, r.text
        with httpx.Client(base_url=served.url, timeout=WAIT) as a, httpx.Client(base_url=served.url, timeout=WAIT) as b, \
                a.stream("GET", "/api/games/s1/events") as whole_events, \
                b.stream("GET", "/api/games/s1/events?deltas=1") as delta_events:
            whole_lines, delta_lines = whole_events.iter_lines(), delta_events.iter_lines()
            held = next_state(delta_lines, 1)["state"]
            assert next_state(whole_lines, 1)["state"] == held and "since" not in held
            assert held == http.get("/api/games/s1").json()  # the first state is the game's read
            for k in range(2):
                r = http.post("/api/games/s1/deal", json={"id": f"deal-s1-{k:04d}", "version": held["version"],
                                                          "line": LINE}, headers=director)
                assert r.status_code == 201, r.text
                version = r.json()["state"]["version"]
                whole = next_state(whole_lines, version)["state"]
                delta = next_state(delta_lines, version)["state"]
                assert whole == http.get("/api/games/s1").json() and len(whole["deals"]) == k + 1
                assert delta["since"] == held["version"] and [d["deal"] for d in delta["deals"]] == [k + 1]
                held = apply_delta(held, delta)
                assert held == whole
    finally:
        served.stop()


@pytest.mark.sqlite_only
def test_the_games_read_is_its_document_encoded_once_per_version_and_language(
        club: str, monkeypatch: pytest.MonkeyPatch) -> None:
    encode = msgspec.json.encode

    def fresh(version: int, lang: str) -> bytes:
        """The game's document at ``version`` made and encoded now, in ``lang``."""
        with Store(club, create=False) as store, language.using(lang):
            kept = Ledger(store).keep("d2")
            assert len(kept.stored) == version
            return encode(game_doc(kept), enc_hook=json_plain)

    encoded: list[int] = []  # the version of each game document the service encodes

    def counted(doc: object, **kwargs: object) -> bytes:
        if isinstance(doc, dict) and "deals" in doc and "version" in doc:
            encoded.append(int(doc["version"]))  # type: ignore[call-overload]
        return encode(doc, **kwargs)  # type: ignore[arg-type]

    with client(club) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-delta-2", "game": "d2", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 50}, headers=director)
        assert r.status_code == 201, r.text
        monkeypatch.setattr(api_common.msgspec.json, "encode", counted)
        first = c.get("/api/games/d2")
        assert first.status_code == 200 and first.headers["content-type"] == "application/json"
        assert c.get("/api/games/d2").content == first.content and encoded == [1]  # the same bytes, encoded once
        assert first.content == fresh(1, "en")
        r = c.post("/api/games/d2/deal", json={"id": "deal-d2-1", "version": 1, "line": LINE}, headers=director)
        assert r.status_code == 201, r.text
        version = r.json()["state"]["version"]
        english = c.get("/api/games/d2").content  # the new version, encoded once more
        russian = c.get("/api/games/d2", headers={"Accept-Language": "ru"}).content
        assert c.get("/api/games/d2").content == english and encoded[1:] == [version, version]
    monkeypatch.undo()
    assert english == fresh(version, "en") and russian == fresh(version, "ru")
    assert russian != english  # the reader's language, not the first reader's
