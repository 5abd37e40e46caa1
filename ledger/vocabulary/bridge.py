"""The events of a rubber of bridge, and the words they are written in: seats, sides,
contracts.

A rubber is a stream of its own, opened by ``rubber_started``; each deal is one
``bridge_deal`` (the contract the auction ended in, its declarer, doubled or redoubled,
the tricks the declarer's side took, honours claimed) or a ``passed_out``; an
arbiter's ruling written above the line is a ``bridge_penalty``. Corrections
(``correction``) and an agreed end (``abandoned``) are the ledger's shared events.
Nothing here judges or scores: ``ledger.judge.rubber`` judges, ``projections.rubber``
scores.

The four players are listed clockwise from North: N, E, S, W. N–S and E–W are the two
sides; the sheet's МЫ ("we") is N–S, the side of the first player listed.
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from ledger.vocabulary.wording import digits
from typing import Any, Literal

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.bridge_rules import BOOK, DENOMINATIONS, BridgeRules
from ledger.vocabulary.stream import ForeignEvent, StreamStart

Side = Literal["NS", "EW"]
SIDES: tuple[Side, Side] = ("NS", "EW")
SEATS = ("N", "E", "S", "W")
SIDE_NAMES: dict[str, str] = {"NS": "N–S", "EW": "E–W"}
Double = Literal["X", "XX"]

_ = language._  # every text a person reads, in the language in effect


class RubberStarted(StreamStart, ForeignEvent, frozen=True, tag="rubber_started"):
    """A rubber begins: four players clockwise from North, who deals first (default:
    North), the stake in money per 100 points, and the rule set it is scored by."""

    players: tuple[str, ...]
    first_dealer: str | None = None
    stake: str | None = None
    rules: dict[str, Any] = {}
    # The complete rule set, resolved when the rubber was stored; replay uses it.
    rule_set: BridgeRules | None = None
    # Its contracts are stored in their canonical form (``3NT``, not ``3nt``): set on
    # every rubber started since. A rubber stored before it (its start has a rule_set
    # and not this) keeps its contracts as they were typed, so that its events, its
    # digests and their judging again by ``verify`` stay what they were.
    canonical_contracts: bool = False


class Honours(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Honours claimed in one hand: who held them and what they are worth (100 or 150)."""

    player: str
    points: int


class BridgeDeal(ForeignEvent, frozen=True, tag="bridge_deal"):
    """One deal played: the final contract (``4S``, ``3NT``), doubled (``X``) or
    redoubled (``XX``) and by whom, the declarer, the tricks the declarer's side took,
    and honours. Who doubled and who redoubled are optional (a log written before they
    were recorded has neither, and encodes as it did)."""

    declarer: str
    contract: str
    tricks: int
    double: Double | None = None
    honours: Honours | None = None
    doubled_by: str | None = None  # a defender [Law 19 A1]
    redoubled_by: str | None = None  # the declarer or his partner [Law 19 B1]


class PassedOut(ForeignEvent, frozen=True, tag="passed_out"):
    """All four passed: nothing is scored and the next player deals."""


class BridgePenalty(ForeignEvent, frozen=True, tag="bridge_penalty"):
    """Points written above the line for a side by ruling (an arbiter's, or the
    players' agreed settlement of an irregularity); they never count towards a game."""

    side: Side
    points: int
    reason: str


class ContractError(ValueError):
    """A contract that is not a level and a denomination."""


def parse_contract(text: str) -> tuple[int, str]:
    """``"4S"`` -> (4, "S"), ``"3NT"`` -> (3, "NT"); ``N`` is accepted for NT."""
    t = text.strip().upper()
    if len(t) < 2 or not digits(t[0]):
        raise ContractError(_("{text} is not a contract: a level 1-7 and C, D, H, S or NT (e.g. 4S, 3NT)").format(
            text=repr(text)))
    level, denomination = int(t[0]), t[1:]
    if denomination == "N":
        denomination = "NT"
    if denomination not in DENOMINATIONS:
        raise ContractError(_("{text}: the denomination is one of C, D, H, S, NT, not {denomination}").format(
            text=repr(text), denomination=repr(denomination)))
    return level, denomination


def contract_text(level: int, denomination: str) -> str:
    return f"{level}{denomination}"


def canonical_contract(text: str) -> str:
    """The contract as the log stores it: ``" 3nt "`` and ``"3N"`` -> ``"3NT"``, ``"4s"``
    -> ``"4S"``; raises ContractError for text that is not a contract."""
    return contract_text(*parse_contract(text))


def needed(level: int) -> int:
    """The tricks a contract of that level needs: six plus its odd tricks."""
    return BOOK + level


def seat_side(seat: int) -> Side:
    """The side of the player in seat 0-3 (N, E, S, W)."""
    return SIDES[seat % 2]
