"""Judging corrections and objections [Code 4.2.7-4.2.10; rules.md §8].

The command side only checks that a correction or objection is well formed and
that a correction leaves the log valid. Whether it takes effect (in hand, too
late, objected to) and what it costs is the projection's decision
(``projections.recording``), so the log keeps every attempt.
"""

from __future__ import annotations

import msgspec

from ledger.vocabulary.refusal import Refused, cite
from ledger.command.checks import check_recorder, filled, seat_of
from ledger.command.play import judge_play
from ledger.vocabulary.events import (
    AnyEvent,
    Correction,
    Entry,
    EventFormatError,
    Objection,
    Tricks,
    event_type,
)
from projections.game import GameState
from projections.recording import CORRECTABLE, merge


def judge_correction(state: GameState, c: Correction) -> AnyEvent:
    number = state.number + 1
    if number <= 2:
        raise Refused("4.2.7", "nothing has been recorded yet that could be corrected")
    if not 2 <= c.target < number:
        raise Refused("4.2.7", f"there is no event {c.target} to correct", f"2 to {number - 1}")
    target = state.content(c.target)
    kind = event_type(target)
    fields = CORRECTABLE.get(kind)
    if fields is None:
        raise Refused("4.2.7", f"event {c.target} is a {kind}, which is not a record that can be corrected",
                      ", ".join(sorted(CORRECTABLE)))
    if not c.replacement:
        raise Refused("4.2.7", "a correction needs the fields that change", ", ".join(fields))
    bad = sorted(set(c.replacement) - set(fields))
    if bad:
        raise Refused("4.2.7", f"a correction of a {kind} cannot change {', '.join(bad)} "
                      "(type, by, player and deal never change)", ", ".join(fields))
    check_recorder(state, c.by)
    try:
        merged = merge(target, c.replacement)
    except EventFormatError as exc:
        raise Refused("event-log", f"the corrected event {c.target} would not be an event: {exc}") from None
    # The corrected log must still be valid from the target on.
    scratch = GameState.start(state.started)
    overrides = {**state.overrides, c.target: merged}
    for i in range(2, number):
        event = state.events[i - 1]
        if i in state.void or event_type(event) in ("correction", "objection"):
            scratch.fold_plain(event, judged=False)
            continue
        content = overrides.get(i, event)
        if i >= c.target:
            try:
                judge_play(scratch, content)  # type: ignore[arg-type]
            except Refused as exc:
                what = "the corrected event" if i == c.target else f"event {i}"
                raise Refused("4.2.7", f"the correction of event {c.target} would make {what} invalid: "
                              f"{exc.reason} [{cite(exc.rule)}]") from None
        scratch.fold_plain(content)
    return filled(state, c, by=c.by or target.by)


def judge_objection(state: GameState, o: Objection) -> AnyEvent:
    seat_of(state, o.player)
    if o.deal is None:
        raise Refused("4.2.10", "an objection names the deal whose late record it refuses", "deal: K")
    if not 1 <= o.deal <= state.current_deal_number:
        raise Refused("4.2.10", f"there is no deal {o.deal} yet", f"1 to {state.current_deal_number}")
    if o.target is not None:
        if not 2 <= o.target <= state.number:
            raise Refused("4.2.10", f"there is no event {o.target}")
        late = state.events[o.target - 1]
        if not isinstance(late, (Entry, Tricks)) or late.deal != o.deal:
            raise Refused("4.2.10", f"event {o.target} is not a record of deal {o.deal}")
        if late.by == o.player:
            raise Refused("4.2.10", f"{o.player} cannot object to his own record")
    return filled(state, msgspec.structs.replace(o, by=o.by or o.player), by=o.by or o.player, deal=o.deal)
