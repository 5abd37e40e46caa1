"""A whole deal in one line, the way a scorer calls it at the table.

Three forms, told apart by their first word:

- **The outcome**, which is what the sheet records [Code 4.2.1]: the declarer (his name,
  or its beginning when no other player's begins so), the contract, the defence's
  calls in their order, and the tricks, **the declarer's first**, then the defenders'
  in the order they called: ``Vera 7H w w 8 1 1``; a misère ``Vera miz 0``; both
  defenders passing ``Anna 6NT p p``. The auction may stand before it:
  ``pass 7H pass | Vera w w 8 1 1`` (the contract, when left out, is the declarer's
  last bid). Without it the line stands for the simplest auction that ends so: the
  declarer bids his contract (under ``jump_bids`` off, the lowest bid) and the others
  pass, each such bid marked ``implied`` in the log.
- **Raspasy**: ``rasp 2 5 3`` (``распасы``, ``расп``): everyone passed; the tricks of
  the players in the deal from the forehand (with 4 players the dealer's talon tricks
  may come last).
- **The whole deal**, in sections separated by ``|``: the bids in turn order, the
  contract, the defence calls in their order (``whist:open`` for an open whist), and
  the tricks of the players in the deal **in turn order from the forehand**:
  ``6S pass pass | 6S | whist pass | 6 3 1``. The contract may be left out when it is
  the declarer's last bid (``6S p p | w w | 6 2 2``, ``misere p p | 0``). On raspasy the
  line is bids, then tricks (``pass pass pass | 2 3 5``). After two passes the third
  hand may give a contract without bidding: ``pass pass | 7S | whist pass | 7 2 1``.
  Every line this form took before the outcome form existed means what it meant
  (``tests/test_dealline_compat.py`` reads them all through the parser as it was).

In every form the tricks may be named instead, in any order: ``Vera=8 Anna=1 Boris=1``
(or ``v=8 a=1 b=1``); counts given by name cannot be read for the wrong player. Or the
declarer's count is marked, ``Vera 7H w w 8* 1 1``: the counts go round the table from
it, whoever they begin with, and read one way only (``MARK``). A name's beginning that
is also a word of the table (``в``: a whist, or Вера) is the name where only a name may
stand (``_outcome_at``, ``_declarer_after_bids``), and refused with both readings where
either may. Who
speaks is never typed otherwise: the auction decides it. The words may be the table's
(``6♠``, ``пас``/``п``/``p``/``-``, ``вист``/``в``/``w``, ``полвиста``/``пв``/``hw``,
``мизер``/``миз``/``miz``, ``здесь``; ``words``); the log stores the canonical ones.

With four players the dealer who whists names the defender whose cards he plays:
``pass half_whist pass whist@Boris`` [Code 3.8.8]; his tricks then stand in that
defender's place. Where dark bids are agreed a bid is marked ``pass:dark``,
``6S:dark``, ``misere:dark`` [Code 3.3.19]; a misère shared with the dealer is declared
``misere:shared`` [Code 3.6.9].

A line may stop short of the deal's result; whether that is allowed is the desk's to
say (``--leave-open``). ``deal_events`` yields the events of a line one at a time;
whoever consumes it (the judging loop, ``judging.judge_events``) judges each and folds
it into the state before asking for the next, so that each event is worked out from
the state it will be applied to. What the line said of the tricks, how they were read
and how the other order would read them, is left in a ``TricksReading`` for the desk's
question of counts read two ways. Every
event carries ``by`` when the line was typed by a named recorder (a scorer).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import msgspec

from ledger.vocabulary.wording import digits
from ledger.words.table import RASPASY_WORDS, bid_word, call_word, contract_word, level_word, player_named, \
    player_word
from ledger.vocabulary import language
from ledger.vocabulary.bids import MISERE, PASS, lowest, parse_level, spoken
from ledger.vocabulary.language import N_
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, Tricks
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect

MARK = "*"  # on a count: the declarer's (``8*``), which fixes the order the counts are read in

FORMS = N_('"Vera 7H w w 8 1 1" (the outcome, the declarer\'s tricks first), "rasp 2 5 3", '
           'or "6S pass pass | 6S | whist pass | 6 3 1" (the tricks from the forehand)')


class TricksReading(msgspec.Struct):
    """How a line gave its tricks: the deal, the seats the counts were read for and the
    counts in the order typed, how they were read (``forehand``, ``declarer``, ``marked``:
    round the table from the declarer's marked count, or ``named``), the seats the other
    order would have read them for (from the forehand for a line read declarer first, and
    the other way round; the same seats where the order cannot be other: raspasy, a
    misère's one count, a mark, names), and how many words at the end of the line they
    took."""

    deal: int | None = None
    seats: list[int] = msgspec.field(default_factory=list)
    counts: list[int] = msgspec.field(default_factory=list)
    order: str = ""
    other: list[int] = msgspec.field(default_factory=list)
    words: int = 0


def deal_events(state: GameState, line: str, by: str | None = None,
                reading: TricksReading | None = None, partial: bool = False) -> Iterator[AnyEvent]:
    """The events a deal line stands for, each made once the one before it has been
    judged and folded into ``state``. ``partial``: the line may stop before the deal's
    result (``--leave-open``), which a word that could be a name or a bid must know."""
    read = reading if reading is not None else TricksReading()
    sections = [s.split() for s in line.split("|")]
    first = sections[0]
    if first and first[0].casefold() in RASPASY_WORDS:
        yield from _raspasy(state, [t for s in sections for t in s][1:], by, read)
        return
    at = _outcome_at(state, sections, partial)
    if at is not None:
        yield from _outcome(state, sections[0] if at else None, [t for s in sections[at:] for t in s], by, read)
        return
    yield from _whole(state, sections, by, read, partial)


# -- the forms ---------------------------------------------------------------------------------


def _whole(state: GameState, sections: list[list[str]], by: str | None, read: TricksReading,
           partial: bool) -> Iterator[AnyEvent]:
    """BIDS | CONTRACT | CALLS | TRICKS, the tricks from the forehand; the contract may be
    left out when it is the declarer's last bid. After the bids, a last section that
    begins with the declarer's name (or a word that is also a call: ``_declarer_after_bids``)
    is his outcome."""
    yield from _bids(state, sections.pop(0), by)
    if not sections:
        return  # the bids alone
    deal = _auction_over(state)
    if len(sections) == 1 and sections[0] and _declarer_after_bids(deal, sections[0], partial):
        yield from _outcome(state, [], sections[0], by, read)
        return
    if deal.raspasy:
        yield _tricks(state, sections.pop(0), by, read, "forehand")
    else:
        section = sections.pop(0)
        if not section and not sections:
            return  # "6S pass pass |": stopped before the contract
        if section and not _after_contract(section):
            yield _contract(deal, section, by)  # the contract, read as it always was
        else:
            yield _contract_of_bid(deal, by)
            if section:
                sections.insert(0, section)
        if not (state.current is not None and state.current.no_defence):
            yield from _defence(state, deal, sections.pop(0) if sections else [], by)
        if sections:
            yield _tricks(state, sections.pop(0), by, read, "forehand")
    if sections:
        raise Refused("event-log", _("unexpected text after the deal: {text}").format(
            text=repr(" | ".join(" ".join(s) for s in sections))))


def _outcome(state: GameState, bids: list[str] | None, words: list[str], by: str | None,
             read: TricksReading) -> Iterator[AnyEvent]:
    """[BIDS |] DECLARER [CONTRACT] CALLS… TRICKS…, the declarer's tricks first."""
    name = words.pop(0)
    if bids is None:
        yield from _implied_auction(state, name, words, by)
        deal = _auction_over(state)
    else:
        yield from _bids(state, bids, by)
        deal = _auction_over(state)
        _same_declarer(deal, name)
    if words and _reads_as_contract(words[0]):
        yield _contract(deal, [words.pop(0)], by)
    else:
        yield _contract_of_bid(deal, by)
    calls = []
    while words and _reads_as_call(words[0]):
        calls.append(words.pop(0))
    current = state.current
    assert current is not None
    if current.no_defence and calls:
        raise Refused("3.6.6", _("a {contract} is played without defence calls, not {calls}").format(
            contract=spoken(str(current.contract)), calls=repr(" ".join(calls))), _("the declarer's tricks"))
    yield from _defence(state, deal, calls, by)
    if words and current.phase == "defence":
        expect = current.defence().expect
        assert expect is not None
        raise Refused("3.8.1", _("the defence's calls come before the tricks, and {player} has not called ({word} "
                                 "is no call)").format(player=current.persons[expect[0]], word=repr(words[0])),
                      _("{calls} (w, p, hw), then the tricks").format(
                          calls=_(" or ").join(spoken(c) for c in sorted(expect[1]))))
    if words:
        yield _tricks(state, words, by, read, "declarer")


def _raspasy(state: GameState, words: list[str], by: str | None, read: TricksReading) -> Iterator[AnyEvent]:
    """rasp TRICKS: everyone passes [Code 3.7.1]; the tricks from the forehand."""
    deal = state.in_auction or state.next_deal()
    if deal.bids:
        raise Refused("3.3.13", _("the auction of deal {deal} has begun; a raspasy line gives the whole deal").format(
            deal=deal.number), _("the rest of the auction"))
    for seat in deal.bidders:
        yield Bid(player=deal.persons[seat], bid=PASS, by=by)
    if words:
        yield _tricks(state, words, by, read, "forehand")


# -- the sections --------------------------------------------------------------------------------


def _bids(state: GameState, tokens: list[str], by: str | None) -> Iterator[AnyEvent]:
    """The bids in turn order: who says each is the auction's turn [Code 3.3.13]."""
    for token in tokens:
        deal = state.in_auction or state.next_deal()
        turn = deal.turn()
        if turn is None:
            raise Refused("3.3.13", _("the auction is over; {token} has nobody to bid it").format(token=repr(token)))
        word, _sep, flag = token.partition(":")
        if flag not in ("", "dark"):
            raise Refused("3.3.19", _("{token}: a bid's only mark is :dark").format(token=repr(token)),
                          _("e.g. pass:dark, 6S:dark"))
        yield Bid(player=deal.persons[turn], bid=bid_word(word), dark=flag == "dark", by=by)


def _implied_auction(state: GameState, name: str, words: list[str], by: str | None) -> Iterator[AnyEvent]:
    """The auction an outcome without bids stands for: the declarer bids his contract,
    everyone else passes; where bids go one step at a time (``jump_bids`` off) his bid is
    the lowest, his contract above it [Code 3.3.8, 3.4.3]. Marked ``implied``."""
    deal = state.in_auction or state.next_deal()
    if deal.bids:
        raise Refused("3.3.13", _("the auction of deal {deal} has begun; give the rest of it").format(deal=deal.number),
                      _("the rest of the auction, then | and the outcome"))
    seat = _seat_named(deal, name)
    if seat not in deal.bidders:
        raise Refused("3.2.10", _("{player} deals deal {deal} and sits out the auction").format(
            player=deal.persons[seat], deal=deal.number), ", ".join(deal.persons[s] for s in deal.bidders))
    text = words[0].partition(":")[0] if words else ""
    level = parse_level(level_word(text) or "") if text else None
    if level is None:
        raise Refused("3.4.1", _("after the declarer comes his contract, not {text}").format(
            text=repr(text) if text else _("nothing")),
            _("e.g. {player} 7H w w 8 1 1, {player} miz 0").format(player=deal.persons[seat]))
    if level.is_misere:
        bid = MISERE
    elif deal.rules.jump_bids or level.level < deal.bid_floor():
        bid = str(level)  # (below the floor: the judge says what the floor is)
    else:
        bid = str(lowest(deal.bid_floor()))
    for s in deal.bidders:
        yield Bid(player=deal.persons[s], bid=bid if s == seat else PASS, implied=True, by=by)


def _auction_over(state: GameState) -> DealState:
    """The deal whose bids the line gave, once its auction is over (or the third hand
    may take the talon without bidding [Code 3.3.15])."""
    deal = state.current
    if deal is None:
        raise Refused("3.3.1", _("a deal line begins with the bids, the declarer, or rasp"), _(FORMS))
    turn = deal.turn()
    if deal.bidding_closed_at is None and not (turn is not None and deal.third_hand_may_take_talon(turn)):
        raise Refused("3.3.13", _("the auction of deal {deal} is not over").format(deal=deal.number), _("more bids"))
    return deal


def _same_declarer(deal: DealState, name: str) -> None:
    """The declarer an outcome names after its auction is the one the auction chose."""
    if deal.raspasy:
        raise Refused("3.3.12", _("everyone passed in deal {deal}: a raspasy has no declarer").format(deal=deal.number),
                      _("the raspasy tricks, e.g. pass pass pass | 2 5 3, or rasp 2 5 3"))
    winner = deal.declarer if deal.declarer is not None else deal.turn()
    assert winner is not None
    if _seat_named(deal, name) != winner:
        raise Refused("3.3.13", _("the auction of deal {deal} was won by {winner}, not {named}").format(
            deal=deal.number, winner=deal.persons[winner], named=deal.persons[_seat_named(deal, name)]),
            deal.persons[winner])


def _contract(deal: DealState, words: list[str], by: str | None) -> AnyEvent:
    """The declarer's contract; ``misere:shared`` shares a misère with the dealer [Code 3.6.9]."""
    if not words:
        raise Refused("3.4.1", _("the second section is the contract"), _("e.g. 6S or misere"))
    declarer = deal.declarer if deal.declarer is not None else deal.turn()
    assert declarer is not None
    text, _sep, flag = " ".join(words).partition(":")
    if flag not in ("", "shared"):
        raise Refused("3.6.9", _("{text}: a contract's only mark is :shared (a misère with the dealer)").format(
            text=repr(" ".join(words))))
    shared = deal.persons[deal.dealer] if flag == "shared" else None
    return Contract(player=deal.persons[declarer], contract=contract_word(text), shared_with=shared, by=by)


def _contract_of_bid(deal: DealState, by: str | None) -> AnyEvent:
    """The contract left out: the declarer's last bid; the third hand who took the talon
    without bidding has none, and names his contract [Code 3.3.15, 3.4.1]."""
    declarer = deal.declarer if deal.declarer is not None else deal.turn()
    assert declarer is not None
    bid = deal.own_level.get(declarer)
    if bid is None or deal.declarer is None:
        raise Refused("3.3.15", _("{player} took the talon without bidding: his contract is not a bid, name "
                                  "it").format(player=deal.persons[declarer]),
                      _("e.g. pass pass | 7S | whist pass | 1 2 7"))
    return Contract(player=deal.persons[declarer], contract=str(bid), by=by)


def _defence(state: GameState, deal: DealState, tokens: list[str], by: str | None) -> Iterator[AnyEvent]:
    """The defence calls in their order: who says each is the defence's turn [Code 3.8.1];
    ``whist@NAME`` names the hand a four-player dealer plays [Code 3.8.8]."""
    for token in tokens:
        head, _sep, flag = token.partition(":")
        word, _sep, hand = head.partition("@")
        call, is_open = call_word(f"{word}:{flag}" if flag else word)
        expect = state.current.defence().expect if state.current else None
        if expect is None or call not in expect[1]:
            explained = half_whist_pass(deal, call)
            if explained is not None:
                raise explained
        if expect is None:
            raise Refused("3.8.1", _("no defence call is expected here, got {token}").format(token=repr(token)))
        yield Defence(player=deal.persons[expect[0]], call=call, open=True if is_open else None,  # type: ignore[arg-type]
                      hand=player_word(deal.persons, hand) if hand else None, by=by)


def half_whist_pass(deal: DealState, call: str) -> Refused | None:
    """Why the Code's own words for a standing half-whist, "pass, half-whist, pass", are
    not written so at three players: the passer's second pass is what a four-player table
    asks for, before the dealer may return the whist; at three the half-whist stands
    unless the passer returns it with a whist [Code 3.8.8]. None when the call refused is
    not that pass."""
    if deal.contract is None or deal.no_defence or call != PASS or deal.sitting_out is not None:
        return None
    view = deal.defence()
    if view.half_whister is None or view.returned or len(deal.calls) != 2:
        return None
    first = deal.persons[deal.calls[0][0]]
    return Refused("3.8.8", _("with three players the half-whist stands when {player}, who passed, does not return "
                              "the whist: his second pass, as the Code says it (pass, half-whist, pass), is not "
                              "written, being asked for only at four, before the dealer may return the whist").format(
                       player=first),
                   _("pass half_whist (the half-whist stands), or pass half_whist whist ({player} returns it)").format(
                       player=first))


def _tricks(state: GameState, counts: list[str], by: str | None, read: TricksReading, order: str) -> AnyEvent:
    """The tricks: named (``Vera=8``, any order); counts round the table with the
    declarer's marked (``8*``: whoever the counts begin with); or counts for the players
    in the deal in ``order``: from the forehand [Code 3.2.8], or the declarer first and
    the defenders in the order they called."""
    deal = state.current
    assert deal is not None
    read.deal, read.words = deal.number, len(counts)
    if any("=" in c for c in counts):
        read.order = "named"
        return Tricks(tricks=_named(deal, counts), by=by)
    marks = [i for i, c in enumerate(counts) if c[:1] == MARK or c[-1:] == MARK]
    plain = [c.strip(MARK) for c in counts]
    forehand = _trick_seats(deal, plain)
    first = _declarer_seats(deal, plain) if deal.declarer is not None and not deal.raspasy else forehand
    seats, other = (forehand, first) if order == "forehand" else (first, forehand)
    if marks:
        seats = other = _marked_seats(deal, forehand, marks, counts)
        order = "marked"
    if len(counts) != len(seats):
        whose = ", ".join(deal.persons[s] for s in seats)
        raise Refused("3.2.8", (_("expected {n} trick counts, for {players} (the declarer first)")
                                if order == "declarer" else _("expected {n} trick counts, for {players}")).format(
                                    n=len(seats), players=whose),
                      _("or the tricks named: {named}").format(named=" ".join(f"{deal.persons[s]}=N" for s in seats)))
    try:
        tricks = {deal.persons[s]: int(c) for s, c in zip(seats, plain)}
    except ValueError:
        raise Refused("3.2.8", _("trick counts are whole numbers, not {counts}").format(
            counts=repr(" ".join(counts)))) from None
    read.seats, read.counts, read.order, read.other = seats, [int(c) for c in plain], order, other
    return Tricks(tricks=tricks, by=by)


def _marked_seats(deal: DealState, forehand: list[int], marks: list[int], counts: list[str]) -> list[int]:
    """Whose tricks the counts are when the declarer's is marked (``Vera 7H w w 8* 1 1``,
    ``| 1 8* 1``): the players in the deal round the table, clockwise as they sit, the
    marked count the declarer's, so that the counts may begin with anyone and are read
    one way only."""
    if deal.declarer is None or deal.raspasy:
        raise Refused("3.2.8", _("{count}: the mark {mark} stands on the declarer's tricks, and a raspasy has no "
                                 "declarer").format(count=repr(counts[marks[0]]), mark=MARK),
                      _("the counts from the forehand, unmarked"))
    if len(marks) > 1:
        raise Refused("3.2.8", _("{counts}: only the declarer's count is marked ({mark}), once").format(
            counts=repr(" ".join(counts)), mark=MARK), _("e.g. 8* 1 1"))
    if len(counts) != len(forehand) or deal.declarer not in forehand:
        return forehand  # the count of counts is refused as it is for counts unmarked
    at, n = forehand.index(deal.declarer), len(forehand)
    return [forehand[(at - marks[0] + i) % n] for i in range(n)]


def _named(deal: DealState, counts: list[str]) -> dict[str, int]:
    """``Vera=8 a=1 b=1``: each player of the deal by name (or its beginning), once."""
    out: dict[str, int] = {}
    for item in counts:
        name, sep, n = item.partition("=")
        person = player_named(deal.persons, name) if sep else None
        if person is None or not digits(n.strip()):
            raise Refused("3.2.8", _("{item} is not NAME=N (a player of the deal and his tricks); the tricks are "
                                     "all named or none").format(item=repr(item)),
                          " ".join(f"{p}=N" for p in deal.persons))
        if person in out:
            raise Refused("3.2.8", _("{player}'s tricks are given twice").format(player=person))
        out[person] = int(n)
    return out


def _trick_seats(deal: DealState, counts: list[str]) -> list[int]:
    """Whose tricks the counts are from the forehand: the players in the deal; on raspasy
    with four players everyone, the dealer's talon tricks last; a misère's declarer alone."""
    if deal.raspasy and len(counts) == deal.n_players and len(deal.active) < deal.n_players:
        everyone = list(range(deal.n_players))
        return everyone[deal.dealer + 1:] + everyone[: deal.dealer + 1]
    if deal.contract is not None and deal.contract.is_misere and len(counts) == 1:
        assert deal.declarer is not None
        return [deal.declarer]
    return list(deal.playing) if not deal.raspasy else list(deal.active)


def _declarer_seats(deal: DealState, counts: list[str]) -> list[int]:
    """Whose tricks the counts are, the declarer's first: then the defenders in the order
    they called, the whisting dealer in the place of the hand he plays [Code 3.8.8]; a
    misère's declarer alone."""
    declarer = deal.declarer
    assert declarer is not None and deal.contract is not None
    if deal.contract.is_misere and len(counts) == 1:
        return [declarer]
    hand = deal.dealer_hand
    return [declarer] + [deal.dealer if d == hand else d for d in deal.defenders]


# -- telling the forms apart --------------------------------------------------------------------


def _outcome_at(state: GameState, sections: list[list[str]], partial: bool) -> int | None:
    """The section an outcome begins with (0, or 1 after the bids): one whose first word
    names a player where a name stands. None: the line is the whole deal. A word that is
    both a word of the table and the beginning of a name (``в``: a whist, or Vera) is
    read by where it stands (``_declarer_first``, ``_declarer_after_bids``)."""
    first = sections[0]
    if not first:
        return None
    players = (state.in_auction or state.next_deal()).persons
    head = first[0]
    if not is_table_word(head):
        return 0 if player_named(players, head) is not None else None
    if _names_one(players, head) and _declarer_first(players, first, len(sections), partial):
        return 0
    if len(sections) == 2 and sections[1] and not is_table_word(sections[1][0]) \
            and player_named(players, sections[1][0]) is not None:
        return 1
    return None


def _declarer_first(players: tuple[str, ...], first: list[str], n_sections: int, partial: bool) -> bool:
    """Whether the line's first word, a word of the table that begins a player's name,
    is the declarer. No line begins with a call, so a word that is no bid (``в``, ``w``)
    is the name. The whole deal's first section is bids alone: a word in it that is no
    bid makes the first word the name, and with more sections it is the bid. A line of
    bids alone that also reads as an outcome (``п 7H п п``: Petya's seven, both
    passing) is the outcome, as bids alone stop before the deal's result, unless the
    line may stop so (``partial``): then it is refused with both readings."""
    head, rest = first[0], [w.partition(":")[0] for w in first[1:]]  # a bid's mark (``pass:dark``) is no name's
    if not _reads(bid_word, head) or not all(_reads(bid_word, w) for w in rest):
        return True
    if n_sections > 1 or not rest or not _reads_as_contract(rest[0]) or not all(_reads_as_call(w) for w in rest[1:]):
        return False
    if partial:
        raise _either(players, head, _("a bid"))
    return True


def _declarer_after_bids(deal: DealState, words: list[str], partial: bool) -> bool:
    """Whether the line's last section after its bids, whose first word is also a word of
    the table (``в``: a whist, or Vera), is the declarer's outcome rather than the whole
    deal's contract, calls or counts. Only the auction's winner may stand there; a
    section that is not calls alone is his outcome. Calls alone are read both ways, the
    calls the whole deal's and the winner's after his name, against the defence as it
    would go (``_calls_fit``): the one that the defence takes, and that ends the deal
    unless the line may stop short (``partial``), is meant; where both are, the line is
    refused with both readings."""
    head = words[0]
    if deal.raspasy or not _reads_as_call(head) or not _names_one(deal.persons, head):
        return False
    winner = deal.declarer if deal.declarer is not None else deal.turn()
    if winner is None or player_named(deal.persons, head) != deal.persons[winner]:
        return False
    if not all(_reads_as_call(w) for w in words):
        return True
    whole, outcome = _calls_fit(deal, winner, words, partial), _calls_fit(deal, winner, words[1:], partial)
    if whole and outcome:
        raise _either(deal.persons, head, _("a call"))
    return outcome


def _calls_fit(deal: DealState, declarer: int, calls: list[str], partial: bool) -> bool:
    """Whether the defence of the declarer's last bid would take ``calls`` in turn, and,
    unless the line may stop short, end the deal with them (no tricks follow them)."""
    bid = deal.own_level.get(declarer)
    if bid is None:
        return False
    trial = copy.deepcopy(deal)
    trial.apply_contract(declarer, str(bid), 0)
    for token in calls:
        head, _sep, flag = token.partition(":")
        call = call_word(f"{head.partition('@')[0]}:{flag}" if flag else head.partition("@")[0])[0]
        expect = trial.defence().expect if not trial.no_defence else None
        if expect is None or call not in expect[1]:
            return False
        trial.apply_call(expect[0], call, 0)
    return partial or trial.phase == "done"


def _names_one(players: tuple[str, ...], word: str) -> bool:
    """The word names one player (a word that could begin several names names none)."""
    try:
        return player_named(players, word) is not None
    except Refused:
        return False


def _either(players: tuple[str, ...], word: str, table: str) -> Refused:
    """A word that could be a player's name or a word of the table where either stands."""
    player = player_named(players, word)
    assert player is not None
    longer = player[:len(word) + 1]
    return Refused("event-log", _("{word} could be {player} or {what}, where either may stand").format(
        word=repr(word), player=player, what=table), _("{longer} for {player}, or the word in full").format(
            longer=repr(longer), player=player))


def is_table_word(token: str) -> bool:
    """A word of the table: a bid, a call, a contract, a trick count (named or not)."""
    head = token.partition(":")[0].partition("@")[0]
    if "=" in token or _reads_as_count(token) or level_word(head) is not None:
        return True
    return any(_reads(read, head) for read in (bid_word, call_word))


def _reads(read: object, text: str) -> bool:
    try:
        read(text)  # type: ignore[operator]
    except Refused:
        return False
    return True


def _reads_as_count(token: str) -> bool:
    """A trick count, the declarer's marked (``8*``) or not."""
    try:
        int(token.strip(MARK))
    except ValueError:
        return False
    return True


def _reads_as_contract(token: str) -> bool:
    return level_word(token.partition(":")[0]) is not None


def _reads_as_call(token: str) -> bool:
    head, _sep, flag = token.partition(":")
    return _reads(call_word, f"{head.partition('@')[0]}:{flag}" if flag else head.partition("@")[0])


def _after_contract(section: list[str]) -> bool:
    """The section after the bids is the calls or the tricks, the contract left out: its
    words are all calls, or all trick counts."""
    return all(_reads_as_call(t) for t in section) or all("=" in t or _reads_as_count(t) for t in section)


def _seat_named(deal: DealState, name: str) -> int:
    """The seat of the player of the deal a line names (his name, or its beginning)."""
    person = player_named(deal.persons, name)
    if person is None:
        raise Refused("event-log", _("unknown player {text}").format(text=repr(name)), ", ".join(deal.persons))
    return deal.seat_index[person]
