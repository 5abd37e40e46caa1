"""The scorer at the table: what a recording command did, in the table's words, and the
checks of table mode that a log file does not need.

``Told`` is what the scorer is told after a recording command, one shape for every
kind of stream (a pulka, a rubber): the events it stored, each with its line; the
writes it made on the sheet; the verdicts of the recording rules on what it recorded
(and on earlier records it changed); the deals it completed; who deals and leads next
(or what the deal waits for, or the end); a deal played without its result; and the
reminders of the rules the command calls for. ``told`` makes it from a pulka's
``Outcome`` (``rubber.rubber_told`` from a rubber's), and ``told_doc`` is its JSON
document, the one ``--json`` prints and a web service would send.

``table_checked`` wraps the events of a table command with two checks a paper sheet cannot
make [Code 4.2.10]: a deal that was played but whose result was not written is not
left behind by starting the next deal's bidding unless the scorer says so
(``leave_open``), and a deal line that records the deal before it again (the same
players, contract, calls and tricks) is taken for a line typed twice unless the scorer
says it happened ``again`` (``TypedTwice``). Three more are a deal line's: a line that
stops before the deal's result is taken for one cut short unless the scorer says to
leave the deal open (``cut_short``); a line refused while a deal begun before it waits
says how to type that deal whole again (``begun``, ``retyped``); and counts typed by
position whose other order (declarer first, or from the forehand) would read them for
other players and write another sheet are not stored until the scorer says which
reading he meant (``doubt_of``: a ``Doubtful`` refusal that carries the ``Doubt``, both
readings side by side). A log file is never held to these: it records what happened,
and the rules of the Code judge it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any

import msgspec

from ledger.application import Outcome
from ledger.words.deal_line import MARK, TricksReading
from ledger.judge.play import waiting_for
from ledger.vocabulary import language
from ledger.vocabulary.events import Annulled, AnyEvent, Bid, Contract, Correction, Defence, Entry, Tricks, \
    event_to_dict
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.wording import spoken_text
from projections.audit import cell_text, describe
from projections.numbers import exact_fields, signed
from projections.sheet import totals
from projections.trail import PLAYER_CELLS, Cell, CellNames, changes
from projections.deal_state import DealState
from projections.deal_text import deal_line, deal_story, line_sections, next_deal_text, play_of
from projections.game import GameState
from projections.recording import Effect

_ = language._  # every text a person reads, in the language in effect


class Verdict(msgspec.Struct, frozen=True):
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
        """A verdict the scorer must not miss (the command line prints it on standard
        error)."""
        return self.kind in ("no effect", "warning", "counted")


class ToldEvent(msgspec.Struct, frozen=True):
    """An event a command stored: its number, the event, and its line for people."""

    number: int
    event: AnyEvent
    text: str


class ToldWrite(msgspec.Struct, frozen=True):
    """A number a command changed on the sheet: the cell, by how much, and the cell as
    people name it (``Boris whists on Anna``, ``N–S (МЫ) above``)."""

    cell: Cell
    amount: Fraction
    text: str


class Notice(msgspec.Struct, frozen=True):
    """A reminder of a rule that the scorer must not miss (on standard error): a deal
    left without its result [Code 4.2.10]."""

    rule: str
    text: str


class Told(msgspec.Struct, frozen=True):
    """What a recording command did, for the scorer: one shape for every kind of stream."""

    kind: str  # the kind of stream: "pulka", "rubber"
    game: str
    events: tuple[ToldEvent, ...]
    writes: tuple[ToldWrite, ...]
    verdicts: tuple[Verdict, ...]
    deals: tuple[tuple[int, str], ...]  # the deals it completed, and each as told with names
    next: str  # who deals and leads next, what the deal waits for, or the end
    over: bool  # the game has ended or was abandoned
    open_deal: int | None  # a deal played without its result, waiting for its tricks
    notices: tuple[Notice, ...] = ()
    vulnerable: Mapping[str, bool] = msgspec.field(default_factory=dict)  # a rubber's sides
    cells: CellNames = PLAYER_CELLS  # how a document names the writes' cells


def told_doc(told: Told) -> dict[str, Any]:
    """The JSON document of what a command did (``--json``; docs/event-log.md)."""
    doc: dict[str, Any] = {
        "game": told.game,
        "events": [{"number": e.number, **event_to_dict(e.event)} for e in told.events],
        "writes": [{**told.cells.doc(w.cell), **exact_fields("amount", w.amount)} for w in told.writes],
    }
    if told.kind == "rubber":
        doc["verdicts"] = [{"number": v.number, "effective": v.effect.effective, "rule": v.effect.rule,
                            "reason": spoken_text(v.effect.reason)} for v in told.verdicts]
        doc["vulnerable"] = dict(told.vulnerable)
        return {**doc, "next": told.next, "over": told.over}
    doc["verdicts"] = [{"number": v.number, "kind": v.kind, "effective": v.effect.effective, "rule": v.effect.rule,
                        "reason": spoken_text(v.effect.reason), "new": v.new} for v in told.verdicts]
    doc["deals"] = [{"deal": k, "line": story} for k, story in told.deals]
    return {**doc, "next": told.next, "over": told.over, "open_deal": told.open_deal}


def verdict_kind(event: AnyEvent, effect: Effect) -> str:
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
            out.append(Verdict(number, effect, verdict_kind(state.events[number - 1], effect), new))
    return out


def next_text(state: GameState) -> str:
    if state.abandoned_at is not None:
        return _("the pulka was abandoned; `pulka settle` settles it")
    if state.finished:
        return _("the pulka has ended; `pulka settle` settles it")
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        return _("next: {deal}").format(deal=next_deal_text(state))
    if deal.phase == "play":
        return _("deal {deal} waits for its tricks").format(deal=deal.number)
    return _("deal {deal} waits for {what}").format(deal=deal.number, what=waiting_for(state, deal))


def left_open(state: GameState) -> DealState | None:
    """The current deal when it was played and waits for its result."""
    deal = state.current
    if deal is not None and deal.annulled_at is None and deal.phase == "play":
        return deal
    return None


def told(outcome: Outcome[GameState], notices: Iterable[Notice] = ()) -> Told:
    """What a pulka's recording command did, from its ``Outcome``."""
    state = outcome.state
    first = outcome.stored[0].number if outcome.stored else state.folded + 1
    delta = changes(outcome.totals_before, totals(state.sheet())) if outcome.totals_before else {}
    opened = left_open(state)
    return Told(
        kind="pulka",
        game=outcome.game,
        events=tuple(ToldEvent(s.number, s.event, describe(s.event)) for s in outcome.stored),
        writes=tuple(ToldWrite(c, v, cell_text(c)) for c, v in delta.items()),
        verdicts=tuple(verdicts_of(state, first, outcome.effects_before)),
        deals=tuple(completed(outcome)),
        next=next_text(state),
        over=state.over,
        open_deal=opened.number if opened is not None else None,
        notices=tuple(notices),
    )


def completed(outcome: Outcome[GameState]) -> Iterator[tuple[int, str]]:
    """The deals whose play the command recorded and which are over now, each as told."""
    state: GameState = outcome.state
    done = sorted({s.event.deal for s in outcome.stored if s.event.deal and play_of(state, s.event)})
    for k in done:
        deal = state.deals[k - 1] if 0 < k <= len(state.deals) else None
        if deal is not None and (deal.resolved or deal.annulled_at is not None):
            yield k, deal_story(state, deal)


def forgotten(state: GameState) -> Notice | None:
    """A deal played and left without its result, once the deal after it has begun: its
    tricks may still be recorded late until the bidding of the next deal ends
    [Code 4.2.10]."""
    waiting = left_open(state)
    if waiting is None:
        return None
    return Notice("4.2.10", _("deal {deal} was played but its result is not recorded: record its tricks before the "
                              "bidding of deal {next} ends, or they are lost").format(
                                  deal=waiting.number, next=waiting.number + 1))


def left_behind(state: GameState) -> Notice | None:
    """The deal that ``--leave-open`` left without its result: the one before the
    current deal, played and not annulled [Code 4.2.10]."""
    for deal in state.deals[:-1]:
        if deal.annulled_at is None and deal.phase == "play" and deal.number == state.current_deal_number - 1:
            return Notice("4.2.10", _("deal {deal} is left without its result; its tricks may still be recorded "
                                      "late (pulka tricks --deal {deal} NAME=N …) until the bidding of deal {next} "
                                      "ends").format(deal=deal.number, next=deal.number + 1))
    return None


def table_checked(
    state: GameState, events: Iterable[AnyEvent], *, leave_open: bool = False, again: bool = True
) -> Iterator[AnyEvent]:
    """The events of a table command, refused when a bid would start a new deal while
    the deal before it waits for its result (unless ``leave_open``), and, when the
    command is a deal line (``again`` False), when the deal it records is the deal
    before it again, its players named (``the_deal``)."""
    before = state.current
    for event in events:
        if isinstance(event, Bid) and state.in_auction is None and not leave_open:
            waiting = left_open(state)
            if waiting is not None:
                raise Refused(
                    "4.2.10",
                    _("deal {deal} was played but its result is not recorded; once the bidding of deal {next} "
                      "ends, its tricks cannot be added any more").format(deal=waiting.number, next=waiting.number + 1),
                    _("its tricks first (pulka tricks NAME=N …), or --leave-open to go on without them"),
                )
        yield event
    current = state.current
    if again or current is None or current is before or len(state.deals) < 2:
        return
    previous = state.deals[-2]
    if previous.annulled_at is None and current.annulled_at is None \
            and the_deal(state, previous) == the_deal(state, current):
        raise TypedTwice(previous.number, deal_story(state, current))


def the_deal(state: GameState, deal: DealState) -> tuple[tuple[tuple[str, str], ...], ...]:
    """A deal as one deal is told from another: who bid, declared, called and took what
    (the auction's bids in any order: an outcome's implied auction begins where the deal
    does), its players named."""
    return tuple(tuple(sorted(section)) for section in line_sections(state, deal))


class TypedTwice(Refused):
    """A deal line that records the deal before it again, the same players, contract and
    tricks: taken for a line typed twice unless the scorer says it was played again."""

    def __init__(self, deal: int, story: str) -> None:
        super().__init__(
            "command-line",
            _("this is deal {deal} again, the same players, contract and tricks ({story}): typed twice?").format(
                deal=deal, story=story),
            _("--again when the same deal really was played again"),
            field="again",
        )
        self.deal = deal


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


# -- a deal line cut short, retyped, or read in the wrong order --------------------------------------


def cut_short(state: GameState, line: str) -> None:
    """A deal line that stops before its deal's result is refused: a slip of the Enter key
    looks the same as a deal recorded in parts (``--leave-open`` records it so)."""
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        return
    raise Refused(
        "command-line",
        _("the line stops before the result of deal {deal}, which waits for {what}: cut short?").format(
            deal=deal.number, what=waiting_for(state, deal)),
        _("the whole deal on one line, or --leave-open to record it as far as it goes"),
        field="line",
    )


class Begun(msgspec.Struct, frozen=True):
    """A deal recorded in part before a line: its number, where ``undo`` would begin, the
    last event, and the deal as its line so far."""

    deal: int
    first: int
    last: int
    line: str


def begun(state: GameState) -> Begun | None:
    """The deal recorded in part, waiting for more (a call, a contract, its tricks), that a
    line typed now would follow."""
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved or not deal.bids:
        return None
    return Begun(deal.number, undo_from(state), state.folded, deal_line(state, deal))


def retyped(refused: Refused, before: Begun) -> Refused:
    """A line refused after a deal was begun in part: perhaps that deal typed whole again,
    which ``undo`` makes room for."""
    span = (_("event {event}").format(event=before.first) if before.first == before.last else
            _("events {first}-{last}").format(first=before.first, last=before.last))
    return Refused(
        refused.rule,
        _("{reason}; deal {deal} was begun before this line ({line}, {span})").format(
            reason=refused.reason, deal=before.deal, line=before.line, span=span),
        f"{refused.allowed + '; ' if refused.allowed else ''}"
        + _("if this line is deal {deal} typed whole again: undo first (it takes back {span}), then the line").format(
            deal=before.deal, span=span),
        field=refused.field,
    )


class Doubt(msgspec.Struct, frozen=True):
    """A line whose trick counts, read in its order and in the other order, write two
    different sheets [Code 4.2.1]: a slip of the order cannot be told from what was meant,
    and once the next deal is recorded it is costly to put right [Code 4.2.9]. The deal,
    the counts as typed and why they are asked about, the tricks as the line's order reads
    them (``typed``) and as the other order does (``reading``), how each takes the counts,
    what each writes on the sheet, the line with the tricks named as the other reading
    gives them (``line``), and the line with the declarer's count marked as each reading
    has it (``typed_line``, ``other_line``), which is read one way only."""

    deal: int
    reason: str
    typed: Mapping[str, int]
    reading: Mapping[str, int]
    read_as: str  # how the line's counts were read: "from the forehand (Boris first)", "declarer first"
    other: str  # how the other reading takes them
    line: str  # the line, the tricks named as the other reading gives them
    typed_writes: tuple[ToldWrite, ...] = ()
    other_writes: tuple[ToldWrite, ...] = ()
    typed_line: str = ""
    other_line: str = ""


class Doubtful(Refused):
    """A deal line not stored until the scorer says which reading he meant (``confirmed``:
    as typed): the ``Doubt`` gives both, side by side."""

    def __init__(self, doubt: Doubt) -> None:
        super().__init__(
            "command-line",
            _("deal {deal}: {reason}: as typed ({read_as}) {typed}, writing {writes}; {other} {reading}, writing "
              "{other_writes}; which was meant?").format(deal=doubt.deal, reason=doubt.reason, read_as=doubt.read_as,
                               typed=tricks_text(doubt.typed), writes=writes_said(doubt.typed_writes),
                               other=doubt.other, reading=tricks_text(doubt.reading),
                               other_writes=writes_said(doubt.other_writes)),
            _("the declarer's count marked, as typed {typed_line} or as the other reading {other_line}; or --yes to "
              "store the line as typed").format(typed_line=repr(doubt.typed_line), other_line=repr(doubt.other_line)),
            field="line",
        )
        self.doubt = doubt


def tricks_text(tricks: Mapping[str, int]) -> str:
    """``Vera 8, Anna 1, Boris 1``."""
    return ", ".join(f"{p} {t}" for p, t in tricks.items())


def writes_said(writes: Iterable[ToldWrite]) -> str:
    """``Vera pulya +4, Anna whists on Vera +2``; ``nothing written``."""
    said = [f"{w.text} {signed(w.amount)}" for w in writes]
    return ", ".join(said) if said else _("nothing written")


def doubt_of(state: GameState, read: TricksReading, line: str, before: Mapping[Cell, Fraction]) -> Doubt | None:
    """The question a line's tricks raise, or None. Counts typed by position are read in
    the line's order (declarer first in the outcome, from the forehand in the whole deal);
    typed in the other order by a slip, they are read for the wrong players, and nothing
    in the result tells the slip from a deal that went so. So the line is asked about
    whenever the other order gives other tricks that write another sheet: on any result
    (made, failed, a misère) and any seat of the declarer. It is never asked about when
    the two readings give the same sheet (the declarer leads, or the counts so fall), nor
    when the line reads one way only: the tricks named, the declarer's count marked, a
    raspasy (from the forehand in every form), a misère's one count. ``before``: the
    sheet's totals before the line."""
    if read.order not in ("forehand", "declarer") or read.deal is None or read.other == read.seats:
        return None
    deal = state.deals[read.deal - 1]
    declarer = deal.declarer
    assert declarer is not None  # only a declarer's line reads two ways
    who = deal.persons
    typed = {who[s]: t for s, t in zip(read.seats, read.counts)}
    reading = {who[s]: t for s, t in zip(read.other, read.counts)}
    if typed == reading:
        return None
    number = state.folded
    event = state.events[number - 1]
    assert isinstance(event, Tricks) and event.deal == read.deal
    as_typed = totals(state.sheet())
    otherwise = sheet_with(state, number, msgspec.structs.replace(event, tricks=reading))
    if as_typed == otherwise:
        return None
    forehand = _("from the forehand, {player} first").format(player=who[deal.bidders[0]])
    first = _("declarer first")
    read_as, other = (forehand, first) if read.order == "forehand" else (first, forehand)
    head = line.rstrip().rsplit(None, read.words)[0]
    counts = [str(t) for t in read.counts]
    return Doubt(
        deal=read.deal, reason=_("the counts {counts} read two ways write two sheets").format(counts=" ".join(counts)),
        typed=typed, reading=reading,
        read_as=read_as, other=_("read {order}").format(order=other),
        line=f"{head} {' '.join(f'{p}={t}' for p, t in reading.items())}",
        typed_writes=_writes(before, as_typed), other_writes=_writes(before, otherwise),
        typed_line=f"{head} {_marked(counts, read.seats.index(declarer))}",
        other_line=f"{head} {_marked(counts, read.other.index(declarer))}",
    )


def sheet_with(state: GameState, number: int, tricks: Tricks) -> dict[Cell, Fraction]:
    """The sheet's totals had event ``number``, the last, been ``tricks``: the game folded
    again from its deal with it (the fork a correction is judged on), then as it was."""
    with state.rewound(tricks.deal or 0, {number: tricks}) as fork:
        for i in range(fork.folded + 1, number + 1):
            fork.replay_recorded(i)
        return totals(fork.sheet())


def _writes(before: Mapping[Cell, Fraction], after: Mapping[Cell, Fraction]) -> tuple[ToldWrite, ...]:
    return tuple(ToldWrite(c, v, cell_text(c)) for c, v in changes(dict(before), dict(after)).items())


def _marked(counts: list[str], at: int) -> str:
    return " ".join(c + MARK if i == at else c for i, c in enumerate(counts))
