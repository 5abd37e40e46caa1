"""A whole deal in one line, the way a scorer calls it at the table.

    pulka deal GAME "6S pass pass | 6S | whist pass | 6 3 1"

Sections are separated by ``|``: the bids in turn order, the contract, the defence
calls in their order (``whist:open`` for an open whist), and the tricks of the
players in the deal in turn order from the forehand. On raspasy the line is bids,
then tricks (``pass pass pass | 2 3 5``; with 4 players the dealer's talon tricks
may come last). A misère has no calls: ``misere pass pass | misere | 0``. After two
passes the third hand may give a contract without bidding:
``pass pass | 7S | whist pass | 7 2 1``. Who speaks is never typed: the auction
decides it, which is the point. The words may be the table's (``6♠``, ``пас``,
``вист``, ``полвиста``, ``мизер``, ``здесь``; ``words``); the log stores the canonical ones.

``deal_events`` yields the events of a line one at a time; whoever consumes it
(``judge.judge_into``) judges each and folds it into the state before asking for the
next, so that each event is worked out from the state it will be applied to.
"""

from __future__ import annotations

from collections.abc import Iterator

from ledger.command.words import bid_word, call_word, contract_word
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, Tricks
from ledger.vocabulary.refusal import Refused
from projections.game import GameState


def deal_events(state: GameState, line: str) -> Iterator[AnyEvent]:
    """The events a deal line stands for, each made once the one before it has been
    judged and folded into ``state``."""
    sections = [s.split() for s in line.split("|")]

    names = state.players
    for token in sections.pop(0) if sections else []:
        deal = state.in_auction or state.next_deal()
        turn = deal.turn()
        if turn is None:
            raise Refused("3.3", f"the auction is over; {token!r} has nobody to bid it")
        yield Bid(player=names[turn], bid=bid_word(token))
    current = state.current
    if current is None:
        raise Refused("3.3", "a deal line begins with the bids", '"6S pass pass | 6S | whist pass | 6 3 1"')
    deal = current
    turn = deal.turn()
    if deal.bidding_closed_at is None and not (turn is not None and deal.third_hand_may_take_talon(turn)):
        raise Refused("3.3", f"the auction of deal {deal.number} is not over", "more bids")
    if not deal.raspasy:
        contract = sections.pop(0) if sections else []
        if not contract:
            raise Refused("3.4", "the second section is the contract", "e.g. 6S or misere")
        declarer = deal.declarer if deal.declarer is not None else deal.turn()
        assert declarer is not None
        yield Contract(player=names[declarer], contract=contract_word(" ".join(contract)))
        no_defence = state.current is not None and state.current.no_defence
        for token in [] if no_defence else (sections.pop(0) if sections else []):
            call, is_open = call_word(token)
            expect = state.current.defence().expect if state.current else None
            if expect is None:
                raise Refused("3.8", f"no defence call is expected here, got {token!r}")
            yield Defence(player=names[expect[0]], call=call, open=True if is_open else None)  # type: ignore[arg-type]
    if sections:
        counts = sections.pop(0)
        played = state.current
        assert played is not None
        deal = played
        seats = list(deal.active)
        if deal.raspasy and len(counts) == len(names) and len(seats) < len(names):
            seats = list(range(len(names)))
            seats = seats[deal.dealer + 1 :] + seats[: deal.dealer + 1]
        elif deal.contract is not None and deal.contract.is_misere and len(counts) == 1:
            assert deal.declarer is not None
            seats = [deal.declarer]
        if len(counts) != len(seats):
            raise Refused("3.5", f"expected {len(seats)} trick counts, for {', '.join(names[s] for s in seats)}")
        try:
            tricks = {names[s]: int(c) for s, c in zip(seats, counts)}
        except ValueError:
            raise Refused("3.5", f"trick counts are whole numbers, not {' '.join(counts)!r}") from None
        yield Tricks(tricks=tricks)
    if sections:
        raise Refused("event-log", f"unexpected text after the deal: {' | '.join(' '.join(s) for s in sections)!r}")
