"""The table's actions on the scorer's phone (``web/static/score_actions.js``, issue 31) in
headless Chromium at 390×844, against a real ``pulka serve``: the end of the pulka with
its settlement previewed before it is confirmed, a misdeal, a number written by hand,
the talon, undo that says what it takes back and asks (its message beside the button),
redo, and a deal's tricks corrected by taps. Each is read back from the store as the
events it stored, and compared with what the scorer's desk stores for the same command.

The rules themselves (what redo may record again, what an abandonment settles) are the
desk's, tested there (tests/test_taken_back.py); here is what only a browser shows.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from ledger.vocabulary.events import Abandoned, AnyEvent, Annulled, Correction, Entry, Talon, Withdrawn
from projections.sheet import totals
from test_web_pages import TEN, By, Club, WebDriver, club, enter, open_score, outbox, own_errors, tap, text_of, \
    version, wait

# The subject is the page, not the store: the desk's store on SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only

ANNA_FIRST = TEN[0][0]  # 6♠ by Anna, Boris whists, Vera passes: Anna 6, Boris 3, Vera 1


def stored(club: Club, game: str) -> list[AnyEvent]:
    """The game's events as the store holds them."""
    with Store(club.served.db) as store:
        return [e.event for e in Ledger(store).events(game)]


def sheet(club: Club, game: str) -> Any:
    with Store(club.served.db) as store:
        return totals(Ledger(store).state(game).sheet())


def settled(driver: WebDriver, game: str, club: Club, k: int) -> None:
    """The page holds the table as the service has it, nothing waiting, ``k`` deals."""
    wait(driver, lambda d: outbox(d) == [] and version(d) == club.state(game)["version"]
         and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == k)


def more(driver: WebDriver) -> None:
    driver.find_element(By.CSS_SELECTOR, "#more-box summary").click()


def in_view(driver: WebDriver, element_id: str) -> bool:
    found: bool = driver.execute_script(
        "var r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;", element_id)
    return found


def test_the_end_of_the_pulka_previewed_then_confirmed(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    club.game("ending")
    open_score(scorer, club, "ending", club.token("ending", "Anna"))
    enter(scorer, ANNA_FIRST)
    settled(scorer, "ending", club, 1)
    more(scorer)
    before = club.state("ending")["version"]
    tap(scorer, "#abandon-preview")
    wait(scorer, lambda d: d.find_element(By.ID, "abandon-verdict").is_displayed())
    rows = {tr.get_attribute("data-player"): tr.find_elements(By.TAG_NAME, "td")[2].text
            for tr in scorer.find_elements(By.CSS_SELECTOR, "#abandon-rows tr")}
    assert club.state("ending")["version"] == before  # a preview stores nothing
    tap(scorer, "#abandon-store")
    wait(scorer, lambda d: outbox(d) == [] and version(d) == before + 1)
    state = club.state("ending")
    assert state["over"] and state["settlement"]["abandoned"]
    assert rows == {p: f"{r:+d}" if r else "0" for p, r in state["settlement"]["rounded"].items()}
    last = stored(club, "ending")[-1]
    assert isinstance(last, Abandoned) and last.agreed_by == ("Anna", "Boris", "Vera") and last.by == "Anna"
    assert own_errors(scorer) == []


def test_a_misdeal_a_number_by_hand_and_the_talon(phones: tuple[WebDriver, WebDriver], club: Club,
                                                  store: Store) -> None:
    scorer = phones[0]
    club.game("hand")
    open_score(scorer, club, "hand", club.token("hand", "Anna"))
    more(scorer)
    tap(scorer, "#annul")
    wait(scorer, lambda d: outbox(d) == [] and version(d) == 2)
    scorer.find_element(By.CSS_SELECTOR, '#entry-player option[value="Vera"]').click()
    scorer.find_element(By.CSS_SELECTOR, '#entry-column option[value="whists"]').click()
    scorer.find_element(By.CSS_SELECTOR, '#entry-on option[value="Boris"]').click()
    for _ in range(4):
        tap(scorer, "#entry-amount-more")
    tap(scorer, "#entry")
    wait(scorer, lambda d: outbox(d) == [] and version(d) == 3)
    scorer.find_element(By.CSS_SELECTOR, '#talon-player option[value="Vera"]').click()
    tap(scorer, "#talon")
    wait(scorer, lambda d: outbox(d) == [] and version(d) == 4)
    # the talon's premium counts its tricks with − and +, never fewer than one
    assert not scorer.find_element(By.ID, "talon-tricks-box").is_displayed()
    scorer.find_element(By.CSS_SELECTOR, '#talon-kind option[value="premium"]').click()
    for button, shown in (("more", "2"), ("more", "3"), ("less", "2"), ("less", "1"), ("less", "1")):
        tap(scorer, f"#talon-tricks-{button}")
        assert scorer.find_element(By.ID, "talon-tricks").text == shown
    # The scorer's desk, given the same commands, stores the same events.
    desk = PulkaDesk(Ledger(store))
    desk.new("hand", "Anna,Boris,Vera", pulya=20)
    desk.annul("hand", by="Anna")
    desk.entry("hand", "Vera", "whists", 4, on="Boris", by="Anna")
    desk.talon("hand", "peek", "Vera", by="Anna")
    tapped = stored(club, "hand")[1:]
    assert [type(e) for e in tapped] == [Annulled, Entry, Talon]
    # (the phone's events carry when they were played at the table as well: ``played_at``)
    assert all(e.played_at is not None for e in tapped)
    assert [e.__class__(**{**_fields(e), "at": None, "played_at": None}) for e in tapped] == \
        [e.__class__(**{**_fields(e), "at": None}) for e in (s.event for s in desk.ledger.events("hand")[1:])]
    assert own_errors(scorer) == []


def _fields(event: AnyEvent) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__struct_fields__}


def test_undo_says_what_and_asks_and_redo_records_it_again(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    club.game("redo")
    open_score(scorer, club, "redo", club.token("redo", "Anna"))
    enter(scorer, ANNA_FIRST)
    settled(scorer, "redo", club, 1)
    played = sheet(club, "redo")
    tap(scorer, "#undo")
    wait(scorer, lambda d: d.find_element(By.ID, "undo-ask").is_displayed())
    asked = text_of(scorer, "undo-what")
    assert asked == "Undo deal 1: 6S by Anna: 6S pass pass | 6S | whist pass | 6 3 1?"
    tap(scorer, "#undo-no")  # kept: nothing stored
    assert not scorer.find_element(By.ID, "undo-ask").is_displayed() and club.state("redo")["version"] == 8
    tap(scorer, "#undo")
    wait(scorer, lambda d: d.find_element(By.ID, "undo-yes").is_displayed())
    tap(scorer, "#undo-yes")
    settled(scorer, "redo", club, 0)
    assert text_of(scorer, "undo-said") == "undone: 6S by Anna: 6S pass pass | 6S | whist pass | 6 3 1"
    assert in_view(scorer, "undo-said") and in_view(scorer, "undo")  # beside the button, on the screen
    undo = stored(club, "redo")[-1]
    assert isinstance(undo, Withdrawn) and undo.first == 2 and undo.by == "Anna"
    tap(scorer, "#redo")
    settled(scorer, "redo", club, 1)
    again = stored(club, "redo")[9:]
    assert len(again) == 7 and all(e.by == "Anna" and e.deal == 1 for e in again)
    assert sheet(club, "redo") == played
    tap(scorer, "#redo")  # nothing more to redo: refused beside the button, nothing stored
    error = wait(scorer, lambda d: d.find_element(By.CSS_SELECTOR, "#undo-form .error")
                 if d.find_element(By.CSS_SELECTOR, "#undo-form .error").is_displayed() else None)
    assert "nothing to redo" in error.text and error.get_attribute("data-rule") == "4.2.8"
    assert len(stored(club, "redo")) == 16
    assert own_errors(scorer) == []


def test_an_entry_not_sent_yet_is_undone_on_the_phone_and_redone(phones: tuple[WebDriver, WebDriver],
                                                                  club: Club) -> None:
    scorer = phones[0]
    club.game("unsent")
    open_score(scorer, club, "unsent", club.token("unsent", "Anna"))
    scorer.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    enter(scorer, ANNA_FIRST)
    wait(scorer, lambda d: outbox(d) == ["waiting"])
    tap(scorer, "#undo")
    wait(scorer, lambda d: d.find_element(By.ID, "undo-ask").is_displayed())
    assert "It was not sent yet." in text_of(scorer, "undo-what")
    tap(scorer, "#undo-yes")
    wait(scorer, lambda d: outbox(d) == [])
    tap(scorer, "#redo")
    wait(scorer, lambda d: outbox(d) == ["waiting"])
    scorer.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    scorer.execute_script("window.dispatchEvent(new Event('online'));")
    settled(scorer, "unsent", club, 1)
    assert len(stored(club, "unsent")) == 8  # stored once: the deal, seven events


def test_a_deals_tricks_corrected_by_taps(phones: tuple[WebDriver, WebDriver], club: Club, store: Store) -> None:
    scorer = phones[0]
    club.game("taps")
    open_score(scorer, club, "taps", club.token("taps", "Anna"))
    enter(scorer, ANNA_FIRST)
    settled(scorer, "taps", club, 1)
    scorer.find_element(By.CSS_SELECTOR, "#fix-box summary").click()
    wait(scorer, lambda d: d.find_elements(By.CSS_SELECTOR, '#fix-deals button[data-deal="1"]'))
    tap(scorer, '#fix-deals button[data-deal="1"]')
    assert scorer.find_element(By.ID, "fix-preview").get_attribute("disabled") is not None  # nothing changed yet
    tap(scorer, '#fix-tricks .stepper[data-player="Anna"] button[data-step="1"]')
    tap(scorer, '#fix-tricks .stepper[data-player="Boris"] button[data-step="-1"]')
    assert scorer.find_element(By.ID, "fix-sum").text == "10 of 10 tricks"
    before = club.state("taps")["version"]
    tap(scorer, "#fix-preview")
    kind = wait(scorer, lambda d: d.find_element(By.ID, "fix-kind") if d.find_element(By.ID, "fix-kind").text else None)
    assert kind.get_attribute("data-verdict") == "free" and club.state("taps")["version"] == before
    tap(scorer, "#fix-store")
    wait(scorer, lambda d: outbox(d) == [] and version(d) == before + 1)
    assert club.state("taps")["deals"][0]["line"].split(" | ")[-1] == "Anna 7, Boris 2, Vera 1"
    # As the desk stores the same correction, typed.
    desk = PulkaDesk(Ledger(store))
    desk.new("taps", "Anna,Boris,Vera", pulya=20)
    desk.deal("taps", "6S pass pass | 6S | whist pass | 6 3 1")
    desk.correct("taps", "deal:1.tricks", ["Anna=7", "Boris=2", "Vera=1"], by="Anna")
    tapped, typed = stored(club, "taps")[-1], desk.ledger.events("taps")[-1].event
    assert isinstance(tapped, Correction) and isinstance(typed, Correction)
    assert (tapped.target, tapped.replacement, tapped.by) == (typed.target, typed.replacement, typed.by)
    assert own_errors(scorer) == []
