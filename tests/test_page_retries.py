"""A page that follows the club asks again when the service's budget refused it (429 or
503 with ``Retry-After``, web/static/common.js ``later``): a spectator's sheet is drawn at
the new version although its first ask for the drawing was refused. Before, a refused
drawing was not asked for again until the next deal, and on a busy evening (or a machine
loaded by the whole test suite) the page stayed behind the game it shows. The refusal is
the browser's own fetch answering 429 once, so that the test does not hang on when the
address's budget happens to run out. The same for a tournament's standings page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.serving import bearer, served_with_director, started
from tests.test_web_pages import WAIT, wait

DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
# The page's next ask for an address holding arguments[0] answered 429 (Retry-After: 1)
# without reaching the service; every other request, and the asks after it, as they are.
REFUSE_ONCE = """
window.refused = 0;
var part = arguments[0], real = window.fetch;
window.fetch = function (url, options) {
  if (String(url).indexOf(part) >= 0 && window.refused === 0) {
    window.refused = 1;
    return Promise.resolve(new Response("{}", { status: 429, headers: { "Retry-After": "1" } }));
  }
  return real(url, options);
};
"""


def tables(driver: Any) -> dict[str, str]:
    """The tables a tournament's page shows, each with its state as it says it."""
    found: dict[str, str] = driver.execute_script(
        "var o = {}; document.querySelectorAll('#table-rows tr').forEach(function (tr) {"
        "o[tr.dataset.game] = tr.querySelector('.table-state').textContent; }); return o;")
    return found


def drawn(driver: Any) -> str:
    return str(driver.find_element(By.ID, "sheet").get_attribute("data-version") or "")


def test_a_refused_drawing_is_asked_for_again_after_its_wait(tmp_path: Path, browser: Any) -> None:
    with served_with_director(tmp_path) as served:
        http, _director, token = started(served)
        version = http.get("/api/games/t1").json()["version"]
        browser.get(f"{served.url}/watch/t1")
        wait(browser, lambda d: drawn(d) == str(version))
        browser.execute_script(REFUSE_ONCE, "/sheet.svg")
        r = http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": version, "line": DEAL},
                      headers=bearer(token))
        assert r.status_code == 201, r.text
        now = r.json()["state"]["version"]
        # the new state comes by the stream; its drawing is refused once, then asked again
        wait(browser, lambda d: drawn(d) == str(now), WAIT)
        assert browser.execute_script("return window.refused;") == 1


def test_a_refused_standings_page_asks_again_after_its_wait(tmp_path: Path, browser: Any) -> None:
    with served_with_director(tmp_path) as served:
        http, director, _token = started(served)
        r = http.post("/api/tournaments", json={"id": "retry-cup-1", "name": "cup", "players": ["Anna", "Boris", "Vera"],
                                                "pulya": 4, "tours": 1, "table_size": 3}, headers=director)
        assert r.status_code == 201, r.text
        r = http.post("/api/tournaments/cup/tours/1/seat", json={"id": "retry-seat-1", "auto": True, "seed": "s"},
                      headers=director)
        assert r.status_code in (200, 201), r.text
        browser.get(f"{served.url}/tournament/cup")
        wait(browser, lambda d: tables(d) == {"cup/1/1": "not started"})
        browser.execute_script(REFUSE_ONCE, "/api/tournaments/cup")
        r = http.post("/api/tournaments/cup/tours/1/start", json={"id": "retry-start-1"}, headers=director)
        assert r.status_code in (200, 201), r.text
        # the table's start comes by the stream; the tournament's read is refused once, then asked again
        wait(browser, lambda d: tables(d) == {"cup/1/1": "playing"}, WAIT)
        assert browser.execute_script("return window.refused;") == 1
