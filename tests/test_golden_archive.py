"""The golden club file (``fixtures/club``, described in its README): a club's archive as
``pulka export --club`` writes it (the register with its aliases, a tournament with its
table, pulkas of three and four, one abandoned, one in play), imported at the door of
a file of several streams (``import_streams``) and read at the archive's doors
(``ledger.views.archive.Views``: rows, aliases, the rating kept in SQL), folded by the
pure folds (``projections.archive``, ``projections.rating``, ``projections.stats``).

The numbers are those its expected file holds, worked by hand (the rating's worked
outside pulka's code, by ``rating_worked`` in exact fractions); each is also worked out
again here without the ledger's archive code (``golden_archive``): the pulkas' results
by ``independent_scorer``, the rating by the model's matrix form from the documented
parameters, every player's statistics counted from the deals. The views run on both
stores (their SQL and the rating kept in it are the store's).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import golden_archive
from golden_archive import Club
from ledger.application import Ledger
from ledger.desks.streams import club_export, import_streams
from ledger.judge.kinds import judge_log
from ledger.store.event_store import Store
from ledger.views.archive import Views
from ledger.views.rating import kept_changes, kept_matches, matches_then
from ledger.vocabulary.club import PlayerAliased
from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.logfile import split_streams
from readings import dump, parse_export
from ledger.vocabulary.times import utc_micros
from ledger.vocabulary.tournament_events import TournamentStarted
from projections import rating as model
from projections.archive import Alias, PulkaRow, player_pulkas, identities, summaries, summary_doc
from projections.stats import Stats, mine, player_stats

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "club" / "golden_club.jsonl"
EXPECTED: dict[str, Any] = json.loads(FIXTURE.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
PLAYERS = ("Anna", "Boris", "Vera", "Gleb", "Dina")


def clock() -> str:
    return "2026-03-01T12:00:00+00:00"


def independent(as_of: str | None = None) -> Club:
    """The club worked out again from the file: each pulka judged (for its deal numbers)
    and counted by ``golden_archive``; ``as_of``: the pulkas started and aliases
    recorded by then, the pulkas as they stood then."""
    pulkas, aliases, caps = [], [], {}
    when = None if as_of is None else utc_micros(as_of)
    for stream in split_streams(parse_export(FIXTURE.read_text(encoding="utf-8"))):
        first = stream[0].event
        if isinstance(first, TournamentStarted):
            caps[first.game] = first.deal_cap
        elif isinstance(first, GameStarted):
            lines = [(line.line, line.event) for line in stream
                     if when is None or utc_micros(line.event.at or "") <= when]
            if lines:
                pulkas.append(golden_archive.pulka(judge_log(lines, clock), caps.get(first.game.split("/")[0])))
        else:
            aliases += [(e.name, e.same_as) for e in (line.event for line in stream[1:])
                        if isinstance(e, PlayerAliased) and (when is None or utc_micros(e.at or "") <= when)]
    return Club(pulkas, aliases)


def shown(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "average"}


def counted(stats: Stats) -> dict[str, tuple[int, Fraction | None]]:
    """The ledger's numbers that count something."""
    return {name: (t.count, t.whists) for name, t in stats.numbers.items() if t.count}


def worked(club: Club, player: str) -> dict[str, tuple[int, Fraction | None]]:
    return {name: (c.count, c.whists) for name, c in golden_archive.Counter(club, golden_archive.key(player))
            .totals().items()}


# -- the hand-worked numbers, counted again -----------------------------------------------------


def test_the_hand_worked_numbers_are_those_counted_again() -> None:
    club = independent()
    pulkas = {p.game: p for p in club.pulkas}
    assert sorted(pulkas) == sorted(EXPECTED["pulkas"])
    for game, want in EXPECTED["pulkas"].items():
        p = pulkas[game]
        assert (p.status, p.deals, p.whists, p.money, p.over_at) == \
            (want["status"], want["deals"], want["whists"], want["money"], want["over_at"]), game
        assert sum(p.exact.values()) == 0 and sum(p.whists.values()) == 0
    assert [list(a) for a in club.aliases] == EXPECTED["aliases"]
    assert club.totals() == EXPECTED["players"]
    assert [p.game for p in club.matches()] == EXPECTED["rating"]["matches"]
    same_rating(club.rating(), {p: tuple(v) for p, v in EXPECTED["rating"]["players"].items()}, 5e-7)
    for player, numbers in EXPECTED["stats"].items():
        mine_ = worked(club, player)
        for name, want in numbers.items():
            assert mine_[name][0] == want[0], (player, name)
            if len(want) > 1:
                assert mine_[name][1] == want[1], (player, name)
        # What the deals brought adds up to the player's exact results [Code 4.2.14].
        assert mine_["deals"][1] == sum((p.exact[n] for p in club.pulkas for n in p.players
                                         if club.who(n) == golden_archive.key(player)), Fraction(0))
    then = independent(EXPECTED["as_of"]["time"])
    assert sorted(p.game for p in then.pulkas) == EXPECTED["as_of"]["pulkas"]
    assert then.aliases == [tuple(a) for a in EXPECTED["as_of"]["aliases"]]
    assert then.totals() == EXPECTED["as_of"]["players"]
    same_rating(then.rating(), {p: tuple(v) for p, v in EXPECTED["as_of"]["rating"].items()}, 5e-7)


# -- at the archive's doors ---------------------------------------------------------------------------


@dataclass
class Read:
    rows: list[PulkaRow]
    aliases: list[Alias]
    changes: list[model.Change]
    matches: list[model.Match]


def imported(db: str) -> None:
    """The club file stored as ``pulka import`` stores it: every stream in one
    transaction, into an empty store."""
    with Store(db) as store:
        ledger = Ledger(store, clock=clock)
        done = import_streams(ledger, split_streams(parse_export(FIXTURE.read_text(encoding="utf-8"))))
        assert {d.stream for d in done} == {"@club", "club-cup", *EXPECTED["pulkas"]}


@pytest.fixture
def club_db(store_url: str) -> Iterator[str]:
    imported(store_url)
    yield store_url


def read(views: Views, as_of: int | None = None) -> Read:
    views.catch_up()
    select = views.view.select
    matches = kept_matches(select) if as_of is None else matches_then(select, as_of)
    aliases = views.aliases(as_of)
    changes = kept_changes(select) if as_of is None else model.rate_matches(matches, model.keys_of(aliases))
    return Read(views.rows(as_of), aliases, changes, matches)


def rating_table(found: Read) -> dict[str, tuple[float, float, int]]:
    lines = model.table(found.changes, identities(found.rows, found.aliases))
    return {x.player: (x.skill.mu, x.skill.sigma, x.matches) for x in lines}


def same_rating(shown_: dict[str, tuple[float, float, int]], expected: dict[str, tuple[float, float, int]],
                within: float = 1e-9) -> None:
    assert set(shown_) == set(expected)
    for player, (mu, sigma, n) in expected.items():
        got_mu, got_sigma, got_n = shown_[player]
        assert (got_mu, got_sigma) == pytest.approx((mu, sigma), abs=within) and got_n == n, player


def test_the_archive_views_give_the_register_history_rating_and_statistics(club_db: str) -> None:
    club = independent()
    with Store(club_db) as store, Views(store) as views:
        found = read(views)
        assert views.left_out() == []
        # Every pulka as the archive says now.
        rows = {r.game: r for r in found.rows}
        assert sorted(rows) == sorted(EXPECTED["pulkas"])
        for game, want in EXPECTED["pulkas"].items():
            r = rows[game].result
            assert (r.status, r.deals, r.whists, r.money, rows[game].tournament) == \
                (want["status"], want["deals"], want["whists"], want["money"], want["tournament"]), game
        assert [(a.name, a.same_as) for a in found.aliases] == [tuple(a) for a in EXPECTED["aliases"]]
        # The register: the players' totals, and one player's history.
        assert [shown(summary_doc(s)) for s in summaries(found.rows, found.aliases)] == EXPECTED["players"]
        anna = player_pulkas(found.rows, found.aliases, "anya")
        assert anna is not None and anna.player == "Anna"
        assert list(anna.spellings) == EXPECTED["history"]["Anna"]["spellings"]
        assert [{"game": line.row.game, "seat": line.seat, "whists": line.whists, "running": line.running,
                 "status": line.row.result.status} for line in anna.lines] == EXPECTED["history"]["Anna"]["pulkas"]
        assert player_pulkas(found.rows, found.aliases, "Zoya") is None
        # The rating kept in SQL: its matches in order, the model's numbers (the fixture's,
        # worked outside pulka's code, and worked again here), and the same moves a fold of
        # its matches gives.
        assert [m.game for m in model.ordered(found.matches)] == EXPECTED["rating"]["matches"]
        same_rating(rating_table(found), club.rating())
        same_rating(rating_table(found), {p: tuple(v) for p, v in EXPECTED["rating"]["players"].items()}, 5e-7)
        refolded = model.rate_matches(found.matches, model.keys_of(found.aliases))
        assert sorted(refolded, key=lambda c: (c.key, c.player)) == sorted(found.changes, key=lambda c: (c.key, c.player))
        # Every player's statistics, counted from the deals.
        for player in PLAYERS:
            stats = player_stats(found.rows, found.aliases, player,
                                 ((row, [s.event for s in store.sound(row.game)])
                                  for row in mine(found.rows, found.aliases, player)))
            assert stats is not None and stats.player == player
            assert counted(stats) == worked(club, player), player
            assert [(p.game, p.whists) for p in stats.pulkas] == \
                [(p.game, p.whists[n]) for p in sorted(club.pulkas, key=lambda p: (p.started_at, p.game))
                 for n in p.players if club.who(n) == golden_archive.key(player)]
        # Built again from the first event, the views are the same.
        kept = dump(views)
        views.rebuild()
        assert dump(views) == kept


def test_the_archive_as_it_stood_before_the_alias(club_db: str) -> None:
    """As of a time: the pulkas started by then with their results then, the aliases
    recorded by then (none: Anya is a player of her own), and the rating folded again
    from the matches as the archive held them."""
    then = EXPECTED["as_of"]
    club = independent(then["time"])
    with Store(club_db) as store, Views(store) as views:
        found = read(views, utc_micros(then["time"]))
    assert sorted(r.game for r in found.rows) == then["pulkas"]
    assert found.aliases == []
    assert [shown(summary_doc(s)) for s in summaries(found.rows, found.aliases)] == then["players"]
    assert sorted(m.game for m in found.matches) == then["pulkas"]
    same_rating(rating_table(found), club.rating())


def test_the_club_export_brings_the_same_archive_into_an_empty_store(club_db: str, tmp_path: Path) -> None:
    with Store(club_db) as store:
        exported = "".join(line + "\n" for line in club_export(Ledger(store, clock=clock)))
        with Views(store) as views:
            before = read(views)
    copy = str(tmp_path / "copy.db")
    with Store(copy) as store:
        import_streams(Ledger(store, clock=clock), split_streams(parse_export(exported)))
        with Views(store) as views:
            after = read(views)
    assert sorted(after.rows, key=lambda r: r.game) == sorted(before.rows, key=lambda r: r.game)
    assert after.aliases == before.aliases
    assert [summary_doc(s) for s in summaries(after.rows, after.aliases)] == \
        [summary_doc(s) for s in summaries(before.rows, before.aliases)]
    same_rating(rating_table(after), rating_table(before))

