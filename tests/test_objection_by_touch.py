"""An objection lodged by touch on the scorer's phone (``web/static/score_actions.js``,
issue 31), in headless Chromium at 390×844 against a real ``pulka serve``: a partner
refuses a late record of an earlier deal [Code 4.2.10]. The scorer picks who objects
and the deal, is asked first (an objection cannot be undone: it is no record of the
game [Code 4.2.8]), and is told beside the button what it did; the store holds it with
the scorer as ``by`` and the objector as ``player``, the audit trail shows it, and the
late record no longer counts. In Russian as well, with no English word left.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest

from ledger.vocabulary.events import Entry, Objection
from serving import bearer
from test_russian_crawl import english
from test_table_actions import ANNA_FIRST, more, sheet, stored
from test_web_pages import WAIT, By, Club, WebDriver, club, enter, open_score, outbox, own_errors, tap, text_of, \
    version, wait

__all__ = ["club"]  # the fixture: this module's own service
# The subject is the page, not the store: SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only


def late_record(club: Club, game: str, boris: str, player: str = "Boris") -> int:
    """Deal 2 begun (its forehand, Boris, passes), then a number of deal 1 written from
    Boris's phone: a forgotten record, added late [Code 4.2.10]. Its event's number."""
    url = f"{club.url}/api/games/{quote(game)}"
    r = httpx.post(f"{url}/bid", json={"id": f"bid-{game}", "version": club.state(game)["version"],
                                       "player": "Boris", "bid": "pass"}, headers=bearer(boris), timeout=WAIT)
    assert r.status_code == 201, r.text
    r = httpx.post(f"{url}/entry", json={"id": f"late-{game}", "version": club.state(game)["version"],
                                         "player": player, "column": "whists", "amount": 4, "on": "Anna", "deal": 1},
                   headers=bearer(boris), timeout=WAIT)
    assert r.status_code == 201, r.text
    number: int = r.json()["told"]["events"][0]["number"]
    return number


def ready(driver: WebDriver, club: Club, game: str, lang: str = "") -> int:
    """Deal 1 tapped by Anna, a late record of it from Boris's phone, the page holding it."""
    club.game(game, players=PLAYERS)
    anna, boris = club.token(game, "Anna"), club.token(game, "Boris")
    driver.get(f"{club.url}/score/{game}{lang}#token={anna}")
    wait(driver, lambda d: version(d) > 0 and text_of(d, "recording-as"))
    enter(driver, ANNA_FIRST)
    wait(driver, lambda d: outbox(d) == [] and version(d) == club.state(game)["version"] == 8)
    late = late_record(club, game, boris)
    wait(driver, lambda d: version(d) == late)
    more(driver)
    driver.find_element(By.CSS_SELECTOR, '#object-player option[value="Vera"]').click()
    driver.find_element(By.CSS_SELECTOR, '#object-deal option[value="1"]').click()
    return late


PLAYERS = ["Anna", "Boris", "Vera"]


def asked(driver: WebDriver) -> str:
    tap(driver, "#object")
    wait(driver, lambda d: d.find_element(By.ID, "object-ask").is_displayed())
    return text_of(driver, "object-what")


def told(driver: WebDriver) -> Any:
    return wait(driver, lambda d: d.find_element(By.ID, "object-said")
                if d.find_element(By.ID, "object-said").is_displayed() else None)


def test_an_objection_by_taps_is_asked_stored_as_the_scorers_and_withdraws_the_late_record(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    late = ready(scorer, club, "objecting")
    counted = sheet(club, "objecting")
    # who objects and the deal said beside their choices, each deal by what it was
    form = scorer.find_element(By.ID, "object-form")
    assert [label.text for label in form.find_elements(By.TAG_NAME, "label")] == ["Who objects", "The deal"]
    assert form.find_element(By.CSS_SELECTOR, '#object-deal option[value="1"]').text == "deal 1: 6S by Anna"
    assert asked(scorer) == "Vera objects to the late records of deal 1? An objection cannot be undone."
    tap(scorer, "#object-no")  # kept: nothing stored
    assert not scorer.find_element(By.ID, "object-ask").is_displayed()
    assert club.state("objecting")["version"] == late
    asked(scorer)
    tap(scorer, "#object-yes")
    said = told(scorer)
    wait(scorer, lambda d: outbox(d) == [] and version(d) == late + 1 == club.state("objecting")["version"])
    # beside the button, what it did: the late record withdrawn
    assert said.text == f"Vera objects to the late record of deal 1: late record(s) {late} withdrawn"
    assert said.get_attribute("data-verdict") == "effective" and "alarm" not in said.get_attribute("class")
    assert text_of(scorer, "message") == "recorded: Vera objects to the late record of deal 1"
    # stored as the scorer's, the objector named
    objection = stored(club, "objecting")[-1]
    assert isinstance(objection, Objection)
    assert (objection.player, objection.deal, objection.by, objection.target) == ("Vera", 1, "Anna", None)
    assert isinstance(stored(club, "objecting")[late - 1], Entry)
    # the audit trail, as the table reads it, shows it with its verdict and the late record's
    r = httpx.get(f"{club.url}/api/games/objecting/log?verdicts=1", headers=bearer(club.token("objecting", "Vera")),
                  timeout=WAIT)
    assert r.status_code == 200, r.text
    rows = {row["number"]: row for row in r.json()["events"]}
    assert rows[late + 1]["by"] == "Anna" and rows[late + 1]["type"] == "objection"
    assert rows[late + 1]["text"] == "Vera objects to late records of deal 1" and rows[late + 1]["effective"]
    assert rows[late]["effective"] is False and "Vera objected" in rows[late]["reason"]
    # the late record no longer counts: Boris's 4 whists on Anna are off the sheet
    assert sheet(club, "objecting") != counted
    assert own_errors(scorer) == []


def test_an_objection_by_taps_in_russian(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    late = ready(scorer, club, "protest", "?lang=ru")
    question = asked(scorer)
    assert question.startswith("Vera ") and english(question, frozenset(PLAYERS)) == []
    tap(scorer, "#object-yes")
    said = told(scorer).text
    assert str(late) in said and english(said, frozenset(PLAYERS)) == [], said
    objection = stored(club, "protest")[-1]
    assert isinstance(objection, Objection) and (objection.player, objection.by) == ("Vera", "Anna")
    for text in (text_of(scorer, "message"), scorer.find_element(By.ID, "object-form").text):
        assert english(text, frozenset(PLAYERS)) == [], text
    assert own_errors(scorer) == []
