"""Many scorers at once: ``pulka`` processes on one store, SQLite and PostgreSQL (each
command a process of its own, forked from a parent that has imported pulka: tests/racing.py).

First eight processes create games while eight others list them, on a store that
does not exist yet (the table is created once, whoever comes first). Then eight
processes record two deals each into one game while eight others each record a deal
into their own.
Every command must be stored, or refused cleanly with a hint to try again (a writer
that lost the race); no store error, no traceback. Afterwards every chain verifies,
and the shared game exported and imported elsewhere settles the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import racing

N = 8  # processes of each kind
DEALS = 2  # deals each process recording into the shared game records, one command each
PULKA = str(Path(sys.executable).parent / "pulka")
LINES = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3"]  # 7 and 4 events


def classify(result: subprocess.CompletedProcess[str]) -> str:
    if "Traceback" in result.stderr:
        return "traceback"
    if result.returncode == 0:
        return "stored"
    if result.returncode == 1 and "not stored:" in result.stderr and "try again" in result.stderr:
        return "refused, retry hint"
    if result.returncode == 1 and "store error" in result.stderr:
        return "store error"
    return f"other (exit {result.returncode}): {result.stderr.strip()[:200]}"


def run_workers(db: str, workers: list[list[list[str]]]) -> list[tuple[str, str]]:
    """Run each worker's commands in order, all workers at once, each command its own
    process; the outcome of every command, with the game it recorded into."""
    done = racing.race([[[*command, "--db", db] for command in commands] for commands in workers])
    return [(command[1] if len(command) > 1 else "", classify(result))
            for commands, results in zip(workers, done) for command, result in zip(commands, results)]


def pulka(db: str, *args: str) -> str:
    result = subprocess.run([PULKA, *args, "--db", db], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_many_scorers_at_once(store_url: str, tmp_path: Path) -> None:
    backend = "PostgreSQL" if store_url.startswith("postgresql://") else "SQLite"
    # A fresh store address: nothing exists yet, not even the table.
    creators = [[["new", f"own-{k}", "--players", "A,B,C", "--pulya", "1000"]] for k in range(N)]
    listers = [[["games"]] for _ in range(N)]
    created = Counter(outcome for _, outcome in run_workers(store_url, creators + listers))
    print(f"\n{backend}, creation race: {dict(created)}")
    assert created == {"stored": 2 * N}

    pulka(store_url, "new", "shared", "--players", "A,B,C", "--pulya", "1000")
    # --again: the same line may follow itself here (two tables played the same deal).
    same = [[["deal", "shared", "--again", LINES[(k + d) % 2]] for d in range(DEALS)] for k in range(N)]
    own = [[["deal", f"own-{k}", LINES[k % 2]]] for k in range(N)]
    outcomes = run_workers(store_url, same + own)
    counts = Counter(outcome for _, outcome in outcomes)
    shared = Counter(outcome for game, outcome in outcomes if game == "shared")
    print(f"{backend}, recording: {dict(counts)}; into the shared game: {dict(shared)}")

    assert set(counts) <= {"stored", "refused, retry hint"}, counts
    assert sum(counts.values()) == N * DEALS + N
    assert all(outcome == "stored" for game, outcome in outcomes if game != "shared")  # no race on one's own game
    assert shared["stored"] >= 1

    # Every chain verifies; the shared game holds exactly the deals that were stored.
    assert "TAMPERED" not in pulka(store_url, "verify")
    exported = pulka(store_url, "export", "shared")
    events = [json.loads(line) for line in exported.splitlines()]
    assert sum(1 for e in events if e["type"] == "bid" and e["bid"] == "6S") + sum(
        1 for e in events if e["type"] == "tricks" and sorted(e["tricks"].values()) == [3, 3, 4]
    ) == shared["stored"]
    copy = str(tmp_path / "copy.db")
    log = tmp_path / "shared.jsonl"
    log.write_text(exported, encoding="utf-8")
    pulka(copy, "import", str(log))
    assert pulka(copy, "settle", "shared", "--json") == pulka(store_url, "settle", "shared", "--json")
