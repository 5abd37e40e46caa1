"""A tournament's history as trustworthy as a table's (issue 24, items 1 and 2), on SQLite
and PostgreSQL: a tour closed on a table, then the table or the tournament's own stream
changed behind the ledger's back.

- ``verify`` of the store judges a tournament's stream as ``verify --file`` judges its
  export, and checks each closed tour against its tables: a table's last event deleted,
  the table edited and chained anew or deleted whole after its tour closed on it; in the
  tournament's stream, chained anew, a ``seated`` of a non-entrant, an ``at`` of
  "yesterday", an escape sequence in ``by``, the close's results edited.
- Tournament commands read only a tournament whose chain holds, and tables whose chains
  hold: nothing is shown from, or recorded onto, a broken chain; an event of another
  kind of stream spliced into a tournament's is refused by its number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

from cli.main import main
from conftest import RawEvents
from helpers import stored_rows
from ledger.vocabulary.chain import link
from ledger.vocabulary.events import decode_event

ARBITER = ("--by", "arbiter:Oleg")
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3"]
RECORDED = "ledger.store:Recorded"


def run(db: str, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def ok(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 1, f"{args} should be refused (exit {result.exit_code}): {result.output}"
    return result.stderr


@pytest.fixture
def cup(store_url: str) -> str:
    """Tournament ``cup`` (events 1-3): three players, one table, two tours, a cap of two
    deals; tour 1 seated (event 2), played at ``cup/1/1`` (12 events) and closed (event 3)."""
    db = store_url
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--tours", "2",
       "--deal-cap", "2", "--table-size", "3", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", *ARBITER)
    ok(db, "tournament", "start", "cup", "1")
    for line in DEALS:
        ok(db, "deal", "cup/1/1", line)
    ok(db, "tournament", "close", "cup", "1", *ARBITER)
    return db


@pytest.fixture
def raw(cup: str) -> Iterator[RawEvents]:
    tamperer = RawEvents(cup)
    yield tamperer
    tamperer.close()


def splice(raw: RawEvents, stream: str, event: dict[str, Any]) -> int:
    """Add ``event`` at the end of ``stream`` with its digest and link computed, as someone
    who knows the chain could; its number."""
    number = len(raw.versions(stream)) + 1
    _, state = raw.row(stream, number - 1)
    previous = msgspec.json.decode(state)["digest"]
    digest = link(previous, stream, number, decode_event(msgspec.json.encode(event)))
    raw.insert(stream, number, RECORDED, msgspec.json.encode({"event": event, "digest": digest, "link": previous[:16]}))
    return number


def move_a_whist(event: dict[str, Any]) -> None:
    whists = event["tables"][0]["whists"]
    whists["Anna"] += 1
    whists["Boris"] -= 1


def tricks_changed(event: dict[str, Any]) -> None:
    event["tricks"] = {"Anna": 6, "Boris": 3, "Vera": 1}  # as legal as the 6 2 2 recorded


def delete_whole(raw: RawEvents) -> None:
    for number in raw.versions("cup/1/1"):
        raw.delete("cup/1/1", number)


def seat_a_stranger(raw: RawEvents) -> None:
    splice(raw, "cup", {"type": "seated", "tour": 2, "table": 1, "players": ["Anna", "Boris", "Zoya"],
                        "at": "2030-01-01T00:00:00+00:00", "by": "arbiter:Oleg"})


# Each case: what is done to the store, and the event of cup that verify must name.
CASES: dict[str, tuple[Callable[[RawEvents], None], str]] = {
    "a table's last event deleted": (lambda raw: raw.delete("cup/1/1", 12), "event 3"),
    "a table edited and chained anew": (lambda raw: raw.rechain("cup/1/1", 8, tricks_changed), "event 3"),
    "a table deleted whole": (delete_whole, "event 3"),
    "a seated of a non-entrant after the close": (seat_a_stranger, "event 4"),
    "an at of yesterday": (lambda raw: raw.rechain("cup", 2, lambda e: e.update(at="yesterday")), "event 2"),
    "an escape sequence in by": (lambda raw: raw.rechain("cup", 3, lambda e: e.update(by="arbiter:\x1b[2JOleg")),
                                 "event 3"),
    "the close's results edited": (lambda raw: raw.rechain("cup", 3, move_a_whist), "event 3"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_verify_of_the_store_judges_a_tournament_and_its_closed_tours(cup: str, raw: RawEvents, case: str,
                                                                      tmp_path: Path) -> None:
    assert "TAMPERED" not in ok(cup, "verify")
    tamper, named = CASES[case]
    tamper(raw)
    out = run(cup, "verify")
    assert out.exit_code == 1, out.output
    line = next((line for line in out.stdout.splitlines() if line.startswith("cup: ")), "")
    assert line.startswith(f"cup: TAMPERED: {named} "), out.stdout
    assert "\x1b" not in out.output
    assert "tampered" in out.stderr
    # As verify --file judges the tournament's export (built from the rows themselves:
    # the tournament's own export refuses a table whose chain is broken).
    export = tmp_path / "cup.jsonl"
    export.write_text(exported(raw), encoding="utf-8")
    assert "refused: line " in refused(cup, "verify", "--file", str(export))


def exported(raw: RawEvents) -> str:
    """The store's tournament and table as an export file, read from the rows themselves."""
    lines = []
    for stream in ("cup", "cup/1/1"):
        for number in raw.versions(stream):
            state = msgspec.json.decode(raw.row(stream, number)[1])
            lines.append(json.dumps({**state["event"], "digest": state["digest"]}))
    return "".join(line + "\n" for line in lines)


def test_verify_of_one_tournament_checks_it_too(cup: str, raw: RawEvents) -> None:
    raw.rechain("cup", 3, move_a_whist)
    out = run(cup, "verify", "cup")
    assert out.exit_code == 1 and "cup: TAMPERED: event 3 " in out.stdout, out.output
    assert "does not match cup/1/1" in out.stdout


def test_verify_judges_a_table_in_play_against_its_tournament(store_url: str) -> None:
    """A table's game chained anew with another player seated: a game the table's own
    judge takes, and one its tournament does not (table 1 seats Vera, not Zoya)."""
    db = store_url
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--table-size", "3", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", *ARBITER)
    ok(db, "tournament", "start", "cup", "1")
    raw = RawEvents(db)
    try:
        raw.rechain("cup/1/1", 1, lambda e: e.update(players=["Anna", "Boris", "Zoya"], first_dealer="Zoya", by="Zoya"))
    finally:
        raw.close()
    out = run(db, "verify")
    assert out.exit_code == 1, out.output
    assert "cup/1/1: 1 event, chain intact" in out.stdout  # alone, the game holds
    assert "cup: TAMPERED: its table cup/1/1: event 1 would be refused: table 1 of tour 1 seats Anna, Boris, Vera, " \
           "not Anna, Boris, Zoya [tournament.seating" in out.stdout, out.stdout


def edit_without_chaining(raw: RawEvents, stream: str, number: int, edit: Callable[[dict[str, Any]], None]) -> None:
    topic, state = raw.row(stream, number)
    record = msgspec.json.decode(state)
    edit(record["event"])
    raw.set(stream, number, state=msgspec.json.encode(record))


READERS = [
    ["tournament", "standings", "cup"], ["tournament", "standings", "cup", "--tour", "1"],
    ["tournament", "standings", "cup", "--replay"], ["tournament", "log", "cup"], ["tournament", "report", "cup"],
    ["tournament", "export", "cup"],
]
RECORDERS = [
    ["tournament", "seat", "cup", "2", "--auto", *ARBITER], ["tournament", "seat", "cup", "2", "1", "Anna,Boris,Vera"],
    ["tournament", "card", "cup", "Anna", "--reason", "late", *ARBITER],
]


def test_nothing_is_shown_from_or_recorded_onto_a_tournament_whose_chain_is_broken(cup: str, raw: RawEvents) -> None:
    """The close's results edited, its digest left as it was: ``verify`` names event 3,
    and so does every tournament command, which shows and records nothing."""
    edit_without_chaining(raw, "cup", 3, move_a_whist)
    assert "cup: TAMPERED: event 3" in run(cup, "verify").stdout
    before = stored_rows(cup)
    for args in READERS + RECORDERS:
        result = run(cup, *args)
        assert result.exit_code == 1, f"{args}: {result.output}"
        assert result.stdout == "", args
        assert "the hash chain of tournament 'cup' is broken: event 3" in result.stderr, (args, result.stderr)
    assert stored_rows(cup) == before


def test_a_table_recorded_under_a_tournament_whose_chain_is_broken_is_refused(store_url: str) -> None:
    """A table's game is judged against its tournament: not against a broken one."""
    db = store_url
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--table-size", "3", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", *ARBITER)
    ok(db, "tournament", "start", "cup", "1")
    raw = RawEvents(db)
    try:
        edit_without_chaining(raw, "cup", 2, lambda e: e.update(players=["Vera", "Boris", "Anna"]))
    finally:
        raw.close()
    before = stored_rows(db)
    for args in (["deal", "cup/1/1", DEALS[0]], ["tournament", "close", "cup", "1"], ["tournament", "start", "cup", "1"]):
        err = refused(db, *args)
        assert "the hash chain of tournament 'cup' is broken: event 2" in err, (args, err)
    assert stored_rows(db) == before


def test_the_tables_a_tournament_command_reads_must_have_their_chains_intact(cup: str, raw: RawEvents) -> None:
    """An event of a table edited, its digest left as it was: the commands that read the
    table's events (the tournament's export and report, standings replayed, the close of
    its tour) name it and show nothing."""
    edit_without_chaining(raw, "cup/1/1", 12, lambda e: e.update(tricks={"Anna": 2, "Boris": 4, "Vera": 4}))
    for args in (["tournament", "export", "cup"], ["tournament", "report", "cup"]):
        result = run(cup, *args)
        assert result.exit_code == 1 and result.stdout == "", (args, result.output)
        assert "the hash chain of game 'cup/1/1' is broken: event 12" in result.stderr, (args, result.stderr)


def test_a_table_in_play_whose_chain_is_broken_is_not_closed_nor_replayed(store_url: str) -> None:
    db = store_url
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "6", "--deal-cap", "1",
       "--table-size", "3", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", *ARBITER)
    ok(db, "tournament", "start", "cup", "1")
    ok(db, "deal", "cup/1/1", DEALS[0])
    raw = RawEvents(db)
    try:
        edit_without_chaining(raw, "cup/1/1", 8, lambda e: e.update(tricks={"Anna": 8, "Boris": 1, "Vera": 1}))
    finally:
        raw.close()
    before = stored_rows(db)
    for args in (["tournament", "close", "cup", "1", *ARBITER], ["tournament", "standings", "cup", "--replay"]):
        result = run(db, *args)
        assert result.exit_code == 1 and result.stdout == "", (args, result.output)
        assert "the hash chain of game 'cup/1/1' is broken: event 8" in result.stderr, (args, result.stderr)
    assert stored_rows(db) == before


SPLICED = {"type": "bid", "player": "Anna", "bid": "6S", "at": "2030-01-01T00:00:00+00:00", "by": "Anna"}


def test_an_event_of_a_pulka_spliced_into_a_tournament_is_refused_by_its_number(cup: str, raw: RawEvents) -> None:
    """A bid chained into the tournament's stream: every command that reads the tournament
    refuses it, naming the event (never an internal error), and verify names it too."""
    number = splice(raw, "cup", SPLICED)
    assert number == 4
    before = stored_rows(cup)
    for args in READERS + RECORDERS:
        result = run(cup, *args)
        assert result.exit_code == 1, f"{args}: exit {result.exit_code}: {result.output}"
        assert "event 4 of tournament 'cup' is a bid" in result.stderr, (args, result.stderr)
    assert stored_rows(cup) == before
    assert "cup: TAMPERED: event 4 " in run(cup, "verify").stdout
