"""Judging a tournament's own events against the tournament so far, before they are
stored: its start (the rules, the entrants, the tie-breaks, the cuts and the final
table), a tour's seating (by hand, by lot, Swiss, the final table), the close of a tour
on its tables as they are, and what the close brings (yellow cards and removals below
the threshold, a disqualification at the last card, a cut). ``decide_tournament`` judges
any of them as a log gives it (an import, ``verify``).

The desk (``ledger.desks.tournament``) reads the store and saves what is judged here;
a table's game is judged against the tournament in ``tables``, a seating's lot and
Swiss order come from ``seating``.

Each refusal names the rule (``tournament.*``, documented in docs/conventions.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

from ledger.judge.admission import GAME_MAX, admit
from ledger.judge.checks import is_arbiter, time_of
from ledger.judge.seating import by_lot, swiss, table_sizes
from ledger.vocabulary import language
from ledger.vocabulary.club import RESERVED_PREFIX
from ledger.vocabulary.events import AnyEvent, event_type
from ledger.vocabulary.names import name_key
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.rules import RuleSetError, check, resolve
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
    rate_of,
    table_game,
)
from ledger.vocabulary.wording import spoken_count
from projections.archive import game_result
from projections.game import GameState
from projections.tournament_state import TournamentState, standings, tallies_of

_ = language._  # every text a person reads, in the language in effect
ngettext = language.ngettext

TOURNAMENT_MAX = GAME_MAX - 20  # leaves room for /TOUR/TABLE in its games' names


@dataclass(frozen=True)
class TableGame:
    """A table's game as the command side sees it: its state, event count and last digest."""

    state: GameState
    events: int
    digest: str


def judge_tournament_start(event: TournamentStarted) -> TournamentStarted:
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


def decide_tournament(state: TournamentState, event: AnyEvent, games: Mapping[str, TableGame]) -> TournamentEvent:
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
