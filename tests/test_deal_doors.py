"""Deal lines that cannot be misread, measured (issue 32): the deals of generated
evenings typed through every door in every form the README gives, and with slips of the
trick order (``deal_doors``). No slip is stored with another sheet unless the scorer
chose it, no line whose two readings write one sheet is asked about, every reading
offered is the other order of what was typed, and no form is refused. Each test prints
its tally (``pytest -s``); ``python bench/deal_lines.py`` measures more evenings."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deal_doors import EVERY_SEAT, Doors, Tally, evening_at_desk, evenings
from ledger.store.event_store import Store
from tests.serving import account, client, sign_in

SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]


def test_at_the_desk_no_slip_is_stored_silently_and_no_line_read_one_way_is_asked() -> None:
    tally = Tally()

    @settings(max_examples=int(os.environ.get("DOORS", 40)), deadline=None, database=None, suppress_health_check=SLOW)
    @given(evenings(), st.randoms(use_true_random=False))
    @example(EVERY_SEAT[0], random.Random(1))
    @example(EVERY_SEAT[1], random.Random(2))
    def evening(log: list[Any], rnd: random.Random) -> None:
        this = Tally()
        with tempfile.TemporaryDirectory() as folder, Store(str(Path(folder) / "pulka.db")) as store:
            evening_at_desk(store, log, this, rnd)
        assert not this.faults(), "\n".join(this.faults()[:5])
        tally.add(this)

    evening()
    print(tally.report())
    assert not tally.silent and not tally.false_alarms
    # Slips were typed, and asked about, on every result, for a declarer second and third
    # from the forehand.
    assert {kind.split()[0] for kind in tally.kinds} == {"made", "failed", "misère"}, tally.kinds
    assert {kind.split()[1] for kind in tally.kinds} == {"2", "3"}, tally.kinds


def test_through_the_command_line_the_session_and_the_service_too() -> None:
    """A few lines of each evening (one typed right that reads two ways, a slip, a form
    drawn) through ``pulka deal``, ``pulka play`` and the API, each on a copy of the game
    before its deal: each asks, or stores the deal's sheet; answered, it stores what was
    meant."""
    tally = Tally()

    @settings(max_examples=int(os.environ.get("OTHER_DOORS", 6)), deadline=None, database=None,
              suppress_health_check=SLOW)
    @given(evenings(), st.randoms(use_true_random=False))
    @example(EVERY_SEAT[0], random.Random(3))
    def evening(log: list[Any], rnd: random.Random) -> None:
        this = Tally()
        with tempfile.TemporaryDirectory() as folder:
            db = str(Path(folder) / "pulka.db")
            with Store(db) as store:
                account(db, "dora", "director")
                with client(db) as c:
                    doors = Doors(db, c, sign_in(c, "dora"))
                    evening_at_desk(store, log, this, rnd, doors)
        assert not this.faults(), "\n".join(this.faults()[:5])
        tally.add(this)

    evening()
    print(tally.report())
    assert {door for door in tally.doors if door != "desk"} == {"pulka deal", "pulka play", "the api"}
    assert not tally.silent and not tally.false_alarms and tally.slips_asked
