"""The views count a game's events only judged (``ArchiveProjection.judged_game``), on
SQLite and PostgreSQL: a game with an event the ledger would not have recorded, written
outside pulka with its digests computed anew (appended after the mark, or edited behind
it and chained anew), is left out of the results, the rating and the players' counts,
and every reader of the views is warned, naming the event; a game its judged mark
vouches for is not judged again; a game without marks (a copy) is judged once and
counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import RawEvents
from helpers import ok, run
from ledger.application import Ledger
from ledger.store.event_store import Store
from ledger.views import projection
from ledger.views.archive import Views
from test_golden_archive import PLAYERS, imported
from test_kept_counts import counted_again, kept

GAME = "club-1"


def left_out_of_everything(db: str, number: int, why: str) -> None:
    """``GAME`` left out by the views from event ``number`` (``why`` in its reason): no
    result, no rating, no counts, each player's statistics those of the other games,
    and the readers of the views warned."""
    with Store(db) as store, Views(store) as views:
        ledger = Ledger(store)
        views.catch_up()
        assert [(left.name, left.version) for left in views.left_out()] == [(GAME, number)]
        assert f"event {number} of game '{GAME}' {why}" in views.left_out()[0].reason
        assert GAME not in {row.game for row in views.rows()}
        for table in ("archive_stats", "archive_stories", "rating_pulkas"):
            assert views.view.select(f"SELECT COUNT(*) FROM {{{table}}} WHERE game = ?", (GAME,)) == [(0,)], table
        for name in PLAYERS:
            assert kept(ledger, views, name) == counted_again(ledger, views, name), name
    warning = f"warning: '{GAME}' is left out of the archive from event {number} on"
    for args in (("stats", "Anna"), ("players",), ("rating",)):
        said = run(db, *args)
        assert said.exit_code == 0 and warning in said.stderr and f"event {number} of game '{GAME}'" in said.stderr, \
            (args, said.stderr)


def test_an_event_appended_outside_pulka_leaves_its_game_out_of_the_views(store_url: str) -> None:
    """The last event of club-1 (over) stored again after it, its digests computed as the
    store computes them, after the views counted club-1: the judge refuses it, and the
    next catch-up leaves club-1 out (its counts and its rating go), as a rebuild does."""
    imported(store_url)
    with Store(store_url) as store, Views(store) as views:
        views.catch_up()
        assert views.view.select("SELECT COUNT(*) FROM {rating_pulkas} WHERE game = ?", (GAME,)) == [(1,)]
        assert views.view.select("SELECT COUNT(*) FROM {archive_stats} WHERE game = ?", (GAME,))[0][0] > 0
        last = store.load(GAME)[-1]
        store.append(GAME, [last.event], expected=last.number)  # without the ledger's checks, and no mark
    left_out_of_everything(store_url, last.number + 1, "would be refused")
    with Store(store_url) as store, Views(store) as views:
        views.rebuild()
    left_out_of_everything(store_url, last.number + 1, "would be refused")


def test_an_event_chained_anew_behind_the_mark_leaves_its_game_out_of_the_views(store_url: str) -> None:
    """A deal of club-1 given thirty tricks, every digest after it computed anew: the
    chain holds, the mark no longer matches, and the views judge club-1 and leave it out."""
    imported(store_url)
    with Store(store_url) as store:
        number = next(s.number for s in store.load(GAME) if getattr(s.event, "tricks", None))
    raw = RawEvents(store_url)
    try:
        raw.rechain(GAME, number, lambda event: event.update(tricks={p: 10 for p in event["tricks"]}))
    finally:
        raw.close()
    left_out_of_everything(store_url, number, "would be refused: tricks sum to 30")


def test_games_their_marks_vouch_for_are_not_judged_by_the_views(store_url: str, judged: list[int],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing judged, nor folded again for judging: the mark is enough."""
    folds: list[str] = []
    fold = projection.judged_fold

    def counted(game: str, *args: Any, **kwargs: Any) -> Any:
        folds.append(game)
        return fold(game, *args, **kwargs)

    monkeypatch.setattr(projection, "judged_fold", counted)
    imported(store_url)  # ``import`` marks every stream it judged and stored
    with Store(store_url) as store, Views(store) as views:
        assert views.rebuild() > 0
        assert judged == [] and folds == [] and views.left_out() == [] and GAME in {row.game for row in views.rows()}


@pytest.mark.sqlite_only
def test_a_copy_s_games_are_judged_by_the_views_and_counted(store_url: str, tmp_path: Path,
                                                              judged: list[int]) -> None:
    """``pulka copy`` carries no marks: the views of the copy judge each game once, and
    count what the views of the first store count."""
    imported(store_url)
    target = str(tmp_path / "copy.db")
    ok(store_url, "copy", target)
    with Store(store_url) as store, Views(store) as views:
        views.catch_up()
        rows = views.rows()
        counts = views.view.select("SELECT game, person, counted FROM {archive_stats} ORDER BY game, person")
    judged.clear()
    with Store(target) as store, Views(store) as views:
        views.rebuild()
        assert views.left_out() == [] and views.rows() == rows
        assert views.view.select("SELECT game, person, counted FROM {archive_stats} ORDER BY game, person") == counts
        events = len(store.load(GAME))
    assert judged.count(2) == len(rows) and judged.count(events) >= 1  # every game judged, each once
    assert ok(target, "stats", "Anna") == ok(store_url, "stats", "Anna")
