"""The players' counts the archive's views keep (``archive_stats``, ``archive_stories``,
``ledger.views``): added up (``ledger.reads.club.player_statistics``), they are the
statistics counted from the events (``projections.stats.player_stats``), number by
number and reference by reference, in each reader's language, without reading a
pulka's events; on the golden club file (a tournament's table, aliases, an abandoned
pulka, one in play) and on generated archives (corrections, objections, late records,
penalties, newcomers, substitutes), a player at one table under two names, a game left
out where its chain breaks, a view followed event by event; on both stores. Each
person's totals (``archive_totals``) are the sum of his kept counts, and the player's
numbers they add up to (``player_totals``, the player's page) are those counted from
the events, after random sequences of deals, late corrections, games left out, aliases
and substitutes. A store of layout 9 gains the counts when it is upgraded, one of
layout 10 the totals. The service's club and player pages are those
counted from the events, byte for byte, made once per position of the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from club_archive import club_archive, doc, store_archive
from conftest import RawEvents
from helpers import ok
from ledger.application import Ledger
from ledger.reads import club as reads
from ledger.store.event_store import Store
from ledger.store.layout import LAYOUT
from ledger.views.archive import Views
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Correction, Tricks
from ledger.vocabulary.refusal import Refused
from projections.stat_totals import Totals, add, read_totals, totals_of_text
from projections.stats import Stats, mine, player_stats, refs_doc, stats_doc
from readings import dump
from test_club_numbers import FEW, LINES, fresh, record  # noqa: F401  (fresh: a fixture)
from test_golden_archive import PLAYERS, imported
from tests.serving import client

Described = tuple[dict[str, Any], list[dict[str, Any]]] | None


def described(stats: Stats | None) -> Described:
    """Everything the statistics show: every number, and every reference behind each."""
    if stats is None:
        return None
    return stats_doc(stats, "all"), [refs_doc(stats, name, tally) for name, tally in stats.numbers.items()]


def counted_again(ledger: Ledger, views: Views, name: str) -> Described:
    rows, aliases = views.rows(), views.aliases()
    return described(player_stats(rows, aliases, name, reads.pulkas_with_events(ledger, mine(rows, aliases, name))))


@contextmanager
def events_unread(ledger: Ledger, reads_events: bool) -> Iterator[None]:
    """Unless ``reads_events``, a read of any pulka's events fails the test."""
    sound = ledger.sound
    if not reads_events:
        def refused(game: str) -> Any:
            raise AssertionError(f"the events of {game} were read")
        ledger.sound = refused  # type: ignore[method-assign]
    try:
        yield
    finally:
        ledger.sound = sound  # type: ignore[method-assign]


def kept_stats(ledger: Ledger, views: Views, name: str, reads_events: bool = False) -> Stats | None:
    """The statistics the kept counts add up to; unless ``reads_events``, without a
    pulka's events read."""
    with events_unread(ledger, reads_events):
        return reads.player_statistics(ledger, views, views.rows(), views.aliases(), name)


def kept(ledger: Ledger, views: Views, name: str, reads_events: bool = False) -> Described:
    return described(kept_stats(ledger, views, name, reads_events))


def totalled(ledger: Ledger, views: Views, name: str, reads_events: bool = False) -> dict[str, Any] | None:
    """The numbers the kept totals add up to (``player_totals``, the player's page); unless
    ``reads_events``, without a pulka's events read."""
    with events_unread(ledger, reads_events):
        found = reads.player_totals(ledger, views, views.rows(), views.aliases(), name)
    if found is None:
        return None
    assert reads_events or all(not tally.refs for number, tally in found.numbers.items()
                               if not number.startswith(("pulkas", "vs."))), "the totals carry no deals"
    return stats_doc(found, "all")


def totals_hold(views: Views) -> None:
    """Each person's kept totals are the sum of the counts kept of his pulkas, exactly (and
    each pulka's counts kept added up are those counts added up)."""
    summed: dict[str, Totals] = {}
    for game, person, text, totals in views.view.select("SELECT game, person, counted, totals FROM {archive_stats}"):
        assert read_totals(totals) == totals_of_text(text), (game, person)
        add(summed.setdefault(person, {}), totals_of_text(text))
    kept_totals = {person: read_totals(text) for person, text in
                   views.view.select("SELECT person, totals FROM {archive_totals}")}
    assert kept_totals == {person: t for person, t in summed.items() if t}
    assert all(isinstance(t.whists, int) or t.whists.denominator > 1
               for totals in kept_totals.values() for t in totals.values())  # exact, never a float


def same_statistics(db: str, names: list[str], two_names: tuple[str, ...] = ()) -> None:
    """Each player's kept statistics are those counted from the events, in every language,
    and so are the numbers his kept totals add up to; the totals are the sum of the kept
    counts; ``two_names``: players who sat at one table under two names (that pulka is read)."""
    with Store(db) as store, Views(store) as views:
        ledger = Ledger(store)
        views.catch_up()
        assert views.view.select("SELECT COUNT(*) FROM {archive_stats}")[0][0] > 0
        totals_hold(views)
        for lang in language.LANGUAGES:
            with language.using(lang):
                for name in names:
                    again = counted_again(ledger, views, name)
                    assert again is not None, name
                    assert kept(ledger, views, name, name in two_names) == again, (name, lang)
                    assert totalled(ledger, views, name, name in two_names) == again[0], (name, lang)
                assert kept(ledger, views, "Nobody") is None
                assert totalled(ledger, views, "Nobody") is None
        # Over some of the pulkas (as --from, --to, --convention select them): the totals less
        # the pulkas not asked are the numbers of those asked, counted from their events.
        rows, aliases = views.rows(), views.aliases()
        some = sorted(rows, key=lambda row: row.game)[::2]
        for name in names:
            again = player_stats(some, aliases, name, reads.pulkas_with_events(ledger, mine(some, aliases, name)))
            found = reads.player_totals(ledger, views, some, aliases, name)
            assert (None if found is None else stats_doc(found, "all")) == (
                None if again is None else stats_doc(again, "all")), name


def test_the_golden_club_s_kept_counts_add_up_to_its_statistics(store_url: str) -> None:
    imported(store_url)
    same_statistics(store_url, [*PLAYERS, "anya"])
    with Store(store_url) as store, Views(store) as views:
        # ru and en stories of every pulka's deals; the counts of every person who held a seat
        languages = views.view.select("SELECT DISTINCT language FROM {archive_stories} ORDER BY language")
        assert [lang for (lang,) in languages] == sorted(language.LANGUAGES)
        text = dict(views.view.select("SELECT language, stories FROM {archive_stories} WHERE game = ?",
                                      ("club-cup/1/1",)))
        assert text["en"] != text["ru"] and "pass" in text["en"] and "пас" in text["ru"]


@FEW
@given(logs=club_archive(recording=True))
def test_a_generated_archive_s_kept_counts_add_up_to_its_statistics(fresh: Callable[[], str],  # noqa: F811
                                                                    logs: list[list[AnyEvent]]) -> None:
    db = fresh()
    store_archive(db, logs)
    names = [p["player"] for p in doc(db, "players")["players"]]
    same_statistics(db, names)
    ok(db, "alias", "Аня", names[0])  # an alias recorded after the pulkas: the same counts, under its name too
    same_statistics(db, [*names, "Аня"])


def record_more(db: str, game: str, deals: int) -> None:
    for k in range(deals):
        ok(db, "deal", game, LINES[k % len(LINES)])


@pytest.mark.sqlite_only
def test_a_player_at_one_table_under_two_names_is_counted_once_a_deal(tmp_path: Any) -> None:
    """Аня is Anna, and both sat at one table (stored before the register refused it):
    her deals there are counted once, at the first seat she held, as the events count
    them; the kept counts of each name alone cannot say that, so that pulka is read."""
    db, elsewhere = str(tmp_path / "club.db"), str(tmp_path / "elsewhere.db")
    when = datetime(2026, 3, 1, 19, tzinfo=timezone.utc)
    record(db, "once", ("Anna", "Vera", "Boris"), when, deals=3)
    # in play: the rating cannot yet rate a pulka over with one player at two seats (rating_moves' key)
    # her deals are Anna's seat's; the penalty on Аня is hers too
    record(elsewhere, "twice", ("Anna", "Boris", "Аня", "Vera"), when.replace(day=2), deals=4, abandon=False)
    ok(elsewhere, "penalty", "twice", "Аня", "gora", "2", "--reason", "talked", "--by", "arbiter:Igor")
    record_more(elsewhere, "twice", deals=2)  # and Anna's deals go on after it
    ok(db, "alias", "Аня", "Anna")
    with Store(elsewhere) as source, Store(db) as store:
        store.append("twice", [s.event for s in source.load("twice")], expected=0)
    same_statistics(db, ["Anna", "Boris", "Vera"], two_names=("Anna",))


def test_a_follower_keeps_the_counts_a_rebuild_makes(tmp_path: Any) -> None:
    db = str(tmp_path / "club.db")
    when = datetime(2026, 3, 1, 19, tzinfo=timezone.utc)
    with Store(db) as store:
        store.ensure_table()
    with Store(db) as store, Views(store) as views:
        views.create()
        with views.follow() as runner:  # event by event, as `pulka views follow` keeps them
            record(db, "first", ("Anna", "Vera", "Boris"), when, deals=3)
            record(db, "second", ("Anna", "Gleb", "Boris"), when.replace(day=2), deals=2, abandon=False)
            runner.wait(views.head(), timeout=60)
        followed = dump(views)
        assert {game for (game,) in views.view.select("SELECT DISTINCT game FROM {archive_stats}")} == \
            {"first", "second"}
        views.rebuild()
        assert dump(views) == followed
    same_statistics(db, ["Anna", "Vera", "Boris", "Gleb"])


def test_a_game_left_out_takes_its_counts_with_it(store_url: str) -> None:
    """club-1's fifth event edited behind the ledger's back after the views counted it:
    the next event of club-1 the views take in finds the break, and club-1's counts and
    stories go with it; a rebuild never counts it."""
    imported(store_url)
    with Store(store_url) as store, Views(store) as views:
        views.catch_up()
        assert views.view.select("SELECT COUNT(*) FROM {archive_stats} WHERE game = 'club-1'")[0][0] > 0
    raw = RawEvents(store_url)
    try:
        _, state = raw.row("club-1", 5)
        raw.set("club-1", 5, state=state.replace(b'"contract":"7S"', b'"contract":"8S"'))
    finally:
        raw.close()
    with Store(store_url) as store, Views(store) as views:
        last = store.load("club-1")[-1]
        store.append("club-1", [last.event], expected=last.number)  # stored without the ledger's checks
        ledger = Ledger(store)
        for _ in ("caught up", "rebuilt"):
            views.catch_up()
            assert [left.name for left in views.left_out()] == ["club-1"]
            for table in ("archive_stats", "archive_stories"):
                assert views.view.select(f"SELECT COUNT(*) FROM {{{table}}} WHERE game = 'club-1'") == [(0,)]
            totals_hold(views)
            for name in PLAYERS:
                again = counted_again(ledger, views, name)
                assert kept(ledger, views, name) == again, name
                assert totalled(ledger, views, name) == (None if again is None else again[0]), name
            views.rebuild()


def test_a_game_the_views_cannot_count_is_counted_from_its_events(store_url: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the statistics fail on a game the views take in, the views keep no counts of
    it (none of an earlier version either) and go on; its players' statistics count it
    from its events, as they did before the counts were kept."""
    from ledger.views import projection

    imported(store_url)
    with Store(store_url) as store, Views(store) as views:
        views.catch_up()
    counted_text = projection.counted_text

    def failing(state: Any, person: str) -> tuple[str, str]:
        if state.started.game == "club-5":
            raise ValueError("cannot count it")
        return counted_text(state, person)

    monkeypatch.setattr(projection, "counted_text", failing)
    ok(store_url, "deal", "club-5", "pass pass pass | 4 3 3")
    with Store(store_url) as store, Views(store) as views:
        ledger = Ledger(store)
        for _ in ("caught up", "rebuilt"):
            views.catch_up()
            for table in ("archive_stats", "archive_stories"):
                assert views.view.select(f"SELECT COUNT(*) FROM {{{table}}} WHERE game = 'club-5'") == [(0,)]
                assert views.view.select(f"SELECT COUNT(*) FROM {{{table}}}")[0][0] > 0
            totals_hold(views)
            for name in PLAYERS:
                again = counted_again(ledger, views, name)
                assert kept(ledger, views, name, reads_events=True) == again, name
                assert totalled(ledger, views, name, reads_events=True) == (None if again is None else again[0])
            views.rebuild()


def test_a_store_of_layout_10_gains_the_kept_totals_when_upgraded(store_url: str) -> None:
    """Layout 10's views kept each pulka's counts but not each person's totals: the
    upgrade drops its views, and the next read folds them again, totals and all, the
    sum of the counts kept, to the same statistics and the same player's numbers."""
    db = store_url
    imported(db)
    ok(db, "deal", "club-5", "pass pass pass | 4 3 3")
    before = ok(db, "stats", "Anna", "--json")
    with Store(db) as store, store.backend.writing() as tx:
        tx.run(f"DROP TABLE {tx.name('archive_totals')}")
        tx.mark_layout(10)
    assert ok(db, "stats", "Anna", "--json") == before  # folded for this command alone
    said = ok(db, "upgrade")
    assert f"is upgraded from layout 10 to layout {LAYOUT}" in said and "(without archive_totals)" in said
    with Store(db) as store, Views(store) as views:
        assert views.position() == 0
    assert ok(db, "stats", "Anna", "--json") == before
    with Store(db) as store, Views(store) as views:
        assert views.view.select("SELECT COUNT(*) FROM {archive_totals}")[0][0] == len(
            {p for row in views.rows() for p in row.everyone})
    same_statistics(db, [*PLAYERS])


def test_a_store_of_layout_9_gains_the_kept_counts_when_upgraded(store_url: str) -> None:
    """Layout 9's views had no kept counts: a reader of such a store folds the archive for
    itself (it may not keep views folded otherwise), and the upgrade drops its views,
    which the next read folds again, counts and all, to the same statistics."""
    db = store_url
    imported(db)
    before = ok(db, "stats", "Anna", "--json")
    with Store(db) as store, store.backend.writing() as tx:
        for table in ("archive_stats", "archive_stories", "archive_totals"):
            tx.run(f"DROP TABLE {tx.name(table)}")
        tx.mark_layout(9)
    with Store(db) as store:
        assert store.layout == 9
    assert ok(db, "stats", "Anna", "--json") == before  # folded for this command alone
    said = ok(db, "upgrade")
    assert f"is upgraded from layout 9 to layout {LAYOUT}" in said
    assert "its player views were dropped and are folded again from the events by the next read (the player " \
           "views were an earlier pulka's (without archive_stats, archive_stories, archive_totals))" in said
    assert f"is at layout {LAYOUT}, this pulka's" in ok(db, "upgrade")
    with Store(db) as store, Views(store) as views:
        assert views.position() == 0  # dropped, made again empty
    assert ok(db, "stats", "Anna", "--json") == before
    with Store(db) as store, Views(store) as views:
        assert views.view.select("SELECT COUNT(DISTINCT game) FROM {archive_stats}")[0][0] == len(views.rows())
    same_statistics(db, [*PLAYERS])


# -- the service's pages -------------------------------------------------------------------------


@pytest.fixture
def pages_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The club and player pages the service made (not found among its cached ones)."""
    from web import pages

    made: list[str] = []
    for name in ("club_doc", "player_doc"):
        def counting(*args: Any, _name: str = name, _made: Any = getattr(pages, name)) -> Any:
            made.append(_name)
            return _made(*args)
        monkeypatch.setattr(pages, name, counting)
    yield made


@pytest.mark.sqlite_only
def test_the_pages_are_those_counted_from_the_events_and_made_once_a_position(
        tmp_path: Any, pages_made: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "club.db")
    imported(db)
    paths = ("/club", "/club/player/Anna", "/club/player/anya", "/club/player/Gleb?lang=ru", "/club/player/Nobody")
    with client(db) as c:
        kept_pages = {path: (c.get(path).status_code, c.get(path).content) for path in paths}
        assert kept_pages["/club/player/Nobody"][0] == 404 and kept_pages["/club/player/Anna"][0] == 200
        assert b"deal" in kept_pages["/club/player/Anna"][1] and "вист".encode() in kept_pages[
            "/club/player/Gleb?lang=ru"][1]
        assert len(pages_made) == len(paths)  # each asked twice, made once
        again = c.get("/club/player/Anna", headers={"Accept-Language": "ru"})
        assert again.content != kept_pages["/club/player/Anna"][1] and len(pages_made) == len(paths) + 1
    # The same pages, counted from the events as before the counts were kept.
    def from_events(ledger: Ledger, views: Views, rows: Any, aliases: Any, name: str, then: Any = None) -> Any:
        return player_stats(rows, aliases, name, reads.pulkas_with_events(ledger, mine(rows, aliases, name)))
    monkeypatch.setattr(reads, "player_statistics", from_events)
    monkeypatch.setattr(reads, "player_totals", from_events)
    with client(db) as c:
        assert {path: (c.get(path).status_code, c.get(path).content) for path in paths} == kept_pages
    # A deal stored: the pages are made again, at the new position.
    made = len(pages_made)
    ok(db, "deal", "club-5", "pass pass pass | 4 3 3")
    with client(db) as c:
        assert c.get("/club/player/Anna").content != kept_pages["/club/player/Anna"][1]
        assert len(pages_made) == made + 1



def records_told(ledger: Ledger, views: Views, name: str, reads_events: bool = False) -> dict[str, list[str]]:
    """The texts behind his records' numbers (``errors.late``, ``penalties``), as
    ``kept`` reads them (unless ``reads_events``, without a pulka's events read)."""
    found = kept_stats(ledger, views, name, reads_events)
    assert found is not None
    return {number: [ref.text for ref in tally.refs] for number, tally in found.numbers.items()
            if number in ("errors.late", "penalties") and tally.refs}


def test_a_records_text_is_kept_in_every_readers_language_not_the_views_writers(store_url: str) -> None:
    """The text of a record the statistics count (a late record without effect, an
    arbiter's penalty) is kept in every reader's language, as a deal's story is: views
    written by a Russian reader's command give an English reader English, and the other
    way round. Views written before the texts were kept so (no text of the record in the
    reader's language) count that pulka from its events instead, in his language."""
    db = store_url
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10")
    for line in LINES[:2]:
        ok(db, "deal", "g", line)
    ok(db, "entry", "g", "Vera", "whists", "3", "--on", "Anna", "--deal", "1", "--by", "Vera")  # too late
    ok(db, "penalty", "g", "Boris", "gora", "4", "--reason", "looked", "--by", "arbiter:Igor")
    expected = {"en": {"errors.late": "event 16: too late", "penalties": "event 17: penalty: Boris gora +4 (looked) [Code 4.2.16]"},
                "ru": {"errors.late": "событие 16: поздно", "penalties": "событие 17: штраф: Boris гора +4 (looked) [Кодекс 4.2.16]"}}
    for writer in ("ru", "en"):
        with Store(db) as store, Views(store) as views:
            with language.using(writer):
                views.rebuild()
            ledger = Ledger(store)
            for reader, says in expected.items():
                with language.using(reader):
                    told = {"errors.late": records_told(ledger, views, "Vera")["errors.late"],
                            "penalties": records_told(ledger, views, "Boris")["penalties"]}
                assert all(len(texts) == 1 and texts[0].startswith(says[n]) for n, texts in told.items()), \
                    (writer, reader, told)
    with Store(db) as store, Views(store) as views, store.backend.writing() as tx:
        for game, lang, stories in views.view.select("SELECT game, language, stories FROM {archive_stories}"):
            deals_only = {k: v for k, v in json.loads(stories).items() if not k.startswith("#")}
            tx.run(f"UPDATE {tx.name('archive_stories')} SET stories = ? WHERE game = ? AND language = ?",
                   (json.dumps(deals_only, ensure_ascii=False), game, lang))
    with Store(db) as store, Views(store) as views:  # as views written before kept the records' texts
        ledger = Ledger(store)
        for reader, says in expected.items():
            with language.using(reader):
                assert records_told(ledger, views, "Boris", reads_events=True)["penalties"][0].startswith(
                    says["penalties"])


# -- the totals through random sequences of deals, corrections and games left out -------------------

STEPS = st.lists(st.tuples(st.sampled_from(("deal", "deal", "correct", "leave out", "alias", "substitute")),
                           st.integers(0, 2), st.integers(0, len(LINES) - 1)), min_size=4, max_size=9)
TABLES_OF = (("t0", ("Anna", "Boris", "Vera")), ("t1", ("Anna", "Gleb", "Boris")), ("t2", ("Vera", "Gleb", "Dina")))


def corrected(db: str, game: str, k: int) -> None:
    """A late correction by its recorder of one of the game's tricks [Code 4.2.9]: the
    game counted again (its deals bring otherwise); refused, nothing is stored."""
    with Store(db) as store:
        stored = [s.event for s in store.load(game)]
        tricks = [n for n, e in enumerate(stored, start=1) if isinstance(e, Tricks) and len(e.tricks) == 3]
        if not tricks:
            return
        number = tricks[k % len(tricks)]
        target = stored[number - 1]
        assert isinstance(target, Tricks)
        seats, taken = list(target.tricks), list(target.tricks.values())
        fixed = dict(zip(seats, taken[1:] + taken[:1], strict=True))
        try:
            Ledger(store).execute(game, lambda st_: [Correction(target=number, replacement={"tricks": fixed},
                                                                by=target.by)])
        except Refused:
            pass


def left_out(db: str, game: str) -> None:
    """The digest of the game's second event changed behind the ledger's back, and an event stored after
    it without the ledger's checks: the views leave the game out from there."""
    raw = RawEvents(db)
    try:
        _, state = raw.row(game, 2)
        row = json.loads(state)
        row["digest"] = "0" * 64
        raw.set(game, 2, state=json.dumps(row, separators=(",", ":")).encode())
    finally:
        raw.close()
    with Store(db) as store:
        last = store.load(game)[-1]
        store.append(game, [last.event], expected=last.number)


@FEW
@example(steps=[("deal", 0, 0), ("correct", 0, 1), ("leave out", 1, 0), ("deal", 2, 3), ("alias", 1, 0),
                ("substitute", 0, 0), ("deal", 0, 2), ("correct", 2, 0), ("substitute", 2, 0), ("deal", 2, 4)])
@given(steps=STEPS)
def test_the_totals_are_the_kept_counts_and_the_events_counts_after_any_sequence(
        fresh: Callable[[], str], steps: list[tuple[str, int, int]]) -> None:  # noqa: F811
    """Pulkas dealt, corrected late (counted again: the old counts taken away, the new
    added), left out (their counts taken away), an alias, a substitute who plays at other
    tables (his counts here are in his totals, not in his numbers): after every step the views take
    in, each person's kept totals are the sum of his pulkas' kept counts, and each
    player's numbers from the totals are those counted from the events."""
    db = fresh()
    when = datetime(2026, 3, 1, 19, tzinfo=timezone.utc)
    for k, (game, players) in enumerate(TABLES_OF):
        record(db, game, players, when.replace(day=k + 1), deals=2, first=k, abandon=False)
    gone: set[str] = set()
    subbed: set[str] = set()
    for kind, which, k in steps:
        game = TABLES_OF[which][0]
        if kind == "deal" and game not in gone:
            ok(db, "deal", game, LINES[k])
        elif kind == "correct" and game not in gone:
            corrected(db, game, k)
        elif kind == "leave out" and game not in gone:
            left_out(db, game)
            gone.add(game)
        elif kind == "substitute" and game not in gone | subbed:
            # one who plays elsewhere takes the first seat: his deals here are not his (the seat's player's)
            leaving, *others = TABLES_OF[which][1]
            ok(db, "substitute", game, leaving, "Anna" if game == "t2" else "Dina", "--agreed-by", ",".join(others),
               "--by", others[0])
            subbed.add(game)
        elif kind == "alias":
            ok(db, "alias", f"Alias{k}", ("Anna", "Boris", "Vera", "Gleb", "Dina")[k % 5])
        with Store(db) as store, Views(store) as views:
            views.catch_up()
            assert sorted(left.name for left in views.left_out()) == sorted(gone)
            totals_hold(views)
            ledger = Ledger(store)
            for name in {p for row in views.rows() for p in row.everyone}:
                again = counted_again(ledger, views, name)
                assert totalled(ledger, views, name) == (None if again is None else again[0]), (name, kind)
