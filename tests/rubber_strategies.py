"""Hypothesis strategies that generate legal rubbers of bridge by playing them.

``legal_rubbers`` walks a rubber with the real command side: at every step it draws
a deal the Laws allow (a contract of one to seven in a denomination, spelled as a
scorer may type it, undoubled, doubled or redoubled, with or without who doubled and
who redoubled as Law 19 allows, a declarer, 0 to 13 tricks, honours as Law 81 allows
them) or a passed-out deal, now and then a ruling above the line or a correction of an
earlier record (its tricks, double, honours or contract), has
``ledger.judge.rubber.decide_rubber`` judge it and folds it in. It stops when
the rubber is won, after a number of deals, or when all four agree to stop. A refusal
of an event the generator believed legal propagates: the generator and the command
side disagree about the rules.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
from hypothesis import strategies as st

from ledger.judge import rubber
from ledger.vocabulary.bridge import BridgeDeal, BridgePenalty, Honours, PassedOut, RubberStarted, parse_contract
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction
from ledger.vocabulary.refusal import Refused
from projections.rubber import RubberState

NAMES = ("Nadia", "Egor", "Sveta", "Vadim")
START = datetime(2026, 11, 30, 19, 0, tzinfo=timezone.utc)
DENOMINATIONS = ("C", "D", "H", "S", "NT")

Draw = Any


def spelled(draw: Draw, level: int, denomination: str) -> str:
    """A contract as a scorer may type it: ``3NT``, ``3nt``, `` 3N ``, ``4s``."""
    text = f"{level}{draw(st.sampled_from(('N', 'nt', 'Nt', 'NT')))}" if denomination == "NT" else \
        f"{level}{draw(st.sampled_from((denomination, denomination.lower())))}"
    return draw(st.sampled_from((text, text, f" {text} ")))


def honours_for(denomination: str) -> st.SearchStrategy[Honours | None]:
    """Honours Law 81 allows in a contract of that denomination, or none."""
    return st.one_of(st.none(), st.builds(Honours, player=st.sampled_from(NAMES),
                                          points=st.sampled_from((150,) if denomination == "NT" else (100, 150))))


def doublers(draw: Draw, declarer: str, double: str | None) -> dict[str, str | None]:
    """Who doubled (a defender) and who redoubled (the declaring side), or not recorded
    [Law 19]; the players sit N, E, S, W, so partners are two seats apart."""
    seat = NAMES.index(declarer)
    defenders = (NAMES[(seat + 1) % 4], NAMES[(seat + 3) % 4])
    declaring = (declarer, NAMES[(seat + 2) % 4])
    return {
        "doubled_by": draw(st.sampled_from((None, *defenders))) if double is not None else None,
        "redoubled_by": draw(st.sampled_from((None, *declaring))) if double == "XX" else None,
    }


def deals() -> st.SearchStrategy[BridgeDeal]:
    """Any deal Law 18, Law 19 and Law 81 allow, judged by nobody yet."""
    @st.composite
    def deal(draw: Draw) -> BridgeDeal:
        level = draw(st.integers(1, 7))
        denomination = draw(st.sampled_from(DENOMINATIONS))
        # Most contracts land near their target, as at the table; any count may come.
        tricks = draw(st.one_of(st.integers(max(0, 4 + level), min(13, 8 + level)), st.integers(0, 13)))
        declarer = draw(st.sampled_from(NAMES))
        double = draw(st.sampled_from((None, None, "X", "XX")))
        return BridgeDeal(
            declarer=declarer,
            contract=spelled(draw, level, denomination),
            double=double,
            tricks=tricks,
            honours=draw(honours_for(denomination)),
            **doublers(draw, declarer, double),
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

    started = rubber.start_rubber(RubberStarted(
        game="random", players=NAMES, first_dealer=draw(st.sampled_from(NAMES)),
        stake="0.10" if stake else None, at=at(),
        rules={"rounding": draw(st.sampled_from(("exact", "hundred")))},
    ))
    state = RubberState.start(started)
    events: list[AnyEvent] = [started]

    def record(event: AnyEvent) -> None:
        judged = rubber.decide_rubber(state, event)
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
            # A correction of an earlier deal's tricks, double, honours or level: refused
            # when it would end the rubber before a deal the log records, which the
            # generator skips. Honours come as a log holds them: a mapping.
            targets = [n for n in state.deals if isinstance(state.content(n), BridgeDeal)]
            if targets:
                target = draw(st.sampled_from(targets))
                deal = state.content(target)
                assert isinstance(deal, BridgeDeal)
                denomination = parse_contract(deal.contract)[1]
                kind = draw(st.sampled_from(("tricks", "double", "honours", "contract")))
                replacement: dict[str, Any]
                if kind == "tricks":
                    replacement = {"tricks": draw(st.integers(0, 13))}
                elif kind == "double":
                    double = draw(st.sampled_from((None, "X", "XX")))
                    replacement = {"double": double, **doublers(draw, deal.declarer, double)}
                elif kind == "honours":
                    replacement = {"honours": msgspec.to_builtins(draw(honours_for(denomination)))}
                else:
                    replacement = {"contract": spelled(draw, draw(st.integers(1, 7)), denomination)}
                try:
                    record(Correction(target=target, replacement=replacement, by=NAMES[0], at=at()))
                except Refused as exc:
                    assert exc.rule == "Law 74", exc
    if extras and not state.over and draw(st.booleans()):
        record(Abandoned(agreed_by=NAMES, at=at()))
    return events
