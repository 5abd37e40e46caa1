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
from typing import TYPE_CHECKING

from ledger.events import AnyEvent, Correction, Entry, Objection, Tricks, event_from_dict, event_to_dict
from projections.settlement import settle
from projections.sheet import Sheet, Write

if TYPE_CHECKING:
    from projections.game import GameState


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


def is_late(state: GameState, event: Entry | Tricks) -> bool:
    """A record of an earlier deal than the one in play: a forgotten record (4.2.10)."""
    return event.deal is not None and 0 < event.deal < state.current_deal_number


def next_game(state: GameState, deal: int) -> int:
    """The deal after ``deal`` that was actually played: an annulled deal orders no game,
    so the redeal is "the next game" of rule 4.2.9."""
    k = deal + 1
    while k <= len(state.deals) and state.deals[k - 1].annulled_at is not None:
        k += 1
    return k


def deadline(state: GameState, deal: int) -> int | None:
    """The event at which the bidding of the next game after ``deal`` ended (None: not yet)."""
    return state.bidding_end(next_game(state, deal))


def too_late_reason(state: GameState, deal: int, end: int) -> str:
    at = state.events[end - 1].at
    when = f" ({at})" if at else ""
    return f"too late: the bidding of deal {next_game(state, deal)} closed at event {end}{when}"


def _variant(state: GameState, number: int, overrides: dict[int, AnyEvent], void: set[int]) -> GameState:
    """The same game through event ``number`` - 1 with other decisions: for comparing."""
    from projections.game import GameState as _GameState

    other = _GameState(started=state.started, rules=state.rules)
    other.events = state.events[: number - 1]
    other.overrides = overrides
    other.void = void
    other.penalties = state.penalties
    other.refold()
    return other


def apply_correction(state: GameState, number: int, c: Correction) -> None:
    target_no = c.target
    target = state.content(target_no)
    recorder = target.by or ""
    k = target.deal or 0
    merged = merge(target, c.replacement)
    wrong = state.sheet()
    right_state = _variant(state, number, {**state.overrides, target_no: merged}, state.void)
    right = right_state.sheet()
    end = deadline(state, k)
    rule = "4.2.7"
    if end is not None and end < number:
        reason = too_late_reason(state, k, end)
        if c.by != recorder:
            state.effects[number] = Effect(number, False, reason + "; only the recorder may still correct it", "4.2.9")
            return
        if recorder in state.players and _result(right)[recorder] > _result(wrong)[recorder]:
            state.effects[number] = Effect(
                number, False,
                reason + "; after that the recorder may correct his own record only when it does not "
                "improve his own position", "4.2.9",
            )
            return
        rule = "4.2.9"
    in_hand = all(
        isinstance(state.events[i - 1], Correction) and state.events[i - 1].target == target_no  # type: ignore[union-attr]
        for i in range(target_no + 1, number)
    )
    state.overrides[target_no] = merged
    if in_hand:
        effect = Effect(number, True, "corrected while the record was in hand: no penalty", "4.2.8", free=True)
    elif recorder not in state.players:
        effect = Effect(number, True, f"corrected; the record was {recorder}'s: no penalty", rule)
    elif recorder not in state.warned:
        state.warned.add(recorder)
        effect = Effect(number, True, f"corrected; {recorder}'s first counted error: a warning", rule, warning=True)
    else:
        writes = equal_for_equal(wrong, right, recorder, number, state.current_deal_number)
        if c.penalty == "waived":
            writes = [w for w in writes if w.column != "whists"]
        state.penalties[number] = writes
        shown = "; ".join(_describe(w) for w in writes) or "the error gave no advantage"
        waived = " (the wronged partner waived the whists)" if c.penalty == "waived" else ""
        effect = Effect(number, True, f"corrected; equal for equal: {shown}{waived}", rule)
    state.effects[number] = effect
    state.refold()


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


def _describe(w: Write) -> str:
    if w.column == "whists":
        return f"{w.player} writes {w.amount} whists on {w.on}"
    return f"{w.amount} into {w.player}'s {w.column}"


def _result(sheet: Sheet) -> dict[str, Fraction]:
    return settle(sheet, None).result


def apply_objection(state: GameState, number: int, o: Objection) -> None:
    k = o.deal or 0
    end = deadline(state, k)
    if end is not None and end < number:
        state.effects[number] = Effect(number, False, too_late_reason(state, k, end) + ": the record stands", "4.2.10")
        return
    voided = []
    for late_no, effect in list(state.effects.items()):
        late = state.events[late_no - 1]
        if (
            isinstance(late, (Entry, Tricks))
            and effect.effective
            and late.deal == k
            and late_no not in state.void
            and (o.target is None or o.target == late_no)
            and late.by != o.player
        ):
            state.void.add(late_no)
            state.effects[late_no] = Effect(late_no, False, f"forgotten record withdrawn: {o.player} objected at event {number}", "4.2.10")
            voided.append(late_no)
    if voided:
        state.effects[number] = Effect(number, True, f"late record(s) {', '.join(map(str, voided))} withdrawn", "4.2.10")
        state.refold()
    else:
        state.effects[number] = Effect(number, True, f"no late record of deal {k} may be added while {o.player} objects", "4.2.10")


def apply_late(state: GameState, number: int, event: Entry | Tricks) -> None:
    k = event.deal or 0
    end = deadline(state, k)
    if end is not None and end < number:
        state.void.add(number)
        state.effects[number] = Effect(number, False, too_late_reason(state, k, end) + ": a forgotten record has no effect", "4.2.10")
        return
    for i in range(2, number):
        o = state.events[i - 1]
        if isinstance(o, Objection) and o.deal == k and o.target in (None, number) and o.player != event.by:
            state.void.add(number)
            state.effects[number] = Effect(number, False, f"{o.player} objected at event {i}: the forgotten record is refused", "4.2.10")
            return
    state.effects[number] = Effect(number, True, f"forgotten record of deal {k}, accepted before the deadline", "4.2.10")
    state.refold()

