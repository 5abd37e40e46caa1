"""The interpreter's switch interval of a served process (``pulka serve --switch-interval``).

A write spends most of its time waiting on the store with the interpreter's lock let go;
coming back, it waits for the thread holding the lock up to the switch interval. The
service shortens it (web/serve.py ``SWITCH_INTERVAL``) so that an anonymous reader drawing
sheets cannot add Python's default 5 ms to each of a write's round trips.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from web.serve import SWITCH_INTERVAL, Options, app_from_settings, settings_of

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def switch_restored() -> Iterator[None]:
    was = sys.getswitchinterval()
    yield
    sys.setswitchinterval(was)


def test_a_served_process_takes_the_services_switch_interval(tmp_path: Path, switch_restored: None) -> None:
    db = str(tmp_path / "club.db")
    sys.setswitchinterval(0.005)
    app_from_settings(settings_of(db, Options()))
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    assert SWITCH_INTERVAL < 0.005  # shorter than Python's own


def test_the_switch_interval_is_the_one_asked_for(tmp_path: Path, switch_restored: None) -> None:
    db = str(tmp_path / "club.db")
    app_from_settings(settings_of(db, Options(switch_interval=0.002)))
    assert sys.getswitchinterval() == pytest.approx(0.002)
