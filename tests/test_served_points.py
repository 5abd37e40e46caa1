"""The service's reads of a pulka at a point (``?at=``, ``?deal=``, ``?time=``), answered
from the forks it keeps beside the game (``projections.at_points``): the same documents
as a fold from event 1, before and after the game moves on (a correction of an early
deal among them), and a point the game
does not have refused, saying which points it has."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
import pytest

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from projections.audit import audit, row_doc
from projections.deal_text import deal_table
from projections.drawing.svg import svg_document
from projections.picture import picture
from projections.points import Point, cut
from projections.report import settlement_doc, sheet_doc, state_at
from projections.trail import PLAYER_CELLS
from tests.serving import account, bearer, client, sign_in
from web.api_common import json

LINES = ("6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3", "7H pass pass | 7H | whist pass | 6 3 1")


def stored(db: str) -> list[Any]:
    with Store(db, create=False) as store:
        return [s.event for s in store.load("p")]


def expected(db: str, point: Point) -> dict[str, Any]:
    """What each read at ``point`` shows, folded from event 1."""
    events = stored(db)
    kept = cut(events, point)
    state = state_at(events, point)
    head, rows = deal_table(state)
    return as_sent({"sheet": sheet_doc(state.sheet()), "settlement": settlement_doc(state),
            "deals": {"game": "p", "columns": head,
                      "rows": [[str(v) if isinstance(v, Fraction) else v for v in r] for r in rows]},
            "log": [row_doc(r, PLAYER_CELLS) for r in audit(kept)],
            "svg": svg_document(picture(events, point))})


def as_sent(doc: dict[str, Any]) -> dict[str, Any]:
    """A document as the service sends it: through its JSON encoder."""
    sent: dict[str, Any] = msgspec.json.decode(json(doc).body)
    return sent


def served(c: Any, headers: dict[str, str], query: str) -> dict[str, Any]:
    """Each read at a point, as the service answers it."""
    answers = {name: c.get(f"/api/games/p/{name}?{query}", headers=headers)
               for name in ("sheet", "settlement", "deals", "log", "sheet.svg")}
    for name, r in answers.items():
        assert r.status_code == 200, (name, r.text)
    return {"sheet": answers["sheet"].json(), "settlement": answers["settlement"].json(),
            "deals": answers["deals"].json(), "log": answers["log"].json()["events"],
            "svg": answers["sheet.svg"].text}


@pytest.mark.sqlite_only
def test_a_read_at_a_point_is_right_before_and_after_the_game_moves_on(store_url: str) -> None:
    account(store_url, "dora", "director")
    with client(store_url) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "p", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 30}, headers=director)
        assert r.status_code == 201, r.text
        # The deals recorded by another writer (a scorer's command line): the service
        # follows the stream's head, and reads the events as the store gives them.
        with Store(store_url) as store:
            desk = PulkaDesk(Ledger(store))
            for k in range(6):
                desk.deal("p", LINES[k % len(LINES)])
        early = served(c, director, "at=12")
        assert early == expected(store_url, Point(at=12))
        assert served(c, director, "deal=3") == expected(store_url, Point(deal=3))
        # The game moves on: more deals, and deal 1's tricks corrected.
        with Store(store_url) as store:
            desk = PulkaDesk(Ledger(store))
            for k in range(40):
                desk.deal("p", LINES[k % len(LINES)])
            desk.correct("p", 8, ["Anna=5", "Boris=3"], by="arbiter:dora")
            desk.deal("p", LINES[0])
        total = len(stored(store_url))
        assert served(c, director, "at=12") == early  # the past as it was
        for query, point in ((f"at={total - 3}", Point(at=total - 3)), (f"at={total}", Point(at=total)),
                             ("deal=20", Point(deal=20)), ("", Point())):
            assert served(c, director, query) == expected(store_url, point), query
        drawn = served(c, director, f"at={total}")["svg"]
        assert "line-through" in drawn or "struck" in drawn  # the correction struck an entry of deal 1


@pytest.mark.sqlite_only
def test_a_point_the_game_does_not_have_is_refused_saying_which_it_has(store_url: str) -> None:
    account(store_url, "dora", "director")
    with client(store_url) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "p", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 30}, headers=director)
        assert r.status_code == 201, r.text
        masha = c.post("/api/games/p/tokens", json={"holder": "Masha"}, headers=director).json()["token"]
        r = c.post("/api/games/p/deal", json={"id": "deal-0001", "version": 1, "line": LINES[0]},
                   headers=bearer(masha))
        assert r.status_code == 201, r.text
        served(c, director, "at=3")  # its forks made: a refusal comes from them too
        for query, words in (("at=99", "the game has events 1 to 8; there is no event 99"),
                             ("at=0", "there is no event 0"),
                             ("deal=5", "the game has deal 1 only; there is no deal 5"),
                             ("at=2&deal=1", "give only one of --at, --deal and --time"),
                             ("time=2001-01-01T10:00", "the game was started after")):
            for name in ("sheet", "settlement", "deals", "log", "sheet.svg"):
                r = c.get(f"/api/games/p/{name}?{query}", headers=director)
                assert r.status_code == 422, (name, query, r.text)
                assert words in r.json()["refused"]["message"], (name, query, r.json())
