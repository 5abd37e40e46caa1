"""The drawn sheet and the report in a real browser: Debian's Chromium, headless, driven
by selenium through /usr/bin/chromedriver (``.ci/run`` installs both).

What a person would check, read from the rendered DOM: every player's name and numbers
in his own sector, equal to what ``pulka sheet`` prints; no text's box overlapping
another's; the slider at event N showing what ``pulka sheet --at N`` and ``pulka settle
--at N`` give; a clicked number showing what ``pulka explain`` gives; no console error and
no network request; a phone's width and a printed page. The same tests keep the
screenshots of the demo pulka in ``docs/``.

The browser is the test process's own, shared by every browser test (conftest.py's
``browser``, tests/browsers.py); skipped, saying so, only where there is no Chromium
(install ``chromium`` and ``chromium-driver`` from Debian's packages).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from boxes import centre, inside, overlapping
from browsers import PROBE, console_errors, requests
from cli.main import main
from demo_game import record_demo
from test_picture import cyrillic_game, fixture, sheet_text_cells

DOCS = Path(__file__).resolve().parent.parent / "docs"

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
except ImportError:  # pragma: no cover: selenium is in the test extras
    pass


def pulka(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo pulka in a store, its report and its drawn sheet as files."""
    where = tmp_path_factory.mktemp("demo")
    db = str(where / "pulka.db")
    game = record_demo(db)
    report = where / "demo.html"
    report.write_text(pulka(db, "report", game), encoding="utf-8")
    svg = where / "demo.svg"
    svg.write_text(pulka(db, "sheet", game, "--svg"), encoding="utf-8")
    log = pulka(db, "log", game, "--json")
    return {"db": db, "game": game, "report": report, "svg": svg, "events": len(json.loads(log)["events"])}


def open_page(browser: WebDriver, path: Path) -> None:
    browser.get(path.as_uri())
    browser.execute_script(PROBE)


def read_sheet(browser: WebDriver) -> dict[str, Any]:
    sheet: dict[str, Any] = browser.execute_script("return window.pulkaProbe.sheet();")
    return sheet


def running_entries(sheet: dict[str, Any]) -> dict[str, str]:
    """Each number's current (not struck) entries as drawn, joined the way ``pulka
    sheet`` prints them; every entry must be drawn in its own player's sector."""
    cells: dict[str, list[str]] = {}
    for t in sheet["texts"]:
        if t["cls"] != "mark":
            continue
        assert t["player"] == t["cell"].split(".")[0], f"{t['cell']} drawn in {t['player']}'s sector"
        if not t["struck"]:
            cells.setdefault(t["cell"], []).append(t["text"].rstrip("."))
    return {cell: ".".join(marks) for cell, marks in cells.items()}


def expected_entries(text: str) -> dict[str, str]:
    return {cell: running for cell, (running, _) in sheet_text_cells(text).items() if running != "-"}


def settlement_rows(browser: WebDriver) -> dict[str, tuple[int, str | None]]:
    rows = browser.execute_script("return window.pulkaProbe.table('settlement-table');")[1:]
    has_money = len(rows[0]) == 6
    return {r[0]: (int(r[4]), r[5] if has_money else None) for r in rows}


def check_layout(sheet: dict[str, Any], players: list[str]) -> None:
    """No two texts overlap; every name is drawn once in its sector's group; every
    other text of a sector lies inside that sector's shape on the screen."""
    boxes = [(t["text"], t["box"]) for t in sheet["texts"]]
    assert overlapping(boxes) == []
    names = sorted(t["text"] for t in sheet["texts"] if t["cls"] == "name")
    assert names == sorted(players)
    for t in sheet["texts"]:
        if t["cls"] == "name":
            assert t["player"] == t["text"]
        elif t["player"] is not None:
            assert inside(centre(t["box"]), sheet["sectors"][t["player"]]), (t["text"], t["player"])


def region(browser: WebDriver, first: str, last: str) -> bytes:
    """A screenshot from the top of one element to the bottom of another."""
    top = browser.find_element(By.CSS_SELECTOR, first).rect
    bottom = browser.find_element(By.CSS_SELECTOR, last).rect
    clip = {"x": min(top["x"], bottom["x"]), "y": top["y"], "scale": 1,
            "width": max(top["x"] + top["width"], bottom["x"] + bottom["width"]) - min(top["x"], bottom["x"]),
            "height": bottom["y"] + bottom["height"] - top["y"]}
    shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"clip": clip, "captureBeyondViewport": True})
    return base64.b64decode(shot["data"])


def keep_screenshot(name: str, png: bytes) -> None:
    """Write a screenshot into docs/ when it differs from the one kept there, when asked
    to (PULKA_KEEP_SCREENSHOTS=1): a test run leaves the checkout as it found it."""
    if not os.environ.get("PULKA_KEEP_SCREENSHOTS"):
        return
    path = DOCS / name
    if not path.exists() or path.read_bytes() != png:
        path.write_bytes(png)


# -- the report ------------------------------------------------------------------------------


def test_the_report_opens_offline_without_errors(browser: WebDriver, demo: dict[str, Any]) -> None:
    browser.get_log("browser")
    browser.get_log("performance")
    open_page(browser, demo["report"])
    assert console_errors(browser) == []
    # The page is the only thing loaded: no script, style, font, image or favicon.
    assert set(requests(browser)) <= {demo["report"].as_uri()}
    assert browser.execute_script("return performance.getEntriesByType('resource').length;") == 0
    assert browser.find_element(By.ID, "title").text == "pulka demo"


def test_the_report_shows_the_sheet_and_settlement_of_pulka_sheet(browser: WebDriver, demo: dict[str, Any]) -> None:
    open_page(browser, demo["report"])
    sheet = read_sheet(browser)
    assert running_entries(sheet) == expected_entries(pulka(demo["db"], "sheet", demo["game"]))
    settle = json.loads(pulka(demo["db"], "settle", demo["game"], "--json"))
    assert settlement_rows(browser) == {p: (settle["rounded"][p], settle["money"][p]) for p in settle["players"]}
    transfers = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#transfers li")]
    assert transfers == [f"{t['from']} pays {t['to']} {t['whists']} whists ({t['money']})" for t in settle["transfers"]]
    check_layout(sheet, settle["players"])
    keep_screenshot("report.png", browser.find_element(By.CSS_SELECTOR, ".board").screenshot_as_png)


def test_the_slider_shows_pulka_sheet_and_settle_as_of_every_event(browser: WebDriver, demo: dict[str, Any]) -> None:
    open_page(browser, demo["report"])
    slider = browser.find_element(By.ID, "slider")
    slider.send_keys(Keys.HOME)
    db, game = demo["db"], demo["game"]
    drawn: set[str] = set()
    for n in range(1, demo["events"] + 1):
        if n > 1:
            slider.send_keys(Keys.ARROW_RIGHT)
        assert browser.find_element(By.ID, "as-of").text.startswith(f"As of event {n} of {demo['events']}")
        sheet = read_sheet(browser)
        assert running_entries(sheet) == expected_entries(pulka(db, "sheet", game, "--at", str(n))), f"event {n}"
        seen = json.dumps([(t["text"], t["cls"], t["cell"]) for t in sheet["texts"]])
        if seen not in drawn:  # a sheet not drawn before: its text must not overlap either
            drawn.add(seen)
            check_layout(sheet, ["Anna", "Boris", "Vera"])
        settle = json.loads(pulka(db, "settle", game, "--at", str(n), "--json"))
        expected = {p: (settle["rounded"][p], settle.get("money", {}).get(p)) for p in settle["players"]}
        assert settlement_rows(browser) == expected, f"event {n}"
        rows = audit_rows(browser)
        assert [r["first"] for r in rows if "future" in r["classes"]] == [r["first"] for r in rows if r["first"] > n]
        assert [r["first"] for r in rows if "current" in r["classes"]] == \
            [r["first"] for r in rows if r["first"] <= n <= r["last"]]
    assert console_errors(browser) == []


def audit_rows(browser: WebDriver) -> list[dict[str, Any]]:
    """The audit trail's rows as shown: the events each spans, its event text, its classes."""
    rows: list[dict[str, Any]] = browser.execute_script(
        "return Array.from(document.querySelectorAll('#audit-table tr[data-event]')).map(function (tr) {"
        "  return {first: Number(tr.getAttribute('data-event')), last: Number(tr.getAttribute('data-last')),"
        "          text: tr.cells[4].textContent, verdict: tr.cells[6].textContent, classes: tr.className}; });")
    return rows


def test_the_audit_trail_folds_bids_and_filters_by_verdict(browser: WebDriver, demo: dict[str, Any]) -> None:
    """Issue 20, item 7: a deal's bids in one row (each on its own when asked), and the
    trail filtered by verdict; checked against `pulka log --json` and the export."""
    from selenium.webdriver.support.ui import Select

    db, game = demo["db"], demo["game"]
    logged = json.loads(pulka(db, "log", game, "--json"))["events"]
    exported = [json.loads(line) for line in pulka(db, "export", game).splitlines()]
    open_page(browser, demo["report"])
    rows = audit_rows(browser)
    # Every event in exactly one row, in order; a row of several events holds only
    # plain bids (no verdict, no note) of one deal, and no row of plain bids of a deal
    # follows another of the same deal.
    assert [n for r in rows for n in range(r["first"], r["last"] + 1)] == list(range(1, demo["events"] + 1))
    plain = {e["number"] for e in logged if e["type"] == "bid" and "effective" not in e and "note" not in e}
    deal = {e["number"]: e["deal"] for e in logged}
    for r in rows:
        spanned = range(r["first"], r["last"] + 1)
        if len(spanned) > 1:
            assert set(spanned) <= plain and len({deal[n] for n in spanned}) == 1, r
            for n in spanned:  # each bid named by its player and call, as exported
                assert f"{exported[n - 1]['player']} {exported[n - 1]['bid']}" in r["text"], (n, r["text"])
    for before, after in zip(rows, rows[1:]):
        assert not (before["last"] in plain and after["first"] in plain
                    and deal[before["last"]] == deal[after["first"]] and after["first"] == before["last"] + 1)
    assert len(rows) < demo["events"] and rows[1]["first"] == 2 and rows[1]["last"] == 4  # deal 1: 6S pass pass
    # Filtered by verdict: exactly the events with one, of each kind.
    filter_ = Select(browser.find_element(By.ID, "audit-filter"))
    for value, wanted in (("verdicts", lambda e: "effective" in e), ("effective", lambda e: e.get("effective") is True),
                          ("no-effect", lambda e: e.get("effective") is False)):
        filter_.select_by_value(value)
        shown = audit_rows(browser)
        expected = [e["number"] for e in logged if wanted(e)]
        assert expected and [r["first"] for r in shown] == expected, value
        assert all(r["first"] == r["last"] for r in shown)
        word = {"effective": "effective [", "no-effect": "no effect ["}.get(value, "")
        assert all(r["verdict"].startswith(word) for r in shown)
    filter_.select_by_value("all")
    # Each bid on its own row when asked: one row an event.
    browser.find_element(By.ID, "audit-each-bid").click()
    assert [(r["first"], r["last"]) for r in audit_rows(browser)] == [(n, n) for n in range(1, demo["events"] + 1)]
    browser.find_element(By.ID, "audit-each-bid").click()
    assert len(audit_rows(browser)) == len(rows)
    # A folded row clicked shows the sheet as of its last bid.
    browser.find_element(By.CSS_SELECTOR, '#audit-table tr[data-event="2"]').click()
    assert browser.find_element(By.ID, "as-of").text.startswith(f"As of event 4 of {demo['events']}")
    assert console_errors(browser) == []


def test_a_clicked_number_shows_its_explain_trace(browser: WebDriver, demo: dict[str, Any]) -> None:
    open_page(browser, demo["report"])
    browser.execute_script("var s = document.getElementById('slider'); s.value = '18';"
                           "s.dispatchEvent(new Event('input'));")
    # Event 18 corrects Vera's entry of 4 whists on Boris (event 16) to 2: struck, with 18.
    struck = browser.find_element(By.CSS_SELECTOR, '.entry.struck[data-cell="Vera.whists.Boris"]')
    assert struck.get_attribute("data-event") == "16" and struck.get_attribute("data-struck-by") == "18"
    assert struck.find_element(By.CSS_SELECTOR, "text.sup").text == "18"
    current = browser.find_elements(By.CSS_SELECTOR, '.entry:not(.struck)[data-cell="Vera.whists.Boris"] text.mark')
    current[-1].click()
    explained = json.loads(pulka(demo["db"], "explain", demo["game"], "Vera.whists.Boris", "--at", "18", "--json"))
    rows = browser.execute_script("return window.pulkaProbe.table('explain-table');")[1:]
    assert [(int(r[0]), r[3], r[4]) for r in rows] == [
        (w["event"], f"{w['amount']:+d}", str(w["total"])) for w in explained["writes"]]
    assert browser.find_element(By.ID, "explain-title").text == "Vera whists on Boris: 14 as of event 18"
    keep_screenshot("report-correction.png", region(browser, ".board", "#explain"))
    assert console_errors(browser) == []


def test_the_report_on_a_phone_and_on_paper(browser: WebDriver, demo: dict[str, Any]) -> None:
    browser.set_window_size(390, 844)
    try:
        open_page(browser, demo["report"])
        width = browser.execute_script("return document.documentElement.clientWidth;")
        assert browser.execute_script("return document.documentElement.scrollWidth;") <= width
        svg = browser.find_element(By.CSS_SELECTOR, "#picture svg").rect
        assert svg["x"] >= 0 and svg["x"] + svg["width"] <= width
        check_layout(read_sheet(browser), ["Anna", "Boris", "Vera"])
        keep_screenshot("report-phone.png", browser.get_screenshot_as_png())
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert not browser.find_element(By.ID, "slider").is_displayed()
        assert browser.find_element(By.ID, "audit-table").is_displayed()
        assert browser.find_element(By.ID, "as-of").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.set_window_size(1280, 1000)


# -- the drawn sheet alone (pulka sheet --svg) -----------------------------------------------


def test_the_drawn_sheet_alone(browser: WebDriver, demo: dict[str, Any]) -> None:
    open_page(browser, demo["svg"])
    sheet = read_sheet(browser)
    assert running_entries(sheet) == expected_entries(pulka(demo["db"], "sheet", demo["game"]))
    check_layout(sheet, ["Anna", "Boris", "Vera"])
    panel = [t["text"] for t in sheet["texts"] if t["player"] is None]
    settle = json.loads(pulka(demo["db"], "settle", demo["game"], "--json"))
    assert settle["transfers"] and all(
        f"{t['from']} pays {t['to']} {t['whists']} whists ({t['money']})" in panel for t in settle["transfers"])
    assert console_errors(browser) == []


def test_four_players_with_cyrillic_names(browser: WebDriver, tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    cyrillic_game(db)
    path = tmp_path / "club.svg"
    path.write_text(pulka(db, "sheet", "клуб", "--svg"), encoding="utf-8")
    open_page(browser, path)
    sheet = read_sheet(browser)
    assert running_entries(sheet) == expected_entries(pulka(db, "sheet", "клуб"))
    check_layout(sheet, ["Анна", "Борис", "Вера", "Глеб"])
    keep_screenshot("sheet-four-players.png", browser.find_element(By.CSS_SELECTOR, "svg").screenshot_as_png)


def test_a_long_sheet_wraps_without_overlap(browser: WebDriver, tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    log = tmp_path / "long.jsonl"
    # 30 deals of sixes: runs of up to 30 entries in one number.
    log.write_text((Path(__file__).resolve().parent.parent / "fixtures" / "ex10_sochi_sixes.jsonl")
                   .read_text(encoding="utf-8"), encoding="utf-8")
    pulka(db, "import", str(log))
    assert len(fixture("ex10_sochi_sixes")) > 200
    path = tmp_path / "long.svg"
    path.write_text(pulka(db, "sheet", "ex10_sochi_sixes", "--svg"), encoding="utf-8")
    open_page(browser, path)
    sheet = read_sheet(browser)
    expected = expected_entries(pulka(db, "sheet", "ex10_sochi_sixes"))
    assert running_entries(sheet) == expected
    assert max(len(v.split(".")) for v in expected.values()) >= 10
    check_layout(sheet, ["A", "B", "C"])
    # Wrapped: some number's entries lie at more than one distance from its side.
    depths: dict[str, set[int]] = {}
    for t in sheet["texts"]:
        if t["cls"] == "mark":
            (ax, ay), (bx, by) = sheet["sectors"][t["player"]][:2]
            x, y = centre(t["box"])
            distance = abs((bx - ax) * (ay - y) - (ax - x) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
            depths.setdefault(t["cell"], set()).add(round(distance / 9))
    assert max(len(v) for v in depths.values()) >= 2


def test_the_report_in_russian(browser: WebDriver, demo: dict[str, Any], tmp_path: Path) -> None:
    """``pulka report --lang ru``: the page's words and the script's tables in Russian,
    the numbers the same as the English report's."""
    report = tmp_path / "demo-ru.html"
    report.write_text(pulka(demo["db"], "report", demo["game"], "--lang", "ru"), encoding="utf-8")
    browser.get_log("browser")
    open_page(browser, report)
    assert console_errors(browser) == []
    assert browser.execute_script("return document.documentElement.lang;") == "ru"
    assert browser.find_element(By.ID, "title").text == "пулька demo"
    headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "h2")]
    assert headings[:2] == ["Пулька", "Расчёт"] and "Журнал записей" in headings
    head = browser.execute_script("return window.pulkaProbe.table('settlement-table');")[0]
    assert head[:5] == ["игрок", "пуля", "гора", "точно", "висты"]
    settle = json.loads(pulka(demo["db"], "settle", demo["game"], "--json"))
    assert settlement_rows(browser) == {p: (settle["rounded"][p], settle["money"][p]) for p in settle["players"]}
    transfers = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#transfers li")]
    forms = {1: "вист", 2: "виста", 3: "виста", 4: "виста"}  # Russian: 1 вист, 2-4 виста, 5-20 вистов
    assert transfers == [f"{t['from']} платит, {t['to']} получает {t['whists']} "
                         f"{forms.get(t['whists'] % 10, 'вистов') if not 11 <= t['whists'] % 100 <= 14 else 'вистов'}"
                         f" ({t['money']})" for t in settle["transfers"]]
    assert browser.find_element(By.ID, "as-of").text.startswith(f"На событие {demo['events']} из {demo['events']}")
    audit_head = browser.execute_script("return window.pulkaProbe.table('audit-table');")[0]
    assert audit_head == ["#", "время", "раздача", "кто", "событие", "в пульке", "вердикт"]
