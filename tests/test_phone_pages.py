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

import re
from typing import Any
from urllib.parse import quote, unquote

import httpx

from browsers import PROBE
from projections.drawing.svg import SMALL
from test_browser import expected_entries, running_entries
from test_web_desks import sign_in_page
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
        # the page is told the drawing's smallest text, not a copy of it (sheet.js)
        assert d.find_element(By.ID, "sheet-box").get_attribute("data-smallest") == str(SMALL)
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
    # The arbiter's desk draws the sheet as of any event the same way.
    sign_in_page(spectator, club, "igor", "/arbiter/game/hand")
    wait(spectator, lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet svg.pulka-sheet"))
    assert min(t["px"] for t in spectator.execute_script(MEASURE)) >= LEGIBLE - 0.01
    assert sideways(spectator) <= 0
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



# Long names in three scripts, without a space to break at: a game's, a tournament's and
# players' (their links percent-encoded were 641–698 px wide on a 390 px phone) [issue 31].
GAMES = {
    "cyrillic": "Пятничный_вечер_в_клубе_у_Анны_Петровны_и_Бориса_Ивановича_седьмое_декабря",
    "cjk": "東京麻雀倶楽部の金曜日の夜の長い長いプレフェランスの試合第一卓目の記録",
    "latin": "the-long-friday-evening-game-at-the-club-on-the-seventh-of-december-table-one",
}
PEOPLE = ["Александр_Константинович", "欧阳长名字先生的朋友", "Bartholomew-Fitzwilliam"]
CUP = "Кубок_клуба_Сочи_зимний_открытый_турнир_две_тысячи_двадцать_шестого_года"
CUP_PLAYERS = ["Александр_Константинович", "Екатерина_Владимировна", "Святослав_Всеволодович",
               "欧阳长名字先生的朋友", "Bartholomew-Fitzwilliam", "Maximilian-Alexander"]

# What each page shows once its script has filled it in.
READY = {
    "/score/": "document.body.dataset.version > 0 && document.querySelector('#sheet svg')",
    "/watch/": "document.body.dataset.version > 0 && document.querySelector('#sheet svg')",
    "/arbiter/game/": "document.querySelector('#audit-rows tr')",
    "/arbiter": "document.querySelector('#game-rows tr')",
    "/director/": "document.querySelector('#table-rows tr')",
    "/director": "document.querySelector('#accounts tbody tr')",
    "/tournament/": "document.querySelector('#table-rows tr') && document.querySelector('#standings-rows tr')",
}


def crawl_club(club: Club) -> list[str]:
    """The club with the long names, and every page's address."""
    for kind, name in GAMES.items():
        r = club.http.post("/api/games", json={"id": f"crawl-new-{kind}", "game": name, "players": PEOPLE,
                                               "pulya": 20}, headers=club.headers)
        assert r.status_code == 201, r.text
        for k, (_touch, line) in enumerate(TEN[:4]):
            club.record(quote(name, safe=""), line, f"crawl-{kind}-{k}")
    r = club.http.post("/api/tournaments", json={"id": "crawl-cup-1", "name": CUP, "players": CUP_PLAYERS,
                                                 "pulya": 4, "tours": 2, "table_size": 3}, headers=club.headers)
    assert r.status_code == 201, r.text
    cup = quote(CUP, safe="")
    for path, body in ((f"/api/tournaments/{cup}/tours/1/seat", {"id": "crawl-seat-1", "auto": True, "seed": "s"}),
                       (f"/api/tournaments/{cup}/tours/1/start", {"id": "crawl-start-1"})):
        r = club.http.post(path, json=body, headers=club.headers)
        assert r.status_code in (200, 201), r.text
    table = f"{CUP}/1/1"
    for k in range(40):  # the table plays to its end: each forehand makes a six
        if club.state(quote(table, safe="/"))["over"]:
            break
        club.record(quote(table, safe="/"), "6S pass pass | 6S | pass pass", f"crawl-cup-deal-{k:02d}", again=True)
    pages = ["/", "/club", "/signin", "/account", "/arbiter", "/director", f"/tournament/{cup}",
             f"/director/{cup}", f"/watch/{quote(table, safe='/')}", f"/score/{quote(table, safe='/')}"]
    for name in GAMES.values():
        q = quote(name, safe="")
        pages += [f"/score/{q}", f"/watch/{q}", f"/arbiter/game/{q}"]
    pages += [f"/club/player/{quote(p, safe='')}" for p in CUP_PLAYERS[:1] + CUP_PLAYERS[3:5]]
    return pages


def test_no_page_scrolls_sideways_with_long_names_in_any_script(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    driver = phones[0]
    pages = crawl_club(club)
    sign_in_page(driver, club, "dora", "/director")
    wide: dict[str, list[str]] = {}  # a page that scrolls sideways: what sticks out of it
    for lang in ("en", "ru"):
        for path in pages:
            driver.get(f"{club.url}{path}{'&' if '?' in path else '?'}lang={lang}")
            ready = next((js for prefix, js in READY.items() if path.startswith(prefix)), "true")
            wait(driver, lambda d: d.execute_script(f"return document.readyState === 'complete' && !!({ready});"))
            if sideways(driver) > 0:
                wide[f"{path} ({lang})"] = driver.execute_script(
                    "return Array.from(document.querySelectorAll('body *')).filter(function (e) {"
                    " return e.getBoundingClientRect().right > window.innerWidth + 0.5"
                    " && !e.closest('.scroll, .sheet'); }).slice(0, 3)"
                    ".map(function (e) { return e.tagName + '#' + e.id + '.' + e.getAttribute('class') + ' '"
                    " + Math.round(e.getBoundingClientRect().right); });")
    assert wide == {}, "\n".join(f"{k}: {v}" for k, v in wide.items())
    assert own_errors(driver) == []
    # The pages' own links are shown as people read them; their addresses stay encoded.
    for path, link in ((f"/watch/{quote(GAMES['cyrillic'], safe='')}", "watch-link"),
                       (f"/tournament/{quote(CUP, safe='')}", "tournament-link")):
        html = httpx.get(club.url + path, timeout=WAIT).text
        shown = re.search(rf'<a id="{link}" href="([^"]+)">([^<]+)</a>', html)
        assert shown is not None and shown.group(2) == unquote(shown.group(1)) != shown.group(1)


WIN = "6S pass pass | 6S | pass pass"  # the forehand's six, both defenders pass


def over_page(driver: WebDriver) -> dict[str, Any]:
    """What the scorer's page shows of a pulka over: its mark, whether the entry form
    and the "more" panel (the end of the pulka, a misdeal…) show, and whether the
    settlement comes before where the form was."""
    found: dict[str, Any] = driver.execute_script(
        "var form = document.getElementById('deal-form'), s = document.getElementById('settlement');"
        "return {over: document.body.getAttribute('data-over'), form: form.offsetParent !== null,"
        " more: document.getElementById('more-box').offsetParent !== null,"
        " settlement: s.offsetParent !== null,"
        " first: !!(s.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING),"
        " who: document.getElementById('who').textContent};")
    return found


def test_a_finished_pulka_shows_its_result_not_the_entry_form(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    club.game("ended", pulya=4)
    open_score(scorer, club, "ended", club.token("ended", "Anna"))
    assert over_page(scorer)["form"] and over_page(scorer)["more"] and over_page(scorer)["over"] is None  # in play
    for k in range(20):
        if club.state("ended")["over"]:
            break
        club.record("ended", WIN, f"ended-deal-{k:02d}", again=True)
    state = club.state("ended")
    assert state["over"] and state["status"] == "finished"
    wait(scorer, lambda d: over_page(d)["over"] == "finished")
    shown = over_page(scorer)
    assert not shown["form"] and not shown["more"] and shown["settlement"] and shown["first"]
    assert shown["who"] == "the pulka is over"
    assert settlement_shown(scorer) == rows_of(state["settlement"])
    drawn_at(scorer, state["version"])
    assert own_errors(scorer) == []


def test_tables_at_the_deal_cap_are_over_on_every_page(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    """A tournament's table at its deal cap is over [Code 4.2.15]: the tournament's page,
    the director's and the table's scorer's say so (they said "playing") [issue 31]."""
    scorer, spectator = phones
    players = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor"]
    r = club.http.post("/api/tournaments", json={"id": "capped-cup-1", "name": "capped", "players": players,
                                                 "pulya": 20, "tours": 2, "table_size": 3, "deal_cap": 2},
                       headers=club.headers)
    assert r.status_code == 201, r.text
    for path, body in (("/api/tournaments/capped/tours/1/seat", {"id": "capped-seat-1", "auto": True, "seed": "s"}),
                       ("/api/tournaments/capped/tours/1/start", {"id": "capped-start-1"})):
        r = club.http.post(path, json=body, headers=club.headers)
        assert r.status_code in (200, 201), r.text
    open_score(scorer, club, "capped/1/1", club.token("capped/1/1", "scorer"))
    spectator.get(f"{club.url}/tournament/capped")
    for table in ("capped/1/1", "capped/1/2"):
        for k in range(2):
            club.record(table, WIN, f"capped-{table[-1]}-deal-{k}", again=bool(k))
    doc = httpx.get(f"{club.url}/api/tournaments/capped", timeout=WAIT).json()
    assert [x["status"] for x in doc["tables"]] == ["capped", "capped"]
    # The served drawing of a capped table is pulka sheet --svg's: over, settled as abandoned.
    served = httpx.get(f"{club.url}/api/games/capped/1/1/sheet.svg", timeout=WAIT).text
    assert "over: the deal cap (as abandoned)" in served
    assert served == cli(club.served.db, "sheet", "capped/1/1", "--svg")
    states = ("return Array.from(document.querySelectorAll('#table-rows .table-state'))"
              ".map(function (td) { return td.textContent; });")
    wait(spectator, lambda d: d.execute_script(states) == ["over: the deal cap (as abandoned)"] * 2)
    tours = ("return Array.from(document.querySelectorAll('#standings-rows .tours'))"
             ".map(function (td) { return td.textContent; });")
    # each player's tour not yet closed: his table over, not in play
    wait(spectator, lambda d: [text[text.index("("):] for text in d.execute_script(tours)]
         == ["(the pulka is over)"] * len(players))
    wait(scorer, lambda d: over_page(d)["over"] == "capped")
    shown = over_page(scorer)
    assert not shown["form"] and shown["first"] and shown["who"] == "over: the deal cap (as abandoned)"
    r = club.http.post("/api/tournaments/capped/tours/1/close", json={"id": "capped-close-1"}, headers=club.headers)
    assert r.status_code == 201, r.text
    sign_in_page(spectator, club, "dora", "/director/capped")
    wait(spectator, lambda d: d.execute_script(states) == ["over: the deal cap (as abandoned)"] * 2)
    for d in phones:
        assert own_errors(d) == []


def test_the_arbiters_audit_trail_is_readable_at_a_phones_width(phones: tuple[WebDriver, WebDriver],
                                                              club: Club) -> None:
    """At 390 px the audit trail's columns were squeezed to a letter a line (время, раздача
    read downwards): its table pans inside its own box, each heading and each row's
    number, time, deal and recorder on one line; the page itself does not scroll sideways."""
    desk = phones[0]
    ten_deals(club, "audited")
    sign_in_page(desk, club, "igor", "/arbiter/game/audited")
    for lang in ("en", "ru"):
        desk.get(f"{club.url}/arbiter/game/audited?lang={lang}")
        wait(desk, lambda d: d.find_elements(By.CSS_SELECTOR, "#audit-rows tr[data-event='2']"))
        one_line_each(desk)
    assert sideways(desk) <= 0


def one_line_each(desk: WebDriver) -> None:
    """The audit trail's headings and its first row's number, time, deal and recorder
    each on one line."""
    # the lines each cell's text takes (the distinct tops of its text's boxes)
    lines = desk.execute_script("""
        return Array.from(document.querySelectorAll('#audit-table th, #audit-rows tr:first-child td:nth-child(-n+4)'))
          .map(function (c) {
            var range = document.createRange();
            range.selectNodeContents(c);
            var tops = new Set(Array.from(range.getClientRects()).map(function (r) { return Math.round(r.top); }));
            return [c.textContent, tops.size];
          });""")
    assert len(lines) == 7 + 4 and all(n <= 1 for _text, n in lines), lines


TARGET = 44  # CSS px: the least height of a link a finger taps on its own (the pages' nav, the prints)


def test_the_links_a_finger_taps_are_big_enough(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    """The links of the pages' top (home, spectators, the other language) and the prints
    were 19 to 22 px high at 390 px: each is now a target 44 px high, on the scorer's
    page and the spectators'."""
    scorer = phones[0]
    club.game("fingers")
    open_score(scorer, club, "fingers", club.token("fingers", "Anna"))
    pages = {"scorer": None, "spectators": f"{club.url}/watch/fingers?lang=ru"}
    for name, url in pages.items():
        if url:
            scorer.get(url)
            wait(scorer, lambda d: version(d) > 0)
        sizes = scorer.execute_script(
            "return Array.from(document.querySelectorAll('nav.top a, #print a')).map(function (a) {"
            " var r = a.getBoundingClientRect(); return [a.textContent.trim(), Math.round(r.height)]; });")
        assert len(sizes) >= 4 and all(h >= TARGET for _text, h in sizes), (name, sizes)
