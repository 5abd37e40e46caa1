"""Keystrokes of a 17-deal Sochi evening (issue 20), typed both ways in ``pulka play``:
before, each deal as the whole line (the auction as it was said, the contract, the
calls, the tricks from the forehand); after, as its outcome (the declarer, the
contract, the calls, the tricks the declarer's first; raspasy and misère short). Where
the declarer does not lead, the counts would read for other players in the other
order, so his count is marked (``7*``, issue 32: a line read one way only, never asked
about; 4 of the 17 deals). A keystroke is a character of the line, and Enter.
``tests/test_keystrokes.py`` records both evenings, none of them asked about, and checks
that they give the same sheet deal by deal.

On the phone (issue 31), the same evening is tapped on the scorer's page
(``/score/GAME``) in headless Chromium at 390×844: each deal as the table calls it
(what was played, who played it, the defence's calls, the tricks), read from the deal
as the desk stores its outcome line (``touches``). A tap is a click on one of the
page's controls, made only when the page does not already show what the deal needs (a
count the page filled in — the declarer's as the contract made, the last of ten — is
not tapped; a wrong one is), and Record. The taps are counted as they are made, and
the test checks that what the page stored is the sheet of the typed evening, so a
count is never lower than what the page really needs. Targets: at most 5 taps a plain
deal on average, at most 4 for raspasy and misère.

    python bench/keystrokes.py [--phone]
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PLAYERS = ("Anna", "Boris", "Vera")  # Vera deals first, Anna leads
PULYA = 30

# (the whole line, as typed before; the outcome, as typed now), deal by deal.
EVENING: tuple[tuple[str, str], ...] = (
    ("6S pass pass | 6S | whist whist | 6 2 2", "Anna 6S w w 6 2 2"),
    ("6S 6C pass 6D pass | 7D | whist pass | 7 2 1", "Boris 7D w p 7 2 1"),
    ("pass pass pass | 4 3 3", "rasp 4 3 3"),
    ("pass pass misere | misere | 0", "Vera miz 0"),
    ("pass pass 8S | 8S | pass pass", "Anna 8S p p"),
    ("6H pass pass | 6H | whist whist | 5 3 2", "Vera 6H w w 5 3 2"),
    ("6S 7S pass pass | 7S | whist pass | 2 7* 1", "Boris 7S w p 7* 1 2"),
    ("pass pass pass | 2 5 3", "rasp 2 5 3"),
    ("pass 6NT pass | 6NT | whist whist | 3 6* 1", "Anna 6NT w w 6* 1 3"),
    ("pass 6C pass | 6C | pass half_whist", "Boris 6C p hw"),
    ("pass 9H pass | 9H | whist pass | 1 9* 0", "Vera 9H w p 9* 0 1"),
    ("pass misere pass | misere | 2", "Anna miz 2"),
    ("7H pass pass | 7H | whist whist | 8 1 1", "Anna 7H w w 8 1 1"),
    ("pass pass pass | 3 3 4", "rasp 3 3 4"),
    ("pass pass 6D | 6D | whist whist | 2 2 6*", "Boris 6D w w 6* 2 2"),
    ("pass pass 8D | 8D | pass pass", "Vera 8D p p"),
    ("6S pass pass | 6S | whist whist | 4 3 3", "Boris 6S w w 4 3 3"),
)


def keystrokes(lines: list[str]) -> int:
    """The keys a scorer presses for ``lines``: each character, and Enter."""
    return sum(len(line) + 1 for line in lines)


@dataclass
class Touch:
    """A deal as the table calls it on the phone: what was played (``6S``, ``misere``,
    ``raspasy``), who played it, each defender's call and each player's tricks, by name."""

    contract: str
    declarer: str | None = None
    calls: dict[str, str] = field(default_factory=dict)
    tricks: dict[str, int] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.contract if self.contract in ("raspasy", "misere") else "plain"


def touch_of(story: str) -> Touch:
    """A deal as the desk tells it with names (``Anna 6S, Boris pass, Vera pass | Anna 6S
    | Boris whist, Vera whist | Anna 6, Boris 2, Vera 2``) as the table calls it."""
    parts = [[item.rsplit(" ", 1) for item in part.split(", ")] for part in story.split(" | ")]
    if len(parts) == 2:  # raspasy: the passes, the tricks
        return Touch("raspasy", tricks={who: int(n) for who, n in parts[1]})
    (declarer, contract), = parts[1]
    if contract == "misere":
        return Touch("misere", declarer, tricks={who: int(n) for who, n in parts[2]})
    tricks = {who: int(n) for who, n in parts[3]} if len(parts) > 3 else {}
    return Touch(contract, declarer, calls={who: call for who, call in parts[2]}, tricks=tricks)


def touches() -> list[Touch]:
    """The evening's deals as the table calls them: each outcome line recorded by the
    scorer's desk (in a store of its own), and told back with names."""
    from ledger.application import Ledger
    from ledger.desks.pulka import PulkaDesk
    from ledger.store.event_store import Store

    with tempfile.TemporaryDirectory() as where, Store(str(Path(where) / "touches.db")) as store:
        desk = PulkaDesk(Ledger(store))
        desk.new("evening", PLAYERS, pulya=PULYA)
        return [touch_of(desk.deal("evening", new).deals[0][1]) for _old, new in EVENING]


def tap_deal(driver: Any, touch: Touch) -> int:
    """One deal tapped on the scorer's page; the taps it took (see the module's docstring)."""
    from selenium.webdriver.common.by import By

    taps = 0

    def tap(css: str) -> None:
        nonlocal taps
        element = driver.find_element(By.CSS_SELECTOR, css)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()
        taps += 1

    def chosen(css: str) -> bool:
        return bool(driver.find_elements(By.CSS_SELECTOR, css + ".chosen"))

    tap(f'#contracts button[data-contract="{touch.contract}"]')
    if touch.declarer is not None:
        tap(f'#declarers button[data-player="{touch.declarer}"]')
    rows = [r.get_attribute("data-player") for r in driver.find_elements(By.CSS_SELECTOR, ".call-row[data-player]")]
    pair = " ".join(touch.calls.get(d, "") for d in rows)
    if touch.calls and driver.find_elements(By.CSS_SELECTOR, f'button[data-calls="{pair}"]'):
        tap(f'button[data-calls="{pair}"]')
    else:
        for player, call in touch.calls.items():
            tap(f'.call-row[data-player="{player}"] button[data-call="{call}"]')
    order = [touch.declarer] if touch.declarer in touch.tricks else []
    for player in [*order, *(p for p in touch.tricks if p != touch.declarer)]:
        css = f'.trick-row[data-player="{player}"] button[data-count="{touch.tricks[player]}"]'
        if not chosen(css):
            tap(css)
    tap("#record")
    return taps


def phone_taps(driver: Any, version: Any, evening: list[Touch]) -> list[int]:
    """The evening tapped deal by deal on the page ``driver`` holds open; ``version()``
    is the table's version as the service says it (each deal is stored before the next)."""
    from selenium.webdriver.support.ui import WebDriverWait

    counts = []
    for touch in evening:
        before = version()
        counts.append(tap_deal(driver, touch))
        WebDriverWait(driver, 20, poll_frequency=0.05).until(
            lambda d: version() > before and d.execute_script(
                "return document.body.getAttribute('data-version') === String(arguments[0]);", version()))
    return counts


def averages(evening: list[Touch], counts: list[int]) -> dict[str, float]:
    """Taps a deal on average: plain deals, raspasy, misère."""
    out = {}
    for kind in ("plain", "raspasy", "misere"):
        mine = [n for touch, n in zip(evening, counts) if touch.kind == kind]
        out[kind] = sum(mine) / len(mine)
    return out


def served_phone() -> list[int]:  # pragma: no cover: the command line's run; the test has its own service
    """A ``pulka serve`` on a new store, a table's link, headless Chromium at 390×844."""
    import time

    import httpx
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as Driver

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from serving import Served, account, sign_in

    with tempfile.TemporaryDirectory() as where:
        db = str(Path(where) / "phone.db")
        account(db, "dora", "director")
        served = Served(db, Path(where) / "serve.log", budget=None)  # the service as a club runs it
        options = webdriver.ChromeOptions()
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=390,844"):
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Driver("/usr/bin/chromedriver"))
        try:
            http = served.http()
            headers = sign_in(http, "dora")
            http.post("/api/games", json={"id": "phone-new", "game": "evening", "players": list(PLAYERS),
                                          "pulya": PULYA}, headers=headers).raise_for_status()
            token = http.post("/api/games/evening/tokens", json={"holder": "Anna"}, headers=headers).json()["token"]
            driver.get(f"{served.url}/score/evening#token={token}")
            deadline = time.monotonic() + 20
            while driver.execute_script("return document.body.getAttribute('data-version');") is None:
                assert time.monotonic() < deadline, "the page did not load"
                time.sleep(0.05)  # a poll of a condition, bounded by the deadline
            return phone_taps(driver, lambda: httpx.get(f"{served.url}/api/games/evening").json()["version"],
                              touches())
        finally:
            driver.quit()
            served.stop()


def main() -> None:
    before = [old for old, _ in EVENING]
    after = [new for _, new in EVENING]
    for name, lines in (("before (the whole deal)", before), ("after (the outcome)", after)):
        each = [len(line) + 1 for line in lines]
        print(f"{name:24} {keystrokes(lines):4} keystrokes, {keystrokes(lines) / len(lines):.1f} a deal "
              f"({min(each)}-{max(each)})")
    print(f"saved: {1 - keystrokes(after) / keystrokes(before):.0%}")
    if "--phone" in sys.argv[1:]:
        counts = served_phone()
        for kind, mean in averages(touches(), counts).items():
            target = 5 if kind == "plain" else 4
            print(f"phone, {kind:8} {mean:.2f} taps a deal (target at most {target})")
        print(f"phone, the evening: {sum(counts)} taps for {len(counts)} deals: {counts}")


if __name__ == "__main__":
    main()
