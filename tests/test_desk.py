"""The scorer's desk (``ledger.desks.pulka``, ``ledger.desks.rubber``): the command floor's API of
every recording command, tested directly where a rule is the subject; the command line
only parses and prints (checked on its source); every recording command and a ``pulka
play`` session load the game once; a kept game catches a concurrent writer and is left
as it was by a refused command."""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from helpers import ok, run, stored_rows
from ledger.application import Kept, Ledger
from ledger.desks.pulka import PulkaDesk, Started
from ledger.desks.rubber import RubberDesk
from ledger.desks.told import Told, told_doc
from ledger.store.stored import ConcurrentWriteError
from ledger.store.event_store import Store
from ledger.vocabulary import bridge, club, events, stream, tournament_events
from ledger.vocabulary.events import Correction, GameStarted, Tricks, Withdrawn, encode_event
from ledger.vocabulary.refusal import Refused
from projections.game import GameState, replay
from projections.sheet import totals

ROOT = Path(__file__).resolve().parent.parent
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"  # Vera deals, Anna declares: 6 tricks, each whister 2


def refusal(act: Callable[[], Any]) -> Refused:
    with pytest.raises(Refused) as caught:
        act()
    return caught.value


@pytest.fixture
def desk(store: Store) -> PulkaDesk:
    """A desk on a pulka ``g`` of Anna, Boris, Vera (Vera deals first)."""
    d = PulkaDesk(Ledger(store))
    d.new("g", "Anna,Boris,Vera", pulya=20)
    return d


# -- the command line only parses and prints -------------------------------------------------------


def event_classes() -> set[str]:
    """The names of every event and every part of one (a struct of the vocabulary's event
    modules)."""
    names = set()
    for module in (events, bridge, tournament_events, club, stream):
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, msgspec.Struct) and value.__module__ == module.__name__:
                names.add(name)
    return names


CODE_RULE = re.compile(r"^(\d|Law )")
CITED = re.compile(r"\[(?:rule|Code) \d")


def called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def test_the_command_line_builds_no_event_and_raises_no_rule_of_the_code() -> None:
    structs = event_classes()
    assert {"Bid", "Correction", "BridgeDeal", "Withdrawn", "PenaltyTrick", "Honours"} <= structs
    found = []
    for path in sorted((ROOT / "cli").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = called(node)
                if name in structs:
                    found.append(f"{where}:{node.lineno} builds a {name}")
                if name == "replace" and "structs" in ast.unparse(node.func):
                    found.append(f"{where}:{node.lineno} changes an event (msgspec.structs.replace)")
                if name == "Refused" and node.args and isinstance(node.args[0], ast.Constant) \
                        and CODE_RULE.match(str(node.args[0].value)):
                    found.append(f"{where}:{node.lineno} refuses by rule {node.args[0].value}")
            if isinstance(node, ast.Raise):
                for part in ast.walk(node):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str) and CITED.search(part.value):
                        found.append(f"{where}:{node.lineno} raises a refusal citing a rule: {part.value!r}")
    assert found == []


def test_the_source_check_sees_a_construction_and_a_refusal() -> None:
    """The check above reads what it must: a command that builds a Bid and refuses by the
    Code, written as the command line once was, is caught."""
    source = 'def f(s):\n    raise Refused("4.2.7", "x")\n    return Bid(player="A", bid="6S")\n'
    tree = ast.parse(source)
    calls = {called(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert "Bid" in calls & event_classes()
    refused = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and called(n) == "Refused")
    assert isinstance(refused.args[0], ast.Constant) and CODE_RULE.match(str(refused.args[0].value))


# -- one load per command --------------------------------------------------------------------------


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each stream was read whole from the store (``Store.load``,
    ``Store.read``); ``head:NAME`` counts the reads of a stream's head (``Store.count``)."""
    counts: Counter[str] = Counter()
    for method in ("load", "read"):
        original = getattr(Store, method)

        def counted(self: Store, game: str, *args: Any, original: Any = original, **kwargs: Any) -> Any:
            counts[game] += 1
            return original(self, game, *args, **kwargs)

        monkeypatch.setattr(Store, method, counted)
    count = Store.count

    def head(self: Store, game: str) -> int:
        counts["head:" + game] += 1
        return count(self, game)

    monkeypatch.setattr(Store, "count", head)
    return counts


PULKA_COMMANDS = [
    ["new", "g", "--players", "Anna,Boris,Vera", "--pulya", "20"],
    ["deal", "g", DEAL],
    ["bid", "g", "Boris", "6S"], ["bid", "g", "Vera", "pass"], ["bid", "g", "Anna", "pass"],
    ["contract", "g", "Boris", "6S"], ["defence", "g", "Vera", "whist"], ["defence", "g", "Anna", "whist"],
    ["tricks", "g", "Boris=6", "Vera=2", "Anna=2"],
    ["entry", "g", "Vera", "whists", "4", "--on", "Boris"],  # event 16
    ["pencil", "g", "Vera"],
    ["correct", "g", "16", "2", "--by", "Boris", "--yes"],
    ["deal", "g", "pass pass pass | 2 5 3"],
    ["undo", "g"],
    ["redo", "g"],
    ["undo", "g"],
    ["join", "g", "Gleb", "--agreed-by", "Anna,Boris,Vera"],
    ["substitute", "g", "Boris", "Dima", "--agreed-by", "Anna,Vera,Gleb"],
    ["leave", "g", "Gleb"],
    ["talon", "g", "peek", "Vera"],
    ["annul", "g", "--reason", "misdeal"],
    ["dealt", "g", "Anna"],
    ["penalty", "g", "Dima", "gora", "4", "--reason", "slow", "--by", "arbiter:Ivan"],
    ["object", "g", "Vera", "1"],
    ["bid", "g", "Dima", "6S"], ["bid", "g", "Vera", "pass"], ["bid", "g", "Anna", "pass"],
    ["ruling", "g", "3.4.4", "--by", "arbiter:Ivan"],
    ["abandon", "g", "--agreed-by", "Anna,Dima,Vera"],
]
RUBBER_COMMANDS = [
    ["bridge", "new", "r", "--players", "Nina,Egor,Sasha,Wera"],
    ["bridge", "deal", "r", "4S N 10"],
    ["bridge", "penalty", "r", "NS", "50", "--reason", "revoke", "--by", "arbiter:Ivan"],
    ["bridge", "correct", "r", "2", "tricks=11"],
    ["bridge", "abandon", "r", "--agreed-by", "Nina,Egor,Sasha,Wera"],
]


@pytest.mark.parametrize("commands", [PULKA_COMMANDS, RUBBER_COMMANDS], ids=["pulka", "rubber"])
def test_every_recording_command_loads_its_game_once(
    store_url: str, loads: Counter[str], commands: list[list[str]]
) -> None:
    game = commands[0][2] if commands[0][0] == "bridge" else commands[0][1]
    for command in commands:
        before = loads[game]
        ok(store_url, *command)
        assert loads[game] - before == 1, f"{command}: the game was read {loads[game] - before} times"
    # Every command stored what it says: one event each (a deal line, seven).
    assert loads["head:" + game] == 0
    assert len(stored_rows(store_url)) == (41 if game == "g" else 5)  # the raspasy redone: four again


def test_a_correction_asked_about_loads_twice_and_stores_only_what_was_shown(
    store_url: str, loads: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --yes the correction is previewed (one load), confirmed, and stored (one
    more) only if the game is still as it was shown."""
    ok(store_url, "new", "c", "--players", "Anna,Boris,Vera")
    ok(store_url, "deal", "c", DEAL)
    ok(store_url, "entry", "c", "Vera", "whists", "4", "--on", "Anna")
    monkeypatch.setattr("cli.record.sys", SimpleNamespace(stdin=SimpleNamespace(isatty=lambda: True)))
    before = loads["c"]
    result = run(store_url, "correct", "c", "9", "2", input="y\n")
    assert result.exit_code == 0, result.output
    assert "stored as event 10" in result.stdout and loads["c"] - before == 2


# -- pulka play: one load for the session ---------------------------------------------------------------


def session(store_url: str, monkeypatch: pytest.MonkeyPatch, lines: list[str | Callable[[], str]]) -> str:
    """Run ``pulka play g`` in this process on ``lines`` typed at its prompt (a callable
    runs between two prompts, as someone at another table would, and gives the line)."""
    typed = iter(lines)

    def prompt(text: str = "") -> str:
        print(text)
        line = next(typed, None)
        if line is None:
            raise EOFError
        return line() if callable(line) else line

    monkeypatch.setattr(builtins, "input", prompt)
    result = run(store_url, "play", "g")
    assert result.exit_code == 0, result.output
    return result.output


def test_a_session_loads_the_game_once_and_reads_its_head_at_each_line(
    store_url: str, loads: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera")
    before = loads["g"]
    shown = session(store_url, monkeypatch, [DEAL, "pass pass pass | 2 5 3", "u", "entry Vera whists 4 --on Anna",
                                             "7H pass pass | 7H | whist pass | 7 2 1"])
    assert loads["g"] - before == 1  # the session's own load; no line loads the game again
    assert loads["head:g"] >= 5  # each line checked that nobody else had written
    assert "Anna pulya +2" in shown and "events 9-12 withdrawn while in hand" in shown
    assert "event 14: entry: Vera whists on Anna +4" in shown and "Boris pulya +4" in shown
    kinds = [msgspec.json.decode(row[-1])["event"]["type"] for row in stored_rows(store_url)]
    assert kinds.count("bid") == 9 and kinds.count("withdrawn") == 1 and kinds.count("entry") == 1


def test_a_session_is_told_of_a_scorer_writing_to_the_same_game(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera")

    def elsewhere() -> str:
        with Store(store_url) as store:  # another scorer records deal 1 first
            PulkaDesk(Ledger(store)).deal("g", DEAL)
        return "pass pass pass | 2 5 3"  # typed for deal 1, as the prompt still said

    shown = session(store_url, monkeypatch, [elsewhere, "pass pass pass | 2 5 3"])
    assert "not stored: 'g' was changed by someone else: expected 1 stored event(s), found 8" in shown
    assert "deal 2: Anna deals, Boris leads >" in shown  # the session loaded the game again
    with Store(store_url) as store:
        state = Ledger(store).state("g")
    assert [d.raspasy for d in state.deals] == [False, True]  # the other scorer's deal, then the session's


# -- the desk's own rules ------------------------------------------------------------------------------


@pytest.mark.sqlite_only
def test_a_new_pulka_says_who_leads(store: Store) -> None:
    started = PulkaDesk(Ledger(store)).new("n", ["Anna", "Boris", "Vera"], first_dealer="boris")
    assert isinstance(started, Started) and started.created
    assert isinstance(started.event, GameStarted) and started.event.first_dealer == "Boris"
    assert started.leads == "Vera"  # the player to the dealer's left
    again = PulkaDesk(Ledger(store)).new("n", ["Anna", "Boris", "Vera"], first_dealer="Boris")
    assert not again.created


@pytest.mark.sqlite_only
def test_a_refusal_names_the_field_typed_wrong_and_stores_nothing(desk: PulkaDesk, store: Store) -> None:
    cases: list[tuple[Callable[[], Any], str, str]] = [
        (lambda: desk.bid("g", "Ann", "6S"), "player", "event-log"),
        (lambda: desk.bid("g", "Anna", "6Z"), "bid", "2.2.2"),
        (lambda: desk.contract("g", "Anna", "6Z"), "contract", "2.2.2"),
        (lambda: desk.defence("g", "Anna", "maybe"), "call", "3.8.1"),
        (lambda: desk.entry("g", "Anna", "money", 4), "column", "4.2.1"),
        (lambda: desk.tricks("g", ["Anna6", "Boris=4"]), "counts", "3.5"),
        (lambda: desk.tricks("g", ["Anna=6"], penalties=["Anna=1"]), "penalties", "3.9.12"),
        (lambda: desk.bid("g", "Anna", "6S", by="Masha"), "by", "event-log"),
        (lambda: desk.ruling("g", "3.3.16.3", offender="Anna", whists=["Boris52"]), "whists", "3.3.16.3"),
        (lambda: desk.ruling("g", "3.8.5.1", whists=["Boris"]), "whists", "3.8.5.1"),
        (lambda: desk.talon("g", "burnt", "Anna"), "kind", "3.2.21"),
        (lambda: desk.join("g", "Gleb", agreed_by="Anna,Boris,Ivan"), "agreed_by", "event-log"),
    ]
    before = store.count("g")
    for act, field, rule in cases:
        exc = refusal(act)
        assert (exc.field, exc.rule) == (field, rule), exc
    assert store.count("g") == before == 1


@pytest.mark.sqlite_only
def test_a_judges_refusal_names_no_field(desk: PulkaDesk) -> None:
    exc = refusal(lambda: desk.bid("g", "Boris", "6S"))  # Anna speaks first [Code 3.3.13]
    assert exc.field is None and exc.rule.startswith("3.")


@pytest.mark.parametrize(("line", "rule"), [
    ("6S pass pass | 6S | whist whist | 6 2", "3.2.8"),  # three players in the deal, two counts
    ("6S pass pass | 6S | whist whist | 6 2 2 | 1", "event-log"),  # a fifth section
    ("6S pass 6Q", "2.2.2"),  # not a bid
])
def test_a_deal_line_typed_wrong_names_the_line(desk: PulkaDesk, store: Store, line: str, rule: str) -> None:
    exc = refusal(lambda: desk.deal("g", line))
    assert (exc.rule, exc.field) == (rule, "line") and store.count("g") == 1
    assert refusal(lambda: desk.deal("g", "6S 6S")).field is None  # the judge's: Boris may not repeat it


@pytest.mark.sqlite_only
def test_a_deal_line_said(desk: PulkaDesk) -> None:
    said = desk.deal("g", "6♠ пас пас | 6♠ | вист вист | 6 2 2")
    assert said.kind == "pulka" and [e.number for e in said.events] == list(range(2, 9))
    assert said.deals == ((1, "Anna 6S, Boris pass, Vera pass | Anna 6S | Boris whist, Vera whist | "
                                "Anna 6, Boris 2, Vera 2"),)
    # 6 spades made: 2 in the pulya; each whister's 2 tricks at 2 whists a trick (Sochi).
    assert {(w.text, w.amount) for w in said.writes} == {("Anna pulya", 2), ("Boris whists on Anna", 4),
                                                         ("Vera whists on Anna", 4)}
    assert said.next == "next: deal 2: Anna deals, Boris leads" and not said.over and said.notices == ()


@pytest.mark.sqlite_only
def test_a_line_typed_twice_needs_again(desk: PulkaDesk, store: Store) -> None:
    desk.deal("g", DEAL)
    desk.deal("g", "pass pass pass | Anna=2 Boris=5 Vera=3")
    exc = refusal(lambda: desk.deal("g", "rasp Anna=2 Boris=5 Vera=3"))  # the same deal, however typed
    assert exc.rule == "command-line" and "typed twice" in exc.reason and store.count("g") == 12
    assert exc.field == "again"
    assert desk.deal("g", "pass pass pass | Anna=2 Boris=5 Vera=3", again=True).deals[0][0] == 3


@pytest.mark.sqlite_only
def test_a_forgotten_result_is_told_and_guards_the_next_deal(desk: PulkaDesk) -> None:
    played = desk.deal("g", "6S pass pass | 6S | whist pass", leave_open=True)  # played, its tricks not recorded
    assert played.open_deal == 1 and [n.rule for n in played.notices] == ["4.2.10"]
    assert "deal 1 was played but its result is not recorded" in played.notices[0].text
    exc = refusal(lambda: desk.bid("g", "Boris", "pass"))
    assert exc.rule == "4.2.10" and "--leave-open" in (exc.allowed or "")
    left = desk.bid("g", "Boris", "pass", leave_open=True)
    assert [n.text[:48] for n in left.notices] == ["deal 1 is left without its result; its tricks ma"]


@pytest.mark.sqlite_only
def test_undo_of_an_undo_and_of_a_record_out_of_hand(desk: PulkaDesk) -> None:
    desk.deal("g", DEAL)
    undone = desk.undo("g")
    assert isinstance(undone.events[0].event, Withdrawn) and undone.events[0].event.first == 2
    exc = refusal(lambda: desk.undo("g"))
    assert exc.rule == "4.2.8" and "an undo is not undone" in exc.reason
    desk.deal("g", DEAL)
    desk.pencil("g", "Anna")
    desk.pencil("g", "Boris")
    desk.pencil("g", "Vera")
    exc = refusal(lambda: desk.undo("g", first=10))
    assert exc.rule == "4.2.8" and "nothing was withdrawn: a record out of hand is corrected instead" in exc.reason


# -- corrections in the table's words ---------------------------------------------------------------


@pytest.mark.sqlite_only
def test_a_correction_of_tricks_makes_ten_with_the_one_left_out(desk: PulkaDesk) -> None:
    desk.deal("g", DEAL)  # event 8: Anna 6, Boris 2, Vera 2
    preview = desk.preview_correction("g", 8, ["anna=5", "Boris=3"])
    assert preview.now == "tricks Anna 5, Boris 3, Vera 2"  # Vera: 10 - 5 - 3
    assert preview.was == "tricks Anna 6, Boris 2, Vera 2" and preview.expected == 8
    done = desk.correct("g", 8, ["anna=5", "Boris=3"], expected=preview.expected)
    stored = done.told.events[0].event
    assert done.number == 9 and isinstance(stored, Correction)
    assert stored.replacement == {"tricks": {"Anna": 5, "Boris": 3, "Vera": 2}}


@pytest.mark.parametrize(("target", "changes", "words"), [
    (2, ["Anna=6"], "is a trick count, but event 2 is a bid"),
    (9, ["amount=many"], "amount=many is not a whole number"),
    (9, ["tricks=5"], "trick counts are written NAME=N"),
    (8, ["later"], "'later' says nothing a correction of this event could change"),
])
def test_a_correction_typed_wrong_is_refused_by_4_2_7(
    desk: PulkaDesk, target: int, changes: list[str], words: str
) -> None:
    desk.deal("g", DEAL)
    desk.entry("g", "Vera", "whists", 4, on="Anna")  # event 9
    exc = refusal(lambda: desk.correct("g", target, changes))
    assert (exc.rule, exc.field) == ("4.2.7", "changes") and words in exc.reason


def test_a_correction_shown_is_not_stored_after_another_write(desk: PulkaDesk, store: Store) -> None:
    desk.deal("g", DEAL)
    entry = desk.entry("g", "Vera", "whists", 4, on="Anna").events[0].number
    preview = desk.preview_correction("g", entry, ["2"], by="Boris")
    assert preview.asked_by == "Boris" and preview.recorded_by == "Vera"
    assert [(w.text, w.amount) for w in preview.writes] == [("Vera whists on Anna", -2)]
    desk.pencil("g", "Vera")  # written between the preview and the answer
    with pytest.raises(ConcurrentWriteError):
        desk.correct("g", entry, ["2"], by="Boris", expected=preview.expected)
    assert store.count("g") == entry + 1


# -- a kept game -----------------------------------------------------------------------------------


def fresh(store: Store, game: str) -> GameState:
    state = replay([s.event for s in store.load(game)])
    assert isinstance(state, GameState)
    return state


def test_a_kept_game_records_and_stays_the_stored_games_fold(store: Store) -> None:
    ledger = Ledger(store)
    PulkaDesk(ledger).new("k", "Anna,Boris,Vera")
    kept = ledger.keep("k")
    desk = PulkaDesk(ledger, kept=kept)
    desk.deal("k", DEAL)
    # Refused half-way (the tricks of a line that does not add up): nothing stored, and the
    # kept fold is the stored game's, not the one with the line's first events in it.
    with pytest.raises(Refused):
        desk.deal("k", "7H pass pass | 7H | whist pass | 7 2 2")
    desk.entry("k", "Vera", "whists", 4, on="Anna")
    assert len(kept.stored) == store.count("k") == 9
    assert kept.state.folded == 9 and totals(kept.state.sheet()) == totals(fresh(store, "k").sheet())


def test_a_kept_game_holds_its_events_as_the_store_gives_them_back(store: Store) -> None:
    # The tricks typed in the order of the line (Vera first) are stored with their names
    # in the encoding's order: the kept events, the state's and the audit trail read from
    # them are the stored ones, so that what a service shows of the game does not depend
    # on whether it recorded the deal itself or read it back.
    ledger = Ledger(store)
    PulkaDesk(ledger).new("k", "Vera,Boris,Anna")
    kept = ledger.keep("k")
    desk = PulkaDesk(ledger, kept=kept)
    desk.deal("k", DEAL)
    desk.deal("k", "pass pass pass | 2 5 3")
    stored = [s.event for s in store.load("k")]
    kept_events = [s.event for s in kept.stored]
    assert kept_events == stored
    assert [encode_event(e) for e in kept_events] == [encode_event(e) for e in stored]
    assert [list(e.tricks) for e in kept_events if isinstance(e, Tricks)] == \
        [list(e.tricks) for e in stored if isinstance(e, Tricks)]
    assert [list(e.tricks) for e in kept.state.events if isinstance(e, Tricks)] == \
        [list(e.tricks) for e in stored if isinstance(e, Tricks)]


def test_a_kept_game_refuses_when_someone_else_wrote(store: Store) -> None:
    ledger = Ledger(store)
    PulkaDesk(ledger).new("k", "Anna,Boris,Vera")
    kept = ledger.keep("k")
    PulkaDesk(Ledger(store)).deal("k", DEAL)  # another scorer
    with pytest.raises(ConcurrentWriteError):
        PulkaDesk(ledger, kept=kept).deal("k", "pass pass pass | 2 5 3")
    assert store.count("k") == 8 and kept.state.folded == 1
    again = ledger.renewed(kept)
    assert again.state.folded == len(again.stored) == 8  # the new events read and folded in
    assert totals(again.state.sheet()) == totals(fresh(store, "k").sheet())
    assert ledger.renewed(again) is again  # nobody wrote since: not loaded again
    PulkaDesk(ledger, kept=again).deal("k", "pass pass pass | 2 5 3")
    assert store.count("k") == 12


def test_a_kept_game_is_used_only_for_its_own_game(store: Store) -> None:
    ledger = Ledger(store)
    PulkaDesk(ledger).new("k", "Anna,Boris,Vera")
    PulkaDesk(ledger).new("m", "Anna,Boris,Vera")
    kept = ledger.keep("k")
    PulkaDesk(ledger, kept=kept).deal("m", DEAL)
    assert store.count("m") == 8 and len(kept.stored) == 1 and isinstance(kept, Kept)


# -- the rubber's desk, and one shape for both kinds ------------------------------------------------


@pytest.fixture
def rubber(store: Store) -> RubberDesk:
    d = RubberDesk(Ledger(store))
    started = d.new("r", "Nina,Egor,Sasha,Wera")
    assert started.created and started.event.game == "r"
    return d


@pytest.mark.sqlite_only
def test_a_rubber_says_what_it_wrote_as_a_pulka_does(rubber: RubberDesk) -> None:
    said = rubber.deal("r", "4S N 10")
    assert isinstance(said, Told) and said.kind == "rubber" and said.events[0].number == 2
    # Four spades made: 4 x 30 = 120 below the line, a game for N–S [Law 81, 84].
    assert [(w.cell[:2], w.amount) for w in said.writes] == [(("NS", "below"), 120)]
    assert said.vulnerable == {"NS": True, "EW": False} and said.next == "deal 2: Egor deals"
    doc = told_doc(said)
    assert list(doc) == ["game", "events", "writes", "verdicts", "vulnerable", "next", "over"]
    assert doc["writes"] == [{"side": "NS", "line": "below", "amount": 120}]
    corrected = rubber.correct("r", 2, {"tricks": "11", "honours": "S:100"})
    assert [v.kind for v in corrected.verdicts] == ["effective"] and corrected.verdicts[0].effect.rule == "Law 77"
    # One overtrick, 30 above; four honours in one hand, 100 above [Law 84].
    assert sorted((w.cell[:2], w.amount) for w in corrected.writes) == [(("NS", "above"), 130)]


@pytest.mark.sqlite_only
def test_the_rubbers_refusals_name_their_field(rubber: RubberDesk) -> None:
    assert refusal(lambda: rubber.deal("r", "4S Q 10")).field == "line"
    assert refusal(lambda: rubber.penalty("r", "NW", 50, reason="x", by="arbiter:I")).field == "side"
    assert refusal(lambda: rubber.correct("r", 1, {"declarer": "Zed"})).field == "changes"
    assert refusal(lambda: rubber.abandon("r", agreed_by="Nina,Egor,Sasha,Zed")).field == "agreed_by"
    assert refusal(lambda: rubber.deal("r", "4S N 10", by="Zed")).field == "by"


@pytest.mark.sqlite_only
def test_a_pulkas_document_keeps_its_keys(desk: PulkaDesk) -> None:
    doc = told_doc(desk.entry("g", "Vera", "whists", 4, on="Anna"))
    assert list(doc) == ["game", "events", "writes", "verdicts", "deals", "next", "over", "open_deal"]
    assert doc["writes"] == [{"player": "Vera", "column": "whists", "on": "Anna", "amount": 4}]
    assert doc["events"][0]["type"] == "entry" and doc["verdicts"] == [] and doc["open_deal"] is None


@pytest.mark.sqlite_only
def test_a_kind_is_refused_the_other_kinds_desk(desk: PulkaDesk, rubber: RubberDesk) -> None:
    assert "is a pulka, not a rubber" in refusal(lambda: rubber.deal("g", "4S N 10")).reason
    assert "is a rubber, not a pulka" in refusal(lambda: desk.deal("r", DEAL)).reason
