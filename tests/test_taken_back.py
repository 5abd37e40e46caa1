"""Undo asked about, redo, and an abandonment previewed, at the scorer's desk
(``ledger.desks.taken_back``, ``PulkaDesk.preview_undo``, ``PulkaDesk.redo``,
``PulkaDesk.preview_abandon``): what undo would take back is said before it is done,
redo records again what the last undo took back (new events, by the one redoing, the
same sheet) and is refused with the store unchanged when there is nothing to redo, and
an abandonment's settlement is the one the abandonment then gives."""

from __future__ import annotations

import pytest

from helpers import ok, run
from ledger.vocabulary import language
from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from ledger.vocabulary.events import Abandoned, Bid, Tricks, Withdrawn
from ledger.vocabulary.refusal import Refused
from projections.report import settlement_doc
from projections.sheet import totals

# The subject here is a rule of the desk, not the store: on SQLite only.
pytestmark = pytest.mark.sqlite_only

FIRST = "Anna 6S w w 6 2 2"  # deal 1: events 2-8
SECOND = "Boris 7D w p 7 2 1"  # deal 2: events 9-15


@pytest.fixture
def desk(store: Store) -> PulkaDesk:
    d = PulkaDesk(Ledger(store))
    d.new("g", "Anna,Boris,Vera", pulya=20)
    d.deal("g", FIRST)
    d.deal("g", SECOND)
    return d


def stored(desk: PulkaDesk) -> int:
    return len(desk.ledger.events("g"))


def test_undo_asked_about_says_the_deal_and_its_line_and_stores_nothing(desk: PulkaDesk) -> None:
    p = desk.preview_undo("g")
    assert (p.first, p.last, p.deal, p.expected) == (9, 15, 2, 15)
    assert p.what == "7D by Boris: 7D pass pass | 7D | whist pass | 7 2 1"
    assert stored(desk) == 15
    desk.entry("g", "Anna", "gora", 2)  # a record alone: described as the log describes it
    assert desk.preview_undo("g").what == "entry: Anna gora +2"


def test_undo_asked_about_in_russian_says_the_line_in_russian(desk: PulkaDesk) -> None:
    """The line as the scorer's Russian page asks about it: its words in Russian, the
    contract in the players' notation, not the log's letters (``7D pass pass``)."""
    with language.using("ru"):
        assert desk.preview_undo("g").what == "7♦, играет Boris: 7♦ пас пас | 7♦ | вист пас | 7 2 1"


def test_undo_asked_about_is_refused_as_the_undo_would_be(desk: PulkaDesk) -> None:
    for player in ("Anna", "Boris", "Vera"):
        desk.pencil("g", player)
    with pytest.raises(Refused) as caught:
        desk.preview_undo("g")
    assert caught.value.rule == "4.2.8" and "pencil" in caught.value.reason
    assert stored(desk) == 18


def test_redo_records_again_what_the_undo_took_back_by_the_one_redoing(desk: PulkaDesk) -> None:
    sheet = totals(desk.ledger.state("g").sheet())
    desk.undo("g", by="Vera")
    assert totals(desk.ledger.state("g").sheet()) != sheet
    told = desk.redo("g", by="scorer:Masha")
    numbers = [e.number for e in told.events]
    assert numbers == list(range(17, 24))  # the seven events of deal 2 after the undo (16)
    assert all(e.event.by == "scorer:Masha" and e.event.deal == 2 for e in told.events)
    assert isinstance(told.events[0].event, Bid) and isinstance(told.events[-1].event, Tricks)
    assert told.deals == ((2, "Boris 7D, Vera pass, Anna pass | Boris 7D | Vera whist, Anna pass | "
                              "Boris 7, Vera 2, Anna 1"),)
    assert totals(desk.ledger.state("g").sheet()) == sheet
    log = desk.ledger.events("g")
    assert isinstance(log[15].event, Withdrawn) and log[8].event.by != "scorer:Masha"  # the undo and the original stay


def test_redo_of_a_record_alone(desk: PulkaDesk) -> None:
    desk.entry("g", "Vera", "whists", 4, on="Boris")
    sheet = totals(desk.ledger.state("g").sheet())
    desk.undo("g")
    (redone,) = desk.redo("g").events
    assert redone.number == 18 and redone.event.on == "Boris" and redone.event.amount == 4  # type: ignore[attr-defined]
    assert totals(desk.ledger.state("g").sheet()) == sheet


def test_redo_with_no_undo_is_refused_and_stores_nothing(desk: PulkaDesk) -> None:
    with pytest.raises(Refused) as caught:
        desk.redo("g")
    assert caught.value.rule == "4.2.8" and caught.value.reason == "nothing to redo: no record of this game was undone"
    assert stored(desk) == 15


def test_redo_after_a_record_since_the_undo_is_refused_and_stores_nothing(desk: PulkaDesk) -> None:
    desk.undo("g")
    desk.deal("g", "rasp 4 3 3")  # event 17 on: recorded after the undo (event 16)
    before = stored(desk)
    with pytest.raises(Refused) as caught:
        desk.redo("g")
    assert caught.value.rule == "4.2.8" and "was recorded after the undo (event 16)" in caught.value.reason
    assert stored(desk) == before


def test_redo_is_once(desk: PulkaDesk) -> None:
    desk.undo("g")
    desk.redo("g")
    with pytest.raises(Refused):
        desk.redo("g")
    desk.undo("g")  # the deal made again is undone like any deal line, and redone again
    assert [e.number for e in desk.redo("g").events] == list(range(25, 32))


def test_an_abandonment_previewed_gives_the_settlement_the_abandonment_gives(desk: PulkaDesk) -> None:
    outcome = desk.preview_abandon("g", agreed_by="Anna,Boris,Vera")
    assert isinstance(outcome.stored[-1].event, Abandoned) and outcome.stored[-1].number == 16
    previewed = settlement_doc(outcome.state)
    assert previewed["abandoned"] and stored(desk) == 15
    desk.abandon("g", agreed_by="Anna,Boris,Vera")
    assert settlement_doc(desk.ledger.state("g")) == previewed


def test_an_abandonment_previewed_is_refused_as_the_abandonment_would_be(desk: PulkaDesk) -> None:
    with pytest.raises(Refused) as caught:
        desk.preview_abandon("g", agreed_by="Anna,Gleb")
    assert caught.value.field == "agreed_by" and stored(desk) == 15


def test_pulka_redo_on_the_command_line(store_url: str) -> None:
    ok(store_url, "new", "c", "--players", "Anna,Boris,Vera")
    ok(store_url, "deal", "c", FIRST)
    ok(store_url, "undo", "c")
    done = ok(store_url, "redo", "c", "--by", "Vera")
    assert "Anna 6S" in done
    refused = run(store_url, "redo", "c")
    assert refused.exit_code != 0 and "nothing to redo" in refused.output


def test_the_apis_previews_redo_and_a_correction_named_by_its_deal(store_url: str) -> None:
    from tests.serving import account, client, sign_in  # the service, only here

    account(store_url, "dora", "director")
    with client(store_url) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "t1", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 20}, headers=director)
        version = r.json()["state"]["version"]

        def write(command: str, body: dict[str, object], key: str, status: int = 201) -> dict[str, object]:
            nonlocal version
            r = c.post(f"/api/games/t1/{command}", json={"id": key, "version": version, **body}, headers=director)
            assert r.status_code == status, r.text
            doc: dict[str, object] = r.json()
            if status == 201:
                version = doc["state"]["version"]  # type: ignore[index]
            return doc

        write("deal", {"line": FIRST}, "deal-0001")
        asked = c.post("/api/games/t1/undo/preview", json={}, headers=director).json()["preview"]
        assert asked == {"first": 2, "last": 8, "deal": 1, "what": "6S by Anna: 6S pass pass | 6S | whist whist | 6 2 2",
                         "version": 8}
        ended = c.post("/api/games/t1/abandon/preview", json={"agreed_by": ["Anna", "Boris", "Vera"]},
                       headers=director).json()["preview"]
        assert ended["version"] == 8 and ended["settlement"]["abandoned"]
        refused = c.post("/api/games/t1/abandon/preview", json={"agreed_by": ["Gleb"]}, headers=director)
        assert refused.status_code == 422 and refused.json()["refused"]["field"] == "agreed_by"
        assert write("redo", {}, "redo-0000", 422)["refused"]["rule"] == "4.2.8"  # type: ignore[index]
        write("undo", {}, "undo-0001")
        redone = write("redo", {}, "redo-0001")
        assert [e["number"] for e in redone["told"]["events"]] == list(range(10, 17))  # type: ignore[index]
        fixed = c.post("/api/games/t1/correct/preview", json={"target": "deal:1.tricks", "changes": ["Anna=7", "Boris=1"]},
                       headers=director).json()["preview"]
        assert fixed["target"] == 16 and fixed["now"] == "tricks Anna 7, Boris 1, Vera 2"
        assert version == 16  # previews stored nothing
