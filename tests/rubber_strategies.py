"""Hypothesis strategies that generate legal rubbers of bridge by playing them.

``legal_rubbers`` walks a rubber with the real command side: at every step it draws
a deal the Laws allow (a contract of one to seven in a denomination, undoubled,
doubled or redoubled, a declarer, 0 to 13 tricks, honours as Law 81 allows them) or a
passed-out deal, now and then a ruling above the line or a correction of an earlier
record, has ``ledger.command.rubber.decide`` judge it and folds it in. It stops when
the rubber is won, after a number of deals, or when all four agree to stop. A refusal
of an event the generator believed legal propagates: the generator and the command
side disagree about the rules.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
from hypothesis import strategies as st

from ledger.command import rubber
from ledger.vocabulary.bridge import BridgeDeal, BridgePenalty, Honours, PassedOut, RubberStarted
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction
from ledger.vocabulary.refusal import Refused
from projections.rubber import RubberState

NAMES = ("Nadia", "Egor", "Sveta", "Vadim")
START = datetime(2026, 11, 30, 19, 0, tzinfo=timezone.utc)
DENOMINATIONS = ("C", "D", "H", "S", "NT")

Draw = Any


def deals() -> st.SearchStrategy[BridgeDeal]:
    """Any deal Law 18 and Law 81 allow, judged by nobody yet."""
    @st.composite
    def deal(draw: Draw) -> BridgeDeal:
        level = draw(st.integers(1, 7))
        denomination = draw(st.sampled_from(DENOMINATIONS))
        # Most contracts land near their target, as at the table; any count may come.
        tricks = draw(st.one_of(st.integers(max(0, 4 + level), min(13, 8 + level)), st.integers(0, 13)))
        honours = draw(st.one_of(
            st.none(),
            st.builds(Honours, player=st.sampled_from(NAMES),
                      points=st.sampled_from((150,) if denomination == "NT" else (100, 150))),
        ))
        return BridgeDeal(
            declarer=draw(st.sampled_from(NAMES)),
            contract=f"{level}{denomination}",
            double=draw(st.sampled_from((None, None, "X", "XX"))),
            tricks=tricks,
            honours=honours,
        )
    return deal()


@st.composite
def legal_rubbers(draw: Draw, max_deals: int = 14, extras: bool = True, stake: bool = False) -> list[AnyEvent]:
    """A judged rubber: its events as the ledger would store them."""
    seconds = 0

    def at() -> str:
        nonlocal seconds
        seconds += draw(st.integers(0, 90))
        return (START + timedelta(seconds=seconds)).isoformat()

    started = rubber.start(RubberStarted(
        game="random", players=NAMES, first_dealer=draw(st.sampled_from(NAMES)),
        stake="0.10" if stake else None, at=at(),
        rules={"rounding": draw(st.sampled_from(("exact", "hundred")))},
    ))
    state = RubberState.start(started)
    events: list[AnyEvent] = [started]

    def record(event: AnyEvent) -> None:
        judged = rubber.decide(state, event)
        state.apply(judged)
        events.append(judged)

    for _ in range(draw(st.integers(0, max_deals))):
        if state.over:
            break
        if draw(st.integers(0, 9)) == 0:
            record(PassedOut(at=at()))
        else:
            record(msgspec.structs.replace(draw(deals()), at=at()))
        if not extras:
            continue
        roll = draw(st.integers(0, 11))
        if roll == 0:
            record(BridgePenalty(side=draw(st.sampled_from(("NS", "EW"))), points=draw(st.integers(1, 500)),
                                 reason="ruling", by="arbiter:Ivanov", at=at()))
        elif roll == 1 and not state.over:
            # A correction of an earlier deal's tricks or honours: refused when it would
            # end the rubber before a deal the log records, which the generator skips.
            targets = [n for n in state.deals if isinstance(state.content(n), BridgeDeal)]
            if targets:
                target = draw(st.sampled_from(targets))
                replacement: dict[str, Any] = draw(st.one_of(
                    st.fixed_dictionaries({"tricks": st.integers(0, 13)}),
                    st.fixed_dictionaries({"double": st.sampled_from((None, "X", "XX"))}),
                ))
                try:
                    record(Correction(target=target, replacement=replacement, by=NAMES[0], at=at()))
                except Refused as exc:
                    assert exc.rule == "Law 74", exc
    if extras and not state.over and draw(st.booleans()):
        record(Abandoned(agreed_by=NAMES, at=at()))
    return events
