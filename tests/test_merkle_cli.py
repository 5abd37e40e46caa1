"""The commands of verifiable history: keys readable by their owner alone, what an
arbiter may sign, who signed shown by log, the report and the drawn sheet, a tour's
close signed by the arbiter with a checkpoint that covers it, and refusals that store
nothing."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.application import Ledger
from ledger.proofs.checkpoints import Attestations
from ledger.words.deal_line import deal_events
from ledger.store.event_store import Store
from ledger.desks.tournament import Tournaments
from ledger.vocabulary.attestation import SIGNATURES_STREAM
from ledger.vocabulary.notes import Signer
from ledger.vocabulary.tournament_events import TournamentStarted
from tests.helpers import ok, refused, run, stored_rows

ROOT = Path(__file__).resolve().parent.parent


def keygen(name: str, out: Path) -> str:
    result = CliRunner().invoke(main, ["keygen", name, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def evening(tmp_path: Path) -> str:
    db = str(tmp_path / "club.db")
    ok(db, "new", "t1", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(db, "deal", "t1", "6S pass pass | 6S | whist whist | 6 2 2")
    ok(db, "penalty", "t1", "Boris", "gora", "4", "--reason", "late", "--by", "arbiter:Oleg")
    keygen("club.example/pulka", tmp_path / "club.key")
    keygen("arbiter:Oleg", tmp_path / "oleg.key")
    return db


def test_keygen_writes_a_private_key_for_its_owner_alone_and_never_overwrites(tmp_path: Path) -> None:
    out = keygen("arbiter:Oleg", tmp_path / "oleg.key")
    assert stat.S_IMODE(os.stat(tmp_path / "oleg.key").st_mode) == 0o600
    public = (tmp_path / "oleg.pub").read_text().strip()
    assert public.startswith("arbiter:Oleg+") and public in out
    assert Signer.parse((tmp_path / "oleg.key").read_text()).verifier.text() == public
    again = CliRunner().invoke(main, ["keygen", "arbiter:Oleg", "--out", str(tmp_path / "oleg.key")])
    assert again.exit_code == 1 and "never overwritten" in again.output
    for bad in ("two words", "a+b", ""):
        assert CliRunner().invoke(main, ["keygen", bad, "--out", str(tmp_path / "x.key")]).exit_code == 1


def test_a_private_key_others_may_read_is_refused_and_nothing_is_stored(evening: str, tmp_path: Path) -> None:
    key = tmp_path / "club.key"
    os.chmod(key, 0o644)
    before = stored_rows(evening)
    message = refused(evening, "checkpoint", "--key", str(key))
    assert "readable by its owner alone" in message and "chmod 600" in message
    assert stored_rows(evening) == before
    os.chmod(key, 0o600)
    assert "club.example/pulka\n" in ok(evening, "checkpoint", "--key", str(key))


def test_what_an_arbiter_may_sign(evening: str, tmp_path: Path) -> None:
    before = stored_rows(evening)
    assert "an arbiter signs his decisions" in refused(evening, "sign", "t1", "2", "--key", str(tmp_path / "oleg.key"))
    assert "not an arbiter's" in refused(evening, "sign", "t1", "9", "--key", str(tmp_path / "club.key"))
    keygen("arbiter:Ivan", tmp_path / "ivan.key")
    assert "recorded by arbiter:Oleg" in refused(evening, "sign", "t1", "9", "--key", str(tmp_path / "ivan.key"))
    assert "has no event 99" in refused(evening, "sign", "t1", "99", "--key", str(tmp_path / "oleg.key"))
    assert stored_rows(evening) == before
    assert "signed by arbiter:Oleg" in ok(evening, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))
    assert "signed by arbiter:Oleg already" in refused(evening, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))


def test_log_the_report_and_the_drawn_sheet_show_who_signed_and_the_checkpoint(evening: str, tmp_path: Path) -> None:
    assert "checkpoint" not in ok(evening, "sheet", "t1", "--svg")  # a store without checkpoints says nothing
    ok(evening, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))
    log = ok(evening, "log", "t1")
    oleg = (tmp_path / "oleg.pub").read_text().strip()
    assert f"event 9 (penalty) signed by arbiter:Oleg (key {oleg.rsplit('+', 1)[0]})" in log
    assert json.loads(ok(evening, "log", "t1", "--json"))["signed"] == [log.splitlines()[-1]]
    ok(evening, "checkpoint", "--key", str(tmp_path / "club.key"))
    svg = ok(evening, "sheet", "t1", "--svg")
    assert 'class="checkpoint">under checkpoint club.example/pulka #' in svg
    report = ok(evening, "report", "t1")
    assert "<h2>Verifiable history</h2>" in report and "signed by arbiter:Oleg" in report
    assert "\u2014 club.example/pulka " in report  # the signed note, to publish
    ok(evening, "deal", "t1", "pass pass pass | 2 5 3")
    assert "events 1-9 under checkpoint" in ok(evening, "sheet", "t1", "--svg")
    assert "events 1-9 under checkpoint" not in ok(evening, "sheet", "t1", "--svg", "--at", "9")


def test_a_changed_signature_is_named_by_log_and_verify(evening: str, tmp_path: Path) -> None:
    ok(evening, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))
    import sqlite3

    with sqlite3.connect(evening) as conn:
        stream = __import__("ledger.store.event_store", fromlist=["game_id"]).game_id(SIGNATURES_STREAM).hex
        state = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 2",
                             (stream,)).fetchone()[0]
        doc = json.loads(state)
        sig = doc["event"]["signature"]["signature"]
        doc["event"]["signature"]["signature"] = sig[:10] + ("A" if sig[10] != "A" else "B") + sig[11:]
        conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 2",
                     (json.dumps(doc, separators=(",", ":")).encode(), stream))
    assert "THE SIGNATURE DOES NOT VERIFY" in ok(evening, "log", "t1")
    result = run(evening, "verify")
    assert result.exit_code == 1 and "does not verify with the key stored beside it" in result.output


def test_checkpoint_and_cosign_refusals(tmp_path: Path, evening: str) -> None:
    empty = str(tmp_path / "empty.db")
    assert "nothing to checkpoint" in refused(empty, "checkpoint", "--key", str(tmp_path / "club.key"))
    assert "no checkpoint yet" in refused(evening, "checkpoint")
    ok(evening, "checkpoint", "--key", str(tmp_path / "club.key"))
    ok(evening, "cosign", "--key", str(tmp_path / "oleg.key"))
    assert "has signed checkpoint" in refused(evening, "cosign", "--key", str(tmp_path / "oleg.key"))
    assert "not 'other.example'" in refused(evening, "checkpoint", "--key", str(tmp_path / "club.key"),
                                            "--origin", "other.example")
    shown = ok(evening, "checkpoint")
    assert shown.count("\u2014 ") == 2  # the club's signature and the arbiter's cosignature
    listed = json.loads(ok(evening, "checkpoint", "--json"))
    assert listed[0]["signed_by"] == ["club.example/pulka", "arbiter:Oleg"]


def test_closing_a_tour_with_the_arbiters_key_signs_it_and_the_clubs_checkpoint_covers_it(
        store_url: str, tmp_path: Path) -> None:
    keygen("arbiter:Oleg", tmp_path / "oleg.key")
    keygen("club.example/pulka", tmp_path / "club.key")
    moments = (datetime(2026, 3, 1, 18, tzinfo=timezone.utc) + timedelta(minutes=n) for n in range(1000))
    with Store(store_url) as store:
        ledger = Ledger(store, clock=lambda: next(moments).isoformat(timespec="seconds"))
        t = Tournaments(ledger)
        t.create(TournamentStarted(game="cup", players=("Anna", "Boris", "Vera", "Gleb", "Dina", "Egor"), pulya=6,
                                   tours=1, deal_cap=1, table_size=3, by="arbiter:Oleg"))
        t.seat("cup", 1, 1, ["Anna", "Boris", "Vera"], by="arbiter:Oleg")
        t.seat("cup", 1, 2, ["Gleb", "Dina", "Egor"], by="arbiter:Oleg")
        t.start_tables("cup", 1)
        for table in ("cup/1/1", "cup/1/2"):
            ledger.execute(table, lambda state: deal_events(state, "misere pass pass | misere | 2"))
    closed = ok(store_url, "tournament", "close", "cup", "1", "--by", "arbiter:Oleg", "--key", str(tmp_path / "oleg.key"))
    with Store(store_url) as store:
        number = store.count("cup")
        assert f"event {number} signed by arbiter:Oleg" in closed
        attest = Attestations(store)
        assert [s.signer for s in attest.signatures("cup")[number]] == ["arbiter:Oleg"]
        assert attest.checkpoints() == []  # an arbiter's key never signs as the log
    # nor may he make the log's checkpoint by hand
    assert "arbiter's key" in refused(store_url, "checkpoint", "--key", str(tmp_path / "oleg.key"))
    ok(store_url, "checkpoint", "--key", str(tmp_path / "club.key"), "--reason", "final standings of cup")
    ok(store_url, "cosign", "--key", str(tmp_path / "oleg.key"))
    with Store(store_url) as store:
        cp = Attestations(store).stored()
        assert cp.signers() == ["club.example/pulka", "arbiter:Oleg"]
        assert cp.size == sum(store.count(s) for s in store.games()) - 3  # all but its own two events and the cosignature
    assert run(store_url, "verify", "--key", str(tmp_path / "club.pub"), "--key", str(tmp_path / "oleg.pub")).exit_code == 0
    bundle = tmp_path / "table.json"
    bundle.write_text(ok(store_url, "prove", "cup/1/2"))
    done = subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), str(bundle), "--key", str(tmp_path / "club.pub"),
                           "--no-recompute", "--no-state"], capture_output=True, text=True)
    assert done.returncode == 0 and "signed by club.example/pulka (the log's key)" in done.stdout, done.stdout


def test_verify_of_a_store_that_does_not_exist_makes_none(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    assert run(str(missing), "verify").exit_code == 0
    assert not missing.exists()
