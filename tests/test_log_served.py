"""The club log served to anyone (``pulka serve``'s ``/log/…``) and followed by a monitor
(``pulka monitor``) from that alone.

What is served is checked as C2SP tlog-tiles defines it, by code written here: each
entry of an entry bundle hashes to the leaf of its level-0 tile; each hash of a
level-1 tile is the root of a full level-0 tile; the tiles give the checkpoint's root;
the events' rows carry the entries' digests; the proofs verify; a game's bundle is
``pulka prove``'s. Then a monitor, with the club's trust file and its own state, takes
the log in, recomputes every sheet as the club's own ``sheet`` shows it, follows it as
it grows, refuses a checkpoint not signed by the log's key, and catches a fork between
two runs of the service (the store rewritten and a checkpoint forged in between),
keeping its state as it was.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from merkle_reference import verify_inclusion
from click.testing import CliRunner

from cli.main import main
from ledger.proofs.monitor import Monitor, MonitorError, LogClient
from ledger.vocabulary.merkle import (
    ENTRIES,
    TileNodes,
    leaf_hash,
    node_hash,
    root,
    tile_path,
    verify_consistency,
)
from ledger.vocabulary.notes import parse_checkpoint, parse_note
from ledger.vocabulary.trust import parse_trust
from tests.conftest import RawEvents
from tests.helpers import ok, run
from tests.serving import ROOT, Served, client
from tests.test_witness import forge_checkpoint

ORIGIN = "club.example/pulka"
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 2 5 3", "7H pass pass | 7H | whist pass | 7 2 1",
         "pass pass pass | 3 5 2", "misere pass pass | misere | 0"]


def keygen(name: str, out: Path) -> None:
    result = CliRunner().invoke(main, ["keygen", name, "--out", str(out)])
    assert result.exit_code == 0, result.output


def evening(db: str, tables: int, deals: int) -> None:
    for t in range(1, tables + 1):
        ok(db, "new", f"t{t}", "--players", "Anna,Boris,Vera", "--pulya", "30", "-q")
    for d in range(deals):
        for t in range(1, tables + 1):
            ok(db, "deal", f"t{t}", DEALS[d % len(DEALS)])


@pytest.fixture
def club(tmp_path: Path) -> tuple[str, Path]:
    """A club of five tables (over 256 events: a full tile and a partial one), its
    checkpoint, and its trust file."""
    db = str(tmp_path / "club.db")
    evening(db, 5, 12)
    keygen(ORIGIN, tmp_path / "club.key")
    ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
    trust = tmp_path / "club.trust"
    trust.write_text(ok(db, "trust"))
    return db, trust


def entries_of(bundle: bytes) -> list[bytes]:
    found, i = [], 0
    while i < len(bundle):
        n = int.from_bytes(bundle[i:i + 2], "big")
        found.append(bundle[i + 2:i + 2 + n])
        i += 2 + n
    return found


def test_the_served_log_is_c2sp_tlog_tiles(club: tuple[str, Path]) -> None:
    db, _trust = club
    with client(db) as c:
        note = c.get("/log/checkpoint")
        assert note.status_code == 200 and note.headers["content-type"].startswith("text/plain")
        assert note.text == ok(db, "checkpoint")
        checkpoint = parse_checkpoint(parse_note(note.text).text)
        size = checkpoint.size
        assert 256 < size < 512
        full, part = c.get("/log/" + tile_path(0, 0)), c.get("/log/" + tile_path(0, 1, size - 256))
        assert full.status_code == part.status_code == 200 and len(full.content) == 256 * 32
        assert "immutable" in full.headers["cache-control"]
        level0 = full.content + part.content
        entries = entries_of(c.get("/log/" + tile_path(ENTRIES, 0)).content) + entries_of(
            c.get("/log/" + tile_path(ENTRIES, 1, size - 256)).content)
        assert [leaf_hash(e) for e in entries] == [level0[i:i + 32] for i in range(0, len(level0), 32)]
        level1 = c.get("/log/" + tile_path(1, 0, 1)).content
        assert level1 == mth([level0[i:i + 32] for i in range(0, 256 * 32, 32)])
        tiles = {(0, 0): full.content, (0, 1): part.content, (1, 0): level1}
        assert root(TileNodes(lambda t, k: tiles.get((t, k), b"")), size) == checkpoint.root
        rows = [json.loads(line) for line in c.get("/log/events/000").text.splitlines()]
        rows += [json.loads(line) for line in c.get(f"/log/events/001.p/{size - 256}").text.splitlines()]
        assert [r["row"]["digest"].encode() for r in rows] == entries
        assert rows[0]["stream"] == "t1" and rows[0]["number"] == 1
        assert_proofs(c, db, size, checkpoint.root, level0)
        for bad in ("/log/tile/0/1", "/log/tile/0/000.p/256", f"/log/tile/0/001.p/{size - 256 + 50}", "/log/tile/1/000",
                    "/log/events/002", "/log/proof/consistency?old=0&new=3", f"/log/proof/inclusion?index=0&size={size + 50}"):
            assert c.get(bad).status_code == 404, bad
        assert c.get("/log/proof/consistency?old=x&new=3").status_code == 422


def mth(leaves: list[bytes]) -> bytes:
    """RFC 9162's MTH, written here from its definition."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def assert_proofs(c: object, db: str, size: int, checkpoint_root: bytes, level0: bytes) -> None:
    leaves = [level0[i:i + 32] for i in range(0, len(level0), 32)]
    inclusion = c.get(f"/log/proof/inclusion?index=100&size={size}").text.split()  # type: ignore[attr-defined]
    assert verify_inclusion(leaves[100], 100, size, [base64.b64decode(h) for h in inclusion], checkpoint_root)
    proof = c.get(f"/log/proof/consistency?old=77&new={size}").text.split()  # type: ignore[attr-defined]
    assert verify_consistency(77, size, mth(leaves[:77]), checkpoint_root, [base64.b64decode(h) for h in proof])
    bundle = c.get("/log/bundle/t3").json()  # type: ignore[attr-defined]
    assert bundle == json.loads(ok(db, "prove", "t3"))


# -- the monitor ----------------------------------------------------------------------------------


def monitor(url: str, trust: Path, state: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["monitor", url, "--trust", str(trust), "--state", str(state)])
    return result.exit_code, result.output


def accepted_size(trust: Path, state: Path) -> int | None:
    watcher = Monitor(parse_trust(trust.read_text()), LogClient("http://127.0.0.1:1"), state)
    try:
        last = watcher.last()
        return None if last is None else last[0]
    finally:
        watcher.close()


def test_a_monitor_follows_the_log_and_recomputes_every_sheet(club: tuple[str, Path], tmp_path: Path) -> None:
    db, trust = club
    served = Served(db, tmp_path / "serve.log")
    try:
        status, said = monitor(served.url, trust, tmp_path / "state")
        assert status == 0, said
        size = int(ok(db, "checkpoint").split("\n")[1])
        assert f"checkpoint #{size} of {ORIGIN}" in said and "the first accepted" in said
        assert "5 game(s) replayed" in said
        for game in ("t1", "t5"):
            shown = CliRunner().invoke(main, ["monitor", served.url, "--trust", str(trust), "--state",
                                              str(tmp_path / "state"), "--sheet", game])
            assert json.loads(shown.output)["sheet"] == json.loads(ok(db, "sheet", game, "--json"))
        assert "nothing new" in monitor(served.url, trust, tmp_path / "state")[1]
        first = tmp_path / "first.json"
        first.write_text(ok(db, "prove", "t2"))
        assert verify(first, trust, tmp_path / "me").returncode == 0
        ok(db, "deal", "t2", "pass pass pass | 3 5 2")
        ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
        status, said = monitor(served.url, trust, tmp_path / "state")
        assert status == 0 and f"consistent with #{size}, the last accepted" in said and "1 game(s) replayed" in said
        # a player whose bundle lacks the proof from the checkpoint he saw asks the service for it
        later = tmp_path / "later.json"
        later.write_text(json.dumps(dict(json.loads(ok(db, "prove", "t2")), consistency=[])))
        assert "cannot tell whether the log forked" in verify(later, trust, tmp_path / "me").stdout
        done = verify(later, trust, tmp_path / "me", "--log", served.url)
        assert done.returncode == 0 and "no fork since" in done.stdout, done.stdout
    finally:
        served.stop()


def verify(bundle: Path, trust: Path, state: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), str(bundle), "--trust", str(trust),
                           "--state", str(state), "--no-recompute", *more], capture_output=True, text=True)


def test_a_monitor_catches_a_fork_between_two_runs_of_the_service(club: tuple[str, Path], tmp_path: Path) -> None:
    db, trust = club
    state = tmp_path / "state"
    first = Served(db, tmp_path / "serve-1.log")
    try:
        assert monitor(first.url, trust, state)[0] == 0
    finally:
        first.stop()
    accepted = accepted_size(trust, state)
    snapshot = hashlib.sha256((state / "monitor.db").read_bytes()).hexdigest()
    raw = RawEvents(db)
    try:  # between the runs: a deal of another table a minute later, chained anew; the cache dropped
        raw.rechain("t4", 3, lambda event: event.update(at="2026-12-01T20:01:00+00:00"))
        raw.execute("DROP TABLE merkle_tiles")
    finally:
        raw.close()
    ok(db, "deal", "t1", "pass pass pass | 3 5 2")
    assert "would fork the log" in run(db, "checkpoint", "--key", str(tmp_path / "club.key")).output
    forge_checkpoint(db, tmp_path / "club.key")  # signed by the log's key, bypassing pulka
    second = Served(db, tmp_path / "serve-2.log")
    try:
        status, said = monitor(second.url, trust, state)
    finally:
        second.stop()
    assert status == 1 and "fork" in said, said
    assert accepted_size(trust, state) == accepted
    assert hashlib.sha256((state / "monitor.db").read_bytes()).hexdigest() == snapshot  # its state as it was


def test_a_monitor_refuses_a_checkpoint_the_log_did_not_sign(club: tuple[str, Path], tmp_path: Path) -> None:
    db, _trust = club
    keygen(ORIGIN, tmp_path / "impostor.key")
    impostor = tmp_path / "impostor.trust"
    impostor.write_text(_trust.read_text().replace(
        next(line for line in _trust.read_text().splitlines() if line.startswith("log ")),
        "log " + (tmp_path / "impostor.pub").read_text().strip()))
    served = Served(db, tmp_path / "serve.log")
    try:
        status, said = monitor(served.url, impostor, tmp_path / "state")
    finally:
        served.stop()
    assert status == 1 and "no signature of a trusted key" in said, said
    with pytest.raises(MonitorError):
        LogClient("ftp://example.org/")
