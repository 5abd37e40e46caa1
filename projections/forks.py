"""What corrections, objections, late records and withdrawals do to a game, in event
order [Code 4.2.7-4.2.10; rules.md §8].

The verdicts are the recording rules' (``projections.recording``); the deadlines are
``projections.deadlines``'. What is done here is to apply them to the fold
(``projections.game``): a correction is compared against a fork of the game that starts
from the corrected deal's checkpoint and folds only the events from that deal on
(``override``); when it takes effect, the game keeps that fork. A record without effect
is kept ``void``, a warning in ``warned``, a correction's penalty writes in
``penalties``, and every verdict in ``effects``, so that ``pulka log`` shows it with its
rule and reason. ``rewound`` lends the command side the same fork, to judge a corrected
log again before the correction is stored.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, MutableSet, Sequence
from contextlib import contextmanager
from typing import Protocol, TypeVar

from ledger.vocabulary.events import (
    Annulled,
    AnyEvent,
    Correction,
    Entry,
    Objection,
    Penalty,
    Talon,
    Tricks,
    Withdrawn,
)
from ledger.vocabulary.wording import joined_by, said
from projections.deal_sheets import Checkpoints
from projections.deadlines import deadline, too_late_reason
from projections.deal_state import DealState
from projections.recording import Effect, correction_verdict, merge
from projections.seats import TableSeats
from projections.sheet import Sheet, Write


class Forked(Protocol):
    """What the forks read and change of a game (``projections.game.GameState``): the
    stored events and how many are folded, the deals, the decisions of the recording
    rules, and the fold's own steps."""

    folded: int

    @property
    def events(self) -> Sequence[AnyEvent]: ...

    @property
    def deals(self) -> Sequence[DealState]: ...

    @property
    def starts(self) -> Sequence[int]: ...

    @property
    def table(self) -> TableSeats: ...

    @property
    def checkpoints(self) -> Checkpoints: ...

    @property
    def overrides(self) -> MutableMapping[int, AnyEvent]: ...

    @property
    def void(self) -> MutableSet[int]: ...

    @property
    def penalties(self) -> MutableMapping[int, list[Write]]: ...

    @property
    def effects(self) -> MutableMapping[int, Effect]: ...

    @property
    def warned(self) -> MutableSet[str]: ...

    def content(self, number: int) -> AnyEvent: ...

    def writable(self, index: int) -> DealState: ...

    def sheet(self) -> Sheet: ...

    def fold(self, number: int, event: AnyEvent) -> None: ...

    def add_item(self, number: int, k: int) -> None: ...

    def changed(self, k: int) -> None: ...

    def result_changed(self, deal: DealState, number: int) -> None: ...

    def rewind(self, deal: int) -> None: ...

    def refold(self, deal: int, through: int) -> None: ...


G = TypeVar("G", bound=Forked)


@contextmanager
def rewound(game: G, deal: int, overrides: dict[int, AnyEvent]) -> Iterator[G]:
    """``game`` rewound to deal ``deal`` with ``overrides`` merged in, for the caller to
    fold forward again with ``replay_recorded``; afterwards it is as it was."""
    through = game.folded
    saved = {n: game.overrides.get(n) for n in overrides}
    game.overrides.update(overrides)
    try:
        game.rewind(deal)
        yield game
    finally:
        for n, old in saved.items():
            if old is None:
                game.overrides.pop(n, None)
            else:
                game.overrides[n] = old
        game.refold(deal, through)


def override(game: Forked, number: int, content: AnyEvent | None) -> None:
    """Event ``number`` now stands as ``content`` (None: as recorded); fold again only what
    that can change. A record by hand changes only the sheet from its deal on; tricks
    only their deal's result; a bid, a contract or a call the deal's course, which is
    folded again from the deal's start."""
    if content is None:
        game.overrides.pop(number, None)
    else:
        game.overrides[number] = content
    game.checkpoints.cache = None
    if number in game.void:
        return
    event = game.content(number)
    match event:
        case Entry() | Penalty() | Talon():
            game.changed(event.deal if event.deal is not None else 0)
        case Tricks():
            deal = game.writable((event.deal or len(game.deals)) - 1)
            assert deal.tricks_event == number, (deal.number, deal.tricks_event, number)
            game.table.tricks_into(deal, number, event)
            through = game.folded
            game.result_changed(deal, through)
            game.folded = through
        case Annulled():
            pass  # only its reason can change
        case _:
            through = game.folded
            game.refold(event.deal or 0, through)
            game.folded = through


def apply_correction(game: Forked, number: int, c: Correction) -> None:
    """The recording rules' verdict on correction ``number`` [Code 4.2.7-4.2.9], and the
    game as it makes it: the target corrected or as recorded, a warning, penalty writes."""
    target_no = c.target
    target = game.content(target_no)
    seat_key = game.table.seat_key
    # A record by a player (or by whoever holds his seat) is charged to his seat;
    # an arbiter's or a scorer's record is corrected free of penalty [Code 4.2.7].
    recorder = seat_key(target.by or "") or target.by or ""
    asked_by = seat_key(c.by) if c.by is not None and seat_key(c.by) else c.by
    k = target.deal or 0
    previous = game.overrides.get(target_no)
    merged = merge(target, c.replacement)
    sheets: tuple[Sheet, Sheet] | None = None

    def compare() -> tuple[Sheet, Sheet]:
        """The sheet as recorded, then as corrected (the correction now merged in); the
        verdict may ask twice (a late correction by its recorder, then equal for equal),
        and the second answer is the first, not the corrected sheet twice."""
        nonlocal sheets
        if sheets is None:
            wrong = game.sheet()
            override(game, target_no, merged)
            sheets = (wrong, game.sheet())
        return sheets

    end = deadline(game.deals, k)
    effect, writes = correction_verdict(
        number=number,
        recorder=recorder,
        asked_by=asked_by,
        players=game.table.seats.everyone,
        too_late=too_late_reason(game.deals, game.events, k, end) if end is not None and end < number else None,
        in_hand=all(
            isinstance(e, Correction) and e.target == target_no for e in game.events[target_no : number - 1]
        ),
        warned=recorder in game.warned,
        compare=compare,
        deal=len(game.deals),
        waived=c.penalty == "waived",
    )
    game.effects[number] = effect
    compared = sheets is not None
    if effect.effective and not compared:
        override(game, target_no, merged)
    elif not effect.effective and compared:
        override(game, target_no, previous)
    if effect.warning:
        game.warned.add(recorder)
    if writes:
        game.penalties[number] = writes
        game.add_item(number, c.deal or 0)


def apply_objection(game: Forked, number: int, o: Objection) -> None:
    """A partner refuses the forgotten records of deal k (or the one named): those
    accepted are withdrawn until the deadline [Code 4.2.10]. The verdict says the
    same as the records': what stands stands, what had no effect had none already."""
    k = o.deal or 0
    end = deadline(game.deals, k)
    late = objected_to(game, number, o)
    effects = game.effects
    if o.target is not None and o.target not in late:
        effects[number] = Effect(number, False, said("event {target} was recorded in time, during deal {deal}: "
                                                     "an objection refuses only a forgotten record",
                                                     target=o.target, deal=k), "4.2.10")
        return
    standing = [n for n in late if n not in game.void]
    ignored = [n for n in late if n in game.void]
    if o.target is not None and ignored:
        why = effects.get(o.target)
        because = said(" ({reason})", reason=why.reason) if why is not None else ""
        effects[number] = Effect(number, False, said("nothing to refuse: event {target} has no effect already{because}",
                                                     target=o.target, because=because), "4.2.10")
        return
    if end is not None and end < number:
        parts = [said("late record(s) {numbers} stand", numbers=_numbers(standing)) if standing else "",
                 said("event(s) {numbers} had no effect already", numbers=_numbers(ignored)) if ignored else ""]
        told = [p for p in parts if p]
        what = (joined_by("; ", told) if told
                else said("there is no late record of deal {deal} to refuse", deal=k))
        effects[number] = Effect(number, False, said("{late}: {what}", late=too_late_reason(game.deals, game.events,
                                                                                             k, end), what=what),
                                 "4.2.10")
        return
    _withdraw_late(game, number, o, standing)


def _withdraw_late(game: Forked, number: int, o: Objection, standing: list[int]) -> None:
    """The forgotten records an objection in time withdraws, and the deal folded again."""
    k = o.deal or 0
    for late_no in standing:
        game.void.add(late_no)
        game.effects[late_no] = Effect(
            late_no, False, said("forgotten record withdrawn: {player} objected at event {number}", player=o.player,
                                 number=number), "4.2.10"
        )
    if standing:
        game.effects[number] = Effect(number, True, said("late record(s) {numbers} withdrawn",
                                                         numbers=_numbers(standing)), "4.2.10")
        game.refold(k, number)
    else:
        game.effects[number] = Effect(
            number, True, said("no late record of deal {deal} may be added while {player} objects", deal=k,
                               player=o.player), "4.2.10"
        )


def objected_to(game: Forked, number: int, o: Objection) -> list[int]:
    """The forgotten records of the objection's deal (those recorded once the next deal
    had begun) by others than the objector, or the one it names, in event order."""
    k = o.deal or 0
    starts = game.starts
    begun = starts[k] if 0 <= k < len(starts) else number
    events = game.events
    return [
        n for n in range(begun + 1, number)
        if (o.target is None or o.target == n) and isinstance(late := events[n - 1], (Entry, Tricks))
        and late.deal == k and late.by != o.player
    ]


def apply_late(game: Forked, number: int, event: Entry | Tricks) -> None:
    """A forgotten record counts until the deadline, and not while a partner objects
    [Code 4.2.10]; one that counts is folded."""
    k = event.deal or 0
    end = deadline(game.deals, k)
    if end is not None and end < number:
        game.void.add(number)
        game.effects[number] = Effect(
            number, False, said("{late}: a forgotten record has no effect",
                                late=too_late_reason(game.deals, game.events, k, end)),
            "4.2.10",
        )
        return
    for i in range(2, number):
        o = game.events[i - 1]
        if isinstance(o, Objection) and o.deal == k and o.target in (None, number) and o.player != event.by:
            game.void.add(number)
            game.effects[number] = Effect(
                number, False, said("{player} objected at event {number}: the forgotten record is refused",
                                    player=o.player, number=i), "4.2.10"
            )
            return
    game.effects[number] = Effect(number, True, said("forgotten record of deal {deal}, accepted before the deadline",
                                                     deal=k), "4.2.10")
    game.fold(number, event)


def apply_withdrawn(game: Forked, number: int, w: Withdrawn) -> None:
    """Records taken back while still in hand have no effect and cost nothing [Code 4.2.8]."""
    first = game.content(w.first)
    k = first.deal if first.deal is not None else len(game.deals)
    for i in range(w.first, number):
        game.void.add(i)
        game.effects[i] = Effect(i, False, said("withdrawn at event {number} while in hand: no penalty", number=number),
                                 "4.2.8", free=True)
    if w.first == number - 1:
        taken_back = said("event {first} withdrawn while in hand: no penalty", first=w.first)
    else:
        taken_back = said("events {first}-{last} withdrawn while in hand: no penalty", first=w.first, last=number - 1)
    game.effects[number] = Effect(number, True, taken_back, "4.2.8", free=True)
    game.refold(k, number)


def _numbers(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))
