"""The scorer at the table: what a recording command did, in the table's words, and the
checks of table mode that a log file does not need.

``said`` turns the ``Outcome`` of a command into what the scorer is told: the writes it
made on the sheet, the verdicts of the recording rules on what it recorded (and on
earlier records it changed), the deal it completed, who deals and leads next, and the
end of the pulka when it comes.

``guarded`` wraps the events of a table command with two checks a paper sheet cannot
make [Code 4.2.10]: a deal that was played but whose result was not written is not
left behind by starting the next deal's bidding unless the scorer says so
(``leave_open``), and a deal line identical to the previous deal's is taken for a line
typed twice unless the scorer says it happened ``again``. A log file is never held to
these: it records what happened, and the rules of the Code judge it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from ledger.command.application import Outcome
from ledger.command.play import waiting_for
from ledger.command.store import StoredEvent
from ledger.vocabulary.events import Annulled, AnyEvent, Bid, Contract, Correction, Defence, Entry, Tricks
from ledger.vocabulary.refusal import Refused
from projections.sheet import totals
from projections.trail import Cell, changes
from projections.deal import DealState
from projections.deals import deal_line, deal_story, next_deal_text, play_of
from projections.game import GameState
from projections.recording import Effect


@dataclass(frozen=True)
class Verdict:
    """The recording rules' verdict on one record: ``kind`` is one of ``free``,
    ``accepted``, ``effective``, ``warning``, ``counted`` (an error counted against its
    recorder: a penalty, equal for equal), ``withdrawn`` (taken back in hand) or
    ``no effect``."""

    number: int
    effect: Effect
    kind: str
    new: bool  # on an event just recorded; else an earlier record whose verdict it changed

    @property
    def loud(self) -> bool:
        """A verdict the scorer must not miss: printed on standard error."""
        return self.kind in ("no effect", "warning", "counted")


@dataclass(frozen=True)
class Said:
    """What a recording command did, for the scorer."""

    game: str
    events: list[StoredEvent]
    writes: list[tuple[Cell, Fraction]]
    verdicts: list[Verdict]
    deals: list[tuple[int, str]]  # the deals it completed, and each as told with names
    next: str  # who deals and leads next, what the deal waits for, or the end
    over: bool  # the pulka has ended or was abandoned
    open_deal: int | None  # a deal played without its result, waiting for its tricks


def kind_of(event: AnyEvent, effect: Effect) -> str:
    if not effect.effective:
        return "withdrawn" if effect.free else "no effect"
    if effect.free:
        return "free"
    if effect.warning:
        return "warning"
    if isinstance(event, Correction):
        return "counted"
    if isinstance(event, (Entry, Tricks)):
        return "accepted"
    return "effective"


def verdicts_of(state: GameState, first_new: int, before: dict[int, Effect]) -> list[Verdict]:
    """The verdicts on the events from ``first_new`` on, and on earlier records whose
    verdict changed (an objection withdraws a late record)."""
    out = []
    for number in sorted(state.effects):
        effect = state.effects[number]
        new = number >= first_new
        if new or before.get(number) != effect:
            out.append(Verdict(number, effect, kind_of(state.events[number - 1], effect), new))
    return out


def next_text(state: GameState) -> str:
    if state.abandoned_at is not None:
        return "the pulka was abandoned; `pulka settle` settles it"
    if state.finished:
        return "the pulka has ended; `pulka settle` settles it"
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        return "next: " + next_deal_text(state)
    if deal.phase == "play":
        return f"deal {deal.number} waits for its tricks"
    return f"deal {deal.number} waits for {waiting_for(state, deal)}"


def left_open(state: GameState) -> DealState | None:
    """The current deal when it was played and waits for its result."""
    deal = state.current
    if deal is not None and deal.annulled_at is None and deal.phase == "play":
        return deal
    return None


def said(outcome: Outcome[GameState]) -> Said:
    state = outcome.state
    first = outcome.stored[0].number if outcome.stored else state.folded + 1
    delta = changes(outcome.totals_before, totals(state.sheet())) if outcome.totals_before else {}
    # The deals whose play this command recorded, and which are over now.
    done = sorted({s.event.deal for s in outcome.stored if s.event.deal and play_of(state, s.event)})
    deals = []
    for k in done:
        deal = state.deals[k - 1] if 0 < k <= len(state.deals) else None
        if deal is not None and (deal.resolved or deal.annulled_at is not None):
            deals.append((k, deal_story(state, deal)))
    opened = left_open(state)
    return Said(
        game=outcome.game,
        events=outcome.stored,
        writes=list(delta.items()),
        verdicts=verdicts_of(state, first, outcome.effects_before),
        deals=deals,
        next=next_text(state),
        over=state.over,
        open_deal=opened.number if opened is not None else None,
    )


def guarded(
    state: GameState, events: Iterable[AnyEvent], *, leave_open: bool = False, again: bool = True
) -> Iterator[AnyEvent]:
    """The events of a table command, refused when a bid would start a new deal while
    the deal before it waits for its result (unless ``leave_open``), and, when the
    command is a deal line (``again`` False), when the deal it records is the same line
    as the deal before it."""
    before = state.current
    for event in events:
        if isinstance(event, Bid) and state.in_auction is None and not leave_open:
            waiting = left_open(state)
            if waiting is not None:
                raise Refused(
                    "4.2.10",
                    f"deal {waiting.number} was played but its result is not recorded; once the bidding "
                    f"of deal {waiting.number + 1} ends, its tricks cannot be added any more",
                    "its tricks first (pulka tricks NAME=N …), or --leave-open to go on without them",
                )
        yield event
    current = state.current
    if again or current is None or current is before or len(state.deals) < 2:
        return
    previous = state.deals[-2]
    if previous.annulled_at is None and current.annulled_at is None \
            and deal_line(state, previous) == deal_line(state, current):
        raise Refused(
            "command-line",
            f"this line is the line of deal {previous.number} again ({deal_line(state, current)}): "
            "typed twice?",
            "--again when the same deal really was played again",
        )


# -- undo -------------------------------------------------------------------------------------

UNDONE = (Bid, Contract, Defence, Tricks, Annulled)  # what a deal line records


def undo_from(state: GameState) -> int:
    """Where ``pulka undo`` begins: the last record alone, or, when it is an event of
    play (what a deal line records), the whole run of events of play of its deal that
    ends the log: the last deal line, or the deal so far when it was entered event by
    event. Whether they are still in hand is for the judge to say [Code 4.2.8]."""
    last = state.folded
    event = state.events[last - 1]
    if not isinstance(event, UNDONE) or (isinstance(event, Tricks) and state.is_late(event)):
        return last  # the last record alone (a late record of an earlier deal too)
    first = last
    while first > 2:
        before = state.events[first - 2]
        if not isinstance(before, UNDONE) or before.deal != event.deal or (first - 1) in state.void:
            break
        first -= 1
    return first
