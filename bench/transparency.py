"""What trust that does not rest on the club costs (part of ``make bench-merkle``):

- a monitor catching up with a log of 1,000,000 events over HTTP, from a real ``pulka
  serve``: beside the limits (plain SQL reading every row; every events bundle
  fetched over HTTP with nothing checked), the monitor's rate with everything checked
  (each digest recomputed, the tree's root, its state written) and the replay of every
  game on top; then one more checkpoint followed;
- a witness's cost per checkpoint: ``add-checkpoint`` in process (the log's signature
  checked, a consistency proof of a tree of 1,000,000 leaves verified, the
  cosignature made, its state written to disk), and over HTTP to a ``pulka witness``
  process; ``pulka checkpoint --trust`` asking it.

The log is of real games: one pulka played deal by deal through the ledger, its events
stored again under other names up to the size asked (a monitor replays each game as
``pulka import`` would judge it; games of a single repeated bid would be refused at
once and measure nothing).
"""

from __future__ import annotations

import http.client
import os
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import msgspec
from click.testing import CliRunner

from cli.main import main as pulka
from ledger.application import Ledger
from ledger.proofs.monitor import Monitor, LogClient
from ledger.proofs.witness import FollowedLog, Witness, add_checkpoint_body, origin_hash
from ledger.store.event_store import Store
from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.merkle import consistency_proof, leaf_hash, tile_path
from ledger.vocabulary.notes import COSIGNATURE_V1, Checkpoint, Signer, sign_note
from ledger.vocabulary.trust import Trust

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # a tree in memory, as the tests hold one
from tests.merkle_reference import MemoryTree  # noqa: E402
from ledger.words.deal_line import deal_events

ORIGIN = "bench.example/pulka"
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 2 5 3", "7H pass pass | 7H | whist pass | 7 2 1",
         "pass pass pass | 3 5 2", "misere pass pass | misere | 0"]
ROOT = Path(__file__).resolve().parent.parent
PULKA = [sys.executable, "-c", "from cli.main import main; main()"]


def row(label: str, *cells: str) -> None:
    print(f"  {label:<58}" + "".join(f"{c:>20}" for c in cells))


def fill_games(db: str, events: int) -> int:
    """A log of ``events`` events of real pulkas: one played through the ledger, its
    events stored again under other names. How many games."""
    with Store(db) as store:
        ledger = Ledger(store)
        ledger.create(GameStarted(game="g0", players=("Anna", "Boris", "Vera"), pulya=200))
        for d in range(40):
            ledger.execute("g0", lambda state, d=d: deal_events(state, DEALS[d % len(DEALS)]))
        played = [s.event for s in store.load("g0")]
        games, stored = 1, len(played)
        while stored < events:
            name = f"g{games}"
            batch = [msgspec.structs.replace(played[0], game=name), *played[1:events - stored]]
            store.append(name, batch, expected=0)
            games, stored = games + 1, stored + len(batch)
    return games


class Process:
    """A ``pulka`` command serving on a port, until stopped."""

    def __init__(self, args: list[str], port: int, probe: str, log: Path) -> None:
        self.out = open(log, "ab")
        self.proc = subprocess.Popen([*PULKA, *args], stdout=self.out, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{probe}", timeout=1)
                return
            except urllib.error.HTTPError:
                return  # it answers
            except OSError:
                time.sleep(0.1)  # a poll of a condition, bounded by the deadline
        raise SystemExit(f"{args[0]} did not start: {log.read_text()}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.out.close()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fetch_all(url: str, size: int) -> int:
    """Every events bundle of the log over one kept-alive connection, nothing checked:
    the service's limit. The bytes read."""
    connection = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=60)
    read = 0
    for index in range((size + 255) // 256):
        path = "/log/events/" + tile_path(0, index, min(256, size - index * 256))[len("tile/0/"):]
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status)
        read += len(body)
    connection.close()
    return read


def measure_monitor(db: str, events: int, folder: Path, key: Path, raw_read: Callable[[str], float]) -> None:
    print(f"\na monitor catching up with a log of {events:,} events of real games, over HTTP")
    start = time.perf_counter()
    games = fill_games(db, events)
    row(f"{games:,} games stored", f"{time.perf_counter() - start:,.1f} s")
    read_limit = raw_read(db)
    start = time.perf_counter()
    signed = CliRunner().invoke(pulka, ["checkpoint", "--key", str(key), "--db", db])
    assert signed.exit_code == 0, signed.output
    row("pulka checkpoint (every row read and checked, in process)", f"{time.perf_counter() - start:,.2f} s")
    size = int(signed.stdout.split("\n")[1])
    trust = Trust(ORIGIN, (Signer.parse(key.read_text()).verifier,))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    served = Process(["--db", db, "serve", "--port", str(port), "--threads", "2"], port, "/api/health",
                     folder / "serve.log")
    try:
        row("limit: plain SQL reading every row", f"{read_limit:,.2f} s", f"{events / read_limit:,.0f} rows/s")
        start = time.perf_counter()
        read = fetch_all(url, size)
        took = time.perf_counter() - start
        row("limit: every events bundle over HTTP, nothing checked", f"{took:,.2f} s", f"{size / took:,.0f} events/s")
        row("  (bytes read)", f"{read / 1e6:,.0f} MB")
        watcher = Monitor(trust, LogClient(url), folder / "monitor")
        start = time.perf_counter()
        done = watcher.step()
        took = time.perf_counter() - start
        assert done is not None and not done.problems, done
        fetched = took - done.replayed_in
        row("monitor: fetched, every digest, the tree's root, kept", f"{fetched:,.2f} s",
            f"{size / fetched:,.0f} events/s")
        row(f"monitor: {len(done.games):,} games replayed as import judges", f"{done.replayed_in:,.2f} s",
            f"{size / done.replayed_in:,.0f} events/s")
        row("monitor: the whole catch-up", f"{took:,.2f} s", f"{size / took:,.0f} events/s")
        _one_more(db, key, watcher)
        watcher.close()
    finally:
        served.stop()


def _one_more(db: str, key: Path, watcher: Monitor) -> None:
    with Store(db) as store:
        Ledger(store).execute("g1", lambda state: deal_events(state, DEALS[0]))
    assert CliRunner().invoke(pulka, ["checkpoint", "--key", str(key), "--db", db]).exit_code == 0
    start = time.perf_counter()
    done = watcher.step()
    assert done is not None and done.events > 0
    row("monitor: one more checkpoint followed (a deal, one game)", f"{(time.perf_counter() - start) * 1000:,.1f} ms")


def measure_witness(folder: Path, leaves: int = 1_000_000, runs: int = 200) -> None:
    print(f"\na witness's cost per checkpoint (a log of {leaves:,} leaves growing by 100 a checkpoint)")
    club, own = Signer.generate(ORIGIN), Signer.generate("w1.bench.example/witness", COSIGNATURE_V1)
    tree = MemoryTree(leaf_hash(i.to_bytes(8, "big")) for i in range(leaves))
    bodies = []
    for _ in range(runs):
        old = tree.size
        tree.append([leaf_hash(os.urandom(8)) for _ in range(100)])
        note = sign_note(Checkpoint(ORIGIN, tree.size, tree.root()).text(), [club])
        bodies.append(add_checkpoint_body(old, consistency_proof(tree, old, tree.size), note))
    first = add_checkpoint_body(0, [], sign_note(Checkpoint(ORIGIN, leaves, tree.root(leaves)).text(), [club]))
    witness = Witness(own, [FollowedLog(ORIGIN, (club.verifier,))], folder / "witness" / "state.json")
    assert witness.add_checkpoint(first).status == 200
    times = []
    for body in bodies:
        start = time.perf_counter()
        assert witness.add_checkpoint(body).status == 200
        times.append(time.perf_counter() - start)
    row("add-checkpoint in process (state written to disk)", f"{min(times) * 1000:,.2f} ms",
        f"median {statistics.median(times) * 1000:,.2f} ms")
    _over_http(folder, club, own, tree, runs)


def _over_http(folder: Path, club: Signer, own: Signer, tree: MemoryTree, runs: int) -> None:
    key = folder / "w1.key"
    key.write_text(own.text() + "\n")
    os.chmod(key, 0o600)
    pub = folder / "club.pub"
    pub.write_text(club.verifier.text() + "\n")
    port = free_port()
    process = Process(["witness", "--key", str(key), "--log", str(pub), "--state", str(folder / "w-http.json"),
                       "--port", str(port)], port, f"/{origin_hash(ORIGIN)}/checkpoint", folder / "witness.log")
    sizes = [tree.size - (runs - k) * 100 for k in range(runs + 1)]
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        times = []
        for old, size in zip([0, *sizes[:-1]], sizes):
            note = sign_note(Checkpoint(ORIGIN, size, tree.root(size)).text(), [club])
            body = add_checkpoint_body(old, consistency_proof(tree, old, size) if old else [], note)
            start = time.perf_counter()
            connection.request("POST", "/add-checkpoint", body=body)
            response = connection.getresponse()
            response.read()
            times.append(time.perf_counter() - start)
            assert response.status == 200, response.status
        row("add-checkpoint over HTTP to pulka witness", f"{min(times[1:]) * 1000:,.2f} ms",
            f"median {statistics.median(times[1:]) * 1000:,.2f} ms")
    finally:
        process.stop()
