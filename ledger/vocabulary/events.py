"""The events of a pulka: immutable, tagged msgspec structs and their one decoder.

The union ``AnyEvent`` also holds the events of the other kinds of stream (a rubber
of bridge: ``bridge``), so that one decoder reads every log the ledger keeps.

Every line of a pulka log (see the README, "The log format") is one of these
structs, told apart by its ``type`` field. Events are facts: nothing here judges
them (that is ``ledger.command.judge``) or scores them (that is ``projections``).

New fields always get defaults, so that logs written before they existed still load.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ledger.vocabulary.bridge import BridgeDeal, BridgePenalty, PassedOut, RubberStarted
from ledger.vocabulary.club import ClubStarted, PlayerAliased
from ledger.vocabulary.rules import RuleSet
# The fields every event carries, and the kinds of stream, live in ``stream`` so that the
# events of other kinds of stream (``bridge``, ``tournament``, ``club``) can derive from them too.
from ledger.vocabulary.stream import Event as Event
from ledger.vocabulary.stream import ForeignEvent as ForeignEvent
from ledger.vocabulary.stream import StreamStart as StreamStart
from ledger.vocabulary.tournament import (
    CutMade,
    Disqualified,
    Removed,
    Seated,
    TourClosed,
    TournamentStarted,
    YellowCard,
)
from ledger.vocabulary.wording import plain


class GameStarted(StreamStart, frozen=True, tag="game_started"):
    players: tuple[str, ...]
    pulya: int
    convention: str = "sochi"
    rules: dict[str, Any] = {}
    stake: str | None = None
    first_dealer: str | None = None
    # The complete rule set the pulka is played by, resolved from ``convention`` and
    # ``rules`` when the game was stored; replay uses it, so a later change to a
    # preset never changes an old pulka.
    rule_set: RuleSet | None = None


class Bid(Event, frozen=True, tag="bid"):
    player: str
    bid: str


class Contract(Event, frozen=True, tag="contract"):
    player: str
    contract: str


class Defence(Event, frozen=True, tag="defence"):
    player: str
    call: Literal["whist", "pass", "half_whist"]
    open: bool | None = None


class Tricks(Event, frozen=True, tag="tricks"):
    tricks: dict[str, int]


Column = Literal["pulya", "gora", "whists"]


class Entry(Event, frozen=True, tag="entry"):
    player: str
    column: Column
    amount: int
    on: str | None = None


class PencilDown(Event, frozen=True, tag="pencil_down"):
    player: str


class Correction(Event, frozen=True, tag="correction"):
    target: int
    replacement: dict[str, Any]
    penalty: Literal["waived"] | None = None


class Objection(Event, frozen=True, tag="objection"):
    player: str
    target: int | None = None


class Penalty(Event, frozen=True, tag="penalty"):
    player: str
    column: Column
    amount: int
    reason: str
    on: str | None = None


class Abandoned(Event, frozen=True, tag="abandoned"):
    agreed_by: tuple[str, ...]


class Annulled(Event, frozen=True, tag="annulled"):
    reason: str = ""


class Withdrawn(Event, frozen=True, tag="withdrawn"):
    """Records taken back while still in hand [Code 4.2.8]: the events numbered ``first``
    up to the one before this are withdrawn, free of penalty. The log keeps them; the
    game is folded as if they had never been recorded."""

    first: int


AnyEvent = (
    GameStarted
    | Bid
    | Contract
    | Defence
    | Tricks
    | Entry
    | PencilDown
    | Correction
    | Objection
    | Penalty
    | Abandoned
    | Annulled
    | Withdrawn
    # The events of a rubber of bridge (``bridge``).
    | RubberStarted
    | BridgeDeal
    | PassedOut
    | BridgePenalty
    # The events of the other kinds of stream (tournaments, the club's register).
    | ClubStarted
    | PlayerAliased
    | TournamentStarted
    | Seated
    | TourClosed
    | YellowCard
    | Removed
    | Disqualified
    | CutMade
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]
    for cls in (
        GameStarted,
        Bid,
        Contract,
        Defence,
        Tricks,
        Entry,
        PencilDown,
        Correction,
        Objection,
        Penalty,
        Abandoned,
        Annulled,
        Withdrawn,
        RubberStarted,
        BridgeDeal,
        PassedOut,
        BridgePenalty,
        ClubStarted,
        PlayerAliased,
        TournamentStarted,
        Seated,
        TourClosed,
        YellowCard,
        Removed,
        Disqualified,
        CutMade,
    )
}

_decoder: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)
_encoder = msgspec.json.Encoder(order="deterministic")


class EventFormatError(ValueError):
    """A line that is not an event of the log format (bad JSON, unknown field...)."""


# What the decoder says of lists and objects nested deeper than it can follow (no
# event of the log nests more than a few levels).
TOO_DEEP = "values nested too deeply: no field of an event nests lists or objects more than a few levels"


def decode_event(line: bytes | str) -> AnyEvent:
    """Decode one JSON line into its event struct, or raise EventFormatError."""
    try:
        return _decoder.decode(line)
    except msgspec.DecodeError as exc:  # ValidationError is a subclass
        raise EventFormatError(_explain_decode_error(str(exc))) from None
    except RecursionError:
        raise EventFormatError(TOO_DEEP) from None


def event_from_dict(data: dict[str, Any]) -> AnyEvent:
    """Build an event from a mapping (used to merge a correction into its target)."""
    try:
        event: AnyEvent = msgspec.convert(data, AnyEvent)
        return event
    except msgspec.ValidationError as exc:
        raise EventFormatError(_explain_decode_error(str(exc))) from None
    except RecursionError:
        raise EventFormatError(TOO_DEEP) from None


def encode_event(event: AnyEvent) -> bytes:
    """The canonical JSON of an event: deterministic key order, defaults omitted."""
    return _encoder.encode(event)


def event_to_dict(event: AnyEvent) -> dict[str, Any]:
    result: dict[str, Any] = msgspec.to_builtins(event, order="deterministic")
    return result


def event_type(event: AnyEvent) -> str:
    tag: str = type(event).__struct_config__.tag  # type: ignore[assignment]
    return tag


def _explain_decode_error(message: str) -> str:
    """The decoder's message in the words of docs/event-log.md."""
    if message.startswith("Object missing required field `type`"):
        return f"the line has no `type`; the event types are: {', '.join(sorted(EVENT_TYPES))}"
    if message.startswith("Invalid value") and "`$.type`" in message:
        value = message.split(" ")[2]
        return f"unknown event type {value}; the event types are: {', '.join(sorted(EVENT_TYPES))}"
    return plain(message)
