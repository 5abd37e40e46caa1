"""Penalty tricks [Code 3.4.6, 3.4.9, 3.9.11.2, 3.9.18, 3.2.16]: the kind of each rule's
(tricks taken away from the offender's count, or undertricks added to his remiz), the
rules as a refusal lists them, and a result's penalty tricks by seat, which scoring
(``scoring``, ``raspasy_scoring``), the statistics and the tournament's tallies count.
"""

from __future__ import annotations

from typing import Literal

from ledger.vocabulary import language
from ledger.vocabulary.wording import said
from projections.deal_state import DealState

# Penalty tricks by rule: "lost" tricks are taken away from the offender's count (on
# raspasy and on a misère added to it); "remiz" tricks are undertricks added to his
# remiz, on the game or on the whist [Code 3.4.6, 3.4.9, 3.9.11.2, 3.9.18, 3.2.16].
PENALTY_KINDS: dict[str, Literal["lost", "remiz"]] = {
    "3.4.6": "remiz",
    "3.4.9": "lost",
    "3.9.11.2": "lost",
    "3.9.18": "remiz",
    "3.2.16": "remiz",
}
N_ = language.N_  # the texts below are translated where they are shown
PENALTY_RULES_TEXT = {
    "3.4.6": N_("declared with a wrong number of cards: a remiz without two on the declared game"),
    "3.4.9": N_("looked at the discard after the first lead: one trick"),
    "3.9.11.2": N_("looked at a closed trick: one trick"),
    "3.9.18": N_("a wrong number of cards in play: a remiz of at least two, on the game or on the whist"),
    "3.2.16": N_("began with a wrong number of cards: measured by 3.9.18"),
}

NO_PENALTIES: dict[int, int] = {}  # no penalty tricks (never written to)


def penalty_rules(deal: DealState, seat: int) -> str:
    """The rules of a seat's penalty tricks, for the reason of a write."""
    if not deal.penalties:
        return ""
    rules = sorted({rule for s, _, rule in deal.penalties if s == seat})
    return said(" [Code {rules}]", rules=", ".join(rules)) if rules else ""


def penalty_counts(deal: DealState) -> tuple[dict[int, int], dict[int, int]]:
    """The penalty tricks of a result by seat: (lost, remiz)."""
    if not deal.penalties:
        return NO_PENALTIES, NO_PENALTIES
    lost: dict[int, int] = {}
    remiz: dict[int, int] = {}
    for seat, n, rule in deal.penalties:
        kind = PENALTY_KINDS.get(rule, "lost")
        target = lost if kind == "lost" else remiz
        target[seat] = target.get(seat, 0) + n
    return lost, remiz
