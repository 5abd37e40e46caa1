"""The deals of generated evenings typed as a scorer types them, through every door
(issue 32): the measure of deal lines that cannot be misread.

An evening is a legal pulka of ``strategies.legal_logs`` (three or four players, any
convention; its players renamed in Russian in some, so that a name may begin with a word
of the table: ``в`` is a whist and Вера, ``п`` a pass and Петя). Each deal that a line can
say (its auction, contract, calls and tricks, nothing else in between) is typed in the
forms the README gives: the whole deal (with its contract, and without it when it is the
last bid), the outcome (after its auction, or alone when the auction is the one an
outcome stands for; raspasy and misère short), the tricks named, the declarer's count
marked, the table's short and Russian words, the names abbreviated; and each form with
counts by position is typed again with a slip of the trick order: the counts in the
other order (declarer first in the whole deal, from the forehand in the outcome).

What a scorer meant is known here from the log, never from the ledger: whose tricks the
counts are in either order is worked out from the auction (the forehand bids first,
the players of the deal in turn, the whisting dealer in the place of the hand he plays
[Code 3.8.8]); whether the two readings of a line write the same sheet is asked of the
independent scorer (``independent_scorer``), on the log with each reading's tricks.

``Tally`` counts what every line did. A line typed right is stored with the sheet the
deal writes, or asked about, only where its two readings write two sheets (else a false
alarm); asked, each reading is the one expected, and the line as typed gives the deal's
sheet. A slip is asked about, and its other reading gives the deal's sheet; or, where
its two readings write one sheet, it is stored with the deal's sheet. A slip stored with
another sheet, nobody asked, is a silent slip. No form is refused.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from click.testing import CliRunner
from hypothesis import strategies as st

from cli.main import main
from independent_scorer import score
from ledger.application import Command, Ledger, Outcome
from ledger.desks.pulka import PulkaDesk
from ledger.desks.told import Doubt, Doubtful, Told, told
from ledger.judge.judging import judge_events
from ledger.judge.kinds import PULKA, judge_log
from ledger.store.event_store import Store
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, GameStarted, Talon, Tricks
from ledger.vocabulary.refusal import Refused
from ledger.words.deal_line import deal_events, is_table_word
from projections.deal_text import PLAY, line_sections
from projections.game import GameState, replay
from projections.sheet import totals
from projections.trail import changes
from strategies import legal_logs

RUSSIAN = {"Anna": "Анна", "Boris": "Петя", "Vera": "Вера", "Gleb": "Гоша"}
# The table's words as a scorer may type them instead of the log's.
SHORT = {"pass": ("p", "-", "пас", "п"), "whist": ("w", "вист", "в"), "half_whist": ("hw", "полвиста", "пв"),
         "misere": ("miz", "мизер", "миз"), "here": ("здесь",)}
SUITS = {"S": ("♠", "s", "п", "пик"), "C": ("♣", "c", "т", "к"), "D": ("♦", "d", "б"), "H": ("♥", "h", "ч"),
         "NT": ("nt", "бк")}
Writes = dict[tuple[str, str, str | None], Any]


# -- the evenings ---------------------------------------------------------------------------------


def renamed(events: list[AnyEvent], names: dict[str, str]) -> list[AnyEvent]:
    """The log with its players' names changed, wherever a name stands (a field's value,
    a key of the tricks, an item of a list)."""

    def change(value: Any) -> Any:
        if isinstance(value, str):
            return names.get(value, value)
        if isinstance(value, (list, tuple)):
            return [change(v) for v in value]
        if isinstance(value, dict):
            return {names.get(k, k): change(v) for k, v in value.items()}
        return value

    return [msgspec.convert(change(msgspec.to_builtins(e)), type(e)) for e in events]


@st.composite
def evenings(draw: Any) -> list[AnyEvent]:
    """A generated pulka, its names Russian in about a quarter of them."""
    log = draw(legal_logs(max_deals=draw(st.integers(3, 8))))
    return renamed(log, RUSSIAN) if draw(st.integers(0, 3)) == 0 else log


def evening_of(players: tuple[str, ...], first_dealer: str, lines: list[str]) -> list[AnyEvent]:
    """An evening written as deal lines (their tricks named), judged as a log is."""
    clock = lambda: "2026-11-30T20:00:00+00:00"  # noqa: E731
    started = judge_log([(1, GameStarted(game="evening", players=players, pulya=20, first_dealer=first_dealer))],
                        clock)[0]
    assert isinstance(started, GameStarted)
    state = GameState.start(started)
    log: list[AnyEvent] = [started]
    for text in lines:
        log += judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, text)), clock)
    return log


# Every result at every seat, whatever the draws: misères (their counts all given), failed
# and made contracts, the declarer second and third from the forehand; four players, the
# dealer whisting with a passer's cards [Code 3.8.8] and his talon tricks on raspasy.
EVERY_SEAT = [
    evening_of(("Anna", "Boris", "Vera"), "Anna", [  # Boris leads the first deal
        "pass misere pass | misere | Boris=5 Vera=1 Anna=4",  # Vera's misère failed, second from the forehand
        "pass pass misere | misere | Vera=4 Anna=6 Boris=0",  # Boris's made, third
        "pass pass 7H | 7H | whist whist | Anna=4 Boris=3 Vera=3",  # Vera's seven, four down, third
        "pass 6S pass | 6S | whist pass | Boris=2 Vera=6 Anna=2",  # Vera's six made, second
        "pass 8D pass | 8D | whist whist | Vera=1 Anna=6 Boris=3",  # Anna's eight, two down, second
    ]),
    evening_of(("Anna", "Boris", "Vera", "Gleb"), "Gleb", [  # Anna leads, Gleb sits out
        "pass 6S pass | 6S | pass half_whist pass whist@Vera | Boris=5 Gleb=3 Anna=2",
        "pass pass pass | Boris=3 Vera=4 Gleb=2 Anna=1",  # Anna deals: her talon trick
        "pass pass 7C | 7C | whist pass | Vera=1 Gleb=2 Anna=7",  # Boris deals: Anna third
    ]),
]


# -- a deal as the log has it ---------------------------------------------------------------------


@dataclass
class Deal:
    """A deal a line can say: its events, where they stand in the log, and what a scorer
    knows of it (the players of the deal from the forehand, the declarer, the tricks)."""

    number: int
    first: int  # the index in the log of its first event
    events: list[AnyEvent]
    sections: list[list[tuple[str, str]]]  # its line's sections, (player, word)
    raspasy: bool
    declarer: str | None
    forehand: list[str]  # whose counts, from the forehand (the dealer in his hand's place)
    tricks: dict[str, int] | None
    implied: bool  # its auction is the one an outcome without bids stands for

    @property
    def declarer_first(self) -> list[str]:
        """Whose counts, the declarer first and round the table [Code 3.8.1]."""
        if self.declarer is None or self.declarer not in self.forehand:
            return self.forehand
        at = self.forehand.index(self.declarer)
        return self.forehand[at:] + self.forehand[:at]

    @property
    def result(self) -> str:
        """What the deal was for its declarer: made, failed, misère, or raspasy."""
        if self.declarer is None:
            return "raspasy"
        contract = self.sections[1][0][1]
        if contract.startswith("misere"):
            return "misère"
        needed = int(contract[:2] if contract.startswith("10") else contract[:1])
        return "made" if (self.tricks or {}).get(self.declarer, needed) >= needed else "failed"

    @property
    def seat(self) -> int:
        """The declarer's place from the forehand (0: he leads)."""
        return self.forehand.index(self.declarer) if self.declarer in self.forehand else 0

    def counts(self, order: list[str]) -> list[int]:
        assert self.tricks is not None
        return [self.tricks[p] for p in order if p in self.tricks]

    def read(self, order: list[str], counts: list[int]) -> dict[str, int]:
        """The tricks ``counts`` give read for the players of ``order`` who have any."""
        assert self.tricks is not None
        return dict(zip([p for p in order if p in self.tricks], counts))


def deals_of(log: list[AnyEvent]) -> Iterator[Deal]:
    """The deals of the log a line can say: nothing but bids, one contract, calls and the
    tricks (without penalty tricks), one after another, the deal over."""
    state = replay(log)
    k = 0
    while k < len(log):
        event = log[k]
        number = event.deal if isinstance(event, (Bid, Contract, Defence, Tricks)) else None
        if not isinstance(event, Bid) or number is None or number > len(state.deals):
            k += 1
            continue
        end = k
        while end < len(log) and isinstance(log[end], (Bid, Contract, Defence, Tricks)) and log[end].deal == number:
            end += 1
        events = log[k:end]
        deal = state.deals[number - 1]
        own = [e for e in log if isinstance(e, PLAY + (Talon,)) and e.deal == number]
        if own == events and deal.resolved and deal.annulled_at is None and deal.ruling is None \
                and sum(isinstance(e, Contract) for e in events) <= 1 \
                and not any(isinstance(e, Tricks) and e.penalty_tricks for e in events):
            yield _deal(state, number, k, events)
        k = end


def _deal(state: GameState, number: int, first: int, events: list[AnyEvent]) -> Deal:
    bids = [e for e in events if isinstance(e, Bid)]
    bidders = list(dict.fromkeys(b.player for b in bids))  # in turn, from the forehand
    taker = next((e.player for e in events if isinstance(e, Contract)), None)
    if taker is not None and taker not in bidders:
        bidders.append(taker)  # the third hand who took the talon without bidding [Code 3.3.15]
    dealer = state.deals[number - 1].persons[state.deals[number - 1].dealer]
    hands = {e.hand: e.player for e in events if isinstance(e, Defence) and e.hand}
    forehand = [hands.get(p, p) for p in bidders]
    tricks = next((dict(e.tricks) for e in events if isinstance(e, Tricks)), None)
    contract = next((e for e in events if isinstance(e, Contract)), None)
    raspasy = contract is None
    if raspasy and tricks is not None and dealer in tricks and dealer not in forehand:
        forehand.append(dealer)  # the sitting-out dealer's talon tricks, last
    declarer = contract.player if contract is not None else None
    implied = not any(b.dark for b in bids) if raspasy else not any(b.dark for b in bids) and all(
        (b.bid == "pass") == (b.player != declarer) for b in bids) and sum(b.player == declarer for b in bids) == 1
    if implied and contract is not None and not raspasy:
        said = next(b.bid for b in bids if b.player == declarer)
        implied = said == contract.contract or (said != "misere" and not state.rules.jump_bids)
    return Deal(number, first, events, line_sections(state, state.deals[number - 1], events), raspasy,
                declarer, forehand, tricks, implied)


# -- the lines a scorer types ---------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A line of a deal: its form, the text, and how its counts are meant (``meant``: the
    tricks the scorer meant, which the line's own order reads when it is typed right;
    ``other``: what the other order reads; None where the counts read one way)."""

    form: str
    text: str
    slip: bool
    meant: dict[str, int] | None = None
    kind: tuple[str, int] = ("", 0)  # the deal's result, and its declarer's place from the forehand
    typed: dict[str, int] | None = None  # what the line's own order reads (the slip's misreading)
    other: dict[str, int] | None = None


def words(section: list[tuple[str, str]]) -> list[str]:
    return [w for _who, w in section]


def lines_of(deal: Deal, rnd: random.Random) -> list[Line]:
    """Every form of the deal, and each form with counts by position typed in the other
    order."""
    out: list[Line] = []
    bids = words(deal.sections[0])
    rest = [words(s) for s in deal.sections[1:]]
    if deal.raspasy:
        named = [f"{p}={t}" for p, t in (deal.tricks or {}).items()]
        out += _positional(deal, "whole", lambda c: " | ".join([" ".join(bids), " ".join(c)]), "forehand")
        if not deal.implied:
            return out  # dark passes: the whole deal says them, "rasp" is everyone's plain pass
        out += _positional(deal, "rasp", lambda c: " ".join(["rasp", *c]), "forehand")
        out.append(Line("named", " ".join(["rasp", *rnd.sample(named, len(named))]), False))
        out += _positional(deal, "russian", lambda c: " ".join([rnd.choice(("расп", "распасы")), *c]),
                           "forehand")
        return out
    assert deal.declarer is not None
    contract = rest[0]
    calls = rest[1] if any(isinstance(e, Defence) for e in deal.events) else []
    head = " | ".join([" ".join(bids), " ".join(contract)] + ([" ".join(calls)] if calls else []))
    last_bid = next((w for who, w in reversed(deal.sections[0]) if who == deal.declarer), None)
    if deal.tricks is None:
        out.append(Line("whole", head, False))
        out.append(Line("outcome", _outcome(deal, bids, contract, calls, deal.declarer, []), False))
        return out
    out += _positional(deal, "whole", lambda c: f"{head} | {' '.join(c)}", "forehand")
    if last_bid is not None and last_bid == contract[0]:
        short = " | ".join([" ".join(bids)] + ([" ".join(calls)] if calls else []))
        out += _positional(deal, "whole, contract left out", lambda c: f"{short} | {' '.join(c)}", "forehand")
    out += _positional(deal, "outcome", lambda c: _outcome(deal, bids, contract, calls, deal.declarer, c), "declarer")
    named = [f"{p}={t}" for p, t in deal.tricks.items()]
    out.append(Line("named", _outcome(deal, bids, contract, calls, deal.declarer, rnd.sample(named, len(named))),
                    False))
    counts = [str(t) for t in deal.counts(deal.declarer_first)]
    if counts:
        marked = [counts[0] + "*", *counts[1:]]
        out.append(Line("marked", _outcome(deal, bids, contract, calls, deal.declarer, marked), False))
    short_name = abbreviation(deal.declarer, [p for p in deal.forehand] + [deal.declarer], rnd)
    out += _positional(deal, "abbreviated", lambda c: _outcome(deal, [table_word(w, rnd) for w in bids], [
        table_word(w, rnd) for w in contract], [table_word(w, rnd) for w in calls], short_name, c), "declarer")
    out += _positional(deal, "russian", lambda c: " | ".join(
        [" ".join(table_word(w, rnd) for w in bids), " ".join(table_word(w, rnd) for w in contract)]
        + ([" ".join(table_word(w, rnd) for w in calls)] if calls else []) + [" ".join(c)]), "forehand")
    return out


def _outcome(deal: Deal, bids: list[str], contract: list[str], calls: list[str], name: str, counts: list[str]) -> str:
    said = " ".join([name, *contract, *calls, *counts])
    return said if deal.implied else f"{' '.join(bids)} | {said}"


def _positional(deal: Deal, form: str, make: Callable[[list[str]], str], order: str) -> list[Line]:
    """The form with counts by position in its own order, and with the slip of the other
    order (where the two orders differ)."""
    own, other = (deal.forehand, deal.declarer_first) if order == "forehand" else (deal.declarer_first,
                                                                                  deal.forehand)
    assert deal.tricks is not None
    right, slipped = deal.counts(own), deal.counts(other)
    kind = (deal.result, deal.seat)
    out = [Line(form, make([str(t) for t in right]), False, deal.tricks, kind, deal.read(own, right),
                deal.read(other, right))]
    if deal.declarer is not None and deal.read(own, slipped) != deal.tricks:
        out.append(Line(form, make([str(t) for t in slipped]), True, deal.tricks, kind, deal.read(own, slipped),
                        deal.tricks))
    return out


def table_word(word: str, rnd: random.Random) -> str:
    """A canonical word of the log as a scorer may type it (``pass`` as ``п``, ``6S`` as
    ``6♠``), its marks kept."""
    head, colon, mark = word.partition(":")
    if head in SHORT:
        head = rnd.choice((head, *SHORT[head]))
    elif head[:1].isdigit():
        level, suit = (head[:2], head[2:]) if head.startswith("10") else (head[:1], head[1:])
        head = level + rnd.choice((suit, *SUITS[suit]))
    return head + colon + mark


def abbreviation(name: str, players: list[str], rnd: random.Random) -> str:
    """The shortest beginning of ``name`` that no other player's begins with (a word of
    the table too, now and then: ``в`` for Вера), or the name."""
    for n in range(1, len(name) + 1):
        short = name[:n]
        if not any(p != name and p.casefold().startswith(short.casefold()) for p in players):
            return short if not is_table_word(short) or rnd.random() < 0.5 else name[:n + 1] or name
    return name


# -- what the doors did ---------------------------------------------------------------------------


@dataclass
class Tally:
    """What the lines typed did, door by door."""

    lines: int = 0  # lines typed right
    asked: int = 0  # of them asked about, their two readings writing two sheets
    slips: int = 0
    slips_asked: int = 0
    slips_same_sheet: int = 0  # stored: the two readings write one sheet
    silent: list[str] = field(default_factory=list)  # slips stored with another sheet, nobody asked
    false_alarms: list[str] = field(default_factory=list)  # questions where the readings write one sheet
    wrong: list[str] = field(default_factory=list)  # a reading offered, or a sheet stored, not the expected one
    refused: list[str] = field(default_factory=list)  # a form refused
    doors: Counter[str] = field(default_factory=Counter)
    forms: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)  # the slips asked, by result and the declarer's place

    def report(self) -> str:
        asked = self.asked + self.slips_asked
        return (f"{self.lines} lines typed right ({self.asked} asked: two readings, two sheets), {self.slips} slips "
                f"of the trick order ({self.slips_asked} asked, {self.slips_same_sheet} stored with the same sheet); "
                f"silent slips {len(self.silent)} ({rate(len(self.silent), self.slips)}), false alarms "
                f"{len(self.false_alarms)} of {asked} questions ({rate(len(self.false_alarms), asked)}); "
                f"slips asked by result and the declarer's place from the forehand: {dict(sorted(self.kinds.items()))}; "
                f"doors: {dict(sorted(self.doors.items()))}")

    def faults(self) -> list[str]:
        return self.silent + self.false_alarms + self.wrong + self.refused

    def add(self, other: Tally) -> None:
        """Count an evening's lines in."""
        for name in ("lines", "asked", "slips", "slips_asked", "slips_same_sheet"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("silent", "false_alarms", "wrong", "refused"):
            getattr(self, name).extend(getattr(other, name))
        self.doors.update(other.doors)
        self.forms.update(other.forms)
        self.kinds.update(other.kinds)


def rate(n: int, of: int) -> str:
    return f"{100 * n / of:.1f}%" if of else "-"


@dataclass(frozen=True)
class Said:
    """What a door did with a line: asked (the readings it offered), stored (the writes),
    or refused."""

    doubt: Doubt | None = None
    writes: Writes | None = None
    refused: str | None = None


def judge_line(tally: Tally, door: str, line: Line, said: Said, truth: Writes, two_sheets: bool,
               confirm: Callable[[str, bool], Writes] | None) -> None:
    """Count what a door did with ``line``: ``truth`` is what the deal writes, ``two_sheets``
    whether the line's two readings write two sheets; ``confirm(text, as_typed)`` stores
    the answer to a question (the line as typed, or the other reading's)."""
    where = f"{door}, {line.form}{' (slip)' if line.slip else ''}: {line.text!r}"
    tally.doors[door] += 1
    tally.forms[line.form] += 1
    if line.slip:
        tally.slips += 1
    else:
        tally.lines += 1
    if said.refused is not None:
        tally.refused.append(f"{where}: {said.refused}")
        return
    if said.doubt is None:
        assert said.writes is not None
        if said.writes == truth:
            tally.slips_same_sheet += line.slip
            return
        (tally.silent if line.slip and two_sheets else tally.wrong).append(f"{where}: wrote {said.writes}, not {truth}")
        return
    tally.slips_asked += line.slip
    tally.asked += not line.slip
    if line.slip:
        tally.kinds[f"{line.kind[0]} {line.kind[1] + 1}"] += 1
    if not two_sheets:
        tally.false_alarms.append(f"{where}: asked, though both readings write {truth}")
    doubt = said.doubt
    if (dict(doubt.typed), dict(doubt.reading)) != (line.typed, line.other):
        tally.wrong.append(f"{where}: offered {dict(doubt.typed)} or {dict(doubt.reading)}, not {line.typed} or "
                           f"{line.other}")
        return
    if confirm is not None:
        answered = confirm(line.text if not line.slip else doubt.line, not line.slip)
        if answered != truth:
            tally.wrong.append(f"{where}: the reading meant wrote {answered}, not {truth}")


# -- the desk -------------------------------------------------------------------------------------


class Looking(Ledger):
    """A ledger that judges and folds what a command would record, by the same judge and
    projection, and stores nothing: every line of a deal is typed at the desk on the game
    as it stands before the deal."""

    def execute(self, game: str, command: Command[Any], expected: int | None = None, *, kind: Any = None,
                kept: Any = None) -> Outcome[Any]:
        return self.preview(game, command, kind=kind)


def raw(events: list[AnyEvent]) -> list[AnyEvent]:
    """Judged events to be judged again: without their times (the store's clock stamps
    them)."""
    return [msgspec.structs.replace(e, at=None) for e in events]


def writes_of(result: Told) -> Writes:
    return {w.cell: w.amount for w in result.writes}


def at_desk(desk: PulkaDesk, game: str, text: str, confirmed: bool = False) -> Said:
    try:
        return Said(writes=writes_of(desk.deal(game, text, again=True, confirmed=confirmed)))
    except Doubtful as exc:
        return Said(doubt=exc.doubt)
    except Refused as exc:
        return Said(refused=str(exc))


def two_sheets(log: list[AnyEvent], deal: Deal, a: dict[str, int], b: dict[str, int]) -> bool:
    """Whether the deal with tricks ``a`` and with ``b`` write two sheets, by the
    independent scorer."""
    if a == b:
        return False
    end = deal.first + len(deal.events)

    def with_tricks(tricks: dict[str, int]) -> list[AnyEvent]:
        return [*log[:deal.first], *(msgspec.structs.replace(e, tricks=tricks) if isinstance(e, Tricks) else e
                                     for e in log[deal.first:end])]

    return score(with_tricks(a)).cells != score(with_tricks(b)).cells


def evening_at_desk(store: Any, log: list[AnyEvent], tally: Tally, rnd: random.Random,
                    doors: Doors | None = None) -> None:
    """Type every deal of the evening at the desk, in every form and with every slip, on
    the game as it stands before the deal; then record the deal as the log has it and go
    on. ``doors``: the other doors too, for the first deal whose counts read two ways (a
    line typed right, a slip, and a form drawn from the others)."""
    start = log[0]
    assert isinstance(start, GameStarted)
    ledger = Ledger(store)
    ledger.create(msgspec.structs.replace(start, at=None))
    looking = PulkaDesk(Looking(store))
    done = 1
    for deal in deals_of(log):
        if deal.first > done:
            ledger.execute(start.game, lambda s, e=raw(log[done:deal.first]): e, kind=PULKA)
        truth = writes_of(told(Looking(store).execute(start.game, lambda s, e=raw(deal.events): e, kind=PULKA)))
        lines = lines_of(deal, rnd)
        two = [line.other is not None and two_sheets(log, deal, line.typed or {}, line.other) for line in lines]
        for i, line in enumerate(lines):
            said = at_desk(looking, start.game, line.text)

            def confirm(text: str, as_typed: bool) -> Writes:
                again = at_desk(looking, start.game, text, confirmed=as_typed)
                return again.writes if again.writes is not None else {"not stored": again.refused or "asked again"}

            judge_line(tally, "desk", line, said, truth, two[i], confirm)
        if doors is not None and any(line.slip for line in lines):
            chosen = [next(i for i, x in enumerate(lines) if not x.slip and two[i]),
                      next(i for i, x in enumerate(lines) if x.slip), rnd.randrange(len(lines))]
            for door in ("pulka deal", "pulka play", "the api"):
                for i in chosen:
                    doors.type(door, log, deal, lines[i], truth, two[i], tally)
            doors = None
        ledger.execute(start.game, lambda s, e=raw(deal.events): e, kind=PULKA)
        done = deal.first + len(deal.events)


# -- the other doors: the command line, the session, the service -----------------------------------


class Doors:
    """``pulka deal``, ``pulka play`` and the service's API on one store, each line typed
    on a copy of the game as it stood before its deal (``game_before``)."""

    def __init__(self, db: str, client: Any, headers: dict[str, str]) -> None:
        self.db, self.client, self.headers = db, client, headers
        self.ledger = Ledger(Store(db))
        self.games = 0

    def game_before(self, log: list[AnyEvent], deal: Deal) -> str:
        start = log[0]
        assert isinstance(start, GameStarted)
        self.games += 1
        name = f"door-{self.games}"
        self.ledger.create(msgspec.structs.replace(start, game=name, at=None))
        if deal.first > 1:
            self.ledger.execute(name, lambda s, e=raw(log[1:deal.first]): e, kind=PULKA)
        return name

    def sheet(self, game: str) -> dict[Any, Any]:
        return totals(self.ledger.state(game).sheet())

    def stored(self, game: str, before: dict[Any, Any]) -> Writes:
        return dict(changes(before, self.sheet(game)))

    def type(self, door: str, log: list[AnyEvent], deal: Deal, line: Line, truth: Writes, two: bool,
             tally: Tally) -> None:
        game = self.game_before(log, deal)
        said = getattr(self, door.replace(" ", "_"))(game, line.text, False)
        if said.doubt is not None or said.refused is not None:
            confirm = lambda text, as_typed: self.retyped(door, log, deal, text, as_typed)  # noqa: E731
        else:
            confirm = None
        judge_line(tally, door, line, said, truth, two, confirm)

    def retyped(self, door: str, log: list[AnyEvent], deal: Deal, text: str, as_typed: bool) -> Writes:
        """The answer to a question, on a fresh copy of the game before the deal."""
        game = self.game_before(log, deal)
        said = getattr(self, door.replace(" ", "_"))(game, text, as_typed)
        return said.writes if said.writes is not None else {"not stored": said.refused or "asked again"}

    def pulka_deal(self, game: str, text: str, yes: bool) -> Said:
        before, count = self.sheet(game), len(self.ledger.events(game))
        result = CliRunner().invoke(main, ["deal", game, text, "--again", *(["--yes"] if yes else []),
                                           "--db", self.db])
        if len(self.ledger.events(game)) > count:
            return Said(writes=self.stored(game, before))
        return asked_in(result.output)

    def pulka_play(self, game: str, text: str, yes: bool) -> Said:
        before, count = self.sheet(game), len(self.ledger.events(game))
        typed = f"{text} --again{' --yes' if yes else ''}"
        result = CliRunner().invoke(main, ["play", game, "--db", self.db], input=f"{typed}\nend\n")
        if len(self.ledger.events(game)) > count:
            return Said(writes=self.stored(game, before))
        return asked_in(result.output)

    def the_api(self, game: str, text: str, confirmed: bool) -> Said:
        before = self.sheet(game)
        version = len(self.ledger.events(game))
        body = {"id": f"{game}-{confirmed}", "version": version, "line": text, "again": True, "confirmed": confirmed}
        r = self.client.post(f"/api/games/{game}/deal", json=body, headers=self.headers)
        if r.status_code == 201:
            return Said(writes=self.stored(game, before))
        refused = r.json().get("refused", {})
        doubt = refused.get("doubt")
        if doubt is None:
            return Said(refused=refused.get("message", r.text))
        typed, other = doubt["readings"]
        return Said(doubt=Doubt(deal=doubt["deal"], reason="", typed=typed["tricks"], reading=other["tricks"],
                                read_as="", other="", line=doubt["line"]))


def asked_in(output: str) -> Said:
    """What a refusal printed says: a question (both readings, and the line that says
    the other one with the declarer's count marked, as a Doubt), or another refusal."""
    other_line = re.search(r"as the other reading '([^']*)'", output)
    order = r"(?:declarer first|from the forehand, \S+ first)"
    typed = re.search(rf"as typed \({order}\) (.*?), writing", output)
    other = re.search(rf"; read {order} (.*?), writing", output)
    if "which was meant?" not in output or other_line is None or typed is None or other is None:
        return Said(refused=output.strip()[-400:])
    return Said(doubt=Doubt(deal=0, reason="", typed=_tricks_said(typed.group(1)), reading=_tricks_said(other.group(1)),
                            read_as="", other="", line=other_line.group(1)))


def _tricks_said(text: str) -> dict[str, int]:
    """``Vera 8, Anna 1, Boris 1`` as tricks."""
    out = {}
    for part in text.split(", "):
        name, _sep, n = part.rpartition(" ")
        out[name] = int(n) if n.isdigit() else -1
    return out
