"""Russian throughout (issue 31, finding 7): a club's evening kept in Russian, then every
page of ``pulka serve`` read in Russian in Chromium at a phone's size (its text, the
placeholders, titles and options, the drawn sheets, a deal pushed live) and the output
of the commands a club uses read with ``--lang ru``; each must hold no English word but
a short list: what is typed (a deal point ``deal:3``), the program's name, the link to
the English page. Players' names are Cyrillic here, so a name is never mistaken for an
English word, and a contract written in the log's letters (``6S``, ``9NT``) counts as
English: in Russian it is ``6♠``, ``9БК``.

The check found, before the fixes it came with: the contracts (6NT beside buttons saying
6БК), ``[Code 4.2.8]``, the audit trail's kinds, the placeholders' English names and
words, the statistics' keys, the tournament report's frame, ``scorer:``/``arbiter:``
before a name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from click.testing import CliRunner

from cli.main import main
from tests.serving import WAIT, Served, account

try:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover: selenium is in the test extras
    pass

# The subject is what a reader is told, not the store: SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only

PASSWORD = "correct horse battery"
GAME = "вечер"
TOURNAMENT = "весна"
# What may be Latin in a Russian text: the program's name, the link to the English page,
# a QR code's name, a time zone.
ALLOWED = {"pulka", "English", "QR", "UTC", "PDF"}
# What is typed, and so stays as it is typed: a point (deal:3), an address, a path, a
# rule parameter's key (gora_whist_multiplier, [tournament.tie_breaks, docs/…]) or a
# number's (contracts.6S.made), a quoted value, a command or option, a time zone, a
# rating model with its parameters (whists-per-deal, prior=2), a stream (@accounts).
TYPED = re.compile(r"\bdeal:\d+|https?://\S+|(?<!\w)/[\w./-]+|\[[a-z_.]+, docs/[\w./-]+\]|`[^`]*`|--[a-z-]+"
                   r"|\b[a-z]+(?:_[a-z]+)+\b|\b[a-z]+(?:\.[\w-]+)+|\"[^\"\n]*\"|\bEtc/\w+|\b[A-Z][a-z]+/[A-Z][a-z_]+\b"
                   r"|\b[a-z]+(?:-[a-z]+)+\b|\b[a-z]+=[\w.]+|@\w+")
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
LATIN_CONTRACT = re.compile(r"(?<![\w=])(?:[6-9]|10)(?:NT|S|C|D|H)\b")


def english(text: str, also: frozenset[str] = frozenset()) -> list[str]:
    """The English words of ``text``, and its contracts in the log's letters, left out what
    ``TYPED`` matches and the words of ``ALLOWED`` and ``also``."""
    text = TYPED.sub(" ", text)
    found = sorted(set(LATIN_CONTRACT.findall(text)) | {m.group(0) for m in LATIN_CONTRACT.finditer(text)})
    for word in WORD.findall(text):
        if word.isascii() and len(word) > 1 and word not in ALLOWED and word not in also:
            found.append(word)
    return sorted(set(found))


def cli(db: str | None, *args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", "ru", *args, *(["--db", db] if db else [])], catch_exceptions=False)
    assert result.exit_code == 0, (args, result.output)
    return result.output


# An evening: deals of every kind, a number by hand, the pencil put down, a correction;
# a tournament with a deal played at its first table.
EVENING = [
    ("new", GAME, "--players", "Анна,Борис,Вера", "--pulya", "10", "--stake", "0.10"),
    ("deal", GAME, "Анна 6♠ вист вист 6 2 2"),
    ("deal", GAME, "Борис 7♥ вист пас 7 2 1"),
    ("entry", GAME, "Вера", "whists", "4", "--on", "Борис"),
    ("pencil", GAME, "Вера"),
    ("deal", GAME, "распасы 2 5 3"),
    ("deal", GAME, "Анна мизер 0"),
    ("correct", GAME, "deal:4", "Анна=1", "--yes"),
    ("deal", GAME, "Вера 6БК пас пас"),
    ("entry", GAME, "Вера", "whists", "3", "--on", "Анна", "--deal", "1", "--by", "Вера"),  # too late [Code 4.2.10]
    ("penalty", GAME, "Борис", "gora", "4", "--reason", "подглядел в прикуп", "--by", "arbiter:Игорь"),
    ("tournament", "new", TOURNAMENT, "--players", "Анна,Борис,Вера,Глеб,Дина,Егор", "--pulya", "4",
     "--table-size", "3", "--tours", "2", "--deal-cap", "6"),
    ("tournament", "seat", TOURNAMENT, "1", "1", "Анна,Борис,Вера"),
    ("tournament", "seat", TOURNAMENT, "1", "2", "Глеб,Дина,Егор"),
    ("tournament", "start", TOURNAMENT, "1"),
    ("deal", f"{TOURNAMENT}/1/1", "Анна 6♠ вист вист 6 2 2"),
]
# What a club reads at the terminal, in Russian.
READS = [
    ("sheet", GAME), ("sheet", GAME, "--deal", "2"), ("settle", GAME), ("log", GAME), ("log", GAME, "--verdicts"),
    ("explain", GAME, "Анна.whists.Борис"), ("diff", GAME, "deal:1", "deal:3"), ("games",), ("players",),
    ("player", "Анна"), ("rating",), ("stats", "Анна"), ("verify", GAME),
    ("tournament", "standings", TOURNAMENT), ("tournament", "log", TOURNAMENT), ("tournament", "list"),
]


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The evening's store, served, with a director and a table's link held by Маша."""
    where = tmp_path_factory.mktemp("russian")
    db = str(where / "pulka.db")
    told = [cli(db, *command) for command in EVENING]
    account(db, "директор", "director")
    served = Served(db, where / "serve.log")
    try:
        http = served.http()
        csrf = http.get("/api/session").json()["csrf"]
        r = http.post("/api/session", json={"name": "директор", "password": PASSWORD}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
        headers = {"X-CSRF-Token": r.json()["csrf"]}
        r = http.post(f"/api/games/{quote(GAME)}/tokens", json={"holder": "Маша"}, headers=headers)
        assert r.status_code == 201, r.text
        yield {"db": db, "served": served, "told": told, "token": r.json()["token"], "http": http, "headers": headers}
    finally:
        served.stop()


# Typed as they are: the presets' names and the words of their parameters' values
# (``pulka rules``), the statistics' keys (``pulka stats NAME NUMBER``).
PRESETS = frozenset({"sochi", "leningrad", "rostov", "classic"})
RULE_VALUES = frozenset({"true", "false", "greedy", "gentleman", "full", "half", "whists", "help", "consolation", "min"})


def test_every_command_a_club_reads_says_it_in_russian(evening: dict[str, Any]) -> None:
    from projections.stats import FIXED

    said = {" ".join(command): out for command, out in zip(EVENING, evening["told"])}
    for command in READS:
        said[" ".join(command)] = cli(evening["db"], *command)
    leftovers = {command: found for command, out in said.items()
                 if (found := english(out, frozenset(FIXED) if command.startswith("stats") else frozenset()))}
    for command in (("rules",), ("rules", "sochi")):  # no store
        if found := english(cli(None, *command), PRESETS | RULE_VALUES):
            leftovers[" ".join(command)] = found
    assert leftovers == {}


# -- the pages ------------------------------------------------------------------------------------

# Counts the requests a page has in flight, so that a page is read once it has settled
# (its documents fetched and drawn), not after a sleep.
IN_FLIGHT = """
window.__inFlight = 0;
var fetched = window.fetch;
window.fetch = function () {
  window.__inFlight += 1;
  return fetched.apply(this, arguments).finally(function () { window.__inFlight -= 1; });
};
"""
# Everything of a page a person reads: its text with every <details> open, and the texts
# of its placeholders, titles, labels, options and images.
READ_PAGE = """
document.querySelectorAll("details").forEach(function (d) { d.open = true; });
var parts = [document.title, document.body.innerText];
document.querySelectorAll("[placeholder], [title], [aria-label], [alt], option").forEach(function (e) {
  ["placeholder", "title", "aria-label", "alt"].forEach(function (a) { if (e.getAttribute(a)) parts.push(e.getAttribute(a)); });
  if (e.tagName === "OPTION") parts.push(e.textContent);
});
return parts.join("\\n");
"""


def settled(driver: WebDriver, versioned: bool) -> bool:
    state = driver.execute_script("return [document.readyState, window.__inFlight, document.body.dataset.version];")
    return bool(state[0] == "complete" and state[1] == 0 and (state[2] or not versioned))


def read(driver: WebDriver, url: str, versioned: bool) -> str:
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: settled(d, versioned))
    text: str = driver.execute_script(READ_PAGE)
    return text


def test_every_page_says_it_in_russian(phones: tuple[WebDriver, WebDriver], evening: dict[str, Any]) -> None:
    driver = phones[0]
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": IN_FLIGHT})
    base = evening["served"].url
    token = evening["token"]
    game, tournament = quote(GAME), quote(TOURNAMENT)
    pages: dict[str, tuple[str, bool]] = {
        "home": ("/", False), "sign in": ("/signin", False), "club": ("/club", False),
        "player": (f"/club/player/{quote('Анна')}", False), "spectators": (f"/watch/{game}", True),
        "tournament table": (f"/watch/{tournament}/1/1", True), "tournament": (f"/tournament/{tournament}", True),
    }
    texts = {name: read(driver, f"{base}{path}?lang=ru", versioned) for name, (path, versioned) in pages.items()}
    # every number of every player's statistics that has deals behind it: its own page
    for player in ("Анна", "Борис", "Вера"):
        driver.get(f"{base}/club/player/{quote(player)}?lang=ru")
        links = driver.execute_script("return Array.from(document.querySelectorAll('#stats-table a'))"
                                      ".map(a => a.getAttribute('href'));")
        assert len(links) > 10, (player, links)
        texts.update({f"{player}: {link}": read(driver, base + link, False) for link in links})
    assert {"Вера: errors.late", "Борис: penalties"} <= {name.partition("/number/")[0].split(":")[0] + ": " +
                                                        name.partition("/number/")[2].partition("?")[0]
                                                        for name in texts if "/number/" in name}
    texts["scorer"] = read(driver, f"{base}/score/{game}?lang=ru#token={token}", True)
    # a deal recorded now reaches the scorer's page by the live stream, in Russian
    version = int(driver.execute_script("return document.body.dataset.version;"))
    r = evening["http"].post(f"/api/games/{game}/deal", json={"id": "crawl-deal-0001", "version": version,
                                                               "line": "Борис 7♣ пас вист 7* 1 2"},
                             headers=evening["headers"])
    assert r.status_code == 201, r.text
    pushed = r.json()["state"]["version"]
    WebDriverWait(driver, WAIT).until(
        lambda d: int(d.execute_script("return document.body.dataset.version;")) >= pushed and settled(d, True))
    texts["scorer, after a deal pushed live"] = driver.execute_script(READ_PAGE)
    sign_in = ("var done = arguments[0]; fetch('/api/session').then(r => r.json()).then(j => fetch('/api/session', "
               "{method: 'POST', headers: {'X-CSRF-Token': j.csrf, 'Content-Type': 'application/json'}, "
               f"body: JSON.stringify({{name: 'директор', password: '{PASSWORD}'}})}})).then(r => done(r.status));")
    assert driver.execute_async_script(sign_in) == 200
    signed = {"arbiter": ("/arbiter", False), "arbiter's desk": (f"/arbiter/game/{game}", True),
              "director": ("/director", False), "director's tournament": (f"/director/{tournament}", True),
              "account": ("/account", False)}
    texts.update({name: read(driver, f"{base}{path}?lang=ru", versioned) for name, (path, versioned) in signed.items()})
    with httpx.Client(base_url=base, timeout=WAIT) as http:
        for name, path in (("drawn sheet", f"/api/games/{game}/sheet.svg"),
                           ("tournament table's drawn sheet", f"/api/games/{tournament}/1/1/sheet.svg")):
            svg = http.get(path + "?lang=ru").text
            texts[name] = "\n".join(re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>.*?</text>", svg))
    ids = frozenset(WORD.findall(token.partition(".")[0]))  # the table's link's number, shown on the desk
    leftovers = {name: found for name, text in texts.items() if (found := english(text, ids))}
    assert leftovers == {}


def test_the_tournament_report_says_it_in_russian(browser: WebDriver, evening: dict[str, Any], tmp_path: Path) -> None:
    """The report a director downloads, opened as a file: its frame and its sheets."""
    r = httpx.get(f"{evening['served'].url}/tournament/{quote(TOURNAMENT)}/report?lang=ru", timeout=WAIT)
    assert r.status_code == 200, r.text
    page = tmp_path / "report.html"
    page.write_bytes(r.content)
    browser.get(page.as_uri())
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script("return document.readyState;") == "complete")
    text = browser.execute_script(READ_PAGE) + "\n".join(
        browser.execute_script("return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent);"))
    assert english(text) == []
