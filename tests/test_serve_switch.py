"""The interpreter's switch interval of a served process (``pulka serve --switch-interval``).

A write spends most of its time waiting on the store with the interpreter's lock let go;
coming back, it waits for the thread holding the lock up to the switch interval. The
service shortens it (web/process.py ``SWITCH_INTERVAL``) so that an anonymous reader drawing
sheets cannot add Python's default 5 ms to each of a write's round trips.
"""

from __future__ import annotations

import gc
import subprocess
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
    gc.unfreeze()  # app_from_settings froze this process's heap too


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


def test_a_served_process_starts_with_its_drawings_imported_and_its_start_up_out_of_the_collectors_reach(
        tmp_path: Path) -> None:
    """What the first reader of a drawing would import is imported before any request, and
    what start-up made is frozen: a full collection while scoring (which stops every
    thread, writes in flight too) does not scan it again and again."""
    from web.process import COLLECTOR, WARM

    code = ("import sys, gc; from web.serve import Options, app_from_settings, settings_of; "
            f"app_from_settings(settings_of({str(tmp_path / 'club.db')!r}, Options())); "
            "print(gc.get_freeze_count()); print(' '.join(sorted(set(sys.argv[1:]) - set(sys.modules)))); "
            "print(*gc.get_threshold())")
    done = subprocess.run([sys.executable, "-c", code, *WARM], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    frozen, missing, thresholds = (done.stdout.splitlines() + ["", "", ""])[:3]
    assert missing == ""  # every module of WARM imported at start-up
    assert int(frozen) > 10_000  # the modules, classes and functions of start-up, frozen
    assert tuple(map(int, thresholds.split())) == COLLECTOR != (700, 10, 10)  # full collections rarer than Python's
