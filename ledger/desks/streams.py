"""A file of several streams, as the desk writes it out and stores it: the whole club
(``club_export``, ``pulka export --club``) and such a file, or a tournament's export with
its tables' games, or several games, stored into a store without them
(``import_streams``, ``pulka import``), all in one transaction or none. The judging of
such a file is ``ledger.judge.streams``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.application import Ledger
from ledger.store.retry import retried, stale_read
from ledger.desks.tournament import Tournaments
from ledger.judge.kinds import GAME_STARTS
from ledger.judge.streams import judge_streams, stream_name
from ledger.store.stored import Append
from ledger.views.archive import ensure_views
from ledger.vocabulary import language
from ledger.vocabulary.chain import GENESIS
from ledger.vocabulary.club import CLUB_STREAM, RESERVED_PREFIX, ClubStarted
from ledger.vocabulary.logfile import LogLine, export_line
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import TournamentStarted, table_game
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


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
    """A stream stored by ``import_streams``: its name and how many events it holds."""

    stream: str
    events: int


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
        name = stream_name(stream)
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
    lines = {stream_name(stream): stream[0].line for stream in streams}

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
        # The games were judged whole here (``judge_streams``): their judged marks are stored with them.
        appends = [Append(name, events, 0, GENESIS, judged=name in judged.states) for name, events in judged.events.items()]
        stale_read(0, lambda: ledger.store.append_all(appends, unchanged=read))
        return [Imported(name, len(events)) for name, events in judged.events.items()]

    return retried(once)
