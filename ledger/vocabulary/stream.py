"""What every event of every stream shares, and the kinds of stream.

The ledger keeps streams of events: a game of Preferans (its events are in ``events``),
a rubber of bridge (``bridge``), a tournament (``tournament``) and the club's register
of players (``club``). Every stream opens with a ``StreamStart``; the store derives the
stream's id from its name and the hash chain binds it. Events of a stream that is not a
pulka derive from ``ForeignEvent``: the Preferans folds never meet one, and the
Preferans command side refuses one in a pulka.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

import msgspec


class Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    tag_field="type",
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """Fields every event carries.

    ``at``: ISO 8601 time with offset; the ledger stamps it when a file leaves it out.
    ``by``: who recorded the event (a player, or ``arbiter:NAME``); the ledger fills
    in the default of rules.md / event-log.md when a file leaves it out.
    ``deal``: the deal the event belongs to; filled in by the ledger, required in a
    file only for a late record of an earlier deal.
    ``played_at``: when it happened at the table (ISO 8601 with offset), where that is
    not when it reached the ledger: a phone's entry made offline and delivered later. It
    may not be after ``at``, the arrival, which alone orders the stream; left out (as in
    every event written before it existed, whose bytes and hashes stay as they were)
    when the two are one.
    """

    at: str | None = None
    by: str | None = None
    deal: int | None = None
    played_at: str | None = None


class StreamStart(Event, frozen=True):
    """The first event of a stream: a game of Preferans (``GameStarted``), or any other
    kind of stream the ledger keeps. ``game`` names the stream; the store derives the
    stream's id from it, and the hash chain binds it."""

    game: str


class ForeignEvent(Event, frozen=True):
    """An event of a stream that is not a pulka (a rubber of bridge, a tournament, the
    club's register)."""
