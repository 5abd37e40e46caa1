"""The suite's browsers: Debian's Chromium, headless, driven by selenium through
/usr/bin/chromedriver (``.ci/run`` installs both), started once per test process and
shared by every browser test (conftest.py's ``browser`` and ``phones``).

A browser costs a second or two of CPU to start, so it is not started again for each
module: each test is given it cleaned instead, as a new one would be for what a test
can see: no page of an earlier test open (whose live stream would go on talking to a
service), no cookie (a session signed in by an earlier test), the network back on and
nothing blocked, the screen's media, the size the test asks for, and its logs read. A
page's local storage belongs to its origin, so a test that stores some in a served page
names its games itself (each browser-test module has a service of its own).

Without Chromium or chromedriver every browser test is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = os.environ.get("PULKA_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PULKA_CHROMEDRIVER", "/usr/bin/chromedriver")
NO_BROWSER = (
    f"browser tests skipped: no Chromium at {CHROMIUM} or no chromedriver at {CHROMEDRIVER} "
    "(apt-get install chromium chromium-driver; .ci/run installs them)"
)
PROBE = (Path(__file__).resolve().parent / "probe.js").read_text(encoding="utf-8")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"]
DESKTOP = (1280, 1000)
PHONE = (390, 844)
# What a page fetches over a network or from the disk; chrome:// and data: addresses are
# the browser's own (its pages' icons) or no request at all.
NETWORK = ("http", "https", "file", "ws", "wss")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.remote.webdriver import WebDriver
except ImportError:  # pragma: no cover: selenium is in the test extras
    webdriver = None  # type: ignore[assignment]


def available() -> bool:
    return webdriver is not None and Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


class Chromes:
    """The browsers of one test process, started as they are first asked for."""

    def __init__(self) -> None:
        self.drivers: list[WebDriver] = []
        self.profiles: list[str] = []

    def get(self, count: int, flags: tuple[str, ...] = (), env: dict[str, str] | None = None) -> list[WebDriver]:
        """The first ``count`` browsers, started as needed with more ``flags`` and the
        environment ``env`` (a Chromes of a test's own: the test process's are started
        with neither)."""
        while len(self.drivers) < count:
            profile = tempfile.mkdtemp(prefix="pulka-chromium-")
            self.profiles.append(profile)
            options = webdriver.ChromeOptions()
            for flag in (*FLAGS, *flags):
                options.add_argument(flag)
            options.add_argument(f"--user-data-dir={profile}")
            options.binary_location = CHROMIUM
            options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
            driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER, env=env))
            driver.execute_cdp_cmd("Network.enable", {})
            self.drivers.append(driver)
        return self.drivers[:count]

    def quit(self) -> None:
        for driver in self.drivers:
            driver.quit()
        for profile in self.profiles:
            shutil.rmtree(profile, ignore_errors=True)


def clean(driver: WebDriver, size: tuple[int, int]) -> WebDriver:
    """``driver`` as a test may take it: see the module's docstring."""
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    driver.set_window_size(*size)
    driver.get_log("browser")
    driver.get_log("performance")
    return driver


def console_errors(driver: WebDriver) -> list[Any]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def requests(driver: WebDriver) -> list[str]:
    """The addresses the pages asked the network or the disk for since the log was last
    read (the browser's own chrome:// requests and data: addresses left out)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if urlsplit(url).scheme in NETWORK:
                urls.append(url)
    return urls
