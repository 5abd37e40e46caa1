"""Scoring a raspasy (all passed) onto the sheet [rules.md §5, Code 3.7]: the
progression's step and the dark passes' doublings, each seat's tricks with its penalty
tricks, and the two models a rule set chooses between (``RASPASY_MODELS``, by
``raspasy_model``): tricks to gora after the amnesty [Code 3.7.2.1, 3.7.3], or the
fewest tricks writing whists on the others (Rostov) [Code 3.7.2.2]; then the zero-trick
pulya and the bombs the dark passers earn.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.wording import said, said_count
from projections.deal_state import DealState
from projections.penalty_tricks import penalty_counts, penalty_rules
from projections.sheet import UNIT, Sheet, share


def _raspasy_multiplier(rules: RuleSet, deal: DealState) -> int:
    """The progression's step [Code 3.7.4], doubled for each dark pass [Code 3.3.19 a]."""
    progression = rules.raspasy_progression
    return progression[min(deal.raspasy_before, len(progression) - 1)] << deal.dark_doublings


def _raspasy_counts(rules: RuleSet, deal: DealState, penalties: bool = True) -> dict[int, int]:
    """Tricks of every seat that played, the 4-player dealer's talon tricks included, and
    one more for each penalty trick [Code 3.9.11.2: "as if an eleventh"]."""
    tricks = deal.tricks
    assert tricks is not None
    counts = {s: tricks.get(s, 0) for s in deal.active}
    if len(deal.active) < deal.n_players and rules.raspasy_talon:
        counts[deal.dealer] = tricks.get(deal.dealer, 0)
    if penalties and deal.penalties:
        lost, _ = penalty_counts(deal)
        for s, n in lost.items():
            counts[s] = counts.get(s, 0) + n
    return counts


def _raspasy_pulya(sheet: Sheet, deal: DealState, k: int, counts: dict[int, int]) -> None:
    """Zero-trick pulya, in seat order from the forehand, and the sitting-out dealer's."""
    rules = sheet.rules
    assert deal.resolved_at is not None
    zero = rules.raspasy_zero_pulya
    points = (k * rules.gora_whist_multiplier if zero == "price" else zero) * UNIT
    if points:
        for s in deal.active:
            if counts.get(s, 0) == 0:
                sheet.write_pulya(deal.resolved_at, deal.number, deal.names[s], points, said("no trick on raspasy"))
    penalised = any(seat == deal.dealer for seat, _, _ in deal.penalties)
    if rules.raspasy_dealer_pulya and len(deal.active) < deal.n_players and not penalised:
        # For his no trick [Code 3.7.6.2]; a penalty trick is one for his own writes [3.9.11.2].
        sheet.write_pulya(
            deal.resolved_at, deal.number, deal.names[deal.dealer],
            rules.raspasy_dealer_pulya * UNIT, said("dealer on raspasy"),
        )


def score_raspasy(sheet: Sheet, deal: DealState) -> None:
    """A raspasy's writes, by the rule set's model, and the bombs it earns."""
    RASPASY_MODELS[sheet.rules.raspasy_model](sheet, deal)
    d = deal.dark_doublings
    if d:
        # Dark passers, and the four-player dealer, earn a bomb: the next game they play
        # is worth 2^d times its price [Code 3.3.19 a, 3.7.10, footnote 29].
        earners = list(dict.fromkeys(deal.dark_passers))
        if deal.sitting_out is not None:
            earners.append(deal.sitting_out)
        for s in earners:
            name = deal.names[s]
            sheet.bombs[name] = sheet.bombs.get(name, ()) + (1 << d,)


def _score_raspasy_gora(sheet: Sheet, deal: DealState) -> None:
    """Tricks to gora at k x multiplier each, after the amnesty [Code 3.7.2.1, 3.7.3]."""
    rules = sheet.rules
    assert deal.resolved_at is not None
    k = _raspasy_multiplier(rules, deal)
    counts = _raspasy_counts(rules, deal)
    # The amnesty is of the tricks actually taken: a penalty trick changes nobody's
    # record but the offender's [Code 3.7.3, 3.9.12]; and only those who played have a
    # record to reduce: a sitting-out dealer's penalty trick is never amnestied into a
    # gora below nothing.
    played = _raspasy_counts(rules, deal, penalties=False) if deal.penalties else counts
    amnesty = min(played.values()) if rules.raspasy_amnesty else 0
    price = k * rules.gora_whist_multiplier * UNIT
    ev, number, names = deal.resolved_at, deal.number, deal.names
    for s, t in counts.items():
        off = amnesty if s in played else 0
        after = said(", amnesty {n}", n=off) if off else ""
        sheet.write(ev, number, names[s], "gora", (t - off) * price,
                    why=said("raspasy x{k}: {tricks}{after}{rules}", k=k, tricks=said_count(t, "trick"), after=after,
                             rules=penalty_rules(deal, s)))
    _raspasy_pulya(sheet, deal, k, counts)


def _score_raspasy_whists(sheet: Sheet, deal: DealState) -> None:
    """Rostov: the player with the fewest tricks writes whists on the others for each
    trick they took; two tied for fewest write on the third half each [Code 3.7.2.2]."""
    rules = sheet.rules
    assert deal.resolved_at is not None
    k = _raspasy_multiplier(rules, deal)
    counts = _raspasy_counts(rules, deal)
    # Only those who played are compared: a sitting-out dealer's penalty trick is a trick
    # the fewest write on him, never a place among them [Code 3.9.11.2, 3.9.12].
    played = _raspasy_counts(rules, deal, penalties=False) if deal.penalties else counts
    fewest = min(t for s, t in counts.items() if s in played)
    low = [s for s, t in counts.items() if t == fewest and s in played]
    price = rules.raspasy_whist_price * k * rules.gora_whist_multiplier * UNIT
    names = deal.names
    for s in low:
        for other, t in counts.items():
            if other in low:
                continue
            sheet.write(
                deal.resolved_at, deal.number, names[s], "whists", share(t * price, len(low)),
                on=names[other], why=said("raspasy: fewest tricks, {n} taken by {player}", n=t, player=names[other]),
            )
    _raspasy_pulya(sheet, deal, k, counts)


RASPASY_MODELS: dict[str, Callable[[Sheet, DealState], None]] = {
    "gora": _score_raspasy_gora,
    "whists": _score_raspasy_whists,
}
