"""Deal lines that cannot be misread (issue 20, items 1 and 2): the outcome form (the
declarer's tricks first), tricks named, the table's short words, raspasy and misère
short, the contract from the last bid; a result that a slip of the tricks' order would
explain, held for the scorer; a line cut short; a full line typed after a part of it;
the Code's "pass, half-whist, pass" [Code 3.8.8]; a correction naming its record by its
deal. The parser is tested on a pulka in memory, the desk on a store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from helpers import ok, refused, stored_rows
from ledger.application import Ledger
from ledger.words.deal_line import TricksReading, deal_events
from ledger.desks.pulka import PulkaDesk
from ledger.judge.judging import judge_events
from ledger.judge.kinds import PULKA, judge_log
from ledger.desks.told import Doubt, Doubtful, doubt_of
from ledger.store.event_store import Store
from ledger.vocabulary.events import AnyEvent, Bid, GameStarted, Tricks
from ledger.vocabulary.refusal import Refused
from projections.game import GameState
from projections.sheet import totals

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

CLOCK = "2026-11-30T20:00:00+00:00"
ABV = ("Anna", "Boris", "Vera")


def pulka(players: tuple[str, ...] = ABV, dealer: str = "Anna", **rules: Any) -> GameState:
    """A fresh pulka; with three players and Anna dealing, Boris leads, then Vera, Anna."""
    started = judge_log([(1, GameStarted(game="g", players=players, pulya=20, rules=rules,
                                         first_dealer=dealer))], lambda: CLOCK)[0]
    assert isinstance(started, GameStarted)
    return GameState.start(started)


def line(state: GameState, text: str, read: TricksReading | None = None) -> list[AnyEvent]:
    return judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, text, reading=read)), lambda: CLOCK)


def refusal(act: Callable[[], Any]) -> Refused:
    with pytest.raises(Refused) as caught:
        act()
    return caught.value


def plain(events: list[AnyEvent]) -> list[AnyEvent]:
    """The events without the mark of an implied auction."""
    return [msgspec.structs.replace(e, implied=False) if isinstance(e, Bid) else e for e in events]


def tricks(events: list[AnyEvent]) -> dict[str, int]:
    last = events[-1]
    assert isinstance(last, Tricks)
    return dict(last.tricks)


# -- the outcome form ------------------------------------------------------------------------------


def test_the_outcome_reads_the_declarers_tricks_first() -> None:
    # Anna deals and Boris leads; after the declarer Vera, clockwise, come Anna, then Boris.
    outcome = line(pulka(), "Vera 7H w w 8 2 0")
    assert tricks(outcome) == {"Vera": 8, "Anna": 2, "Boris": 0}
    # The same deal in the old form gives its tricks from the forehand: Boris, Vera, Anna.
    whole = line(pulka(), "pass 7H pass | 7H | whist whist | 0 8 2")
    assert tricks(whole) == {"Boris": 0, "Vera": 8, "Anna": 2}
    assert plain(outcome) == whole


def test_an_outcome_without_its_auction_stands_for_the_simplest_one_marked_implied() -> None:
    events = line(pulka(), "Vera 7H w p 8 1 1")
    bids = [e for e in events if isinstance(e, Bid)]
    assert [(b.player, b.bid) for b in bids] == [("Boris", "pass"), ("Vera", "7H"), ("Anna", "pass")]
    assert all(b.implied for b in bids)
    # Given, the auction is recorded as said, and the contract is the last bid.
    said = line(pulka(), "6D 7H p p | Vera w p 8 1 1")
    assert [(e.player, e.bid, e.implied) for e in said if isinstance(e, Bid)] == [
        ("Boris", "6D", False), ("Vera", "7H", False), ("Anna", "pass", False), ("Boris", "pass", False)]
    assert tricks(said) == {"Vera": 8, "Anna": 1, "Boris": 1}


def test_one_step_bidding_implies_the_lowest_bid() -> None:
    """Where bids go one step at a time (jump_bids off) the declarer's only bid, everyone
    else passing, was the lowest; his contract stands above it [Code 3.3.8, 3.4.3]."""
    events = line(pulka(jump_bids=False), "Vera 8S p p")
    assert [(e.player, e.bid) for e in events if isinstance(e, Bid)] == [
        ("Boris", "pass"), ("Vera", "6S"), ("Anna", "pass")]
    assert [e for e in events if type(e).__name__ == "Contract"][0].contract == "8S"  # type: ignore[attr-defined]


def test_names_and_their_beginnings_read_the_tricks_in_any_order() -> None:
    expected = {"Vera": 8, "Anna": 1, "Boris": 1}
    assert tricks(line(pulka(), "pass 7H pass | 7H | whist whist | Boris=1 Vera=8 Anna=1")) == expected
    assert tricks(line(pulka(), "v 7h w w a=1 b=1 V=8")) == expected
    exc = refusal(lambda: line(pulka(), "Vera 7H w w Vera=8 1 1"))
    assert exc.rule == "3.2.8" and "all named or none" in exc.reason
    exc = refusal(lambda: line(pulka(("Anna", "Andrei", "Vera")), "a 6S w w 6 2 2"))
    assert "could be Anna or Andrei" in exc.reason


def test_the_short_words_of_the_table() -> None:
    long = line(pulka(), "pass 6S pass | 6S | whist pass | 2 6 2")
    for short in ("p 6S - | 6S | w p | 2 6 2", "п 6♠ пас | 6п | в п | 2 6 2", "- 6s p | w - | 2 6 2"):
        assert line(pulka(), short) == long, short
    half = line(pulka(), "pass 6S pass | 6S | pass half_whist")
    assert line(pulka(), "p 6S p | п пв") == half == line(pulka(), "p 6s p | 6s | p hw")
    assert line(pulka(), "6S p p | 6S | w:o p | 6 3 1")[-2:] == line(pulka(), "6S p p | 6S | whist:open pass | 6 3 1")[-2:]


def test_raspasy_and_misere_short() -> None:
    assert line(pulka(), "rasp 2 5 3") == line(pulka(), "pass pass pass | 2 5 3")
    assert line(pulka(), "распасы Boris=2 Vera=5 Anna=3") == line(pulka(), "pass pass pass | 2 5 3")
    four = ("Anna", "Boris", "Vera", "Gleb")
    assert line(pulka(four), "расп 3 4 2 1") == line(pulka(four), "pass pass pass | 3 4 2 1")
    misere = line(pulka(), "Boris miz 0")
    assert plain(misere) == line(pulka(), "misere pass pass | misere | 0")
    assert plain(line(pulka(), "Vera мизер 1")) == line(pulka(), "pass misere pass | misere | 1")
    assert line(pulka(), "misere p p | 0") == line(pulka(), "misere pass pass | misere | 0")


def test_the_contract_from_the_last_bid() -> None:
    whole = line(pulka(), "6S pass pass | 6S | whist whist | 6 2 2")
    assert line(pulka(), "6S p p | w w | 6 2 2") == whole
    assert line(pulka(), "6S p p | | w w | 6 2 2") == whole
    # The third hand who took the talon without bidding has no bid to take it from.
    exc = refusal(lambda: line(pulka(), "pass pass | whist pass | 1 2 7"))
    assert exc.rule == "3.3.15" and "name it" in exc.reason


def test_an_outcome_after_its_auction_names_the_auctions_winner() -> None:
    exc = refusal(lambda: line(pulka(), "pass 7H pass | Anna w w 8 1 1"))
    assert exc.rule == "3.3.13" and "won by Vera, not Anna" in exc.reason
    exc = refusal(lambda: line(pulka(("Anna", "Boris", "Vera", "Gleb")), "Anna 6S w w 6 2 2"))
    assert exc.rule == "3.2.10" and "Anna deals deal 1 and sits out" in exc.reason
    exc = refusal(lambda: line(pulka(), "Vera 7H 8 1 1"))
    assert exc.rule == "3.8.1" and "calls come before the tricks" in exc.reason


def test_four_players_the_dealers_hand_stands_in_its_place() -> None:
    """The whisting dealer's tricks stand in the place of the defender whose cards he
    plays [Code 3.8.8]; declarer first, then the defenders in the order they called."""
    four = ("Anna", "Boris", "Vera", "Gleb")
    whole = line(pulka(four, "Gleb"), "6S pass pass | 6S | pass half_whist pass whist@Boris | 5 3 2")
    # Anna leads and declares; Boris (first defender) passed and his cards went to Gleb.
    assert tricks(whole) == {"Anna": 5, "Gleb": 3, "Vera": 2}
    assert plain(line(pulka(four, "Gleb"), "Anna 6S p hw p w@Boris 5 3 2")) == whole


# -- the Code's own half-whist sequence [Code 3.8.8] ----------------------------------------------


def test_pass_half_whist_pass_is_explained_at_three_and_taken_at_four() -> None:
    for text in ("6S pass pass | 6S | pass half_whist pass", "Boris 6S p hw p"):
        exc = refusal(lambda: line(pulka(), text))
        assert exc.rule == "3.8.8" and "the half-whist stands" in exc.reason
        assert "pass, half-whist, pass" in exc.reason and "only at four" in exc.reason
        assert exc.allowed is not None and "pass half_whist whist" in exc.allowed
    four = line(pulka(("Anna", "Boris", "Vera", "Gleb"), "Gleb"), "6S pass pass | 6S | pass half_whist pass")
    assert [e.call for e in four[-3:]] == ["pass", "half_whist", "pass"]  # type: ignore[attr-defined]


def test_the_desks_defence_explains_it_too(store: Store) -> None:
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Anna,Boris,Vera", first_dealer="Anna")
    desk.deal("g", "Boris 6S p hw")
    exc = refusal(lambda: desk.defence("g", "vera", "pass"))
    assert exc.rule == "3.8.8" and "the half-whist stands" in exc.reason


# -- counts that read two ways ----------------------------------------------------------------------


def doubted(text: str, state: GameState | None = None) -> Doubt | None:
    """The question ``text`` raises at the start of a pulka (Anna deals, Boris leads)."""
    state, read = state or pulka(), TricksReading()
    before = totals(state.sheet())
    line(state, text, read)
    return doubt_of(state, read, text, before)


def test_the_issues_line_is_asked_with_both_readings_and_their_sheets() -> None:
    """``pass 7H pass | 7H | whist whist | 8 1 1``: read from the forehand (Boris), Vera
    took 1, Boris 8; read declarer first, as the outcome has it, Vera took 8. Both are
    shown with what each writes on the sheet, and the lines that say each one way only."""
    text = "pass 7H pass | 7H | whist whist | 8 1 1"
    doubt = doubted(text)
    assert doubt is not None and doubt.deal == 1
    assert doubt.typed == {"Boris": 8, "Vera": 1, "Anna": 1}
    assert doubt.reading == {"Vera": 8, "Anna": 1, "Boris": 1} and doubt.other == "read declarer first"
    assert doubt.read_as == "from the forehand, Boris first"
    assert doubt.reason == "the counts 8 1 1 read two ways write two sheets"
    assert doubt.line == "pass 7H pass | 7H | whist whist | Vera=8 Anna=1 Boris=1"
    assert doubt.typed_line == "pass 7H pass | 7H | whist whist | 8 1* 1"
    assert doubt.other_line == "pass 7H pass | 7H | whist whist | 8* 1 1"
    # A seven made: its price, 4, in the pulya [Code 2.2.2]; six down: the gora.
    assert {w.text: w.amount for w in doubt.other_writes}["Vera pulya"] == 4
    assert "Vera pulya" not in {w.text for w in doubt.typed_writes}
    assert {w.text for w in doubt.typed_writes} >= {"Vera gora"}
    # Each of the lines it offers reads one way only, and as it says.
    for offered, meant in ((doubt.line, doubt.reading), (doubt.typed_line, doubt.typed),
                           (doubt.other_line, doubt.reading)):
        state, read = pulka(), TricksReading()
        assert tricks(line(state, offered, read)) == meant
        assert read.order in ("named", "marked") and doubted(offered) is None


def test_a_slip_on_any_result_is_asked_and_the_other_reading_is_the_other_order() -> None:
    """A failed contract typed declarer first in the whole deal, an outcome typed from the
    forehand, a misère either way: each is asked, and the reading offered is the line's
    other order, never a guess at the likelier result."""
    # Vera's six of clubs, one down (5 3 2 declarer first), typed in the whole deal.
    doubt = doubted("pass 6C pass | 6C | whist whist | 5 3 2")
    assert doubt is not None and doubt.typed == {"Boris": 5, "Vera": 3, "Anna": 2}
    assert doubt.reading == {"Vera": 5, "Anna": 3, "Boris": 2}
    # The outcome typed from the forehand: Boris 1, Vera 8, Anna 1.
    doubt = doubted("Vera 7H w w 1 8 1")
    assert doubt is not None and doubt.typed == {"Vera": 1, "Anna": 8, "Boris": 1}
    assert doubt.reading == {"Boris": 1, "Vera": 8, "Anna": 1} and doubt.other == "read from the forehand, Boris first"
    # The old guess turned the counts until the declarer had the most; the other order is
    # what a slip gives, here Anna's eight.
    doubt = doubted("Vera 7H w w 1 1 8")
    assert doubt is not None and doubt.reading == {"Boris": 1, "Vera": 1, "Anna": 8}
    doubt = doubted("pass misere pass | misere | 0 4 6")  # Vera's misère, counted from Boris
    assert doubt is not None and doubt.reading["Vera"] == 0 and doubt.typed["Vera"] == 4
    doubt = doubted("Vera miz 2 4 4")  # a misère failed as typed; the forehand's order makes it
    assert doubt is not None and doubt.typed["Vera"] == 2 and doubt.reading["Vera"] == 4


def test_what_reads_one_way_or_writes_one_sheet_is_not_asked() -> None:
    for text in ("Boris 7H w w 7 2 1",  # the declarer leads: both orders are the same
                 "pass 7H pass | 7H | whist whist | Boris=1 Vera=7 Anna=2",  # named
                 "pass 7H pass | 7H | whist whist | 1 7* 2", "Vera 7H w w 7* 2 1",  # the declarer's marked
                 "Vera 7H w w 2 1 7*",  # marked, the counts beginning with Boris's: round the table
                 "rasp 8 1 1", "pass pass pass | 2 5 3",  # raspasy: from the forehand in every form
                 "Vera miz 0", "Vera miz 1",  # a misère's count alone
                 "Vera miz 1 1 8",  # Vera's 1 both ways: a misère writes only the declarer's result
                 "Vera 8S p p", "pass 6S pass | 6S | pass half_whist"):  # no tricks
        assert doubted(text) is None, text


def test_a_mark_is_the_declarers_and_only_his() -> None:
    exc = refusal(lambda: line(pulka(), "rasp 2* 5 3"))
    assert exc.rule == "3.2.8" and "a raspasy has no declarer" in exc.reason
    exc = refusal(lambda: line(pulka(), "Vera 7H w w 7* 2* 1"))
    assert exc.rule == "3.2.8" and "only the declarer's count is marked" in exc.reason
    exc = refusal(lambda: line(pulka(), "Vera 7H w w 7* 3"))
    assert exc.rule == "3.2.8" and "expected 3 trick counts" in exc.reason
    assert tricks(line(pulka(), "misere p p | 0*")) == {"Boris": 0}


def test_the_desk_holds_a_line_read_two_ways_until_confirmed(store: Store, store_url: str) -> None:
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Anna,Boris,Vera", first_dealer="Anna")
    rows = stored_rows(store_url)
    with pytest.raises(Doubtful) as caught:
        desk.deal("g", "pass 7H pass | 7H | whist whist | 8 1 1")
    assert caught.value.doubt.line.endswith("Vera=8 Anna=1 Boris=1") and caught.value.field == "line"
    assert "'pass 7H pass | 7H | whist whist | 8* 1 1'" in (caught.value.allowed or "")
    assert "--yes" in (caught.value.allowed or "")
    assert "Vera pulya +4" in caught.value.reason and "Vera gora +" in caught.value.reason
    assert stored_rows(store_url) == rows
    desk.deal("g", caught.value.doubt.line)
    sheet = totals(desk.ledger.state("g").sheet())
    assert sheet[("Vera", "pulya", None)] == 4  # a seven made: its price, 4 [Code 2.2.2]
    desk.undo("g")
    as_typed = desk.deal("g", "pass 7H pass | 7H | whist whist | 8 1 1", confirmed=True)
    assert as_typed.events[-1].event.tricks == {"Boris": 8, "Vera": 1, "Anna": 1}  # type: ignore[attr-defined]


# -- a line cut short, and typed whole after a part ----------------------------------------------


def test_a_line_cut_short_is_refused_unless_left_open(store: Store, store_url: str) -> None:
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Anna,Boris,Vera", first_dealer="Anna")
    rows = stored_rows(store_url)
    for short in ("6S pass pass | 6S | whist", "6S pass pass | 6S | whist whist", "6S pass", "Boris 6S w"):
        exc = refusal(lambda: desk.deal("g", short))
        assert exc.rule == "command-line" and "cut short?" in exc.reason and exc.field == "line", short
        assert "--leave-open" in (exc.allowed or "")
    assert stored_rows(store_url) == rows
    part = desk.deal("g", "6S pass pass | 6S | whist", leave_open=True)
    assert part.next == "deal 1 waits for pass or whist by Anna"  # Boris declares; Vera whisted
    # The whole line typed again: refused, saying what to undo.
    exc = refusal(lambda: desk.deal("g", "6S pass pass | 6S | whist whist | 6 2 2"))
    assert "deal 1 was begun before this line (6S pass pass | 6S | whist, events 2-6)" in exc.reason
    assert "undo first (it takes back events 2-6), then the line" in (exc.allowed or "")
    desk.undo("g")
    done = desk.deal("g", "6S pass pass | 6S | whist whist | 6 2 2")
    assert done.deals and done.deals[0][0] == 1
    # The rest of a line left open completes it.
    desk.deal("g", "7H pass", leave_open=True)
    rest = desk.deal("g", "pass | 7H | whist pass | 7 2 1")
    assert rest.deals and rest.deals[0][0] == 2


# -- a correction that names its record by its deal ------------------------------------------------


def test_correct_by_deal(store: Store) -> None:
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Anna,Boris,Vera", first_dealer="Anna")
    desk.deal("g", "Vera 7H w w 7* 2 1")  # events 2-8: deal 1, its tricks event 8, its contract 5
    desk.deal("g", "rasp 2 5 3")  # deal 2
    preview = desk.preview_correction("g", "deal:1", ["Vera=8", "Anna=1"])
    assert preview.named == "deal:1" and preview.target == 8 and preview.now == "tricks Anna 1, Boris 1, Vera 8"
    assert desk.preview_correction("g", "deal:1.tricks", ["Vera=8", "Anna=1"]).target == 8
    assert desk.preview_correction("g", "deal:1", ["8S"]).target == 5
    assert desk.preview_correction("g", "deal:1.contract", ["8S"]).now == "Vera declares 8S"
    exc = refusal(lambda: desk.preview_correction("g", "deal:1", ["pass"]))
    assert exc.rule == "4.2.7" and "deal:1.tricks, deal:1.contract" in (exc.allowed or "")
    exc = refusal(lambda: desk.preview_correction("g", "deal:2.contract", ["7S"]))
    assert "deal 2 has no contract (raspasy)" in exc.reason and exc.field == "target"
    exc = refusal(lambda: desk.preview_correction("g", "deal:9", ["Vera=8"]))
    assert "no deal 9" in exc.reason and exc.allowed == "deal:1 to deal:2"
    exc = refusal(lambda: desk.preview_correction("g", "deal:x", ["Vera=8"]))
    assert exc.field == "target" and "deal:K.tricks" in (exc.allowed or "")
    done = desk.correct("g", "deal:1", ["Vera=8", "Anna=1"], expected=preview.expected)
    assert done.preview.target == 8 and done.told.events[0].event.target == 8  # type: ignore[attr-defined]


# -- the command line's own contract ---------------------------------------------------------------


def test_the_command_line_refuses_a_doubt_without_a_terminal_and_yes_stores_it(store_url: str) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "--first-dealer", "Anna", "-q")
    rows = stored_rows(store_url)
    err = refused(store_url, "deal", "pass 7H pass | 7H | whist whist | 8 1 1")
    assert "the counts 8 1 1 read two ways write two sheets" in err and "read declarer first" in err
    assert "'pass 7H pass | 7H | whist whist | 8* 1 1'" in err and "--yes" in err
    assert stored_rows(store_url) == rows
    said = ok(store_url, "deal", "pass 7H pass | 7H | whist whist | 8 1 1", "--yes")
    assert "Boris 8, Vera 1, Anna 1" in said and "Vera gora" in said


def test_the_command_line_corrects_by_deal_with_or_without_the_game(store_url: str) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "--first-dealer", "Anna", "-q")
    ok(store_url, "deal", "Vera 7H w w 7* 2 1", "-q")
    said = ok(store_url, "correct", "deal:1", "Vera=8", "Anna=1", "--yes")
    assert said.startswith("deal:1 is event 8\n") and "stored as event 9" in said
    said = ok(store_url, "correct", "g", "deal:1.contract", "8H", "--yes")
    assert said.startswith("deal:1.contract is event 5\n") and "now:    Vera declares 8H" in said
    err = refused(store_url, "correct", "deal:1", "pass", "--yes")
    assert "deal:1.tricks, deal:1.contract" in err


def test_the_command_line_refuses_a_line_cut_short(store_url: str) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "-q")
    err = refused(store_url, "deal", "6S pass pass | 6S | whist")
    assert "cut short?" in err and "--leave-open" in err
    assert "waits for pass or whist" in ok(store_url, "deal", "6S pass pass | 6S | whist", "--leave-open")


# -- typed twice: the same deal, its players named ------------------------------------------------


def test_typed_twice_is_the_same_deal_with_its_players(store: Store, store_url: str) -> None:
    """Two misères in a row by different players are two deals, though their lines
    without names are the same; the same player's, with the same tricks, is refused as a
    line typed twice, however it is typed."""
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Anna,Boris,Vera", first_dealer="Anna")
    desk.deal("g", "Anna miz 0")
    assert desk.deal("g", "Boris miz 0").deals[0][0] == 2
    exc = refusal(lambda: desk.deal("g", "pass misere pass | 0"))  # deal 3: Anna leads; Boris's misère again
    assert exc.rule == "command-line" and "this is deal 2 again" in exc.reason and "typed twice?" in exc.reason
    assert exc.field == "again" and exc.allowed is not None and "--again" in exc.allowed
    assert desk.deal("g", "Boris miz 0", again=True).deals[0][0] == 3


def test_the_apis_refusal_of_a_deal_typed_twice_names_its_own_field(store_url: str) -> None:
    from tests.serving import account, client, sign_in  # the service, only here

    account(store_url, "dora", "director")
    with client(store_url) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/games", json={"id": "new-game-0001", "game": "t1", "players": ["Anna", "Boris", "Vera"],
                                       "pulya": 10}, headers=director)
        assert r.status_code == 201, r.text
        version = r.json()["state"]["version"]
        for k, (line, status) in enumerate((("Anna miz 0", 201), ("Boris miz 0", 201), ("Boris miz 0", 422))):
            r = c.post("/api/games/t1/deal", json={"id": f"deal-000{k}", "version": version, "line": line},
                       headers=director)
            assert r.status_code == status, r.text
            version = r.json()["state"]["version"] if status == 201 else version
        refused = r.json()["refused"]
        assert refused["field"] == "again" and "typed twice" in refused["reason"]
        assert "--again" not in refused["message"] and refused["allowed"].startswith("again")


# -- every form at every door ----------------------------------------------------------------------


def test_a_line_beginning_with_a_pass_is_a_line_at_the_command_line(store_url: str) -> None:
    """``-`` is a pass; ``pulka deal "- 6S - | …"`` is the deal, not an unknown option."""
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "--first-dealer", "Anna", "-q")
    said = ok(store_url, "deal", "- 6S - | w w | 2 6* 2")
    assert "Boris pass, Vera 6S, Anna pass" in said
    said = ok(store_url, "deal", "--by", "Anna", "- - 6S | 6S | w - | 2 2 6*")  # deal 2: Vera leads
    assert "Vera pass, Anna pass, Boris 6S" in said and "Boris 6" in said


def test_a_name_beginning_with_a_word_of_the_table_is_read_where_a_name_stands() -> None:
    """``в`` is a whist and the beginning of Вера, ``п`` a pass and the beginning of Петя:
    each is the name where only a name may stand, and refused with both readings where
    either may."""
    ru = ("Анна", "Петя", "Вера")  # Анна deals, Петя leads, then Вера

    def state() -> GameState:
        return pulka(ru, "Анна")

    # No line begins with a call: "в" at the start is Вера.
    assert tricks(line(state(), "в 7ч в в 8* 1 1")) == {"Вера": 8, "Анна": 1, "Петя": 1}
    # A contract and calls after "п": bids alone would stop before the deal's result.
    petya = line(state(), "п 7ч п п")
    assert [(e.player, e.contract) for e in petya if type(e).__name__ == "Contract"] == [("Петя", "7H")]  # type: ignore[attr-defined]
    # After the bids, a section that is not calls alone begins with the declarer.
    assert tricks(line(state(), "пас 7ч пас | в в в 8* 1 1")) == {"Вера": 8, "Анна": 1, "Петя": 1}
    # The whole deal keeps its meaning: "п" opening the bids, two calls after them.
    whole = line(state(), "п 6п п | 6п | в в | 1 6* 3")
    assert [(e.player, e.bid) for e in whole if isinstance(e, Bid)][0] == ("Петя", "pass")
    # A bid's mark is no name's: "п" before a dark pass opens the bids as "пас" would.
    dark = line(pulka(ru, "Анна", dark_bids=True), "п pass:dark 7п | 7п | в в | 1 2 7*")
    assert [(e.player, e.bid, e.dark) for e in dark if isinstance(e, Bid)] == [
        ("Петя", "pass", False), ("Вера", "pass", True), ("Анна", "7S", False)]
    both_pass = line(state(), "6п п п | п п")  # Петя's six: two calls alone are the defence's
    assert [(e.player, e.call) for e in both_pass[-2:]] == [("Вера", "pass"), ("Анна", "pass")]  # type: ignore[attr-defined]
    # Three calls are more than the defence takes: Петя, then the two.
    assert len(line(state(), "6п п п | п п п")) == len(both_pass)
    # Where either may stand, both readings are named.
    for text, partial in (("п 6п п", True), ("6п п п | п п", True)):
        fresh = state()
        exc = refusal(lambda: judge_events(fresh, PULKA.decide, ((None, e) for e in deal_events(
            fresh, text, partial=partial)), lambda: CLOCK))
        assert exc.rule == "event-log" and ("could be Петя or" in exc.reason or "could be Вера or" in exc.reason), text
        assert exc.allowed is not None and (" for Петя" in exc.allowed or " for Вера" in exc.allowed), text


def test_the_desk_reads_a_name_where_a_name_stands(store: Store) -> None:
    desk = PulkaDesk(Ledger(store))
    desk.new("g", "Анна,Петя,Вера", first_dealer="Анна")
    assert desk.deal("g", "в 7ч в в 8* 1 1").deals[0][1].startswith("Петя pass, Вера 7H")
    exc = refusal(lambda: desk.deal("g", "п 6п п", leave_open=True))  # deal 2: Вера leads; Петя, or a pass?
    assert "'п' could be Петя or a bid" in exc.reason
