"""Judging the club's register: whether two written names may be recorded as one player,
and whether a choice of the rating's model may be.

``judge_alias`` judges a ``PlayerAliased`` (``ledger.desks.club.record_alias`` stores
it), ``judge_model`` a ``RatingModelChosen`` (a model this ledger has, parameters it
takes in their ranges; ``record_model``), and ``judge_register`` a whole register as a
file brings it. An alias joins keys that
``names.name_key`` keeps apart; it is refused when it joins a name to itself, makes a
circle, renames a name already joined to another, would make one person of two
players who sat at the same table, or writes for one player a name that reads as
another player's (``names.reads_alike``: "Воb" with Cyrillic letters for Vera, when
"Bob" is Boris).

``one_person_once`` is the other side of that rule: once an alias is recorded, a game
that seats both names (at its start, or by a player joining or taking a seat) is
refused, and so is a tournament that enters both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from ledger.judge.admission import admit
from ledger.judge.checks import is_arbiter
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.club import CLUB_STREAM, ClubStarted, PlayerAliased, RatingModelChosen
from ledger.vocabulary.events import EVENT_TYPES, AnyEvent, Joined, StreamStart, Substituted, event_type
from ledger.vocabulary.names import name_key, reads_alike
from ledger.vocabulary.refusal import Refused, excerpt
from ledger.vocabulary.tournament_events import TournamentStarted
from ledger.vocabulary.times import utc_micros
from projections.archive import Alias, PulkaRow, identities, game_result
from projections.game import GameState
from projections.rating_models import MODELS, ParameterError, model_of

_ = language._  # every text a person reads, in the language in effect

def judge_alias(name: str, same_as: str, aliases: Sequence[Alias], rows: Sequence[PulkaRow]) -> None:
    """Refuse an alias that cannot be: see the module's docstring."""
    if not name.strip() or not same_as.strip():
        raise Refused("club.alias", _("both names are needed"), "NAME SAME_AS")
    key, other = name_key(name), name_key(same_as)
    if key == other:
        raise Refused("club.alias", _("{name} and {same_as} are one player already (names are compared after Unicode "
                                      "case folding)").format(name=repr(name), same_as=repr(same_as)))
    who = identities(rows, aliases)
    joined = next((a for a in aliases if name_key(a.name) == key), None)
    if joined is not None:
        raise Refused("club.alias", _("{name} is written for {same_as} already").format(
            name=repr(name), same_as=repr(joined.same_as)), _("another name"))
    if who.key(same_as) == key:
        raise Refused("club.alias", _("{same_as} is written for {name}: the alias would go in a circle").format(
            same_as=repr(same_as), name=repr(name)))
    mine, theirs = who.key(name), who.key(same_as)
    known = {p for row in rows for p in row.everyone} | {n for a in aliases for n in (a.name, a.same_as)}
    looks_as = next((n for n in sorted(known) if reads_alike(name, n) and who.key(n) != theirs), None)
    if looks_as is not None:
        raise Refused("club.alias", _("{name} reads as {other}, who is another player (letters of other scripts or "
                                      "forms that look the same, Unicode's confusables)").format(
            name=repr(name), other=repr(looks_as)), _("a name that does not read as another player's"))
    for row in rows:
        keys = [who.key(p) for p in row.everyone]
        if mine in keys and theirs in keys:
            raise Refused("club.alias", _("{name} and {same_as} both sat at {game}: they cannot be one player").format(
                name=repr(name), same_as=repr(same_as), game=row.game))


def judge_model(event: RatingModelChosen) -> None:
    """Refuse a choice of the rating's model that this ledger cannot rate by: an unknown
    model, a parameter it does not take, a value out of its range; or one not recorded
    by an arbiter."""
    if event.by is not None and not is_arbiter(event.by):
        raise Refused("club.rating", _("the club's rating model is chosen by an arbiter, not {by}").format(
            by=repr(event.by)), "arbiter:NAME")
    if event.model not in MODELS:
        raise Refused("club.rating", _("{model} is not a rating model of pulka").format(model=excerpt(event.model)),
                      ", ".join(MODELS))
    try:
        model_of(event.model, event.parameters)
    except ParameterError as exc:
        allowed = ", ".join(f"{k} {low}..{high}" for k, (low, high) in MODELS[event.model].RANGES.items())
        raise Refused("club.rating", _("a parameter of {model}: {problem}").format(
            model=event.model, problem=exc), allowed) from None


def judge_register(lines: Sequence[tuple[int, AnyEvent]], rows: Sequence[PulkaRow],
                   clock: Callable[[], str]) -> list[AnyEvent]:
    """The club's register as a file brings it (``pulka export --club``), judged event by
    event as ``alias`` judged each when it was recorded, against the pulkas ``rows`` (the
    file's games): what would be stored. A line without a time is given the clock's; a
    refusal names the line."""
    events: list[AnyEvent] = []
    aliases: list[Alias] = []
    for line, event in lines:
        try:
            if event.at is None:
                event = msgspec.structs.replace(event, at=clock())
            admit(event)
            if not events:
                if not isinstance(event, ClubStarted) or event.game != CLUB_STREAM:
                    raise Refused("event-log", _("the club's register begins with club_started of {stream}").format(
                        stream=repr(CLUB_STREAM)))
            elif isinstance(event, RatingModelChosen):
                judge_model(event)
            elif not isinstance(event, PlayerAliased):
                raise Refused("event-log", _("the club's register holds aliases (player_aliased) and choices of the "
                                             "rating's model (rating_model_chosen), not {type}").format(
                    type=event_type(event)), "player_aliased, rating_model_chosen")
            else:
                if event.by is not None and not is_arbiter(event.by):
                    raise Refused("club.alias", _("the register is kept by an arbiter, not {by}").format(
                        by=repr(event.by)), "arbiter:NAME")
                judge_alias(event.name, event.same_as, aliases, rows)
                aliases.append(Alias(event.name, event.same_as))
        except Refused as exc:
            exc.line = line
            raise
        events.append(event)
    return events


def rows_of(states: Mapping[str, Any]) -> list[PulkaRow]:
    """The pulkas among games folded (``states``: a game's name and its state) as the
    archive's rows, for judging aliases against them."""
    rows = []
    for game, state in states.items():
        if isinstance(state, GameState):
            at = state.started.at or ""
            rows.append(PulkaRow(game, at, utc_micros(at) if at else 0, state.rules.convention,
                                 tuple(state.started.players), game_result(state)))
    return rows


def newcomers(new: Sequence[AnyEvent]) -> list[str]:
    """The names that events ``new`` seat: a start's players (a tournament's entrants), a
    player who joins, a substitute."""
    names: list[str] = []
    for event in new:
        if type(event) in _SEAT_NOBODY:  # a bid, a deal's result...: one look-up for the events of play
            continue
        if isinstance(event, StreamStart):
            names += getattr(event, "players", ())
        elif isinstance(event, Joined):
            names.append(event.player)
        elif isinstance(event, Substituted):
            names.append(event.substitute)
    return names


# The types of event that seat nobody: an import asks ``newcomers`` of every event of its
# log, and three type checks of each were 2 % of it.
_SEAT_NOBODY = frozenset(t for t in EVENT_TYPES.values() if not issubclass(t, StreamStart | Joined | Substituted))


def one_person_once(store: Store, new: Sequence[AnyEvent], state: GameState | None) -> dict[str, int]:
    """Refuse events ``new`` of a stream that seat one person twice by the club's
    register: two players of a game's start (or two entrants of a tournament) whose
    names an alias joins, or a player who joins or takes a seat under a name joined to
    one who is or was at the table (``state``: the pulka after ``new``; None for a
    stream of another kind). What was read: the register with its count of events,
    which must be unchanged when ``new`` is stored ({} when nothing is seated, or the
    club has no register)."""
    names = newcomers(new)
    if not names:
        return {}
    stored = store.sound(CLUB_STREAM, "club register")
    aliases = [Alias(e.name, e.same_as) for e in (s.event for s in stored) if isinstance(e, PlayerAliased)]
    if not aliases:
        return {CLUB_STREAM: len(stored)} if stored else {}
    who = identities([], aliases)
    start = new[0] if isinstance(new[0], StreamStart) else None
    seated = list(getattr(start, "players", ())) if start is not None else []
    present = seated + [p for p in (state.person_seat if state is not None else ()) if p not in seated]
    for name in names:
        other = next((p for p in present if p != name and who.key(p) == who.key(name)), None)
        if other is not None:
            twice = (_("{name} and {other} are one player by the club's register (an alias joins them): one person "
                       "enters a tournament once") if isinstance(start, TournamentStarted)
                     else _("{name} and {other} are one player by the club's register (an alias joins them): one "
                            "person sits at a table once"))
            raise Refused("club.alias", twice.format(name=excerpt(name), other=excerpt(other)),
                          _("another player, or {other} alone").format(other=excerpt(other)))
    return {CLUB_STREAM: len(stored)}
