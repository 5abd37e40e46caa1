"""What a club puts on the table, in a real browser at a phone's size against a real
``pulka serve`` (issue 31, findings 1 and 10): the arbiter's desk at a table shows the two
QR codes, the table's scorer link (issued for ``scorer:Masha``, as the README writes a
scorer) and the spectators' page, each the code of its link; explain's table has its
headings; a deal list says each deal's number once."""

from __future__ import annotations

from urllib.parse import unquote

from projections.drawing.qr import qr_svg
from test_web_desks import sign_in_page
from test_web_pages import Club, By, WebDriver, club, own_errors, tap, text_of, wait
from web.pages import qr_data_uri

__all__ = ["club"]  # the fixture: this module's own service

DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
SVG_URI = "data:image/svg+xml;charset=utf-8,"


def inside_the_phone(driver: WebDriver, css: str) -> bool:
    """Whether the element is shown whole within the phone's width."""
    box = driver.execute_script("var r = document.querySelector(arguments[0]).getBoundingClientRect();"
                                "return [r.left, r.right, r.width, document.documentElement.clientWidth];", css)
    return bool(box[2] > 0 and box[0] >= 0 and box[1] <= box[3])


def test_the_arbiters_desk_shows_the_scorers_and_the_spectators_qr_codes(
        phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    desk = phones[0]
    club.game("codes")
    club.record("codes", DEAL, "codes-deal-1")
    sign_in_page(desk, club, "igor", "/arbiter/game/codes")
    wait(desk, lambda d: d.find_element(By.ID, "desk").is_displayed())
    # The spectators' page and its code, there from the start.
    watch = f"{club.url}/watch/codes"
    assert desk.find_element(By.ID, "watch-link").get_attribute("href") == watch
    assert desk.find_element(By.ID, "watch-qr").get_attribute("src") == qr_data_uri(watch)
    assert qr_data_uri(watch) != qr_data_uri(f"{club.url}/")  # a code that says which page
    # The table's link, for a scorer named as the README writes him.
    desk.find_element(By.ID, "t-holder").send_keys("scorer:Masha")
    tap(desk, "#t-issue")
    link = wait(desk, lambda d: (d.find_element(By.ID, "token-link").get_attribute("href") or "").count("#token=")
                and d.find_element(By.ID, "token-link").get_attribute("href"))
    assert link.startswith(f"{club.url}/score/codes#token=")
    assert "Masha (scorer)" in text_of(desk, "token-by")  # scorer:Masha, as the pages show a role
    src = desk.find_element(By.CSS_SELECTOR, "#token-qr img").get_attribute("src") or ""
    assert src.startswith(SVG_URI) and unquote(src[len(SVG_URI):]) == qr_svg(link)
    for css in ("#token-qr img", "#watch-qr"):
        desk.execute_script("document.querySelector(arguments[0]).scrollIntoView();", css)
        assert desk.find_element(By.CSS_SELECTOR, css).is_displayed() and inside_the_phone(desk, css), css
    # Explain's table says what each column is.
    desk.find_element(By.CSS_SELECTOR, '#explain-cell option[value="Anna.pulya"]').click()
    tap(desk, "#explain-go")
    wait(desk, lambda d: d.find_elements(By.CSS_SELECTOR, "#explain-rows tr"))
    headings = [th.get_attribute("textContent") for th in desk.find_elements(By.CSS_SELECTOR, "#explain-table thead th")]
    cells = desk.find_elements(By.CSS_SELECTOR, "#explain-rows tr:first-child td")
    assert headings == ["event", "what", "deal", "amount", "total", "why", "recorded by", "corrected by"]
    assert len(cells) == len(headings)
    assert own_errors(desk) == []


def test_a_deal_list_says_each_deals_number_once(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    page = phones[0]
    club.game("numbers")
    for n in range(1, 3):
        club.record("numbers", DEAL, f"numbers-deal-{n}", again=n > 1)
    page.get(f"{club.url}/watch/numbers")
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#deals li")) == 2)
    items = page.find_elements(By.CSS_SELECTOR, "#deals li")
    assert [li.text.split(" ")[0] for li in items] == ["2.", "1."]  # its own number, in its text
    # and no list marker drawn before it ("2. 2. 6♠"): the list draws none
    markers = page.execute_script("return Array.from(document.querySelectorAll('#deals li')).map("
                                  "li => getComputedStyle(li).listStyleType);")
    assert markers == ["none", "none"]
