"""Who sits where through a pulka [Code 3.1.2, 5.4.7, 5.4.18]: the seats at the table,
who holds each of them, and how a newcomer, a player who leaves and a substitute
change them.

A seat is named by the player who first held it and keeps its columns on the sheet; a
substitute holds another's seat, and a newcomer takes a seat of his own (or the one a
leaver left empty). ``Seats`` is the table at one moment, never changed; ``TableSeats``
is the table through the game, as the fold (``projections.game``) changes it event by
event and takes it back when it folds again from an earlier deal.
"""

from __future__ import annotations

from copy import copy
from functools import cached_property

import msgspec
from msgspec.structs import replace

from ledger.vocabulary.events import Joined, Left, Substituted, Tricks
from projections.deal_state import DealState, seat_index


class Seats(msgspec.Struct, frozen=True, dict=True):
    """Who sits where [Code 3.1.2, 5.4.7, 5.4.18]: the seats at the table, clockwise (each
    seat is named by the player who first held it, and keeps its columns on the sheet);
    everyone who ever held a seat, in the sheet's order; who holds each seat now; who
    deals next when a newcomer has just joined; the seat of the player who left, while
    his place is empty, with the seating he left (a newcomer who replaces him sits
    there); and the last event that changed them."""

    seating: tuple[str, ...]
    everyone: tuple[str, ...]
    holders: tuple[tuple[str, str], ...]  # (seat, person)
    dealer_next: str | None = None
    changed_at: int = 0
    vacated: str | None = None
    vacated_from: tuple[str, ...] = ()

    @cached_property
    def _held(self) -> dict[str, str]:
        return dict(self.holders)

    def holder(self, seat: str) -> str:
        return self._held.get(seat, seat)

    @cached_property
    def persons(self) -> tuple[str, ...]:
        """The people at the table now, clockwise."""
        held = self._held
        return tuple(held.get(s, s) for s in self.seating)

    @cached_property
    def seat_index(self) -> dict[str, int]:
        """The index in ``seating`` of each seat's name and of each person holding one:
        what every deal dealt at this table looks seats up in (shared, never changed)."""
        return seat_index(self.seating, self.persons)


class TableSeats:
    """The table through a game: the seats now (``seats``); each deal's seats as it began
    (``opened_with``), so that folding again from a deal restores them; the seating after
    each change of the table (``table_after``: event number -> seating). Every person is
    mapped to the seat he holds or held (``person_seat``), from the event that brought him
    (``arrived``: a join or a substitution) on; folding again from before that event
    forgets him until it is folded again, so that a correction judges it afresh [Code
    3.1.2]."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.players = players  # those who started the pulka
        self.seats = Seats(players, players, ())
        self.person_seat: dict[str, str] = {p: p for p in players}
        self.arrived: dict[str, int] = {}
        self.opened_with: list[Seats] = []
        self.table_after: dict[int, tuple[str, ...]] = {}

    def fork(self) -> TableSeats:
        """An independent copy, for a fork of the game (``GameState.fork``); the seatings
        (``Seats``, tuples) are shared, as nothing changes them."""
        other = copy(self)
        other.person_seat = dict(self.person_seat)
        other.arrived = dict(self.arrived)
        other.opened_with = list(self.opened_with)
        other.table_after = dict(self.table_after)
        return other

    # -- looking people up ---------------------------------------------------------------

    def seat_key(self, person: str) -> str | None:
        """The seat (its name on the sheet) a person holds or held; None for a stranger."""
        return self.person_seat.get(person)

    def key(self, person: str) -> str:
        """The seat a person holds or held, or the name itself (a seat's own name)."""
        return self.person_seat.get(person, person)

    def seat(self, person: str) -> int:
        """The seat of a person at the table now, as an index of the seating."""
        return self.seats.seating.index(self.person_seat[person])

    def deal_seat(self, deal: DealState, person: str) -> int:
        """The seat, in ``deal``, of a person who held one there."""
        seat = deal.seat_index.get(person)
        if seat is None:
            key = self.person_seat.get(person)
            seat = deal.seat_of(key) if key is not None else None
            if seat is None:
                raise KeyError(person)
        return seat

    def by_seat(self, deal: DealState, counts: dict[str, int]) -> dict[int, int]:
        """Counts by person (tricks) as counts by the seat each held in ``deal``."""
        index = deal.seat_index
        if all(p in index for p in counts):
            return {index[p]: t for p, t in counts.items()}
        return {self.deal_seat(deal, p): t for p, t in counts.items()}

    def penalty_seats(self, deal: DealState, event: Tricks) -> tuple[tuple[int, int, str], ...]:
        """The penalty tricks of ``event`` by the seat each player held in ``deal``."""
        if not event.penalty_tricks:
            return ()
        return tuple((self.deal_seat(deal, pt.player), pt.tricks, pt.rule) for pt in event.penalty_tricks)

    def tricks_into(self, deal: DealState, number: int, event: Tricks) -> None:
        """The tricks of ``event`` (event ``number``) folded into ``deal``, by seat."""
        deal.apply_tricks(self.by_seat(deal, event.tricks), number, self.penalty_seats(deal, event))

    # -- changes of the table ------------------------------------------------------------

    def deal_opened(self) -> None:
        """A deal begins at the table as it sits now; a newcomer's turn to deal is taken."""
        seats = self.seats
        self.opened_with.append(seats)
        if seats.dealer_next is not None:
            self.seats = replace(seats, dealer_next=None)

    def join(self, number: int, event: Joined, last: DealState | None) -> None:
        """A newcomer who replaces the player who left sits in his place, and the deal goes
        round as before; any other sits to the left of the one who dealt last (``last``:
        the deal before) and deals next [Code 3.1.2]. Either way the place left empty is
        taken."""
        seats = self.seats
        self._arrive(event.player, event.player, number)
        if event.replaces is not None and seats.vacated is not None:
            empty, seated = seats.vacated, seats.seating
            seating = tuple(event.player if s == empty else s for s in seats.vacated_from
                            if s == empty or s in seated)
            dealer_next = seats.dealer_next
        else:
            after = last.names[last.dealer] if last is not None else seats.seating[-1]
            i = seats.seating.index(after) if after in seats.seating else len(seats.seating) - 1
            seating = seats.seating[: i + 1] + (event.player,) + seats.seating[i + 1 :]
            dealer_next = event.player
        self.seats = replace(
            seats, seating=seating, everyone=seats.everyone + (event.player,), dealer_next=dealer_next,
            changed_at=number, vacated=None, vacated_from=(),
        )
        self.table_after[number] = seating

    def leave(self, number: int, event: Left) -> None:
        """The player leaves; his seat stays empty until a newcomer replaces him [Code 5.4.18]."""
        seats = self.seats
        key = self.person_seat[event.player]
        seating = tuple(s for s in seats.seating if s != key)
        nxt = seats.dealer_next if seats.dealer_next != key else None
        self.seats = replace(seats, seating=seating, dealer_next=nxt, changed_at=number, vacated=key,
                             vacated_from=seats.seating)
        self.table_after[number] = seating

    def substitute(self, number: int, event: Substituted) -> None:
        """The substitute holds the player's seat [Code 5.4.7]."""
        seats = self.seats
        key = self.person_seat[event.player]
        self._arrive(event.substitute, key, number)
        holders = tuple((s, p) for s, p in seats.holders if s != key) + ((key, event.substitute),)
        self.seats = replace(seats, holders=holders, changed_at=number)

    def _arrive(self, person: str, seat: str, number: int) -> None:
        """``person`` holds ``seat`` from event ``number`` on (a substitute coming back to
        the seat he held keeps his first arrival)."""
        if person not in self.person_seat:
            self.person_seat[person] = seat
            self.arrived[person] = number

    def rewind(self, deal: int, begin: int) -> None:
        """The table as deal ``deal`` began (0: as the pulka began), whose first event is
        ``begin``: those who arrived from then on are forgotten."""
        if 1 <= deal <= len(self.opened_with):
            self.seats = self.opened_with[deal - 1]
        elif deal <= 0:
            self.seats = Seats(self.players, self.players, ())
        del self.opened_with[max(0, deal - 1) :]
        for person in [p for p, at in self.arrived.items() if at >= begin]:
            del self.person_seat[person], self.arrived[person]
