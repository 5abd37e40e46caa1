"""Rating and statistics speed on the archive of ``make bench-archive`` (1,000 pulkas,
about a million events, in one store); ``make bench-rating BENCH_ARGS=--speed`` runs it.

Prints the time of a full rebuild of the views (the archive and the rating), of the
rating's own full fold (every match rated again, as a correction of the first pulka
would), of ``pulka rating`` and ``pulka rating --at``, of the update after one more
pulka (the views brought up to it by a fresh reader, and the rating's share of it),
measured on a tenth of the archive and on the whole of it (the update must not grow
with the archive), of ``pulka stats`` for the busiest player (his kept counts added
up; ``--at``, his pulkas read again) and of his page in the service, beside its target;
asserts nothing.

    python bench/rating_speed.py [--pulkas 1000] [--quick] [--db PATH|postgresql://…]

--quick stores 100 pulkas. The pulkas are those of bench/archive.py. Without --db a
temporary SQLite file is used.
"""

from __future__ import annotations

import time
from datetime import date, timedelta
from typing import Any

from click.testing import CliRunner

from archive import archive_run, busiest, fill, player_page, pulka_events, template, timed
from cli.main import main as pulka
from ledger.views import rating
from ledger.store.event_store import Store
from ledger.views.archive import Views


class KeepTimer:
    """The time spent in ``rating.keep`` (the rating's share of the views' updates)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.keep = rating.keep

    def __call__(self, tx: Any, results: Any, everything_moved: bool) -> None:
        began = time.perf_counter()
        self.keep(tx, results, everything_moved)
        self.seconds += time.perf_counter() - began


def command(db: str, *args: str) -> None:
    result = CliRunner().invoke(pulka, [*args, "--db", db])
    assert result.exit_code == 0, result.output


def one_more_pulka(db: str, lines: list[str], n: int, timer: KeepTimer) -> None:
    """A pulka more, over after every other, then the views brought up to it by a fresh
    reader (as the next `pulka rating` would), and `pulka rating` itself."""
    with Store(db) as store:
        players = ["Member01", "Member02", "Member03"]
        events = pulka_events(lines, f"more-{n}", players, date(2023, 1, 1) + timedelta(days=n + 10))
        store.append(f"more-{n}", events, expected=0)
        with Views(store) as views:
            timer.seconds = 0.0
            taken = timed("update after one more pulka (archive and rating)", views.catch_up)
            print(f"    {'(the rating' + chr(39) + 's share of it)':<50} {timer.seconds:9.3f} s   ({taken:,} events)")


def main() -> None:
    total, db, tmp, templates = archive_run(__doc__)
    over = template("sochi", deals=140, abandon=True, stake=None)  # the pulka added at the end
    timer = KeepTimer()
    rating.keep = timer  # type: ignore[assignment]
    tenth = max(total // 10, len(templates))
    with Store(db) as store:
        store.ensure_table()
        with Views(store) as views:
            views.create()
        print(f"archive of {total} pulkas in {store.description}")
        events = timed(f"store the first {tenth} pulkas", lambda: fill(store, 0, tenth, templates))
    for size, added in ((tenth, 0), (total, total - tenth)):
        if added:
            with Store(db) as store:
                events += timed(f"store {added} pulkas more", lambda: fill(store, tenth, added, templates))
        print(f"{size} pulkas, {events:,} events:")
        with Store(db) as store, Views(store) as views:
            timer.seconds = 0.0
            timed("full rebuild of the views (archive and rating)", views.rebuild)
            rated = len(rating.kept_matches(views.view.select))
            print(f"    {'(the rating' + chr(39) + 's share of it)':<50} {timer.seconds:9.3f} s   ({rated} pulkas over rated)")
            timed("the rating folded again from the first match", views.view.rate_again)
        timed("pulka rating", lambda: command(db, "rating"))
        timed("pulka rating --at (folded from the archive)", lambda: command(db, "rating", "--at", "2100-01-01"))
        one_more_pulka(db, over, size, timer)
    name, played = busiest(db)
    timed(f"pulka stats {name} ({played} pulkas)", lambda: command(db, "stats", name))
    timed(f"pulka stats {name} contracts.7 --deals", lambda: command(db, "stats", name, "contracts.7", "--deals"))
    timed(f"pulka stats {name} --at (his pulkas read again)", lambda: command(db, "stats", name, "--at", "2100-01-01"))
    player_page(db)
    tmp.cleanup()


if __name__ == "__main__":
    main()
