"""A page that follows the club asks again when the service's budget refused it (429 or
503 with ``Retry-After``, web/static/common.js ``later``): a spectator's sheet is drawn at
the new version although its first ask for the drawing was refused. Before, a refused
drawing was not asked for again until the next deal, and on a busy evening (or a machine
loaded by the whole test suite) the page stayed behind the game it shows. The refusal is
the browser's own fetch answering 429 once, so that the test does not hang on when the
address's budget happens to run out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.serving import PASSWORD, Served, account, bearer, started
from tests.test_web_pages import WAIT, wait

DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
# The page's next ask for a drawing answered 429 (Retry-After: 1) without reaching the
# service; every other request, and the asks after it, as they are.
REFUSE_ONCE = """
window.refusedDrawings = 0;
var real = window.fetch;
window.fetch = function (url, options) {
  if (String(url).indexOf("/sheet.svg") >= 0 && window.refusedDrawings === 0) {
    window.refusedDrawings = 1;
    return Promise.resolve(new Response("{}", { status: 429, headers: { "Retry-After": "1" } }));
  }
  return real(url, options);
};
"""


def drawn(driver: Any) -> str:
    return str(driver.find_element(By.ID, "sheet").get_attribute("data-version") or "")


def test_a_refused_drawing_is_asked_for_again_after_its_wait(tmp_path: Path, browser: Any) -> None:
    db = str(tmp_path / "club.db")
    account(db, "dora", "director", PASSWORD)
    served = Served(db, tmp_path / "serve.log")
    try:
        http, _director, token = started(served)
        version = http.get("/api/games/t1").json()["version"]
        browser.get(f"{served.url}/watch/t1")
        wait(browser, lambda d: drawn(d) == str(version))
        browser.execute_script(REFUSE_ONCE)
        r = http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": version, "line": DEAL},
                      headers=bearer(token))
        assert r.status_code == 201, r.text
        now = r.json()["state"]["version"]
        # the new state comes by the stream; its drawing is refused once, then asked again
        wait(browser, lambda d: drawn(d) == str(now), WAIT)
        assert browser.execute_script("return window.refusedDrawings;") == 1
    finally:
        served.stop()
