"""The service's pages in a real browser: Debian's Chromium, headless, at a phone's size
(390×844), driven by selenium, against real ``pulka serve`` processes on free ports.

What a table, a spectator, an arbiter and a director would see and do, read from the
rendered DOM: a pulka recorded by touch whose drawn sheet is ``pulka sheet``'s; a
spectator's page following every deal without a reload; the network taken away (the
browser's own emulation) while deals are entered, each stored once when it returns,
and once again when a phone sends them twice; two phones on one table; an arbiter's
ruling, penalty and the table's links; a director's two-tour tournament with its
standings page following; what a table's token and a write without its CSRF token may
not do; a name that looks like a script shown as text. Every page loads nothing from
outside the service and logs no error of its own.

One service a module (its store shared by the module's tests, each naming its own
games, so that neither their records nor a page's local storage meet) and the test
process's two browsers (conftest.py's ``phones``), cleaned for each test. No sleeps:
every wait is a bounded ``WebDriverWait`` on a condition.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from browsers import PROBE, requests
from serving import PULKA, ROOT, Served, account, sign_in
from test_browser import expected_entries, running_entries

try:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover: selenium is in the test extras
    pass

WAIT = 20.0  # seconds any wait gives up after
LIVE = 1.0  # a spectator's page shows a record within this many seconds [issue 21]
PLAYERS = ["Anna", "Boris", "Vera"]

# Ten deals as the table calls them (what was played, who, the defence's calls, the
# tricks tapped; the last count is filled in by the page), and the same deals as the
# deal lines a scorer would type (the forehand Anna, Boris, Vera in turn): recorded by
# the command line, they are the independent account of what the taps must store.
Touch = dict[str, Any]
TEN: list[tuple[Touch, str]] = [
    ({"contract": "6S", "declarer": "Anna", "calls": {"Boris": "whist", "Vera": "pass"}, "tricks": {"Anna": 6, "Boris": 3}},
     "6S pass pass | 6S | whist pass | 6 3 1"),
    ({"contract": "raspasy", "tricks": {"Boris": 2, "Vera": 5}}, "pass pass pass | 2 5 3"),
    ({"contract": "misere", "declarer": "Boris", "tricks": {"Boris": 0}}, "pass pass misere | misere | 0"),
    ({"contract": "7H", "declarer": "Vera", "calls": {"Anna": "whist", "Boris": "whist"}, "tricks": {"Vera": 7, "Anna": 2}},
     "pass pass 7H | 7H | whist whist | 2 1 7*"),
    ({"contract": "6D", "declarer": "Boris", "calls": {"Vera": "pass", "Anna": "pass"}, "tricks": {}},
     "6D pass pass | 6D | pass pass"),
    ({"contract": "raspasy", "tricks": {"Vera": 4, "Anna": 4}}, "pass pass pass | 4 4 2"),
    ({"contract": "8C", "declarer": "Anna", "calls": {"Boris": "whist", "Vera": "pass"}, "tricks": {"Anna": 8, "Boris": 2}},
     "8C pass pass | 8C | whist pass | 8 2 0"),
    ({"contract": "7S", "declarer": "Vera", "calls": {"Anna": "pass", "Boris": "whist"}, "tricks": {"Vera": 6, "Anna": 1}},
     "pass 7S pass | 7S | pass whist | 3 6* 1"),
    ({"contract": "raspasy", "tricks": {"Vera": 3, "Anna": 3}}, "pass pass pass | 3 3 4"),
    ({"contract": "misere", "declarer": "Anna", "tricks": {"Anna": 1}}, "misere pass pass | misere | 1"),
]


# -- the browsers (conftest.py's ``phones``: tests/browsers.py) ---------------------------------


def wait(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = WAIT) -> Any:
    """``condition`` once it holds (an element redrawn while read is read again)."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def version(driver: WebDriver) -> int:
    text = driver.execute_script("return document.body.getAttribute('data-version');")
    return int(text) if text else -1


def tap(driver: WebDriver, css: str) -> None:
    """A finger's tap: the element brought into view, then clicked."""
    element = driver.find_element(By.CSS_SELECTOR, css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def enter(driver: WebDriver, touch: Touch) -> str:
    """One deal by touch, in the order the table speaks; the summary the page shows."""
    tap(driver, f'#contracts button[data-contract="{touch["contract"]}"]')
    if touch["contract"] != "raspasy":
        tap(driver, f'#declarers button[data-player="{touch["declarer"]}"]')
    for player, call in touch.get("calls", {}).items():
        tap(driver, f'.call-row[data-player="{player}"] button[data-call="{call}"]')
    for player, count in touch["tricks"].items():
        tap(driver, f'.trick-row[data-player="{player}"] button[data-count="{count}"]')
    wait(driver, lambda d: d.find_element(By.ID, "record").is_enabled())
    summary: str = driver.find_element(By.ID, "summary").text
    tap(driver, "#record")
    return summary


def outbox(driver: WebDriver) -> list[str]:
    """The statuses of what waits to be sent, as the page lists them (read at once: the
    list is redrawn as it changes)."""
    found: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#outbox-list li')).map(li => li.dataset.status);")
    return found


def text_of(driver: WebDriver, element_id: str) -> str:
    found: str = driver.execute_script("var e = document.getElementById(arguments[0]); return e ? e.textContent : '';",
                                       element_id)
    return found


def offline(driver: WebDriver, yes: bool) -> None:
    """The browser's own network emulation: no request leaves it while offline."""
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": yes, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def own_errors(driver: WebDriver) -> list[Any]:
    """What the pages logged of their own (script errors, policy violations): a request
    the service refused on purpose, or one the emulated network dropped, is the
    browser's report of a network answer, not an error of a page."""
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING") and e.get("source") != "network"]


def network_errors(driver: WebDriver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("source") == "network"]


def outside(urls: list[str], base: str) -> list[str]:
    """Requests to anywhere but the service."""
    return [u for u in urls if not (u.startswith(base + "/") or u == base)]


# -- the club ---------------------------------------------------------------------------------


@dataclass
class Club:
    served: Served
    http: httpx.Client  # the director, signed in
    headers: dict[str, str]  # its CSRF token

    @property
    def url(self) -> str:
        return self.served.url

    def game(self, name: str, players: list[str] = PLAYERS, pulya: int = 20) -> dict[str, Any]:
        r = self.http.post("/api/games", json={"id": f"new-{name}-000", "game": name, "players": players,
                                               "pulya": pulya}, headers=self.headers)
        assert r.status_code == 201, r.text
        state: dict[str, Any] = r.json()["state"]
        return state

    def token(self, game: str, holder: str) -> str:
        r = self.http.post(f"/api/games/{game}/tokens", json={"holder": holder}, headers=self.headers)
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    def state(self, game: str) -> dict[str, Any]:
        """The game as anyone reads it. The phones and this check read from one address: a
        refusal of its budget (429, or 503 for everyone's) is waited out as its Retry-After
        says, as a phone's page does (``test_page_retries``), for up to ``WAIT``; any other
        refusal, or one that lasts, is said, not read as a state."""
        deadline = time.monotonic() + WAIT
        while True:
            r = httpx.get(f"{self.url}/api/games/{game}", timeout=WAIT)
            if r.status_code not in (429, 503) or time.monotonic() > deadline:
                break
            time.sleep(min(float(r.headers.get("Retry-After", "1")), 1.0))
        assert r.status_code == 200, r.text
        doc: dict[str, Any] = r.json()
        return doc

    def record(self, game: str, line: str, key: str, again: bool = False) -> dict[str, Any]:
        """A deal line, as the director (``again``: the same line as the deal before, really played again)."""
        r = self.http.post(f"/api/games/{game}/deal", json={"id": key, "version": self.state(game)["version"],
                                                            "line": line, "again": again}, headers=self.headers)
        assert r.status_code == 201, r.text
        state: dict[str, Any] = r.json()["state"]
        return state


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    """A ``pulka serve`` on SQLite with a director (dora) and an arbiter (igor), one for
    the module's tests: each names its own games."""
    where = tmp_path_factory.mktemp("club")
    yield from served_club(str(where / "pulka.db"), where)


@pytest.fixture(scope="module")
def postgres_club(module_postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    """The same on PostgreSQL."""
    yield from served_club(module_postgres_url, tmp_path_factory.mktemp("postgres-club"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_club(request: pytest.FixtureRequest) -> Club:
    """The club on each store (where the store is what is tested)."""
    found: Club = request.getfixturevalue("club" if request.param == "sqlite" else "postgres_club")
    return found


def served_club(db: str, where: Path) -> Iterator[Club]:
    account(db, "dora", "director")
    account(db, "igor", "arbiter")
    served = Served(db, where / "serve.log")
    http = served.http()
    try:
        yield Club(served, http, sign_in(http, "dora"))
    finally:
        http.close()
        served.stop()


def cli(db: str, *args: str) -> str:
    done = subprocess.run([*PULKA, "--db", db, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PULKA_LANG": "en"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def drawn(driver: WebDriver, url: str) -> dict[str, str]:
    """The running entries of the drawn sheet at ``url``, read from the rendered SVG."""
    driver.get(url)
    driver.execute_script(PROBE)
    sheet = driver.execute_script("return window.pulkaProbe.sheet();")
    return running_entries(sheet)


def open_score(driver: WebDriver, club: Club, game: str, token: str) -> None:
    driver.get(f"{club.url}/score/{game}#token={token}")
    wait(driver, lambda d: version(d) > 0 and "recording" in text_of(d, "recording-as"))


# -- the scorer and the spectator ----------------------------------------------------------------


def test_a_pulka_recorded_by_touch_is_pulka_sheet_and_a_spectator_follows_every_deal_live(
        phones: tuple[WebDriver, WebDriver], club: Club, tmp_path: Path) -> None:
    scorer, spectator = phones
    club.game("touch")
    token = club.token("touch", "Anna")
    open_score(scorer, club, "touch", token)
    spectator.get(f"{club.url}/watch/touch")
    wait(spectator, lambda d: version(d) == 1)
    spectator.execute_script("window.notReloaded = true;")  # a reload would forget it
    lags = []
    for k, (touch, _line) in enumerate(TEN, start=1):
        before = version(scorer)
        summary = enter(scorer, touch)
        assert touch.get("declarer", "") in summary
        wait(scorer, lambda d: version(d) > before and outbox(d) == [])
        stored = club.state("touch")["version"]
        started = time.monotonic()
        wait(spectator, lambda d: version(d) == stored and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == k)
        lags.append(time.monotonic() - started)
        settle = club.state("touch")["settlement"]
        rows = {tr.get_attribute("data-player"): tr.find_elements(By.TAG_NAME, "td")[2].text
                for tr in spectator.find_elements(By.CSS_SELECTOR, "#settlement-rows tr")}
        assert rows == {p: f"{settle['rounded'][p]:+d}" if settle["rounded"][p] else "0" for p in PLAYERS}
    assert spectator.execute_script("return window.notReloaded === true;")
    assert max(lags) < LIVE, lags
    # The same deals typed as lines into a store of their own: the same sheet.
    typed = str(tmp_path / "typed.db")
    cli(typed, "new", "touch", "--players", ",".join(PLAYERS), "--pulya", "20")
    for _touch, line in TEN:
        cli(typed, "deal", "touch", line)
    sheet = cli(club.served.db, "sheet", "touch")
    assert sheet == cli(typed, "sheet", "touch")
    shown_sheet = scorer.find_element(By.ID, "sheet").get_attribute("data-src")
    assert shown_sheet is not None and shown_sheet.endswith(f"v={club.state('touch')['version']}")
    page_sheet = club.url + shown_sheet
    transfers = [li.text for li in spectator.find_elements(By.CSS_SELECTOR, "#transfers li")]
    settle = club.state("touch")["settlement"]
    assert transfers == [f"{t['from']} pays {t['to']} {t['whists']} whists" + (f" ({t['money']})" if t.get("money")
                                                                              else "") for t in settle["transfers"]]
    for d in phones:
        assert own_errors(d) == []
        assert network_errors(d) == []
        assert outside(requests(d), club.url) == []
    assert drawn(scorer, page_sheet) == expected_entries(sheet)


def shown(driver: WebDriver) -> dict[str, Any]:
    """What a page shows of the game: its deals list and, on a spectator's page, the settlement's rows."""
    found: dict[str, Any] = driver.execute_script(
        "var text = function (css) { return Array.from(document.querySelectorAll(css)).map(e => e.textContent); };"
        "return {deals: text('#deals li'), settlement: text('#settlement-rows tr'), transfers: text('#transfers li'),"
        " who: document.getElementById('who').textContent};")
    return found


def test_pages_kept_up_by_deltas_show_what_a_reload_shows_after_a_correction_of_an_earlier_deal(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    """The scorer's answers and both pages' pushes carry what changed since the version the
    page holds (``game_delta``): after two deals, deal 3 begun and a correction of deal 2,
    the scorer's and the spectator's pages show the deals, the settlement and who deals
    as each shows them after a reload."""
    scorer, spectator = phones
    club.game("deltas")
    token = club.token("deltas", "Anna")
    open_score(scorer, club, "deltas", token)
    spectator.get(f"{club.url}/watch/deltas")
    wait(spectator, lambda d: version(d) == 1)
    spectator.execute_script("window.notReloaded = true;")
    for k, (touch, _line) in enumerate(TEN[:2], start=1):
        before = version(scorer)
        enter(scorer, touch)
        wait(scorer, lambda d: version(d) > before and outbox(d) == [])
        wait(spectator, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == k)
    # deal 3 begins (Vera speaks first), then the recorder corrects deal 2's tricks on her page
    r = httpx.post(f"{club.url}/api/games/deltas/bid", json={"id": "bid-deltas-1", "version": version(scorer),
                                                             "player": "Vera", "bid": "pass"},
                   headers={"Authorization": f"Bearer {token}"}, timeout=WAIT)
    assert r.status_code == 201, r.text
    wait(spectator, lambda d: version(d) == r.json()["state"]["version"])
    tricks = [e for e in club.http.get("/api/games/deltas/log").json()["events"] if e["type"] == "tricks"][1]
    scorer.find_element(By.CSS_SELECTOR, "#correct-box summary").click()
    wait(scorer, lambda d: d.find_elements(By.CSS_SELECTOR, f'#c-target option[value="{tricks["number"]}"]'))
    scorer.find_element(By.CSS_SELECTOR, f'#c-target option[value="{tricks["number"]}"]').click()
    scorer.find_element(By.ID, "c-changes").send_keys("Boris=3 Anna=2")
    before = club.state("deltas")["version"]
    tap(scorer, "#c-preview")
    wait(scorer, lambda d: d.find_element(By.ID, "c-kind").text)
    tap(scorer, "#c-store")
    wait(scorer, lambda d: outbox(d) == [] and version(d) > before)
    head = club.state("deltas")
    assert "Boris 3" in head["deals"][1]["line"], (head["deals"][1], text_of(scorer, "c-kind"))
    for d in phones:
        wait(d, lambda d: version(d) == head["version"])
    live = shown(scorer), shown(spectator)
    assert spectator.execute_script("return window.notReloaded === true;")
    # each push was applied to what the spectator held: it never read the whole game
    assert [u for u in requests(spectator) if urlsplit(u).path == "/api/games/deltas"] == []
    assert any("Boris 3" in text for text in live[1]["deals"]), live[1]["deals"]
    for d in phones:
        d.refresh()
        wait(d, lambda d: version(d) == head["version"]
             and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == len(head["deals"]))
    assert (shown(scorer), shown(spectator)) == live
    for d in phones:
        assert own_errors(d) == []


def test_nothing_entered_offline_is_lost_and_each_deal_is_stored_once(
        phones: tuple[WebDriver, WebDriver], any_club: Club) -> None:
    club = any_club
    scorer = phones[0]
    club.game("offline")
    open_score(scorer, club, "offline", club.token("offline", "scorer"))
    start = club.state("offline")["version"]
    offline(scorer, True)
    try:
        wait(scorer, lambda d: "off" in (d.find_element(By.ID, "net").get_attribute("class") or ""))
        for touch, _line in TEN[:3]:
            enter(scorer, touch)
        wait(scorer, lambda d: outbox(d) == ["waiting"] * 3)
        assert club.state("offline")["version"] == start  # nothing reached the service
        kept = scorer.execute_script("return localStorage.getItem('pulka.outbox.offline');")
    finally:
        offline(scorer, False)
    wait(scorer, lambda d: outbox(d) == [])
    after = club.state("offline")
    assert [d["line"].split(" | ")[-1] for d in after["deals"]] == ["Anna 6, Boris 3, Vera 1",
                                                                  "Boris 2, Vera 5, Anna 3", "Boris 0"]
    wait(scorer, lambda d: version(d) == after["version"])
    # The same three writes sent again (a phone that never heard the answers): stored once.
    scorer.execute_script("localStorage.setItem('pulka.outbox.offline', arguments[0]);", kept)
    scorer.refresh()
    wait(scorer, lambda d: "stored already" in text_of(d, "message") and outbox(d) == [])
    assert club.state("offline")["version"] == after["version"]
    assert len(club.state("offline")["deals"]) == 3
    # A reload keeps what waits: the writes blocked, a deal entered, the page reloaded.
    scorer.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/games/offline/deal*"]})
    try:
        enter(scorer, TEN[3][0])
        wait(scorer, lambda d: outbox(d) == ["waiting"])
        scorer.refresh()
        wait(scorer, lambda d: outbox(d) == ["waiting"] and version(d) == after["version"])
    finally:
        scorer.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    wait(scorer, lambda d: outbox(d) == [])
    assert len(club.state("offline")["deals"]) == 4
    assert own_errors(scorer) == []
    assert outside(requests(scorer), club.url) == []


def test_two_phones_on_one_table_the_second_gets_the_fresh_table_and_a_clear_message(
        phones: tuple[WebDriver, WebDriver], any_club: Club) -> None:
    club = any_club
    anna, boris = phones
    club.game("two")
    open_score(anna, club, "two", club.token("two", "Anna"))
    open_score(boris, club, "two", club.token("two", "Boris"))
    start = club.state("two")["version"]
    offline(boris, True)
    try:
        enter(boris, TEN[1][0])  # Boris enters a raspasy on the table he last saw
        wait(boris, lambda d: outbox(d) == ["waiting"])
        enter(anna, TEN[0][0])  # while Anna's phone records the six
        wait(anna, lambda d: outbox(d) == [] and version(d) > start)
    finally:
        offline(boris, False)
    fresh = club.state("two")
    wait(boris, lambda d: outbox(d) == ["conflict"])
    message = boris.find_element(By.ID, "message")
    assert "changed by someone else" in message.text and "alarm" in (message.get_attribute("class") or "")
    wait(boris, lambda d: version(d) == fresh["version"])  # the fresh table shown
    assert club.state("two")["version"] == fresh["version"] and len(fresh["deals"]) == 1  # nothing overwritten
    # Boris checks the fresh table and sends his raspasy on it: the next deal.
    tap(boris, "#outbox-list li button.again")
    wait(boris, lambda d: outbox(d) == [])
    deals = club.state("two")["deals"]
    assert [d["game"] for d in deals] == ["6S by Anna", "raspasy"]
    assert {e["by"] for e in club.http.get("/api/games/two/log").json()["events"] if e["deal"] == 2} == {"Boris"}
    for d in phones:
        assert own_errors(d) == []


def test_a_refusal_is_shown_beside_its_field_with_its_rule_and_stores_nothing(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    club.game("refusal")
    open_score(scorer, club, "refusal", club.token("refusal", "Anna"))
    start = club.state("refusal")["version"]
    # Vera's count tapped over the one the page filled in: thirteen tricks.
    enter(scorer, {"contract": "6S", "declarer": "Anna", "calls": {"Boris": "whist", "Vera": "pass"},
                   "tricks": {"Anna": 6, "Boris": 3, "Vera": 4}})
    error = wait(scorer, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "#deal-form .error")
                                         if e.is_displayed() and e.text), None))
    # Refused beside the tricks, with the rule [Code 3.2.8]; nothing stored; the deal back in the form.
    assert error.get_attribute("data-rule") == "3.2.8" and "3.2.8" in error.text
    assert error.find_element(By.XPATH, "..").get_attribute("id") == "f-tricks"
    assert club.state("refusal")["version"] == start
    assert outbox(scorer) == ["refused"]
    # Put right in the form and recorded in its place.
    tap(scorer, '.trick-row[data-player="Vera"] button[data-count="1"]')
    tap(scorer, "#record")
    wait(scorer, lambda d: outbox(d) == [])
    assert len(club.state("refusal")["deals"]) == 1


def test_the_same_deal_twice_is_refused_beside_the_again_box_and_stored_once_it_is_ticked(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    """A deal entered twice in a row is taken for a double tap and refused; the table says
    it really was played again by ticking the box, and it is stored (the guard of
    ``pulka deal --again``). The same deal is the same players' tricks: the same counts
    for other players are another deal, stored at once."""
    scorer = phones[0]
    club.game("twice")
    open_score(scorer, club, "twice", club.token("twice", "Anna"))
    # The same counts in the order of each deal's forehand (Anna's, then Boris's): two deals.
    enter(scorer, {"contract": "raspasy", "tricks": {"Anna": 3, "Boris": 2, "Vera": 5}})
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 1)
    enter(scorer, {"contract": "raspasy", "tricks": {"Boris": 3, "Vera": 2, "Anna": 5}})
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 2)
    stored = club.state("twice")["version"]
    # The deal before, its players' tricks again: refused beside the box.
    enter(scorer, {"contract": "raspasy", "tricks": {"Boris": 3, "Vera": 2, "Anna": 5}})
    error = wait(scorer, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "#deal-form .error")
                                         if e.is_displayed() and e.text), None))
    assert error.find_element(By.XPATH, "..").get_attribute("id") == "f-again"
    assert "typed twice" in error.text and "--again" not in error.text
    assert club.state("twice")["version"] == stored and outbox(scorer) == ["refused"]
    tap(scorer, "#again")
    tap(scorer, "#record")
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 3)
    deals = club.state("twice")["deals"]
    assert [d["line"].split(" | ")[0] for d in deals] == ["Anna pass, Boris pass, Vera pass",
                                                         "Boris pass, Vera pass, Anna pass",
                                                         "Vera pass, Anna pass, Boris pass"]
    assert [d["line"].split(" | ")[-1] for d in deals] == ["Anna 3, Boris 2, Vera 5", "Boris 3, Vera 2, Anna 5",
                                                          "Vera 2, Anna 5, Boris 3"]
    assert not scorer.find_element(By.ID, "again").is_selected()  # the next deal is guarded again
    assert own_errors(scorer) == []


def test_a_typed_line_doubted_as_a_slip_comes_back_and_is_stored_when_confirmed(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    """A line typed on the phone whose counts read from the forehand and read declarer
    first write two sheets comes back beside the line with both readings side by side
    (the tricks, what each writes, the line that says each); the scorer ticks "as typed"
    and sends it again, and it is stored once, as typed (``pulka deal --yes``)."""
    scorer = phones[0]
    club.game("slip")
    open_score(scorer, club, "slip", club.token("slip", "Anna"))
    start = club.state("slip")["version"]
    scorer.execute_script("document.getElementById('line-box').open = true;")
    slip = "pass 6S pass | 6S | whist whist | 8 1 1"  # Boris's eight typed declarer first?
    scorer.find_element(By.ID, "line").send_keys(slip)
    tap(scorer, '#line-form button[type="submit"]')
    error = wait(scorer, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "#line-form .error")
                                         if e.is_displayed() and e.text), None))
    assert "8* 1 1" in error.text and "confirmed as typed" in error.text
    table = scorer.find_element(By.CSS_SELECTOR, "#line-doubt table")
    rows = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in table.find_elements(By.TAG_NAME, "tr")]
    assert rows[1] == ["tricks", "Anna 8, Boris 1, Vera 1", "Boris 8, Vera 1, Anna 1"]
    assert ["Boris pulya", "", "+2"] in rows and rows[-1][1:] == [slip.replace("8 1 1", "8 1* 1"),
                                                                   slip.replace("8 1 1", "8* 1 1")]
    assert club.state("slip")["version"] == start and outbox(scorer) == ["refused"]
    assert scorer.find_element(By.ID, "line").get_attribute("value") == slip  # the line back to put right
    tap(scorer, "#line-yes")
    tap(scorer, '#line-form button[type="submit"]')
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 1)
    assert not scorer.find_element(By.ID, "line-doubt").is_displayed()
    deals = club.state("slip")["deals"]
    assert len(deals) == 1 and deals[0]["line"].split(" | ")[-1] == "Anna 8, Boris 1, Vera 1"
    assert not scorer.find_element(By.ID, "line-yes").is_selected()  # the next line is checked again
    assert own_errors(scorer) == []


def test_undo_while_in_hand_and_a_correction_with_its_verdict_previewed(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    scorer = phones[0]
    club.game("undo")
    open_score(scorer, club, "undo", club.token("undo", "Anna"))
    enter(scorer, TEN[0][0])
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 1)
    tap(scorer, "#undo")  # asked first, saying what (tests/test_table_actions.py: what it says)
    wait(scorer, lambda d: d.find_element(By.ID, "undo-yes").is_displayed())
    tap(scorer, "#undo-yes")
    wait(scorer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 0)
    assert club.state("undo")["deals"] == []
    enter(scorer, TEN[0][0])
    wait(scorer, lambda d: outbox(d) == [] and len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 1)
    tricks = next(e for e in club.http.get("/api/games/undo/log").json()["events"]
                  if e["type"] == "tricks" and e["text"].endswith("Vera 1") and e["number"] > 8)
    scorer.find_element(By.CSS_SELECTOR, "#correct-box summary").click()
    wait(scorer, lambda d: d.find_elements(By.CSS_SELECTOR, f'#c-target option[value="{tricks["number"]}"]'))
    scorer.find_element(By.CSS_SELECTOR, f'#c-target option[value="{tricks["number"]}"]').click()
    scorer.find_element(By.ID, "c-changes").send_keys("Anna=7 Boris=2")
    version_before = club.state("undo")["version"]
    tap(scorer, "#c-preview")
    kind = wait(scorer, lambda d: d.find_element(By.ID, "c-kind") if d.find_element(By.ID, "c-kind").text else None)
    assert kind.get_attribute("data-verdict") == "free"  # still in hand [Code 4.2.8]
    assert club.state("undo")["version"] == version_before  # a preview stores nothing
    tap(scorer, "#c-store")
    wait(scorer, lambda d: outbox(d) == [] and version(d) > version_before)
    log = club.http.get("/api/games/undo/log").json()["events"]
    assert log[-1]["type"] == "correction" and log[-1]["by"] == "Anna" and log[-1]["number"] == version_before + 1
    assert "Anna 7, Boris 2" in cli(club.served.db, "log", "undo", "--only-deal", "1")
