"""Settlement of a pulka in whists and money [Code 4.2.3, 4.2.12-4.2.14; rules.md §6-§7].

Both methods of rule 4.2.14 are computed in exact arithmetic and must agree:
variant 1 (amnesty of the gora, each gora x 10 / N paid to every other player,
then pairwise netting) and variant 2 (the mean gora). Rule 4.2.12 then turns the
exact results into integers.

Which player 4.2.12 adjusts: the one with the smallest gora after the pulya
adjustment (the "amnesty holder", who by custom computes the mean gora), the first
in seat order on a tie. The gora total is moved by one point to the nearer
multiple that makes 10 x total divisible by N: lowered when the remainder is at
most half the modulus, else raised. Lowered: each other player writes
floor(10 / N) whists on him; raised: he writes them on each other player.
When whists are fractions (a Rostov raspasy tie, a checked 10), 4.2.12 cannot make
the results whole; then the exact results are rounded by largest remainder, which
keeps them zero-sum and within one whist.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from math import floor, gcd
from typing import TypeVar

import msgspec

from ledger.vocabulary.rules import RuleSet
from projections.sheet import UNIT, Sheet, exact
from projections.numbers import money_context


N = TypeVar("N", int, Fraction)


class SettlementMismatch(AssertionError):
    """The two methods of 4.2.14 disagree: a bug, never a user's mistake."""


class Settlement(msgspec.Struct, frozen=True):
    players: tuple[str, ...]
    gora: dict[str, Fraction]  # after the pulya adjustment, exact
    result: dict[str, Fraction]  # exact
    rounded: dict[str, int]
    adjusted: str | None  # the player rule 4.2.12 adjusted
    adjustment: int  # +1 raised, -1 lowered, 0 none
    money: dict[str, Decimal] | None


def adjusted_units(sheet: Sheet) -> dict[str, int]:
    """Gora after bringing every pulya to the target [Code 4.2.3, 4.2.3.3], in the
    sheet's sub-units.

    Short of the target: the missing points go to gora x pulya_to_gora (an abandoned
    or unfinished pulka). Over it, without help: written off gora the same way.
    """
    rules: RuleSet = sheet.rules
    factor = rules.pulya_to_gora
    target = sheet.target * UNIT
    gora = {}
    for p in sheet.players:
        diff = target - sheet.pulya[p]
        if diff < 0 and rules.help:
            diff = 0
        gora[p] = sheet.gora[p] + diff * factor
    return gora


def variant_mean(gora: Mapping[str, N], whists: Mapping[str, Mapping[str, N]]) -> dict[str, N]:
    """4.2.14, variant 2: 10 x (mean gora - own gora) plus the whist balances.

    Gora and whists in any one exact unit (integers in sub-units, or Fractions); the
    results come back multiplied by the number of players, so that integers stay
    integers: 10 x (total gora - N x own gora) + N x the whist balance.
    """
    n = len(gora)
    total = sum(gora.values())
    return {p: 10 * (total - n * gora[p]) + n * _whist_balance(p, whists) for p in gora}


def variant_amnesty(gora: Mapping[str, N], whists: Mapping[str, Mapping[str, N]]) -> dict[str, N]:
    """4.2.14, variant 1: amnesty (the smallest gora taken off every gora), each gora
    x 10 / N written on its owner by every other player, then the whists compared pair
    by pair. Multiplied by the number of players, as ``variant_mean``."""
    n = len(gora)
    low = min(gora.values())
    written = {p: {q: n * v for q, v in w.items()} for p, w in whists.items()}
    for owner, g in gora.items():
        each = (g - low) * 10  # x 10 / N, times N
        for other in gora:
            if other != owner:
                written[other][owner] = written[other][owner] + each
    return {p: _whist_balance(p, written) for p in gora}


def player_result(sheet: Sheet, player: str) -> Fraction:
    """One player's exact result if the pulka were settled on this sheet (4.2.14,
    variant 2), without settling the others: what a verdict comparing positions needs."""
    gora = adjusted_units(sheet)
    n = len(gora)
    scaled = 10 * (sum(gora.values()) - n * gora[player]) + n * _whist_balance(player, sheet.whists)
    return Fraction(scaled, n * UNIT)


def _whist_balance(p: str, whists: Mapping[str, Mapping[str, N]]) -> N:
    mine = whists[p]
    return sum(mine[q] - whists[q][p] for q in mine)  # type: ignore[return-value]


def settle_sheet(sheet: Sheet, stake: str | None = None) -> Settlement:
    players = sheet.players
    n = len(players)
    scale = n * UNIT  # the variants' results are whists x N, in sub-units
    gora = adjusted_units(sheet)
    whists = sheet.whists
    scaled = variant_mean(gora, whists)
    if scaled != variant_amnesty(gora, whists):
        raise SettlementMismatch(f"4.2.14 variants disagree: {scaled} vs {variant_amnesty(gora, whists)}")
    if sum(scaled.values()) != 0:
        raise SettlementMismatch(f"settlement does not sum to zero: {scaled}")
    result = {p: Fraction(v, scale) for p, v in scaled.items()}

    # Rule 4.2.12, on whole gora points; one player's gora moves by one point.
    adjusted: str | None = None
    adjustment = 0
    modulus = n // gcd(10, n)
    total, part = divmod(sum(gora.values()), UNIT)
    rounded_gora = dict(gora)
    extra = {p: dict.fromkeys(whists[p], 0) for p in players}
    if not part and total % modulus:
        remainder = total % modulus
        adjustment = -1 if 2 * remainder <= modulus else 1
        adjusted = min(players, key=lambda p: (gora[p], players.index(p)))
        rounded_gora[adjusted] += adjustment * UNIT
        per = (10 // n) * UNIT
        for q in players:
            if q == adjusted:
                continue
            if adjustment < 0:
                extra[q][adjusted] += per
            else:
                extra[adjusted][q] += per
    with_extra = {p: {q: v + extra[p][q] for q, v in w.items()} for p, w in whists.items()}
    after_4_2_12 = variant_mean(rounded_gora, with_extra)
    if all(v % scale == 0 for v in after_4_2_12.values()):
        rounded = {p: v // scale for p, v in after_4_2_12.items()}
    else:
        # Fractions of a whist (a Rostov raspasy tie, a checked 10) are beyond what
        # 4.2.12 settles: round the exact results by largest remainder instead.
        rounded = largest_remainder(result, players)
        adjusted, adjustment = None, 0
    if sum(rounded.values()) != 0:
        raise SettlementMismatch(f"rounded results do not sum to zero: {rounded}")
    money = None
    if stake is not None:
        with money_context():
            unit = Decimal(stake)
            exponent = unit.as_tuple().exponent
            quantum = Decimal(1).scaleb(exponent) if isinstance(exponent, int) else Decimal(1)
            money = {p: (unit * rounded[p]).quantize(quantum, rounding=ROUND_HALF_EVEN) for p in players}
    return Settlement(
        players=players,
        gora={p: exact(g) for p, g in gora.items()},
        result=result,
        rounded=rounded,
        adjusted=adjusted,
        adjustment=adjustment,
        money=money,
    )


def largest_remainder(exact: dict[str, Fraction], players: tuple[str, ...]) -> dict[str, int]:
    """Integers within one whist of zero-sum exact values, still summing to zero: every
    value rounded down, then one more to those with the largest remainders (seat order
    on a tie)."""
    rounded = {p: floor(exact[p]) for p in players}
    short = -sum(rounded.values())
    by_remainder = sorted(players, key=lambda p: (-(exact[p] - rounded[p]), players.index(p)))
    for p in by_remainder[:short]:
        rounded[p] += 1
    return rounded


def transfers(balances: dict[str, int]) -> list[tuple[str, str, int]]:
    """Who pays whom: the fewest payments that settle zero-sum ``balances`` (a positive
    balance receives), as ``(payer, payee, amount)``.

    A group of players whose balances sum to zero settles within itself with one payment
    fewer than its size, so the fewest payments come from splitting the players into as
    many zero-sum groups as possible; with 3 or 4 players every split is tried. Within a
    group the largest debtor pays the largest creditor first; ties go in seat order.
    """
    players = [p for p in balances if balances[p] != 0]
    if sum(balances.values()) != 0:
        raise ValueError(f"balances do not sum to zero: {balances}")
    best = _zero_sum_groups(players, balances)
    order = list(balances)
    payments: list[tuple[str, str, int]] = []
    for group in best:
        left = {p: balances[p] for p in group}
        while any(left.values()):
            payer = min(left, key=lambda p: (left[p], order.index(p)))
            payee = max(left, key=lambda p: (left[p], -order.index(p)))
            amount = min(-left[payer], left[payee])
            payments.append((payer, payee, amount))
            left[payer] += amount
            left[payee] -= amount
    return payments


def _zero_sum_groups(players: list[str], balances: dict[str, int]) -> list[list[str]]:
    """The split of ``players`` into the most groups that each sum to zero."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    best: list[list[str]] | None = None
    # The group holding the first player: every subset of the rest that closes it to zero.
    for mask in range(1 << len(rest)):
        group = [first] + [p for i, p in enumerate(rest) if mask >> i & 1]
        if sum(balances[p] for p in group) != 0:
            continue
        others = [p for p in rest if p not in group]
        split = [group, *_zero_sum_groups(others, balances)]
        if best is None or len(split) > len(best):
            best = split
    assert best is not None  # the whole set sums to zero
    return best
