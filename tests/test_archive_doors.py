"""The club archive at its doors (``ledger.views.archive.Views``, the rating kept in SQL
by ``ledger.views.rating``) and in its pure folds (``projections.archive``,
``projections.rating``, ``projections.stats``), for what was reached only through the
command line, on the golden club file (``fixtures/club``):

- a stream whose chain breaks is left out from there on, and the register, the rating
  and the statistics are those of the rest;
- a view caught up by one reader and taken on by another (a stream's earlier events
  read back, a tournament's deal cap read from the view);
- the rating kept incrementally when a rated pulka's result changes, when one goes back
  into play, and when an old pulka ends before those rated: always what a fold of the
  matches gives, and what OpenSkill gives from the results;
- selections by date and convention, a player's rating history, and the documents and
  texts of the register, the rating and the statistics.

The views' SQL is the store's: the tests of the views run on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest

import golden_archive
from conftest import RawEvents
from golden_archive import Club
from ledger.application import Ledger
from ledger.desks.streams import import_streams
from ledger.desks.tournament import Tournaments
from ledger.store.event_store import Store
from ledger.views.archive import Views, ViewsMissing
from ledger.views.rating import kept_changes, kept_matches
from ledger.vocabulary.events import AnyEvent, Correction, GameStarted
from ledger.vocabulary.logfile import split_streams
from readings import dump, parse_export, parse_log
from ledger.vocabulary.tournament_events import TournamentStarted
from projections import rating as model
from projections.archive import (
    player_pulkas,
    player_pulkas_doc,
    identities,
    render_player_pulkas,
    render_summaries,
    select_pulkas,
    summaries,
    summary_doc,
)
from projections.stats import csv_rows, mine, player_stats, refs_doc, render_refs, render_stats, stats_doc
from test_golden_archive import EXPECTED, FIXTURE, clock, independent, same_rating

ALIASES = [tuple(a) for a in EXPECTED["aliases"]]


def club_of(store: Store, aliases: list[tuple[str, str]] | None = None) -> Club:
    """The archive worked out again (``golden_archive``) from the events as stored."""
    caps = {g: e.deal_cap for g in store.games(TournamentStarted)
            for e in [store.sound(g)[0].event] if isinstance(e, TournamentStarted)}
    pulkas = []
    for game in store.games(GameStarted):
        events = [s.event for s in store.sound(game)]
        pulkas.append(golden_archive.pulka(events, caps.get(game.split("/")[0])))
    return Club(pulkas, ALIASES if aliases is None else aliases)


def kept(views: Views) -> tuple[dict[str, tuple[float, float, int]], list[model.Change], list[model.Match]]:
    views.catch_up()
    changes = kept_changes(views.view.select)
    matches = kept_matches(views.view.select)
    who = identities(views.rows(), views.aliases())
    return ({x.player: (x.skill.mu, x.skill.sigma, x.matches) for x in model.table(changes, who)},
            changes, matches)


def same_changes(a: list[model.Change], b: list[model.Change]) -> None:
    def order(c: model.Change) -> tuple[Any, ...]:
        return c.key, c.player

    assert len(a) == len(b)
    for x, y in zip(sorted(a, key=order), sorted(b, key=order), strict=True):
        assert (x.game, x.player, x.name, x.whists, x.place, x.finished_utc) == \
            (y.game, y.player, y.name, y.whists, y.place, y.finished_utc)
        assert (x.after.mu, x.after.sigma) == pytest.approx((y.after.mu, y.after.sigma), abs=1e-9)


def imported(db: str) -> None:
    with Store(db) as store:
        import_streams(Ledger(store, clock=clock), split_streams(parse_export(FIXTURE.read_text(encoding="utf-8"))))


@pytest.fixture
def club_db(store_url: str) -> Iterator[str]:
    imported(store_url)
    yield store_url


# -- a chain that breaks -------------------------------------------------------------------------


def test_a_pulka_whose_chain_breaks_is_left_out_of_the_register_rating_and_statistics(club_db: str) -> None:
    """club-1's fifth event edited behind the ledger's back (its digest not computed
    anew): the views leave club-1 out from that event on, and name it; the totals, the
    rating and the statistics are those of the other pulkas, on a read that catches up
    and on a rebuild alike."""
    raw = RawEvents(club_db)
    try:
        _, state = raw.row("club-1", 5)
        assert b'"contract":"7S"' in state
        raw.set("club-1", 5, state=state.replace(b'"contract":"7S"', b'"contract":"8S"'))
    finally:
        raw.close()
    with Store(club_db) as store, Views(store) as views:
        for _ in ("caught up", "rebuilt"):
            shown, changes, matches = kept(views)
            left = views.left_out()
            assert [(x.name, x.version) for x in left] == [("club-1", 5)]
            assert "'club-1' is left out of the archive from event 5 on, where its chain breaks" in str(left[0])
            rows = views.rows()
            assert "club-1" not in {r.game for r in rows}
            rest = Club([p for p in independent().pulkas if p.game != "club-1"], ALIASES)
            assert [{k: v for k, v in summary_doc(s).items() if k != "average"}
                    for s in summaries(rows, views.aliases())] == rest.totals()
            assert sorted(m.game for m in matches) == sorted(p.game for p in rest.matches())
            same_rating(shown, rest.rating())
            same_changes(changes, model.rate_matches(matches, model.keys_of(views.aliases())))
            vera = player_stats(rows, views.aliases(), "Vera",
                                ((r, [s.event for s in store.sound(r.game)]) for r in mine(rows, views.aliases(), "Vera")))
            assert vera is not None and [p.game for p in vera.pulkas] == ["club-3"]
            views.rebuild()


# -- a view taken on by another reader ------------------------------------------------------------------


def test_a_view_caught_up_by_one_reader_is_taken_on_by_the_next(store_url: str) -> None:
    """Each reader is a process of its own: the next one takes the view on where the
    last left it, reading a stream's earlier events back when more come, and a
    tournament's deal cap from the view when its table starts later."""
    text = FIXTURE.read_text(encoding="utf-8")
    streams = split_streams(parse_export(text))
    club5 = next(s for s in streams if getattr(s[0].event, "game", "") == "club-5")
    last_deal = [line.event for line in club5[-6:]]  # deal 3 of club-5: six events
    club5[:] = club5[:-6]
    cup = [s for s in streams if getattr(s[0].event, "game", "").startswith("club-cup")]
    table = cup[1]
    streams.remove(table)
    with Store(store_url) as store:
        ledger = Ledger(store, clock=clock)
        import_streams(ledger, streams)
        with Views(store) as views:
            views.catch_up()
            assert {r.game: r.result.deals for r in views.rows()}["club-5"] == 2
        # More of club-5, and the tournament's table started and played to its cap.
        ledger.execute("club-5", lambda _state: last_deal)
        Tournaments(ledger).start_tables("club-cup", 1)
        # The table's events as the desk records them now (the clock's times).
        ledger.execute("club-cup/1/1", lambda _state: [msgspec.structs.replace(line.event, at=None)
                                                        for line in table[1:]])
        with Views(store) as views:
            views.catch_up()
            rows = {r.game: r for r in views.rows()}
        for game in ("club-5", "club-cup/1/1"):
            want = EXPECTED["pulkas"][game]
            r = rows[game]
            assert (r.result.status, r.result.deals, r.result.whists, r.tournament) == \
                (want["status"], want["deals"], want["whists"], want["tournament"]), game


def test_a_read_of_a_store_without_views_is_refused_saying_how_to_make_them(tmp_path: Path) -> None:
    with Store(str(tmp_path / "pulka.db")) as store:
        store.ensure_table()
        with Views(store) as views:
            assert not views.exists()
            with pytest.raises(ViewsMissing, match="`pulka views rebuild` makes and fills them"):
                views.catch_up()


# -- the rating kept incrementally ------------------------------------------------------------------------


def corrected(ledger: Ledger, game: str, target: int, tricks: dict[str, int], by: str) -> None:
    ledger.execute(game, lambda _state: [Correction(target=target, replacement={"tricks": tricks}, by=by)])


CHANGES = [
    # club-3 (abandoned, rated third): ANNA's misère took two tricks, not one.
    ("a rated result changes", "club-3", 19, {"ANNA": 2}, "Gleb", "abandoned"),
    # club-4 (finished, rated last): Dina took five, down one: the pulyas total 10 of 12,
    # the pulka is in play again and no longer rated.
    ("a pulka goes back into play", "club-4", 13, {"Dina": 5, "Anna": 4, "Boris": 1}, "Anna", "playing"),
]


@pytest.mark.parametrize(("game", "target", "tricks", "by", "status"), [c[1:] for c in CHANGES],
                         ids=[c[0] for c in CHANGES])
def test_the_kept_rating_follows_a_change_of_a_rated_pulka(club_db: str, game: str, target: int,
                                                          tricks: dict[str, int], by: str, status: str) -> None:
    with Store(club_db) as store, Views(store) as views:
        before, _, _ = kept(views)
        corrected(Ledger(store, clock=clock), game, target, tricks, by)
        shown, changes, matches = kept(views)
        club = club_of(store)
        assert {p.game: p.status for p in club.pulkas}[game] == status
        assert {r.game: r.result.status for r in views.rows()}[game] == status
        assert sorted(m.game for m in matches) == sorted(p.game for p in club.matches())
        same_rating(shown, club.rating())
        assert shown != before
        same_changes(changes, model.rate_matches(matches, model.keys_of(views.aliases())))
        again = dump(views)
        views.rebuild()
        assert dump(views) == again


def test_an_old_pulka_imported_later_is_rated_in_its_place(club_db: str) -> None:
    """A pulka that ended before every match rated (an old log imported): the matches
    from it on are rated again, in the order they ended."""
    old = [{"type": "game_started", "game": "club-0", "players": ["Gleb", "Vera", "Dina"], "pulya": 2,
            "convention": "sochi", "at": "2025-12-20T19:00:00+03:00"},
           {"type": "bid", "player": "Gleb", "bid": "misere", "at": "2025-12-20T19:03:00+03:00"},
           {"type": "bid", "player": "Vera", "bid": "pass", "at": "2025-12-20T19:06:00+03:00"},
           {"type": "bid", "player": "Dina", "bid": "pass", "at": "2025-12-20T19:09:00+03:00"},
           {"type": "contract", "player": "Gleb", "contract": "misere", "at": "2025-12-20T19:12:00+03:00"},
           {"type": "tricks", "tricks": {"Gleb": 0}, "at": "2025-12-20T19:15:00+03:00"}]  # every pulya closed
    with Store(club_db) as store, Views(store) as views:
        kept(views)
        ledger = Ledger(store, clock=clock)
        events: list[AnyEvent] = [msgspec.convert(e, type=AnyEvent) for e in old]  # type: ignore[arg-type]
        ledger.record_lines(list(enumerate(events, start=1)))
        shown, changes, matches = kept(views)
        club = club_of(store)
        assert [p.game for p in club.matches()][0] == "club-0"
        assert [m.game for m in model.ordered(matches)] == ["club-0", *EXPECTED["rating"]["matches"]]
        same_rating(shown, club.rating())
        same_changes(changes, model.rate_matches(matches, model.keys_of(views.aliases())))


# -- selections, histories and what they say for people ----------------------------------------------------


@pytest.fixture
def sqlite_club(tmp_path: Path) -> Iterator[tuple[Store, Views]]:
    db = str(tmp_path / "club.db")
    imported(db)
    with Store(db) as store, Views(store) as views:
        views.catch_up()
        yield store, views


def test_pulkas_between_dates_and_under_a_convention(sqlite_club: tuple[Store, Views]) -> None:
    """``--from``/``--to`` compare the date of the recorded start in its own offset;
    ``--convention`` takes a preset's other names; the rating of one convention is the
    fold of its own pulkas."""
    store, views = sqlite_club
    rows = views.rows()
    assert sorted(r.game for r in select_pulkas(rows, "2026-01-17", "2026-01-24")) == ["club-2", "club-3"]
    assert sorted(r.game for r in select_pulkas(rows, date_from="2026-02-01")) == ["club-4", "club-5", "club-cup/1/1"]
    assert [r.game for r in select_pulkas(rows, convention="LENINGRAD")] == ["club-4"]
    assert [r.game for r in select_pulkas(rows, convention="piter")] == ["club-4"]
    matches = model.select_matches(kept_matches(views.view.select), "leningrad")
    assert [m.game for m in matches] == ["club-4"]
    only = Club([p for p in club_of(store).pulkas if p.game == "club-4"], ALIASES)
    lines = model.table(model.rate_matches(matches, model.keys_of(views.aliases())), identities(rows, views.aliases()))
    same_rating({x.player: (x.skill.mu, x.skill.sigma, x.matches) for x in lines}, only.rating())


def test_a_players_rating_history_and_the_club_table(sqlite_club: tuple[Store, Views]) -> None:
    store, views = sqlite_club
    changes = kept_changes(views.view.select)
    who = identities(views.rows(), views.aliases())
    found = model.rating_history(changes, who, "ANYA")
    assert found is not None and found.player == "Anna"
    # Her matches in the order they ended, each under the name she played it as, her
    # place 1 + the players with more whists (hand: third in each).
    assert [(c.game, c.name, c.whists, c.place) for c in found.changes] == [
        ("club-1", "Anna", -23, 3), ("club-2", "Anya", -4, 3), ("club-3", "ANNA", -91, 3), ("club-4", "Anna", -64, 3)]
    # Each match starts from the one before, sigma grown by her absence between them.
    chosen = model.default_model()
    assert all(b.before == chosen.grown(a.after, b.started_utc - a.finished_utc) and b.before.mu == a.after.mu
               and b.before.sigma > a.after.sigma for a, b in zip(found.changes, found.changes[1:]))
    assert found.changes[0].before == chosen.start and chosen.shown(chosen.start) == 0
    assert model.rating_history(changes, who, "Zoya") is None
    doc = model.rating_history_doc(found, "now")
    assert [m["finished"] for m in doc["matches"]] == ["2026-01-10T17:27:00+00:00", "2026-01-17T17:06:00+00:00",
                                                       "2026-01-24T16:57:00+00:00", "2026-02-07T16:36:00+00:00"]
    assert doc["matches"][-1]["rating"] == round(found.changes[-1].after.mu, 3)
    assert doc["model"]["model"] == "whists-per-deal" and doc["model"]["rating"] == "mu"
    assert doc["model"]["parameters"] == {"prior": "2", "luck": "30", "drift": "0.02", "provisional": "1"}
    text = model.render_rating_history(found, "now")
    assert text.startswith("Anna: rating (now)") and "4 pulkas rated; now" in text
    lines = model.table(changes, who)
    table = model.table_doc(lines, "now")
    assert [p["player"] for p in table["players"]] == [x.player for x in lines]
    assert [p["rating"] for p in table["players"]] == sorted((p["rating"] for p in table["players"]), reverse=True)
    assert {p["player"]: p["matches"] for p in table["players"]} == {"Anna": 4, "Boris": 4, "Vera": 2, "Gleb": 3,
                                                                   "Dina": 3}
    assert {p["player"]: p["last_game"] for p in table["players"]}["Gleb"] == "club-cup/1/1"
    rendered = model.render_table(lines, "now")
    assert all(f"{x.rating:>+8.2f}" in rendered for x in lines)
    assert all(x.provisional for x in lines) and all(f"{x.player} ? " in rendered for x in lines)  # sigma above 1
    assert model.render_table([], "now").endswith("no pulka over yet\n")


def test_the_register_and_a_history_for_people(sqlite_club: tuple[Store, Views]) -> None:
    _, views = sqlite_club
    rows, aliases = views.rows(), views.aliases()
    items = summaries(rows, aliases)
    text = render_summaries(items, "all")
    for want in EXPECTED["players"]:
        line = next(line for line in text.splitlines() if line.startswith(want["player"] + " "))
        assert f"{want['whists']:+d}" in line and (want["money"] is None or want["money"] in line)
    assert render_summaries([], "all").endswith("no pulkas\n")
    anna = player_pulkas(rows, aliases, "Anna")
    assert anna is not None
    doc = player_pulkas_doc(anna)
    assert doc["spellings"] == ["ANNA", "Anna", "Anya"]
    assert [(p["game"], p["seat"], p["whists"], p["running"]) for p in doc["pulkas"]] == [
        (p["game"], p["seat"], p["whists"], p["running"]) for p in EXPECTED["history"]["Anna"]["pulkas"]]
    assert doc["total"]["average"] == -45.5 and doc["total"]["money"] == "-25.05"
    said = render_player_pulkas(anna, "all")
    assert said.splitlines()[0] == "Anna (all); also written ANNA, Anya"
    assert "4 pulkas over (3 finished, 1 abandoned), 1 in play; total -182 whists, average -45.5" in said


def test_a_players_statistics_lead_to_their_deals(sqlite_club: tuple[Store, Views]) -> None:
    store, views = sqlite_club
    rows, aliases = views.rows(), views.aliases()
    found = player_stats(rows, aliases, "anna", ((r, [s.event for s in store.sound(r.game)])
                                               for r in mine(rows, aliases, "anna")))
    assert found is not None
    # Her 7S: club-1, deal 1, decided by its tricks (event 8); her misère failed: club-3,
    # deal 3, event 19 (worked by hand from the file).
    seven = found.find("contracts.7S")
    assert seven is not None and [(r.game, r.deal, r.event) for r in seven.refs] == [("club-1", 1, 8)]
    failed = found.find("MISERE.failed")
    assert failed is found.find("misere.failed")
    assert failed is not None and [(r.game, r.deal, r.event) for r in failed.refs] == [("club-3", 3, 19)]
    versus = found.find("VS.boris.BEHIND")
    assert versus is not None and versus.count == 3 and versus.whists == -252
    doc = stats_doc(found, "all")
    assert doc["player"] == "Anna" and doc["numbers"]["pulkas"] == {"count": 4, "whists": -182}
    deals = doc["numbers"]["deals"]
    assert deals["count"] == 17 and Fraction(deals["whists_exact"]) == found.numbers["deals"].whists
    assert [p["game"] for p in doc["pulkas"]] == ["club-1", "club-2", "club-3", "club-4", "club-5"]
    refs = refs_doc(found, "misere.failed", failed)
    assert refs["deals"][0]["game"] == "club-3" and refs["deals"][0]["event"] == 19
    assert "club-3 deal 3 event 19" in render_refs(found, "misere.failed", failed)
    text = render_stats(found, "all")
    assert text.startswith("Anna: statistics (all)")
    assert any(line.split()[:2] == ["deals", "17"] for line in text.splitlines())
    table = {row[0]: row for row in csv_rows(found)}
    assert table["pulkas"] == ["pulkas", "4", "-182"] and table["errors"] == ["errors", "0", ""]
    assert json.dumps(doc)  # a JSON document


# -- the records the recording rules charge -------------------------------------------------------------------

PULKA_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# From the fixtures' descriptions (fixtures/README.md), by hand: whose records the
# recording rules charged, and how [Code 4.2.7, 4.2.9, 4.2.10, 4.2.16]; whose seat
# held which deals [Code 5.4.7, 5.4.18]. (player, number) -> (count, [(deal, event)]).
CHARGED: dict[str, dict[tuple[str, str], tuple[int, list[tuple[int | None, int | None]]]]] = {
    # B's hand entry corrected by C after his pencil was down: his first counted error,
    # a warning (event 12); his second, corrected by A: equal for equal (event 22).
    "rec_4_2_7_overstated_whists": {("B", "errors.warning"): (1, [(1, 12)]),
                                    ("B", "errors.equal_for_equal"): (1, [(2, 22)]), ("B", "errors"): (2, [(1, 12), (2, 22)]),
                                    ("A", "errors"): (0, []), ("C", "errors"): (0, [])},
    # The arbiter's penalties on B (event 10) and C (event 11); his own correction of a
    # ruling is no player's error.
    "rec_arbiter_penalty": {("B", "penalties"): (1, [(1, 10)]), ("C", "penalties"): (1, [(1, 11)]),
                            ("A", "penalties"): (0, []), ("B", "errors"): (0, [])},
    # C's forgotten record of deal 1 after deal 2's bidding closed: without effect, his
    # error (event 14); B's in time (event 12) counted, no error.
    "rec_late_entry": {("C", "errors.late"): (1, [(1, 14)]), ("B", "errors"): (0, [])},
    # E holds B's seat from deal 2: the seat's deals and its 7S are not B's; C left
    # after deal 2 and was dealt no third; the pulka is in play, counted for B's seat.
    # Each deal is decided by its second pass: events 7, 14 and 21.
    "code_5_4_7_substitute_and_leave": {("B", "deals"): (1, [(1, 7)]), ("B", "contracts"): (0, []),
                                        ("C", "deals"): (2, [(1, 7), (2, 14)]), ("D", "deals"): (3, [(1, 7), (2, 14), (3, 21)]),
                                        ("D", "contracts.6H.made"): (1, [(3, 21)]), ("B", "pulkas.in_play"): (1, [(None, None)])},
}


@pytest.mark.parametrize("name", sorted(CHARGED))
def test_a_players_errors_penalties_and_seats_are_those_the_rules_charge(tmp_path: Path, name: str) -> None:
    with Store(str(tmp_path / "pulka.db")) as store:
        ledger = Ledger(store, clock=clock)
        ledger.record_lines(parse_log((PULKA_FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8")))
        with Views(store) as views:
            views.catch_up()
            rows, aliases = views.rows(), views.aliases()
        for (player, number), (count, refs) in CHARGED[name].items():
            found = player_stats(rows, aliases, player, ((r, [s.event for s in store.sound(r.game)])
                                                         for r in mine(rows, aliases, player)))
            assert found is not None
            tally = found.find(number)
            assert tally is not None and tally.count == count, (player, number)
            assert [(r.deal, r.event) for r in tally.refs] == refs, (player, number)
    assert player_stats(rows, aliases, "E", iter(())) is None  # a substitute only: no pulka of his own
