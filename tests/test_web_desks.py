"""The arbiter's and the director's pages, who may open them, and the pages' safety, in a
real browser at a phone's size against real ``pulka serve`` processes (as
``test_web_pages.py``): an arbiter's ruling, penalty and table links; a director running
a two-tour tournament while its standings page follows; a table's token refused at
another table and at the arbiter's desk; a write without its CSRF token refused; a
player named like a script shown as text; the pages in Russian and English; the club's
rating and a player's page; the checkpoint that covers a game."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote
from pathlib import Path

import httpx

from serving import PASSWORD, bearer
from browsers import requests
from test_web_pages import WAIT, Club, By, WebDriver, cli, club, own_errors, outside, tap, text_of, version, wait

__all__ = ["club"]  # the fixture: this module's own service

WIN = "6S pass pass | 6S | pass pass"  # the forehand's six, both defenders pass: 2 in his pulya
LOSE = "misere pass pass | misere | 2"  # the forehand's misère fails with two tricks


def sign_in_page(driver: WebDriver, club: Club, name: str, then: str) -> None:
    driver.get(f"{club.url}/signin?next={then}")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    tap(driver, "#signin")
    wait(driver, lambda d: d.current_url.split("?")[0].endswith(then))


def test_an_arbiters_ruling_penalty_and_the_tables_links(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    desk, table = phones
    club.game("ruling")
    anna = club.token("ruling", "Anna")
    # The table leaves a deal in progress: Anna has bid a six.
    r = club.http.post("/api/games/ruling/bid", json={"id": "bid-00001", "version": 1, "player": "Anna", "bid": "6S"},
                       headers=bearer(anna))
    assert r.status_code == 201, r.text
    sign_in_page(desk, club, "igor", "/arbiter/game/ruling")
    wait(desk, lambda d: version(d) == 2 and d.find_elements(By.CSS_SELECTOR, "#audit-rows tr[data-event='2']"))
    desk.find_element(By.ID, "r-rule").send_keys("3.3.16.3")
    desk.find_element(By.ID, "r-offender").send_keys("Boris")
    desk.find_element(By.ID, "r-whists").send_keys("Anna=10")
    desk.find_element(By.ID, "r-reason").send_keys("the talon shown")
    tap(desk, "#r-go")
    wait(desk, lambda d: version(d) == 3 and d.find_elements(By.CSS_SELECTOR, "#audit-rows tr[data-event='3']"))
    events = club.http.get("/api/games/ruling/log").json()["events"]
    assert events[-1]["type"] == "ruling" and events[-1]["by"] == "arbiter:igor"
    row = desk.find_element(By.CSS_SELECTOR, "#audit-rows tr[data-event='3']").text
    assert "3.3.16.3" in row and "igor (arbiter)" in row  # who recorded it, said as a person reads it
    # A penalty, in gora [Code 4.2.16].
    desk.find_element(By.ID, "p-amount").send_keys("4")
    desk.find_element(By.ID, "p-reason").send_keys("a word out of turn")
    tap(desk, "#p-go")
    wait(desk, lambda d: version(d) == 4)
    penalty = club.http.get("/api/games/ruling/log").json()["events"][-1]
    assert penalty["type"] == "penalty" and penalty["by"] == "arbiter:igor"
    # Explain: Anna's whists on Boris come from the ruling.
    desk.find_element(By.CSS_SELECTOR, '#explain-cell option[value="Anna.whists.Boris"]').click()
    tap(desk, "#explain-go")
    wait(desk, lambda d: d.find_elements(By.CSS_SELECTOR, "#explain-rows tr[data-event='3']"))
    # The time slider: as of event 2, the sheet before the ruling.
    desk.execute_script("var s = document.getElementById('slider'); s.value = '2'; s.dispatchEvent(new Event('input'));")
    wait(desk, lambda d: text_of(d, "as-of").startswith("As of event 2 of 4"))
    assert "at=2" in (desk.find_element(By.ID, "sheet").get_attribute("data-src") or "")
    # The audit trail's filter: rulings only.
    desk.find_element(By.CSS_SELECTOR, '#f-type option[value="ruling"]').click()
    tap(desk, "#f-apply")
    wait(desk, lambda d: [tr.get_attribute("data-event") for tr in d.find_elements(By.CSS_SELECTOR, "#audit-rows tr")]
         == ["3"])
    # A table's link with its QR code, then revoked: the phone that holds it records nothing more.
    desk.find_element(By.ID, "t-holder").send_keys("Masha")
    tap(desk, "#t-issue")
    # The link's placeholder is "#" until the token arrives: wait for the token itself.
    link = wait(desk, lambda d: (d.find_element(By.ID, "token-link").get_attribute("href") or "").count("#token=")
                and d.find_element(By.ID, "token-link").get_attribute("href"))
    assert link.startswith(f"{club.url}/score/ruling#token=")
    qr = desk.find_element(By.CSS_SELECTOR, "#token-qr img").get_attribute("src") or ""
    assert qr.startswith("data:image/svg+xml")
    masha = link.partition("#token=")[2]
    assert club.http.get("/api/games/ruling/log", headers=bearer(masha)).status_code == 200
    token_id = masha.partition(".")[0]
    tap(desk, f'button.revoke[data-token="{token_id}"]')
    wait(desk, lambda d: not d.find_elements(By.CSS_SELECTOR, f'button.revoke[data-token="{token_id}"]'))
    assert httpx.get(f"{club.url}/api/games/ruling/log", headers=bearer(masha), timeout=WAIT).status_code == 401
    table.get(link)
    wait(table, lambda d: text_of(d, "access") != "")
    assert "not valid any more" in text_of(table, "access")
    assert own_errors(desk) == [] and own_errors(table) == []
    assert outside(requests(desk), club.url) == []


def test_a_tables_token_is_refused_at_another_table_and_at_the_arbiters_desk(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    driver = phones[0]
    club.game("mine")
    club.game("theirs")
    token = club.token("mine", "Masha")
    driver.get(f"{club.url}/score/theirs#token={token}")
    wait(driver, lambda d: "mine" in text_of(d, "access") and version(d) == 1)
    assert "not this one" in text_of(driver, "access")
    tap(driver, '#contracts button[data-contract="raspasy"]')
    assert not driver.find_element(By.ID, "record").is_enabled()
    driver.get(f"{club.url}/arbiter/game/mine#token={token}")
    wait(driver, lambda d: text_of(d, "access") != "")
    assert "for an arbiter" in text_of(driver, "access") and "scorer:Masha" in text_of(driver, "access")
    assert not driver.find_element(By.ID, "desk").is_displayed()
    # What the page would not send, sent by hand from it: refused by the service.
    status = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "fetch('/api/games/theirs/deal', {method: 'POST', headers: {'Content-Type': 'application/json', "
        "'Authorization': 'Bearer ' + arguments[0]}, body: JSON.stringify({id: 'deal-by-hand-1', version: 1, "
        "line: 'pass pass pass | 2 5 3'})}).then(r => done(r.status));", token)
    assert status == 403 and club.state("theirs")["version"] == 1


def test_a_write_without_its_csrf_token_is_refused_and_stores_nothing(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    driver = phones[0]
    club.game("csrf")
    sign_in_page(driver, club, "igor", "/arbiter")
    body = {"version": 1, "player": "Anna", "column": "gora", "amount": 4, "reason": "x"}
    script = ("var done = arguments[arguments.length - 1];"
              "fetch('/api/games/csrf/penalty', {method: 'POST', credentials: 'same-origin', headers: arguments[1], "
              "body: JSON.stringify(arguments[0])}).then(r => r.json().then(d => done([r.status, d])));")
    status, doc = driver.execute_async_script(script, {**body, "id": "penalty-no-csrf"},
                                              {"Content-Type": "application/json"})
    assert status == 403 and "CSRF" in doc["refused"]["message"]
    assert club.state("csrf")["version"] == 1
    # The same with the session's token, as the desk sends it: stored.
    csrf = driver.execute_async_script("var done = arguments[arguments.length - 1];"
                                       "fetch('/api/session').then(r => r.json()).then(d => done(d.csrf));")
    status, doc = driver.execute_async_script(script, {**body, "id": "penalty-with-csrf"},
                                              {"Content-Type": "application/json", "X-CSRF-Token": csrf})
    assert status == 201 and club.state("csrf")["version"] == 2


def test_a_player_named_like_a_script_is_shown_as_text(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    driver = phones[0]
    evil = ["<script>window.pwned = 1</script>", "Boris", "<img src=x onerror=\"window.pwned = 2\">"]
    club.game("evil", players=evil)
    club.record("evil", "6S pass pass | 6S | whist pass | 6 3 1", "evil-deal-1")
    token = club.token("evil", evil[0])
    for path in ("/watch/evil", f"/score/evil#token={token}", "/"):
        driver.get(club.url + path)
        wait(driver, lambda d: path == "/" or version(d) > 1)
        assert driver.execute_script("return window.pwned === undefined;")
        if path != "/":
            text = driver.find_element(By.ID, "deals").text
            assert evil[0] in text and evil[2] in text  # the names as they were typed, as text
    driver.get(f"{club.url}/api/games/evil/sheet.svg")
    assert driver.execute_script("return window.pwned === undefined;")
    assert own_errors(driver) == []
    assert outside(requests(driver), club.url) == []


def play(club: Club, game: str, loser: str | None) -> None:
    """Deal until the table's pulka is over: ``loser`` fails a misère whenever he is
    forehand, every other forehand makes a six (the director records, as an arbiter may)."""
    for k in range(40):
        state = club.state(game)
        if state["over"]:
            return
        line = LOSE if state["order"][0] == loser else WIN
        club.record(game, line, f"{game.replace('/', '-')}-deal-{k:02d}", again=True)
    raise AssertionError(f"{game} did not end")


def test_a_director_runs_a_two_tour_tournament_while_its_standings_page_follows(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    director, spectator = phones
    sign_in_page(director, club, "dora", "/director")
    wait(director, lambda d: d.find_element(By.ID, "desk").is_displayed())
    director.find_element(By.ID, "n-name").send_keys("cup")
    director.find_element(By.ID, "n-players").send_keys("Anna\nBoris\nVera\nGleb\nDina\nEgor")
    pulya = director.find_element(By.ID, "n-pulya")
    pulya.clear()
    pulya.send_keys("4")
    director.find_element(By.ID, "n-tours").send_keys("2")
    director.find_element(By.CSS_SELECTOR, '#n-size option[value="3"]').click()
    tap(director, "#n-create")
    wait(director, lambda d: d.current_url.split("?")[0].endswith("/director/cup") and version(d) >= 1)
    spectator.get(f"{club.url}/tournament/cup")
    wait(spectator, lambda d: version(d) >= 1)
    spectator.execute_script("window.notReloaded = true;")

    def seen_tables(d: WebDriver) -> dict[str, str]:
        found: dict[str, str] = d.execute_script(
            "var o = {}; document.querySelectorAll('#table-rows tr').forEach(function (tr) {"
            "o[tr.dataset.game] = tr.querySelector('.table-state').textContent; }); return o;")
        return found

    def standings(d: WebDriver) -> list[list[str]]:
        rows: list[list[str]] = d.execute_script(
            "return Array.from(document.querySelectorAll('#standings-rows tr')).map(function (tr) {"
            "return Array.from(tr.children).slice(0, 4).map(function (td) { return td.textContent; }); });")
        return rows

    def expected() -> list[list[str]]:
        doc = json.loads(cli(club.served.db, "tournament", "standings", "cup", "--json"))
        return [[str(r["place"]), r["player"], f"{r['points']:g}" if isinstance(r["points"], (int, float))
                 else str(r["points"]), f"{r['whists']:+d}" if r["whists"] else "0"] for r in doc["standings"]]

    for tour, loser in ((1, "Anna"), (2, "Boris")):
        wait(director, lambda d: d.find_element(By.ID, "tour").get_attribute("value") == str(tour))
        if tour == 1:
            director.find_element(By.ID, "seed").send_keys("spring")  # the lot's seed, recorded with it
        tap(director, "#seat")
        wait(spectator, lambda d: len([g for g in seen_tables(d) if g.startswith(f"cup/{tour}/")]) == 2)
        tap(director, "#start")
        wait(spectator, lambda d: [s for g, s in seen_tables(d).items() if g.startswith(f"cup/{tour}/")]
             == ["playing", "playing"])
        for k in (1, 2):
            play(club, f"cup/{tour}/{k}", loser)
        wait(spectator, lambda d: [s for g, s in seen_tables(d).items() if g.startswith(f"cup/{tour}/")]
             == ["finished", "finished"])
        wait(spectator, lambda d: standings(d) == expected())
        tap(director, "#close")
        wait(spectator, lambda d: d.find_elements(By.CSS_SELECTOR, f'#tours button[data-tour="{tour}"]'))
    wait(spectator, lambda d: standings(d) == expected())
    # A yellow card, shown on the standings page.
    director.find_element(By.ID, "card-reason").send_keys("talking during the play")
    tap(director, "#card-give")
    wait(spectator, lambda d: "■" in d.execute_script(
        "return Array.from(document.querySelectorAll('#standings-rows .cards')).map(td => td.textContent).join('');"))
    assert spectator.execute_script("return window.notReloaded === true;")
    # The standings after tour 1, as they stood.
    tap(spectator, '#tours button[data-tour="1"]')
    after_1 = json.loads(cli(club.served.db, "tournament", "standings", "cup", "--tour", "1", "--json"))
    wait(spectator, lambda d: [r[1] for r in standings(d)] == [r["player"] for r in after_1["standings"]])
    # The tournament's report: the file pulka tournament report writes.
    r = club.http.get("/tournament/cup/report")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert r.text == cli(club.served.db, "tournament", "report", "cup")
    for d in phones:
        assert own_errors(d) == []
        assert outside(requests(d), club.url) == []


def test_the_pages_speak_russian_to_a_russian_browser_and_english_otherwise(club: Club) -> None:
    club.game("lang")
    ru = httpx.get(f"{club.url}/watch/lang", headers={"Accept-Language": "ru-RU,ru;q=0.9"}, timeout=WAIT).text
    en = httpx.get(f"{club.url}/watch/lang", headers={"Accept-Language": "de-DE,en;q=0.5"}, timeout=WAIT).text
    assert '<html lang="ru">' in ru and "Кто кому платит" in ru and "гора" in ru
    assert '<html lang="en">' in en and "Who pays whom" in en
    chosen = httpx.get(f"{club.url}/score/lang?lang=ru", headers={"Accept-Language": "en"}, timeout=WAIT).text
    assert "Записать раздачу" in chosen and "распасы" in chosen and "мизер" in chosen
    data = json.loads(re.search(r'<script type="application/json" id="page-data">(.*?)</script>', chosen,
                                re.S).group(1))  # type: ignore[union-attr]
    assert data["texts"]["half_whist"] == "полвиста" and data["texts"]["whist"] == "вист"
    assert data["texts"]["pass"] == "пас" and data["texts"]["pulya"] == "пуля"


def test_no_page_has_inline_script_or_style(club: Club) -> None:
    """Every page's script and style is a file of the service (CSP script-src 'self')."""
    club.game("csp")
    for path in ("/", "/score/csp", "/watch/csp", "/signin", "/arbiter", "/arbiter/game/csp", "/director",
                 "/director/csp-cup", "/tournament/csp-cup", "/club"):
        r = httpx.get(club.url + path, timeout=WAIT)
        assert r.status_code == 200, path
        assert "script-src 'self'" in r.headers["content-security-policy"]
        html = r.text
        assert re.findall(r"<script(?![^>]*\b(?:src=\"/static/|type=\"application/json\"))", html) == [], path
        assert "<style" not in html and " style=" not in html, path
        assert re.findall(r"<[^>]+\son[a-z]+=", html) == [], path


def test_the_club_rating_a_players_page_and_the_covering_checkpoint(club: Club, tmp_path: Path) -> None:
    db = club.served.db
    club.game("rated", pulya=4)
    for k in range(20):
        state = club.state("rated")
        if state["over"]:
            break
        club.record("rated", WIN, f"club-deal-{k:02d}", again=True)
    assert club.state("rated")["over"]
    page = httpx.get(f"{club.url}/club", timeout=WAIT).text
    rating = json.loads(cli(db, "rating", "--json"))
    for p in rating["players"]:
        assert f'data-player="{p["player"]}"' in page and f'{p["rating"]:.2f}' in page
    assert page.count('class="spark"') == len(rating["players"])
    player = httpx.get(f"{club.url}/club/player/Anna", timeout=WAIT)
    assert player.status_code == 200 and "rating-chart" in player.text and 'data-game="rated"' in player.text
    # Why the rating moved, each count a link to its deals (each linked to its sheet), whists as numbers;
    # the deals on a page of their own, not all of them in the player's page.
    assert 'id="moves"' in player.text and "expected" in player.text
    links = re.findall(r'<td class="num count"><a href="(/club/player/Anna/number/[^"]+)">(\d+)</a>', player.text)
    assert links and 'class="refs"' not in player.text
    stats = json.loads(cli(db, "stats", "Anna", "--json"))
    for link, count in links:
        number = unquote(link.rpartition("/")[2])
        deals = httpx.get(f"{club.url}{link}", timeout=WAIT)
        assert deals.status_code == 200 and f'data-number="{number}"' in deals.text
        rows = deals.text.partition("<tbody>")[2].partition("</tbody>")[0].count("<tr>")
        behind = json.loads(cli(db, "stats", "Anna", number, "--deals", "--json"))["deals"]
        assert rows == len(behind) > 0 and int(count) == stats["numbers"][number]["count"]
    assert 'href="/watch/rated"' in httpx.get(f"{club.url}{links[0][0]}", timeout=WAIT).text
    assert httpx.get(f"{club.url}/club/player/Anna/number/no.such", timeout=WAIT).status_code == 404
    numbers = player.text.partition('<section id="numbers">')[2].partition("</section>")[0]
    cells = re.findall(r'class="num whists">([^<]*)</td>', numbers)
    assert any(cells) and all(re.fullmatch(r"(-?\d+(\.\d+)?)?", c) for c in cells), cells  # numbers, or blank
    assert httpx.get(f"{club.url}/club/player/Nobody", timeout=WAIT).status_code == 404
    # No checkpoint yet: none shown; once one covers the game, its caption and note.
    assert 'id="checkpoint"' not in httpx.get(f"{club.url}/watch/rated", timeout=WAIT).text
    key = tmp_path / "club.key"
    cli(db, "keygen", "club.example/pulka", "--out", str(key))
    note = cli(db, "checkpoint", "--key", str(key))
    watch = httpx.get(f"{club.url}/watch/rated", timeout=WAIT).text
    assert 'id="checkpoint"' in watch
    first_line = note.strip().splitlines()[0]
    assert first_line in watch
