"""Judging a tournament's table games: the game of table K in tour R is an ordinary game
named ``T/R/K``, and what is recorded in it is judged against tournament ``T`` too.

- It starts only at a seated table, with the seated players, under the tournament's
  rule set and pulya target;
- nothing is recorded in it once its tour is closed;
- no deal is dealt past the tournament's deal cap [Code 4.2.15: the pulka then ends,
  settled as abandoned];
- nobody joins it, and a substitute takes a seated player's place [Code 5.4.7] only
  when the arbiter records it, and only if he is not seated at another table of the
  tour (by the arbiter, or as a substitute there) nor removed or disqualified: one
  person plays at one table a tour.

A game whose name has that form but whose ``T`` is no tournament is an ordinary game.
Names beginning with ``@`` are the ledger's own streams (the club's register).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ledger.judge.checks import is_arbiter
from ledger.store.stored import BrokenChainError, StoredEvent, UnreadableEventError
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.club import RESERVED_PREFIX
from ledger.vocabulary.events import AnyEvent, GameStarted, Joined, StreamStart, Substituted, event_type
from ledger.vocabulary.names import name_key
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.rules import rule_set_to_dict
from ledger.vocabulary.tournament_events import TournamentEvent, TournamentStarted, parse_table_game, table_game
from projections.game import GameState, replay

if TYPE_CHECKING:
    from projections.tournament_state import TournamentState

_ = language._  # every text a person reads, in the language in effect


def read_tournament(store: Store, name: str) -> list[StoredEvent] | None:
    """The stored events of tournament ``name``; None when no tournament has that name.

    Only a tournament whose hash chain holds is read (``BrokenChainError`` names the
    first bad event), and each of its later events must be a tournament's: an event of
    another kind of stream, chained in behind the ledger's back, is refused by its
    number (the tournament's fold could not take it)."""
    reading = store.read(name)
    stored = reading.stored
    if not stored or not isinstance(stored[0].event, TournamentStarted):
        return None
    if reading.problem is not None:
        raise BrokenChainError(name, reading.problem, "tournament")
    for s in stored[1:]:
        if not isinstance(s.event, TournamentEvent) or isinstance(s.event, TournamentStarted):
            raise Refused("event-log", _("event {event} of tournament {tournament} is a {type}, which no tournament "
                                         "holds (written outside pulka? see `pulka verify`)").format(
                event=s.number, tournament=repr(name), type=event_type(s.event)))
    return stored


def tournament_of(store: Store, game: str) -> tuple[TournamentState, int] | None:
    """The tournament whose table game ``game`` is, folded from the store, with the
    number of its events; None if none."""
    parsed = parse_table_game(game)
    if parsed is None:
        return None
    stored = read_tournament(store, parsed[0])
    if stored is None:
        return None
    # Only a tournament's table needs the tournament's fold: an ordinary game's deal
    # loads none of it (start-up). The module imports nothing of this one.
    from projections.tournament_state import fold_tournament

    return fold_tournament([s.event for s in stored]), len(stored)


def deal_cap_of(store: Store, game: str) -> int | None:
    """The deal cap of the tournament whose table ``game`` is (``T/R/K``): at it, the
    table's pulka is over and settles as abandoned [Code 4.2.15]. None for any other
    game, and when the tournament cannot be read (its own commands say why): the game is
    then shown as its own events say."""
    if parse_table_game(game) is None:
        return None
    try:
        found = tournament_of(store, game)
    except (BrokenChainError, Refused, UnreadableEventError):
        return None
    return found[0].started.deal_cap if found else None


def check_table_game(store: Store, game: str, state: GameState | None, new: Sequence[AnyEvent]) -> dict[str, int]:
    """Refuse ``new`` events of ``game`` (``state`` is the pulka after them; None for a
    stream of another kind) that the game's tournament does not allow; nothing happens
    for an ordinary game. What the judgement read: the tournament with its number of
    events (``{}`` for an ordinary game), which must be unchanged when ``new`` is stored
    (``Store.append``'s ``unchanged``): a tour closed meanwhile takes no more records."""
    if not new:
        return {}
    if isinstance(new[0], StreamStart) and game.startswith(RESERVED_PREFIX):
        raise Refused("event-log", _("a game's name may not begin with {prefix}: {game}").format(
            prefix=repr(RESERVED_PREFIX), game=repr(game)), _("another name"))
    found = tournament_of(store, game)
    if found is None:
        return {}
    tournament, count = found
    if state is None:
        raise Refused("tournament.rules", _("{game} is a table of {tournament}: it plays a pulka").format(
            game=game, tournament=tournament.name), "pulka tournament start")
    others: dict[str, GameState] = {}
    if any(isinstance(e, Substituted) for e in new):
        _tournament, tour, table = parse_table_game(game) or ("", 0, 0)
        for other in tournament.seating.get(tour, {}):
            name = table_game(tournament.name, tour, other)
            stored = store.sound(name) if other != table else []
            if stored:
                others[name] = replay([s.event for s in stored])
    judge_table(tournament, game, state, new, others)
    return {tournament.name: count}


def judge_table(tournament: TournamentState, game: str, state: GameState, new: Sequence[AnyEvent],
                others: Mapping[str, GameState] | None = None) -> None:
    """The tournament's judgement of events ``new`` of its table game ``game``;
    ``others``: the games of other tables by name (a substitute is looked for at the
    tour's)."""
    parsed = parse_table_game(game)
    assert parsed is not None
    _tournament, tour, table = parsed
    closed = tournament.closed.get(tour)
    if closed is not None:
        raise Refused("tournament.closed", _("tour {tour} of {tournament} was closed at {at}: nothing more is recorded "
                                             "in {game}").format(tour=tour, tournament=tournament.name, at=closed.at,
                                                                 game=game))
    started = next((e for e in new if isinstance(e, GameStarted)), None)
    if started is not None:
        judge_table_start(tournament, tour, table, started)
    joined = next((e for e in new if isinstance(e, Joined)), None)
    if joined is not None:
        # The arbiter seats a tournament's tables; a newcomer would play for nobody in
        # the standings. A seated player's place may be taken by a substitute [5.4.7].
        raise Refused("tournament.seating", _("{player} cannot join {game}: the tables of {tournament} are seated by "
                                              "the arbiter ({players} at this one)").format(
                          player=joined.player, game=game, tournament=tournament.name,
                          players=", ".join(state.started.players)),
                      _("a substitute for a seated player (pulka substitute)"))
    for event in new:
        if isinstance(event, Substituted):
            judge_substitute(tournament, game, event, others or {})
    cap = tournament.started.deal_cap
    if cap is not None and state.current_deal_number > cap:
        raise Refused("tournament.deal_cap", _("{game} has played its {cap} deals, the tournament's cap: the pulka is "
                                               "over and settles as abandoned [Code 4.2.15]").format(game=game, cap=cap),
                      _("corrections and records of the deals played"))


def judge_table_start(tournament: TournamentState, tour: int, table: int, started: GameStarted) -> None:
    seated = tournament.seating.get(tour, {}).get(table)
    if seated is None:
        tables = sorted(tournament.seating.get(tour, {}))
        have = (_("the tables of tour {tour} are {tables}").format(tour=tour, tables=", ".join(map(str, tables)))
                if tables else _("tour {tour} is not seated").format(tour=tour))
        raise Refused("tournament.seating", _("table {table} of tour {tour} of {tournament} is not seated").format(
            table=table, tour=tour, tournament=tournament.name), have)
    if sorted(map(name_key, started.players)) != sorted(map(name_key, seated)) or set(started.players) != set(seated):
        raise Refused("tournament.seating", _("table {table} of tour {tour} seats {seated}, not {players}").format(
            table=table, tour=tour, seated=", ".join(seated), players=", ".join(started.players)), ", ".join(seated))
    rules = tournament.rules
    if started.rule_set != rules:
        mine = rule_set_to_dict(rules)
        theirs = rule_set_to_dict(started.rule_set) if started.rule_set is not None else {}
        differ = sorted(k for k in mine if theirs.get(k) != mine[k])
        raise Refused("tournament.rules", _("the game is not under the tournament's rule set ({convention}; differs "
                                            "in {keys})").format(convention=rules.convention, keys=", ".join(differ)),
                      _("convention {convention} with the tournament's overrides (pulka tournament start)").format(
                          convention=rules.convention))
    if started.pulya != tournament.started.pulya:
        raise Refused("tournament.rules", _("the tournament plays to a pulya of {pulya}, not {given}").format(
            pulya=tournament.started.pulya, given=started.pulya), str(tournament.started.pulya))


def judge_substitute(tournament: TournamentState, game: str, event: Substituted,
                     others: Mapping[str, GameState]) -> None:
    """A substitute at table ``game`` [Code 5.4.7]: recorded by the arbiter, who seats a
    tournament's tables [Code 4.2.16, footnote 9], and not a person who plays elsewhere
    in the tour or may not play in it."""
    parsed = parse_table_game(game)
    assert parsed is not None
    _tournament, tour, table = parsed
    who = event.substitute
    if event.by is None or not is_arbiter(event.by):
        refused = (_("at a table of {tournament} a substitute is seated by the arbiter, not {by}") if event.by
                   else _("at a table of {tournament} a substitute is seated by the arbiter, not the players"))
        raise Refused("tournament.substitute", refused.format(tournament=tournament.name, by=event.by),
                      _("--by arbiter:NAME (with the players' consent)"))
    key = name_key(who)
    entrant = next((p for p in tournament.players if name_key(p) == key), None)
    if entrant is not None:
        elsewhere = tournament.table_of(tour, entrant)
        if elsewhere is not None and elsewhere != table:
            raise Refused("tournament.substitute", _("{player} is seated at table {table} of tour {tour} ({game}): one "
                                                     "table a tour").format(
                              player=who, table=elsewhere, tour=tour, game=table_game(tournament.name, tour, elsewhere)),
                          _("a person who plays at no other table of the tour"))
        if entrant in tournament.disqualified:
            raise Refused("tournament.removal", _("{player} was disqualified in tour {tour}").format(
                player=who, tour=tournament.disqualified[entrant].tour), _("a person who may play in the tournament"))
        if entrant in tournament.removed.get(tour, {}):
            raise Refused("tournament.removal", _("{player} is removed for tour {tour}").format(player=who, tour=tour),
                          _("a person who may play in this tour"))
    for name, other in sorted(others.items()):
        same_tour = (parse_table_game(name) or ("", 0, 0))[:2] == (tournament.name, tour)
        if same_tour and name != game and any(name_key(p) == key for p in other.person_seat):
            raise Refused("tournament.substitute", _("{player} plays at {game} in tour {tour} already: one table a "
                                                     "tour").format(player=who, game=name, tour=tour),
                          _("a person who plays at no other table of the tour"))
