"""The club's rating table and a player's page (``pulka rating --html``, ``pulka stats NAME
--html``) in headless Chromium, read from the rendered page: a sparkline per player with
a point per pulka he played, the rating chart's points at the ratings ``pulka rating
NAME --json`` gives, a bar per pulka with its result, every statistic's count equal to
``pulka stats --json`` with its deals listed when opened; nothing fetched, no console
error, no script (skipped, saying so, where there is no Chromium)."""

from __future__ import annotations

from typing import Any

import pytest

from browsers import console_errors, requests
from test_browser import keep_screenshot
from test_club_numbers import club, doc

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
except ImportError:  # pragma: no cover: selenium is in the test extras
    pass



@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from test_club_numbers import cli

    where = tmp_path_factory.mktemp("club")
    db = str(where / "pulka.db")
    club(db)
    (where / "club.html").write_text(cli(db, "rating", "--html"), encoding="utf-8")
    (where / "anna.html").write_text(cli(db, "stats", "Anna", "--html"), encoding="utf-8")
    return {"db": db, "club": where / "club.html", "anna": where / "anna.html"}


def test_the_club_table_with_sparklines(browser: WebDriver, pages: dict[str, Any]) -> None:
    requests(browser), console_errors(browser)  # what came before this page
    browser.get(pages["club"].as_uri())
    table = doc(pages["db"], "rating")["players"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#rating-table tbody tr")
    assert [r.get_attribute("data-player") for r in rows] == [p["player"] for p in table]
    for row, p in zip(rows, table):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        # the rating signed, sigma, the pulkas rated, the last pulka's date; a provisional mark
        assert cells[2:6] == [f"{p['rating']:+.2f}", f"{p['sigma']:.2f}", str(p["matches"]), p["last_played"]]
        assert cells[1].startswith(p["player"]) and cells[1].endswith("?") == p["provisional"]
        line = row.find_element(By.CSS_SELECTOR, "svg.spark polyline")
        assert int(line.get_attribute("data-points")) == p["matches"]
        assert line.size["width"] > 50  # drawn, not collapsed
    anna = browser.find_element(By.XPATH, "//section[h2='Anna']")
    dots = anna.find_elements(By.CSS_SELECTOR, "svg.rating-chart circle.dot")
    history = doc(pages["db"], "rating", "Anna")["matches"]
    assert [(d.get_attribute("data-game"), float(d.get_attribute("data-value"))) for d in dots] == [
        (m["game"], m["rating"]) for m in history]
    assert console_errors(browser) == []
    assert [url for url in requests(browser) if not url.startswith(("file:", "data:"))] == []
    assert browser.find_elements(By.TAG_NAME, "script") == []
    browser.set_window_size(1000, 900)
    keep_screenshot("club-rating.png", browser.get_screenshot_as_png())


def test_a_players_page_every_number_with_its_deals(browser: WebDriver, pages: dict[str, Any]) -> None:
    requests(browser), console_errors(browser)  # what came before this page
    browser.get(pages["anna"].as_uri())
    stats = doc(pages["db"], "stats", "Anna")
    bars = browser.find_elements(By.CSS_SELECTOR, "svg.results-chart rect.bar")
    assert [(b.get_attribute("data-game"), int(b.get_attribute("data-value"))) for b in bars] == [
        (p["game"], p["whists"]) for p in stats["pulkas"]]
    heights = {b.get_attribute("data-game"): b.size["height"] for b in bars}
    biggest = max(stats["pulkas"], key=lambda p: abs(p["whists"]))
    assert heights[biggest["game"]] == max(heights.values())  # the longest bar is the largest result
    rows = browser.find_elements(By.CSS_SELECTOR, "#stats-table > tbody > tr")
    shown = {r.get_attribute("data-number"): int(r.find_element(By.CSS_SELECTOR, "td.count").text) for r in rows}
    assert shown == {name: n["count"] for name, n in stats["numbers"].items()}
    row = browser.find_element(By.CSS_SELECTOR, '#stats-table tr[data-number="contracts.6"]')
    row.find_element(By.TAG_NAME, "summary").click()
    listed = [[c.text for c in r.find_elements(By.TAG_NAME, "td")][:3]
              for r in row.find_elements(By.CSS_SELECTOR, "table.refs tr")[1:]]
    deals = doc(pages["db"], "stats", "Anna", "contracts.6", "--deals")["deals"]
    assert listed == [[d["game"], str(d["deal"]), str(d["event"])] for d in deals]
    assert console_errors(browser) == []
    assert [url for url in requests(browser) if not url.startswith(("file:", "data:"))] == []
    browser.set_window_size(1000, 1200)
    keep_screenshot("player-page.png", browser.get_screenshot_as_png())
    browser.set_window_size(1280, 1000)
