"""A phone's structured outcome (``web/outcome.py``) through the service's API:
the auction it leaves out made by the desk and marked ``implied``, one step at a
time where ``jump_bids`` is off [Code 3.3.8]; a declarer two down while a defender took
what the contract needed stored as tapped (the counts are named: no order to doubt);
names a line cannot carry as one word recorded too."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.serving import account, client, sign_in

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def club(store_url: str) -> str:
    account(store_url, "dora", "director")
    return store_url


def game(c: TestClient, headers: dict[str, str], players: list[str], rules: dict[str, Any] | None = None) -> None:
    r = c.post("/api/games", json={"id": "new-game-0001", "game": "t1", "players": players, "pulya": 10,
                                   "rules": rules or {}}, headers=headers)
    assert r.status_code == 201, r.text


def deal(c: TestClient, headers: dict[str, str], outcome: dict[str, Any]) -> list[dict[str, Any]]:
    """The events the outcome stored (the first deal of the game: version 1)."""
    r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1, "outcome": outcome}, headers=headers)
    assert r.status_code == 201, r.text
    events: list[dict[str, Any]] = r.json()["told"]["events"]
    return events


def test_the_auction_left_out_is_the_desks_implied_one_a_step_at_a_time_where_jumps_are_off(club: str) -> None:
    """Vera (third to speak) plays 7H: the others pass, and with jump_bids off her bid is
    the lowest, 6S, her contract above it [Code 3.3.8, 3.4.3]."""
    with client(club) as c:
        director = sign_in(c, "dora")
        game(c, director, ["Anna", "Boris", "Vera"], {"jump_bids": False})
        events = deal(c, director, {"contract": "7H", "declarer": "Vera", "defence": {"Anna": "whist", "Boris": "pass"},
                                    "tricks": {"Vera": 7, "Anna": 2, "Boris": 1}})
    bids = [(e["player"], e["bid"], e.get("implied")) for e in events if e["type"] == "bid"]
    assert bids == [("Anna", "pass", True), ("Boris", "pass", True), ("Vera", "6S", True)]
    assert [(e["player"], e["contract"]) for e in events if e["type"] == "contract"] == [("Vera", "7H")]
    assert [e["tricks"] for e in events if e["type"] == "tricks"] == [{"Vera": 7, "Anna": 2, "Boris": 1}]


def test_a_declarer_two_down_while_a_defender_took_six_is_stored_as_tapped(club: str) -> None:
    """The result a slip of a typed line's order would give [scorer.doubt_of] is no slip
    on a phone that took each count from its player's row."""
    with client(club) as c:
        director = sign_in(c, "dora")
        game(c, director, ["Anna", "Boris", "Vera"])
        events = deal(c, director, {"contract": "6S", "declarer": "Vera", "defence": {"Anna": "whist", "Boris": "pass"},
                                    "tricks": {"Vera": 4, "Anna": 6, "Boris": 0}})
    assert [e["tricks"] for e in events if e["type"] == "tricks"] == [{"Vera": 4, "Anna": 6, "Boris": 0}]


def test_names_a_line_cannot_carry_as_one_word_are_recorded_too(club: str) -> None:
    """A name with a space and one that reads as a call (``w``, whist): the whole deal,
    which names nobody; the same outcome, the same tricks, Anna Maria two down."""
    with client(club) as c:
        director = sign_in(c, "dora")
        game(c, director, ["Anna Maria", "w", "Vera"])
        events = deal(c, director, {"contract": "6S", "declarer": "anna maria", "defence": {"w": "whist", "Vera": "pass"},
                                    "tricks": {"Anna Maria": 4, "w": 6, "Vera": 0}})
    assert [(e["player"], e["bid"]) for e in events if e["type"] == "bid"] == [
        ("Anna Maria", "6S"), ("w", "pass"), ("Vera", "pass")]
    assert [(e["player"], e["call"]) for e in events if e["type"] == "defence"] == [("w", "whist"), ("Vera", "pass")]
    assert [e["tricks"] for e in events if e["type"] == "tricks"] == [{"Anna Maria": 4, "w": 6, "Vera": 0}]
