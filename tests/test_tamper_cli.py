"""Tamper evidence on the command line, on SQLite and PostgreSQL: the head digest and
``verify --against``, reading and recording commands on a broken chain, stored events
that cannot be decoded or replayed, and exports with digests missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

from cli.main import main
from conftest import RawEvents

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAME = "ex10_sochi_sixes"  # 211 events, 30 deals
READERS = [["sheet", GAME], ["settle", GAME], ["log", GAME], ["explain", GAME, "A.pulya"], ["export", GAME],
           ["diff", GAME, "8", "20"]]


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
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert result.stdout == "" or args[0] == "verify"
    return result.stderr


@pytest.fixture
def db(store_url: str, tmp_path: Path) -> str:
    # The thirty deals of a fixture, in a pulka played to 1000 so that it goes on.
    log = (FIXTURES / f"{GAME}.jsonl").read_text(encoding="utf-8").replace('"pulya":20,', '"pulya":1000,', 1)
    (tmp_path / "game.jsonl").write_text(log, encoding="utf-8")
    ok(store_url, "import", str(tmp_path / "game.jsonl"))
    return store_url


@pytest.fixture
def raw(db: str) -> Any:
    tamperer = RawEvents(db)
    yield tamperer
    tamperer.close()


def last_digest(db: str) -> str:
    digest: str = json.loads(ok(db, "export", GAME).splitlines()[-1])["digest"]
    return digest


def test_head_is_the_last_events_number_and_digest(db: str) -> None:
    assert ok(db, "head", GAME) == f"211:{last_digest(db)[:16]}\n"
    assert "no game named 'nobody'" in refused(db, "head", "nobody")


def test_verify_against_a_head_and_a_saved_export(db: str, tmp_path: Path) -> None:
    head = ok(db, "head", GAME).strip()
    saved = tmp_path / "saved.jsonl"
    saved.write_text(ok(db, "export", GAME), encoding="utf-8")
    assert f"{GAME}: matches the head {head}\n" in ok(db, "verify", GAME, "--against", head)
    assert "matches the saved export" in ok(db, "verify", GAME, "--against", str(saved))
    assert "matches the head" in ok(db, "verify", GAME, "--against", f"211:{last_digest(db)}")  # the whole digest

    ok(db, "annul", GAME)  # recorded after the anchors were taken: still matches
    assert "; 1 event recorded since" in ok(db, "verify", GAME, "--against", head)
    assert "; 1 event recorded since" in ok(db, "verify", GAME, "--against", str(saved))

    assert "give its name" in refused(db, "verify", "--against", head)
    assert "neither a head digest" in refused(db, "verify", GAME, "--against", str(tmp_path / "missing.jsonl"))
    other = tmp_path / "other.jsonl"
    other.write_text(ok(db, "export", GAME).replace(f'"game":"{GAME}"', '"game":"other"', 1), encoding="utf-8")
    assert "digest chain breaks" in refused(db, "verify", GAME, "--against", str(other))


def test_a_truncated_tail_is_named_against_the_anchors(db: str, raw: RawEvents, tmp_path: Path) -> None:
    head = ok(db, "head", GAME).strip()
    saved = tmp_path / "saved.jsonl"
    saved.write_text(ok(db, "export", GAME), encoding="utf-8")
    for version in (209, 210, 211):
        raw.delete(GAME, version)

    assert "208 events, chain intact" in ok(db, "verify", GAME)  # the chain alone cannot tell
    err = refused(db, "verify", GAME, "--against", head)
    assert "the store has 208 events, the head is event 211: events 209-211 are missing (truncated?)" in err
    err = refused(db, "verify", GAME, "--against", str(saved))
    assert "the saved copy has 211 events, the store 208: events 209-211 are missing (truncated?)" in err


def test_a_history_chained_anew_is_named_against_the_anchors(db: str, raw: RawEvents, tmp_path: Path) -> None:
    head = ok(db, "head", GAME).strip()
    saved = tmp_path / "saved.jsonl"
    saved.write_text(ok(db, "export", GAME), encoding="utf-8")
    raw.rechain(GAME, 8, lambda event: event.update(tricks={"A": 7, "B": 1, "C": 2}))

    assert "211 events, chain intact" in ok(db, "verify", GAME)
    err = refused(db, "verify", GAME, "--against", str(saved))
    assert "event 8 differs from the saved copy" in err and '"A":6' in err and '"A":7' in err
    err = refused(db, "verify", GAME, "--against", head)
    assert "event 211's digest is" in err and "changed and chained anew" in err


def edit_with_digest_anew(raw: RawEvents, version: int, change: bytes, into: bytes) -> None:
    from ledger.vocabulary.chain import link
    from ledger.vocabulary.events import decode_event

    record = msgspec.json.decode(raw.row(GAME, version)[1].replace(change, into))
    previous = msgspec.json.decode(raw.row(GAME, version - 1)[1])["digest"]
    record["digest"] = link(previous, GAME, version, decode_event(msgspec.json.encode(record["event"])))
    raw.set(GAME, version, state=msgspec.json.encode(record))


def test_reading_a_broken_chain_needs_consent(db: str, raw: RawEvents) -> None:
    before = ok(db, "sheet", GAME)
    edit_with_digest_anew(raw, 8, b'"A":6,"B":2', b'"A":5,"B":3')

    for args in READERS:
        err = refused(db, *args)
        assert "the hash chain of game 'ex10_sochi_sixes' is broken: event 8 was changed" in err, args
        assert "--read-anyway" in err
        result = run(db, *args, "--read-anyway")
        assert result.exit_code == 0, (args, result.output)
        assert "warning: the hash chain of game 'ex10_sochi_sixes' is broken: event 8" in result.stderr
        assert result.stdout
    assert ok(db, "sheet", GAME, "--read-anyway") != before  # what it shows is the edited game
    assert "as of event 7" in ok(db, "sheet", GAME, "--at", "7")  # the events before it are sound
    assert "event 8 was changed" in refused(db, "sheet", GAME, "--at", "8")
    assert "event 8 was changed" in refused(db, "head", GAME)


def test_recording_onto_a_broken_chain_is_refused(db: str, raw: RawEvents) -> None:
    _, state = raw.row(GAME, 30)
    raw.set(GAME, 30, state=state.replace(b'"by":"', b'"by":"X', 1))
    versions = raw.versions(GAME)

    err = refused(db, "annul", GAME)
    assert "the hash chain of game 'ex10_sochi_sixes' is broken: event 30" in err
    assert raw.versions(GAME) == versions


def test_an_undecodable_stored_event_is_refused_by_number(db: str, raw: RawEvents) -> None:
    raw.set(GAME, 12, state=b'{"event":{"type":"tricks","tricks":"lots"},"digest":"00"}')

    for args in READERS[:5]:
        err = refused(db, *args)
        assert "event 12 of game 'ex10_sochi_sixes'" in err and "cannot be read" in err, args
    result = run(db, "verify")
    assert result.exit_code == 1 and f"{GAME}: TAMPERED: event 12 cannot be read" in result.stdout


@pytest.mark.parametrize("edit", [
    {"tricks": {"A": 6, "B": 2, "Zed": 2}},  # a player the game does not have
], ids=["unknown-player"])
def test_an_impossible_chained_event_is_refused_by_number(db: str, raw: RawEvents, edit: dict[str, Any]) -> None:
    raw.rechain(GAME, 8, lambda event: event.update(edit))
    for args in (["verify", GAME], ["verify"]):
        result = run(db, *args)
        assert result.exit_code == 1
        assert f"{GAME}: TAMPERED: event 8 of game '{GAME}' would be refused: unknown player 'Zed'" in result.stdout

    for args in [READERS[0], READERS[1], READERS[2], READERS[3], READERS[5], ["annul", GAME]]:
        err = refused(db, *args)
        assert f"event 8 of game '{GAME}' would be refused: unknown player 'Zed'" in err, args
    # Read regardless, the fold itself cannot take it: named by number all the same.
    assert "event 8 of game 'ex10_sochi_sixes' cannot be replayed" in refused(db, "sheet", GAME, "--read-anyway")
    assert ok(db, "sheet", GAME, "--at", "7")


@pytest.mark.parametrize(("number", "edit", "said"), [
    (8, {"tricks": {"A": 7, "B": 2, "C": 2}}, "event 8 of game 'ex10_sochi_sixes' would be refused: tricks sum to 11"),
    (3, {"player": "A", "by": "A"}, "event 3 of game 'ex10_sochi_sixes' would be refused: not A's turn"),
    (5, {"deal": 2}, "event 5 of game 'ex10_sochi_sixes' would be refused: this contract belongs to deal 1"),
    (2, {"bid": "6s"}, "event 2 of game 'ex10_sochi_sixes' is stored otherwise than the ledger records it "
                       "(written outside pulka?): stored {\"type\":\"bid\",\"player\":\"A\",\"bid\":\"6s\""),
], ids=["eleven-tricks", "out-of-turn", "wrong-deal", "bid-not-as-written"])
def test_verify_judges_a_rechained_event_as_the_ledger_would(
    db: str, raw: RawEvents, number: int, edit: dict[str, Any], said: str
) -> None:
    """An event rewritten with every digest after it computed anew passes the chain; the
    ledger would never have recorded it, and ``verify`` judges every stored event again
    (as ``import`` and ``verify --file`` do) to say so."""
    assert ok(db, "verify", GAME).endswith("chain intact\n")
    raw.rechain(GAME, number, lambda event: event.update(edit))
    for args in (["verify", GAME], ["verify"]):
        result = run(db, *args)
        assert result.exit_code == 1 and f"{GAME}: TAMPERED: {said}" in result.stdout, result.stdout


def test_verify_names_an_event_that_makes_the_judge_itself_fail(
    db: str, raw: RawEvents, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should judging fail on a stored event (a fault of the judge, not a refusal), the
    replay still names the event, as the reading commands do."""
    from ledger import application
    raw.rechain(GAME, 8, lambda event: event.update({"tricks": {"A": 6, "B": 2, "Zed": 2}}))

    def failing(*args: Any) -> None:
        raise KeyError("Zed")

    monkeypatch.setattr(application, "judged_fold", failing)
    result = run(db, "verify", GAME)
    assert result.exit_code == 1
    assert f"{GAME}: TAMPERED: event 8 of game '{GAME}' cannot be replayed (KeyError" in result.stdout


def test_an_export_with_a_digest_removed_is_refused(db: str, tmp_path: Path, store_url: str) -> None:
    lines = ok(db, "export", GAME).splitlines()
    record = json.loads(lines[4])
    del record["digest"]
    lines[4] = json.dumps(record)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    copy = str(tmp_path / "copy.db")

    err = refused(copy, "import", str(edited))
    assert "line 5" in err and "has no digest" in err
    assert ok(copy, "games").startswith("no games stored yet")
    assert "event 5 (line 5) has no digest" in refused(db, "verify", "--file", str(edited))


@pytest.mark.parametrize(("number", "edit", "said"), [
    (8, {"tricks": {"A": 10, "B": 10, "C": 10}}, "tricks sum to 30, not 10 [Code 3.2.8]"),
    (3, {"player": "A", "by": "A"}, "not A's turn"),
], ids=["thirty-tricks", "out-of-turn"])
def test_an_event_the_rules_refuse_is_neither_shown_nor_built_on(
    db: str, raw: RawEvents, number: int, edit: dict[str, Any], said: str
) -> None:
    """Chained anew, an event the judge refuses passes the chain; a reading command
    names it by number as ``verify`` does (shown only with --read-anyway, warned), and
    a recording command stores nothing onto its game (issue 24 item 3)."""
    raw.rechain(GAME, number, lambda event: event.update(edit))
    versions = raw.versions(GAME)
    named = f"event {number} of game '{GAME}' would be refused: {said}"
    result = run(db, "verify", GAME)
    assert result.exit_code == 1 and f"{GAME}: TAMPERED: {named}" in result.stdout

    for args in READERS:
        err = refused(db, *args)
        assert named in err and "--read-anyway shows it regardless" in err, args
    for args in (READERS[0], READERS[1], READERS[2], READERS[4]):
        result = run(db, *args, "--read-anyway")
        assert result.exit_code == 0 and result.stdout, (args, result.output)
        assert f"warning: {named}" in result.stderr and "shown because of --read-anyway" in result.stderr
    assert "as of event" in ok(db, "sheet", GAME, "--at", str(number - 1))  # what comes before it is sound

    for args in (["annul", GAME], ["deal", GAME, "pass pass pass | 4 3 3"], ["entry", GAME, "A", "pulya", "2"]):
        assert named in refused(db, *args), args
    assert raw.versions(GAME) == versions


def test_a_rubbers_impossible_deal_is_neither_shown_nor_built_on(store_url: str) -> None:
    """A rubber's 7NT made with 14 tricks, chained anew: ``settle`` would credit N-S
    with a grand slam and an overtrick that no deal has."""
    db = store_url
    ok(db, "bridge", "new", "r", "--players", "Anna,Boris,Vera,Gleb")
    ok(db, "bridge", "deal", "r", "7NT N 13")
    raw = RawEvents(db)
    try:
        raw.rechain("r", 2, lambda event: event.update(tricks=14))
        named = "event 2 of game 'r' would be refused: "
        for args in (["settle", "r"], ["sheet", "r"], ["log", "r"], ["export", "r"]):
            err = refused(db, *args)
            assert named in err and "14" in err, (args, err)
        assert "warning: " + named in run(db, "settle", "r", "--read-anyway").stderr
        assert named in refused(db, "bridge", "deal", "r", "pass")
        assert raw.versions("r") == [1, 2]
    finally:
        raw.close()


def test_a_kept_game_takes_in_no_refused_event_written_since(db: str, raw: RawEvents) -> None:
    """A session keeps its game loaded and reads only what others wrote since
    (``Ledger.renewed``); what it reads is judged as a whole load judges it. Another's
    record, then edited and chained anew to give a trick to a player the game does not
    have, is named by number and nothing is recorded onto it."""
    from cli.common import UserError, opened

    with pytest.raises(UserError) as caught, opened(db) as ledger:
        kept = ledger.keep(GAME)
        count = len(kept.stored)
        ok(db, "entry", GAME, "A", "pulya", "2")
        ok(db, "entry", GAME, "B", "pulya", "2")
        raw.rechain(GAME, count + 2, lambda event: event.update(player="Zed"))
        ledger.renewed(kept)
    assert f"event {count + 2} of game '{GAME}' would be refused: " in str(caught.value), caught.value
    assert "Zed" in str(caught.value)
