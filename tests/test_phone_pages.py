"""The pages in the hand (issue 31): a real browser at a phone's size (390×844) against a
real ``pulka serve`` (as ``test_web_pages.py``).

What only a browser shows: the drawn sheet's text measured where it is rendered (each
text's size on the screen, from its font size and its place's transform, and the boxes
of the upright ones) at least 12 CSS px, a tap showing it whole and another legible
again; the settlement on the scorer's page as on the spectators'; no page scrolling
sideways (``document.scrollingElement.scrollWidth`` within ``innerWidth``) with long
Cyrillic, CJK and Latin names of games, tournaments and players; a finished pulka's
scorer's page showing the result, not the entry form.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from browsers import PROBE
from test_browser import expected_entries, running_entries
from test_web_desks import play, sign_in_page
from test_web_pages import TEN, WAIT, By, Club, WebDriver, cli, club, open_score, own_errors, tap, version, wait

__all__ = ["club"]  # the fixture: this module's own service

LEGIBLE = 12.0  # CSS px: the smallest text of the sheet in the hand [issue 31]

# Each text of the drawn sheet as rendered: its size on the screen (its font size in the
# sheet's units times the scale of its place: the sheet's size on the page and a sector's
# turn), and, for an upright one, its box's height.
MEASURE = """
var out = [];
document.querySelectorAll('#sheet svg.pulka-sheet text').forEach(function (t) {
  var m = t.getScreenCTM();
  var r = t.getBoundingClientRect();
  out.push({text: t.textContent, cls: t.getAttribute('class') || '',
            px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b),
            upright: Math.abs(m.b) < 1e-6 && m.a > 0, height: r.height});
});
return out;
"""


def sideways(driver: WebDriver) -> int:
    """How far the page scrolls sideways (0: not at all)."""
    found: int = driver.execute_script(
        "return document.scrollingElement.scrollWidth - window.innerWidth;")
    return found


def drawn_at(driver: WebDriver, game_version: int) -> None:
    wait(driver, lambda d: d.find_element(By.ID, "sheet").get_attribute("data-version") == str(game_version)
         and d.find_elements(By.CSS_SELECTOR, "#sheet svg.pulka-sheet"))


def ten_deals(club: Club, game: str) -> dict[str, Any]:
    club.game(game)
    for k, (_touch, line) in enumerate(TEN):
        club.record(game, line, f"{game}-deal-{k:02d}")
    return club.state(game)


def test_the_drawn_sheet_is_legible_at_a_phones_width_and_a_tap_shows_it_whole(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer, spectator = phones
    state = ten_deals(club, "hand")
    spectator.get(f"{club.url}/watch/hand")
    open_score(scorer, club, "hand", club.token("hand", "Anna"))
    sheet = cli(club.served.db, "sheet", "hand")
    for d in phones:
        drawn_at(d, state["version"])
        texts = d.execute_script(MEASURE)
        numbers = [t for t in texts if t["cls"] == "mark"]
        assert len(numbers) >= 10
        assert min(t["px"] for t in texts) >= LEGIBLE - 0.01, sorted((t["px"], t["text"]) for t in texts)[:3]
        upright = [t for t in numbers if t["upright"]]
        assert upright and min(t["height"] for t in upright) >= LEGIBLE
        # The sheet pans inside its own box: the page does not scroll sideways.
        assert d.execute_script("var b = document.getElementById('sheet'); return b.scrollWidth > b.clientWidth;")
        assert sideways(d) <= 0
        # What is drawn is pulka sheet's: each number in its own sector.
        d.execute_script(PROBE)
        assert running_entries(d.execute_script("return window.pulkaProbe.sheet();")) == expected_entries(sheet)
    # A tap: the sheet whole, in the box's width; another: legible again.
    tap(spectator, "#sheet")
    wait(spectator, lambda d: d.find_element(By.ID, "sheet-box").get_attribute("data-fit") == "whole")
    assert spectator.execute_script(
        "var b = document.getElementById('sheet'); return b.scrollWidth <= b.clientWidth"
        " && b.querySelector('svg').getBoundingClientRect().width <= b.clientWidth + 0.5;")
    assert min(t["px"] for t in spectator.execute_script(MEASURE)) < LEGIBLE  # whole, it is smaller
    tap(spectator, "#sheet")
    wait(spectator, lambda d: d.find_element(By.ID, "sheet-box").get_attribute("data-fit") == "legible")
    assert min(t["px"] for t in spectator.execute_script(MEASURE)) >= LEGIBLE - 0.01
    for d in phones:
        assert own_errors(d) == []


def settlement_shown(driver: WebDriver) -> dict[str, list[str]]:
    found: dict[str, list[str]] = driver.execute_script(
        "var o = {}; document.querySelectorAll('#settlement-rows tr').forEach(function (tr) {"
        " o[tr.dataset.player] = Array.from(tr.children).map(function (c) { return c.textContent; }); });"
        " return o;")
    return found


def test_the_scorers_page_shows_the_settlement_as_the_spectators_page_does(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer, spectator = phones
    state = ten_deals(club, "settled")
    open_score(scorer, club, "settled", club.token("settled", "Boris"))
    spectator.get(f"{club.url}/watch/settled")
    for d in phones:
        wait(d, lambda d: settlement_shown(d) == rows_of(state["settlement"]))
        transfers = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#transfers li")]
        assert transfers == [f"{t['from']} pays {t['to']} {t['whists']} whists"
                             for t in state["settlement"]["transfers"]]
    # One more deal: the scorer's settlement follows it live.
    club.record("settled", TEN[1][1], "settled-deal-more")
    after = club.state("settled")
    assert rows_of(after["settlement"]) != rows_of(state["settlement"])
    wait(scorer, lambda d: settlement_shown(d) == rows_of(after["settlement"]))
    assert own_errors(scorer) == []


def rows_of(s: dict[str, Any]) -> dict[str, list[str]]:
    """The settlement's rows as a page shows them."""
    return {p: [p, str(s["sheet"][p]["pulya"]), str(s["sheet"][p]["gora"]),
                f"{s['rounded'][p]:+d}" if s["rounded"][p] else "0"] for p in s["players"]}

