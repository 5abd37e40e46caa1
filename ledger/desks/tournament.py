"""The command side of a tournament: each command loads the tournament's stream once,
decides its events against the fold (``projections.tournament_state``), and saves them in one
append, like ``Ledger.execute`` for a game.

- ``create`` judges the rules and records ``tournament_started`` with the resolved rule set;
- ``seat`` (by hand) and ``seat_auto`` (by lot, Swiss, or the final table) record a tour's
  seating; ``start_tables`` starts every seated table's game ``T/R/K``;
- ``close`` closes a tour once every table's pulka is over, recording each table's result
  and what follows from it: yellow cards and removals below the threshold, a
  disqualification at the last card, a cut;
- ``card`` records an arbiter's yellow card;
- ``standings``, ``export`` and ``import_streams`` read, write out and bring back a whole
  tournament with its games (the import in one transaction, as ``start_tables``);
- ``judged`` is ``verify``'s judgement of a stored tournament with its tables' games, as
  ``judge_streams`` judges its export.

A tournament is read only while its chain holds and every event of it is a
tournament's (``tables.read_tournament``), and its tables only while theirs hold. The
close depends on its tables, a table's record on its tournament: each is stored only if
what it read of the other is unchanged (``Store.append``'s ``unchanged``), and decided
again when it is not (``application.retried``).

Each refusal names the rule (``tournament.*``, documented in docs/conventions.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ledger.judge.admission import GAME_MAX, admit
from ledger.application import Ledger, Outcome, retried, stale_read
from ledger.proofs.checkpoints import attest_close
from ledger.judge.checks import is_arbiter, time_of
from ledger.judge.kinds import GAME_STARTS, judge_log, judging_of
from ledger.judge.seating import by_lot, swiss, table_sizes
from ledger.store.event_store import (
    Append,
    BrokenChainError,
    ConcurrentWriteError,
    Store,
    StoredEvent,
    UnreadableEventError,
)
from ledger.judge.tables import judge_table, read_tournament
from ledger.views.archive import ensure_views
from ledger.judge.register import judge_register, rows_of
from ledger.vocabulary.club import CLUB_STREAM, RESERVED_PREFIX, ClubStarted
from ledger.vocabulary import language
from ledger.vocabulary.chain import GENESIS, ChainProblem
from ledger.vocabulary.events import AnyEvent, GameStarted, StreamStart, encode_event, event_type
from ledger.vocabulary.logfile import LogLine, check_export, export_line
from ledger.vocabulary.names import name_key
from ledger.vocabulary.notes import Signer
from ledger.vocabulary.refusal import Refused, excerpt
from ledger.vocabulary.rules import RuleSetError, check, resolve
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.tournament_events import (
    TALLIED,
    TIE_BREAKS,
    CutMade,
    Disqualified,
    Removed,
    Seated,
    TableClosed,
    TourClosed,
    TournamentEvent,
    TournamentStarted,
    YellowCard,
    parse_table_game,
    rate_of,
    table_game,
)
from projections.archive import GameResult, game_result
from projections.game import GameState, replay
from projections.report import Point, cut
from projections.tournament_state import (
    Standings,
    TournamentState,
    as_of,
    fold,
    standings,
    tallies_of,
)
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect
ngettext = language.ngettext

TOURNAMENT_MAX = GAME_MAX - 20  # leaves room for /TOUR/TABLE in its games' names


@dataclass(frozen=True)
class TableGame:
    """A table's game as the command side sees it: its state, event count and last digest."""

    state: GameState
    events: int
    digest: str


# -- judging ---------------------------------------------------------------------------


def judge_start(event: TournamentStarted) -> TournamentStarted:
    """Judge a tournament's rules and return them with the resolved rule set recorded."""
    admit(event)
    name = event.game
    if not name.strip() or "/" in name or name.startswith(RESERVED_PREFIX):
        raise Refused("tournament.name", _("a tournament's name may not be empty, hold '/' or begin with "
                                           "{prefix}: {name}").format(prefix=repr(RESERVED_PREFIX), name=repr(name)),
                      _("e.g. spring-cup"))
    if len(name) > TOURNAMENT_MAX:
        raise Refused("tournament.name", ngettext("a tournament's name is {n} character long",
                                                  "a tournament's name is {n} characters long", len(name)).format(
                          n=len(name)),
                      _("at most {most}, so that its tables' games (NAME/TOUR/TABLE) have names too").format(
                          most=TOURNAMENT_MAX))
    players = event.players
    if len(players) < 3:
        raise Refused("tournament.players", _("a tournament needs 3 players or more, not {count}").format(
            count=len(players)))
    if any(p.startswith("arbiter:") for p in players):
        raise Refused("tournament.players", _("a player's name may not begin with 'arbiter:'"))
    if event.pulya < 1:
        raise Refused("4.2.2", _("the pulya target must be a positive number of points, not {pulya}").format(
            pulya=event.pulya))
    try:
        resolved = resolve(event.convention, event.rules)
        if event.rule_set is not None and event.rule_set != resolved:
            check(event.rule_set)
            resolved = event.rule_set
    except RuleSetError as exc:
        raise Refused("rules.md §9", str(exc)) from None
    if event.table_size not in (3, 4):
        raise Refused("1.2", _("a table seats 3 or 4 players, not {count}").format(count=event.table_size),
                      _("3 or 4"))
    _judge_seatable(len(players), event.table_size)
    if event.tours is not None and event.tours < 1:
        raise Refused("tournament.tours", _("the number of tours must be 1 or more, not {tours}").format(
            tours=event.tours))
    if event.deal_cap is not None and event.deal_cap < 1:
        raise Refused("tournament.deal_cap", _("the deal cap must be 1 or more, not {cap}").format(cap=event.deal_cap))
    if event.cards_to_disqualify < 1:
        raise Refused("tournament.cards", _("the cards that disqualify must be 1 or more"))
    _judge_cutoff(event)
    _judge_tie_breaks(event)
    _judge_cuts(event)
    if event.by is not None and not is_arbiter(event.by):
        raise Refused("tournament.arbiter", _("a tournament is recorded by its arbiter, not {by}").format(
            by=repr(event.by)), "arbiter:NAME")
    if event.at is not None:
        time_of(event.at)
    return msgspec.structs.replace(event, rule_set=resolved, deal=None)


def _judge_cutoff(event: TournamentStarted) -> None:
    lower = 0
    for i, segment in enumerate(event.cutoff):
        try:
            rate = rate_of(segment)
        except (ValueError, ZeroDivisionError):
            raise Refused("tournament.cutoff", _("rate {rate} is not a number").format(rate=repr(segment.rate)),
                          _('e.g. "1", "1/10" or "0.1"')) from None
        if rate < 0:
            raise Refused("tournament.cutoff", _("rate {rate} is negative").format(rate=segment.rate), _("0 or more"))
        if segment.upto is None:
            if i != len(event.cutoff) - 1:
                raise Refused("tournament.cutoff", _("only the last segment may be unbounded (*)"))
        elif segment.upto <= lower:
            raise Refused("tournament.cutoff", _("segment bounds must rise: {bound} after {lower}").format(
                bound=segment.upto, lower=lower), _("a bound above {lower}").format(lower=lower))
        else:
            lower = segment.upto


def _judge_seatable(players: int, usual: int, after_cut: int | None = None) -> None:
    """Refuse a count of players that no tour could seat at tables of 3 and 4 [Code 1.2]
    (of the tournament, or left by the cut after tour ``after_cut``), naming the nearest
    counts that could be seated."""
    if table_sizes(players, usual) is not None:
        return
    near = {n: table_sizes(n, usual) or [] for n in (players - 1, players + 1) if n >= 3}
    seats = "; ".join(ngettext("{n} player: one table of {size}", "{n} players: one table of {size}", n).format(
                          n=n, size=sizes[0]) if len(sizes) == 1 else
                      ngettext("{n} player: tables of {sizes}", "{n} players: tables of {sizes}", n).format(
                          n=n, sizes=", ".join(map(str, sizes)))
                      for n, sizes in near.items() if sizes)
    if after_cut is None:
        reason = ngettext("a tournament of {n} player cannot be seated at tables of 3 and 4",
                          "a tournament of {n} players cannot be seated at tables of 3 and 4", players).format(n=players)
    else:
        reason = ngettext("after the cut after tour {tour}, {n} player cannot be seated at tables of 3 and 4",
                          "after the cut after tour {tour}, {n} players cannot be seated at tables of 3 and 4",
                          players).format(tour=after_cut, n=players)
    raise Refused("1.2", reason, seats or _("3 players or more"))


def _judge_tie_breaks(event: TournamentStarted) -> None:
    """Each tie-break once, of those known; the lot last (nothing after it can matter),
    and with its seed recorded (``create`` draws one when none is given)."""
    breaks = event.tie_breaks
    if len(set(breaks)) != len(breaks) or any(b not in TIE_BREAKS for b in breaks):
        raise Refused("tournament.tie_breaks", _("tie-breaks {breaks}").format(breaks=", ".join(breaks)),
                      _("an order of {known}, each once").format(known=", ".join(TIE_BREAKS)))
    if "lot" in breaks[:-1]:
        raise Refused("tournament.tie_breaks", _("the lot separates every tie: nothing after it can matter"),
                      _("lot as the last tie-break"))
    if "lot" in breaks and not event.lot_seed:
        raise Refused("tournament.tie_breaks", _("a drawing of lots records its seed (lot_seed)"),
                      _("a seed, e.g. --lot-seed 2026"))
    if event.lot_seed is not None and "lot" not in breaks:
        raise Refused("tournament.tie_breaks", _("a lot seed is given, but the lot is not a tie-break"),
                      _("lot as the last of the tie-breaks ({order})").format(order=", ".join((*breaks, "lot"))))


def _judge_cuts(event: TournamentStarted) -> None:
    last_after, last_keep = 0, len(event.players)
    tours = event.tours
    for rule in event.cuts:
        if rule.after_tour <= last_after or (tours is not None and rule.after_tour >= tours):
            raise Refused("tournament.cuts", _("a cut after tour {tour}").format(tour=rule.after_tour),
                          _("cuts after rising tours before the last ({tours})").format(tours=tours) if tours
                          else _("cuts after rising tours"))
        if not 3 <= rule.keep < last_keep:
            raise Refused("tournament.cuts", _("a cut to {keep} players").format(keep=rule.keep),
                          _("3 to {most}").format(most=last_keep - 1))
        _judge_seatable(rule.keep, event.table_size, rule.after_tour)
        last_after, last_keep = rule.after_tour, rule.keep
    if event.final_table is not None:
        if event.final_table not in (3, 4):
            raise Refused("tournament.final", _("a final table of {size}").format(size=event.final_table),
                          _("3 or 4 players"))
        if event.final_table > last_keep:
            raise Refused("tournament.final", _("a final table of {size} from {players} players").format(
                              size=event.final_table, players=last_keep),
                          _("a final table of 3 or 4") if last_keep >= 4 else _("a final table of 3"))
        if tours is None or tours < 2:
            raise Refused("tournament.final", _("a final table needs a number of tours, 2 or more"), "--tours K")
        if last_after >= tours - 1:
            raise Refused("tournament.final", _("a cut after tour {tour} leaves no tour before the final").format(
                tour=last_after), _("cuts after tours before {tour}").format(tour=tours - 1))


def resolve_player(state: TournamentState, name: str) -> str:
    """The entrant a written name is (compared by ``name_key``), or a refusal listing them."""
    key = name_key(name)
    for player in state.players:
        if name_key(player) == key:
            return player
    raise Refused("tournament.players", _("{name} is not a player of {tournament}").format(
        name=repr(name), tournament=state.name), ", ".join(state.players))


def _open_tour(state: TournamentState, tour: int) -> None:
    """A tour may be seated when the one before it is closed and it is not."""
    tours = state.started.tours
    if tour < 1 or (tours is not None and tour > tours):
        raise Refused("tournament.tours", _("{tournament} has no tour {tour}").format(tournament=state.name, tour=tour),
                      _("tours 1 to {tours}").format(tours=tours) if tours else _("tours from 1"))
    if tour in state.closed:
        raise Refused("tournament.closed", _("tour {tour} of {tournament} is closed").format(
            tour=tour, tournament=state.name))
    if tour > 1 and tour - 1 not in state.closed:
        raise Refused("tournament.seating", _("tour {tour} can be seated once tour {previous} is closed").format(
            tour=tour, previous=tour - 1), f"pulka tournament close {state.name} {tour - 1}")


def judge_seated(state: TournamentState, event: Seated) -> Seated:
    """Judge one table's seating against the tournament so far."""
    tour, table = event.tour, event.table
    _open_tour(state, tour)
    if table < 1:
        raise Refused("tournament.seating", _("tables are numbered from 1, not {table}").format(table=table))
    if table in state.seating.get(tour, {}):
        raise Refused("tournament.seating", _("table {table} of tour {tour} is seated already: {players}").format(
            table=table, tour=tour, players=", ".join(state.seating[tour][table])), _("another table"))
    players = tuple(resolve_player(state, p) for p in event.players)
    if len(players) not in (3, 4):
        raise Refused("1.2", _("a table seats 3 or 4 players, not {count}").format(count=len(players)),
                      _("3 or 4 players"))
    twice = next((p for i, p in enumerate(players) if p in players[:i]), None)
    if twice is not None:
        raise Refused("tournament.seating", _("{player} is seated twice at table {table}").format(
            player=twice, table=table))
    for p in players:
        elsewhere = state.table_of(tour, p)
        if elsewhere is not None:
            raise Refused("tournament.seating", _("{player} is seated twice in tour {tour}: already at table "
                                                  "{table}").format(player=p, tour=tour, table=elsewhere),
                          _("each player at one table a tour"))
        _judge_eligible(state, tour, p)
    final = state.final_tour
    if final is not None and tour == final:
        # The finalists still in: those the cut kept (in its order), less any disqualified since.
        eligible = state.eligible(tour)
        finalists = [p for p in state.cuts[-1].kept if p in eligible] if state.cuts else eligible
        if state.seating.get(tour) or set(players) != set(finalists):
            raise Refused("tournament.final", _("tour {tour} is the final: one table of the finalists "
                                                "({finalists})").format(tour=tour, finalists=", ".join(finalists)),
                          ", ".join(finalists))
    if event.method == "lot" and not event.seed:
        raise Refused("tournament.seating", _("a seating by lot records its seed"))
    return msgspec.structs.replace(event, players=players, deal=None)


def _judge_eligible(state: TournamentState, tour: int, player: str) -> None:
    if player in state.disqualified:
        d = state.disqualified[player]
        # The reason is the one recorded (stored): quoted as it is, in English.
        raise Refused("tournament.removal", (
            _("{player} was disqualified in tour {tour} ({reason})") if d.reason
            else _("{player} was disqualified in tour {tour}")).format(player=player, tour=d.tour, reason=d.reason),
            _("players still in the tournament"))
    made = state.cut_at(player)
    if made is not None:
        raise Refused("tournament.cuts", _("{player} did not pass the cut after tour {tour}").format(
            player=player, tour=made.after_tour), ", ".join(made.kept))
    removed = state.removed.get(tour, {}).get(player)
    if removed is not None:
        raise Refused("tournament.removal", (
            _("{player} is removed for tour {tour} ({reason})") if removed.reason
            else _("{player} is removed for tour {tour}")).format(player=player, tour=tour, reason=removed.reason),
            _("{player} again from tour {tour}").format(player=player, tour=tour + 1))


def tables_closed(state: TournamentState, tour: int, games: Mapping[str, TableGame]) -> TourClosed:
    """The close of ``tour``: every seated table's game must be over (finished, abandoned,
    or at the deal cap); each table's result is recorded with the game's last digest."""
    if tour in state.closed:
        raise Refused("tournament.closed", _("tour {tour} of {tournament} is closed already").format(
            tour=tour, tournament=state.name))
    seated = state.seating.get(tour)
    if not seated:
        raise Refused("tournament.seating", _("tour {tour} of {tournament} is not seated").format(
            tour=tour, tournament=state.name))
    if tour > 1 and tour - 1 not in state.closed:
        raise Refused("tournament.closed", _("tour {tour} is not closed yet").format(tour=tour - 1),
                      _("close tour {tour} first").format(tour=tour - 1))
    tables = []
    cap = state.started.deal_cap
    for table, players in sorted(seated.items()):
        game = table_game(state.name, tour, table)
        found = games.get(game)
        if found is None:
            raise Refused("tournament.closed", _("table {table} of tour {tour} has no game yet ({game})").format(
                table=table, tour=tour, game=game), f"pulka tournament start {state.name} {tour}")
        result = game_result(found.state, cap)
        if not result.over:
            in_play = (_("table {table} ({game}) is still in play: {deals} done of the cap of {cap}") if cap is not None
                       else _("table {table} ({game}) is still in play: {deals} done"))
            raise Refused("tournament.closed", in_play.format(table=table, game=game,
                                                              deals=spoken_count(result.deals, "deal"), cap=cap),
                          _("a tour closes when every table's pulka is over"))
        assert result.status != "playing"
        tallies = tallies_of(found.state) if any(b in TALLIED for b in state.started.tie_breaks) else {}
        tables.append(TableClosed(table, game, result.status, result.deals, found.events, found.digest,
                                  {p: result.whists[p] for p in players}, {p: tallies[p] for p in players if tallies}))
    return TourClosed(tour=tour, tables=tuple(tables))


def consequences(state: TournamentState, closed: TourClosed, at: str | None) -> list[TournamentEvent]:
    """What the close of a tour brings (``state`` already holds the close): a yellow card
    and the next tour sat out for a result below the threshold, disqualification at the
    last card, and a cut or the final table after this tour."""
    out: list[TournamentEvent] = []
    tour = closed.tour
    threshold = state.started.removal_below
    last = state.started.tours
    if threshold is not None:
        for table in closed.tables:
            for player, whists in table.whists.items():
                if whists >= threshold or player in state.disqualified:
                    continue
                reason = f"tour {tour} result {whists:+d} below {threshold:+d}"
                card = YellowCard(player=player, tour=tour, reason=reason, at_close=True, at=at)
                out.append(card)
                state.apply(card)
                if len(state.cards[player]) >= state.started.cards_to_disqualify:
                    d = Disqualified(player=player, tour=tour, reason=f"yellow card {len(state.cards[player])}",
                                     at_close=True, at=at)
                    out.append(d)
                    state.apply(d)
                elif last is None or tour < last:
                    r = Removed(player=player, tour=tour + 1, reason=reason, at_close=True, at=at)
                    out.append(r)
                    state.apply(r)
    keep = next((rule.keep for rule in state.started.cuts if rule.after_tour == tour), None)
    if state.final_tour is not None and tour == state.final_tour - 1:
        keep = state.started.final_table
    if keep is not None:
        # The cut takes the first players of the standings who may sit in the next tour:
        # one disqualified, or removed for it by this close, is passed over for the next.
        eligible = set(state.eligible(tour + 1))
        order = [row.player for row in standings(state).rows if row.player in eligible]
        made = CutMade(after_tour=tour, kept=tuple(order[:keep]), at=at)
        out.append(made)
        state.apply(made)
    return out


def seating_for(state: TournamentState, tour: int, seed: str | None) -> list[Seated]:
    """The seating ``--auto`` decides for ``tour``: the final table, the lot (the first
    tour), or Swiss by the standings after the tour before."""
    _open_tour(state, tour)
    if state.seating.get(tour):
        raise Refused("tournament.seating", _("tour {tour} has seated tables already; --auto seats a whole "
                                              "tour").format(tour=tour),
                      _("pulka tournament seat T R K PLAYERS for the rest"))
    players = state.eligible(tour)
    final = state.final_tour
    if final is not None and tour == final:
        order = [row.player for row in standings(state).rows if row.player in players]
        return [Seated(tour=tour, table=1, players=tuple(order), method="final")]
    sizes = table_sizes(len(players), state.started.table_size)
    if sizes is None:
        raise Refused("1.2", _("the {count} players of tour {tour} ({players}) cannot sit at tables of 3 and "
                               "4").format(count=len(players), tour=tour, players=", ".join(players)),
                      _("3, 4, or 6 players or more: seat by hand (pulka tournament seat {tournament} {tour} TABLE "
                        "PLAYERS), the others sitting out").format(tournament=state.name, tour=tour))
    if tour == 1 or not state.closed:
        lot = seed if seed is not None else secrets.token_hex(8)
        return [Seated(tour=tour, table=i, players=t, method="lot", seed=lot)
                for i, t in enumerate(by_lot(lot, players, sizes), start=1)]
    order = [row.player for row in standings(state).rows if row.player in players]
    tables = swiss(order, state.met(tour), sizes)
    return [Seated(tour=tour, table=i, players=t, method="swiss") for i, t in enumerate(tables, start=1)]


def decide(state: TournamentState, event: AnyEvent, games: Mapping[str, TableGame]) -> TournamentEvent:
    """Judge one tournament event of a log (an import) against the tournament so far."""
    if isinstance(event, TournamentStarted) or not isinstance(
        event, Seated | TourClosed | YellowCard | Removed | Disqualified | CutMade
    ):
        raise Refused("event-log", _("a {type} cannot follow tournament_started in a tournament").format(
            type=event_type(event)))
    admit(event)
    if event.by is not None and not is_arbiter(event.by):
        raise Refused("tournament.arbiter", _("a tournament is recorded by its arbiter, not {by}").format(
            by=repr(event.by)), "arbiter:NAME")
    _check_time(state, event)
    if isinstance(event, Seated):
        return judge_seated(state, event)
    if isinstance(event, TourClosed):
        _judge_close(state, event, games)
        return event
    if isinstance(event, CutMade):
        return event
    player = resolve_player(state, event.player)
    return msgspec.structs.replace(event, player=player)


def _judge_close(state: TournamentState, event: TourClosed, games: Mapping[str, TableGame]) -> None:
    """A recorded close must be the close of its tables as they are: each table's game
    with the event count and last digest recorded (a game cut short, changed or gone
    since no longer is), and each result, end and tally the game gives."""
    allowed = _("the results, event counts and digests of the table games")
    for recorded in event.tables:
        found = games.get(recorded.game)
        if found is None:
            raise Refused("tournament.closed", _("the close of tour {tour} records {game} with {events}, and there is "
                                                 "no such game").format(tour=event.tour, game=recorded.game,
                                                                        events=spoken_count(recorded.events, "event")),
                          allowed)
        if (found.events, found.digest) != (recorded.events, recorded.digest):
            raise Refused("tournament.closed", _(
                "the close of tour {tour} does not match {game} as recorded: the close records {recorded}, the last "
                "with digest {recorded_digest}; the game has {found}, the last with digest {found_digest}").format(
                    tour=event.tour, game=recorded.game, recorded=spoken_count(recorded.events, "event"),
                    recorded_digest=recorded.digest[:16], found=spoken_count(found.events, "event"),
                    found_digest=found.digest[:16]), allowed)
    expected = tables_closed(state, event.tour, games)
    if expected.tables != event.tables:
        if len(event.tables) != len(expected.tables):
            raise Refused("tournament.closed", _("the close of tour {tour} records {tables}, and the tour has "
                                                 "{count}").format(tour=event.tour,
                                                                   tables=spoken_count(len(event.tables), "table"),
                                                                   count=len(expected.tables)), allowed)
        table, truth = next((t, e) for t, e in zip(event.tables, expected.tables, strict=True) if t != e)
        field = next((f for f in TableClosed.__struct_fields__ if getattr(table, f) != getattr(truth, f)), "")
        raise Refused("tournament.closed", _("the close of tour {tour} does not match {game} as recorded: its {field} "
                                             "{recorded}, the game's {found}").format(
                          tour=event.tour, game=table.game, field=field, recorded=_shown(getattr(table, field)),
                          found=_shown(getattr(truth, field))),
                      allowed)


def _shown(value: object) -> str:
    """A field of a recorded close as a message quotes it."""
    return msgspec.json.encode(value).decode() if not isinstance(value, str) else value


def _check_time(state: TournamentState, event: AnyEvent) -> None:
    if event.at is None:
        return
    last = next((e.at for e in reversed(state.events) if e.at is not None), None)
    if last is not None and time_of(event.at) < time_of(last):
        raise Refused("event-log", _("time {at} is before the previous event's {last}").format(at=event.at, last=last),
                      _("a time at or after {last}").format(last=last))


# -- the commands ------------------------------------------------------------------------


class Tournaments:
    """Tournament commands on a ledger: one load of the tournament, one decision, one save."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.store = ledger.store

    def events(self, name: str) -> list[StoredEvent]:
        """The tournament's stored events, its chain intact and each event a
        tournament's (``tables.read_tournament``), or a refusal naming the tournaments."""
        stored = read_tournament(self.store, name)
        if stored is None:
            known = self.store.games(TournamentStarted)
            if self.store.count(name):
                missing = (_("{name} is not a tournament in the store {store}; the tournaments are: {tournaments}")
                           if known else _("{name} is not a tournament in the store {store}; it has no tournament"))
            else:
                missing = (_("no tournament named {name} in the store {store}; the tournaments are: {tournaments}")
                           if known else _("no tournament named {name} in the store {store}; it has no tournament"))
            raise Refused("event-log", missing.format(name=repr(name), store=self.store.description,
                                                      tournaments=", ".join(known)))
        return stored

    def state(self, name: str) -> TournamentState:
        return fold([s.event for s in self.events(name)])

    def _save(self, name: str, stored: list[StoredEvent], new: Sequence[TournamentEvent],
              by: str | None, unchanged: Mapping[str, int] | None = None) -> list[StoredEvent]:
        if by is not None and not is_arbiter(by):
            raise Refused("tournament.arbiter", _("a tournament is recorded by its arbiter, not {by}").format(by=repr(by)),
                          "arbiter:NAME")
        at = self.ledger.clock()
        last = stored[-1].event.at if stored else None
        if last is not None and time_of(at) < time_of(last):
            at = last
        events = [msgspec.structs.replace(e, at=e.at or at, by=by) for e in new]
        for event in events:
            admit(event)
        return stale_read(len(stored), lambda: self.store.append(
            name, events, expected=len(stored), previous=stored[-1].digest, unchanged=unchanged))

    def create(self, event: TournamentStarted) -> TournamentStarted:
        if "lot" in event.tie_breaks and event.lot_seed is None:
            event = msgspec.structs.replace(event, lot_seed=secrets.token_hex(8))
        judged = judge_start(event)
        if judged.at is None:
            judged = msgspec.structs.replace(judged, at=self.ledger.clock())
        if self.store.count(judged.game):
            raise Refused("event-log", _("{name} exists already").format(name=repr(judged.game)), _("another name"))
        read = self.ledger.judged_against(judged.game, None, [judged])  # the entrants: one person each
        ensure_views(self.store)
        try:
            self.store.append(judged.game, [judged], expected=0, unchanged=read)
        except ConcurrentWriteError as exc:
            if not exc.written:
                raise
            raise Refused("event-log", _("{name} exists already").format(name=repr(judged.game)),
                          _("another name")) from None
        return judged

    def seat(self, name: str, tour: int, table: int, players: Sequence[str], by: str | None = None) -> list[StoredEvent]:
        stored = self.events(name)
        state = fold([s.event for s in stored])
        seated = judge_seated(state, Seated(tour=tour, table=table, players=tuple(players)))
        return self._save(name, stored, [seated], by)

    def seat_auto(self, name: str, tour: int, seed: str | None = None, by: str | None = None) -> list[StoredEvent]:
        stored = self.events(name)
        state = fold([s.event for s in stored])
        new: list[TournamentEvent] = []
        for proposed in seating_for(state, tour, seed):
            judged = judge_seated(state, proposed)
            state.apply(judged)
            new.append(judged)
        return self._save(name, stored, new, by)

    def start_tables(self, name: str, tour: int, by: str | None = None) -> list[Outcome[GameState]]:
        """Start the game of every seated table of ``tour`` that has none yet: all of
        them in one transaction, or none."""
        stored = self.events(name)
        state = fold([s.event for s in stored])
        seated = state.seating.get(tour)
        if not seated:
            raise Refused("tournament.seating", _("tour {tour} of {tournament} is not seated").format(
                tour=tour, tournament=name), f"pulka tournament seat {name} {tour} --auto")
        starts: list[GameStarted] = []
        for table, players in sorted(seated.items()):
            game = table_game(name, tour, table)
            if self.store.count(game):
                continue
            starts.append(GameStarted(
                game=game, players=players, pulya=state.started.pulya, convention=state.rules.convention,
                rule_set=state.rules, by=by if by is not None and is_arbiter(by) else None,
            ))
        return self.ledger.create_all(starts) if starts else []

    def table_games(self, state: TournamentState, tour: int) -> dict[str, TableGame]:
        """The stored games of the tables of ``tour``, their chains intact."""
        out = {}
        for table in state.seating.get(tour, {}):
            game = table_game(state.name, tour, table)
            stored = self.store.sound(game)
            if stored:
                out[game] = TableGame(replay([s.event for s in stored]), len(stored), stored[-1].digest)
        return out

    def close(self, name: str, tour: int, by: str | None = None, signer: Signer | None = None) -> list[StoredEvent]:
        """Close ``tour`` on its tables as they are stored when the close is: a record
        at one of them stored between the close's read and its write makes it read and
        decide again (``application.retried``), so that it never records a table as it
        no longer is."""
        return retried(lambda seen: self._close(name, tour, by, seen, signer))

    def _close(self, name: str, tour: int, by: str | None, expected: int | None,
               signer: Signer | None) -> list[StoredEvent]:
        stored = self.events(name)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(name, expected, len(stored))
        state = fold([s.event for s in stored])
        games = self.table_games(state, tour)
        closed = tables_closed(state, tour, games)
        state.apply(closed)
        saved = self._save(name, stored, [closed, *consequences(state, closed, None)], by,
                           unchanged={game: found.events for game, found in games.items()})
        if signer is not None:  # the arbiter signs the close, and a checkpoint that covers it
            attest_close(self.store, self.ledger.clock, name, saved, signer, final=tour == state.started.tours)
        return saved

    def card(self, name: str, player: str, reason: str, by: str | None = None) -> list[StoredEvent]:
        """An arbiter's yellow card in the current tour; the last card disqualifies."""
        stored = self.events(name)
        state = fold([s.event for s in stored])
        who = resolve_player(state, player)
        if who in state.disqualified:
            raise Refused("tournament.removal", _("{player} is disqualified already").format(player=who))
        tour = state.last_closed + 1 if not state.over else state.last_closed
        card = YellowCard(player=who, tour=tour, reason=reason)
        state.apply(card)
        new: list[TournamentEvent] = [card]
        if len(state.cards[who]) >= state.started.cards_to_disqualify:
            new.append(Disqualified(player=who, tour=tour, reason=f"yellow card {len(state.cards[who])}"))
        return self._save(name, stored, new, by)

    # -- reading ----------------------------------------------------------------------

    def standings(self, name: str, tour: int | None, time: str | None,
                  live: Callable[[TournamentState, str | None], Mapping[str, GameResult]]) -> tuple[Standings, TournamentState]:
        """The standings after ``tour``, or at ``time``, or now; ``live`` gives the
        results of the tables still in play (from the views, or replayed)."""
        events = as_of([s.event for s in self.events(name)], tour, time)
        state = fold(events)
        return standings(state, None if tour is not None else live(state, time)), state

    def replayed(self, state: TournamentState, time: str | None) -> dict[str, GameResult]:
        """The tables in play of ``state``, replayed from the store (at ``time``)."""
        out = {}
        cap = state.started.deal_cap
        for tour, tables in state.seating.items():
            if tour in state.closed:
                continue
            for table in tables:
                game = table_game(state.name, tour, table)
                events = [s.event for s in self.store.sound(game)]
                if not events:
                    continue
                if time is not None:
                    if not events[0].at or time_of(events[0].at) > time_of(time):
                        continue
                    events = cut(events, Point(time=time))
                out[game] = game_result(replay(events), cap)
        return out

    def export(self, name: str) -> list[str]:
        """The tournament's events, then every table's game, as export lines."""
        stored = self.events(name)
        lines = [export_line(s.event, s.digest) for s in stored]
        state = fold([s.event for s in stored])
        for tour in sorted(state.seating):
            for table in sorted(state.seating[tour]):
                lines += [export_line(s.event, s.digest) for s in self.store.sound(table_game(name, tour, table))]
        return lines


# -- a file of several streams -------------------------------------------------------------


def club_export(ledger: Ledger) -> list[str]:
    """The whole club as one file of several streams (``pulka export --club``), for
    ``import_streams`` into a store without them: the club's register of names, each
    tournament with its tables' games (as ``Tournaments.export``), then every other game,
    each stream as ``pulka export`` writes it. Every stream is read only while its chain
    holds. The ledger's streams of checkpoints and signatures stay in their store: a
    checkpoint is of that store's own order of events."""
    store = ledger.store
    lines = [export_line(s.event, s.digest) for s in store.sound(CLUB_STREAM, "club register")]
    tournaments = Tournaments(ledger)
    written: set[str] = set()
    for name in store.games(TournamentStarted):
        lines += tournaments.export(name)
        state = tournaments.state(name)
        written |= {table_game(name, tour, table) for tour, tables in state.seating.items() for table in tables}
    for game in store.games(GAME_STARTS):
        if game not in written:
            lines += [export_line(s.event, s.digest) for s in store.sound(game)]
    return lines



@dataclass(frozen=True)
class Imported:
    stream: str
    events: int


@dataclass(frozen=True)
class Judged:
    """A file of several streams judged: each stream's events as they would be stored,
    the tournament first, then the games in the order of the tournament; and each game's
    state after them."""

    events: dict[str, list[AnyEvent]]
    states: dict[str, Any]


def judge_streams(streams: Sequence[Sequence[LogLine]], clock: Callable[[], str] = now_iso) -> Judged:
    """Judge a file of several streams as ``import_streams`` would, storing nothing."""
    seen: dict[str, int] = {}
    for stream in streams:
        check_export(stream)
        name = _name(stream)
        if name in seen:
            refused = Refused("event-log", _("{stream} begins twice in the file (line {line} and here)").format(
                stream=excerpt(name), line=seen[name]), _("each stream once, as pulka export writes it"))
            refused.line = stream[0].line
            raise refused
        seen[name] = stream[0].line
    return _judge_plan(_plan(streams), clock)


def import_streams(ledger: Ledger, streams: Sequence[Sequence[LogLine]]) -> list[Imported]:
    """Store a file of several streams into a store that has none of them: a tournament
    with its table games (``pulka tournament export``), or several games; all of them
    in one transaction, or none.

    Everything is judged first, in the order of the tournament (each tour's games before
    its close, whose recorded results must match them); then each game against what
    the store holds that it depends on (a tournament not in the file), which must be
    unchanged when the whole file is stored."""
    judged = judge_streams(streams, ledger.clock)
    for stream in streams:
        name = _name(stream)
        if ledger.store.count(name):
            refused = Refused("event-log", _("{stream} is stored already; a file of several streams imports into a "
                                             "store without them").format(stream=repr(name)),
                              _("an empty store, or `pulka import` of one game"))
            refused.line = stream[0].line
            raise refused
    register = next((s for s in streams if isinstance(s[0].event, ClubStarted)), None)
    if register is not None:
        # Its aliases were judged against the file's games; the store's own are not read.
        held = [g for g in ledger.store.games() if not g.startswith(RESERVED_PREFIX)]
        if held:
            refused = Refused("event-log", _("a file with the club's register imports into a store without games or "
                                             "tournaments (its aliases are judged against the file's games); this one "
                                             "holds {streams}").format(
                                  streams=", ".join(held[:5]) + (", …" if len(held) > 5 else "")),
                              _("an empty store (pulka export --club of the whole club)"))
            refused.line = register[0].line
            raise refused
    lines = {_name(stream): stream[0].line for stream in streams}

    def once(_seen: int | None) -> list[Imported]:  # every stream is new: none was read
        read: dict[str, int] = {}
        for name, events in judged.events.items():
            if name == CLUB_STREAM:
                continue  # the register depends on no other stream
            state = judged.states.get(name)
            try:
                read |= ledger.judged_against(name, state if isinstance(state, GameState) else None, events)
            except Refused as exc:
                exc.line = lines[name]
                raise
        ensure_views(ledger.store)
        appends = [Append(name, events, 0, GENESIS) for name, events in judged.events.items()]
        stale_read(0, lambda: ledger.store.append_all(appends, unchanged=read))
        return [Imported(name, len(events)) for name, events in judged.events.items()]

    return retried(once)


def judged(ledger: Ledger, name: str) -> ChainProblem | None:
    """``verify``'s judgement of tournament ``name`` (whose own chain the caller has
    checked) with its tables' games: as ``verify --file`` judges its export
    (``judge_streams``). Every event of the tournament is judged again on the tournament
    before it, each table's game against the tournament at its place (before the close
    of its tour), and each close against its tables as they are stored: a table cut
    short, changed and chained anew, or deleted since its tour closed on it no longer
    matches what the close records. Every event of the tournament must be stored as the
    judge records it. None when all is well; else the first problem, by the
    tournament's event or by the table and its event."""
    stored = ledger.store.load(name)
    try:
        streams, where = _as_export(ledger.store, name, stored)
    except (BrokenChainError, UnreadableEventError) as exc:
        return ChainProblem(len(stored), f"a table of tournament {name!r} cannot be read: {exc}")
    try:
        again = _judge_plan(_plan(streams), ledger.clock).events[name]
    except Refused as exc:
        stream, number = where.get(exc.line or 1, (name, 1))
        reason = f"would be refused: {exc.message} (the tournament and its tables are not as the ledger " \
                 "recorded them: changed outside pulka?)"
        if stream == name:
            return ChainProblem(number, f"event {number} of tournament {name!r} {reason}")
        return ChainProblem(len(stored), f"its table {stream}: event {number} {reason}")
    except Exception as exc:  # a table the judging cannot take: its own line names the event
        return ChainProblem(len(stored), f"its tables cannot be judged with it ({type(exc).__name__}: {exc}); "
                                         "see the tables' own lines")
    for s, event in zip(stored, again, strict=True):
        if s.event != event:
            return ChainProblem(s.number, f"event {s.number} of tournament {name!r} is stored otherwise than the "
                                          f"ledger records it (written outside pulka?): stored "
                                          f"{encode_event(s.event).decode()}, recorded {encode_event(event).decode()}")
    return None


def _as_export(store: Store, name: str, stored: Sequence[StoredEvent]
               ) -> tuple[list[list[LogLine]], dict[int, tuple[str, int]]]:
    """A stored tournament and its tables' games (those seated, and any other game named
    as its table) as the streams of its export would be read, with each line's stream
    and event number. A table whose chain does not hold is not read (BrokenChainError)."""
    seats = {table_game(name, e.tour, e.table) for e in (s.event for s in stored) if isinstance(e, Seated)}
    named = {g for g in store.games(GAME_STARTS) if (parse_table_game(g) or ("",))[0] == name}
    streams = [[LogLine(s.number, s.event, s.digest) for s in stored]]
    where = {s.number: (name, s.number) for s in stored}
    line = len(stored)
    for game in sorted(seats | named):
        table = store.sound(game)
        if table:
            streams.append([LogLine(line + s.number, s.event, s.digest) for s in table])
            where.update((line + s.number, (game, s.number)) for s in table)
            line += len(table)
    return streams, where


def _name(stream: Sequence[LogLine]) -> str:
    first = stream[0].event
    if not isinstance(first, StreamStart):
        refused = Refused("event-log", _("a stream must begin with its first event (game_started or "
                                         "tournament_started)"), _("the file as pulka export wrote it"))
        refused.line = stream[0].line
        raise refused
    return first.game


def _tour_of(event: AnyEvent) -> int:
    return event.tour if isinstance(event, TourClosed) else 0


@dataclass(frozen=True)
class _TournamentPart:
    name: str
    lines: list[LogLine]


@dataclass(frozen=True)
class _GamePart:
    name: str
    lines: list[LogLine]


@dataclass(frozen=True)
class _RegisterPart:
    name: str
    lines: list[LogLine]


Part = _TournamentPart | _GamePart | _RegisterPart


def _plan(streams: Sequence[Sequence[LogLine]]) -> list[Part]:
    """The order to store a file's streams in: each tournament's events, each tour's
    games just before the close of that tour, then the games of tours still open and
    every other game, and last the club's register, whose aliases are judged against
    every game before them (``club.judge_register``)."""
    tournaments = [list(s) for s in streams if isinstance(s[0].event, TournamentStarted)]
    registers = [_RegisterPart(_name(s), list(s)) for s in streams if isinstance(s[0].event, ClubStarted)]
    games = {_name(s): list(s) for s in streams if not isinstance(s[0].event, TournamentStarted | ClubStarted)}
    plan: list[Part] = []
    for tournament in tournaments:
        name = _name(tournament)
        part: list[LogLine] = []
        for line in tournament:
            if isinstance(line.event, TourClosed):
                if part:
                    plan.append(_TournamentPart(name, part))
                    part = []
                tour = line.event.tour
                for game in [g for g in games if (parse_table_game(g) or ("", 0, 0))[:2] == (name, tour)]:
                    plan.append(_GamePart(game, games.pop(game)))
            part.append(line)
        if part:
            plan.append(_TournamentPart(name, part))
    return plan + [_GamePart(g, lines) for g, lines in games.items()] + registers


def _judge_plan(plan: Sequence[Part], clock: Callable[[], str]) -> Judged:
    """Judge the whole plan in memory, so that a refusal stores nothing; what would be
    stored."""
    tournaments: dict[str, TournamentState] = {}
    games: dict[str, TableGame] = {}
    out = Judged({}, {})
    for step in plan:
        if isinstance(step, _RegisterPart):
            try:
                out.events[step.name] = judge_register([(line.line, line.event) for line in step.lines],
                                                       rows_of(out.states), clock)
            except Refused as exc:
                exc.line = exc.line or step.lines[0].line
                raise
            continue
        if isinstance(step, _TournamentPart):
            kept = out.events.setdefault(step.name, [])
            for line in step.lines:
                try:
                    state = tournaments.get(step.name)
                    if state is None:
                        if not isinstance(line.event, TournamentStarted):
                            raise Refused("event-log", _("a tournament's stream begins with its tournament_started"))
                        started = judge_start(line.event)
                        tournaments[step.name] = TournamentState.start(started)
                        kept.append(started)
                    else:
                        judged = decide(state, line.event, games)
                        state.apply(judged)
                        kept.append(judged)
                except Refused as exc:
                    exc.line = line.line
                    raise
            continue
        judged_log = judge_log([(line.line, line.event) for line in step.lines], clock)
        game_state = judging_of(judged_log[0]).fold(judged_log)
        out.events[step.name] = judged_log
        out.states[step.name] = game_state
        if not isinstance(game_state, GameState):
            continue  # a rubber: a game of no tournament
        state = tournaments.get((parse_table_game(step.name) or ("",))[0])
        if state is not None:
            try:
                judge_table(state, step.name, game_state, judged_log, {n: g.state for n, g in games.items()})
            except Refused as exc:
                exc.line = step.lines[0].line
                raise
        digests = [line.digest for line in step.lines]
        games[step.name] = TableGame(game_state, len(judged_log), digests[-1] or "")
    return out
