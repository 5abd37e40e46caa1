"""Thirty scorers at once on PostgreSQL: one process per table, each recording its
table's pulka deal by deal while a follower keeps the views current. Then: no errors,
every chain intact, the projections caught up, and the standings from the views equal
those rebuilt by replaying every table. The pulkas are short (a small pulya target and
a deal cap) so that the test takes seconds; ``bench/load.py`` prints the figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.store.event_store import Store
from ledger.desks.tournament import Tournaments
from ledger.views.archive import Views
from ledger.vocabulary.times import utc_micros
from projections.tournament_state import standings_doc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import scorers  # noqa: E402  (bench/scorers.py: the scorers' processes)

TABLES = 30


@pytest.mark.postgres
def test_thirty_tables_scored_at_once(postgres_url: str) -> None:
    games = scorers.seat_tournament(postgres_url, "night", TABLES, pulya=4, deal_cap=8)
    assert len(games) == TABLES
    with Store(postgres_url) as store, Views(store) as views:
        with views.follow() as runner:
            runs, _ = scorers.run_tables(postgres_url, games, cap=8)
            runner.wait(views.head(), timeout=300)
        assert [r.errors for r in runs] == [[] for _ in runs]
        assert all(r.status in ("finished", "capped") and r.deals >= 2 for r in runs), runs
        assert views.position() == views.head()  # the projections caught up
        for name in store.games():
            assert store.verify(name) is None, name
        assert sorted(store.games()) == sorted(["night", *games])

        t = Tournaments(Ledger(store))
        kept = t.standings("night", None, None, lambda s, at: views.tables(s.name, utc_micros(at) if at else None))[0]
        replayed = t.standings("night", None, None, t.replayed)[0]
        assert json.dumps(standings_doc(kept)) == json.dumps(standings_doc(replayed))
        in_play = [e for row in kept.rows for e in row.tours if e.in_play]
        assert len(in_play) == 3 * TABLES
        t.close("night", 1)
        views.catch_up()
        after = t.standings("night", None, None, lambda s, at: views.tables(s.name))[0]
        live = {row.player: row.tours[0].whists for row in replayed.rows}
        assert {row.player: row.whists for row in after.rows} == live
