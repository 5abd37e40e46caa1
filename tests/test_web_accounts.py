"""Accounts in a real browser, at a phone's size, against a real ``pulka serve`` (as
``test_web_pages.py``): after a real sign-in the page goes to a path of the service and
never to another site; a director makes, disables and removes an account on his page,
each change in the log beside them; a person changes his own password (his other
sessions end), enrols an authenticator app by its QR code and signs in with a recovery
code.

The module's own service (``test_web_pages.club``) and the test process's two browsers
(conftest.py's ``phones``, cleaned for each test); each test makes the accounts it
changes, so that none depends on another's.
"""

from __future__ import annotations

import time

import pytest

import browsers
from serving import PASSWORD
from test_web_pages import Club, By, WebDriver, club, own_errors, tap, text_of, wait
from web.second_factor import code_at

__all__ = ["club"]  # the fixture: this module's own service


def arbiter(club: Club, name: str) -> None:
    """A new arbiter ``name`` with the suite's password, made by the club's director."""
    r = club.http.post("/api/accounts", json={"name": name, "password": PASSWORD, "role": "arbiter"},
                       headers=club.headers)
    assert r.status_code == 201, r.text


def signed_in(driver: WebDriver, club: Club, name: str, password: str, then: str) -> None:
    driver.get(f"{club.url}/signin?next={then}")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(password)
    tap(driver, "#signin")


@pytest.mark.parametrize("wanted", ["/%09/evil.example", "//evil.example", "/%5C%5Cevil.example"])
def test_after_a_real_sign_in_the_page_stays_on_the_service(phones: tuple[WebDriver, WebDriver], club: Club,
                                                           wanted: str) -> None:
    driver = phones[0]
    signed_in(driver, club, "igor", PASSWORD, wanted)
    wait(driver, lambda d: d.current_url.startswith(club.url + "/arbiter"))
    assert "evil" not in driver.current_url


def test_a_director_makes_disables_and_removes_an_account(phones: tuple[WebDriver, WebDriver], club: Club) -> None:
    driver = phones[0]
    signed_in(driver, club, "dora", PASSWORD, "/director")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#accounts tr[data-account='igor']"))
    driver.find_element(By.ID, "a-name").send_keys("olga")
    driver.find_element(By.ID, "a-password").send_keys("short")
    tap(driver, "#a-create")
    wait(driver, lambda d: "12" in d.find_element(By.CSS_SELECTOR, "#new-account [data-field='password'] .error").text)
    password = driver.find_element(By.ID, "a-password")
    password.clear()
    password.send_keys("a fine long passphrase")
    tap(driver, "#a-create")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#accounts tr[data-account='olga']"))
    tap(driver, "#accounts tr[data-account='olga'] button.disable")
    wait(driver, lambda d: "disabled" in d.find_element(By.CSS_SELECTOR, "#accounts tr[data-account='olga'] .marks")
         .text)
    tap(driver, "#accounts tr[data-account='olga'] button.remove")
    driver.switch_to.alert.accept()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#accounts tr[data-account='olga']"))
    log = text_of(driver, "account-log")
    assert "account_created olga" in log and "account_removed olga" in log and "dora (arbiter)" in log  # who, said
    # the director does not lock himself out
    tap(driver, "#accounts tr[data-account='dora'] button.disable")
    wait(driver, lambda d: "his own account" in text_of(d, "account-actions"))
    assert own_errors(driver) == []


def test_a_person_changes_his_password_and_enrols_a_second_factor(phones: tuple[WebDriver, WebDriver],
                                                                  club: Club) -> None:
    me, elsewhere = phones
    arbiter(club, "ivan")
    signed_in(elsewhere, club, "ivan", PASSWORD, "/arbiter")
    wait(elsewhere, lambda d: d.current_url.startswith(club.url + "/arbiter"))
    signed_in(me, club, "ivan", PASSWORD, "/account")
    wait(me, lambda d: d.find_element(By.ID, "desk").is_displayed())
    me.find_element(By.ID, "o-current").send_keys(PASSWORD)
    me.find_element(By.ID, "o-password").send_keys("my own new passphrase")
    tap(me, "#o-change")
    wait(me, lambda d: d.find_element(By.ID, "o-done").is_displayed())
    elsewhere.refresh()  # the other session has ended
    wait(elsewhere, lambda d: "sign" in (d.find_element(By.ID, "access").text or "").lower())
    tap(me, "#sf-enrol")  # this session goes on
    wait(me, lambda d: d.find_element(By.ID, "sf-secret").text)
    secret = me.find_element(By.ID, "sf-secret").text
    assert me.find_element(By.CSS_SELECTOR, "#sf-qr img").get_attribute("src").startswith("data:image/svg+xml")
    me.find_element(By.ID, "sf-code").send_keys(code_at(secret, time.time()))
    tap(me, "#sf-confirm")
    wait(me, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#sf-code-list li")) == 10)
    recovery = me.find_element(By.CSS_SELECTOR, "#sf-code-list li").text
    assert me.find_element(By.ID, "sf-on").is_displayed()
    # signing in again: the password alone is not enough; a recovery code is
    browsers.clean(elsewhere, browsers.PHONE)
    signed_in(elsewhere, club, "ivan", "my own new passphrase", "/arbiter")
    wait(elsewhere, lambda d: d.find_element(By.ID, "code-field").is_displayed())
    elsewhere.find_element(By.ID, "code").send_keys(recovery)
    tap(elsewhere, "#signin")
    wait(elsewhere, lambda d: d.current_url.startswith(club.url + "/arbiter"))
    assert own_errors(me) == [] and own_errors(elsewhere) == []
