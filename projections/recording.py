"""The Code's recording rules, as pure verdicts [Code 4.2.4-4.2.10; rules.md §8].

The log keeps every attempt; ``GameState`` (``projections.game``) asks these functions
what each correction, objection, late record and withdrawal does, and keeps the verdict
(an ``Effect``) so that ``pulka log`` can show it with its rule and reason:

- pencil rule (4.2.8): a correction while the record is still in hand is free, and a
  record still in hand may be withdrawn;
- a correction that changes no number of the sheet corrects no error: no warning, no
  penalty (4.2.7: the error is a wrong number written);
- the first counted error of each player is a warning (4.2.7);
- after that "equal for equal" (4.2.7): the advantage the wrong record gave its
  recorder is the penalty, in the same column;
- deadline (4.2.9): a partner's correction counts only until the bidding of the next
  deal ends; later the recorder may still correct his own record, and (this ledger's
  own rule, the Code is silent) only when it does not improve his own position;
- forgotten records (4.2.10): a late ``entry`` or ``tricks`` counts until the bidding
  of the next deal ends, and not while a partner objects.

Nothing here folds events: the game compares the sheet as recorded with the sheet as
corrected and passes both in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ledger.vocabulary.events import AnyEvent, event_from_dict, event_to_dict
from ledger.vocabulary.wording import joined_by, said
from projections.settlement import player_result
from projections.sheet import Sheet, Write, cell_units, shown


class Effect(msgspec.Struct, frozen=True):
    """What the recording rules made of one correction, objection, late record or
    withdrawal."""

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
    "tricks": ("tricks", "penalty_tricks"),
    "entry": ("column", "amount", "on"),
    "penalty": ("column", "amount", "on", "reason", "wronged"),
    "annulled": ("reason",),
    "ruling": ("tricks", "whists", "reason"),
    "talon": ("tricks",),
}

NO_ERROR = said("corrected; no number of the sheet changes: no error, no penalty")


def merge(target: AnyEvent, replacement: dict[str, Any]) -> AnyEvent:
    """The target with the replacement's fields. The command side has checked that the
    result is a valid event (``checked_merge``); replay only merges."""
    return msgspec.structs.replace(target, **replacement)


def checked_merge(target: AnyEvent, replacement: dict[str, Any]) -> AnyEvent:
    """``merge``, checked field by field as a log line would be (raises EventFormatError)."""
    data = event_to_dict(target)
    data.update(replacement)
    return event_from_dict(data)


def equal_for_equal(wrong: Sheet, right: Sheet, recorder: str, number: int, deal: int) -> list[Write]:
    """The advantage the wrong record gave its recorder, as penalty writes [Code 4.2.7]."""
    writes: list[Write] = []
    pulya = wrong.pulya[recorder] - right.pulya[recorder]
    gora = right.gora[recorder] - wrong.gora[recorder]
    if pulya > 0:
        writes.append(Write(number, deal, recorder, "gora", pulya, None, said("equal for equal (4.2.7): pulya overstated by {amount}", amount=shown(pulya))))
    if gora > 0:
        writes.append(Write(number, deal, recorder, "gora", gora, None, said("equal for equal (4.2.7): gora understated by {amount}", amount=shown(gora))))
    for q in wrong.players:
        if q == recorder:
            continue
        over = wrong.whists[recorder][q] - right.whists[recorder][q]
        under = right.whists[q][recorder] - wrong.whists[q][recorder]
        if over > 0:
            writes.append(Write(number, deal, q, "whists", over, recorder,
                                said("equal for equal (4.2.7): {recorder}'s whists on {on} overstated by {amount}",
                                     recorder=recorder, on=q, amount=shown(over))))
        if under > 0:
            writes.append(Write(number, deal, q, "whists", under, recorder,
                                said("equal for equal (4.2.7): {player}'s whists on {recorder} understated by {amount}",
                                     player=q, recorder=recorder, amount=shown(under))))
    return writes


def describe_write(w: Write) -> str:
    if w.column == "whists":
        return said("{player} writes {amount} whists on {on}", player=w.player, amount=shown(w.amount), on=w.on)
    if w.column == "pulya":
        return said("{amount} into {player}'s pulya", amount=shown(w.amount), player=w.player)
    return said("{amount} into {player}'s gora", amount=shown(w.amount), player=w.player)


def correction_verdict(
    *,
    number: int,
    recorder: str,
    asked_by: str | None,
    players: tuple[str, ...],
    too_late: str | None,
    in_hand: bool,
    warned: bool,
    compare: Callable[[], tuple[Sheet, Sheet]],
    deal: int,
    waived: bool,
) -> tuple[Effect, list[Write]]:
    """What a correction does: its verdict and the penalty writes it brings.

    ``too_late`` is the reason when the deadline of 4.2.9 has passed (else None);
    ``in_hand`` whether the record was still in hand (4.2.8); ``warned`` whether the
    recorder has had his warning already (4.2.7); ``compare()`` gives the sheet as
    recorded and as corrected, and is called once, when the verdict depends on them (a
    late correction by the recorder himself; any correction out of hand of a player's
    record: one that changes no number of the sheet was no error [Code 4.2.7]).
    """
    rule = "4.2.7"
    sheets: tuple[Sheet, Sheet] | None = None
    if too_late is not None:
        if asked_by != recorder:
            return Effect(number, False, said("{late}; only the recorder may still correct it", late=too_late),
                          "4.2.9"), []
        if recorder in players:
            sheets = compare()
            wrong, right = sheets
            if player_result(right, recorder) > player_result(wrong, recorder):
                return Effect(
                    number, False,
                    said("{late}; after that the recorder may correct his own record only when it does not "
                         "improve his own position", late=too_late), "4.2.9",
                ), []
        rule = "4.2.9"
    if in_hand:
        return Effect(number, True, said("corrected while the record was in hand: no penalty"), "4.2.8",
                      free=True), []
    if recorder not in players:
        return Effect(number, True, said("corrected; the record was {recorder}'s: no penalty", recorder=recorder),
                      rule), []
    wrong, right = sheets if sheets is not None else compare()
    if cell_units(wrong) == cell_units(right):
        # An error in the record is a wrong number on the sheet [Code 4.2.7]: a record
        # whose correction changes none was no error, and costs nothing.
        return Effect(number, True, NO_ERROR, rule, free=True), []
    if not warned:
        return Effect(number, True, said("corrected; {recorder}'s first counted error: a warning", recorder=recorder),
                      rule, warning=True), []
    writes = equal_for_equal(wrong, right, recorder, number, deal)
    if waived:
        writes = [w for w in writes if w.column != "whists"]
    said_writes = [describe_write(w) for w in writes]
    what = (joined_by("; ", said_writes) if said_writes
            else said("the error gave no advantage"))
    note = said(" (the wronged partner waived the whists)") if waived else ""
    return Effect(number, True, said("corrected; equal for equal: {writes}{note}", writes=what, note=note), rule), writes
