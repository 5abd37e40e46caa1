"""The events of a tournament: its rules, the seating of every tour, the close of a tour
with each table's result, yellow cards, removals, disqualifications and cuts.

A tournament is a stream like a game (``TournamentStarted`` derives from
``StreamStart``; its name is the stream's). The game of table K in tour R is an
ordinary game named ``T/R/K`` (``table_game``), recorded with the usual commands under
the tournament's rule set. What the events mean for the standings is
``projections.tournament_state``; what may be recorded is ``ledger.judge.tournament``.
The parameters and the choices behind them are in docs/conventions.md ("Tournaments").
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from fractions import Fraction
from ledger.vocabulary.wording import digits
from typing import Any, Literal

import msgspec

from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.stream import ForeignEvent, StreamStart

TieBreak = Literal[
    "whists", "tours_won", "last_tour", "raspasy_won", "raspasy_tricks", "remizes", "misere_tricks", "lot",
]
# Every tie-break, and the order of a tournament that names none. The default stays
# the first three: a stored ``tournament_started`` that left it out replays as it did.
TIE_BREAKS: tuple[TieBreak, ...] = (
    "whists", "tours_won", "last_tour", "raspasy_won", "raspasy_tricks", "remizes", "misere_tricks", "lot",
)
DEFAULT_TIE_BREAKS: tuple[TieBreak, ...] = ("whists", "tours_won", "last_tour")
# The tie-breaks counted from the deals of each table's pulka: recorded with the tour's
# close (``TableClosed.tallies``), so that the standings replay from the tournament's
# stream alone. Fewer is better for all but ``raspasy_won``.
TALLIED: tuple[TieBreak, ...] = ("raspasy_won", "raspasy_tricks", "remizes", "misere_tricks")
FEWER_FIRST: frozenset[str] = frozenset({"raspasy_tricks", "remizes", "misere_tricks"})


class Segment(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One segment of the cut-off function: whists up to ``upto`` (None: no bound) count
    at ``rate`` (an exact fraction written "1/10", "0.1" or "1")."""

    upto: int | None
    rate: str


class CutRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """After tour ``after_tour`` only the first ``keep`` players of the standings go on."""

    after_tour: int
    keep: int


class TournamentStarted(StreamStart, ForeignEvent, frozen=True, tag="tournament_started"):
    """The tournament's rules, recorded once, as ``game_started`` records a game's."""

    players: tuple[str, ...]
    pulya: int
    convention: str = "sochi"
    rules: dict[str, Any] = {}
    # The complete rule set of every table's game, resolved when the tournament was
    # stored (as in ``game_started``).
    rule_set: RuleSet | None = None
    tours: int | None = None
    # A table's pulka ends after this many deals and settles as abandoned [Code 4.2.15].
    deal_cap: int | None = None
    # The usual table: 3 or 4 players; the other size where the count demands.
    table_size: int = 4
    # Tour points: the result in whists through these segments (empty: in full).
    cutoff: tuple[Segment, ...] = ()
    tie_breaks: tuple[TieBreak, ...] = DEFAULT_TIE_BREAKS
    # The seed of the drawing of lots, when ``lot`` is a tie-break (the ledger draws one
    # when none is given): the lot's order is ``lot.draw_lots(lot_seed, players)``.
    lot_seed: str | None = None
    # A tour result below this many whists: a yellow card and the next tour sat out.
    removal_below: int | None = None
    cards_to_disqualify: int = 2
    cuts: tuple[CutRule, ...] = ()
    # The last tour is one final table of this many players (3 or 4).
    final_table: int | None = None


class Seated(ForeignEvent, frozen=True, tag="seated"):
    """Table ``table`` of tour ``tour``: its players, clockwise, and how they came there
    (by hand, by lot from ``seed``, Swiss by the standings, or the final table)."""

    tour: int
    table: int
    players: tuple[str, ...]
    method: Literal["manual", "lot", "swiss", "final"] = "manual"
    seed: str | None = None


class Tally(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A seat's counts in one table's pulka that the Code names as tournament criteria
    [Code 4.1.3] (how each is counted: docs/conventions.md)."""

    raspasy_won: int = 0
    raspasy_tricks: int = 0
    remizes: int = 0
    misere_tricks: int = 0


class TableClosed(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One table's game as the tour was closed: how it ended, its deals, its number of
    events and last digest (binding the tournament to that very game), and each
    player's rounded result in whists [Code 4.2.12]; ``tallies``, each player's counts
    for the tie-breaks of ``TALLIED``, when the tournament breaks ties by one of them."""

    table: int
    game: str
    end: Literal["finished", "abandoned", "capped"]
    deals: int
    events: int
    digest: str
    whists: dict[str, int]
    tallies: dict[str, Tally] = {}


class TourClosed(ForeignEvent, frozen=True, tag="tour_closed"):
    tour: int
    tables: tuple[TableClosed, ...]


class YellowCard(ForeignEvent, frozen=True, tag="yellow_card"):
    player: str
    tour: int
    reason: str = ""
    at_close: bool = False  # recorded by the close of ``tour``


class Removed(ForeignEvent, frozen=True, tag="removed"):
    """``player`` sits out tour ``tour``."""

    player: str
    tour: int
    reason: str = ""
    at_close: bool = False  # recorded by the close of the tour before


class Disqualified(ForeignEvent, frozen=True, tag="disqualified"):
    player: str
    tour: int
    reason: str = ""
    at_close: bool = False  # recorded by the close of ``tour``


class CutMade(ForeignEvent, frozen=True, tag="cut_made"):
    """After tour ``after_tour`` only ``kept`` go on (in the order of the standings)."""

    after_tour: int
    kept: tuple[str, ...]


TournamentEvent = TournamentStarted | Seated | TourClosed | YellowCard | Removed | Disqualified | CutMade


def table_game(tournament: str, tour: int, table: int) -> str:
    """The name of the game of table ``table`` in tour ``tour``."""
    return f"{tournament}/{tour}/{table}"


def parse_table_game(game: str) -> tuple[str, int, int] | None:
    """``(tournament, tour, table)`` of a game named ``T/R/K``, else None."""
    parts = game.rsplit("/", 2)
    if len(parts) != 3 or not parts[0]:
        return None
    tournament, tour, table = parts
    if not (digits(tour) and digits(table)) or tour.startswith("0") or table.startswith("0"):
        return None
    return tournament, int(tour), int(table)


def rate_of(segment: Segment) -> Fraction:
    """The segment's rate as an exact fraction; raises ValueError for bad text."""
    return Fraction(segment.rate)
