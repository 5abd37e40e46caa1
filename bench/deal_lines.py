"""The rates of issue 32 on generated evenings: every deal a line can say typed at the
scorer's desk in every form the README gives and with every slip of the trick order
(``tests/deal_doors.py``), and the lines of the first deal read two ways through
``pulka deal``, ``pulka play`` and the API in every third evening. Prints how many
lines, slips and questions, the rate of silent slips and of false alarms (both 0), and
the lines by form and door. ``tests/test_deal_doors.py`` asserts the same on fewer.

    python bench/deal_lines.py [EVENINGS]      (default 300)
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from deal_doors import Doors, Tally, evening_at_desk, evenings  # noqa: E402  (the tests' own measure)
from ledger.store.event_store import Store  # noqa: E402
from tests.serving import account, client, sign_in  # noqa: E402


def measure(count: int) -> Tally:
    tally = Tally()

    @settings(max_examples=count, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(evenings(), st.randoms(use_true_random=False), st.integers(0, 2))
    def evening(log: list[Any], rnd: random.Random, door: int) -> None:
        this = Tally()
        with tempfile.TemporaryDirectory() as folder:
            db = str(Path(folder) / "pulka.db")
            with Store(db) as store:
                if door:
                    evening_at_desk(store, log, this, rnd)
                else:
                    account(db, "dora", "director")
                    with client(db) as c:
                        evening_at_desk(store, log, this, rnd, Doors(db, c, sign_in(c, "dora")))
        tally.add(this)

    evening()
    return tally


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    tally = measure(count)
    print(f"{count} generated evenings: {tally.report()}")
    print(f"lines by form: {dict(sorted(tally.forms.items()))}")
    for fault in tally.faults()[:10]:
        print("  ", fault)


if __name__ == "__main__":
    main()
