"""The command side of a tournament: each command loads the tournament's stream once,
decides its events against the fold (``projections.tournament_state``) by the judge
(``ledger.judge.tournament``), and saves them in one append, like ``Ledger.execute``
for a game.

- ``start`` builds ``tournament_started`` from the director's words and values, and
  ``create`` judges the rules and records it with the resolved rule set;
- ``seat`` (by hand) and ``seat_auto`` (by lot, Swiss, or the final table) record a tour's
  seating; ``start_tables`` starts every seated table's game ``T/R/K``;
- ``close`` closes a tour once every table's pulka is over, recording each table's result
  and what follows from it: yellow cards and removals below the threshold, a
  disqualification at the last card, a cut;
- ``card`` records an arbiter's yellow card;
- ``standings`` and ``export`` read and write out a whole tournament with its games
  (brought back by ``ledger.desks.streams.import_streams``);
- ``judged`` is ``verify``'s judgement of a stored tournament with its tables' games, as
  ``judge_streams`` judges its export.

A tournament is read only while its chain holds and every event of it is a
tournament's (``tables.read_tournament``), and its tables only while theirs hold. The
close depends on its tables, a table's record on its tournament: each is stored only if
what it read of the other is unchanged (``Store.append``'s ``unchanged``), and decided
again when it is not (``ledger.store.retry``).

Each refusal names the rule (``tournament.*``, documented in docs/conventions.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from ledger.application import Ledger, Outcome
from ledger.store.retry import retried, stale_read
from ledger.judge.admission import admit
from ledger.judge.checks import is_arbiter, time_of
from ledger.judge.kinds import GAME_STARTS
from ledger.judge.streams import judge_in_order
from ledger.judge.tables import read_tournament
from ledger.judge.tournament import (
    TableGame,
    consequences,
    judge_seated,
    judge_tournament_start,
    resolve_player,
    seating_for,
    tables_closed,
)
from ledger.proofs.checkpoints import attest_close
from ledger.store.stored import BrokenChainError, ConcurrentWriteError, StoredEvent, UnreadableEventError
from ledger.store.event_store import Store
from ledger.views.archive import ensure_views
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.events import GameStarted, encode_event
from ledger.vocabulary.logfile import LogLine, export_line
from ledger.vocabulary.notes import Signer
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import (
    DEFAULT_TIE_BREAKS,
    CutRule,
    Disqualified,
    Seated,
    Segment,
    TieBreak,
    TournamentEvent,
    TournamentStarted,
    YellowCard,
    parse_table_game,
    table_game,
)
from projections.archive import GameResult, game_result
from projections.game import GameState, replay
from projections.report import Point, cut
from projections.tournament_state import Standings, TournamentState, as_of, fold_tournament, standings

_ = language._  # every text a person reads, in the language in effect


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
        return fold_tournament([s.event for s in self.events(name)])

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

    def start(self, name: str, players: Sequence[str], pulya: int, *, convention: str = "sochi",
              rules: Mapping[str, Any] | None = None, tours: int | None = None, deal_cap: int | None = None,
              table_size: int = 4, cutoff: Sequence[Segment] = (), tie_breaks: Sequence[TieBreak] = DEFAULT_TIE_BREAKS,
              lot_seed: str | None = None, removal_below: int | None = None, cards: int = 2,
              cuts: Sequence[CutRule] = (), final_table: int | None = None, by: str | None = None) -> TournamentStarted:
        """Start tournament ``name`` as a director gives it (``pulka tournament new``, the
        API's new tournament): the entrants in their order of entry (each stripped of
        spaces, blanks left out), the rules' overrides, the cut-off, tie-breaks and cuts
        in the tournament's words read (``ledger.words.tournament``), ``cards`` the
        yellow cards that disqualify. Its first event built, judged and recorded
        (``create``)."""
        return self.create(TournamentStarted(
            game=name, players=tuple(p.strip() for p in players if p.strip()), pulya=pulya, convention=convention,
            rules=dict(rules or {}), tours=tours, deal_cap=deal_cap, table_size=table_size, cutoff=tuple(cutoff),
            tie_breaks=tuple(tie_breaks), lot_seed=lot_seed, removal_below=removal_below, cards_to_disqualify=cards,
            cuts=tuple(cuts), final_table=final_table, by=by,
        ))

    def create(self, event: TournamentStarted) -> TournamentStarted:
        """Judge a tournament's first event (a lot seed drawn when the lot breaks ties and
        none is given) and record it, its rule set resolved; refused when the name is
        taken."""
        if "lot" in event.tie_breaks and event.lot_seed is None:
            event = msgspec.structs.replace(event, lot_seed=secrets.token_hex(8))
        judged = judge_tournament_start(event)
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
        state = fold_tournament([s.event for s in stored])
        seated = judge_seated(state, Seated(tour=tour, table=table, players=tuple(players)))
        return self._save(name, stored, [seated], by)

    def seat_auto(self, name: str, tour: int, seed: str | None = None, by: str | None = None) -> list[StoredEvent]:
        stored = self.events(name)
        state = fold_tournament([s.event for s in stored])
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
        state = fold_tournament([s.event for s in stored])
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
        decide again (``ledger.store.retry``), so that it never records a table as it
        no longer is."""
        return retried(lambda seen: self._close(name, tour, by, seen, signer))

    def _close(self, name: str, tour: int, by: str | None, expected: int | None,
               signer: Signer | None) -> list[StoredEvent]:
        stored = self.events(name)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(name, expected, len(stored))
        state = fold_tournament([s.event for s in stored])
        games = self.table_games(state, tour)
        closed = tables_closed(state, tour, games)
        state.apply(closed)
        saved = self._save(name, stored, [closed, *consequences(state, closed, None)], by,
                           unchanged={game: found.events for game, found in games.items()})
        if signer is not None:  # the arbiter signs the close (the club's next checkpoint covers it)
            attest_close(self.store, self.ledger.clock, name, saved, signer)
        return saved

    def card(self, name: str, player: str, reason: str, by: str | None = None) -> list[StoredEvent]:
        """An arbiter's yellow card in the current tour; the last card disqualifies."""
        stored = self.events(name)
        state = fold_tournament([s.event for s in stored])
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
        state = fold_tournament(events)
        return standings(state, None if tour is not None else live(state, time)), state

    def standings_known(self, name: str, upto: int, time: str,
                        live: Mapping[str, GameResult]) -> tuple[Standings, TournamentState]:
        """The standings as the store held them at ``time``: the tournament's first
        ``upto`` events (what it held of them then), its tables in play as they stood in
        the store then (``live``)."""
        events = [s.event for s in self.events(name)][:upto]
        if not events:
            raise Refused("tournament", _("the store held no tournament {name} at {time}").format(
                name=repr(name), time=time))
        state = fold_tournament(events)
        return standings(state, live), state

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
        state = fold_tournament([s.event for s in stored])
        for tour in sorted(state.seating):
            for table in sorted(state.seating[tour]):
                lines += [export_line(s.event, s.digest) for s in self.store.sound(table_game(name, tour, table))]
        return lines


def judged_tournament(ledger: Ledger, name: str) -> ChainProblem | None:
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
        again = judge_in_order(streams, ledger.clock).events[name]
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
