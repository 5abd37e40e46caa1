"""The rubber projection: a fold of a rubber's events into the МЫ/ВЫ sheet.

``RubberState.apply`` takes the events of one rubber in order and never judges them
(``ledger.judge.rubber`` does that before an event is stored). The sheet is a list
of writes (``BridgeWrite``), each naming the event behind it, the side, the line
(above or below) and the game it was scored in, so that every number can be traced
back (``pulka explain``). Games, the line drawn after each one, vulnerability and the
rubber's end follow from the trick points below the line [seed 003; Law 73, Law 74].

Like the pulka, the sheet is kept as a checkpoint at the end of every deal
(``sheets[k]``: after deal k and the rulings recorded after it), each deal scored once;
a correction of deal k drops the checkpoints from k on and only the deals from k on
are scored again. An abandoned rubber's bonuses [Law 80] are written on top of the
last checkpoint, so a later correction of a deal changes them too.

Corrections [Law 77]: a proven error may be corrected until the rubber's score is
agreed, except that an error in the trick score of a deal (what changes the course of
the rubber) may not be corrected once the second deal after it has been dealt. The
ledger sees a deal when its result is recorded, so such a correction has no effect
once two more deals have been recorded.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple, assert_never

import msgspec

from ledger.vocabulary.bridge import (
    SIDE_NAMES,
    SIDES,
    BridgeDeal,
    BridgePenalty,
    Honours,
    PassedOut,
    RubberStarted,
    Side,
    seat_side,
)
from ledger.vocabulary.bridge_rules import GAME, GAMES_TO_WIN, BridgeRules, resolve_bridge
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    ForeignEvent,
    GameStarted,
    Joined,
    Left,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    Withdrawn,
)
from projections.bridge_scoring import Line, Score, other, rubber_bonus, score_bridge_deal, unfinished_bonuses
from projections.recording import Effect, merge

LAW_77 = "Law 77"


class BridgeWrite(NamedTuple):
    """One number on the МЫ/ВЫ sheet: by which event, in which deal and game, for which
    side, above or below the line, how much and why."""

    event: int
    deal: int
    side: Side
    line: Line
    points: int
    why: str
    game: int  # the game it was written in; below the line, the game it counts towards


class RubberSheet:
    """The sheet of a rubber: the writes, the games won, the current game's trick points.

    A copy shares the writes of the sheet it was copied from (its parent) and keeps only
    its own, so a checkpoint per deal costs what the deal wrote; a sheet that has been
    copied is never written on again. Totals per side and line are kept as they grow.
    """

    def __init__(self, parent: RubberSheet | None = None) -> None:
        self._parent = parent
        self.own: list[BridgeWrite] = []  # the writes made on this sheet since it was copied
        self.games: list[tuple[Side, int]] = list(parent.games) if parent else []  # winner, last deal
        self._won: dict[Side, int] = dict(parent._won) if parent else {"NS": 0, "EW": 0}
        self.below: dict[Side, int] = dict(parent.below) if parent else {"NS": 0, "EW": 0}  # the game in play
        self._totals: dict[tuple[Side, Line], int] = (
            dict(parent._totals) if parent else {(s, line): 0 for s in SIDES for line in ("above", "below")}
        )

    def copy(self) -> RubberSheet:
        return RubberSheet(self)

    @property
    def writes(self) -> list[BridgeWrite]:
        """Every write on the sheet, oldest first."""
        chunks = []
        sheet: RubberSheet | None = self
        while sheet is not None:
            chunks.append(sheet.own)
            sheet = sheet._parent
        return [w for chunk in reversed(chunks) for w in chunk]

    @property
    def game_number(self) -> int:
        """The game being played (1, 2, 3); after the rubber, the last one played."""
        return min(len(self.games) + 1, 3) if not self.over else len(self.games)

    def won(self, side: Side) -> int:
        return self._won[side]

    def win(self, side: Side, deal: int) -> None:
        """A game to ``side`` in deal ``deal``: the line is drawn and both sides start the
        next game from nothing [seed 003; Law 73]."""
        self.games.append((side, deal))
        self._won[side] += 1
        self.below = {"NS": 0, "EW": 0}

    def vulnerable(self, side: Side) -> bool:
        """A side that has won a game is vulnerable ("in the zone") [seed 003]."""
        return self.won(side) >= 1

    @property
    def winner(self) -> Side | None:
        won = self._won
        return "NS" if won["NS"] >= GAMES_TO_WIN else "EW" if won["EW"] >= GAMES_TO_WIN else None

    @property
    def over(self) -> bool:
        """A side has won two games: the rubber is over [seed 003; Law 74]."""
        return self.winner is not None

    def write(self, event: int, deal: int, score: Score) -> None:
        self.own.append(BridgeWrite(event, deal, score.side, score.line, score.points, score.why, self.game_number))
        self._totals[(score.side, score.line)] += score.points
        if score.line == "below":
            self.below[score.side] += score.points

    def total(self, side: Side, line: Line | None = None) -> int:
        if line is None:
            return self._totals[(side, "above")] + self._totals[(side, "below")]
        return self._totals[(side, line)]


class RubberState:
    """A rubber folded through its events: the deals, the rulings, the sheet, the verdicts."""

    def __init__(self, started: RubberStarted, rules: BridgeRules) -> None:
        self.started = started
        self.rules = rules
        self.players: tuple[str, ...] = started.players
        self._seats = {p: i for i, p in enumerate(started.players)}
        self.events: list[AnyEvent] = [started]  # events[i] is event number i + 1
        self.folded = 1
        self.deals: list[int] = []  # deals[k - 1]: the number of the event that is deal k
        self.items: list[list[int]] = [[]]  # rulings recorded after deal k (items[0]: before deal 1)
        self.sheets: list[RubberSheet] = []  # checkpoints; see the module docstring
        self.abandoned_at: int | None = None
        self.overrides: dict[int, AnyEvent] = {}  # effective corrections merged into their targets
        self.effects: dict[int, Effect] = {}  # the verdict on each correction [Law 77]
        self._last_time: str | None = started.at

    def fork(self) -> RubberState:
        """A copy to fold further without changing this one (to try a correction): the
        checkpoints are shared, as they are never changed once stored."""
        other = RubberState(self.started, self.rules)
        other.events = list(self.events)
        other.folded = self.folded
        other.deals = list(self.deals)
        other.items = [list(items) for items in self.items]
        other.sheets = list(self.sheets)
        other.abandoned_at = self.abandoned_at
        other.overrides = dict(self.overrides)
        other.effects = dict(self.effects)
        other._last_time = self._last_time
        return other

    @classmethod
    def start(cls, started: RubberStarted) -> RubberState:
        rules = started.rule_set if started.rule_set is not None else resolve_bridge("laws", started.rules)
        return cls(started, rules)

    # -- facts ---------------------------------------------------------------------------

    def seat(self, player: str) -> int:
        return self._seats[player]

    def side_of(self, player: str) -> Side:
        return seat_side(self._seats[player])

    def members(self, side: Side) -> tuple[str, str]:
        first = 0 if side == "NS" else 1
        return self.players[first], self.players[first + 2]

    def side_text(self, side: Side) -> str:
        a, b = self.members(side)
        return f"{SIDE_NAMES[side]} ({a}, {b})"

    def dealer(self, deal: int) -> str:
        """Who deals deal ``deal``: the deal passes clockwise, after a passed-out deal too."""
        fd = self.started.first_dealer
        first = self._seats[fd] if fd is not None else 0
        return self.players[(first + deal - 1) % 4]

    @property
    def current_deal_number(self) -> int:
        return len(self.deals)

    @property
    def last_time(self) -> str | None:
        return self._last_time

    def content(self, number: int) -> AnyEvent:
        """Event ``number`` as it stands: with any effective correction merged in."""
        return self.overrides.get(number) or self.events[number - 1]

    # -- evolve ----------------------------------------------------------------------------

    def apply(self, event: AnyEvent) -> None:
        """Fold one more stored event in, judging nothing."""
        self.events.append(event)
        number = self.folded = len(self.events)
        if event.at is not None:
            self._last_time = event.at
        match event:
            case BridgeDeal() | PassedOut():
                self.deals.append(number)
                self.items.append([])
            case BridgePenalty():
                k = min(event.deal or 0, len(self.deals))
                self.items[k].append(number)
                self._changed(k)
            case Abandoned():
                self.abandoned_at = number
            case Correction():
                self._apply_correction(number, event)
            case ForeignEvent():
                pass  # the rubber's start; the events of other kinds of stream never reach it
            case (GameStarted() | Bid() | Contract() | Defence() | Tricks() | Entry() | PencilDown() | Objection()
                  | Penalty() | Annulled() | Withdrawn() | Dealt() | Ruling() | Joined() | Left() | Substituted()
                  | Talon()):
                pass  # nothing of a pulka reaches a rubber: the command side refuses its events
            case _:
                assert_never(event)

    def _changed(self, k: int) -> None:
        """Deal k (0: the rulings before the first deal) changed: drop its checkpoint and later ones."""
        del self.sheets[k:]

    def _apply_correction(self, number: int, c: Correction) -> None:
        target = self.content(c.target)
        merged = corrected(target, c.replacement)
        k = target.deal or 0
        if isinstance(target, BridgeDeal) and isinstance(merged, BridgeDeal) and len(self.deals) >= k + 2:
            before = self._checkpoint(k - 1)
            if _course(self._scored(before, c.target, k, target)) != _course(self._scored(before, c.target, k, merged)):
                self.effects[number] = Effect(
                    number, False,
                    f"too late: deal {k + 2} has been played since deal {k}; an error in the trick score, which "
                    "changes the course of the rubber, may be corrected only until the second deal after it "
                    "is dealt", LAW_77,
                )
                return
        self.overrides[c.target] = merged
        self._changed(k)
        self.effects[number] = Effect(number, True, "corrected: a proven error is corrected until the rubber's "
                                                    "score is agreed", LAW_77)

    # -- scoring ----------------------------------------------------------------------------

    def _scored(self, before: RubberSheet, number: int, k: int, deal: AnyEvent) -> RubberSheet:
        sheet = before.copy()
        self._play(sheet, number, k, deal)
        return sheet

    def _play(self, sheet: RubberSheet, number: int, k: int, deal: AnyEvent) -> None:
        """Score deal ``k`` (event ``number``, as ``deal`` says) onto the sheet: its points,
        then a game when its side has 100 below the line, then the rubber bonus."""
        if not isinstance(deal, BridgeDeal) or sheet.over:
            return  # a passed-out deal scores nothing [seed 003]
        side = self.side_of(deal.declarer)
        vulnerable = {s: sheet.vulnerable(s) for s in SIDES}
        honours = (self.side_of(deal.honours.player), deal.honours.points) if deal.honours is not None else None
        for score in score_bridge_deal(side, deal.contract, deal.double, deal.tricks, vulnerable, honours):
            sheet.write(number, k, score)
        if sheet.below[side] >= GAME:
            # A game: the losers' part score does not count towards the next one
            # [seed 003; Law 73].
            sheet.win(side, k)
            if sheet.won(side) == GAMES_TO_WIN:
                sheet.write(number, k, rubber_bonus(side, sheet.won(other(side))))

    def _checkpoint(self, k: int) -> RubberSheet:
        """The sheet after deal k and the rulings recorded after it (0: before deal 1)."""
        sheets = self.sheets
        if not sheets:
            first = RubberSheet()
            for number in self.items[0]:
                self._rule(first, number, 0)
            sheets.append(first)
        while len(sheets) <= k:
            j = len(sheets)
            nxt = sheets[-1].copy()
            number = self.deals[j - 1]
            self._play(nxt, number, j, self.content(number))
            for item in self.items[j]:
                self._rule(nxt, item, j)
            sheets.append(nxt)
        return sheets[k]

    def _rule(self, sheet: RubberSheet, number: int, k: int) -> None:
        penalty = self.content(number)
        assert isinstance(penalty, BridgePenalty)
        sheet.write(number, k, Score(penalty.side, "above", penalty.points, f"penalty: {penalty.reason}"))

    def sheet(self) -> RubberSheet:
        """The sheet now; an abandoned rubber with its bonuses [Law 80]. Never write on it."""
        sheet = self._checkpoint(len(self.deals))
        if self.abandoned_at is not None and not sheet.over:
            sheet = sheet.copy()
            self.write_unfinished(sheet, self.abandoned_at)
        return sheet

    def write_unfinished(self, sheet: RubberSheet, number: int) -> None:
        """Write an unfinished rubber's bonuses [Law 80] on ``sheet``, as of event ``number``."""
        games = {s: sheet.won(s) for s in SIDES}
        for score in unfinished_bonuses(games, dict(sheet.below), self.rules):
            sheet.write(number, len(self.deals), score)

    def first_after_end(self, since: int = 1) -> int | None:
        """The first deal from deal ``since`` on, or the agreed end, that the log records
        after the rubber was won; None when there is none (what a correction must not
        bring about)."""
        for k in range(max(1, since), len(self.deals) + 1):
            if self._checkpoint(k - 1).over:
                return self.deals[k - 1]
        if self.abandoned_at is not None and self._checkpoint(len(self.deals)).over:
            return self.abandoned_at
        return None

    @property
    def finished(self) -> bool:
        """A side has won the rubber; an abandoned rubber is not 'finished'."""
        return self.sheet().over

    @property
    def over(self) -> bool:
        """No deal may follow: the rubber was won or abandoned."""
        return self.abandoned_at is not None or self.finished


def corrected(target: AnyEvent, replacement: dict[str, Any]) -> AnyEvent:
    """The record with a correction's fields, typed as the command side judged it
    (``checked_merge``): a stored replacement's honours are the mapping its JSON holds,
    and the deal's are an ``Honours``. Every other field a correction may change is a
    plain string, number or null already. (``checked_merge`` builds the whole event
    again, some fifty times slower; replay only merges.)"""
    honours = replacement.get("honours")
    if isinstance(honours, dict):
        replacement = {**replacement, "honours": msgspec.convert(honours, Honours)}
    return merge(target, replacement)


def _course(sheet: RubberSheet) -> tuple[object, ...]:
    """What a deal's trick score decides: the points it wrote below the line (the sheet
    is a copy on which only that deal was scored) and the games."""
    return tuple((w.side, w.points) for w in sheet.own if w.line == "below"), tuple(sheet.games)


def replay_rubber(events: list[AnyEvent]) -> RubberState:
    """Fold a stored rubber (first event ``rubber_started``) into its state."""
    first = events[0]
    assert isinstance(first, RubberStarted)
    state = RubberState.start(first)
    for event in events[1:]:
        state.apply(event)
    return state


def rubber_totals(sheet: RubberSheet) -> dict[tuple[str, str, str | None], Fraction]:
    """Every number of the sheet by cell (side, line, None): the cells ``projections.trail``
    names ``Cell``; beside the sheet, so that recording loads nothing of the audit."""
    return {(s, line, None): Fraction(sheet.total(s, line)) for s in SIDES for line in ("above", "below")}
