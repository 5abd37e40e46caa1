"""The Code's recording rules, as a projection [Code 4.2.4-4.2.10; rules.md §8].

The log keeps every attempt; these functions decide what each correction,
objection and late record does, and record the verdict (``GameState.effects``)
so that ``pulka log`` can show it with its rule and reason:

- pencil rule (4.2.8): a correction while the record is still in hand is free;
- the first counted error of each player is a warning (4.2.7);
- after that "equal for equal" (4.2.7): the advantage the wrong record gave its
  recorder is the penalty, in the same column;
- deadline (4.2.9): a partner's correction counts only until the bidding of the next
  deal ends; later the recorder may still correct his own record, and (this ledger's
  own rule, the Code is silent) only when it does not improve his own position;
- forgotten records (4.2.10): a late ``entry`` or ``tricks`` counts until the bidding
  of the next deal ends, and not while a partner objects.

A correction or late record changes the deal it targets, and everything after it is
recomputed by ``GameState.refold``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from ledger.vocabulary.events import AnyEvent, Correction, Entry, Objection, Tricks, event_from_dict, event_to_dict
from projections.settlement import settle
from projections.sheet import Sheet, Write


@dataclass(frozen=True)
class Effect:
    """What the recording rules made of one correction, objection or late record."""

    number: int
    effective: bool
    reason: str
    rule: str
    free: bool = False
    warning: bool = False

# Fields a correction may change, per event type; type, by, player and deal never change.
CORRECTABLE: dict[str, tuple[str, ...]] = {
    "bid": ("bid",),
    "contract": ("contract",),
    "defence": ("call", "open"),
    "tricks": ("tricks",),
    "entry": ("column", "amount", "on"),
    "penalty": ("column", "amount", "on", "reason"),
    "annulled": ("reason",),
}


def merge(target: AnyEvent, replacement: dict[str, object]) -> AnyEvent:
    """The target with the replacement's fields (raises EventFormatError)."""
    data = event_to_dict(target)
    data.update(replacement)
    return event_from_dict(data)


def equal_for_equal(wrong: Sheet, right: Sheet, recorder: str, number: int, deal: int) -> list[Write]:
    """The advantage the wrong record gave its recorder, as penalty writes [Code 4.2.7]."""
    writes: list[Write] = []
    why = "equal for equal (4.2.7)"
    pulya = wrong.pulya[recorder] - right.pulya[recorder]
    gora = right.gora[recorder] - wrong.gora[recorder]
    if pulya > 0:
        writes.append(Write(number, deal, recorder, "gora", pulya, None, f"{why}: pulya overstated by {pulya}"))
    if gora > 0:
        writes.append(Write(number, deal, recorder, "gora", gora, None, f"{why}: gora understated by {gora}"))
    for q in wrong.players:
        if q == recorder:
            continue
        over = wrong.whists[recorder][q] - right.whists[recorder][q]
        under = right.whists[q][recorder] - wrong.whists[q][recorder]
        if over > 0:
            writes.append(Write(number, deal, q, "whists", over, recorder,
                                f"{why}: {recorder}'s whists on {q} overstated by {over}"))
        if under > 0:
            writes.append(Write(number, deal, q, "whists", under, recorder,
                                f"{why}: {q}'s whists on {recorder} understated by {under}"))
    return writes


def describe_write(w: Write) -> str:
    if w.column == "whists":
        return f"{w.player} writes {w.amount} whists on {w.on}"
    return f"{w.amount} into {w.player}'s {w.column}"


def exact_result(sheet: Sheet) -> dict[str, Fraction]:
    return settle(sheet, None).result


