"""``pulka verify`` judging a store's games in a pool of processes (``--jobs``, and by
default on a big store), on SQLite and PostgreSQL: it names what the one-process
verify names, in the same words and order, and with the same exit status, whether the
tampering breaks a chain or is chained anew so that only judging the events again
finds it; and a game the workers judge is judged in a worker, not here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from cli.main import main
from conftest import RawEvents
from ledger.desks import verify as verify_desk
from ledger.vocabulary.chain import ChainProblem

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAME = "ex10_sochi_sixes"  # 211 events, 30 deals
GAMES = ("alpha", "bravo", "charlie", "delta")
THIRTY_TRICKS = {"tricks": {"A": 10, "B": 10, "C": 10}}


def run(db: str, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def db(store_url: str, tmp_path: Path) -> str:
    """Four pulkas of thirty deals each (a fixture's, played to 1000 so that it goes on)."""
    log = (FIXTURES / f"{GAME}.jsonl").read_text(encoding="utf-8").replace('"pulya":20,', '"pulya":1000,', 1)
    for name in GAMES:
        path = tmp_path / f"{name}.jsonl"
        path.write_text(log.replace(f'"game":"{GAME}"', f'"game":"{name}"', 1), encoding="utf-8")
        assert run(store_url, "import", str(path)).exit_code == 0
    return store_url


@pytest.fixture
def raw(db: str) -> Iterator[RawEvents]:
    tamperer = RawEvents(db)
    yield tamperer
    tamperer.close()


@pytest.fixture
def judged_where(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A file where each ``verdict`` writes the process that gave it and the stream
    (a worker, forked after the patch, writes there too)."""
    where = tmp_path / "judged_where.txt"
    verdict = verify_desk.verdict

    def noted(ledger: object, stream: str) -> ChainProblem | None:
        with open(where, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {stream}\n")
        return verdict(ledger, stream)  # type: ignore[arg-type]

    monkeypatch.setattr(verify_desk, "verdict", noted)
    return where


def processes(where: Path) -> dict[str, int]:
    return {stream: int(pid) for pid, stream in (line.split() for line in where.read_text().splitlines())}


def both(db: str) -> tuple[Result, Result]:
    """verify in this process and in a pool of two: what each said."""
    serial, parallel = run(db, "verify", "--jobs", "1"), run(db, "verify", "--jobs", "2")
    assert (parallel.exit_code, parallel.stdout, parallel.stderr) == (serial.exit_code, serial.stdout, serial.stderr)
    return serial, parallel


def test_an_intact_store_is_said_intact_by_the_pool_as_by_one_process(db: str, judged_where: Path) -> None:
    serial, parallel = both(db)
    assert parallel.exit_code == 0
    assert [line.split(":")[0] for line in parallel.stdout.splitlines()] == list(GAMES)
    assert all(line.endswith("211 events, chain intact") for line in parallel.stdout.splitlines())
    # The serial run judged each game here; the pool's run, in processes of its own.
    lines = judged_where.read_text().splitlines()
    assert len(lines) == 2 * len(GAMES)
    here = {int(line.split()[0]) for line in lines[: len(GAMES)]}
    pool = {int(line.split()[0]) for line in lines[len(GAMES):]}
    assert here == {os.getpid()} and os.getpid() not in pool and 1 <= len(pool) <= 2


def test_an_event_chained_anew_is_caught_by_a_worker_and_named_as_one_process_names_it(
    db: str, raw: RawEvents, judged_where: Path
) -> None:
    """The chain holds after the rewrite: only the judge, in a worker, finds it."""
    raw.rechain("charlie", 8, lambda event: event.update(THIRTY_TRICKS))
    judged_where.unlink(missing_ok=True)
    parallel = run(db, "verify", "--jobs", "2")
    assert processes(judged_where)["charlie"] != os.getpid()
    assert parallel.exit_code == 1
    assert "charlie: TAMPERED: event 8 of game 'charlie' would be refused: tricks sum to 30" in parallel.stdout
    assert "alpha: 211 events, chain intact" in parallel.stdout and "delta: 211 events, chain intact" in parallel.stdout
    assert "charlie: tampered" in parallel.stderr
    both(db)


def test_a_broken_chain_and_an_unreadable_row_are_named_by_the_pool_as_by_one_process(
    db: str, raw: RawEvents
) -> None:
    topic, state = raw.row("bravo", 20)
    record = msgspec.json.decode(state)
    record["event"]["at"] = "2001-01-01T00:00:00Z"  # the digest no longer its event's
    raw.set("bravo", 20, state=msgspec.json.encode(record))
    raw.set("delta", 5, state=b"{not json")
    serial, parallel = both(db)
    assert parallel.exit_code == 1
    said = parallel.stdout.splitlines()
    assert said[0] == "alpha: 211 events, chain intact" and said[2] == "charlie: 211 events, chain intact"
    assert said[1].startswith("bravo: TAMPERED: ") and said[3].startswith("delta: TAMPERED: ")
    assert "bravo, delta: tampered" in parallel.stderr


def test_the_pool_is_used_by_default_only_on_a_big_store() -> None:
    assert verify_desk.default_workers(verify_desk.PARALLEL_FROM - 1) == 1
    cores = len(os.sched_getaffinity(0))
    assert verify_desk.default_workers(verify_desk.PARALLEL_FROM) == min(2, cores)


def test_jobs_below_one_is_refused_naming_the_option(db: str) -> None:
    result = run(db, "verify", "--jobs", "0")
    assert result.exit_code == 2 and "--jobs" in result.stderr


def test_a_worker_that_dies_is_said_and_verify_ends(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed while it judges (here it ends itself on one game) ends verify with
    exit 1 and a message saying so, never a hang, a traceback or a game said intact."""
    here = os.getpid()
    verdict = verify_desk.verdict

    def dying(ledger: object, stream: str) -> ChainProblem | None:
        if stream == "charlie" and os.getpid() != here:
            os._exit(9)
        return verdict(ledger, stream)  # type: ignore[arg-type]

    monkeypatch.setattr(verify_desk, "verdict", dying)
    result = run(db, "verify", "--jobs", "2")
    assert result.exit_code == 1
    assert "ended before its time" in result.stderr and "verify --jobs 1" in result.stderr
    assert "charlie" not in result.stdout
