"""The club's numbers (issue 23): the rating and a player's statistics, on both stores.

Every statistic is checked against numbers worked out in ``club_archive`` from generated
archives through other commands (``export``, ``log``, ``settle``, ``explain``); the rating
against the model worked again without pulka's code (``rating_worked``: exact
fractions, the matrix form) on the results ``settle`` gives, in the order the pulkas
ended; the kept rating against a rebuild, against ``--at`` a time after everything, and
after a correction of an old pulka and an alias; the update after one more pulka against
the size of the archive.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from psycopg import sql

from cli.main import main
import rating_worked
from club_archive import CLUB, Expected, cli, club_archive, doc, expected_stats, store_archive
from helpers import csv_out, tournament_export
from ledger.views import rating
from ledger.application import Ledger
from ledger.words.deal_line import deal_events
from ledger.store.event_store import Store
from ledger.views.archive import Views
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, GameStarted
from readings import dump
from test_archive import Clock

LINES = (
    "6S pass pass | 6S | whist whist | 6 2 2",
    "7H pass pass | 7H | whist pass | 6 3 1",
    "pass pass pass | 4 3 3",
    "misere pass pass | misere | 1",
    "6D pass pass | 6D | whist pass | 7 2 1",
    "8C pass pass | 8C | pass pass",
)


def record(db: str, game: str, players: tuple[str, ...], when: datetime, *, deals: int, first: int = 0,
           abandon: bool = True) -> None:
    """A pulka to 20 of ``deals`` deals from ``LINES`` (from line ``first`` on), abandoned
    by agreement after the last one [Code 4.2.3]."""
    with Store(db) as store:
        ledger = Ledger(store, clock=Clock(when))
        ledger.create(GameStarted(game=game, players=players, pulya=20, convention="sochi"))
        for k in range(deals):
            ledger.execute(game, lambda st: deal_events(st, LINES[(first + k) % len(LINES)]))
        if abandon:
            ledger.execute(game, lambda st: [Abandoned(agreed_by=players)])

# Few examples, each a whole archive in a store; not shrunk (a failing one is shown as drawn).
FEW = settings(max_examples=2, derandomize=True, deadline=None, phases=(Phase.explicit, Phase.generate),
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                      HealthCheck.data_too_large])


@pytest.fixture
def fresh(store_url: str, postgres_admin: Any) -> Iterator[Callable[[], str]]:
    """A new empty store for each example of a property: a SQLite file beside the test's,
    or a schema of its own in the test's PostgreSQL database (dropped afterwards)."""
    made: list[str] = []
    count = iter(range(10**6))

    def new() -> str:
        k = next(count)
        if not store_url.startswith("postgresql://"):
            return store_url.replace(".db", f"-{k}.db")
        base, _, schema = store_url.partition("?schema=")
        made.append(f"{schema}_{k}")
        postgres_admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(made[-1])))
        return f"{base}?schema={made[-1]}"

    yield new
    for schema in made:
        postgres_admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def players_of(db: str) -> list[str]:
    return [p["player"] for p in doc(db, "players")["players"]]


def games_of(db: str) -> list[str]:
    return [g["game"] for g in doc(db, "games")]


def compare(db: str, player: str, expected: Expected, with_whists: tuple[str, ...]) -> dict[str, Any]:
    got = doc(db, "stats", player)
    numbers = got["numbers"]
    for name in set(expected.counts) | {n for n, v in numbers.items() if v["count"]}:
        listed = doc(db, "stats", player, name, "--deals")["deals"] if name in numbers else []
        extra = [(d["game"], d["deal"], d["event"], d["text"]) for d in listed
                 if (d["game"], d["deal"]) not in expected.refs.get(name, set())]
        assert {(d["game"], d["deal"]) for d in listed} == expected.refs.get(name, set()), (player, name, extra)
        assert numbers.get(name, {"count": 0})["count"] == expected.counts.get(name, 0), (player, name)
    for name in with_whists:
        if expected.counts.get(name):
            shown = numbers[name]
            assert Fraction(shown.get("whists_exact", shown["whists"])) == expected.whists[name], (player, name)
    return got


# -- statistics --------------------------------------------------------------------------------


@FEW
@given(logs=club_archive(recording=True))
def test_statistics_equal_those_worked_out_from_the_games(fresh: Callable[[], str], logs: list[list[AnyEvent]]) -> None:
    """Counts and the deals behind them, for every player of a generated archive with
    corrections, objections, late records, penalties and changes of players."""
    db = fresh()
    store_archive(db, logs)
    games = games_of(db)
    for player in players_of(db):
        expected = expected_stats(db, player, games, brought=False)
        compare(db, player, expected, ("pulkas", "pulkas.finished", "pulkas.abandoned", "pulkas.first",
                                       *(n for n in expected.counts if n.startswith("vs."))))


@FEW
@given(logs=club_archive(recording=False))
def test_what_each_deal_brought(fresh: Callable[[], str], logs: list[list[AnyEvent]]) -> None:
    """Each deal's whists are the change of the player's exact result over it (``settle
    --deal``), and the sums by kind of deal add them up; a pulka's deals bring its result."""
    db = fresh()
    store_archive(db, logs)
    games = games_of(db)
    for player in players_of(db):
        expected = expected_stats(db, player, games, brought=True)
        got = compare(db, player, expected, ("deals",))
        listed = doc(db, "stats", player, "deals", "--deals")["deals"]
        by_deal = {(d["game"], d["deal"]): Fraction(d.get("whists_exact", d["whists"])) for d in listed}
        for name in ("contracts", "contracts.made", "contracts.remiz", "misere", "defence.whist",
                     "defence.pass", "defence.half_whist", "raspasy"):
            refs = expected.refs.get(name, set())
            if refs:
                total = sum((by_deal[r] for r in refs), Fraction(0))
                shown = got["numbers"][name]
                assert Fraction(shown.get("whists_exact", shown["whists"])) == total, (player, name)
        for game in games:
            # A pulka's deals bring its result to whoever held his seat throughout: not to
            # a newcomer (the join writes before his first deal), one replaced or one who left.
            settled = doc(db, "settle", game)
            started = json.loads(cli(db, "export", game).splitlines()[0])["players"]
            if player in started and player not in settled.get("held_by", {}) and player not in settled.get("left", []):
                mine = sum((w for (g, _), w in by_deal.items() if g == game), Fraction(0))
                assert mine == Fraction(settled["result_exact"][player]), (player, game)


def test_a_number_leads_to_its_deals_and_events(store_url: str) -> None:
    """Each reference names a deal and the event that decided it, as the export has them."""
    db = store_url
    record(db, "one", ("Anna", "Boris", "Vera"), day(1), deals=6)
    ok = cli(db, "stats", "Anna", "contracts.6", "--deals")
    assert "one deal 1 event 8" in ok  # Anna's 6S, its tricks the 8th event
    listed = doc(db, "stats", "Anna", "contracts.6", "--deals")["deals"]
    exported = [json.loads(line) for line in cli(db, "export", "one").splitlines()]
    assert listed and all(exported[d["event"] - 1]["deal"] == d["deal"] for d in listed)
    assert all(exported[d["event"] - 1]["type"] == "tricks" for d in listed)
    table = csv_out(db, "stats", "Anna", "contracts.6", "--deals", "--csv")
    assert list(table[0]) == ["game", "deal", "event", "whists", "text"]
    assert [(r["game"], int(r["deal"]), int(r["event"])) for r in table] == \
        [(d["game"], d["deal"], d["event"]) for d in listed]


# -- the rating ----------------------------------------------------------------------------


def day(n: int, hour: int = 19) -> datetime:
    return datetime(2026, 1, n, hour, 0, tzinfo=timezone(timedelta(hours=3)))


def finished_at(db: str, game: str) -> str:
    """The time of the event at which the pulka came to be over (and stayed so)."""
    exported = [json.loads(line) for line in cli(db, "export", game).splitlines()]
    n = len(exported)
    while n > 1:
        s = doc(db, "settle", game, "--at", str(n - 1))
        if not (s["finished"] or s["abandoned"]):
            break
        n -= 1
    return str(exported[n - 1]["at"])


def expected_rating(db: str, same: dict[str, str] | None = None, now: datetime | None = None
                    ) -> dict[str, tuple[float, float, int]]:
    """The rating worked again (``rating_worked``) on every pulka over, from what other
    commands say of it: its results (``settle``), the time it came to be over and its
    start and rule set (``export``), its deals (``games``)."""
    same = same or {}
    deals = {g["game"]: g["deals"] for g in doc(db, "games")}
    pulkas = []
    for game in games_of(db):
        s = doc(db, "settle", game)
        if s["finished"] or s["abandoned"]:
            start = json.loads(cli(db, "export", game).splitlines()[0])
            ended = datetime.fromisoformat(finished_at(db, game))
            began = datetime.fromisoformat(start["at"])
            pulkas.append(rating_worked.Pulka(
                game, _micros(began), _micros(ended), deals[game], start["rule_set"]["gora_whist_multiplier"],
                tuple((same.get(p, p), w) for p, w in s["rounded"].items())))
    then = None if now is None else _micros(now)
    return {p: (float(mu), math.sqrt(variance), n) for p, (mu, variance, n) in
            rating_worked.fold(pulkas, then).items()}


def _micros(t: datetime) -> int:
    return round(t.astimezone(timezone.utc).timestamp()) * 10**6


def shown_rating(db: str, *args: str) -> dict[str, tuple[float, float, int]]:
    return {p["player"]: (p["mu"], p["sigma"], p["matches"]) for p in doc(db, "rating", *args)["players"]}


def assert_same(shown: dict[str, tuple[float, float, int]], expected: dict[str, tuple[float, float, int]]) -> None:
    assert set(shown) == set(expected)
    for p, (mu, sigma, n) in expected.items():
        assert shown[p] == (pytest.approx(mu, abs=1e-3), pytest.approx(sigma, abs=1e-3), n), p


@FEW
@given(logs=club_archive(recording=True, pulkas=(4, 6)))
def test_rating_equals_the_model_worked_again_over_the_results(fresh: Callable[[], str], logs: list[list[AnyEvent]]) -> None:
    db = fresh()
    store_archive(db, logs)
    expected = expected_rating(db)
    assert_same(shown_rating(db), expected)
    # Folded again from the archive; at a time long after, everyone's sigma has grown back to the prior's.
    assert_same(shown_rating(db, "--at", "2100-01-01"),
                expected_rating(db, now=datetime(2100, 1, 1, 23, 59, 59, tzinfo=timezone.utc)))
    with Store(db) as store, Views(store) as views:
        kept = dump(views)
        views.rebuild()
        assert dump(views) == kept


def club(db: str) -> None:
    """Four pulkas of five players on four days (each ends at its last deal)."""
    record(db, "g1", ("Anna", "Boris", "Vera"), day(1), deals=3)
    record(db, "g2", ("Anna", "Gleb", "Dina"), day(2), deals=2)
    record(db, "g3", ("Boris", "Gleb", "Vera"), day(3), deals=4)
    record(db, "g4", ("Dina", "Vera", "Anna"), day(4), deals=1)


def test_a_players_history_names_each_game_and_change(store_url: str) -> None:
    db = store_url
    club(db)
    history = doc(db, "rating", "anna")["matches"]
    assert [m["game"] for m in history] == ["g1", "g2", "g4"]
    assert [m["whists"] for m in history] == [doc(db, "settle", g)["rounded"]["Anna"] for g in ("g1", "g2", "g4")]
    for before, after in zip(history, history[1:]):
        assert after["rating_before"] == before["rating"]
    assert all(m["change"] == pytest.approx(m["rating"] - m["rating_before"], abs=2e-3) for m in history)
    assert history[0]["rating_before"] == 0 and history[0]["sigma_before"] == 2  # a newcomer: mu 0, sigma the prior
    text = cli(db, "rating", "Anna")
    assert "g1" in text and "3 pulkas rated" in text
    # Each move in one line: expected, got, the opponents, sigma and the share taken, the move.
    g2 = next(line for line in text.splitlines() if " g2 " in line)
    m = history[1]
    assert (f"expected {round(m['expected']):+d}, got {m['whists']:+d} ({m['place']} of 3); opponents "
            f"{m['opponents']:+.2f}; σ {m['sigma_before']:.2f}→{m['sigma']:.2f}, {m['share']:.0%} taken") in g2


def test_rating_as_of_a_time_is_what_the_archive_said_then(store_url: str) -> None:
    db = store_url
    club(db)
    before_g3 = "2026-01-03T12:00:00+03:00"
    then = shown_rating(db, "--at", before_g3)
    assert set(then) == {"Anna", "Boris", "Vera", "Gleb", "Dina"}
    assert then["Gleb"][2] == 1 and then["Boris"][2] == 1
    assert shown_rating(db, "--at", before_g3) == then  # recomputed the same way
    assert shown_rating(db, "--at", "2025-12-31") == {}
    assert "no pulka over yet" in cli(db, "rating", "--at", "2025-12-31")


def test_as_known_is_the_rating_of_the_store_as_it_stood_then(fresh: Callable[[], str]) -> None:
    """An old sheet (played on the 3rd) stored after a pulka of the 8th: ``--at`` the 6th
    takes it in (played by then), ``--as-known`` the 6th does not (the store did not hold
    it), and equals the rating of a store holding only what this one held then."""
    db, then_db = fresh(), fresh()
    for store in (db, then_db):
        record(store, "g1", ("Anna", "Boris", "Vera"), day(1), deals=3)
        record(store, "g2", ("Anna", "Gleb", "Dina"), day(5), deals=2)
    record(db, "g4", ("Dina", "Vera", "Anna"), day(8), deals=1)
    record(db, "g3", ("Boris", "Gleb", "Vera"), day(3), deals=4)  # the old sheet, stored last
    sixth = "2026-01-06T12:00:00+03:00"
    known = shown_rating(db, "--as-known", sixth)
    assert known == shown_rating(then_db, "--at", sixth) == shown_rating(then_db, "--as-known", sixth)
    assert known["Boris"][2] == 1 and shown_rating(db, "--at", sixth)["Boris"][2] == 2  # g3 played, not held
    assert [m["game"] for m in doc(db, "rating", "Vera", "--as-known", sixth)["matches"]] == ["g1"]
    assert doc(db, "stats", "Gleb", "--as-known", sixth)["numbers"]["pulkas"]["count"] == 1
    assert doc(db, "stats", "Gleb", "--at", sixth)["numbers"]["pulkas"]["count"] == 2
    assert shown_rating(db, "--as-known", "2026-01-09") == shown_rating(db, "--at", "2026-01-09")  # all held
    r = CliRunner().invoke(main, ["rating", "--db", db, "--at", sixth, "--as-known", sixth])
    assert r.exit_code != 0 and "only one of --at and --as-known" in r.output


@pytest.mark.sqlite_only
def test_a_tournaments_standings_as_the_store_held_them(tmp_path: Any) -> None:
    """A tournament played on 1 March and imported after a pulka of 10 March: by the
    time it was played it stands on the 5th; the store held it only from the 10th."""
    exported = tmp_path / "cup.jsonl"
    exported.write_text(tournament_export(str(tmp_path / "source.db")), encoding="utf-8")
    db = str(tmp_path / "club.db")
    record(db, "march", ("Anna", "Boris", "Vera"), datetime(2026, 3, 10, 19, tzinfo=timezone.utc), deals=1)
    cli(db, "import", str(exported))
    now = doc(db, "tournament", "standings", "cup")
    assert doc(db, "tournament", "standings", "cup", "--as-known", "2026-03-11") == now
    assert doc(db, "tournament", "standings", "cup", "--time", "2026-03-05")["standings"]
    r = CliRunner().invoke(main, ["tournament", "standings", "cup", "--as-known", "2026-03-05", "--db", db])
    assert r.exit_code == 1 and "the store held no tournament 'cup' at 2026-03-05" in r.output


def test_a_change_of_model_is_an_event_and_both_tables_stay_readable(store_url: str) -> None:
    """The club changes its model: the table from then on is the new model's, the table
    as the store held it before is the old one's, and ``--model`` folds with either."""
    db = store_url
    club(db)
    before = doc(db, "rating")
    assert before["model"]["model"] == "whists-per-deal"
    cli(db, "rating-model", "openskill-places", "--param", "margin=40", "--reason", "compare", "--by", "arbiter:Oleg")
    after = doc(db, "rating")
    assert after["model"] == {**before["model"], "model": "openskill-places", "parameters": {"margin": "40"},
                              "rating": "mu - 3 sigma", "expected": "place"}
    assert after["players"] != before["players"]
    assert doc(db, "rating", "--as-known", "2026-01-05")["players"] == \
        doc(db, "rating", "--model", "whists-per-deal", "--at", "2026-01-05")["players"]
    assert doc(db, "rating", "--model", "openskill-places", "--param", "margin=40")["players"] == after["players"]
    assert "the club is rated by openskill-places (margin=40)" in cli(db, "rating-model")
    r = CliRunner().invoke(main, ["rating-model", "elo", "--db", db, "--by", "arbiter:Oleg"])
    assert r.exit_code == 1 and "not a rating model" in r.output and doc(db, "rating") == after


def test_a_correction_of_an_old_pulka_moves_the_ratings_after_it(store_url: str) -> None:
    """A late correction of g1's last tricks by its recorder [Code 4.2.9] changes g1's
    result: every rating after it is folded again, as a replay of all the pulkas would."""
    db = store_url
    club(db)
    before = shown_rating(db)
    with Store(db) as store:
        stored = [s.event for s in store.load("g1")]
        number = min(n for n, e in enumerate(stored, start=1) if type(e).__name__ == "Tricks")
        target = stored[number - 1]
        declarer, *defenders = target.tricks  # type: ignore[attr-defined]  # from the forehand: Anna's 6S
        fixed = {declarer: 4, defenders[0]: 3, defenders[1]: 3}
        Ledger(store, clock=Clock(day(5))).execute(
            "g1", lambda st: [Correction(target=number, replacement={"tricks": fixed}, by=target.by)])
    after = shown_rating(db)
    assert after != before
    assert_same(after, expected_rating(db))
    assert after["Dina"] != before["Dina"]  # Dina never sat at g1: moved by g2 and g4
    with Store(db) as store, Views(store) as views:
        kept = dump(views)
        views.rebuild()
        assert dump(views) == kept


def test_an_alias_joins_two_players_ratings(store_url: str) -> None:
    db = store_url
    club(db)
    record(db, "g5", ("Anna P.", "Gleb", "Boris"), day(5), deals=2)
    cli(db, "alias", "Anna P.", "Anna", "--by", "arbiter:Oleg")
    assert "Anna P." not in shown_rating(db)
    assert_same(shown_rating(db), expected_rating(db, {"Anna P.": "Anna"}))


def test_a_convention_rates_its_own_pulkas(store_url: str) -> None:
    db = store_url
    record(db, "s1", ("Anna", "Boris", "Vera"), day(1), deals=2)
    with Store(db) as store:
        ledger = Ledger(store, clock=Clock(day(2)))
        ledger.create(GameStarted(game="l1", players=("Anna", "Boris", "Gleb"), pulya=20, convention="leningrad"))
        ledger.execute("l1", lambda st: deal_events(st, LINES[0]))
        ledger.execute("l1", lambda st: [Abandoned(agreed_by=("Anna", "Boris", "Gleb"))])
    assert set(shown_rating(db, "--convention", "piter")) == {"Anna", "Boris", "Gleb"}
    assert shown_rating(db, "--convention", "leningrad")["Anna"][2] == 1
    assert doc(db, "stats", "Anna", "--convention", "piter")["numbers"]["pulkas"]["count"] == 1
    assert [p["game"] for p in doc(db, "stats", "Boris", "--from", "2026-01-02")["pulkas"]] == ["l1"]
    assert [p["game"] for p in doc(db, "stats", "Boris", "--to", "2026-01-01")["pulkas"]] == ["s1"]


def test_the_update_after_one_more_pulka_does_not_grow_with_the_archive(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the rating reads and writes for a pulka that ends after every other is the same
    in an archive of two pulkas and of eight: its players' last skills, its own rows."""
    db = store_url
    work: list[str] = []
    keep = rating.keep

    def counted(tx: rating.Tx, results: Any, everything_moved: bool) -> None:
        class Counting:
            def execute(self, statement: str, params: Any = ()) -> None:
                work.append(statement)
                tx.execute(statement, params)

            def query(self, statement: str, params: Any = ()) -> list[tuple[Any, ...]]:
                work.append(statement)
                return tx.query(statement, params)

        keep(Counting(), results, everything_moved)

    monkeypatch.setattr(rating, "keep", counted)
    costs = []
    for size in (2, 8):
        for k in range(size):
            record(db, f"a{size}-{k}", tuple(CLUB[(k + i) % 6] for i in range(3)), day(1 + k), deals=2)
        cli(db, "players")
        work.clear()
        record(db, f"last{size}", ("Anna", "Boris", "Vera"), day(20 + size), deals=2)
        cli(db, "players")
        costs.append(len(work))
    assert costs[0] == costs[1]
    assert doc(db, "rating", "Anna")["matches"][-1]["game"] == "last8"


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.sqlite_only
def test_refusals_say_what_would_be_allowed(store_url: str) -> None:
    db = store_url
    record(db, "one", ("Anna", "Boris", "Vera"), day(1), deals=2)

    def run(*args: str) -> Any:
        return CliRunner().invoke(main, [*args, "--db", db])

    r = run("rating", "Zoya")
    assert r.exit_code == 1 and "Zoya" in r.stderr and "rated: Anna, Boris, Vera" in r.stderr
    r = run("stats", "Anna", "contracts.12")
    assert r.exit_code == 1 and "has no number 'contracts.12'" in r.stderr and "pulkas" in r.stderr
    r = run("stats", "Zoya")
    assert r.exit_code == 1 and "no pulka of 'Zoya'" in r.stderr
    assert run("stats", "Anna", "--deals").exit_code == 2
    assert run("rating", "--json", "--csv").exit_code == 2
    r = run("rating", "--at", "yesterday")
    assert r.exit_code == 1 and "Traceback" not in r.output
    r = run("stats", "Anna", "--from", "May")
    assert r.exit_code == 1 and "not a date" in r.stderr


@pytest.mark.sqlite_only
def test_csv_and_text(store_url: str) -> None:
    db = store_url
    record(db, "one", ("Anna", "Boris", "Vera"), day(1), deals=2)
    table = csv_out(db, "rating", "--csv")
    assert list(table[0]) == ["place", "player", "rating", "mu", "sigma", "provisional", "matches", "last_game",
                              "last_played"]
    assert sorted(r["player"] for r in table) == ["Anna", "Boris", "Vera"]
    stats = csv_out(db, "stats", "Boris", "--csv")
    assert list(stats[0]) == ["number", "count", "whists"] and {"number": "pulkas", "count": "1"}.items() <= \
        next(r for r in stats if r["number"] == "pulkas").items()
    assert "club rating (now)" in cli(db, "rating")
    assert "Boris: statistics (now)" in cli(db, "stats", "Boris")


def test_views_made_before_the_rating_are_built_again_whole(tmp_path: Any) -> None:
    """A store whose views predate the rating tables: a read refuses until they are made;
    a new game makes them and the next read builds every view from the first event."""
    import sqlite3

    db = str(tmp_path / "old.db")
    club(db)
    cli(db, "players")
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE rating_moves")
        conn.execute("DROP TABLE archive_known")
    r = CliRunner().invoke(main, ["rating", "--db", db])
    assert r.exit_code == 1 and "pulka views rebuild" in r.stderr
    cli(db, "new", "g9", "--players", "Anna,Boris,Vera")
    assert_same(shown_rating(db), expected_rating(db))
