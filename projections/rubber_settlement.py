"""The settlement of a rubber: each side's total, the margin, and money at a stake per
100 points.

Each side's total is everything it wrote above and below the line; the side with the
larger total wins the rubber by the difference, "the margin" [Law 74]. A rubber not
finished is settled as if it stopped now: the bonuses of an unfinished rubber
[Law 80] are added (an abandoned rubber has them on its sheet already). At money
rubber each player of the winning side wins the margin from one player of the losing
side, so each player's result is plus or minus the margin; the money is that result
times the stake per 100 points, exactly, or with the margin rounded to the nearest
hundred (50 rounded down) when the rule set says ``rounding = "hundred"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ledger.vocabulary.bridge import SIDES, Side
from projections.bridge_scoring import Score, unfinished_bonuses
from projections.rubber import RubberState


@dataclass(frozen=True)
class RubberSettlement:
    bonuses: list[Score]  # an unfinished rubber's bonuses added by the settlement [Law 80]
    totals: dict[Side, int]  # above and below the line, with those bonuses
    winner: Side | None  # None: equal totals
    margin: int  # the winner's lead in points (0 on equal totals)
    result: dict[str, int]  # each player: plus or minus the margin
    rounded: dict[str, int]  # the same after the rule set's rounding
    money: dict[str, Decimal] | None  # rounded x stake / 100, when a stake is set


def round_hundred(points: int) -> int:
    """To the nearest hundred, 50 rounded down (a club custom)."""
    hundreds, rest = divmod(points, 100)
    return (hundreds + (1 if rest > 50 else 0)) * 100


def money(points: int, stake: Decimal) -> Decimal:
    """``points`` at ``stake`` per 100 points, exactly, with at least the stake's decimals."""
    value = Decimal(points) * stake / 100
    places = max(-int(stake.as_tuple().exponent), -int(value.normalize().as_tuple().exponent), 0)
    return value.quantize(Decimal(1).scaleb(-places))


def settle_rubber(state: RubberState) -> RubberSettlement:
    sheet = state.sheet()
    bonuses: list[Score] = []
    if not sheet.over and state.abandoned_at is None:
        bonuses = unfinished_bonuses({s: sheet.won(s) for s in SIDES}, dict(sheet.below), state.rules)
    totals = {s: sheet.total(s) + sum(b.points for b in bonuses if b.side == s) for s in SIDES}
    winner: Side | None = None
    if totals["NS"] != totals["EW"]:
        winner = "NS" if totals["NS"] > totals["EW"] else "EW"
    margin = abs(totals["NS"] - totals["EW"])
    kept = margin if state.rules.rounding == "exact" else round_hundred(margin)
    result: dict[str, int] = {}
    rounded: dict[str, int] = {}
    for p in state.players:
        sign = 0 if winner is None else (1 if state.side_of(p) == winner else -1)
        result[p] = sign * margin
        rounded[p] = sign * kept
    stake = state.started.stake
    paid = {p: money(rounded[p], Decimal(stake)) for p in state.players} if stake is not None else None
    return RubberSettlement(bonuses, totals, winner, margin, result, rounded, paid)
