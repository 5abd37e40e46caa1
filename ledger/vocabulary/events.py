"""The events of a pulka: immutable, tagged msgspec structs and their one decoder.

The union ``AnyEvent`` also holds the events of the other kinds of stream (a rubber
of bridge: ``bridge``), so that one decoder reads every log the ledger keeps.

Every line of a pulka log (see the README, "The log format") is one of these
structs, told apart by its ``type`` field. Events are facts: nothing here judges
them (that is ``ledger.judge.pulka``) or scores them (that is ``projections``).

New fields always get defaults, so that logs written before they existed still load.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from functools import cache
from typing import Any, Literal

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.accounts import (
    AccountChanged,
    AccountCreated,
    AccountRemoved,
    AccountsStarted,
    SecondFactorRequired,
)
from ledger.vocabulary.attestation import (
    CheckpointMade,
    CheckpointsStarted,
    Cosigned,
    EventSigned,
    KeyRotated,
    SignaturesStarted,
)
from ledger.vocabulary.bridge import BridgeDeal, BridgePenalty, PassedOut, RubberStarted
from ledger.vocabulary.club import ClubStarted, PlayerAliased, RatingModelChosen
from ledger.vocabulary.rules import RuleSet
# The fields every event carries, and the kinds of stream, live in ``stream`` so that the
# events of other kinds of stream (``bridge``, ``tournament``, ``club``) can derive from them too.
from ledger.vocabulary.stream import Event as Event
from ledger.vocabulary.stream import ForeignEvent as ForeignEvent
from ledger.vocabulary.stream import StreamStart as StreamStart
from ledger.vocabulary.tournament_events import (
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
    # Said without looking at one's cards [Code 3.3.19]; only where dark_bids is agreed.
    dark: bool = False
    # Not recorded as said: a deal line that gave only the outcome (the declarer and his
    # contract) stands for the simplest auction that ends so, the declarer's bid and the
    # others' passes; the paper sheet keeps no auction either [Code 4.2.1].
    implied: bool = False


class Contract(Event, frozen=True, tag="contract"):
    player: str
    contract: str
    # A misère shared in halves with the sitting-out dealer, who is named [Code 3.6.9].
    shared_with: str | None = None
    # A change of contract after a whist, the declarer's intention to correct his error
    # having been evident ("6D - oh-oh-oh - whist! - 6H") [Code 3.4.8, its exception to
    # 3.4.7]: the calls said to the mistaken contract are void, the defence calls again.
    evident_correction: bool = False


class Defence(Event, frozen=True, tag="defence"):
    player: str
    call: Literal["whist", "pass", "half_whist"]
    open: bool | None = None
    # The four-player dealer's whist: the defender whose cards he plays; the dealer
    # takes that defender's place for the deal [Code 3.8.8, 3.8.8.1].
    hand: str | None = None


class PenaltyTrick(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Tricks the Code adds or takes away for an irregularity, and the rule that says so:
    3.4.6 (declared with a wrong number of cards), 3.4.9 (looked at the discard), 3.9.11.2
    (looked at a closed trick), 3.9.18 and 3.2.16 (a wrong number of cards in play)."""

    player: str
    tricks: int
    rule: str


def stored_order(value: Any) -> Any:
    """``value`` with every dict in it in the order the event's encoding writes it (keys
    sorted: ``Encoder(order="deterministic")``): what ``as_stored`` puts an event's dicts
    in. A value already so is given back as it is (an event read from the store: its
    dicts are in that order)."""
    if isinstance(value, dict):
        keys = list(value)
        if keys != sorted(keys):
            return {k: stored_order(value[k]) for k in sorted(keys)}
        ordered = [stored_order(v) for v in value.values()]
        if all(o is v for o, v in zip(ordered, value.values())):
            return value
        return dict(zip(keys, ordered))
    if isinstance(value, list):
        ordered = [stored_order(v) for v in value]
        return value if all(o is v for o, v in zip(ordered, value)) else ordered
    return value


class Tricks(Event, frozen=True, tag="tricks"):
    tricks: dict[str, int]
    # The Code's penalty tricks, scored beside the tricks actually taken.
    penalty_tricks: tuple[PenaltyTrick, ...] = ()


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
    """An arbiter's penalty on ``player``; it never benefits him [Code 4.2.16]. In whists
    the wronged player (``wronged``) writes the amount on him. Logs written before
    ``wronged`` existed give ``on`` instead: then ``player`` writes on ``on``, the
    penalised one."""

    player: str
    column: Column
    amount: int
    reason: str
    on: str | None = None
    wronged: str | None = None


class Abandoned(Event, frozen=True, tag="abandoned"):
    """The pulka stops early: by the agreement of all players [Code 4.2.3], or on one
    player's demand in an emergency, with its reason [Code 4.2.15, 5.4.18]."""

    agreed_by: tuple[str, ...] = ()
    demanded_by: str | None = None
    reason: str = ""


class Annulled(Event, frozen=True, tag="annulled"):
    reason: str = ""
    # The dealer's own error [Code 3.2.17]: the first at a deal is a warning and he
    # deals again; the second costs him dealer_error_gora and the deal passes on.
    dealer_error: bool = False


class Withdrawn(Event, frozen=True, tag="withdrawn"):
    """Records taken back while still in hand [Code 4.2.8]: the events numbered ``first``
    up to the one before this are withdrawn, free of penalty. The log keeps them; the
    game is folded as if they had never been recorded."""

    first: int


# -- the rest of the Code: irregularities, rulings, changes of players, the talon ----------


class Dealt(Event, frozen=True, tag="dealt"):
    """The next deal was dealt out of turn by ``player`` and stands, the cards having been
    lifted; the deal after it is dealt by the player to his left [Code 3.2.14]."""

    player: str


class Ruling(Event, frozen=True, tag="ruling"):
    """A ruling or an agreement on a deal, citing the rule.

    These close the deal without (the rest of) its play, and the deal moves on: 3.3.16.3
    (the talon exposed while two besides the ``offender`` still bid: ``whists`` each
    wronged player writes on him), 3.4.4 (a declaration against the rules that stands: a
    remiz without all at the level reached), 3.5.4 (the declarer concedes: a remiz
    without all; ``tricks`` may give the defenders' split) or 3.9.22 (a result agreed by
    all, ``agreed_by``, without play: ``tricks``).

    These leave the deal to be played: 3.3.16.2 (the talon exposed by the ``offender``
    while one other player still bids: the talon is his, his last bid the auction's last,
    and he declares) and 3.8.5.1 (the whister's plan of play, not supported by a partner,
    was carried out; ``planner`` is the defender whose plan it was: a) the agreed
    compensation ``whists`` each dissenter writes on him, ``agreed_by`` them all; b) the
    arbiter's ruling: the ``compensated`` dissenters are given the result of the other plan,
    ``tricks``, and the declarer the result drawn by lot, ``declarer_result``: the
    ``played`` one or the ``other``).
    """

    rule: str
    tricks: dict[str, int] | None = None
    offender: str | None = None
    whists: dict[str, int] | None = None
    agreed_by: tuple[str, ...] = ()
    reason: str = ""
    planner: str | None = None
    compensated: tuple[str, ...] = ()
    declarer_result: Literal["played", "other"] | None = None


class Joined(Event, frozen=True, tag="joined"):
    """A fourth player joins three with everyone's consent: he writes their mean pulya
    and gora, rounded against him [Code 3.1.2]. One who does not replace anyone sits to
    the left of the last dealer and deals next; one who ``replaces`` the player who
    left (named) sits in his place, and the deal goes round as before. Either way he
    writes on columns of his own: taking over a seat's columns is a substitution
    (``substituted``, 5.4.7)."""

    player: str
    agreed_by: tuple[str, ...] = ()
    replaces: str | None = None


class Left(Event, frozen=True, tag="left"):
    """A player leaves a four-handed pulka; his columns stay on the sheet and are settled
    at the end [Code 5.4.18]."""

    player: str
    reason: str = ""


class Substituted(Event, frozen=True, tag="substituted"):
    """``substitute`` takes ``player``'s seat, and its columns, with the consent of the
    others [Code 5.4.7]."""

    player: str
    substitute: str
    agreed_by: tuple[str, ...] = ()


class Talon(Event, frozen=True, tag="talon"):
    """Something done with the talon that the sheet answers for: ``peek`` (``player``
    looked at it before it was bought [Code 3.2.21]), ``refused`` (the declarer refused
    it, the dealer pays the agreed points [Code 3.4.10]) or ``premium`` (it gave the
    declarer ``tricks`` tricks, the dealer writes a premium on him [Code 3.4.11])."""

    kind: Literal["peek", "refused", "premium"]
    player: str
    tricks: int = 0


# The events of a pulka's own stream (``game_started`` and what is recorded after it).
PulkaEvent = (
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
    | Dealt
    | Ruling
    | Joined
    | Left
    | Substituted
    | Talon
)

AnyEvent = (
    PulkaEvent
    # The events of a rubber of bridge (``bridge``).
    | RubberStarted
    | BridgeDeal
    | PassedOut
    | BridgePenalty
    # The events of the other kinds of stream (tournaments, the club's register).
    | ClubStarted
    | PlayerAliased
    | RatingModelChosen
    | TournamentStarted
    | Seated
    | TourClosed
    | YellowCard
    | Removed
    | Disqualified
    | CutMade
    # The ledger's own streams: checkpoints of the club log, signatures on decisions.
    | CheckpointsStarted
    | CheckpointMade
    | Cosigned
    | KeyRotated
    | SignaturesStarted
    | EventSigned
    # The accounts of the live service (``accounts``).
    | AccountsStarted
    | AccountCreated
    | AccountChanged
    | AccountRemoved
    | SecondFactorRequired
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
        Dealt,
        Ruling,
        Joined,
        Left,
        Substituted,
        Talon,
        RubberStarted,
        BridgeDeal,
        PassedOut,
        BridgePenalty,
        ClubStarted,
        PlayerAliased,
        RatingModelChosen,
        TournamentStarted,
        Seated,
        TourClosed,
        YellowCard,
        Removed,
        Disqualified,
        CutMade,
        CheckpointsStarted,
        CheckpointMade,
        Cosigned,
        KeyRotated,
        SignaturesStarted,
        EventSigned,
        AccountsStarted,
        AccountCreated,
        AccountChanged,
        AccountRemoved,
        SecondFactorRequired,
    )
}



@cache
def event_decoder() -> msgspec.json.Decoder[AnyEvent]:
    """The decoder of every event, made when first used: making it reads the fields of
    every type of event (about 13 M instructions), which a command reading a pulka's
    stream alone does not need (``ledger.store.backend.pulka_state_decoder``)."""
    return msgspec.json.Decoder(AnyEvent)


_encoder = msgspec.json.Encoder(order="deterministic")


class EventFormatError(ValueError):
    """A line that is not an event of the log format (bad JSON, unknown field...)."""


_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

# What the decoder says of lists and objects nested deeper than it can follow (no
# event of the log nests more than a few levels).
TOO_DEEP = N_("values nested too deeply: no field of an event nests lists or objects more than a few levels")


def decode_event(line: bytes | str) -> AnyEvent:
    """Decode one JSON line into its event struct, or raise EventFormatError."""
    try:
        return event_decoder().decode(line)
    except msgspec.DecodeError as exc:  # ValidationError is a subclass
        raise EventFormatError(_explain_decode_error(str(exc))) from None
    except RecursionError:
        raise EventFormatError(_(TOO_DEEP)) from None


def decode_lines(text: str) -> list[AnyEvent]:
    """The events of JSON Lines text in one call (msgspec's ``decode_lines``, which takes
    any whitespace between values: it does not say which line held which event), or
    EventFormatError when any value is not one; ``decode_event`` of each line says which."""
    try:
        return event_decoder().decode_lines(text)
    except msgspec.DecodeError as exc:
        raise EventFormatError(str(exc)) from None
    except RecursionError:
        raise EventFormatError(_(TOO_DEEP)) from None


def event_from_dict(data: dict[str, Any]) -> AnyEvent:
    """Build an event from a mapping (used to merge a correction into its target)."""
    try:
        event: AnyEvent = msgspec.convert(data, AnyEvent)
        return event
    except msgspec.ValidationError as exc:
        raise EventFormatError(_explain_decode_error(str(exc))) from None
    except RecursionError:
        raise EventFormatError(_(TOO_DEEP)) from None


# The events whose dicts a command may make in another order than the store gives them
# back (the tricks as typed), and those dicts.
_ORDERED: dict[type, tuple[str, ...]] = {
    GameStarted: ("rules",), Tricks: ("tricks",), Correction: ("replacement",), Ruling: ("tricks", "whists"),
}


def as_stored(event: AnyEvent) -> AnyEvent:
    """``event`` with its dicts in the order the store gives them back (``stored_order``),
    so that an event a command made is, to its dicts' order, the event read back from the
    store, and what is shown of it (the tricks' names in turn) does not depend on which
    of the two the reader holds. Done where an event is judged on its way in
    (``ledger.judge.judging``), not on every decode: what the store gives back is in that
    order already."""
    fields = _ORDERED.get(type(event))
    if not fields:
        return event
    changed = {}
    for field in fields:
        value = getattr(event, field)
        if value and (ordered := stored_order(value)) is not value:
            changed[field] = ordered
    return msgspec.structs.replace(event, **changed) if changed else event


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
        return _("the line has no `type`; the event types are: {types}").format(types=", ".join(sorted(EVENT_TYPES)))
    if message.startswith("Invalid value") and "`$.type`" in message:
        value = message.split(" ")[2]
        return _("unknown event type {value}; the event types are: {types}").format(
            value=value, types=", ".join(sorted(EVENT_TYPES)))
    return plain(message)
