"""The tournament page (``projections.drawing.tournament_page``) from hand-made documents in the
JSON shape of ``pulka tournament standings --json`` (issue 10): without a browser,
what it holds; in headless Chromium, what a person sees (skipped, saying so, where
there is no Chromium)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from boxes import overlapping
from projections.drawing.tournament_page import tournament_html, tours_of
from projections.picture import picture
from projections.report import Point
from browsers import PROBE, console_errors, requests
from test_picture import fixture


def standings(after: int) -> dict[str, Any]:
    """The cup after ``after`` tours: three players, one table a tour."""
    tours = {
        "A": [{"tour": 1, "table": 1, "whists": 60, "points": 60}, {"tour": 2, "table": 1, "whists": -15, "points": -15}],
        "B": [{"tour": 1, "table": 1, "whists": -20, "points": -20}, {"tour": 2, "table": 1, "whists": 40, "points": 40}],
        "C": [{"tour": 1, "table": 1, "whists": -40, "points": -40}, {"tour": 2, "table": 1, "whists": -25, "points": -25}],
    }
    rows = []
    for player, entries in tours.items():
        kept = [t for t in entries if t["tour"] <= after]
        rows.append({"player": player, "points": sum(t["points"] for t in kept),
                     "whists": sum(t["whists"] for t in kept), "tours": kept, "status": "playing", "cards": 0})
    rows.sort(key=lambda r: -r["points"])
    for i, r in enumerate(rows, start=1):
        r["place"] = i
    return {"tournament": "cup", "after_tour": after, "standings": rows}


POINTS = [standings(0), standings(1), standings(2)]


def sheets() -> dict[str, dict[str, Any]]:
    return {"cup/1/1": picture(fixture("ex01_whists_for_tricks"), Point()),
            "cup/2/1": picture(fixture("ex04_misere"), Point())}


def test_tours_and_tables_from_the_standings() -> None:
    tours = tours_of(POINTS[-1])
    assert [t["tour"] for t in tours] == [1, 2]
    assert [(t["game"], [p["player"] for p in t["players"]]) for t in tours[1]["tables"]] == [
        ("cup/2/1", ["B", "A", "C"])]
    assert tours_of(POINTS[0]) == []


def test_the_page_is_self_contained_with_every_sheet() -> None:
    page = tournament_html(POINTS, sheets())
    assert re.findall(r'<template data-sheet="([^"]+)"', page) == ["cup/1/1", "cup/2/1"]
    assert all(v.startswith("data:") for v in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page))
    assert "default-src 'none'" in page and not re.search(r"\{\{\w+\}\}", page)
    data = json.loads(page.split('id="pulka-data">', 1)[1].split("</script>", 1)[0])
    assert data["points"] == POINTS


def test_a_page_needs_standings() -> None:
    with pytest.raises(ValueError):
        tournament_html([], {})


def test_the_page_in_a_browser(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    path = tmp_path / "cup.html"
    path.write_text(tournament_html(POINTS, sheets()), encoding="utf-8")
    browser.get_log("browser")
    browser.get_log("performance")
    browser.get(path.as_uri())
    browser.execute_script(PROBE)
    assert console_errors(browser) == [] and set(requests(browser)) <= {path.as_uri()}

    def table() -> list[list[str]]:
        rows: list[list[str]] = browser.execute_script("return window.pulkaProbe.table('standings-table');")
        return rows[1:]

    for k in (2, 1, 0):
        browser.execute_script(f"var s = document.getElementById('slider'); s.value = '{k}';"
                               "s.dispatchEvent(new Event('input'));")
        shown = [(int(r[0]), r[1], r[2]) for r in table()]
        assert shown == [(r["place"], r["player"], str(r["points"])) for r in POINTS[k]["standings"]]
    # After tour 1, A's tour-1 result links to the sheet of table 1 of tour 1, drawn with its players.
    browser.execute_script("var s = document.getElementById('slider'); s.value = '1';"
                           "s.dispatchEvent(new Event('input'));")
    link = browser.find_element(By.CSS_SELECTOR, '#standings-table tr[data-player="A"] a[data-game="cup/1/1"]')
    assert link.text == "60 (+60)"
    link.click()
    assert browser.current_url.endswith("#sheet-cup-1-1")
    section = browser.find_element(By.ID, "sheet-cup-1-1")
    names = [t.text for t in section.find_elements(By.CSS_SELECTOR, "text.name")]
    assert sorted(names) == ["A", "B", "C"]
    for game in ("cup/1/1", "cup/2/1"):
        root = browser.find_element(By.CSS_SELECTOR, f'section[data-game="{game}"]')
        sheet = browser.execute_script("return window.pulkaProbe.sheet(arguments[0]);", root)
        assert overlapping([(t["text"], t["box"]) for t in sheet["texts"]]) == []
    assert console_errors(browser) == []


def many_tours() -> list[dict[str, Any]]:
    """A long evening's standings: eight players, long names, six tours of two tables."""
    names = ["Александра", "Maximilian", "Boris", "Vera", "Gleb", "Dina", "Константин", "Egor"]
    rows = []
    for i, player in enumerate(names):
        tours = [{"tour": t, "table": 1 + (i + t) % 2, "whists": (i * 37 + t * 11) % 90 - 45,
                  "points": (i * 37 + t * 11) % 90 - 45} for t in range(1, 7)]
        rows.append({"player": player, "points": sum(t["points"] for t in tours),
                     "whists": sum(t["whists"] for t in tours), "tours": tours, "status": "finished", "cards": 0})
    rows.sort(key=lambda r: -r["points"])
    for i, r in enumerate(rows, start=1):
        r["place"] = i
    return [{"tournament": "cup", "after_tour": 6, "standings": rows}]


def test_the_standings_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """Issue 20, item 7: at 390 x 844 the standings are read without sideways scrolling
    (neither the page nor the table scrolls), and no text of the page or of a sheet is
    smaller than 9 px on the screen."""
    path = tmp_path / "cup.html"
    path.write_text(tournament_html(many_tours(), sheets()), encoding="utf-8")
    browser.set_window_size(390, 844)
    try:
        browser.get(path.as_uri())
        width = browser.execute_script("return document.documentElement.clientWidth;")
        assert width <= 390
        assert browser.execute_script("return document.documentElement.scrollWidth;") <= width
        table = browser.execute_script(
            "var t = document.getElementById('standings-table'), box = t.parentNode;"
            "return {scroll: box.scrollWidth, client: box.clientWidth,"
            "        cells: Array.from(t.querySelectorAll('td')).filter(function (c) { return c.offsetParent; })"
            "          .map(function (c) { var r = c.getBoundingClientRect(); return [c.textContent, r.left, r.right]; })};")
        assert table["scroll"] <= table["client"]  # the table does not scroll in its box either
        assert table["cells"] and all(0 <= left and right <= width for _, left, right in table["cells"]), table
        shown = " ".join(text for text, _, _ in table["cells"])
        for row in many_tours()[0]["standings"]:  # every player's every tour, readable
            assert row["player"] in shown
            assert all(f"{t['points']} ({t['whists']:+d})".replace("+0", "0") in shown for t in row["tours"])
        sizes = browser.execute_script(
            "var out = [];"
            "document.querySelectorAll('#standings-table td, #standings-table a, .hint, h1, h2, h3, p, li')"
            ".forEach(function (e) { if (e.offsetParent) out.push(['page', e.textContent.slice(0, 30),"
            "  parseFloat(getComputedStyle(e).fontSize)]); });"
            "document.querySelectorAll('#sheet-list svg text').forEach(function (t) {"
            "  var m = t.getScreenCTM(); if (!t.textContent.trim()) return;"
            "  out.push(['sheet', t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)]); });"
            "return out;")
        assert any(kind == "sheet" for kind, _, _ in sizes)
        small = [(kind, text, size) for kind, text, size in sizes if size < 9 - 1e-6]
        assert small == []
    finally:
        browser.set_window_size(1280, 1000)
