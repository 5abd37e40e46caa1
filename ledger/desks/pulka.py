"""The scorer's desk of a pulka: every recording command, in the table's words, as the
command floor's API (the rubber's is ``ledger.desks.rubber``).

Each command takes what the scorer typed — names in any case, bids and calls in the
table's words (``6♠``, ``пас``, ``вист``), trick counts ``Anna=6``, a whole deal line —
and ``by``, who records it (a player, ``scorer:NAME``, ``arbiter:NAME``; None for the
rules' default). It builds the events, calls ``Ledger.execute`` once (one load, each
event judged once against the state it will be applied to, one save) and returns what
the scorer is told as data: a ``told.Told`` (the events stored, the writes, the
verdicts, the deals completed, who deals next, the end, a deal left without its
result), a ``Started`` for a new pulka, a ``CorrectionPreview`` and a ``Corrected`` for
a correction. A refusal is the ledger's ``Refused``: the rule, why, what is allowed,
and, when it is about one thing the scorer typed, that input's name (``Refused.field``:
the name of the parameter here, ``player``, ``bid``, ``counts``, ``by``…). Nothing is
stored when anything is refused.

The command line (``cli.record``, ``cli.deal``, ``cli.table``, ``cli.play``) parses its arguments,
calls the desk and prints; a web service calls the same methods. A desk made with a
``Kept`` game (``Ledger.keep``: the scorer's session) records into it without loading it
again, and a command refused leaves it as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from ledger.application import Command, Kept, Ledger, Outcome
from ledger.words.deal_line import TricksReading, deal_events, half_whist_pass
from ledger.judge.kinds import PULKA, State
from ledger.desks.told import Begun, Doubtful, Told, ToldWrite, Verdict, begun, cut_short, doubt_of, forgotten, \
    table_checked, left_behind, retyped, told, undo_from
from ledger.words.table import (
    bid_word,
    DealPart,
    call_word,
    column_word,
    contract_word,
    level_word,
    names_in,
    penalty_tricks,
    player_word,
    recorder_word,
    replacement_of,
    target_word,
    trick_counts,
    whists_of,
)
from ledger.vocabulary.events import (
    Abandoned,
    AnyEvent,
    Annulled,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    GameStarted,
    Joined,
    Left,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    Withdrawn,
)
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.rules import find_preset
from ledger.vocabulary.stream import StreamStart
from projections.audit import describe
from projections.deal_text import deal_game
from projections.deal_state import DealState
from projections.game import GameState
from projections.recording import merge
from projections.sheet import totals


if TYPE_CHECKING:  # an undo's own module, imported when one is asked for
    from ledger.desks.taken_back import TakenBack

_ = language._  # every text a person reads, in the language in effect

T = TypeVar("T")
Names = str | Sequence[str] | None  # players as typed: "Anna,Boris" or a list of names
TALON = ("peek", "refused", "premium")  # what the talon's records say [Code 3.2.21, 3.4.10, 3.4.11]
DECLARER_RESULTS = ("played", "other")  # the result drawn by lot under 3.8.5.1 b


class Started(msgspec.Struct, frozen=True):
    """A new game: the start as stored (its rule set resolved, its first dealer named),
    whether the store created it (False: a game of that name with this very start was
    there already), and who leads the first deal."""

    game: str
    event: StreamStart
    created: bool
    leads: str | None = None


class CorrectionPreview(msgspec.Struct, frozen=True):
    """A correction as it would be stored, before it is [Code 4.2.7-4.2.9]: the record it
    corrects (its deal, its recorder), who asks, the record as it was and as it would
    be, what would change on the sheet, and the verdict. ``expected``: the events the
    game had; ``PulkaDesk.correct(..., expected=)`` stores it only if that is still so."""

    target: int
    deal: int
    recorded_by: str | None
    asked_by: str | None
    was: str
    now: str
    writes: tuple[ToldWrite, ...]
    verdicts: tuple[Verdict, ...]  # the correction's own
    expected: int
    named: str | None = None  # how the scorer named the record (deal:5.tricks), when not by its number


class Corrected(msgspec.Struct, frozen=True):
    """A correction stored: as it was previewed, and what the command did."""

    preview: CorrectionPreview
    told: Told

    @property
    def number(self) -> int:
        return self.told.events[0].number


@contextmanager
def naming(field: str) -> Iterator[None]:
    """A refusal raised inside names ``field``, the input it is about (unless it names one
    already)."""
    try:
        yield
    except Refused as exc:
        if exc.field is None:
            exc.field = field
        raise


def typed(field: str, read: Callable[..., T], *args: Any) -> T:
    """``read(*args)``, a refusal naming ``field``."""
    with naming(field):
        return read(*args)


def about(field: str, events: Iterable[AnyEvent]) -> Iterator[AnyEvent]:
    """``events`` as they are made, a refusal of how they are typed naming ``field`` (a
    judge's refusal of an event made is raised where it is judged, naming none)."""
    with naming(field):
        yield from events


def played(command: Command[GameState], at: str | None) -> Command[GameState]:
    """``command`` with each event it makes stamped as played at ``at`` (None: as it is),
    made one at a time as the ledger asks for them."""
    if at is None:
        return command

    def stamped(state: GameState) -> Iterator[AnyEvent]:
        for event in command(state):
            yield msgspec.structs.replace(event, played_at=at)

    return stamped


def maybe_player(state: GameState, field: str, text: str | None) -> str | None:
    """A player of the game named in any case; None when nothing was typed."""
    return typed(field, player_word, state.players, text) if text else None


def a_player(state: GameState, field: str, text: str) -> str:
    """A player of the game named in any case (an argument that is always typed)."""
    return typed(field, player_word, state.players, text)


def names(state: GameState, field: str, value: Names) -> tuple[str, ...]:
    """Players of the game: ``Anna,boris`` as typed, or a list of names."""
    text = value if isinstance(value, str) or value is None else ",".join(value)
    return typed(field, names_in, state.players, text)


def recorder(state: State, by: str | None) -> str | None:
    """Who records on a pulka or a rubber: a player in any case, ``scorer:NAME`` or
    ``arbiter:NAME``."""
    return typed("by", recorder_word, state.players, by)


def abandoned(state: GameState, agreed_by: Names, demanded_by: str | None, reason: str, by: str | None) -> Abandoned:
    """The end of a pulka as typed: who agreed, or who demanded it, and why."""
    return Abandoned(agreed_by=names(state, "agreed_by", agreed_by),
                     demanded_by=maybe_player(state, "demanded_by", demanded_by), reason=reason, by=recorder(state, by))


def choice(field: str, value: str, allowed: Sequence[str], rule: str) -> str:
    """One of a few words (what the command line offers as a choice)."""
    if value not in allowed:
        raise Refused(rule, _("{value} is not one of {allowed}").format(value=repr(value), allowed=", ".join(allowed)),
                      ", ".join(allowed), field=field)
    return value


class PulkaDesk:
    """The recording commands of a pulka on a ledger, each one call of ``Ledger.execute``."""

    def __init__(self, ledger: Ledger, kept: Kept | None = None, *, played_at: str | None = None) -> None:
        self.ledger = ledger
        self.kept = kept
        # When what is recorded happened at the table (a phone's clock at its entry, sent
        # later): each event stored carries it beside the ledger's time of arrival, and
        # the judge refuses one that is not a time or is after the arrival.
        self.played_at = played_at

    # -- the machinery ------------------------------------------------------------------------

    def _execute(self, game: str, command: Command[GameState], expected: int | None = None) -> Outcome[GameState]:
        return self.ledger.execute(game, played(command, self.played_at), expected=expected, kind=PULKA,
                                   kept=self.kept)

    def _told(self, game: str, command: Command[GameState], *, line: bool = False, leave_open: bool = False) -> Told:
        """Run the command and say what it did, with the reminders of 4.2.10 a deal line
        (a deal played without its result) and ``leave_open`` (the deal left behind) call for."""
        outcome = self._execute(game, command)
        state: GameState = outcome.state
        notices = (forgotten(state) if line else None, left_behind(state) if leave_open else None)
        return told(outcome, [n for n in notices if n is not None])

    def _one(self, game: str, make: Callable[[GameState], AnyEvent], *, leave_open: bool = False) -> Told:
        """A command of one event, made from the game as it stands (to read names in any
        case), table_checked as table commands are."""

        def command(state: GameState) -> Iterable[AnyEvent]:
            return table_checked(state, [make(state)], leave_open=leave_open)

        return self._told(game, command, leave_open=leave_open)

    # -- a new pulka ----------------------------------------------------------------------------

    def new(self, game: str, players: Names, *, convention: str = "sochi", pulya: int = 20,
            stake: str | None = None, first_dealer: str | None = None, rules: Mapping[str, Any] | None = None,
            by: str | None = None) -> Started:
        """Start a pulka: the players clockwise, the convention (a preset), the pulya, the
        stake per whist, who deals first (default: the last player), rule overrides."""
        seated = tuple(p.strip() for p in players.split(",")) if isinstance(players, str) else tuple(players or ())
        started = GameStarted(
            game=game,
            players=seated,
            convention=find_preset(convention).convention,
            pulya=pulya,
            rules=dict(rules or {}),
            stake=stake,
            first_dealer=typed("first_dealer", player_word, seated, first_dealer) if first_dealer else None,
            by=typed("by", recorder_word, seated, by),
        )
        recorded = self.ledger.create(started)
        if not recorded.created:
            return Started(game, started, False)
        stored = recorded.stored[0].event
        assert isinstance(stored, GameStarted)
        leads = seated[(seated.index(stored.first_dealer or seated[-1]) + 1) % len(seated)]
        return Started(game, stored, True, leads)

    # -- the deal -------------------------------------------------------------------------------

    def deal(self, game: str, line: str, *, by: str | None = None, again: bool = False,
             leave_open: bool = False, confirmed: bool = False) -> Told:
        """A whole deal in one line (``ledger.words.deal_line``): the outcome "Vera 7H w w 8 1 1", a
        raspasy "rasp 2 5 3", or "BIDS | CONTRACT | CALLS | TRICKS". A line that stops
        before the deal's result is refused unless ``leave_open`` (``told.cut_short``);
        counts whose other order would write another sheet are refused as ``Doubtful``,
        carrying its ``Doubt`` (both readings), unless ``confirmed`` (as typed). A line refused while a deal begun
        before it waits says how to type that deal again (``told.retyped``)."""
        before: list[Begun | None] = []

        def command(state: GameState) -> Iterator[AnyEvent]:
            before.append(begun(state))
            sheet = totals(state.sheet())
            read = TricksReading()
            made = about("line", deal_events(state, line, recorder(state, by), read, partial=leave_open))
            yield from table_checked(state, made, leave_open=leave_open, again=again)
            if not leave_open:
                cut_short(state, line)
            doubt = None if confirmed else doubt_of(state, read, line, sheet)
            if doubt is not None:
                raise Doubtful(doubt)

        try:
            return self._told(game, command, line=True, leave_open=leave_open)
        except Doubtful:
            raise
        except Refused as exc:
            if before and before[-1] is not None:
                raise retyped(exc, before[-1]) from None
            raise

    def bid(self, game: str, player: str, bid: str, *, dark: bool = False, by: str | None = None,
            leave_open: bool = False) -> Told:
        """A bid: 6S … 10NT, misere, pass, here (6♠, пас, мизер, здесь); ``dark``: said
        without looking at the cards [Code 3.3.19]."""
        return self._one(game, lambda s: Bid(player=a_player(s, "player", player), bid=typed("bid", bid_word, bid), dark=dark,
                                             by=recorder(s, by)), leave_open=leave_open)

    def contract(self, game: str, player: str, contract: str, *, shared_with: str | None = None,
                 evident_correction: bool = False, by: str | None = None) -> Told:
        """The declarer's contract; ``shared_with`` the dealer [Code 3.6.9]; a change after
        a whist, the intention evident [Code 3.4.8]."""
        return self._one(game, lambda s: Contract(
            player=a_player(s, "player", player), contract=typed("contract", contract_word, contract),
            shared_with=maybe_player(s, "shared_with", shared_with), evident_correction=evident_correction,
            by=recorder(s, by)))

    def defence(self, game: str, player: str, call: str, *, open: bool = False, hand: str | None = None,
                by: str | None = None) -> Told:
        """A defender's call: whist, pass, half_whist (вист, пас, полвиста; ``whist:open``);
        ``hand``: the defender whose cards a four-player dealer plays [Code 3.8.8]."""

        def make(s: GameState) -> AnyEvent:
            word, is_open = typed("call", call_word, call)
            who = a_player(s, "player", player)
            deal = s.current
            if deal is not None and deal.calls and deal.persons[deal.calls[0][0]] == who:
                explained = half_whist_pass(deal, word)
                if explained is not None and who not in allowed_callers(deal, word):
                    raise explained
            return Defence(player=who, call=word,  # type: ignore[arg-type]
                           open=True if (open or is_open) else None, hand=maybe_player(s, "hand", hand),
                           by=recorder(s, by))

        return self._one(game, make)

    def tricks(self, game: str, counts: Sequence[str], *, deal: int | None = None,
               penalties: Sequence[str] = (), by: str | None = None) -> Told:
        """Tricks taken, ``Anna=6 Boris=3 Vera=1``; ``deal``: the forgotten result of an
        earlier deal [Code 4.2.10]; ``penalties``: penalty tricks ``Anna=1@3.4.9``."""
        return self._one(game, lambda s: Tricks(
            tricks=typed("counts", trick_counts, s.players, counts), deal=deal,
            penalty_tricks=typed("penalties", penalty_tricks, s.players, penalties), by=recorder(s, by)))

    # -- numbers by hand, the pencil, the deal void, the end --------------------------------------

    def entry(self, game: str, player: str, column: str, amount: int, *, on: str | None = None,
              deal: int | None = None, by: str | None = None) -> Told:
        """A number written by hand: pulya, gora or whists (on whom) [Code 4.2.1]."""
        return self._one(game, lambda s: Entry(
            player=a_player(s, "player", player), column=typed("column", column_word, column),  # type: ignore[arg-type]
            amount=amount, on=maybe_player(s, "on", on), deal=deal, by=recorder(s, by)))

    def pencil(self, game: str, player: str, *, by: str | None = None) -> Told:
        """The recorder puts his pencil down: his records are no longer in hand [Code 4.2.8]."""
        return self._one(game, lambda s: PencilDown(player=typed("player", recorder_word, s.players, player) or player,
                                                    by=recorder(s, by)))

    def annul(self, game: str, *, reason: str = "", dealer_error: bool = False, by: str | None = None) -> Told:
        """The current deal is void; ``dealer_error``: the dealer's own error [Code 3.2.13, 3.2.17]."""
        return self._one(game, lambda s: Annulled(reason=reason, dealer_error=dealer_error, by=recorder(s, by)))

    def abandon(self, game: str, *, agreed_by: Names = None, demanded_by: str | None = None, reason: str = "",
                by: str | None = None) -> Told:
        """Stop the pulka early: by all players' agreement [Code 4.2.3], or on one player's
        demand in an emergency [Code 4.2.15, 5.4.18]."""
        return self._one(game, lambda s: abandoned(s, agreed_by, demanded_by, reason, by))

    def object(self, game: str, player: str, deal: int, *, target: int | None = None, by: str | None = None) -> Told:
        """A partner refuses a late record of ``deal`` [Code 4.2.10]."""
        return self._one(game, lambda s: Objection(player=a_player(s, "player", player), deal=deal, target=target,
                                                   by=recorder(s, by)))

    def penalty(self, game: str, player: str, column: str, amount: int, *, reason: str, by: str | None,
                wronged: str | None = None) -> Told:
        """An arbiter's penalty on ``player`` [Code 4.2.16]; whists are written on him by the
        ``wronged`` player."""
        return self._one(game, lambda s: Penalty(
            player=a_player(s, "player", player), column=typed("column", column_word, column),  # type: ignore[arg-type]
            amount=amount, wronged=maybe_player(s, "wronged", wronged), reason=reason, by=recorder(s, by)))

    # -- corrections and undo ----------------------------------------------------------------------

    def preview_correction(self, game: str, target: int | str, changes: Sequence[str], *, by: str | None = None,
                           waive: bool = False) -> CorrectionPreview:
        """What ``correct`` would store and its verdict, without storing it (one load)."""
        named: list[str] = []
        outcome = self.ledger.preview(game, self._correction(target, changes, by, waive, named), kind=PULKA)
        return preview_of(outcome, named[-1] if named else None)

    def correct(self, game: str, target: int | str, changes: Sequence[str], *, by: str | None = None,
                waive: bool = False, expected: int | None = None) -> Corrected:
        """Correct a record in the table's words (``ledger.words.table.replacement_of``) [Code
        4.2.7-4.2.9]: ``target`` is its event number, or its deal (``deal:5``,
        ``deal:5.tricks``, ``deal:5.contract``: ``record_of`` finds the event, and the
        preview says which). One load, previewed and stored; ``expected`` (a preview's):
        nothing is stored when the game has changed since."""
        named: list[str] = []
        outcome = self._execute(game, self._correction(target, changes, by, waive, named), expected)
        return Corrected(preview_of(outcome, named[-1] if named else None), told(outcome))

    @staticmethod
    def _correction(target: int | str, changes: Sequence[str], by: str | None, waive: bool,
                    named: list[str]) -> Command[GameState]:
        def command(state: GameState) -> Iterable[AnyEvent]:
            wanted = typed("target", target_word, target)
            number = wanted if isinstance(wanted, int) else typed("target", record_of, state, wanted, changes)
            if not isinstance(wanted, int):
                named.append(wanted.text)
            replacement = typed("changes", replacement_of, state, number, changes)
            return [Correction(target=number, replacement=replacement, by=recorder(state, by),
                               penalty="waived" if waive else None)]

        return command

    def undo(self, game: str, *, first: int | None = None, by: str | None = None) -> Told:
        """Withdraw the last record while it is in hand (the last deal line, or the last
        record), or the events from ``first`` on [Code 4.2.8]; a record out of hand is
        corrected instead (4.2.7)."""
        taken: list[int] = []

        def command(state: GameState) -> Iterable[AnyEvent]:
            if first is None and isinstance(state.events[state.folded - 1], Withdrawn):
                raise Refused("4.2.8", _("the last event, {event}, is an undo; an undo is not undone").format(
                    event=state.folded), _("record the withdrawn events again"))
            start = first if first is not None else undo_from(state)
            taken.append(start)
            return [Withdrawn(first=start, by=recorder(state, by))]

        try:
            return self._told(game, command)
        except Refused as exc:
            if exc.rule != "4.2.8" or not taken:
                raise
            raise Refused("4.2.8", _("{reason}; nothing was withdrawn: a record out of hand is corrected instead "
                                     "(Code 4.2.7)").format(reason=exc.reason),
                          _("pulka correct N CHANGE… (`pulka log` shows the numbers)")) from None

    def preview_undo(self, game: str, *, first: int | None = None, by: str | None = None) -> TakenBack:
        """What ``undo`` would take back, judged as it would be (a record out of hand is
        refused here too) and nothing stored: the page asks before it undoes."""
        shown: list[TakenBack] = []

        def command(state: GameState) -> Iterable[AnyEvent]:
            from ledger.desks.taken_back import taken_back

            start = first if first is not None else undo_from(state)
            shown.append(taken_back(state, start))
            return [Withdrawn(first=start, by=recorder(state, by))]

        self.ledger.preview(game, command, kind=PULKA)
        return shown[-1]

    def redo(self, game: str, *, by: str | None = None) -> Told:
        """Record again what the last undo took back, as new events by ``by``, while
        nothing was recorded after it (``taken_back.redone``) [Code 4.2.8]."""
        from ledger.desks.taken_back import redone  # here: a deal line never takes back

        return self._told(game, lambda s: redone(s, recorder(s, by)))

    def preview_abandon(self, game: str, *, agreed_by: Names = None, demanded_by: str | None = None,
                        reason: str = "", by: str | None = None) -> Outcome[GameState]:
        """What ``abandon`` would store and the game it would leave (its settlement),
        judged, nothing stored."""
        return self.ledger.preview(game, lambda s: table_checked(s, [abandoned(s, agreed_by, demanded_by, reason, by)]),
                                   kind=PULKA)

    # -- around the cards: a deal out of turn, rulings, players, the talon --------------------------

    def dealt(self, game: str, player: str, *, by: str | None = None) -> Told:
        """``player`` dealt the next deal out of turn and it stands [Code 3.2.14]."""
        return self._one(game, lambda s: Dealt(player=a_player(s, "player", player), by=recorder(s, by)))

    def ruling(self, game: str, rule: str, counts: Sequence[str] = (), *, offender: str | None = None,
               whists: Sequence[str] = (), agreed_by: Names = None, planner: str | None = None,
               compensated: Names = None, declarer_result: str | None = None, reason: str = "",
               by: str | None = None) -> Told:
        """A ruling or an agreement on the current deal [Code 3.3.16.2, 3.3.16.3, 3.4.4,
        3.5.4, 3.8.5.1, 3.9.22]: ``counts`` ``NAME=N`` tricks, ``whists`` ``NAME=N``."""
        result = choice("declarer_result", declarer_result, DECLARER_RESULTS, "3.8.5.1") if declarer_result else None
        return self._one(game, lambda s: Ruling(
            rule=rule, tricks=typed("counts", trick_counts, s.players, counts) if counts else None,
            offender=maybe_player(s, "offender", offender), whists=typed("whists", whists_of, s.players, whists, rule),
            agreed_by=names(s, "agreed_by", agreed_by), reason=reason, by=recorder(s, by),
            planner=maybe_player(s, "planner", planner), compensated=names(s, "compensated", compensated),
            declarer_result=result))  # type: ignore[arg-type]

    def join(self, game: str, player: str, *, agreed_by: Names, replaces: str | None = None,
             by: str | None = None) -> Told:
        """A fourth player joins with everyone's consent [Code 3.1.2], in the place of
        the one who left (``replaces``) or to the left of the last dealer."""
        return self._one(game, lambda s: Joined(
            player=player.strip(), agreed_by=names(s, "agreed_by", agreed_by),
            replaces=typed("replaces", player_word, tuple(s.person_seat), replaces) if replaces else None,
            by=recorder(s, by)))

    def leave(self, game: str, player: str, *, reason: str = "", by: str | None = None) -> Told:
        """``player`` leaves a four-handed pulka; his columns stay [Code 5.4.18]."""
        return self._one(game, lambda s: Left(player=a_player(s, "player", player), reason=reason, by=recorder(s, by)))

    def substitute(self, game: str, player: str, substitute: str, *, agreed_by: Names,
                   by: str | None = None) -> Told:
        """``substitute`` takes ``player``'s seat and columns with the others' consent [Code 5.4.7]."""
        return self._one(game, lambda s: Substituted(
            player=a_player(s, "player", player), substitute=substitute.strip(), agreed_by=names(s, "agreed_by", agreed_by),
            by=recorder(s, by)))

    def talon(self, game: str, kind: str, player: str, *, tricks: int = 0, by: str | None = None) -> Told:
        """The talon: ``peek`` (looked at before it was bought, 3.2.21), ``refused`` (3.4.10),
        ``premium`` (it gave the declarer ``tricks``, 3.4.11)."""
        what = choice("kind", kind, TALON, "3.2.21")
        return self._one(game, lambda s: Talon(kind=what, player=a_player(s, "player", player), tricks=tricks,  # type: ignore[arg-type]
                                               by=recorder(s, by)))


def allowed_callers(deal: DealState, call: str) -> tuple[str, ...]:
    """Who may say ``call`` now in the deal's defence (nobody once it is complete)."""
    if deal.contract is None or deal.no_defence:
        return ()
    expect = deal.defence().expect
    return (deal.persons[expect[0]],) if expect is not None and call in expect[1] else ()


def record_of(state: GameState, wanted: DealPart, changes: Sequence[str]) -> int:
    """The event a correction names by its deal: the deal's tricks (its last record of
    them standing, a late one included) or its contract (the last declared); ``deal:K``
    alone takes the one the change is about (trick counts: the tricks; a contract: the
    contract) [Code 4.2.7]."""
    k = wanted.deal
    if not 1 <= k <= len(state.deals):
        raise Refused("4.2.7", _("the game has no deal {deal}").format(deal=k),
                      _("deal:1 to deal:{last}").format(last=len(state.deals)) if state.deals else _("a deal first"))
    deal = state.deals[k - 1]
    part = wanted.part or part_changed(state, k, changes)
    if part == "tricks":
        if deal.tricks_event is None:
            raise Refused("4.2.7", _("deal {deal} has no tricks recorded ({what})").format(
                deal=k, what=deal_game(state, deal)),
                _("deal:{deal}.contract, or an event of `pulka log --only-deal {deal}`").format(deal=k))
        return deal.tricks_event
    first = state.starts[k - 1]
    last = state.starts[k] - 1 if k < len(state.starts) else state.folded
    contracts = [n for n in range(first, last + 1) if n not in state.void
                 and isinstance(state.events[n - 1], Contract) and state.events[n - 1].deal == k]
    if not contracts:
        raise Refused("4.2.7", _("deal {deal} has no contract ({what})").format(deal=k, what=deal_game(state, deal)),
                      _("deal:{deal}.tricks, or an event of `pulka log --only-deal {deal}`").format(deal=k))
    return contracts[-1]


def part_changed(state: GameState, k: int, changes: Sequence[str]) -> str:
    """Which record of deal ``k`` a change is about: trick counts ``Vera=3`` (or
    ``tricks=…``) the tricks, a contract ``7H`` (or ``contract=…``) the contract."""
    names = {p.casefold() for p in state.players}
    for item in changes:
        key, sep, _value = item.partition("=")
        key = key.strip().casefold()
        if (sep and key in names) or key == "tricks":
            return "tricks"
        if key == "contract" or (not sep and level_word(item) is not None):
            return "contract"
    raise Refused("4.2.7", _("deal:{deal} alone does not say which record {changes} corrects").format(
        deal=k, changes=repr(" ".join(changes))),
                  _("deal:{deal}.tricks, deal:{deal}.contract, or an event of `pulka log --only-deal {deal}`").format(
                      deal=k))


def preview_of(outcome: Outcome[GameState], named: str | None = None) -> CorrectionPreview:
    """The correction an outcome stored (or would store), as the scorer checks it."""
    state: GameState = outcome.state
    stored = outcome.stored[-1]
    c = stored.event
    assert isinstance(c, Correction)
    original = state.events[c.target - 1]
    old = original if c.target not in state.overrides else state.content(c.target)
    said = told(outcome)
    return CorrectionPreview(
        target=c.target, deal=old.deal or 0, recorded_by=old.by, asked_by=c.by,
        was=describe(original), now=describe(merge(original, c.replacement)),
        writes=said.writes, verdicts=tuple(v for v in said.verdicts if v.number == stored.number),
        expected=stored.number - 1, named=named,
    )

